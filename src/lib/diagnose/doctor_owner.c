/* doctor_owner.c: the fixes that go through a cuDNN copy's owner: the venv's pip for a wheel, cudnnctl
 * for an install its receipts know, the package manager for a Debian package that lists it; and
 * for a library built for another CPU, NVIDIA's build for this platform (reinstalling the copy
 * would bring the same foreign bytes back). Uses doctor_variant.c, doctor_fixes.c and
 * doctor_finding.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doctor_int.h"

/* The venv's pip (site's ../../../bin/python, else python3) reinstalling the wheel
 * nvidia-cudnn-cu<cu>==version; NULL on no memory. */
static char *pip_reinstall(cc_doctor_run *run, const char *site, int cu, const char *version)
{
    char *py = cc_path_join(site, "../../../bin/python");
    cc_pf_stat_t st;
    int have = py && cc_diag_lstat(run, py, &st) == 0 && st.exists;
    char *q = have ? cc_diag_qhost(run, py) : cc_strdup("python3");
    char *cmd = q ? cc_asprintf("%s -m pip install --force-reinstall --no-deps "
                                "'nvidia-cudnn-cu%d==%s'",
                                q, cu, version)
                  : NULL;
    free(q);
    free(py);
    return cmd;
}

/* The command that puts a complete copy of the same release back, by the copy's owner: the
 * venv's pip for a wheel (its dist-info names the package and version), cudnnctl for an install
 * its receipts know, the package manager for a Debian package that lists the files. NULL when
 * no owner is known (the fix then says what to reinstall). */
char *cc_diag_reinstall_cmd(cc_doctor_run *run, const cudnnctl_cudnn_copy *c)
{
    const char *how = NULL;
    int cu = cc_diag_copy_variant(run, c, &how);
    char *site = cc_diag_wheel_site(c->path);
    char *out = NULL;
    if (site && c->package_version && cu > 0)
        out = pip_reinstall(run, site, cu, c->package_version);
    for (size_t i = 0; !out && !site && i < run->n_installs; i++) {
        const cc_diag_install *in = &run->installs[i];
        if (!in->lib_dir || strcmp(in->lib_dir, c->path) != 0 || in->cuda_major <= 0)
            continue;
        char *prefix = cudnnctl_prefix_of(run->ctx, c->path);
        char *tree = prefix ? NULL : cc_path_dir(c->path);
        char *args = cc_asprintf("install --force --cudnn %s --cuda %d %s %s", c->version,
                                 in->cuda_major, prefix ? "--prefix" : "--cuda-home",
                                 prefix ? prefix : tree ? tree : c->path);
        out = args ? cc_diag_cli(run, args) : NULL;
        free(args);
        free(prefix);
        free(tree);
    }
    if (!out && !site) { /* a Debian package that lists the copy's libcudnn.so.M */
        char prefix[32];
        snprintf(prefix, sizeof(prefix), "libcudnn%d", c->major);
        cc_strv ents = {0};
        char *want = cc_asprintf("%s/libcudnn.so.%d", c->path, c->major);
        if (want && cc_diag_list(run, "/var/lib/dpkg/info", prefix, &ents) == 0)
            for (size_t i = 0; i < ents.n && !out; i++) {
                if (!cc_str_ends(ents.v[i], ".list"))
                    continue;
                char *p = cc_path_join("/var/lib/dpkg/info", ents.v[i]);
                char *h = p ? cc_diag_host(run, p) : NULL;
                char *text = NULL;
                size_t len = 0;
                if (h && cc_sys_read_file(run->ctx, h, 1u << 20, &text, &len) == 0 && text &&
                    strstr(text, want)) {
                    size_t n = strcspn(ents.v[i], ":.");
                    char *pkg = cc_strndup(ents.v[i], n);
                    out = pkg ? cc_asprintf("apt-get install --reinstall -y %s", pkg) : NULL;
                    free(pkg);
                }
                cc_clear_error(run->ctx);
                free(text);
                free(h);
                free(p);
            }
        cc_strv_free(&ents);
        free(want);
    }
    free(site);
    return out;
}

/* A library built for another CPU (an aarch64 / sbsa copy on x86-64, or the reverse): reinstalling
 * that copy brings the same foreign bytes back. The fix is the build for this machine's platform:
 * the wheel again through this venv's pip (pip picks this platform's wheel), else cudnnctl's
 * install for the platform detect names. */
void cc_diag_foreign_arch(cc_doctor_run *run, const cudnnctl_cudnn_copy *c, const char *p)
{
    const char *platform = run->det->platform;
    char *site = cc_diag_wheel_site(c->path);
    char *cmd = NULL, *fix = NULL;
    const char *how = NULL;
    int cu = cc_diag_copy_variant(run, c, &how);
    if (site && c->package_version && cu > 0) {
        cmd = pip_reinstall(run, site, cu, c->package_version);
        fix = cc_asprintf("install the nvidia-cudnn-cu%d %s wheel for this machine (%s) with the "
                          "venv's own pip, which picks this platform's build: `%s`",
                          cu, c->package_version, platform, cmd ? cmd : "");
    } else {
        char *args = cu > 0 ? cc_diag_install_args(run, c->major, c->minor, cu) : NULL;
        char *full = args ? cc_asprintf("install %s --platform %s --prefix /opt/cudnn", args,
                                        platform)
                          : NULL;
        cmd = full ? cc_diag_cli(run, full) : NULL;
        fix = cc_asprintf("this machine is %s: replace the copy with NVIDIA's build for %s (%s%s%s); "
                          "reinstalling this copy brings the same foreign files back",
                          platform, platform, cmd ? "`" : "the cuDNN archive for this platform",
                          cmd ? cmd : "", cmd ? "`" : "");
        free(full);
        free(args);
    }
    cc_diag_add_cmd(run, CC_DC_CUDNN_BAD_LIBRARY, c->path, fix, cmd,
                    "%s (cuDNN %s): the loader passes it over (\"wrong ELF class\" / \"cannot "
                    "open shared object file\") or the linker says \"file in wrong format\"; "
                    "this machine is %s",
                    p, c->version, platform);
    free(fix);
    free(cmd);
    free(site);
}
