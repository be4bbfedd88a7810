/* doctor_files.c: doctor's checks of cuDNN files as the loader meets them: libcudnn*.so.M links
 * that dangle (anywhere a program could look: cuDNN dirs, toolkit lib dirs, loader dirs),
 * libraries the user may not read (a permission, not a damaged file), cuDNN 8 sub-libraries left
 * beside a cuDNN 9 (to delete, not to repair), and the CUDA major a library's own ELF names. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "detect_parse.h"
#include "detect_path.h"
#include "doctor_int.h"
#include "elf_info.h"

/* ---- the CUDA major in a library's ELF ------------------------------------------------------ */

/* "libcublasLt.so.12" -> 12 for the CUDA libraries whose SONAME major is CUDA's; -1 else. */
static int needed_cuda_major(const char *name)
{
    static const char *const stems[] = {"libcudart.so.", "libcublasLt.so.", "libcublas.so.",
                                        "libnvrtc.so."};
    for (size_t i = 0; i < sizeof(stems) / sizeof(stems[0]); i++) {
        size_t n = strlen(stems[i]);
        if (strncmp(name, stems[i], n) == 0 && name[n] >= '1' && name[n] <= '9')
            return atoi(name + n);
    }
    return -1;
}

/* "$ORIGIN/../../cu13/lib" in a RUNPATH (NVIDIA's wheels for CUDA 13 and later) -> 13. */
static int runpath_cuda_major(const char *rp)
{
    for (const char *s = rp ? strstr(rp, "/cu") : NULL; s; s = strstr(s + 1, "/cu")) {
        char *end = NULL;
        long v = strtol(s + 3, &end, 10);
        if (end != s + 3 && v >= 10 && v < 64 && (*end == '/' || *end == ':' || !*end))
            return (int)v;
    }
    return -1;
}

int cc_diag_elf_variant(cc_doctor_run *run, const cudnnctl_cudnn_copy *c, char *what, size_t n)
{
    /* the sub-libraries that use cuBLAS / the CUDA runtime, then any */
    static const char *const pref[] = {"libcudnn_ops", "libcudnn_adv", "libcudnn_cnn",
                                       "libcudnn_graph", "libcudnn_engines", "libcudnn."};
    for (size_t p = 0; p < sizeof(pref) / sizeof(pref[0]); p++)
        for (size_t i = 0; i < c->n_libs; i++) {
            if (strncmp(c->libs[i], pref[p], strlen(pref[p])) != 0)
                continue;
            char *lp = cc_path_join(c->path, c->libs[i]);
            char *h = lp ? cc_diag_host(run, lp) : NULL;
            cc_elf_info info;
            int v = -1;
            if (h && cc_elf_read_dyn(h, &info) == 0) {
                for (size_t k = 0; k < info.n_needed && v < 0; k++)
                    if ((v = needed_cuda_major(info.needed[k])) > 0)
                        snprintf(what, n, "own ELF: %s has DT_NEEDED %s", c->libs[i],
                                 info.needed[k]);
                const char *rp = info.runpath ? info.runpath : info.rpath;
                if (v < 0 && (v = runpath_cuda_major(rp)) > 0)
                    snprintf(what, n, "own ELF: %s has RUNPATH %s", c->libs[i], rp);
                cc_elf_info_free(&info);
            }
            free(h);
            free(lp);
            if (v > 0)
                return v;
        }
    return -1;
}

/* ---- links that dangle ---------------------------------------------------------------------- */

/* A real file in dir for the link name's stem and major ("libcudnn.so.9" -> the newest
 * "libcudnn.so.9.x.y"), base name malloc'd, or NULL. */
static char *real_sibling(cc_doctor_run *run, const char *dir, const char *link)
{
    char *stem = NULL;
    cc_version lv;
    if (cc_detect_parse_libname(link, &stem, &lv) != 0 || lv.n < 1) {
        free(stem);
        return NULL;
    }
    cc_strv ents = {0};
    char *best = NULL;
    cc_version bv = {{-1, -1, -1, -1}, 0};
    if (cc_diag_list(run, dir, stem, &ents) == 0)
        for (size_t i = 0; i < ents.n; i++) {
            char *s = NULL;
            cc_version v;
            if (cc_detect_parse_libname(ents.v[i], &s, &v) == 0 && strcmp(s, stem) == 0 &&
                v.n > lv.n && v.part[0] == lv.part[0] && (!best || cc_version_cmp(&v, &bv) > 0)) {
                char *p = cc_path_join(dir, ents.v[i]);
                cc_pf_stat_t st;
                if (p && cc_diag_lstat(run, p, &st) == 0 && st.is_reg) {
                    free(best);
                    best = cc_strdup(ents.v[i]);
                    bv = v;
                }
                free(p);
            }
            free(s);
        }
    cc_strv_free(&ents);
    free(stem);
    return best;
}

static void dangling_one(cc_doctor_run *run, const char *dir, const char *name)
{
    char *p = cc_path_join(dir, name);
    cc_pf_stat_t st;
    if (!p || cc_diag_lstat(run, p, &st) != 0 || !st.is_link) {
        free(p);
        return;
    }
    int dangling = 0;
    char *real = cc_diag_resolve(run, p, &dangling);
    if (real && !dangling) {
        free(real);
        free(p);
        return;
    }
    char *h = cc_diag_host(run, p);
    char *target = h ? cc_pf_readlink(h) : NULL;
    char *sib = real_sibling(run, dir, name);
    char *qlink = cc_diag_qhost(run, p);
    char *fix = NULL, *cmd = NULL;
    if (sib) {
        fix = cc_asprintf("point it at the copy's file: `ln -sfn %s %s`", sib, p);
        cmd = qlink ? cc_asprintf("ln -sfn %s %s", sib, qlink) : NULL;
    } else {
        fix = cc_asprintf("nothing of that version is left in %s: remove the dead link (`rm %s`) "
                          "and install a complete cuDNN where programs look (`cudnnctl plan` "
                          "shows one)",
                          dir, p);
        cmd = qlink ? cc_asprintf("rm -f %s", qlink) : NULL;
    }
    cc_diag_add_cmd(run, CC_DC_CUDNN_SONAME_LINK_DANGLING, p, fix, cmd,
                    "%s is a link to %s, which does not exist%s: the link dangles, so the loader "
                    "skips it and a program asking for %s gets another copy or fails with "
                    "\"%s: cannot open shared object file\"",
                    p, target ? target : "?", real ? "" : " (a link loop)", name, name);
    free(fix);
    free(cmd);
    free(qlink);
    free(sib);
    free(target);
    free(h);
    free(real);
    free(p);
}

static void dangling_dir(cc_doctor_run *run, const char *dir, cc_strv *seen)
{
    if (!dir || cc_strv_contains(seen, dir) || cc_strv_push(seen, dir) != 0)
        return;
    cc_strv ents = {0};
    if (cc_diag_list(run, dir, "libcudnn", &ents) != 0)
        return;
    for (size_t i = 0; i < ents.n; i++)
        if (strstr(ents.v[i], ".so."))
            dangling_one(run, dir, ents.v[i]);
    cc_strv_free(&ents);
}

/* ---- unreadable libraries ------------------------------------------------------------------- */

static void unreadable(cc_doctor_run *run, const cudnnctl_cudnn_copy *c)
{
    cc_buf names = {0}, words = {0};
    size_t n = 0;
    for (size_t i = 0; i < c->n_libs; i++) {
        char *p = cc_path_join(c->path, c->libs[i]);
        char *h = p ? cc_diag_host(run, p) : NULL;
        cc_pf_fd fd = h ? cc_pf_open(h, CC_PF_O_RDONLY, 0) : -1;
        if (fd >= 0) {
            cc_pf_close(fd);
        } else if (h && cc_pf_last_error() == CUDNNCTL_E_PERMISSION) {
            char *q = cc_diag_quote(h);
            cc_buf_printf(&names, "%s%s", n ? ", " : "", c->libs[i]);
            cc_buf_printf(&words, " %s", q ? q : "?");
            free(q);
            n++;
        }
        free(h);
        free(p);
    }
    if (n) {
        char *fix = cc_asprintf("let every user read them (as root or the owner): `chmod a+r` on "
                                "the files in %s (and a+x on the dirs above), or reinstall the "
                                "copy with a umask of 022",
                                c->path);
        char *cmd = cc_asprintf("chmod a+r%s", words.data);
        cc_diag_add_cmd(run, CC_DC_CUDNN_LIB_UNREADABLE, c->path, fix, cmd,
                        "%zu librar%s of cuDNN %s in %s cannot be read by this user (permission "
                        "denied, not a damaged file): %s; the loader fails with \"cannot open "
                        "shared object file: Permission denied\"",
                        n, n == 1 ? "y" : "ies", c->version, c->path, names.data);
        free(fix);
        free(cmd);
    }
    cc_buf_free(&names);
    cc_buf_free(&words);
}

/* ---- cuDNN 8 sub-libraries beside a cuDNN 9 ------------------------------------------------- */

static void stale8(cc_doctor_run *run, const cudnnctl_cudnn_copy *c)
{
    if (!cc_diag_stale8(run, c))
        return;
    cc_buf names = {0}, words = {0};
    cc_strv ents = {0};
    if (cc_diag_list(run, c->path, "libcudnn_", &ents) == 0)
        for (size_t i = 0; i < ents.n; i++) {
            const char *e = ents.v[i];
            if (!strstr(e, "_infer.so") && !strstr(e, "_train.so"))
                continue;
            char *p = cc_path_join(c->path, e);
            char *q = p ? cc_diag_qhost(run, p) : NULL;
            cc_buf_printf(&names, "%s%s", names.len ? ", " : "", e);
            cc_buf_printf(&words, " %s", q ? q : "?");
            free(q);
            free(p);
        }
    cc_strv_free(&ents);
    if (names.len) {
        char *fix = cc_asprintf("delete them (`rm -f` each of the files named); they are not a "
                                "cuDNN 8 to repair: nothing of cuDNN 9 loads them, and a cuDNN "
                                "8 program that finds them here mixes them with another 8");
        char *cmd = cc_asprintf("rm -f%s", words.data);
        cc_diag_add_cmd(run, CC_DC_CUDNN8_STALE_SUBLIBS, c->path, fix, cmd,
                        "%s holds cuDNN 9 and, beside it, cuDNN 8 sub-libraries without a "
                        "libcudnn.so.8 (%s): left over from an upgrade in place; a cuDNN 8 "
                        "program given this dir loads them with another libcudnn.so.8 "
                        "(CUDNN_STATUS_VERSION_MISMATCH)",
                        c->path, names.data);
        free(fix);
        free(cmd);
    }
    cc_buf_free(&names);
    cc_buf_free(&words);
}

int cc_diag_check_files(cc_doctor_run *run)
{
    const cudnnctl_detect_result *d = run->det;
    cc_strv seen = {0};
    for (size_t i = 0; i < d->n_cudnn; i++) {
        unreadable(run, &d->cudnn[i]);
        stale8(run, &d->cudnn[i]);
        dangling_dir(run, d->cudnn[i].path, &seen);
    }
    for (size_t i = 0; i < d->n_toolkits; i++)
        dangling_dir(run, d->toolkits[i].lib_dir, &seen);
    const cc_strv *dirs[] = {&run->llp_dirs, &run->loader_dirs};
    if (cc_diag_loader(run) != 0) {
        cc_strv_free(&seen);
        return -1;
    }
    for (size_t k = 0; k < 2; k++)
        for (size_t i = 0; i < dirs[k]->n; i++)
            dangling_dir(run, dirs[k]->v[i], &seen);
    cc_strv_free(&seen);
    return run->oom ? -1 : 0;
}
