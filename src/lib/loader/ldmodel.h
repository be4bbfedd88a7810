/* ldmodel.h: the loader model's interface inside the library (ld.so.cache reader, the glibc
 * search model, versions, which): for src/lib/loader/ and the consumer/ folder above it. */
#ifndef CC_LDMODEL_H
#define CC_LDMODEL_H

#include <stddef.h>
#include <stdint.h>

#include "cudnnctl/cudnnctl.h"
#include "elf_info.h"
#include "platform.h"
#include "str.h"

/* ---- ld.so.cache (ldcache.c) --------------------------------------------------------------- */
typedef struct {
    int32_t flags;   /* FLAG_ELF_LIBC6 | arch bits (0x0303 = libc6,x86-64) */
    uint64_t hwcap;  /* bit 62 set: a glibc-hwcaps subdirectory entry */
    const char *key; /* soname (points into the cache data) */
    const char *value; /* absolute path */
} cc_ldc_entry;

typedef struct {
    char *data; /* the whole file */
    size_t len;
    cc_ldc_entry *v;
    size_t n;
    int format; /* 1 = old "ld.so-1.7.0" only, 2 = new "glibc-ld.so.cache1.1" (maybe after old) */
} cc_ldcache;

/* Parse a cache held in memory (takes ownership of data, malloc'd). 0 ok; -1 malformed: every
 * offset and count is checked against the file size. */
int cc_ldcache_parse(char *data, size_t len, cc_ldcache *c);
void cc_ldcache_free(cc_ldcache *c);
/* The flags value glibc accepts for objects of this ELF machine and class (exact match). */
int32_t cc_ldcache_flags_for(unsigned machine, int is_64);
/* The first entry for soname with these flags that is not a glibc-hwcaps entry (glibc's order:
 * the entries of one soname in file order). NULL when none; *n_other counts entries of that
 * soname skipped for other flags. */
const cc_ldc_entry *cc_ldcache_lookup(const cc_ldcache *c, const char *soname, int32_t flags,
                                      int *n_other);

/* ---- the effective-load probe as root (probe_guard.c) ------------------------------------- */
/* 1 when the probe may dlopen soname here: not root, or the loader model's prediction (the file,
 * what it needs, every LD_LIBRARY_PATH dir) passes the trust rule. 0: *why says what failed;
 * *predicted is the model's file (NULL: none). Both malloc'd. */
int cc_ld_probe_may_load(cudnnctl_ctx *ctx, const char *soname, char **predicted, char **why);
/* 0 when path passes the trust rule (a path that does not exist passes when the walk to it
 * did: nobody else can create it there); -1 with *why = "ROLE: the reason" (malloc'd). */
int cc_ld_trusted_or_why(const char *path, const char *role, char **why);
/* As root, before a login shell runs: NULL when every start-up file `bash -l` would run for this
 * home (and /etc/profile, /etc/profile.d/...) is root's or absent; else why not (malloc'd). */
char *cc_ld_login_startup_why(const char *home);

/* ---- versions (consumers.c) --------------------------------------------------------------- */
/* "9.19.0" from ".../libcudnn.so.9.19.0"; NULL when the name carries no version. */
char *cc_ld_version_from_name(const char *real_path, const char *stem);
/* cuDNN version from a cudnn_version.h beside a lib dir (../include, wheel layout too). */
char *cc_ld_cudnn_header_version(const cudnnctl_ctx *ctx, const char *lib_dir);
/* The release of the cuDNN copy a libcudnn* file (root-relative, links resolved) belongs to:
 * a versioned name (its own release), else the core library's tag in its dir (the bytes), else
 * cudnn_version.h beside it, the wheel's dist-info, a cudnnctl prefix dir name. "9.19.0.56"
 * where the tag says so. NULL unknown; *how: static text naming the source. */
char *cc_ld_cudnn_release(const cudnnctl_ctx *ctx, const char *file, const char **how);
/* 1 same major.minor.patch, 0 different, -1 unknown (either lacks three parts). */
int cc_ld_same_release(const char *a, const char *b);

/* ---- the loader's $PLATFORM and glibc-hwcaps subdirs (ldhost.c) ---------------------------- */
typedef struct {
    char *glibc;    /* "2.36"; NULL when unknown */
    char *platform; /* what $PLATFORM expands to; NULL: none (glibc drops an element naming it) */
    cc_strv hwcaps; /* the glibc-hwcaps subdirs tried first in every dir, best first */
    char *source;   /* how that was decided, one sentence */
    int assumed;    /* 1: assumed, not this machine's loader's answer for these files */
} cc_ld_host;
/* The facts for a program of ELF machine `machine`: this machine's loader's answer (or the
 * stand-in of cudnnctl_set_loader_facts); assumed for another machine or under --root. */
void cc_ld_host_get(const cudnnctl_ctx *ctx, unsigned machine, cc_ld_host *h);
/* From a `ld.so --list-diagnostics` text: 0 when it has a dl_platform line; -1 otherwise. */
int cc_ld_host_from_diagnostics(const char *text, cc_ld_host *h);
/* As glibc `glibc` (NULL: unknown, taken as a current one) decides on this CPU (NULL: unknown). */
void cc_ld_host_decide(const char *glibc, unsigned machine, const cc_pf_cpu *cpu, cc_ld_host *h);
void cc_ld_host_free(cc_ld_host *h);
/* The value of a `key=` line of a --list-diagnostics text (unquoted; NULL for 0x0 or absent). */
char *cc_ld_diag_value(const char *text, const char *key, int *found);
/* "avx2 fma bmi1 ..." → CC_PF_CPU_* bits (unknown names are ignored). */
uint32_t cc_ld_cpu_features_parse(const char *names);

/* ---- the search model (resolve.c, model.c) ------------------------------------------------ */
typedef struct {
    char *path;   /* as the loader names it (root-relative) */
    char *origin; /* $ORIGIN: its dir (the program: links resolved, as /proc/self/exe) */
    cc_elf_info elf;
    int loader; /* index of the object that loaded it; -1 = none */
    int mapped; /* counts for "already loaded" */
} cc_ldobj;

typedef struct {
    cudnnctl_ctx *ctx;
    unsigned machine;
    int is_64;
    const char *platform; /* $PLATFORM (host.platform) */
    cc_ld_host host;      /* $PLATFORM and the glibc-hwcaps subdirs, and where they come from */
    char *lib;            /* $LIB */
    char *llp;            /* LD_LIBRARY_PATH or NULL */
    char *cache_file;     /* root-relative; NULL = no cache */
    cc_ldcache cache;
    int have_cache, cache_bad;
    cc_strv defaults;
    cc_ldobj *objs;
    size_t n_objs, cap_objs;
    int main; /* index of the program in objs; -1 none */
} cc_ldmodel;

int cc_ldm_init(cc_ldmodel *m, cudnnctl_ctx *ctx, const cudnnctl_loader_env *env);
/* The program's ELF machine: $PLATFORM and the hwcaps subdirs are decided again for it. */
void cc_ldm_set_machine(cc_ldmodel *m, unsigned machine);
void cc_ldm_free(cc_ldmodel *m);
char *cc_ldm_expand(const cc_ldmodel *m, const char *s, const char *origin);
/* Add an object (path root-relative or host); reads its dynamic section. Index, or -1. */
int cc_ldm_add(cc_ldmodel *m, const char *path, int loader, int is_main);
/* Search for soname on behalf of objs[req] (-1: a program without RPATH / RUNPATH).
 * 1 found (r->path, r->dir, r->rule, r->why set), 0 not found, -1 the loader stops (r->why). */
int cc_ldm_search(cc_ldmodel *m, int req, const char *soname, cudnnctl_load_result *r);
/* Record a passed-over candidate / the rule that found it (why: printf format). */
void cc_ld_skip(cudnnctl_load_result *r, const char *path, const char *reason);
void cc_ld_found(cudnnctl_load_result *r, const char *rule, const char *from, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
int cc_ld_read_file(const char *host, size_t max, char **data, size_t *len);
struct cJSON;
struct cJSON *cc_ld_result_obj(const cudnnctl_load_result *r);
void cc_ld_result_clear(cudnnctl_load_result *r); /* not the struct */
/* One search into *r (cleared first): rule, why, real_path, version filled. */
cudnnctl_err cc_ld_one(cc_ldmodel *m, int req, const char *soname, cudnnctl_load_result *r);
/* which.c */
int cc_ld_family(const char *soname); /* 0 libcudnn, 1 libcudart, 2 libcublas, -1 other */
char *cc_ld_driver_version(cc_ldmodel *m);
int cc_ld_cudnn_cuda_major(const cudnnctl_ctx *ctx, const char *file, const char **how);
/* sublibs.c: the sub-libraries libcudnn.so.M loads itself, as cuDNN searches for them. */
void cc_ld_sublibs(cc_ldmodel *m, cudnnctl_consumer *c);
void cc_ld_judge(cudnnctl_ctx *ctx, cudnnctl_consumer *c, const char *driver);
cudnnctl_err cc_ld_add_lib(cc_ldmodel *m, cudnnctl_consumer *c, int req, const char *soname);
/* The lowest Linux driver of a CUDA major (which.c); NULL when unknown. */
const char *cc_ld_driver_floor(int cuda_major);
cudnnctl_err cc_ld_push_consumer(cudnnctl_which_report *rep, cudnnctl_consumer **out);
/* Add a problem / a note (one sentence, taken; NULL ignored) to a consumer (ld_util.c). */
void cc_ld_problem(cudnnctl_consumer *c, char *text);
void cc_ld_note(cudnnctl_consumer *c, char *text);
/* The first "580.95.05"-like token on the line of s (after a blank); NULL none (ld_util.c). */
char *cc_ld_first_version(const char *s);
/* Fill real_path and version after a search. */
void cc_ld_finish(cc_ldmodel *m, cudnnctl_load_result *r);

#endif
