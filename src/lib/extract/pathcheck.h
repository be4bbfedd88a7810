/* pathcheck.h: the first line of defence against hostile archives — pure checks of entry names
 * and link targets, done before anything is written (docs/security.md). No I/O. */
#ifndef CC_PATHCHECK_H
#define CC_PATHCHECK_H

#include <stddef.h>

#define CC_PATHCHECK_MAX_NAME 1024 /* bytes in a whole entry name or link target */
#define CC_PATHCHECK_MAX_COMPONENT 255
#define CC_PATHCHECK_MAX_DEPTH 32

/* Results: 0 = safe, CC_PATHCHECK_UNSAFE = refused (*why: static text), CC_PATHCHECK_NOMEM. */
#define CC_PATHCHECK_UNSAFE 1
#define CC_PATHCHECK_NOMEM 2

/* One path component (not NUL-terminated): reserved Windows device names (CON, PRN, AUX, NUL,
 * COM0-9, LPT0-9, CONIN$, CONOUT$, with any extension), "..", trailing dot or space, characters
 * Windows refuses, over-long names. "." is the caller's business. */
int cc_pathcheck_component(const char *comp, size_t len, const char **why);

/* 1 when comp (len bytes) is a Windows reserved device name, with or without an extension. */
int cc_pathcheck_is_win_reserved(const char *comp, size_t len);

/* An entry name as the archive stores it ('/'-separated, UTF-8). On success *norm is the
 * normalised relative path: '.' and empty components dropped, no trailing '/' ("" for the
 * archive root "./"). Absolute paths, drive letters, UNC names, backslashes, control
 * characters, ".." and the component rules above are refused. */
int cc_pathcheck_name(const char *name, char **norm, const char **why);

/* A symbolic link's target, relative to the link at link_norm (a normalised entry name).
 * Absolute targets and targets with drive letters, UNC prefixes or backslashes are refused; the
 * target is resolved lexically against the link's directory and must stay strictly inside the
 * link's top directory (the first component of link_norm). *resolved gets the normalised
 * archive path it points at. */
int cc_pathcheck_link_target(const char *link_norm, const char *target, char **resolved,
                             const char **why);

/* The shortest relative path from directory from_dir (normalised, "" = root) to path to
 * (normalised), e.g. ("lib", "include/x.h") -> "../include/x.h". malloc'd; NULL on OOM. */
char *cc_path_relative(const char *from_dir, const char *to);

#endif
