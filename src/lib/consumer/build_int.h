/* build_int.h: what the build-view files (build_probe.c, build_view.c, build_json.c) share: the
 * compiler runs and the parsers of their output. Included only by files in src/lib/loader/. */
#ifndef CC_BUILD_INT_H
#define CC_BUILD_INT_H

#include "internal.h"

/* The program @p prog (a name looked up on PATH, or a path); NULL when there is none. */
char *cc_bv_which(const char *prog);
/* Run the words of @p cmd ("ccache gcc") with @p args (NULL-ended) appended; *out is the
 * merged stdout + stderr (malloc'd). 0 when it ran (see *status), -1 when it could not. */
int cc_bv_run(const char *cmd, const char *const *args, char **out, int *status);
/* Parsers (0 ok, -1 when the text is not what they expect). */
int cc_bv_parse_includes(const char *text, cc_strv *out);  /* gcc -E -v */
int cc_bv_parse_libraries(const char *text, cc_strv *out); /* gcc -print-search-dirs */
int cc_bv_parse_ld_dirs(const char *text, cc_strv *out);   /* ld --verbose */

#endif
