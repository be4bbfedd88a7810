/* doctor_links.c: doctor's checks of the .so link chain in each cuDNN dir
 * (libX.so -> libX.so.M -> libX.so.M.m.p), and of what cuDNN 8 dlopens by its unversioned name
 * (libcuda.so, libnvrtc.so: failure mode 2), looked for where the loader would look. */
#include <stdlib.h>
#include <string.h>

#include "detect_parse.h"
#include "detect_path.h"
#include "doctor_int.h"
#include "elf_info.h"

/* ---- link chains ---------------------------------------------------------------------------- */

/* The real file a stem's SONAME should lead to: the file of the copy's version, else the newest
 * 3-part file, else the .so.M file itself. Base name (points into c->libs) or NULL. */
static const char *wanted_file(const cudnnctl_cudnn_copy *c, const char *stem)
{
    const char *best = NULL, *plain = NULL;
    cc_version bv = {{-1, -1, -1, -1}, 0};
    for (size_t i = 0; i < c->n_libs; i++) {
        char *s = NULL;
        cc_version v;
        if (cc_detect_parse_libname(c->libs[i], &s, &v) != 0) {
            free(s);
            continue;
        }
        int same = strcmp(s, stem) == 0;
        free(s);
        if (!same || v.n < 1 || v.part[0] != c->major)
            continue;
        if (v.n == 1) {
            plain = c->libs[i];
            continue;
        }
        char *vs = cc_version_str(&v);
        int exact = vs && c->version && strcmp(vs, c->version) == 0;
        free(vs);
        if (exact)
            return c->libs[i];
        if (!best || cc_version_cmp(&v, &bv) > 0) {
            best = c->libs[i];
            bv = v;
        }
    }
    return best ? best : plain;
}

/* "ln OPT SRC DST" with DST named by its host path quoted for sh; NULL without SRC or memory. */
static char *ln_cmd(cc_doctor_run *run, const char *opt, const char *src, const char *dst)
{
    char *q = src ? cc_diag_qhost(run, dst) : NULL;
    char *cmd = q ? cc_asprintf("ln %s %s %s", opt, src, q) : NULL;
    free(q);
    return cmd;
}

/* What a link points to, as it is written ("?" when it cannot be read; malloc'd or NULL). */
static char *link_text(cc_doctor_run *run, const char *link)
{
    char *h = cc_diag_host(run, link);
    char *target = h ? cc_pf_readlink(h) : NULL;
    free(h);
    return target;
}

/* A finding whose fix is one ln command; fix is taken over. */
#define ADD_LN(code, at, fix, opt, src, ...)                                                       \
    do {                                                                                           \
        char *fix_ = (fix), *cmd_ = ln_cmd(run, (opt), (src), (at));                               \
        cc_diag_add_cmd(run, (code), (at), fix_, cmd_, __VA_ARGS__);                               \
        free(fix_);                                                                                \
        free(cmd_);                                                                                \
    } while (0)

/* The SONAME link libX.so.M: missing, leading to another file, or a separate file shadowing the
 * copy's. Sets *m_real (and *dangling) to where it leads. */
static void check_soname_link(cc_doctor_run *run, const cudnnctl_cudnn_copy *c, const char *stem,
                              const char *want, const char *want_p, const char *want_real,
                              const char *so_m, const cc_pf_stat_t *st, char **m_real,
                              int *dangling)
{
    if (!st->exists) {
        ADD_LN(CC_DC_CUDNN_SONAME_LINK_MISSING, so_m,
               cc_asprintf("create it: `ln -s %s %s` (or `ldconfig -n %s`); `cudnnctl "
                           "install` makes the whole chain",
                           want, so_m, c->path),
               "-s", want,
               "%s is missing beside %s: programs and the other cuDNN libraries ask the "
               "loader for %s.so.%d and do not find it",
               so_m, want_p, stem, c->major);
    } else if (st->is_link) {
        *m_real = cc_diag_resolve(run, so_m, dangling);
        if (!*m_real || *dangling) {
            /* dangles: doctor_files.c names it (CUDNN_SONAME_LINK_DANGLING) */
        } else if (strcmp(*m_real, want_real) != 0) {
            char *target = link_text(run, so_m);
            ADD_LN(CC_DC_CUDNN_SONAME_LINK_BROKEN, so_m, cc_asprintf("`ln -sfn %s %s`", want, so_m),
                   "-sfn", want, "%s -> %s, another file; the copy's file is %s", so_m,
                   target ? target : "?", want);
            free(target);
        }
    } else if (strcmp(want, cc_path_base(so_m)) != 0) {
        ADD_LN(CC_DC_CUDNN_SONAME_FILE_SHADOWS, so_m,
               cc_asprintf("replace it with a link: `ln -sfn %s %s`", want, so_m), "-sfn", want,
               "%s is a separate file beside %s: the loader uses %s, whose version cannot be "
               "told from its name and may not be %s",
               so_m, want, cc_path_base(so_m), c->version);
    }
}

/* The dev link libX.so: only where a dev setup is (headers beside), never in wheels; it must
 * lead where the SONAME link leads (ref). */
static void check_dev_link(cc_doctor_run *run, const cudnnctl_cudnn_copy *c, const char *stem,
                           const char *so, const char *ref)
{
    cc_pf_stat_t ds;
    cc_diag_lstat(run, so, &ds);
    int dev_setup = c->include_dir && strcmp(c->origin, "wheel") != 0;
    char *src = cc_asprintf("%s.so.%d", stem, c->major);
    if (!ds.exists) {
        if (dev_setup && strcmp(stem, "libcudnn") == 0)
            ADD_LN(CC_DC_CUDNN_DEV_LINK_MISSING, so,
                   cc_asprintf("`ln -s %s.so.%d %s`", stem, c->major, so), "-s", src,
                   "%s is missing although cuDNN headers are installed (%s): linking with "
                   "-lcudnn fails",
                   so, c->include_dir);
    } else if (ds.is_link) {
        int d3 = 0;
        char *so_real = cc_diag_resolve(run, so, &d3);
        if (!so_real || d3 || strcmp(so_real, ref) != 0) {
            char *target = link_text(run, so);
            ADD_LN(CC_DC_CUDNN_DEV_LINK_BROKEN, so,
                   cc_asprintf("`ln -sfn %s.so.%d %s`", stem, c->major, so), "-sfn", src,
                   "%s -> %s, %s: programs linked here get another cuDNN than the loader "
                   "gives them at run time",
                   so, target ? target : "?",
                   !so_real || d3 ? "which does not exist" : "not the file libX.so.M leads to");
            free(target);
        }
        free(so_real);
    }
    free(src);
}

static int check_stem(cc_doctor_run *run, const cudnnctl_cudnn_copy *c, const char *stem)
{
    const char *want = wanted_file(c, stem);
    if (!want)
        return 0;
    char *so_m = cc_asprintf("%s/%s.so.%d", c->path, stem, c->major);
    char *so = cc_asprintf("%s/%s.so", c->path, stem);
    char *want_p = cc_path_join(c->path, want);
    int rc = -1, d1 = 0, d2 = 0;
    char *want_real = NULL, *m_real = NULL;
    if (!so_m || !so || !want_p || !(want_real = cc_diag_resolve(run, want_p, &d1)))
        goto out;
    cc_pf_stat_t st;
    cc_diag_lstat(run, want_p, &st);
    if (!st.exists) { /* gone since detect looked: nothing to judge */
        rc = 0;
        goto out;
    }
    cc_diag_lstat(run, so_m, &st);
    check_soname_link(run, c, stem, want, want_p, want_real, so_m, &st, &m_real, &d2);
    if (!m_real && st.exists && !st.is_link)
        m_real = cc_strdup(want_real), d2 = 0;
    check_dev_link(run, c, stem, so, m_real && !d2 ? m_real : want_real);
    rc = 0;
out:
    free(so_m);
    free(so);
    free(want_p);
    free(want_real);
    free(m_real);
    return rc;
}

int cc_diag_check_links(cc_doctor_run *run)
{
    const cudnnctl_detect_result *d = run->det;
    for (size_t i = 0; i < d->n_cudnn; i++) {
        const cudnnctl_cudnn_copy *c = &d->cudnn[i];
        if (c->n_libs == 0 || c->major < 0)
            continue;
        cc_strv stems = {0};
        int rc = 0;
        for (size_t k = 0; k < c->n_libs && rc == 0; k++) {
            char *s = NULL;
            cc_version v;
            if (cc_detect_parse_libname(c->libs[k], &s, &v) == 0 && !cc_strv_contains(&stems, s))
                rc = cc_strv_push_own(&stems, s);
            else
                free(s);
        }
        for (size_t k = 0; k < stems.n && rc == 0; k++)
            rc = check_stem(run, c, stems.v[k]);
        cc_strv_free(&stems);
        if (rc != 0)
            return -1;
    }
    return run->oom ? -1 : 0;
}

/* ---- cuDNN 8's unversioned dlopens ---------------------------------------------------------- */

static const char *multiarch(void)
{
    const char *m = cc_pf_machine();
    if (strcmp(m, "x86_64") == 0)
        return "x86_64-linux-gnu";
    if (strcmp(m, "aarch64") == 0)
        return "aarch64-linux-gnu";
    return NULL;
}

/* Where the loader looks for a dlopen'ed bare name (besides the caller's own RUNPATH):
 * LD_LIBRARY_PATH, the dirs of /etc/ld.so.cache entries, the trusted default dirs. */
static int loader_dirs(cc_doctor_run *run, cc_strv *dirs, cc_strv *cache)
{
    const char *llp = cc_pf_getenv("LD_LIBRARY_PATH");
    while (llp && *llp) {
        size_t n = strcspn(llp, ":");
        char *e = cc_strndup(llp, n);
        char *p = e ? cc_detect_env_path(run->ctx, e) : NULL;
        free(e);
        if (p && !cc_strv_contains(dirs, p) && cc_strv_push(dirs, p) != 0) {
            free(p);
            return -1;
        }
        free(p);
        llp += n;
        if (*llp == ':')
            llp++;
    }
    char *data = NULL;
    size_t len = 0;
    if (cc_detect_read_n(run->ctx, "/etc/ld.so.cache", 16u << 20, &data, &len) == 0) {
        cc_detect_parse_ld_cache(data, len, NULL, cache);
        free(data);
    }
    const char *ma = multiarch();
    char *a = ma ? cc_path_join("/lib", ma) : NULL;
    char *b = ma ? cc_path_join("/usr/lib", ma) : NULL;
    const char *defaults[] = {a, b, "/lib64", "/usr/lib64", "/lib", "/usr/lib"};
    int rc = 0;
    for (size_t i = 0; i < 6 && rc == 0; i++)
        if (defaults[i] && !cc_strv_contains(dirs, defaults[i]))
            rc = cc_strv_push(dirs, defaults[i]);
    free(a);
    free(b);
    return rc;
}

/* The first place name resolves to an existing file: first dir (the copy's own) first, then
 * the ld.so.cache entries with that exact base name, then dirs. malloc'd or NULL. */
/* The fix and command for the unversioned NAME a cuDNN 8 in DIR dlopens. With SRC (the library
 * to link to): the fix says `ln -s SRC DIR/NAME` between lead and tail, the command is that
 * "ln -s" with the link named by its (quoted) host path. Without SRC: the fix is nosrc, no
 * command. Both malloc'd. */
static void private_link_fix(cc_doctor_run *run, const char *dir, const char *name,
                             const char *src, const char *lead, const char *tail,
                             const char *nosrc, char **fix, char **cmd)
{
    *fix = src ? cc_asprintf("%s`ln -s %s %s/%s`%s", lead, src, dir, name, tail) : cc_strdup(nosrc);
    *cmd = NULL;
    if (!src)
        return;
    char *lk = cc_path_join(dir, name);
    *cmd = lk ? ln_cmd(run, "-s", src, lk) : NULL;
    free(lk);
}

/* 0 when the file is an ELF of another class or architecture than this machine's (the loader
 * passes it over: "wrong ELF class: ELFCLASS32"); 1 otherwise (files it cannot read as ELF are
 * other checks' business). */
static int host_elf(cc_doctor_run *run, const char *path)
{
    char *h = cc_diag_host(run, path);
    cc_elf_info e;
    int ok = 1;
    if (h && cc_elf_read(h, &e) == 0) {
        const char *m = cc_pf_machine();
        unsigned want = m && strcmp(m, "aarch64") == 0 ? CC_ELF_EM_AARCH64 : CC_ELF_EM_X86_64;
        ok = e.is_64 && e.machine == want;
        cc_elf_info_free(&e);
    }
    free(h);
    return ok;
}

static char *find_lib_ex(cc_doctor_run *run, const char *own, const cc_strv *dirs,
                         const cc_strv *cache, const char *name, char **foreign);

static char *find_lib(cc_doctor_run *run, const char *own, const cc_strv *dirs,
                      const cc_strv *cache, const char *name)
{
    return find_lib_ex(run, own, dirs, cache, name, NULL);
}

/* As find_lib, passing over files of another ELF class or machine as the loader does; *foreign
 * (may be NULL) receives the first such file. */
static char *find_lib_ex(cc_doctor_run *run, const char *own, const cc_strv *dirs,
                         const cc_strv *cache, const char *name, char **foreign)
{
    cc_strv all = {0};
    char *found = NULL;
    if (own && cc_strv_push(&all, own) != 0)
        return NULL;
    for (size_t i = 0; i < cache->n; i++)
        if (strcmp(cc_path_base(cache->v[i]), name) == 0) {
            char *dir = cc_path_dir(cache->v[i]);
            if (dir && !cc_strv_contains(&all, dir))
                cc_strv_push(&all, dir);
            free(dir);
        }
    for (size_t i = 0; i < dirs->n; i++)
        if (!cc_strv_contains(&all, dirs->v[i]))
            cc_strv_push(&all, dirs->v[i]);
    for (size_t i = 0; i < all.n && !found; i++) {
        char *p = cc_path_join(all.v[i], name);
        int dangling = 0;
        char *real = p ? cc_diag_resolve(run, p, &dangling) : NULL;
        cc_pf_stat_t st = {0};
        if (real && !dangling)
            cc_diag_lstat(run, real, &st);
        if (st.exists && st.is_reg && host_elf(run, real))
            found = p, p = NULL;
        else if (st.exists && st.is_reg && foreign && !*foreign)
            *foreign = cc_strdup(p);
        free(p);
        free(real);
    }
    cc_strv_free(&all);
    return found;
}

int cc_diag_check_loader(cc_doctor_run *run)
{
    const cudnnctl_detect_result *d = run->det;
    int any8 = 0;
    for (size_t i = 0; i < d->n_cudnn; i++)
        any8 |= d->cudnn[i].major == 8 && d->cudnn[i].n_libs > 0;
    if (!any8)
        return 0;
    cc_strv dirs = {0}, cache = {0};
    if (loader_dirs(run, &dirs, &cache) != 0) {
        cc_strv_free(&dirs);
        cc_strv_free(&cache);
        return -1;
    }
    const cudnnctl_toolkit *t = cudnnctl_detect_active_toolkit(d);
    for (size_t i = 0; i < d->n_cudnn; i++) {
        const cudnnctl_cudnn_copy *c = &d->cudnn[i];
        if (c->major != 8 || c->n_libs == 0)
            continue;
        char *wrong = NULL;
        char *cuda = find_lib_ex(run, c->path, &dirs, &cache, "libcuda.so", &wrong);
        if (!cuda) {
            char *one = find_lib(run, c->path, &dirs, &cache, "libcuda.so.1");
            char *fix, *cmd;
            private_link_fix(run, c->path, "libcuda.so", one,
                             "give cuDNN 8 the name it asks for, privately: ",
                             " (or install the driver's dev package, which ships libcuda.so)",
                             "install the NVIDIA driver, then link libcuda.so -> libcuda.so.1 "
                             "beside cuDNN",
                             &fix, &cmd);
            cc_diag_add_own(run, CC_DC_CUDNN8_NO_LIBCUDA_SO, c->path, fix, cmd,
                            "cuDNN %s in %s dlopens the unversioned libcuda.so, which the loader "
                            "cannot find%s%s%s: \"Could not load library libcudnn_cnn_infer.so.8. "
                            "Error: libcuda.so: %s\"",
                            c->version, c->path, one ? " (only libcuda.so.1 exists)" : "",
                            wrong ? "; the libcuda.so it meets, " : "", wrong ? wrong : "",
                            wrong ? "wrong ELF class (another class or architecture than this "
                                    "machine's)"
                                  : "cannot open shared object file");
            free(wrong);
            free(one);
        }
        char *nvrtc = find_lib(run, c->path, &dirs, &cache, "libnvrtc.so");
        if (!nvrtc) {
            char *src = NULL;
            if (t && t->lib_dir) {
                char *name = cc_asprintf("libnvrtc.so.%d", t->major);
                cc_strv tl = {0};
                src = name ? find_lib(run, t->lib_dir, &tl, &cache, name) : NULL;
                free(name);
            }
            char *fix, *cmd;
            private_link_fix(run, c->path, "libnvrtc.so", src, "link it privately beside cuDNN: ",
                             "",
                             "install the CUDA toolkit's nvrtc and link libnvrtc.so -> "
                             "libnvrtc.so.<major> beside cuDNN",
                             &fix, &cmd);
            cc_diag_add_own(
                run, CC_DC_CUDNN8_NO_LIBNVRTC_SO, c->path, fix, cmd,
                "cuDNN %s in %s dlopens the unversioned libnvrtc.so for runtime-compiled "
                "kernels, which the loader cannot find: \"Error: libnvrtc.so: cannot "
                "open shared object file\"",
                c->version, c->path);
            free(src);
        }
        free(cuda);
        free(nvrtc);
    }
    cc_strv_free(&dirs);
    cc_strv_free(&cache);
    return run->oom ? -1 : 0;
}
