/* install_dest.c: where an install goes and what is already there — the destination paths,
 * the "already installed" check, the PREFIX/current switch, the space check, the permission
 * hint, and the Windows environment an install sets. Shared by the prepare and commit halves. */
#include <stdlib.h>
#include <string.h>

#include "direct.h"
#include "install_internal.h"
#include "winenv.h"

/* Staging needs about twice the archive (xz packs cuDNN ~1.5:1; static libs compress better). */
#define SPACE_FACTOR 2
#define SPACE_MARGIN (16u << 20)

void cc_install_step(cudnnctl_ctx *ctx, cc_strv *steps, char *text)
{
    if (!text)
        return;
    cc_event(ctx, CUDNNCTL_EV_STEP, text, NULL);
    cc_strv_push_own(steps, text);
}

/* Canonical (links resolved inside --root) user-view path, and its real path. */
static cudnnctl_err install_resolve(cudnnctl_ctx *ctx, const char *given, char **shown, char **real)
{
    char *abs = cc_txn_absolute(given);
    char *rooted = abs ? cc_rooted(ctx, abs) : NULL;
    *shown = rooted ? cc_txn_canonical(ctx, rooted) : NULL;
    *real = *shown ? cc_rooted(ctx, *shown) : NULL;
    free(abs);
    free(rooted);
    if (!*shown || !*real) {
        free(*shown);
        free(*real);
        *shown = *real = NULL;
        CC_RET_ERR(ctx, CUDNNCTL_E_NOT_FOUND, "cannot resolve %s (a link loop?)", given);
    }
    return CUDNNCTL_E_OK;
}

cudnnctl_err cc_install_dest(cudnnctl_ctx *ctx, const cudnnctl_plan *p, const cc_source_choice *c,
                              cc_dest *d, char **target_shown)
{
    cudnnctl_err rc;
    char *shown = NULL, *tmp = NULL;
    memset(d, 0, sizeof(*d));
    d->mode = p->mode;
    if (!p->target_path)
        CC_RET_ERR(ctx, CUDNNCTL_E_NO_TOOLKIT,
                   "no target: no CUDA toolkit was found; name one with --cuda-home DIR or "
                   "install into a prefix with --prefix DIR");
    if ((rc = install_resolve(ctx, p->target_path, target_shown, &d->target)) != CUDNNCTL_E_OK)
        return rc;
    if (p->mode == CUDNNCTL_TARGET_PREFIX) {
        char *name = cc_asprintf("cudnn-%s-cuda%s", c->cudnn_version, c->cuda_variant);
        d->install_dir = name ? cc_path_join(d->target, name) : NULL;
        free(name);
        d->include_dir = d->install_dir ? cc_path_join(d->install_dir, "include") : NULL;
        d->lib_dir = d->install_dir ? cc_path_join(d->install_dir, "lib") : NULL;
        d->bin_dir = d->install_dir ? cc_path_join(d->install_dir, "bin") : NULL;
        d->doc_dir = cc_strdup(d->install_dir);
        d->current = cc_path_join(d->target, "current");
        if (!d->install_dir || !d->include_dir || !d->lib_dir || !d->bin_dir || !d->doc_dir ||
            !d->current)
            goto oom;
        return CUDNNCTL_E_OK;
    }
    d->install_dir = cc_strdup(d->target);
    const char *dirs[3] = {p->include_dir, p->lib_dir, p->bin_dir};
    const char *dflt[3] = {"include", "lib64", "bin"};
    char **slots[3] = {&d->include_dir, &d->lib_dir, &d->bin_dir};
    for (int i = 0; i < 3; i++) {
        if (dirs[i]) {
            if ((rc = install_resolve(ctx, dirs[i], &shown, slots[i])) != CUDNNCTL_E_OK)
                return rc;
            free(shown);
            shown = NULL;
        } else {
            tmp = cc_path_join(d->target, dflt[i]);
            *slots[i] = tmp;
            tmp = NULL;
        }
        if (!*slots[i])
            goto oom;
    }
    d->doc_dir = cc_path_join3(d->target, "share/doc", "cudnn");
    if (!d->install_dir || !d->doc_dir)
        goto oom;
    return CUDNNCTL_E_OK;
oom:
    CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
}

/* The receipt's files are all still there as installed (size / link target)? */
static int intact(const cudnnctl_ctx *ctx, const cc_receipt *r)
{
    for (size_t i = 0; i < r->n_entries; i++) {
        const cc_rentry *e = &r->entries[i];
        if (r->current_link && strcmp(e->path, r->current_link) == 0)
            continue; /* PREFIX/current moves between installs by design */
        char *real = cc_rooted(ctx, e->path);
        cc_pf_stat_t st;
        int ok = real && cc_pf_lstat(real, &st) == 0 && st.exists;
        if (ok && e->type == CC_OBJ_LINK) {
            char *t = st.is_link ? cc_pf_readlink(real) : NULL;
            ok = t && strcmp(t, e->link_target) == 0;
            free(t);
        } else if (ok) {
            ok = st.is_reg && st.size == e->size;
        }
        free(real);
        if (!ok)
            return 0;
    }
    return 1;
}

/* A receipt of this target (and, for a prefix, of this version dir)? */
static int on_target(const cc_receipt *r, cudnnctl_target_mode mode, const char *target_shown,
                     const char *install_dir_shown)
{
    if (r->mode != mode || strcmp(r->target_path, target_shown) != 0)
        return 0;
    return mode != CUDNNCTL_TARGET_PREFIX ||
           (r->install_dir && strcmp(r->install_dir, install_dir_shown) == 0);
}

static int same_build(const cudnnctl_ctx *ctx, const cc_receipt *r, const cc_source_choice *c)
{
    return strcmp(r->cudnn_version, c->cudnn_version) == 0 && r->archive.sha256 &&
           strcmp(r->archive.sha256, c->sha256) == 0 && intact(ctx, r);
}

/* The newest receipt of the same version + digest on this target, if any, and in *have the
 * components that it and the receipts of the same build before it (an install that added
 * components) placed. In a CUDA tree only the newest install on it is what is live. */
const cc_receipt *cc_install_already(const cudnnctl_ctx *ctx, const cc_receipts *rs,
                                     const cc_source_choice *c, cudnnctl_target_mode mode,
                                     const char *target_shown, const char *install_dir_shown,
                                     cudnnctl_components *have)
{
    const cc_receipt *newest = NULL;
    *have = 0;
    if (!c->sha256)
        return NULL;
    for (size_t i = rs->n; i-- > 0;) {
        const cc_receipt *r = &rs->v[i];
        if (!on_target(r, mode, target_shown, install_dir_shown))
            continue;
        int same = same_build(ctx, r, c);
        if (same) {
            newest = newest ? newest : r;
            *have |= r->components ? r->components : CUDNNCTL_COMPONENTS_ALL;
        }
        if (!same && (newest || mode == CUDNNCTL_TARGET_CUDA_TREE))
            break; /* the chain of this build ends (in a tree: another build is live) */
    }
    return newest;
}

cudnnctl_err cc_install_flavor_check(cudnnctl_ctx *ctx, const cc_receipts *rs,
                                     const cc_source_choice *c, cudnnctl_target_mode mode,
                                     const char *target_shown, const char *install_dir_shown,
                                     int force, cc_strv *warnings)
{
    const cc_receipt *live = NULL;
    for (size_t i = rs->n; i-- > 0 && !live;)
        if (on_target(&rs->v[i], mode, target_shown, install_dir_shown))
            live = &rs->v[i];
    if (!live || live->flavor == c->flavor)
        return CUDNNCTL_E_OK;
    const char *was = cudnnctl_flavor_name(live->flavor), *now = cudnnctl_flavor_name(c->flavor);
    const char *where = mode == CUDNNCTL_TARGET_PREFIX ? install_dir_shown : target_shown;
    if (!force)
        CC_RET_ERR(ctx, CUDNNCTL_E_CONFLICT,
                   "%s holds the %s flavour of cuDNN %s (receipt %s); the %s flavour there would "
                   "replace it, never mix with it (the two ship files of the same names, and "
                   "the JIT one lacks libcudnn_ops/_cnn/_adv): replace it knowingly with --force "
                   "(its files are kept as backups; rollback brings them back), or install the "
                   "%s flavour into another target (--prefix DIR)",
                   where, was, live->cudnn_version, live->id, now, now);
    char *w = cc_asprintf("--force: the %s flavour of cuDNN %s in %s (receipt %s) is replaced by "
                          "the %s flavour (what it has that this one lacks is moved out and kept "
                          "as a backup)",
                          was, live->cudnn_version, where, live->id, now);
    if (w)
        cc_event(ctx, CUDNNCTL_EV_WARNING, w, NULL);
    cc_strv_push_own(warnings, w);
    return CUDNNCTL_E_OK;
}

cudnnctl_err cc_install_space_check(cudnnctl_ctx *ctx, const char *where, uint64_t archive_size)
{
    if (!archive_size)
        return CUDNNCTL_E_OK;
    char *p = cc_strdup(where);
    while (p && cc_txn_kind(p) == CC_OBJ_NONE && strcmp(p, "/") != 0) {
        char *up = cc_path_dir(p);
        free(p);
        p = up;
    }
    uint64_t avail = 0;
    cudnnctl_err rc = CUDNNCTL_E_OK;
    uint64_t need = archive_size * SPACE_FACTOR + SPACE_MARGIN;
    if (p && cc_pf_free_space(p, &avail) == 0 && avail < need) {
        char *s = cc_unrooted(ctx, p);
        rc = CC_ERR(ctx, CUDNNCTL_E_NO_SPACE,
                    "installing needs about %llu MiB free on the filesystem of %s (staging and "
                    "the installed files); it has %llu MiB. Free some space or install elsewhere "
                    "with --prefix DIR",
                    (unsigned long long)(need >> 20), s ? s : p, (unsigned long long)(avail >> 20));
        free(s);
    }
    free(p);
    return rc;
}

cudnnctl_err cc_install_perm_hint(cudnnctl_ctx *ctx, cudnnctl_err rc, const char *target)
{
    if (rc != CUDNNCTL_E_PERMISSION)
        return rc;
    cc_saved_err s;
    cc_err_save(ctx, &s);
    char *real = cc_rooted(ctx, target);
    char *fix = real ? cc_write_fix(ctx, real, "--prefix DIR") : NULL;
    char *extra = cc_asprintf(". Writing to %s failed: %s", target, fix ? fix : "");
    rc = cc_err_restore(ctx, &s, extra);
    free(extra);
    free(fix);
    free(real);
    return rc;
}

/* A prefix without PREFIX/current (direct.h): Path names the version dir, the others' dropped. */
static cudnnctl_err wire_direct(cudnnctl_ctx *ctx, const cudnnctl_install_opts *o,
                                const cc_dest *d, int dry, cJSON *changes, int *n_changed)
{
    char *px = cc_unrooted(ctx, d->target), *v = cc_unrooted(ctx, d->install_dir);
    cudnnctl_err rc = px && v ? cc_direct_wire(ctx, px, v, o->system_env, dry, changes, n_changed)
                              : CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    free(px);
    free(v);
    return rc;
}

/* Windows: the registry environment an install into @p d sets (CUDA_PATH, CUDA_PATH_Vx_y for a
 * CUDA tree; PATH with the tree's bin (and bin\x64) or the prefix's bin first). dry: only
 * computed into *env_json (the receipt's "env" array); else written, *n_changed set. */
cudnnctl_err cc_install_wire_env(cudnnctl_ctx *ctx, const cudnnctl_install_opts *o,
                             const cudnnctl_plan *p, const cc_dest *d, int dry, char **env_json,
                             int *n_changed)
{
    cudnnctl_err rc = CUDNNCTL_E_OK;
    cc_strv bins = {0};
    cJSON *changes = cJSON_CreateArray();
    int tree = d->mode == CUDNNCTL_TARGET_CUDA_TREE;
    if (!changes)
        CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    if (d->direct) {
        rc = wire_direct(ctx, o, d, dry, changes, n_changed);
    } else {
        rc = cc_winenv_install_bins(ctx, tree, d->target, d->current, d->bin_dir, &bins);
        cc_winenv_want w = {0};
        w.system = o->system_env;
        w.toolkit = tree ? d->target : NULL;
        w.version = tree ? p->toolkit_version : NULL;
        w.bins = (const char *const *)bins.v;
        w.n_bins = bins.n;
        w.dry = dry;
        if (rc == CUDNNCTL_E_OK)
            rc = cc_winenv_apply(ctx, &w, changes, n_changed);
    }
    if (rc == CUDNNCTL_E_OK && env_json && !(*env_json = cJSON_PrintUnformatted(changes)))
        rc = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    cJSON_Delete(changes);
    cc_strv_free(&bins);
    return rc;
}

void cc_dest_free(cc_dest *d)
{
    free(d->target);
    free(d->install_dir);
    free(d->include_dir);
    free(d->lib_dir);
    free(d->bin_dir);
    free(d->doc_dir);
    free(d->current);
    memset(d, 0, sizeof(*d));
}
