/* install_source.c: which archive an install uses and where its bytes come from — the
 * catalog's URL, a mirror (URL or dir) joined with relative_path, or an archive at hand. */
#include <stdlib.h>
#include <string.h>

#include "archive_name.h"
#include "hash.h"
#include "install_internal.h"
#include "trust.h"
#include "wheels.h"
#include "txfs.h"

void cc_source_choice_free(cc_source_choice *c)
{
    if (c->owned_plan)
        cudnnctl_plan_free(c->owned_plan);
    free(c->url);
    free(c->file_name);
    free(c->relative_path);
    free(c->sha256);
    free(c->manifest);
    free(c->manifest_sha256);
    free(c->manifest_override);
    free(c->cudnn_version);
    free(c->cuda_variant);
    free(c->platform);
    free(c->source_why);
    memset(c, 0, sizeof(*c));
}

static int is_url(const char *s)
{
    return s && strstr(s, "://") != NULL;
}

/* Last path component of a path or URL, without ?query / #fragment. */
static char *url_base(const char *s)
{
    size_t n = strcspn(s, "?#");
    char *t = cc_strndup(s, n);
    if (!t)
        return NULL;
    while (n > 1 && t[n - 1] == '/')
        t[--n] = '\0';
    char *r = cc_strdup(cc_path_base(t));
    free(t);
    return r;
}

static void warn(cudnnctl_ctx *ctx, cc_strv *warnings, char *msg)
{
    if (!msg)
        return;
    cc_event(ctx, CUDNNCTL_EV_WARNING, msg, NULL);
    if (warnings)
        cc_strv_push_own(warnings, msg);
    else
        free(msg);
}

/* Manifest trust (docs/security.md): an added manifest that contradicts the embedded NVIDIA
 * catalog fails closed unless --allow-manifest-override; accepted, it is warned about (an event:
 * -q does not hide it) and recorded in c->manifest_override for the receipt. */
static cudnnctl_err manifest_trust(cudnnctl_ctx *ctx, const cudnnctl_catalog *cat,
                                   const cudnnctl_install_opts *o, cc_source_choice *c,
                                   cc_strv *warnings)
{
    size_t n = cudnnctl_catalog_conflict_count(cat);
    if (!n)
        return CUDNNCTL_E_OK;
    if (!o->allow_manifest_override)
        return cc_catalog_trust_refuse(ctx, cat, "installed",
                                       "install from this one knowingly with "
                                       "--allow-manifest-override (recorded in the receipt)");
    cc_buf b = {0};
    for (size_t i = 0; i < n; i++) {
        const char *t = cudnnctl_catalog_conflict(cat, i);
        warn(ctx, warnings, cc_asprintf("--allow-manifest-override: %s", t));
        if (cc_buf_printf(&b, "%s%s", i ? "; " : "", t) != 0) {
            cc_buf_free(&b);
            CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
        }
    }
    c->manifest_override = b.data;
    return CUDNNCTL_E_OK;
}

/* A local --archive: say plainly when it is not there or is a directory. */
static cudnnctl_err check_local_archive(cudnnctl_ctx *ctx, const char *archive)
{
    cc_pf_stat_t ast;
    char *aabs = cc_txn_absolute(archive);
    char *areal = aabs ? cc_rooted(ctx, aabs) : NULL;
    int st_ok = areal && cc_pf_stat(areal, &ast) == 0 && ast.exists;
    free(aabs);
    free(areal);
    if (!st_ok)
        CC_RET_ERR(ctx, CUDNNCTL_E_USAGE,
                   "--archive %s: no such file (give the path of a downloaded "
                   "cudnn-*-archive.tar.xz or .zip, or a URL)",
                   archive);
    if (ast.is_dir)
        CC_RET_ERR(ctx, CUDNNCTL_E_USAGE,
                   "--archive %s is a directory, not an archive file (for a directory "
                   "of archives use --mirror DIR)",
                   archive);
    return CUDNNCTL_E_OK;
}

/* The parts of a name that a selection left open. */
typedef struct {
    char *ver, *plat, *cuda;
} name_parts;

/* An --archive the catalog does not list: its SHA-256 must come from --sha256 (or be skipped);
 * the selection is completed from its file name, and a one-entry manifest joins the catalog. */
static cudnnctl_err archive_off_catalog(cudnnctl_ctx *ctx, cudnnctl_catalog *cat,
                                        const cudnnctl_install_opts *o, cc_source_choice *c,
                                        cudnnctl_selection *sel, name_parts *np)
{
    cudnnctl_err rc = CUDNNCTL_E_OK;
    if (!o->sha256 && !o->insecure_skip_verify)
        CC_RET_ERR(ctx, CUDNNCTL_E_NO_HASH,
                   "the archive %s matches no entry of the catalog, so its SHA-256 is "
                   "unknown: give it with --sha256 HEX (from NVIDIA's redistrib JSON), "
                   "add that manifest with --manifest FILE|URL, or accept the risk with "
                   "--insecure-skip-verify",
                   c->file_name);
    if (cc_archive_name_parse(c->file_name, &np->ver, &np->plat, &np->cuda) != 0 &&
        (!sel->cudnn || !sel->cuda || !sel->platform))
        CC_RET_ERR(ctx, CUDNNCTL_E_USAGE,
                   "cannot tell the cuDNN version, platform and CUDA variant from the "
                   "file name %s: give --cudnn V --cuda M --platform P",
                   c->file_name);
    if (!sel->cudnn)
        sel->cudnn = np->ver;
    if (!sel->platform)
        sel->platform = np->plat;
    if (!sel->cuda)
        sel->cuda = np->cuda;
    cc_pf_stat_t st;
    char *abs = is_url(o->archive) ? NULL : cc_txn_absolute(o->archive);
    char *real = abs ? cc_rooted(ctx, abs) : NULL;
    uint64_t fsize = real && cc_pf_stat(real, &st) == 0 ? st.size : 0;
    free(abs);
    free(real);
    int jit = cc_str_starts(c->file_name, "cudnn_jit-");
    sel->flavor = jit ? CUDNNCTL_FLAVOR_JIT : CUDNNCTL_FLAVOR_FULL;
    char *rel = cc_asprintf("%s/%s/%s", jit ? "cudnn_jit" : "cudnn", sel->platform, c->file_name);
    char *js =
        rel ? cc_archive_synthetic_manifest(
                  sel->cudnn, sel->platform, sel->cuda, rel,
                  o->sha256 ? o->sha256
                            : "0000000000000000000000000000000000000000000000000000000000000000",
                  fsize, jit)
            : NULL;
    char *origin = cc_asprintf("archive:%s", c->file_name);
    if (!js || !origin)
        rc = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    else if (cat)
        rc = cudnnctl_catalog_add_json(ctx, cat, js, strlen(js), origin);
    free(rel);
    free(js);
    free(origin);
    return rc;
}

/* --archive: a catalog entry fixes the selection; another file is described from its name. */
static cudnnctl_err choose_archive(cudnnctl_ctx *ctx, cudnnctl_catalog *cat,
                                   const cudnnctl_install_opts *o, cc_source_choice *c,
                                   cudnnctl_selection *sel, name_parts *np)
{
    c->file_name = url_base(o->archive);
    if (!c->file_name || !*c->file_name)
        CC_RET_ERR(ctx, CUDNNCTL_E_USAGE, "--archive '%s' names no file", o->archive);
    if (!is_url(o->archive)) {
        cudnnctl_err rc = check_local_archive(ctx, o->archive);
        if (rc != CUDNNCTL_E_OK)
            return rc;
    }
    const cudnnctl_archive *entry = cat ? cudnnctl_catalog_find_file(cat, c->file_name) : NULL;
    if (!entry && (c->wheel = cc_wheel_by_file(ctx, c->file_name)) != NULL) {
        /* NVIDIA's wheel, which the wheel catalog knows: its release, CUDA major, platform,
         * flavour and SHA-256 from there */
        sel->cudnn = c->wheel->pub.version;
        sel->platform = c->wheel->platform;
        sel->cuda = c->wheel->cuda;
        sel->flavor = c->wheel->jit ? CUDNNCTL_FLAVOR_JIT : CUDNNCTL_FLAVOR_FULL;
        sel->source = CUDNNCTL_SOURCE_ARCHIVE; /* planned as the archive; the bytes: this file */
        c->source_why = cc_asprintf("--archive %s: NVIDIA's wheel %s==%s (the wheel catalog's "
                                    "SHA-256)",
                                    c->file_name, c->wheel->pub.package, c->wheel->pub.version);
        return CUDNNCTL_E_OK;
    }
    if (!entry)
        return archive_off_catalog(ctx, cat, o, c, sel, np);
    sel->cudnn = entry->cudnn_version;
    sel->platform = entry->platform;
    sel->cuda = entry->cuda_variant;
    sel->flavor = entry->flavor;
    c->in_catalog = 1;
    return CUDNNCTL_E_OK;
}

/* What is installed: the selection for an archive off the catalog, else the plan's archive. */
static void choose_what(const cudnnctl_install_opts *o, const cudnnctl_selection *sel,
                        const cudnnctl_plan *p, cc_source_choice *c)
{
    c->components = sel->components ? sel->components & CUDNNCTL_COMPONENTS_ALL
                    : p && p->components ? p->components
                                         : CUDNNCTL_COMPONENTS_ALL;
    c->flavor = sel->flavor;
    if (!o->archive && p && p->source == CUDNNCTL_SOURCE_WHEEL && p->wheel)
        c->wheel = (const cc_wheel_row *)p->wheel; /* pub is the row's first member */
    if (c->wheel) {
        c->flavor = c->wheel->jit ? CUDNNCTL_FLAVOR_JIT : CUDNNCTL_FLAVOR_FULL;
        c->cudnn_version = cc_strdup(c->wheel->pub.version);
        c->cuda_variant = cc_strdup(p ? p->archive.cuda_variant : c->wheel->cuda);
        c->platform = cc_strdup(c->wheel->platform);
        c->relative_path = cc_strdup(c->wheel->pub.filename);
        c->manifest = NULL;
        c->size = c->wheel->pub.size;
        c->via_pip = !o->archive;
        if (!c->file_name)
            c->file_name = cc_strdup(c->wheel->pub.filename);
        if (!c->source_why && p && p->source_reason)
            c->source_why = cc_strdup(p->source_reason);
        return;
    }
    if (o->archive && !c->in_catalog) {
        c->cudnn_version = cc_strdup(sel->cudnn);
        c->cuda_variant = cc_strdup(sel->cuda);
        c->platform = cc_strdup(sel->platform);
        c->relative_path = cc_strdup(c->file_name);
        c->manifest = NULL;
        c->size = 0;
        return;
    }
    c->flavor = p->archive.flavor;
    c->cudnn_version = cc_strdup(p->archive.cudnn_version);
    c->cuda_variant = cc_strdup(p->archive.cuda_variant);
    c->platform = cc_strdup(p->archive.platform);
    c->relative_path = cc_strdup(p->archive.relative_path);
    c->manifest = p->archive.manifest ? cc_strdup(p->archive.manifest) : NULL;
    c->manifest_sha256 = p->archive.manifest_sha256 ? cc_strdup(p->archive.manifest_sha256) : NULL;
    c->size = p->archive.size;
    c->in_catalog = 1;
    if (!c->file_name)
        c->file_name = url_base(p->archive.relative_path);
}

/* Where the bytes come from: --archive, the mirror (URL or dir), else the plan's URL. */
static void choose_url(cudnnctl_ctx *ctx, const cudnnctl_install_opts *o, const char *mirror,
                       const cudnnctl_plan *p, cc_source_choice *c)
{
    if (c->via_pip) {
        c->url = cc_strdup(c->wheel->pub.url); /* for messages; pip fetches it (install_wheel.c) */
    } else if (o->archive) {
        /* a local path is read under --root like every other path (one already under the root
         * stays as it is), as --manifest FILE is */
        char *abs = is_url(o->archive) ? NULL : cc_txn_absolute(o->archive);
        c->url = is_url(o->archive) ? cc_strdup(o->archive) : abs ? cc_rooted(ctx, abs) : NULL;
        free(abs);
    } else if (mirror) {
        c->via_mirror = 1;
        if (is_url(mirror)) {
            size_t n = strlen(mirror);
            while (n > 0 && mirror[n - 1] == '/')
                n--;
            c->url = cc_asprintf("%.*s/%s", (int)n, mirror, c->relative_path);
        } else {
            char *abs = cc_txn_absolute(mirror);
            char *base = abs ? cc_rooted(ctx, abs) : NULL;
            c->url = base ? cc_path_join(base, c->relative_path) : NULL;
            free(abs);
            free(base);
        }
    } else {
        c->url = cc_strdup(p->url);
    }
}

/* What the bytes must hash to: --sha256 over the catalog's (with a warning), none only with
 * --insecure-skip-verify. */
static void choose_hash(cudnnctl_ctx *ctx, const cudnnctl_install_opts *o, const cudnnctl_plan *p,
                        cc_source_choice *c, cc_strv *warnings)
{
    if (o->sha256 && c->wheel && !cc_str_ieq(c->wheel->pub.sha256, o->sha256)) {
        c->sha256 = cc_str_lower(o->sha256);
        warn(ctx, warnings,
             cc_asprintf("--sha256 %s overrides the wheel catalog's %s for %s", c->sha256,
                         c->wheel->pub.sha256, c->file_name));
        c->size = 0;
    } else if (o->sha256) {
        c->sha256 = cc_str_lower(o->sha256);
        if (c->in_catalog && p->archive.sha256 && !cc_str_ieq(p->archive.sha256, o->sha256)) {
            warn(ctx, warnings,
                 cc_asprintf("--sha256 %s overrides the catalog's %s for %s", c->sha256,
                             p->archive.sha256, c->file_name));
            c->size = 0; /* another file than the catalog's: its size says nothing either */
        }
    } else if (c->wheel) {
        c->sha256 = cc_str_lower(c->wheel->pub.sha256);
    } else if (c->in_catalog && p->archive.sha256) {
        c->sha256 = cc_str_lower(p->archive.sha256);
    }
    if (!c->sha256)
        warn(ctx, warnings,
             cc_asprintf("INSECURE: %s is installed WITHOUT SHA-256 verification "
                         "(--insecure-skip-verify): nothing checks that its bytes are NVIDIA's",
                         c->file_name));
    else if (o->insecure_skip_verify)
        cc_log(ctx, CUDNNCTL_LOG_INFO, "a SHA-256 is known for %s: it is verified anyway",
               c->file_name);
}

cudnnctl_err cc_install_choose(cudnnctl_ctx *ctx, cudnnctl_catalog *cat,
                               const cudnnctl_detect_result *det, const cudnnctl_install_opts *o,
                               cc_source_choice *c, cc_strv *warnings)
{
    cudnnctl_err rc = CUDNNCTL_E_OK;
    cudnnctl_selection sel = o->selection;
    name_parts np = {NULL, NULL, NULL};
    memset(c, 0, sizeof(*c));
    if (o->mirror)
        sel.mirror = o->mirror;
    if (o->sha256 && !cc_sha256_is_hex(o->sha256))
        CC_RET_ERR(ctx, CUDNNCTL_E_USAGE, "--sha256 takes 64 hex digits, not '%s'", o->sha256);
    if ((rc = manifest_trust(ctx, cat, o, c, warnings)) != CUDNNCTL_E_OK)
        return rc;
    if (o->archive && (rc = choose_archive(ctx, cat, o, c, &sel, &np)) != CUDNNCTL_E_OK)
        goto out;
    if (o->plan) {
        c->plan = o->plan;
    } else {
        if (!cat) {
            rc = CC_ERR(ctx, CUDNNCTL_E_USAGE, "install needs a catalog or a plan");
            goto out;
        }
        rc = cudnnctl_plan_make(ctx, cat, det, &sel, &c->owned_plan);
        if (rc != CUDNNCTL_E_OK)
            goto out;
        c->plan = c->owned_plan;
    }
    choose_what(o, &sel, c->plan, c);
    /* a manifest `update --allow-manifest-override` took over its pin: the receipt says so */
    const char *note = cat ? cc_catalog_override_note(cat, c->manifest) : NULL;
    if (note) {
        char *both = c->manifest_override ? cc_asprintf("%s; %s", c->manifest_override, note)
                                          : cc_strdup(note);
        free(c->manifest_override);
        c->manifest_override = both;
        warn(ctx, warnings,
             cc_asprintf("%s was accepted over its pin by `cudnnctl update "
                         "--allow-manifest-override` (%s): recorded in the receipt",
                         c->manifest, note));
    }
    choose_url(ctx, o, sel.mirror, c->plan, c);
    choose_hash(ctx, o, c->plan, c, warnings);
    if (!c->cudnn_version || !c->cuda_variant || !c->platform || !c->relative_path || !c->url ||
        !c->file_name)
        rc = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
out:
    free(np.ver);
    free(np.plat);
    free(np.cuda);
    if (rc != CUDNNCTL_E_OK)
        cc_source_choice_free(c);
    return rc;
}
