/* commit_fixture.h: shared helpers of the install-area unit tests — temp dirs, real ELF test
 * doubles with the right SONAMEs (cc -shared), hand-made staging trees in NVIDIA's normalised
 * layout, fake CUDA trees, and byte-exact snapshots of a tree (path, type, mode, SHA-256, link
 * target) to compare before/after. Tests only: plain POSIX calls are fine here. */
#ifndef COMMIT_FIXTURE_H
#define COMMIT_FIXTURE_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf_fixture.h"
#include "hash.h"
#include "internal.h"

#define REAL_CUDNN_DIR "/usr/local/cuda-13.0"

/* A plain context for fixture hashing (no root, no faults). */
static inline cudnnctl_ctx *fx_ctx(void)
{
    static cudnnctl_ctx *c;
    if (!c)
        cudnnctl_ctx_new(&c);
    return c;
}

static inline char *fx_tmpdir(void)
{
    char tmpl[] = "/tmp/cudnnctl-ut-XXXXXX";
    char *d = mkdtemp(tmpl);
    return d ? strdup(d) : NULL;
}

/* On tmpfs when there is one (torture loops run hundreds of fsync'd installs). */
static inline char *fx_tmpdir_fast(void)
{
    char tmpl[] = "/dev/shm/cudnnctl-ut-XXXXXX";
    char *d = access("/dev/shm", W_OK) == 0 ? mkdtemp(tmpl) : NULL;
    return d ? strdup(d) : fx_tmpdir();
}

static inline int fx_sh(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *cmd = cc_vasprintf(fmt, ap);
    va_end(ap);
    int rc = cmd ? system(cmd) : -1;
    if (rc != 0)
        fprintf(stderr, "fixture command failed (%d): %s\n", rc, cmd ? cmd : "?");
    free(cmd);
    return rc;
}

static inline void fx_rm(const char *dir)
{
    if (dir && (strncmp(dir, "/tmp/cudnnctl-ut-", 17) == 0 ||
                strncmp(dir, "/dev/shm/cudnnctl-ut-", 21) == 0))
        fx_sh("chmod -R u+w '%s' 2>/dev/null; rm -rf '%s'", dir, dir);
}

static inline int fx_write(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fputs(text, f);
    return fclose(f);
}

/* A real shared object with the given SONAME at path (a test double, not NVIDIA's code). */
static inline int fx_elf(const char *path, const char *soname, const char *tag)
{
    return efx_elf(path, soname, tag);
}

/* Staging tree of cuDNN `ver3` (e.g. "9.19.0"), NVIDIA 9.x layout, with the sub-libraries
 * named in subs (each gets a real ELF double libX.so.M.m.p, and the .so.M / .so links when
 * with_links). Headers: the machine's real cuDNN headers when present, else generated ones. */
static inline int fx_staging(const char *dir, const char *ver3, const char *const *subs,
                             int with_links)
{
    int major = atoi(ver3);
    if (fx_sh("mkdir -p '%s/include' '%s/lib'", dir, dir) != 0)
        return -1;
    const char *hdrs[] = {"cudnn.h", "cudnn_version.h", "cudnn_graph.h", NULL};
    for (int i = 0; hdrs[i]; i++) {
        char *real = cc_asprintf("%s/include/%s", REAL_CUDNN_DIR, hdrs[i]);
        char *dst = cc_asprintf("%s/include/%s", dir, hdrs[i]);
        int rc;
        if (access(real, R_OK) == 0 && i < 2)
            rc = fx_sh("cp '%s' '%s' && echo '/* test build %s */' >> '%s'", real, dst, ver3, dst);
        else {
            char *t = cc_asprintf("/* %s of cuDNN %s (test) */\n#define CUDNN_MAJOR %d\n", hdrs[i],
                                  ver3, major);
            rc = fx_write(dst, t);
            free(t);
        }
        free(real);
        free(dst);
        if (rc != 0)
            return -1;
    }
    char *lic = cc_asprintf("%s/LICENSE", dir);
    char *lt = cc_asprintf("cuDNN %s license text (test)\n", ver3);
    int rc = fx_write(lic, lt);
    free(lic);
    free(lt);
    for (int i = 0; rc == 0 && subs[i]; i++) {
        char *full = cc_asprintf("%s/lib/%s.so.%s", dir, subs[i], ver3);
        char *soname = cc_asprintf("%s.so.%d", subs[i], major);
        rc = fx_elf(full, soname, ver3);
        if (rc == 0 && with_links)
            rc = fx_sh("cd '%s/lib' && ln -s '%s.so.%s' '%s' && ln -s '%s' '%s.so'", dir, subs[i],
                       ver3, soname, soname, subs[i]);
        free(full);
        free(soname);
    }
    return rc;
}

/* ---- snapshots ----------------------------------------------------------------------------- */

static inline int fx_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static inline void fx_walk(const char *root, const char *rel, cc_strv *out)
{
    char *dir = rel ? cc_path_join(root, rel) : strdup(root);
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char *r = rel ? cc_path_join(rel, e->d_name) : strdup(e->d_name);
        char *p = cc_path_join(root, r);
        struct stat st;
        lstat(p, &st);
        char *line = NULL;
        if (S_ISLNK(st.st_mode)) {
            char buf[4096];
            ssize_t n = readlink(p, buf, sizeof(buf) - 1);
            buf[n > 0 ? n : 0] = '\0';
            line = cc_asprintf("%s link -> %s", r, buf);
        } else if (S_ISDIR(st.st_mode)) {
            line = cc_asprintf("%s dir %04o", r, (unsigned)(st.st_mode & 07777));
            fx_walk(root, r, out);
        } else {
            char hex[65] = "?";
            uint64_t sz = 0;
            cc_sha256_file(fx_ctx(), p, hex, &sz);
            line = cc_asprintf("%s file %04o %s", r, (unsigned)(st.st_mode & 07777), hex);
        }
        cc_strv_push_own(out, line);
        free(r);
        free(p);
    }
    if (d)
        closedir(d);
    free(dir);
}

/* One string: a sorted line per entry under root. */
static inline char *fx_snapshot(const char *root)
{
    cc_strv v = {0};
    fx_walk(root, NULL, &v);
    if (v.n)
        qsort(v.v, v.n, sizeof(char *), fx_cmp);
    cc_buf b = {0};
    cc_buf_puts(&b, "");
    for (size_t i = 0; i < v.n; i++)
        cc_buf_printf(&b, "%s\n", v.v[i]);
    cc_strv_free(&v);
    return b.data;
}

/* Print the first differing line (for a readable failure). */
static inline int fx_same(const char *what, const char *a, const char *b)
{
    if (strcmp(a, b) == 0)
        return 1;
    fprintf(stderr, "%s differ:\n--- expected\n%s--- got\n%s", what, a, b);
    return 0;
}

static inline int fx_exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

static inline char *fx_readlink(const char *path)
{
    char buf[4096];
    ssize_t n = readlink(path, buf, sizeof(buf) - 1);
    if (n < 0)
        return NULL;
    buf[n] = '\0';
    return strdup(buf);
}

/* ---- an install world under a temp --root ----------------------------------------------- */

#include "install_internal.h"

typedef struct {
    char *tmp;         /* the temp dir (removed at the end) */
    char *root;        /* TMP/root: the --root */
    char *state;       /* real state dir: ROOT/var/lib/cudnnctl */
    char *tree;        /* real CUDA tree: ROOT/usr/local/cuda-13.0 */
    char *fixture;     /* staging content populate copies (set per install) */
    int fail_populate; /* populate returns HASH_MISMATCH after copying */
} fx_world;

/* A fake CUDA 13.0 tree that already holds a foreign, wheel-style cuDNN 9 (as this machine's
 * does): libcudnn.so.9 and libcudnn_adv.so.9 regular files, .so links, old headers. */
static inline int fx_world_make_in(fx_world *w, char *tmp)
{
    memset(w, 0, sizeof(*w));
    w->tmp = tmp;
    w->root = cc_path_join(w->tmp, "root");
    w->state = cc_path_join(w->root, "var/lib/cudnnctl");
    w->tree = cc_path_join(w->root, "usr/local/cuda-13.0");
    if (!w->tmp || fx_sh("mkdir -p '%s/include' '%s/lib' && ln -s lib '%s/lib64' && "
                         "ln -s /usr/local/cuda-13.0 '%s/usr/local/cuda'",
                         w->tree, w->tree, w->tree, w->root) != 0)
        return -1;
    char *p = cc_path_join(w->tree, "include/cuda.h");
    fx_write(p, "/* the toolkit's own header */\n");
    free(p);
    p = cc_path_join(w->tree, "include/cudnn.h");
    fx_write(p, "/* an older cuDNN header that was here before */\n");
    free(p);
    p = cc_path_join(w->tree, "lib/libcudart.so.13");
    int rc = fx_elf(p, "libcudart.so.13", "cudart");
    free(p);
    p = cc_path_join(w->tree, "lib/libcudnn.so.9");
    rc |= fx_elf(p, "libcudnn.so.9", "old wheel");
    free(p);
    p = cc_path_join(w->tree, "lib/libcudnn_adv.so.9");
    rc |= fx_elf(p, "libcudnn_adv.so.9", "old wheel");
    free(p);
    rc |= fx_sh("cd '%s/lib' && ln -s libcudnn.so.9 libcudnn.so && "
                "ln -s libcudnn_adv.so.9 libcudnn_adv.so && ln -s libcudart.so.13 libcudart.so",
                w->tree);
    return rc;
}

static inline int fx_world_make(fx_world *w)
{
    return fx_world_make_in(w, fx_tmpdir());
}

static inline void fx_world_free(fx_world *w)
{
    fx_rm(w->tmp);
    free(w->tmp);
    free(w->root);
    free(w->state);
    free(w->tree);
    free(w->fixture);
    memset(w, 0, sizeof(*w));
}

static inline cudnnctl_ctx *fx_world_ctx(const fx_world *w)
{
    cudnnctl_ctx *ctx = NULL;
    cudnnctl_ctx_new(&ctx);
    cudnnctl_set_root(ctx, w->root);
    cudnnctl_set_state_dir(ctx, w->state);
    return ctx;
}

/* The test's stand-in for fetch + verify + extract: copy the fixture into staging. */
static inline cudnnctl_err fx_populate(cudnnctl_ctx *ctx, void *user, const cc_source_choice *c,
                                       const char *staging, cc_staging *st, char digest[65],
                                       uint64_t *size)
{
    fx_world *w = user;
    (void)st;
    if (fx_sh("cp -a '%s/.' '%s/'", w->fixture, staging) != 0)
        return CC_ERR(ctx, CUDNNCTL_E_IO, "fixture copy failed");
    if (w->fail_populate)
        return CC_ERR(ctx, CUDNNCTL_E_HASH_MISMATCH,
                      "SHA-256 mismatch (test): expected %s got 00ff", c->sha256);
    memcpy(digest, c->sha256, 65);
    *size = c->size;
    return CUDNNCTL_E_OK;
}

/* A hand-made plan, as the catalog would make it. */
typedef struct {
    cudnnctl_plan p;
    char sha[65];
} fx_plan;

static inline void fx_plan_init(fx_plan *fp, const char *ver4, cudnnctl_target_mode mode,
                                const char *target)
{
    memset(fp, 0, sizeof(*fp));
    for (int i = 0; i < 64; i++)
        fp->sha[i] = "0123456789abcdef"[(i * 7 + (int)strlen(ver4) + ver4[2]) % 16];
    fp->p.archive.cudnn_version = (char *)ver4;
    fp->p.archive.platform = (char *)"linux-x86_64";
    fp->p.archive.cuda_variant = (char *)"13";
    fp->p.archive.relative_path = (char *)"cudnn/linux-x86_64/test-archive.tar.xz";
    fp->p.archive.sha256 = fp->sha;
    fp->p.archive.size = 4096;
    fp->p.archive.manifest = (char *)"test";
    fp->p.url = (char *)"file:///nowhere/test-archive.tar.xz";
    fp->p.mode = mode;
    fp->p.target_path = (char *)target;
    fp->p.install_dir = (char *)target;
    if (mode == CUDNNCTL_TARGET_CUDA_TREE) {
        fp->p.lib_dir = (char *)"/usr/local/cuda/lib64";
        fp->p.include_dir = (char *)"/usr/local/cuda/include";
    }
}

/* Install fixture content through the real pipeline (all but fetch/extract). */
static inline cudnnctl_err fx_install(cudnnctl_ctx *ctx, fx_world *w, const fx_plan *fp, int force,
                                      cudnnctl_install_result **res)
{
    cudnnctl_install_opts o;
    memset(&o, 0, sizeof(o));
    o.plan = &fp->p;
    o.force = force;
    return cc_install_with(ctx, NULL, NULL, &o, fx_populate, w, res);
}

/* No temp names or staging dirs left anywhere under dir. */
static inline int fx_no_leftovers(const char *dir)
{
    return fx_sh("test -z \"$(find '%s' -name '.cudnnctl-*' -o -name '.staging-*')\"", dir) == 0;
}

#endif
