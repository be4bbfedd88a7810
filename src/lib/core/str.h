/* str.h: small string, path and list helpers (all allocate with malloc; NULL on OOM). */
#ifndef CC_STR_H
#define CC_STR_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

char *cc_strdup(const char *s);
char *cc_strndup(const char *s, size_t n);
char *cc_asprintf(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
char *cc_vasprintf(const char *fmt, va_list ap);
int cc_str_starts(const char *s, const char *prefix);
int cc_str_ends(const char *s, const char *suffix);
/* The same ignoring ASCII case (Windows names, hex digests, HTTP header names); locale-free. */
int cc_str_ieq(const char *a, const char *b);
int cc_str_istarts(const char *s, const char *prefix);
int cc_str_iends(const char *s, const char *suffix);
/* Like strncasecmp(a, b, n) == 0: the first n bytes equal ignoring ASCII case, or both strings
 * end at the same place before that (a need not be NUL-terminated when it has n bytes). */
int cc_str_ieqn(const char *a, const char *b, size_t n);
/* A malloc'd copy of s in ASCII lower case ("ABCdef" -> "abcdef"); NULL for NULL or on OOM. */
char *cc_str_lower(const char *s);
/* 1 when the n bytes at s are all ASCII digits (and n > 0). */
int cc_all_digits(const char *s, size_t n);
/* A cuDNN library file name: "libcudnn" then '.' or '_' (libcudnn.so.9, libcudnn_ops.so.9,
 * libcudnn_static.a) -- not libcudnnctl.so.0, cudnnctl's own library. */
int cc_str_cudnn_lib(const char *name);
char *cc_str_trim(char *s); /* in place; returns s advanced past leading space */
/* The first control character of s (0x01-0x1f, 0x7f), NULL when it has none: such a byte in a
 * path printed into shell text or a loader file would start a new line or an escape. */
const char *cc_str_ctl(const char *s);
/* A copy of s with every control character written \xNN (for comments, logs, messages). */
char *cc_str_printable(const char *s);

/* Join with '/' (normalising doubled separators). */
char *cc_path_join(const char *a, const char *b);
char *cc_path_join3(const char *a, const char *b, const char *c);
const char *cc_path_base(const char *path); /* pointer into path */
char *cc_path_dir(const char *path);        /* malloc'd; "." when none; a root ("/", "C:/") stays */
/* In place: '\\' -> '/' where '\\' is the OS separator (Windows), so library paths use one
 * style ("C:/Program Files/..."); a no-op on Linux, where '\\' is an ordinary character. */
void cc_path_slashes(char *path);
/* malloc'd copy in the OS's native separators ("C:\\x\\bin" on Windows) for the registry and users. */
char *cc_path_native(const char *path);

/* Growable byte buffer, always NUL-terminated once data is non-NULL (grows through cc_grow). */
typedef struct {
    char *data;
    size_t len;
    size_t cap;
} cc_buf;
int cc_buf_append(cc_buf *b, const void *data, size_t len);
int cc_buf_puts(cc_buf *b, const char *s);
int cc_buf_printf(cc_buf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void cc_buf_free(cc_buf *b);

/* NULL-terminated string vector. */
typedef struct {
    char **v;
    size_t n;
    size_t cap;
} cc_strv;
int cc_strv_push(cc_strv *sv, const char *s);    /* copies s */
int cc_strv_push_own(cc_strv *sv, char *s);      /* takes s */
int cc_strv_contains(const cc_strv *sv, const char *s);
void cc_strv_free(cc_strv *sv);
/* Free a (char **, count) array of strings the public result structs hold, and the array. */
void cc_strs_free(char **v, size_t n);
void cc_strv_sort(cc_strv *sv);

/* Versions: up to 4 numeric parts; missing parts are -1. */
typedef struct {
    int part[4];
    int n; /* number of parts present */
} cc_version;
int cc_version_parse(const char *s, cc_version *v); /* 0 ok, -1 not a version */
/* Compare on the parts both have when prefix_match, else on all parts (missing = -1). */
int cc_version_cmp(const cc_version *a, const cc_version *b);
int cc_version_prefix_match(const cc_version *prefix, const cc_version *full);
char *cc_version_str(const cc_version *v);
/* Compare dotted numeric versions where missing parts count as 0 ("580" == "580.0.0");
 * unparseable strings sort first. */
int cc_version_cmp_str(const char *a, const char *b);

/* Current UTC time as ISO 8601 (malloc'd). */
char *cc_now_iso(void);
/* A word quoted for POSIX sh when it needs it (malloc'd): plain words stay as they are. */
char *cc_sh_quote(const char *s);

#endif
