/* doctor_fixture.h: what the doctor tests share: a scratch --root to plant files and links in
 * (through the platform layer: pf_fixture.h), builders of detect results (toolkits, driver, cuDNN
 * copies), and run/find/expect: run doctor on a result and name the codes that must appear and
 * those that must not. Tests only. */
#ifndef DOCTOR_FIXTURE_H
#define DOCTOR_FIXTURE_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include "cudnnctl/cudnnctl.h"
#include "pf_fixture.h"

static char root[256];
static int have_links; /* POSIX symlinks here (pff_posix_symlinks), probed by setup */

/* ---- a scratch root ---------------------------------------------------------------------- */

static inline void mk(const char *rel)
{
    char p[1024];
    assert_true(snprintf(p, sizeof(p), "%s%s", root, rel) < (int)sizeof(p));
    pff_mkdir_p(p);
}

static inline void put(const char *rel, const char *text)
{
    char p[1024], d[1024];
    snprintf(p, sizeof(p), "%s%s", root, rel);
    snprintf(d, sizeof(d), "%s", rel);
    char *slash = strrchr(d, '/');
    if (slash && slash != d) {
        *slash = '\0';
        mk(d);
    }
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static inline void ln(const char *target, const char *rel)
{
    char p[1024];
    snprintf(p, sizeof(p), "%s%s", root, rel);
    if (!have_links)
        skip(); /* a case with links: reported as skipped where they cannot be made (wine) */
    cc_pf_unlink(p);
    assert_int_equal(cc_pf_symlink(target, p), 0);
}

static inline void rm_tree(const char *path)
{
    pff_rm_rf(path);
    cc_pf_stat_t st;
    assert_int_equal(cc_pf_lstat(path, &st), 0);
    assert_false(st.exists);
}

/* ---- building detect results -------------------------------------------------------------- */

static inline char *sd(const char *s)
{
    return s ? strdup(s) : NULL;
}

static inline cudnnctl_detect_result *det_new(void)
{
    cudnnctl_detect_result *r = calloc(1, sizeof(*r));
    r->platform = sd("linux-x86_64");
    return r;
}

static inline cudnnctl_toolkit *add_tk(cudnnctl_detect_result *r, const char *path, int major,
                                       int minor, int active)
{
    r->toolkits = realloc(r->toolkits, (r->n_toolkits + 1) * sizeof(*r->toolkits));
    cudnnctl_toolkit *t = &r->toolkits[r->n_toolkits++];
    memset(t, 0, sizeof(*t));
    char v[32], lib[512];
    snprintf(v, sizeof(v), "%d.%d", major, minor);
    snprintf(lib, sizeof(lib), "%s/lib64", path);
    t->path = sd(path);
    t->version = sd(v);
    t->major = major;
    t->minor = minor;
    t->patch = -1;
    t->lib_dir = sd(lib);
    t->origin = sd("system");
    t->active = active;
    return t;
}

static inline void set_driver(cudnnctl_detect_result *r, const char *version, int cuda,
                              int estimated)
{
    r->driver = calloc(1, sizeof(*r->driver));
    r->driver->version = sd(version);
    r->driver->cuda_version = cuda;
    r->driver->cuda_version_estimated = estimated;
    r->driver->source = sd("/proc/driver/nvidia/version");
}

static inline void push(char ***v, size_t *n, const char *s)
{
    *v = realloc(*v, (*n + 1) * sizeof(char *));
    (*v)[(*n)++] = sd(s);
}

/* libs: space-separated base names */
static inline cudnnctl_cudnn_copy *add_cu(cudnnctl_detect_result *r, const char *path,
                                          const char *version, const char *origin, const char *libs)
{
    r->cudnn = realloc(r->cudnn, (r->n_cudnn + 1) * sizeof(*r->cudnn));
    cudnnctl_cudnn_copy *c = &r->cudnn[r->n_cudnn++];
    memset(c, 0, sizeof(*c));
    c->path = sd(path);
    c->version = sd(version);
    sscanf(version, "%d.%d.%d", &c->major, &c->minor, &c->patch);
    c->origin = sd(origin);
    c->version_source = sd("file-name");
    char buf[2048];
    assert_true(snprintf(buf, sizeof(buf), "%s", libs ? libs : "") < (int)sizeof(buf));
    for (char *tok = strtok(buf, " "); tok; tok = strtok(NULL, " "))
        push(&c->libs, &c->n_libs, tok);
    return c;
}

/* A complete cuDNN 9 set of real file names of one version ("9.19.0"), or wheel style (".so.9"). */
static inline const char *set9(const char *ver)
{
    static char buf[2048];
    static const char *stems[] = {"libcudnn",
                                  "libcudnn_graph",
                                  "libcudnn_ops",
                                  "libcudnn_cnn",
                                  "libcudnn_adv",
                                  "libcudnn_engines_precompiled",
                                  "libcudnn_engines_runtime_compiled",
                                  "libcudnn_heuristic"};
    buf[0] = '\0';
    for (size_t i = 0; i < 8; i++) {
        size_t n = strlen(buf);
        snprintf(buf + n, sizeof(buf) - n, "%s%s.so.%s", n ? " " : "", stems[i], ver);
    }
    return buf;
}

/* ---- running doctor ----------------------------------------------------------------------- */

typedef struct {
    cudnnctl_ctx *ctx;
    cudnnctl_doctor_result *res;
} fx;

static inline cudnnctl_doctor_result *run(cudnnctl_ctx *ctx, cudnnctl_detect_result *d)
{
    cudnnctl_doctor_result *res = NULL;
    assert_int_equal(cudnnctl_doctor(ctx, d, NULL, &res), CUDNNCTL_E_OK);
    assert_non_null(res);
    cudnnctl_detect_result_free(d);
    return res;
}

static inline const cudnnctl_finding *find(const cudnnctl_doctor_result *r, const char *code)
{
    for (size_t i = 0; i < r->n_findings; i++)
        if (strcmp(r->findings[i].code, code) == 0)
            return &r->findings[i];
    return NULL;
}

static inline void dump(const cudnnctl_doctor_result *r)
{
    for (size_t i = 0; i < r->n_findings; i++)
        print_message("  %s %s: %s\n", cudnnctl_severity_name(r->findings[i].severity),
                      r->findings[i].code, r->findings[i].message);
}

/* expect: space-separated codes that must be there; absent: codes that must not */
static inline void expect(const cudnnctl_doctor_result *r, const char *want, const char *absent)
{
    char buf[1024];
    snprintf(buf, sizeof(buf), "%s", want ? want : "");
    for (char *tok = strtok(buf, " "); tok; tok = strtok(NULL, " "))
        if (!find(r, tok)) {
            print_message("missing %s in:\n", tok);
            dump(r);
            fail();
        }
    snprintf(buf, sizeof(buf), "%s", absent ? absent : "");
    for (char *tok = strtok(buf, " "); tok; tok = strtok(NULL, " "))
        if (find(r, tok)) {
            print_message("unexpected %s in:\n", tok);
            dump(r);
            fail();
        }
    for (size_t i = 0; i < r->n_findings; i++) {
        assert_true(strlen(r->findings[i].message) > 10);
        assert_true(strlen(r->findings[i].fix) > 5);
    }
}

static inline int setup(void **state)
{
    char *t = pff_tmpdir("doctor");
    snprintf(root, sizeof(root), "%s", t);
    free(t);
    have_links = pff_posix_symlinks(root);
    fx *f = calloc(1, sizeof(*f));
    if (cudnnctl_ctx_new(&f->ctx) != CUDNNCTL_E_OK ||
        cudnnctl_set_root(f->ctx, root) != CUDNNCTL_E_OK ||
        /* the trees here are Linux ones: Linux's rules (the machine's own on Linux; in the
         * cross build under wine, the Linux rules applied to the fake tree) */
        cudnnctl_set_host_os(f->ctx, "linux") != CUDNNCTL_E_OK)
        return -1;
    cc_pf_setenv("LD_LIBRARY_PATH", NULL);
    *state = f;
    return 0;
}

static inline int teardown(void **state)
{
    fx *f = *state;
    cudnnctl_doctor_result_free(f->res);
    cudnnctl_ctx_free(f->ctx);
    free(f);
    rm_tree(root);
    return 0;
}

#define RUN(d) (f->res = run(f->ctx, (d)))

#endif
