/* plan.c: the plan: what install would fetch, where it would go, the steps it would take and
 * why — built from the catalog, detection and the user's selection. Writes nothing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "select.h"
#include "wheels.h"

#define NVIDIA_REDIST "https://developer.download.nvidia.com/compute/cudnn/redist/"

/* Where an install goes when there is neither a toolkit to merge into nor --prefix. */
#define DEFAULT_PREFIX_LINUX "/opt/cudnnctl"
#define DEFAULT_PREFIX_WINDOWS "C:/Program Files/cudnnctl"

typedef struct {
    cudnnctl_ctx *ctx;
    const cudnnctl_selection *sel;
    const cudnnctl_detect_result *det;
    int windows;
    int foreign; /* planning for another platform than this host's: no local toolkit target */
    char *platform;
    const cudnnctl_toolkit *tk; /* the toolkit the plan is made for, NULL when none */
    int cuda_major, cuda_minor;
    char *cuda_from;
    cc_consumer consumer;
    int has_consumer;
    char *driver;
    int driver_cuda;
    cc_strv warnings;
} inputs;

/* The plan with what only this file sees: the copies the rejections point to. */
typedef struct {
    cudnnctl_plan pub; /* first: a cudnnctl_plan * is a plan_priv * */
    cudnnctl_archive *copies;
    size_t n_copies;
} plan_priv;

static int is_dir(const char *real)
{
    cc_pf_stat_t st;
    return cc_pf_stat(real, &st) == 0 && st.exists && st.is_dir;
}

/* A path as the user sees it (without --root), made absolute. */
/* The user's view of p, absolute, in the library's one separator style ('/', also on Windows:
 * "C:/Program Files/..."), so every target path derived from it by joining is uniform. */
static char *user_path(cudnnctl_ctx *ctx, const char *p)
{
    char *u = NULL;
    if (cc_pf_is_abs(p)) {
        char *real = cc_rooted(ctx, p);
        u = real ? cc_unrooted(ctx, real) : NULL;
        free(real);
    } else {
        char *cwd = cc_pf_realpath(".");
        char *abs = cwd ? cc_path_join(cwd, p) : NULL;
        free(cwd);
        u = abs ? cc_unrooted(ctx, abs) : NULL;
        free(abs);
    }
    cc_path_slashes(u);
    return u;
}

static int same_dir(cudnnctl_ctx *ctx, const char *a, const char *b)
{
    char *ra = cc_rooted(ctx, a), *rb = cc_rooted(ctx, b);
    int same = ra && rb && strcmp(ra, rb) == 0;
    if (!same && ra && rb) {
        char *xa = cc_pf_realpath(ra), *xb = cc_pf_realpath(rb);
        same = xa && xb && strcmp(xa, xb) == 0;
        free(xa);
        free(xb);
    }
    free(ra);
    free(rb);
    return same;
}

/* --for PKG: its CUDA build must be the toolkit's major; with no toolkit it names the CUDA. */
static cudnnctl_err consumer_cuda(inputs *in)
{
    cudnnctl_ctx *ctx = in->ctx;
    const cudnnctl_selection *sel = in->sel;
    cudnnctl_err e =
        cc_compat_consumer(ctx, sel->for_pkg, in->cuda_major, in->cuda_minor, &in->consumer);
    if (e != CUDNNCTL_E_OK)
        return e;
    in->has_consumer = 1;
    if (in->cuda_major && in->consumer.cuda_major != in->cuda_major)
        return CC_ERR(ctx, CUDNNCTL_E_NO_MATCH,
                      "%s is a CUDA %d build and the toolkit is CUDA %d (%s): use a CUDA %d "
                      "toolkit or another build of %s",
                      in->consumer.label, in->consumer.cuda_major, in->cuda_major,
                      in->cuda_from, in->consumer.cuda_major, in->consumer.pkg);
    if (!in->cuda_major) {
        in->cuda_major = in->consumer.cuda_major;
        in->cuda_minor = in->consumer.cuda_minor;
        in->cuda_from = cc_asprintf("%s is a CUDA %d.%d build", in->consumer.label,
                                    in->consumer.cuda_major, in->consumer.cuda_minor);
    }
    return CUDNNCTL_E_OK;
}

static cudnnctl_err resolve_cuda(inputs *in)
{
    cudnnctl_ctx *ctx = in->ctx;
    const cudnnctl_selection *sel = in->sel;
    const cudnnctl_detect_result *det = in->det;
    in->cuda_minor = -1;
    if (sel->cuda_home && det) {
        for (size_t i = 0; i < det->n_toolkits; i++)
            if (det->toolkits[i].path && same_dir(ctx, sel->cuda_home, det->toolkits[i].path))
                in->tk = &det->toolkits[i];
    } else if (det && !in->foreign) {
        /* also for --prefix: without --cuda the active toolkit's major decides */
        in->tk = cudnnctl_detect_active_toolkit(det);
    }
    if (sel->cuda_home) {
        char *real = cc_rooted(ctx, sel->cuda_home);
        int dir = real && is_dir(real);
        free(real);
        if (!dir)
            return CC_ERR(ctx, CUDNNCTL_E_NOT_FOUND,
                          "--cuda-home %s: no such directory (give the root of a CUDA toolkit, "
                          "e.g. /usr/local/cuda-13.0 — cudnnctl detect lists them — or install "
                          "into --prefix DIR)",
                          sel->cuda_home);
    }
    if (sel->cuda && *sel->cuda) {
        if (cc_cuda_variant_parse(sel->cuda, &in->cuda_major, &in->cuda_minor) != 0)
            return CC_ERR(ctx, CUDNNCTL_E_BAD_VERSION,
                          "--cuda %s is not a CUDA version: give the major (13) or major.minor "
                          "(12.4)",
                          sel->cuda);
        in->cuda_from = cc_asprintf("--cuda %s", sel->cuda);
        if (in->tk && !sel->prefix && in->tk->major != in->cuda_major)
            return CC_ERR(ctx, CUDNNCTL_E_NO_MATCH,
                          "--cuda %s does not match the target toolkit %s (CUDA %s): drop --cuda, "
                          "pick the toolkit with --cuda-home, or install into --prefix DIR",
                          sel->cuda, in->tk->path, in->tk->version ? in->tk->version : "?");
    } else if (in->tk && in->tk->major > 0) {
        in->cuda_major = in->tk->major;
        in->cuda_minor = in->tk->minor;
        in->cuda_from = cc_asprintf("%stoolkit %s is %s", sel->prefix ? "the active " : "",
                                    in->tk->path, in->tk->version ? in->tk->version : "?");
    }
    cudnnctl_err e = sel->for_pkg ? consumer_cuda(in) : CUDNNCTL_E_OK;
    if (e != CUDNNCTL_E_OK)
        return e;
    if (!in->cuda_major) {
        if (sel->cuda_home)
            return CC_ERR(ctx, CUDNNCTL_E_NO_TOOLKIT,
                          "--cuda-home %s is not a CUDA toolkit (no version.json, version.txt, "
                          "bin/nvcc or libcudart found there): give the root of a toolkit "
                          "(cudnnctl detect lists them), or --prefix DIR to install cuDNN on its "
                          "own",
                          sel->cuda_home);
        if (in->foreign)
            return CC_ERR(ctx, CUDNNCTL_E_NO_TOOLKIT,
                          "planning for %s, not this host (%s): the local CUDA toolkit is no "
                          "target there, so pass --cuda M (13, 12 or 11) for the CUDA major the "
                          "%s machine uses",
                          in->platform, det && det->platform ? det->platform : "?", in->platform);
        return CC_ERR(ctx, CUDNNCTL_E_NO_TOOLKIT,
                      "no CUDA toolkit found and no --cuda given: pass --cuda M (13, 12 or 11) for "
                      "the CUDA major you will use, or --cuda-home DIR of your toolkit");
    }
    return in->cuda_from ? CUDNNCTL_E_OK : CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
}

static cudnnctl_err resolve_driver(inputs *in)
{
    const char *v = in->sel->driver_version;
    if (v && *v) {
        cc_version pv;
        if (cc_version_parse(v, &pv) != 0)
            return CC_ERR(in->ctx, CUDNNCTL_E_BAD_VERSION,
                          "--driver-version %s is not a driver version (like 580.65.06)", v);
        in->driver = cc_strdup(v);
        return in->driver ? CUDNNCTL_E_OK : CC_ERR(in->ctx, CUDNNCTL_E_NOMEM, "out of memory");
    }
    if (in->det && in->det->driver) {
        if (in->det->driver->version && !(in->driver = cc_strdup(in->det->driver->version)))
            return CC_ERR(in->ctx, CUDNNCTL_E_NOMEM, "out of memory");
        in->driver_cuda = in->det->driver->cuda_version;
    }
    return CUDNNCTL_E_OK;
}

/* ---- target ---------------------------------------------------------------------------------- */

static const char *target_arch(const char *platform)
{
    if (strcmp(platform, "linux-sbsa") == 0)
        return "sbsa-linux";
    if (strcmp(platform, "linux-aarch64") == 0)
        return "aarch64-linux";
    if (strcmp(platform, "linux-ppc64le") == 0)
        return "ppc64le-linux";
    return "x86_64-linux";
}

static int has_cudart(const char *dir)
{
    cc_pf_dir *d = cc_pf_opendir(dir);
    int found = 0;
    const char *name;
    while (d && !found && (name = cc_pf_readdir(d)))
        found = cc_str_starts(name, "libcudart.so");
    if (d)
        cc_pf_closedir(d);
    return found;
}

/* The tree's library dir: lib64 if present, else targets/<arch>/lib where libcudart lives,
 * else lib (cudnn-distribution.md §2.4; the install work maps lib/ onto it). */
static char *tree_lib_dir(inputs *in, const char *tree)
{
    char *real = cc_rooted(in->ctx, tree), *out = NULL;
    if (!real)
        return NULL;
    char *lib64 = cc_path_join(real, "lib64");
    char *tgt = cc_asprintf("%s/targets/%s/lib", real, target_arch(in->platform));
    if (lib64 && is_dir(lib64))
        out = cc_path_join(tree, "lib64");
    else if (tgt && is_dir(tgt) && has_cudart(tgt))
        out = cc_asprintf("%s/targets/%s/lib", tree, target_arch(in->platform));
    else
        out = cc_path_join(tree, "lib");
    free(lib64);
    free(tgt);
    free(real);
    return out;
}

static cudnnctl_err make_target(inputs *in, cudnnctl_plan *p)
{
    cudnnctl_ctx *ctx = in->ctx;
    const cudnnctl_selection *sel = in->sel;
    const cudnnctl_archive *a = &p->archive;
    if (sel->prefix || (!sel->cuda_home && !in->tk)) {
        p->mode = CUDNNCTL_TARGET_PREFIX;
        if (sel->prefix) {
            p->target_path = user_path(ctx, sel->prefix);
        } else {
            p->target_path = cc_strdup(in->windows ? DEFAULT_PREFIX_WINDOWS : DEFAULT_PREFIX_LINUX);
            cc_strv_push_own(&in->warnings,
                             in->foreign
                                 ? cc_asprintf("planning for %s, not this host: no local toolkit "
                                               "is the target; the prefix is %s (install needs "
                                               "--prefix DIR)",
                                               in->platform,
                                               p->target_path ? p->target_path : "?")
                                 : cc_asprintf("no CUDA toolkit to merge into: the target is the "
                                               "prefix %s (pass --cuda-home DIR or --prefix DIR "
                                               "to choose)",
                                               p->target_path ? p->target_path : "?"));
        }
        if (!p->target_path)
            return CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
        p->install_dir =
            cc_asprintf("%s/cudnn-%s-cuda%s", p->target_path, a->cudnn_version, a->cuda_variant);
        if (!p->install_dir)
            return CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
        p->lib_dir = cc_path_join(p->install_dir, "lib");
        p->include_dir = cc_path_join(p->install_dir, "include");
        if (in->windows)
            p->bin_dir = cc_path_join(p->install_dir, "bin");
    } else {
        p->mode = CUDNNCTL_TARGET_CUDA_TREE;
        const char *tree = sel->cuda_home ? sel->cuda_home : in->tk->path;
        p->target_path = user_path(ctx, tree);
        char *real = p->target_path ? cc_rooted(ctx, p->target_path) : NULL;
        int ok = real && is_dir(real);
        free(real);
        if (!p->target_path)
            return CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
        if (!ok)
            return CC_ERR(ctx, CUDNNCTL_E_NOT_FOUND,
                          "the CUDA tree %s does not exist: give the toolkit's root with "
                          "--cuda-home, or install into --prefix DIR",
                          p->target_path);
        p->install_dir = cc_strdup(p->target_path);
        p->include_dir = cc_path_join(p->target_path, "include");
        if (in->windows) {
            /* §2.5: import libraries in lib\x64; DLLs in bin\x64 on CUDA 13 trees, else bin */
            p->lib_dir = cc_path_join(p->target_path, "lib/x64");
            char *bx = cc_rooted(ctx, p->target_path);
            char *bx64 = bx ? cc_path_join(bx, "bin/x64") : NULL;
            p->bin_dir = cc_path_join(p->target_path, bx64 && is_dir(bx64) ? "bin/x64" : "bin");
            free(bx);
            free(bx64);
        } else {
            p->lib_dir = tree_lib_dir(in, p->target_path);
        }
    }
    if (!p->install_dir || !p->lib_dir || !p->include_dir || (in->windows && !p->bin_dir))
        return CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    return CUDNNCTL_E_OK;
}

/* ---- source and steps ------------------------------------------------------------------------ */

static char *make_url(inputs *in, const cudnnctl_archive *a, int *mirror_dir)
{
    const char *m = in->sel->mirror;
    *mirror_dir = 0;
    if (!m || !*m)
        return cc_asprintf("%s%s", NVIDIA_REDIST, a->relative_path);
    if (strstr(m, "://")) {
        size_t n = strlen(m);
        return cc_asprintf("%s%s%s", m, m[n - 1] == '/' ? "" : "/", a->relative_path);
    }
    *mirror_dir = 1;
    char *base = user_path(in->ctx, m);
    char *u = base ? cc_path_join(base, a->relative_path) : NULL;
    free(base);
    return u;
}

static int add_step(cc_strv *names, cc_strv *steps, const char *name, char *detail)
{
    if (!detail || cc_strv_push(names, name) != 0)
        return free(detail), -1;
    return cc_strv_push_own(steps, detail);
}

/* download: from the cache, the mirror directory, or the URL into the cache. */
static int download_step(inputs *in, const cudnnctl_plan *p, int mirror_dir, const char *sz,
                         cc_strv *names, cc_strv *steps)
{
    cudnnctl_ctx *ctx = in->ctx;
    char *cache = cc_cache_dir(ctx);
    char *blob = cache ? cc_asprintf("%s/blobs/sha256/%s", cache, p->archive.sha256) : NULL;
    cc_pf_stat_t st;
    int cached = blob && cc_pf_stat(blob, &st) == 0 && st.exists && st.is_reg;
    char *blob_u = blob ? cc_unrooted(ctx, blob) : NULL;
    int rc;
    if (p->source == CUDNNCTL_SOURCE_WHEEL)
        rc = add_step(names, steps, "download",
                      cc_asprintf("fetch NVIDIA's wheel %s (%s): from the file an --index-url's "
                                  "PEP 691 page names (cudnnctl's own download, unpacked as it "
                                  "lands), else with pip download from the Python package index "
                                  "its configuration names (--require-hashes sha256 %s); verify "
                                  "it again (a copy already in the cache needs no download)",
                                  p->wheel->filename, sz, p->wheel->sha256));
    else if (cached)
        rc = add_step(names, steps, "download",
                      cc_asprintf("already in the cache: %s (nothing to download)", blob_u));
    else if (mirror_dir)
        rc = add_step(names, steps, "download",
                      cc_asprintf("read %s (%s) from the mirror directory", p->url, sz));
    else
        rc = add_step(
            names, steps, "download",
            cc_asprintf("fetch %s (%s) into the cache %s", p->url, sz, blob_u ? blob_u : "?"));
    free(cache);
    free(blob);
    free(blob_u);
    return rc;
}

/* links and ldconfig (not on Windows): the SONAME chain, and whether the loader cache is
 * refreshed. */
static int link_steps(inputs *in, const cudnnctl_plan *p, int major, const char *ver3,
                      cc_strv *names, cc_strv *steps)
{
    int rc = add_step(names, steps, "links",
                      cc_asprintf("libcudnn*.so -> libcudnn*.so.%d -> libcudnn*.so.%s in %s; "
                                  "stale cuDNN %d sub-libraries from an earlier install removed",
                                  major, ver3, p->lib_dir, major));
    if (p->mode != CUDNNCTL_TARGET_CUDA_TREE)
        rc |= add_step(names, steps, "ldconfig",
                       cc_strdup("none: a prefix is not in the loader's path (see `cudnnctl "
                                 "env`)"));
    else if (in->ctx->root)
        rc |= add_step(names, steps, "ldconfig", cc_strdup("skipped under --root"));
    else
        rc |= add_step(names, steps, "ldconfig",
                       cc_asprintf("ldconfig %s (--no-ldconfig skips it)", p->lib_dir));
    return rc;
}

static cudnnctl_err make_steps(inputs *in, cudnnctl_plan *p, int mirror_dir)
{
    cudnnctl_ctx *ctx = in->ctx;
    const cudnnctl_archive *a = &p->archive;
    cc_strv names = {0}, steps = {0};
    char sz[32], ver3[64];
    const cudnnctl_wheel *w = p->source == CUDNNCTL_SOURCE_WHEEL ? p->wheel : NULL;
    cudnnctl_size_text((double)(w ? w->size : a->size), sz, sizeof(sz));
    cc_version v;
    cc_version_parse(a->cudnn_version, &v);
    snprintf(ver3, sizeof(ver3), "%d.%d.%d", v.part[0], v.part[1], v.part[2] < 0 ? 0 : v.part[2]);
    const char *file = w ? w->filename : cc_path_base(a->relative_path);
    char *state = cc_state_dir(ctx);
    char *state_u = state ? cc_unrooted(ctx, state) : NULL;
    int tree = p->mode == CUDNNCTL_TARGET_CUDA_TREE;
    int rc = download_step(in, p, mirror_dir, sz, &names, &steps);
    rc |= add_step(&names, &steps, "verify",
                   cc_asprintf("SHA-256 must be %s and the size %llu bytes; a mismatch stops "
                               "before anything is written",
                               w ? w->sha256 : a->sha256,
                               (unsigned long long)(w ? w->size : a->size)));
    char comp[40];
    cudnnctl_components_text(p->components, comp, sizeof(comp));
    int some = p->components != CUDNNCTL_COMPONENTS_ALL;
    rc |= add_step(&names, &steps, "extract",
                   cc_asprintf("unpack %s%s into a staging directory %s, checking every entry%s%s%s",
                               file, cc_str_ends(file, ".tar.xz") ? " (while it streams in)" : "",
                               tree ? "beside each destination" : "under the prefix",
                               some ? "; only the components " : "", some ? comp : "",
                               some ? " (the rest is read and hashed, not written)" : ""));
    if (tree)
        rc |= add_step(&names, &steps, "commit",
                       cc_asprintf("merge the headers into %s and the libraries into %s%s%s "
                                   "through a journal (replaced files kept until the commit ends)",
                                   p->include_dir, p->lib_dir,
                                   p->bin_dir ? " and the DLLs into " : "",
                                   p->bin_dir ? p->bin_dir : ""));
    else
        rc |= add_step(&names, &steps, "commit",
                       cc_asprintf("rename the staged tree to %s in one step and point %s/current "
                                   "at it",
                                   p->install_dir, p->target_path));
    if (!in->windows)
        rc |= link_steps(in, p, v.part[0], ver3, &names, &steps);
    rc |= add_step(&names, &steps, "receipt",
                   cc_asprintf("record every file with its SHA-256 in a receipt under %s",
                               state_u ? state_u : "the state directory"));
    if (in->windows)
        rc |= add_step(&names, &steps, "validate",
                       cc_asprintf("load %s/cudnn64_%d.dll in a child process, check versions and "
                                   "run a convolution (--no-validate skips it)",
                                   p->bin_dir, v.part[0]));
    else
        rc |= add_step(&names, &steps, "validate",
                       cc_asprintf("load %s/libcudnn.so.%d in a child process, check versions and "
                                   "run a convolution (--no-validate skips it)",
                                   p->lib_dir, v.part[0]));
    free(state);
    free(state_u);
    if (rc != 0) {
        cc_strv_free(&names);
        cc_strv_free(&steps);
        return CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    }
    p->steps = steps.v;
    p->n_steps = steps.n;
    p->step_names = names.v;
    return CUDNNCTL_E_OK;
}

/* ---- the plan -------------------------------------------------------------------------------- */

static cudnnctl_err copy_selection(inputs *in, cc_select_out *so, plan_priv *pp)
{
    cudnnctl_ctx *ctx = in->ctx;
    cudnnctl_plan *p = &pp->pub;
    if (cc_archive_copy(&p->archive, so->chosen) != 0)
        return CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    p->reason = so->reason;
    so->reason = NULL;
    p->platform = cc_strdup(in->platform);
    p->driver_version = in->driver ? cc_strdup(in->driver) : NULL;
    p->driver_floor = so->floor ? cc_strdup(so->floor) : NULL;
    p->toolkit_version = in->tk && in->tk->version ? cc_strdup(in->tk->version) : NULL;
    if (in->has_consumer) {
        p->consumer = cc_strdup(in->consumer.label);
        p->consumer_cudnn = cc_strdup(in->consumer.cudnn);
    }
    if (so->n_rejected) {
        p->rejected = calloc(so->n_rejected, sizeof(*p->rejected));
        pp->copies = calloc(so->n_rejected, sizeof(*pp->copies));
        if (!p->rejected || !pp->copies)
            return CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
        for (size_t i = 0; i < so->n_rejected; i++) {
            if (cc_archive_copy(&pp->copies[i], so->rejected[i].archive) != 0)
                return CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
            pp->n_copies = i + 1;
            p->rejected[i].archive = &pp->copies[i];
            p->rejected[i].reason = so->rejected[i].reason;
            so->rejected[i].reason = NULL;
            p->rejected[i].kind = so->rejected[i].kind;
            p->rejected[i].count = so->rejected[i].count;
            p->n_rejected = i + 1;
        }
    }
    for (size_t i = 0; i < so->warnings.n; i++)
        if (cc_strv_push(&in->warnings, so->warnings.v[i]) != 0)
            return CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    if (!p->platform || !p->reason)
        return CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    return CUDNNCTL_E_OK;
}

/* Choose among the archives of the selected flavour only; a JIT archive the catalog does not
 * have on this platform gets its own message (NVIDIA ships it for Linux only, from 9.10). */
static cudnnctl_err select_flavor(inputs *in, const cudnnctl_catalog *cat, const cc_select_in *si,
                                  cc_select_out *so, plan_priv *pp)
{
    cudnnctl_ctx *ctx = in->ctx;
    cudnnctl_flavor fl = in->sel->flavor;
    cudnnctl_catalog *view = cc_catalog_flavor_view(cat, fl);
    if (!view)
        return CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    size_t on_platform = 0;
    for (size_t i = 0; i < cudnnctl_catalog_count(view); i++)
        on_platform += strcmp(cudnnctl_catalog_get(view, i)->platform, in->platform) == 0;
    cudnnctl_err e;
    if (fl == CUDNNCTL_FLAVOR_JIT && on_platform == 0)
        e = CC_ERR(ctx, CUDNNCTL_E_NO_MATCH,
                   "the catalog has no JIT-flavour (cudnn_jit) archive for %s: NVIDIA publishes "
                   "the Graph JIT library for linux-x86_64 and linux-sbsa only (manifests from "
                   "9.10 on); use --flavor full, or `cudnnctl update` when a newer manifest may "
                   "have it",
                   in->platform);
    else if ((e = cc_select(ctx, view, si, so)) == CUDNNCTL_E_OK)
        e = copy_selection(in, so, pp);
    /* everything the plan keeps was copied: the view can go */
    cc_select_out_free(so);
    cudnnctl_catalog_free(view);
    return e;
}

/* The platform planned for: --platform, else this machine's (as detect saw it), else the host
 * profile's OS with this CPU (malloc'd; NULL when out of memory). */
static char *plan_platform(cudnnctl_ctx *ctx, const cudnnctl_selection *sel,
                           const cudnnctl_detect_result *det)
{
    if (sel->platform && *sel->platform)
        return cc_strdup(sel->platform);
    if (det && det->platform)
        return cc_strdup(det->platform);
    return cc_asprintf("%s-%s", cc_host_os_name(ctx), cc_pf_machine());
}

/* A mirror directory that lacks the archive yet: a warning, not a failure (it may be filled
 * before the install runs). */
static void warn_not_mirrored(inputs *in, const char *url)
{
    char *real = cc_rooted(in->ctx, url);
    cc_pf_stat_t st;
    if (real && (cc_pf_stat(real, &st) != 0 || !st.exists))
        cc_strv_push_own(&in->warnings, cc_asprintf("%s is not in the mirror directory yet", url));
    free(real);
}

cudnnctl_err cudnnctl_plan_make(cudnnctl_ctx *ctx, const cudnnctl_catalog *cat,
                                const cudnnctl_detect_result *det, const cudnnctl_selection *sel,
                                cudnnctl_plan **out)
{
    static const cudnnctl_selection none;
    *out = NULL;
    inputs in;
    memset(&in, 0, sizeof(in));
    in.ctx = ctx;
    in.sel = sel ? sel : &none;
    in.det = det;
    cc_select_out so;
    memset(&so, 0, sizeof(so));
    plan_priv *pp = calloc(1, sizeof(*pp));
    cudnnctl_plan *p = pp ? &pp->pub : NULL;
    cudnnctl_err e = CUDNNCTL_E_OK;
    if (!p) {
        e = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
        goto out;
    }
    if (!(in.platform = plan_platform(ctx, in.sel, det))) {
        e = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
        goto out;
    }
    in.windows = cc_str_starts(in.platform, "windows");
    in.foreign = det && det->platform && strcmp(in.platform, det->platform) != 0;
    if ((e = cc_refuse_ctl_path(ctx, "--prefix", in.sel->prefix)) != CUDNNCTL_E_OK ||
        (e = cc_refuse_ctl_path(ctx, "--cuda-home", in.sel->cuda_home)) != CUDNNCTL_E_OK)
        goto out;
    if ((e = resolve_cuda(&in)) != CUDNNCTL_E_OK || (e = resolve_driver(&in)) != CUDNNCTL_E_OK)
        goto out;
    cc_select_in si = {in.platform,  in.cuda_major, in.cuda_minor,
                       in.cuda_from, in.sel->cudnn, in.has_consumer ? &in.consumer : NULL,
                       in.driver,    in.driver_cuda};
    if (si.cudnn_pin && !*si.cudnn_pin)
        si.cudnn_pin = NULL;
    if ((e = select_flavor(&in, cat, &si, &so, pp)) != CUDNNCTL_E_OK)
        goto out;
    p->flavor = p->archive.flavor;
    p->components = in.sel->components ? in.sel->components : CUDNNCTL_COMPONENTS_ALL;
    cudnnctl_archive_sizes(&p->archive, p->components, &p->sizes);
    if ((e = cc_wheel_plan_source(ctx, p, in.sel->source)) != CUDNNCTL_E_OK)
        goto out;
    int mirror_dir = 0;
    p->url = make_url(&in, &p->archive, &mirror_dir);
    if (!p->url) {
        e = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
        goto out;
    }
    if (mirror_dir)
        warn_not_mirrored(&in, p->url);
    if ((e = make_target(&in, p)) != CUDNNCTL_E_OK ||
        (e = cc_refuse_ctl_path(ctx, "the install target", p->target_path)) != CUDNNCTL_E_OK ||
        (e = make_steps(&in, p, mirror_dir)) != 0)
        goto out;
out:
    if (p) {
        p->warnings = in.warnings.v;
        p->n_warnings = in.warnings.n;
    } else {
        cc_strv_free(&in.warnings);
    }
    cc_select_out_free(&so);
    cc_consumer_clear(&in.consumer);
    free(in.platform);
    free(in.cuda_from);
    free(in.driver);
    if (e != CUDNNCTL_E_OK)
        cudnnctl_plan_free(p);
    else
        *out = p;
    return e;
}

void cudnnctl_plan_free(cudnnctl_plan *p)
{
    if (!p)
        return;
    cc_archive_clear(&p->archive);
    free(p->url);
    free(p->target_path);
    free(p->install_dir);
    free(p->lib_dir);
    free(p->include_dir);
    free(p->bin_dir);
    free(p->toolkit_version);
    free(p->reason);
    free(p->source_reason);
    for (size_t i = 0; i < p->n_steps; i++) {
        free(p->steps[i]);
        free(p->step_names ? p->step_names[i] : NULL);
    }
    free(p->steps);
    free(p->step_names);
    plan_priv *pp = (plan_priv *)p;
    for (size_t i = 0; i < p->n_rejected; i++)
        free(p->rejected[i].reason);
    free(p->rejected);
    for (size_t i = 0; i < pp->n_copies; i++)
        cc_archive_clear(&pp->copies[i]);
    free(pp->copies);
    for (size_t i = 0; i < p->n_warnings; i++)
        free(p->warnings[i]);
    free(p->warnings);
    free(p->platform);
    free(p->driver_version);
    free(p->driver_floor);
    free(p->consumer);
    free(p->consumer_cudnn);
    free(p);
}
