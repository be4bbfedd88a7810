/* detect_tkversion.c: read a CUDA toolkit's version from every source (version.json,
 * version.txt, its own nvcc, cuda.h, cuda_runtime_api.h, dist-info, CUDA_VERSION, the libcudart
 * SONAME) and settle on the version most of them agree on. */
#include <stdlib.h>
#include <string.h>

#include "detect_int.h"
#include "elf_info.h"

#define HEADER_MAX (64u * 1024u) /* CUDA_VERSION sits in the first 15 KB of 13.0's 1.1 MB cuda.h   \
                                  */
#define NVCC_TIMEOUT_MS 2000u

typedef struct {
    unsigned flag;
    cc_detect_ver v;
} reading;

/* ---- reading the version sources ------------------------------------------------------------ */

static int push_reading(reading *rd, int *n, unsigned flag, const cc_detect_ver *v)
{
    if (v->major <= 0)
        return 0;
    rd[*n].flag = flag;
    rd[*n].v = *v;
    (*n)++;
    return 0;
}

static int problem(cudnnctl_toolkit *t, char *msg)
{
    return cc_strs_push(&t->problems, &t->n_problems, msg);
}

static void read_header_define(cc_detect_run *run, cudnnctl_toolkit *t, const char *inc,
                               const char *file, const char *macro, unsigned flag, reading *rd,
                               int *n)
{
    char *p = cc_path_join(inc, file);
    char *text = NULL;
    if (p && cc_detect_read(run->ctx, p, HEADER_MAX, &text) == 0) {
        long val;
        cc_detect_ver v;
        if (cc_detect_parse_define(text, macro, &val) == 0 && cc_detect_cuda_encoded(val, &v) == 0)
            push_reading(rd, n, flag, &v);
        else
            problem(t, cc_asprintf("%s has no readable %s", p, macro));
    }
    free(text);
    free(p);
}

static void read_nvcc(cc_detect_run *run, cudnnctl_toolkit *t, const char *dir, reading *rd, int *n)
{
    char *p = cc_path_join(dir, "bin/nvcc");
    char *host = p ? cc_detect_host(run->ctx, p) : NULL;
    cc_pf_stat_t st;
    if (!host || cc_pf_stat(host, &st) != 0 || !st.is_reg)
        goto out;
    if (!(st.mode & 0111)) {
        /* never try to run a file that is not marked executable */
        problem(t, cc_asprintf("%s is not executable: not run", p));
        goto out;
    }
    /* under --root not running it is the rule (a note); as root, a toolkit whose nvcc another
     * user could change is a problem of that toolkit */
    char *why = NULL;
    int may = cc_detect_may_run(run->ctx, host, &why);
    if (may == 0 && run->ctx->root)
        cc_detect_note(run,
                       "%s not run (%s): the version is read from the toolkit's files "
                       "(version.json, version.txt, cuda.h, libcudart's SONAME)",
                       p, why);
    else if (may == 0)
        problem(t, cc_asprintf("%s not run (%s); the version is read from the toolkit's files "
                               "(version.json, version.txt, cuda.h, libcudart's SONAME)",
                               p, why));
    free(why);
    if (may != 1)
        goto out;
    const char *argv[] = {host, "--version", NULL};
    char *text = NULL;
    int status = 0;
    if (cc_pf_run(argv, NULL, NULL, NVCC_TIMEOUT_MS, 1, &text, NULL, &status) != 0) {
        problem(t, cc_asprintf("%s could not be started: %s", p, cc_pf_last_error_text()));
    } else if (status == -1) {
        problem(t, cc_asprintf("%s --version did not answer within %u ms", p, NVCC_TIMEOUT_MS));
    } else {
        cc_detect_ver v;
        if (status == 0 && cc_detect_parse_nvcc(text, &v) == 0)
            push_reading(rd, n, CUDNNCTL_SRC_NVCC, &v);
        else
            problem(t, cc_asprintf("%s --version gave no release number (exit %d)", p, status));
    }
    free(text);
out:
    free(host);
    free(p);
}

/* The first lib dir of a tree holding libcudart (lib64, lib, targets/<arch>/lib, lib/<multiarch>).
 * *lib_dir is root-relative as found (not resolved), NULL when none. -1 on OOM. */
int cc_detect_tk_lib_dir(cc_detect_run *run, const char *dir, char **lib_dir)
{
    *lib_dir = NULL;
    cc_strv cands = {0};
    int rc = -1;
    if (cc_strv_push_own(&cands, cc_path_join(dir, "lib64")) != 0 ||
        cc_strv_push_own(&cands, cc_path_join(dir, "lib")) != 0)
        goto out;
    for (size_t i = 0; i < run->arch_targets.n; i++)
        if (cc_strv_push_own(&cands,
                             cc_asprintf("%s/targets/%s/lib", dir, run->arch_targets.v[i])) != 0)
            goto out;
    for (size_t i = 0; i < run->multiarch.n; i++)
        if (cc_strv_push_own(&cands, cc_asprintf("%s/lib/%s", dir, run->multiarch.v[i])) != 0)
            goto out;
    rc = 0;
    for (size_t i = 0; i < cands.n && !*lib_dir && rc == 0; i++) {
        cc_strv ents;
        if (cc_detect_list(run->ctx, cands.v[i], "libcudart.so", &ents) != 0)
            continue;
        for (size_t k = 0; k < ents.n; k++)
            if (cc_str_starts(ents.v[k], "libcudart.so")) {
                if (!(*lib_dir = cc_strdup(cands.v[i])))
                    rc = -1;
                break;
            }
        cc_strv_free(&ents);
    }
out:
    cc_strv_free(&cands);
    return rc;
}

/* The version in the SONAME of the first real libcudart file of lib_dir. */
static int read_cudart(cc_detect_run *run, cudnnctl_toolkit *t, reading *rd, int *n)
{
    cc_strv ents;
    if (!t->lib_dir || cc_detect_list(run->ctx, t->lib_dir, "libcudart.so", &ents) != 0)
        return 0;
    for (size_t k = 0; k < ents.n; k++) {
        const char *e = ents.v[k];
        if (!cc_str_starts(e, "libcudart.so"))
            continue;
        char *p = cc_path_join(t->lib_dir, e);
        char *host = p ? cc_detect_host(run->ctx, p) : NULL;
        cc_pf_stat_t st;
        int done = 0;
        if (host && cc_pf_stat(host, &st) == 0 && st.is_reg) {
            cc_elf_info info;
            cc_detect_ver v;
            if (cc_elf_read(host, &info) != 0) {
                problem(t, cc_asprintf("%s is not an ELF shared library", p));
            } else {
                if (info.soname && cc_detect_parse_cudart_soname(info.soname, &v) == 0)
                    push_reading(rd, n, CUDNNCTL_SRC_SONAME, &v);
                cc_elf_info_free(&info);
                done = 1; /* one real libcudart is enough */
            }
        }
        free(host);
        free(p);
        if (done)
            break;
    }
    cc_strv_free(&ents);
    return 0;
}

static void read_dist_info(cc_detect_run *run, const char *dir, reading *rd, int *n)
{
    cc_strv ents;
    if (cc_detect_list(run->ctx, dir, "nvidia_cuda_runtime", &ents) != 0)
        return;
    for (size_t i = 0; i < ents.n; i++) {
        cc_version pv;
        if (cc_detect_parse_dist_info(ents.v[i], "nvidia_cuda_runtime", &pv) == 0) {
            cc_detect_ver v = {pv.part[0], pv.part[1], pv.part[2]};
            push_reading(rd, n, CUDNNCTL_SRC_DIST_INFO, &v);
            break;
        }
    }
    cc_strv_free(&ents);
}

static char *ver_str(const cc_detect_ver *v)
{
    if (v->minor < 0)
        return cc_asprintf("%d", v->major);
    if (v->patch < 0)
        return cc_asprintf("%d.%d", v->major, v->minor);
    return cc_asprintf("%d.%d.%d", v->major, v->minor, v->patch);
}

static int agrees(const cc_detect_ver *a, const cc_detect_ver *chosen)
{
    return a->major == chosen->major &&
           (a->minor < 0 || chosen->minor < 0 || a->minor == chosen->minor);
}

/* Settle on the version most readings support (ties: the more trusted source, which comes first
 * in rd); fill version, sources, readings, problems. */
static int settle(cudnnctl_toolkit *t, const reading *rd, int n)
{
    int best = -1, best_support = 0;
    for (int pass = 0; pass < 2 && best < 0; pass++)
        for (int i = 0; i < n; i++) {
            if (pass == 0 && rd[i].v.minor < 0)
                continue; /* first try readings that know the minor */
            int support = 0;
            for (int j = 0; j < n; j++)
                support += agrees(&rd[j].v, &rd[i].v);
            if (support > best_support) {
                best = i;
                best_support = support;
            }
        }
    if (best < 0)
        return 0;
    cc_detect_ver chosen = {rd[best].v.major, rd[best].v.minor, -1};
    /* the patch: the SDK version files first, then CUDA_VERSION, then nvcc's own number */
    static const unsigned patch_order[] = {CUDNNCTL_SRC_VERSION_JSON, CUDNNCTL_SRC_VERSION_TXT,
                                           CUDNNCTL_SRC_ENV, CUDNNCTL_SRC_NVCC};
    for (size_t k = 0; k < 4 && chosen.patch < 0; k++)
        for (int i = 0; i < n; i++)
            if (rd[i].flag == patch_order[k] && rd[i].v.patch >= 0 && agrees(&rd[i].v, &chosen) &&
                rd[i].v.minor == chosen.minor)
                chosen.patch = rd[i].v.patch;
    t->major = chosen.major;
    t->minor = chosen.minor;
    t->patch = chosen.patch;
    cc_detect_ver mm = {chosen.major, chosen.minor, -1};
    t->version = ver_str(&mm);
    t->version_full = chosen.patch >= 0 ? ver_str(&chosen) : NULL;
    if (!t->version)
        return -1;
    t->readings = calloc((size_t)n, sizeof(*t->readings));
    if (!t->readings)
        return -1;
    cc_buf dis = {0};
    for (int i = 0; i < n; i++) {
        cudnnctl_version_reading *r = &t->readings[t->n_readings++];
        r->source = rd[i].flag;
        r->version = ver_str(&rd[i].v);
        r->agrees = agrees(&rd[i].v, &chosen);
        if (!r->version)
            return -1;
        if (r->agrees) {
            t->sources |= rd[i].flag;
        } else {
            t->sources_disagree = 1;
            cc_buf_printf(&dis, "%s%s says %s", dis.len ? ", " : "",
                          cudnnctl_detect_source_name(rd[i].flag), r->version);
        }
    }
    if (dis.len) {
        int rc = problem(t, cc_asprintf("version sources disagree: %s; using %s, which %d of %d "
                                        "sources support",
                                        dis.data, t->version, best_support, n));
        cc_buf_free(&dis);
        return rc;
    }
    return 0;
}

int cc_detect_tk_include_dir(cc_detect_run *run, const char *dir, char **out)
{
    *out = NULL;
    cc_strv cands = {0};
    int rc = cc_strv_push_own(&cands, cc_path_join(dir, "include"));
    for (size_t i = 0; rc == 0 && i < run->arch_targets.n; i++)
        rc = cc_strv_push_own(&cands,
                              cc_asprintf("%s/targets/%s/include", dir, run->arch_targets.v[i]));
    for (size_t i = 0; rc == 0 && i < cands.n && !*out; i++) {
        char *a = cc_path_join(cands.v[i], "cuda_runtime_api.h");
        char *b = cc_path_join(cands.v[i], "cuda.h");
        cc_pf_stat_t sa = {0}, sb = {0};
        if (a)
            cc_detect_stat(run->ctx, a, &sa);
        if (b)
            cc_detect_stat(run->ctx, b, &sb);
        if ((sa.is_reg || sb.is_reg) && !(*out = cc_strdup(cands.v[i])))
            rc = -1;
        free(a);
        free(b);
    }
    cc_strv_free(&cands);
    return rc;
}

int cc_detect_toolkit_versions(cc_detect_run *run, const char *dir, const char *site,
                               int env_applies, cudnnctl_toolkit *t)
{
    reading rd[12];
    int n = 0;
    char *p = NULL, *text = NULL;
    cc_detect_ver v;

    /* 1. version.json (CUDA >= 11.1) */
    p = cc_path_join(dir, "version.json");
    if (p && cc_detect_read(run->ctx, p, 1u << 20, &text) == 0) {
        int date = 0;
        int rc = cc_detect_parse_version_json(text, &v, &date);
        if (rc == 0)
            push_reading(rd, &n, CUDNNCTL_SRC_VERSION_JSON, &v);
        else
            problem(t, cc_asprintf(rc == -2 ? "%s is not valid JSON: ignored"
                                            : "%s has no cuda.version: ignored",
                                   p));
    }
    free(text);
    free(p);
    text = NULL;
    /* 2. version.txt (CUDA <= 11.0) */
    p = cc_path_join(dir, "version.txt");
    if (p && cc_detect_read(run->ctx, p, 4096, &text) == 0) {
        if (cc_detect_parse_version_txt(text, &v) == 0)
            push_reading(rd, &n, CUDNNCTL_SRC_VERSION_TXT, &v);
        else
            problem(t, cc_asprintf("%s has no \"CUDA Version X.Y\" line: ignored", p));
    }
    free(text);
    free(p);
    text = NULL;
    /* 3. the tree's own nvcc */
    read_nvcc(run, t, dir, rd, &n);
    /* 4. headers (include_dir and lib_dir were found by the caller) */
    if (t->include_dir) {
        read_header_define(run, t, t->include_dir, "cuda_runtime_api.h", "CUDART_VERSION",
                           CUDNNCTL_SRC_CUDART_H, rd, &n);
        read_header_define(run, t, t->include_dir, "cuda.h", "CUDA_VERSION", CUDNNCTL_SRC_CUDA_H,
                           rd, &n);
    }
    /* 5. wheel metadata: <tree>/dist-info (trees assembled from wheels) or the site-packages */
    p = cc_path_join(dir, "dist-info");
    if (p)
        read_dist_info(run, p, rd, &n);
    free(p);
    if (site)
        read_dist_info(run, site, rd, &n);
    /* 6. CUDA_VERSION of NVIDIA's container images describes the /usr/local/cuda toolkit */
    const char *env = cc_pf_getenv("CUDA_VERSION");
    if (env && env_applies) {
        cc_version ev;
        if (cc_version_parse(env, &ev) == 0 && ev.n >= 2) {
            cc_detect_ver ve = {ev.part[0], ev.part[1], ev.n >= 3 ? ev.part[2] : -1};
            push_reading(rd, &n, CUDNNCTL_SRC_ENV, &ve);
        }
    }
    /* 7. libcudart's SONAME (least precise: the major only from 11 on) */
    if (read_cudart(run, t, rd, &n) != 0)
        return -1;
    return settle(t, rd, n);
}
