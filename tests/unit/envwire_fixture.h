/* envwire_fixture.h: fake roots for the environment-wiring unit tests: toolkits 11.8, 12.4, 13.0
 * under /usr/local (version.json, bin/, lib64/), a cudnnctl prefix with installs, a detect
 * result describing them. Header-only; included by test_env_*.c, test_use.c, test_alternatives.c
 * (after <cmocka.h>). Through the platform layer (pf_fixture.h), so it also builds for Windows: where
 * POSIX symlinks cannot be made (wine) the root has no /usr/local/cuda link (f->links == 0) and a
 * case that needs links calls FX_NEED_LINKS(f), reported as skipped, never as passed.
 */
#ifndef ENVWIRE_FIXTURE_H
#define ENVWIRE_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "pf_fixture.h"

typedef struct {
    char root[256];
    cudnnctl_ctx *ctx;
    cudnnctl_toolkit tk[4];
    cudnnctl_detect_result det;
    int links; /* POSIX symlinks can be made here (pff_posix_symlinks) */
} fx_t;

/* The case is about symlinks: skipped (with the reason) where none can be made. */
#define FX_NEED_LINKS(f)                                                                           \
    do {                                                                                           \
        if (!(f)->links) {                                                                         \
            print_message("no POSIX symlinks here (wine): the case is about links\n");             \
            skip();                                                                                \
        }                                                                                          \
    } while (0)

static inline void fx_path(const fx_t *f, char *out, size_t n, const char *rel)
{
    snprintf(out, n, "%s%s", f->root, rel);
}

/* mkdir -p of an absolute host path (no shell: paths may hold quotes). */
static inline void mkdir_p(const char *p)
{
    pff_mkdir_p(p);
    cc_pf_stat_t st;
    if (cc_pf_stat(p, &st) != 0 || !st.is_dir)
        abort();
}

static inline void fx_mkdir(const fx_t *f, const char *rel)
{
    char p[1024];
    fx_path(f, p, sizeof(p), rel);
    mkdir_p(p);
}

static inline void fx_write(const fx_t *f, const char *rel, const char *text)
{
    char p[1024];
    fx_path(f, p, sizeof(p), rel);
    char *d = cc_path_dir(p);
    mkdir_p(d);
    free(d);
    FILE *fp = fopen(p, "w");
    if (!fp)
        abort();
    fputs(text, fp);
    fclose(fp);
}

static inline void fx_link(const fx_t *f, const char *rel, const char *target)
{
    char p[1024];
    fx_path(f, p, sizeof(p), rel);
    cc_pf_unlink(p);
    if (cc_pf_symlink(target, p) != 0)
        abort();
}

/* readlink of a root-relative link; "" when not a link. */
static inline const char *fx_readlink(const fx_t *f, const char *rel)
{
    static char buf[1024];
    char p[1024];
    fx_path(f, p, sizeof(p), rel);
    char *t = cc_pf_readlink(p);
    snprintf(buf, sizeof(buf), "%s", t ? t : "");
    free(t);
    return buf;
}

/* Whole file (static buffer); "" when missing. */
static inline const char *fx_read(const fx_t *f, const char *rel)
{
    static char buf[65536];
    char p[1024];
    fx_path(f, p, sizeof(p), rel);
    buf[0] = '\0';
    FILE *fp = fopen(p, "r");
    if (!fp)
        return buf;
    size_t n = fread(buf, 1, sizeof(buf) - 1, fp);
    buf[n] = '\0';
    fclose(fp);
    return buf;
}

static inline int fx_exists(const fx_t *f, const char *rel)
{
    char p[1024];
    cc_pf_stat_t st;
    fx_path(f, p, sizeof(p), rel);
    return cc_pf_lstat(p, &st) == 0 && st.exists;
}

static inline void fx_toolkit(fx_t *f, int i, int major, int minor)
{
    char rel[128], json[256];
    snprintf(rel, sizeof(rel), "/usr/local/cuda-%d.%d", major, minor);
    char sub[160];
    snprintf(sub, sizeof(sub), "%s/bin", rel);
    fx_mkdir(f, sub);
    snprintf(sub, sizeof(sub), "%s/lib64", rel);
    fx_mkdir(f, sub);
    snprintf(sub, sizeof(sub), "%s/version.json", rel);
    snprintf(json, sizeof(json), "{\"cuda\":{\"name\":\"CUDA SDK\",\"version\":\"%d.%d.1\"}}\n",
             major, minor);
    fx_write(f, sub, json);
    cudnnctl_toolkit *t = &f->tk[i];
    memset(t, 0, sizeof(*t));
    t->path = strdup(rel);
    t->version = cc_asprintf("%d.%d", major, minor);
    t->major = major;
    t->minor = minor;
    t->patch = 1;
    snprintf(sub, sizeof(sub), "%s/lib64", rel);
    t->lib_dir = strdup(sub);
    t->origin = strdup("system");
}

/* Three toolkits, /usr/local/cuda -> cuda-13.0, an empty prefix dir /opt/cudnn. */
static inline int fx_setup(void **state)
{
    fx_t *f = calloc(1, sizeof(*f));
    char *root = pff_tmpdir("envwire");
    snprintf(f->root, sizeof(f->root), "%s", root);
    free(root);
    f->links = pff_posix_symlinks(f->root);
    fx_toolkit(f, 0, 11, 8);
    fx_toolkit(f, 1, 12, 4);
    fx_toolkit(f, 2, 13, 0);
    f->tk[2].active = 1;
    f->det.toolkits = f->tk;
    f->det.n_toolkits = 3;
    f->det.platform = strdup("linux-x86_64");
    if (f->links)
        fx_link(f, "/usr/local/cuda", "cuda-13.0");
    fx_mkdir(f, "/opt/cudnn");
    if (cudnnctl_ctx_new(&f->ctx) != CUDNNCTL_E_OK || cudnnctl_set_root(f->ctx, f->root))
        return -1;
    *state = f;
    return 0;
}

/* A cuDNN install in the prefix: /opt/cudnn/cudnn-<ver>-cuda<M>/{lib,include}. */
static inline void fx_install(fx_t *f, const char *ver, int major)
{
    char rel[256];
    snprintf(rel, sizeof(rel), "/opt/cudnn/cudnn-%s-cuda%d/lib", ver, major);
    fx_mkdir(f, rel);
    snprintf(rel, sizeof(rel), "/opt/cudnn/cudnn-%s-cuda%d/include", ver, major);
    fx_mkdir(f, rel);
}

static inline int fx_teardown(void **state)
{
    fx_t *f = *state;
    pff_rm_rf(f->root);
    if (pff_exists(f->root, "."))
        return -1;
    for (int i = 0; i < 3; i++) {
        free(f->tk[i].path);
        free(f->tk[i].version);
        free(f->tk[i].lib_dir);
        free(f->tk[i].origin);
    }
    free(f->det.platform);
    cudnnctl_ctx_free(f->ctx);
    free(f);
    return 0;
}

static inline int fx_has(char **v, size_t n, const char *s)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(v[i], s) == 0)
            return 1;
    return 0;
}

#endif
