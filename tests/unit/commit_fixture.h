/* commit_fixture.h: shared helpers of the install-area unit tests — temp dirs, real ELF test
 * doubles with the right SONAMEs (cc -shared), hand-made staging trees in NVIDIA's normalised
 * layout, fake CUDA trees, and byte-exact snapshots of a tree (path, type, mode, SHA-256, link
 * target) to compare before/after. Tests only. The tree handling goes through the platform layer
 * (pf_fixture.h, cc_pf_*), so the fixture also builds for Windows; fx_sh (system()) runs POSIX
 * shell commands, for the cases that can only run on Linux. Include after <cmocka.h>. */
#ifndef COMMIT_FIXTURE_H
#define COMMIT_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elf_fixture.h"
#include "hash.h"
#include "internal.h"
#include "pf_fixture.h"

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
    return pff_tmpdir("ut");
}

/* On tmpfs when there is one (torture loops run hundreds of fsync'd installs). */
static inline char *fx_tmpdir_fast(void)
{
    cc_pf_stat_t st;
    if (strcmp(cc_pf_os(), "linux") != 0 || cc_pf_stat("/dev/shm", &st) != 0 || !st.is_dir)
        return fx_tmpdir();
    static unsigned seq;
    char *d = cc_asprintf("/dev/shm/cudnnctl-ut-%ld-%llu-%u", cc_pf_getpid(),
                          (unsigned long long)cc_pf_now_ms(), seq++);
    if (cc_pf_mkdir(d, 0700) == 0)
        return d;
    free(d);
    return fx_tmpdir();
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

/* rm -rf, after chmod u+w on the dirs (a case makes some read-only). */
static inline void fx_rm_tree(const char *path)
{
    cc_pf_stat_t st;
    if (cc_pf_lstat(path, &st) != 0 || !st.exists)
        return;
    if (st.is_dir && !st.is_link) {
        cc_pf_chmod(path, st.mode | 0700);
        cc_pf_dir *d = cc_pf_opendir(path);
        const char *n;
        while (d && (n = cc_pf_readdir(d)) != NULL) {
            char *p = pff_join(path, n);
            fx_rm_tree(p);
            free(p);
        }
        cc_pf_closedir(d);
        cc_pf_rmdir(path);
    } else {
        cc_pf_unlink(path);
    }
}

/* Only a temp dir of fx_tmpdir/fx_tmpdir_fast. */
static inline void fx_rm(const char *dir)
{
    if (dir && strstr(dir, "/cudnnctl-ut-"))
        fx_rm_tree(dir);
}

static inline int fx_write(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fputs(text, f);
    return fclose(f);
}

/* cp -a: dirs, files (bytes and mode), symlinks (as links); 0 on success. */
static inline int fx_copy_tree(const char *from, const char *to)
{
    cc_pf_stat_t st;
    if (cc_pf_lstat(from, &st) != 0 || !st.exists)
        return -1;
    if (st.is_link) {
        char *t = cc_pf_readlink(from);
        int rc = t && cc_pf_symlink(t, to) == 0 ? 0 : -1;
        free(t);
        return rc;
    }
    if (!st.is_dir)
        return efx_copy(from, to, 0) == 0 && cc_pf_chmod(to, st.mode & 07777) == 0 ? 0 : -1;
    cc_pf_stat_t ts;
    if ((cc_pf_stat(to, &ts) != 0 || !ts.exists) && cc_pf_mkdir(to, 0700) != 0)
        return -1;
    int rc = 0;
    cc_pf_dir *d = cc_pf_opendir(from);
    const char *n;
    while (rc == 0 && d && (n = cc_pf_readdir(d)) != NULL) {
        char *a = pff_join(from, n), *b = pff_join(to, n);
        rc = fx_copy_tree(a, b);
        free(a);
        free(b);
    }
    cc_pf_closedir(d);
    return rc == 0 && d && cc_pf_chmod(to, st.mode & 07777) == 0 ? 0 : -1;
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
    char *d_inc = pff_join(dir, "include"), *d_lib = pff_join(dir, "lib");
    pff_mkdir_p(d_inc);
    pff_mkdir_p(d_lib);
    free(d_inc);
    free(d_lib);
    const char *hdrs[] = {"cudnn.h", "cudnn_version.h", "cudnn_graph.h", NULL};
    for (int i = 0; hdrs[i]; i++) {
        char *real = cc_asprintf("%s/include/%s", REAL_CUDNN_DIR, hdrs[i]);
        char *dst = cc_asprintf("%s/include/%s", dir, hdrs[i]);
        int rc;
        cc_pf_stat_t rst;
        if (cc_pf_stat(real, &rst) == 0 && rst.is_reg && i < 2) {
            /* the real header, then a line that makes each version's bytes its own */
            rc = efx_copy(real, dst, 0);
            FILE *f = rc == 0 ? fopen(dst, "ab") : NULL;
            rc = f && fprintf(f, "/* test build %s */\n", ver3) > 0 ? 0 : -1;
            if (f && fclose(f) != 0)
                rc = -1;
        } else {
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
        if (rc == 0 && with_links) {
            char *l1 = cc_asprintf("%s/lib/%s", dir, soname), *l2 = cc_asprintf("%s/lib/%s.so", dir, subs[i]);
            char *t1 = cc_asprintf("%s.so.%s", subs[i], ver3);
            rc = cc_pf_symlink(t1, l1) == 0 && cc_pf_symlink(soname, l2) == 0 ? 0 : -1;
            free(l1);
            free(l2);
            free(t1);
        }
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
    char *dir = rel ? cc_path_join(root, rel) : cc_strdup(root);
    cc_pf_dir *d = cc_pf_opendir(dir);
    const char *name;
    while (d && (name = cc_pf_readdir(d)) != NULL) {
        /* the target's ledger is advisory state beside the tree's content (a fault may keep it
         * from being written: the install stands); test_install_concurrent.sh checks it */
        if (!rel && strcmp(name, ".cudnnctl-owners") == 0)
            continue;
        char *r = rel ? cc_path_join(rel, name) : cc_strdup(name);
        char *p = cc_path_join(root, r);
        cc_pf_stat_t st;
        memset(&st, 0, sizeof(st));
        cc_pf_lstat(p, &st);
        char *line = NULL;
        if (st.is_link) {
            char *t = cc_pf_readlink(p);
            line = cc_asprintf("%s link -> %s", r, t ? t : "");
            free(t);
        } else if (st.is_dir) {
            line = cc_asprintf("%s dir %04o", r, (unsigned)(st.mode & 07777));
            fx_walk(root, r, out);
        } else {
            char hex[65] = "?";
            uint64_t sz = 0;
            cc_sha256_file(fx_ctx(), p, hex, &sz);
            line = cc_asprintf("%s file %04o %s", r, (unsigned)(st.mode & 07777), hex);
        }
        cc_strv_push_own(out, line);
        free(r);
        free(p);
    }
    cc_pf_closedir(d);
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
    cc_pf_stat_t st;
    return cc_pf_lstat(path, &st) == 0 && st.exists;
}

static inline char *fx_readlink(const char *path)
{
    return cc_pf_readlink(path);
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
    int windows;       /* a Windows layout (fx_world_make_win): DLLs in bin/, no links */
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
    if (!w->tmp)
        return -1;
    char *p = cc_path_join(w->tree, "include");
    pff_mkdir_p(p);
    free(p);
    p = cc_path_join(w->tree, "lib");
    pff_mkdir_p(p);
    free(p);
    char *l64 = cc_path_join(w->tree, "lib64"), *cuda = cc_path_join(w->root, "usr/local/cuda");
    int lrc = cc_pf_symlink("lib", l64) | cc_pf_symlink("/usr/local/cuda-13.0", cuda);
    free(l64);
    free(cuda);
    if (lrc != 0)
        return -1;
    p = cc_path_join(w->tree, "include/cuda.h");
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
    const char *dev[][2] = {{"libcudnn.so.9", "libcudnn.so"},
                            {"libcudnn_adv.so.9", "libcudnn_adv.so"},
                            {"libcudart.so.13", "libcudart.so"}};
    for (int i = 0; i < 3; i++) {
        p = cc_asprintf("%s/lib/%s", w->tree, dev[i][1]);
        rc |= cc_pf_symlink(dev[i][0], p) != 0;
        free(p);
    }
    return rc;
}

/* Where no POSIX symlinks can be made (wine): a Windows CUDA 13.0 tree instead, ROOT/CUDA/v13.0,
 * holding a foreign cuDNN 9 (bin/cudnn64_9.dll, include/cudnn.h) next to the toolkit's files.
 * Plain files only: what the commit transaction does to them is what is checked. */
static inline int fx_world_make_win(fx_world *w, char *tmp)
{
    memset(w, 0, sizeof(*w));
    w->windows = 1;
    w->tmp = tmp;
    w->root = cc_path_join(w->tmp, "root");
    w->state = cc_path_join(w->root, "var/lib/cudnnctl");
    w->tree = cc_path_join(w->root, "CUDA/v13.0");
    if (!w->tmp)
        return -1;
    pff_write(w->tree, "include/cuda.h", "/* the toolkit's own header */\n");
    pff_write(w->tree, "include/cudnn.h", "/* an older cuDNN header that was here before */\n");
    pff_write(w->tree, "bin/cudart64_13.dll", "MZ cudart 13 (test bytes)\n");
    pff_write(w->tree, "bin/cudnn64_9.dll", "MZ cudnn 9 old wheel (test bytes)\n");
    pff_write(w->tree, "lib/x64/cudart.lib", "cudart import library (test bytes)\n");
    return 0;
}

/* Staging tree of a Windows cuDNN `ver3` zip as extraction leaves it (lib/x64 -> lib): per
 * sub-library stem (e.g. "cudnn_graph") bin/STEM64_M.dll and lib/STEM.lib, headers, LICENSE. */
static inline int fx_staging_win(const char *dir, const char *ver3, const char *const *stems)
{
    int major = atoi(ver3);
    pff_write(dir, "include/cudnn.h", "/* cudnn.h (Windows test build) */\n");
    char *t = cc_asprintf("/* cudnn_version.h */\n#define CUDNN_MAJOR %d\n/* %s */\n", major, ver3);
    pff_write(dir, "include/cudnn_version.h", t);
    free(t);
    t = cc_asprintf("cuDNN %s license text (test)\n", ver3);
    pff_write(dir, "LICENSE", t);
    free(t);
    for (int i = 0; stems[i]; i++) {
        char *dll = cc_asprintf("bin/%s64_%d.dll", stems[i], major);
        char *lib = cc_asprintf("lib/%s.lib", stems[i]);
        char *body = cc_asprintf("MZ %s %s (test bytes)\n", stems[i], ver3);
        pff_write(dir, dll, body);
        pff_write(dir, lib, body);
        free(dll);
        free(lib);
        free(body);
    }
    return 0;
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
    if (fx_copy_tree(w->fixture, staging) != 0)
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

/* The plan of a Windows tree install into fx_world_make_win's ROOT/CUDA/v13.0. */
static inline void fx_plan_init_win(fx_plan *fp, const char *ver4)
{
    fx_plan_init(fp, ver4, CUDNNCTL_TARGET_CUDA_TREE, "/CUDA/v13.0");
    fp->p.archive.platform = (char *)"windows-x86_64";
    fp->p.archive.relative_path = (char *)"cudnn/windows-x86_64/test-archive.zip";
    fp->p.url = (char *)"file:///nowhere/test-archive.zip";
    fp->p.lib_dir = (char *)"/CUDA/v13.0/lib/x64";
    fp->p.include_dir = (char *)"/CUDA/v13.0/include";
    fp->p.bin_dir = (char *)"/CUDA/v13.0/bin";
}

/* Install fixture content through the real pipeline (all but fetch/extract). */
static inline cudnnctl_err fx_install(cudnnctl_ctx *ctx, fx_world *w, const fx_plan *fp, int force,
                                      cudnnctl_install_result **res)
{
    cudnnctl_install_opts o;
    memset(&o, 0, sizeof(o));
    o.plan = &fp->p;
    o.force = force;
    o.no_env = w->windows; /* leave the wine prefix's Path alone */
    return cc_install_with(ctx, NULL, NULL, &o, fx_populate, w, res);
}

/* No temp names or staging dirs left anywhere under dir. */
static inline int fx_no_leftovers(const char *dir)
{
    int ok = 1;
    cc_pf_dir *d = cc_pf_opendir(dir);
    const char *n;
    while (ok && d && (n = cc_pf_readdir(d)) != NULL) {
        /* the target's ledger (TARGET/.cudnnctl-owners) is state, not a leftover */
        if ((strncmp(n, ".cudnnctl-", 10) == 0 && strcmp(n, ".cudnnctl-owners") != 0) ||
            strncmp(n, ".staging-", 9) == 0) {
            fprintf(stderr, "left over: %s/%s\n", dir, n);
            ok = 0;
            break;
        }
        char *p = pff_join(dir, n);
        cc_pf_stat_t st;
        if (cc_pf_lstat(p, &st) == 0 && st.is_dir && !st.is_link)
            ok = fx_no_leftovers(p);
        free(p);
    }
    cc_pf_closedir(d);
    return ok;
}

#endif
