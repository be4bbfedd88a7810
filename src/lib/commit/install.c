/* install.c: the install pipeline — plan → lock → recover → source (cache) → extract into
 * staging → verify → links → prepare checks → journaled commit → ldconfig → receipt. */
#include <stdlib.h>
#include <string.h>

#include "commit.h"
#include "content_policy.h"
#include "extract.h"
#include "install_internal.h"
#include "journal.h"
#include "links.h"
#include "lock.h"
#include "receipt.h"
#include "source.h"
#include "winenv.h"

/* Staging needs about twice the archive (xz packs cuDNN ~1.5:1; static libs compress better). */
#define SPACE_FACTOR 2
#define SPACE_MARGIN (16u << 20)

static void step(cudnnctl_ctx *ctx, cc_strv *steps, char *text)
{
    if (!text)
        return;
    cc_event(ctx, CUDNNCTL_EV_STEP, text, NULL);
    cc_strv_push_own(steps, text);
}

/* Canonical (links resolved inside --root) user-view path, and its real path. */
static cudnnctl_err resolve(cudnnctl_ctx *ctx, const char *given, char **shown, char **real)
{
    char *abs = cc_tx_absolute(given);
    char *rooted = abs ? cc_rooted(ctx, abs) : NULL;
    *shown = rooted ? cc_tx_canonical(ctx, rooted) : NULL;
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

static cudnnctl_err make_dest(cudnnctl_ctx *ctx, const cudnnctl_plan *p, const cc_source_choice *c,
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
    if ((rc = resolve(ctx, p->target_path, target_shown, &d->target)) != CUDNNCTL_E_OK)
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
            if ((rc = resolve(ctx, dirs[i], &shown, slots[i])) != CUDNNCTL_E_OK)
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

/* The receipt of the same version + digest already installed on this target, if any. */
static const cc_receipt *already(const cudnnctl_ctx *ctx, const cc_receipts *rs,
                                 const cc_source_choice *c, cudnnctl_target_mode mode,
                                 const char *target_shown, const char *install_dir_shown)
{
    if (!c->sha256)
        return NULL;
    for (size_t i = rs->n; i-- > 0;) {
        const cc_receipt *r = &rs->v[i];
        if (r->mode != mode || strcmp(r->target_path, target_shown) != 0)
            continue;
        if (mode == CUDNNCTL_TARGET_PREFIX &&
            (!r->install_dir || strcmp(r->install_dir, install_dir_shown) != 0))
            continue;
        int same = strcmp(r->cudnn_version, c->cudnn_version) == 0 && r->archive.sha256 &&
                   strcmp(r->archive.sha256, c->sha256) == 0 && intact(ctx, r);
        /* in a CUDA tree only the newest install on it is what is live */
        if (same || mode == CUDNNCTL_TARGET_CUDA_TREE)
            return same ? r : NULL;
    }
    return NULL;
}

/* A prefix install already there: make PREFIX/current name it (one journaled link flip). */
static cudnnctl_err switch_current(cudnnctl_ctx *ctx, const char *state, const cc_dest *d,
                                   cc_strv *steps)
{
    const char *want = cc_path_base(d->install_dir);
    char *now = cc_pf_readlink(d->current);
    int same = now && strcmp(now, want) == 0;
    free(now);
    if (same)
        return CUDNNCTL_E_OK;
    cc_obj_type old = cc_tx_kind(d->current);
    if (old != CC_OBJ_NONE && old != CC_OBJ_LINK)
        return CUDNNCTL_E_OK; /* not ours to replace; install --force handles it */
    cc_txn *t = NULL;
    cudnnctl_err rc = cc_txn_new(ctx, state, "switch", &t);
    if (rc != CUDNNCTL_E_OK)
        return rc;
    cc_op op = {0};
    op.kind = CC_OP_PLACE;
    op.type = CC_OBJ_LINK;
    op.dst = d->current;
    op.link_target = (char *)want;
    op.tmp = cc_txn_temp_name(t, d->current, "new");
    op.had_old = old != CC_OBJ_NONE;
    op.old_type = old;
    op.bak = op.had_old ? cc_txn_temp_name(t, d->current, "bak") : NULL;
    if (!op.tmp || (op.had_old && !op.bak))
        rc = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    if (rc == CUDNNCTL_E_OK)
        rc = cc_txn_add(ctx, t, &op);
    if (rc == CUDNNCTL_E_OK)
        rc = cc_txn_run(ctx, t);
    if (rc == CUDNNCTL_E_OK) {
        char *shown = cc_unrooted(ctx, d->current);
        step(ctx, steps, cc_asprintf("switch: %s -> %s", shown ? shown : d->current, want));
        free(shown);
    }
    free(op.tmp);
    free(op.bak);
    cc_txn_free(t);
    return rc;
}

static cudnnctl_err space_check(cudnnctl_ctx *ctx, const char *where, uint64_t archive_size)
{
    if (!archive_size)
        return CUDNNCTL_E_OK;
    char *p = cc_strdup(where);
    while (p && cc_tx_kind(p) == CC_OBJ_NONE && strcmp(p, "/") != 0) {
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

static cudnnctl_err permission_hint(cudnnctl_ctx *ctx, cudnnctl_err rc, const char *target)
{
    if (rc != CUDNNCTL_E_PERMISSION)
        return rc;
    cc_saved_err s;
    cc_err_save(ctx, &s);
    char *extra = cc_asprintf(". Writing to %s needs more rights: run as root (sudo cudnnctl "
                              "install ...) or install into a dir you own with --prefix DIR",
                              target);
    rc = cc_err_restore(ctx, &s, extra);
    free(extra);
    return rc;
}

static int ends_zip(const char *name)
{
    size_t n = strlen(name);
    return n > 4 && (strcmp(name + n - 4, ".zip") == 0 || strcmp(name + n - 4, ".ZIP") == 0);
}

/* Bytes → staging, verified. A mismatch leaves nothing but the quarantined download. */
static cudnnctl_err fetch_extract(cudnnctl_ctx *ctx, void *user, const cc_source_choice *c,
                                  const char *staging, cc_staging *st, char digest[65],
                                  uint64_t *size)
{
    const cudnnctl_install_opts *o = user;
    cc_source_opts so = {0};
    cc_source *src = NULL;
    cudnnctl_err rc;
    so.url = c->url;
    so.expected_sha256 = c->sha256;
    so.expected_size = c->size;
    so.cacert = o->cacert;
    so.insecure_skip_verify = c->sha256 ? 0 : 1;
    so.use_cache = !o->no_cache;
    /* into a CUDA tree only cuDNN's own files; bombs refused on their headers (extract.h) */
    cc_extract_opts xo = {.name_hint = c->file_name, .archive_size = c->size,
                          .max_unpacked = o->max_unpacked,
                          .content = c->plan->mode == CUDNNCTL_TARGET_CUDA_TREE
                                         ? CC_CONTENT_CUDA_TREE : CC_CONTENT_ANY};
    cc_pf_stat_t ast; /* a local archive the catalog does not size: its size on disk */
    if (!xo.archive_size && !strstr(c->url, "://") && cc_pf_stat(c->url, &ast) == 0 && ast.is_reg)
        xo.archive_size = ast.size;
    if ((rc = cc_source_open(ctx, &so, &src)) != CUDNNCTL_E_OK)
        return rc;
    if (ends_zip(c->file_name)) {
        /* a zip needs its central directory: download (hashed as it lands), then extract from
         * the verified file */
        rc = cc_source_finish(src, digest, size);
        char *path = rc == CUDNNCTL_E_OK && cc_source_path(src) ? cc_strdup(cc_source_path(src))
                                                                 : NULL;
        cc_source_close(src);
        if (rc != CUDNNCTL_E_OK)
            return rc;
        if (!path)
            CC_RET_ERR(ctx, CUDNNCTL_E_IO, "the downloaded zip has no path on disk");
        xo.path = path;
        rc = cc_extract_ex(ctx, &xo, staging, st);
        free(path);
        return rc;
    }
    xo.read_fn = cc_extract_source_read;
    xo.user = src;
    rc = cc_extract_ex(ctx, &xo, staging, st);
    if (rc != CUDNNCTL_E_OK) {
        /* a damaged or tampered download shows first as a bad archive: the digest says which */
        if (c->sha256) {
            cc_saved_err s;
            cc_err_save(ctx, &s);
            cudnnctl_err frc = cc_source_finish(src, digest, size);
            if (frc == CUDNNCTL_E_HASH_MISMATCH || frc == CUDNNCTL_E_SIZE_MISMATCH) {
                free(s.detail);
                rc = frc;
            } else {
                cc_err_restore(ctx, &s, NULL);
            }
        }
    } else {
        rc = cc_source_finish(src, digest, size);
    }
    cc_source_close(src);
    return rc;
}

static cudnnctl_err strv_out(cudnnctl_ctx *ctx, cc_strv *sv, char ***v, size_t *n)
{
    (void)ctx;
    *v = sv->v;
    *n = sv->n;
    sv->v = NULL;
    sv->n = sv->cap = 0;
    return CUDNNCTL_E_OK;
}

/* Windows: the registry environment an install into @p d sets (CUDA_PATH, CUDA_PATH_Vx_y for a
 * CUDA tree; PATH with the tree's bin (and bin\x64) or the prefix's bin first). dry: only
 * computed into *env_json (the receipt's "env" array); else written, *n_changed set. */
static cudnnctl_err wire_env(cudnnctl_ctx *ctx, const cudnnctl_install_opts *o,
                             const cudnnctl_plan *p, const cc_dest *d, int dry, char **env_json,
                             int *n_changed)
{
    cudnnctl_err rc = CUDNNCTL_E_OK;
    cc_strv bins = {0};
    cJSON *changes = cJSON_CreateArray();
    int tree = d->mode == CUDNNCTL_TARGET_CUDA_TREE;
    if (!changes)
        CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    if (tree)
        rc = cc_winenv_toolkit_bins(ctx, d->target, &bins);
    if (rc == CUDNNCTL_E_OK && d->bin_dir && cc_strv_push_own(&bins, cc_path_native(d->bin_dir)))
        rc = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    cc_winenv_want w = {0};
    w.system = o->system_env;
    w.toolkit = tree ? d->target : NULL;
    w.version = tree ? p->toolkit_version : NULL;
    w.bins = (const char *const *)bins.v;
    w.n_bins = bins.n;
    w.dry = dry;
    if (rc == CUDNNCTL_E_OK)
        rc = cc_winenv_apply(ctx, &w, changes, n_changed);
    if (rc == CUDNNCTL_E_OK && env_json && !(*env_json = cJSON_PrintUnformatted(changes)))
        rc = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    cJSON_Delete(changes);
    cc_strv_free(&bins);
    return rc;
}

cudnnctl_err cudnnctl_install(cudnnctl_ctx *ctx, cudnnctl_catalog *cat,
                              const cudnnctl_detect_result *det, const cudnnctl_install_opts *o,
                              cudnnctl_install_result **out)
{
    return cc_install_with(ctx, cat, det, o, fetch_extract, (void *)o, out);
}

cudnnctl_err cc_install_with(cudnnctl_ctx *ctx, cudnnctl_catalog *cat,
                             const cudnnctl_detect_result *det, const cudnnctl_install_opts *o,
                             cc_populate_fn populate, void *user, cudnnctl_install_result **out)
{
    uint64_t t0 = cc_pf_now_ms();
    cudnnctl_err rc = CUDNNCTL_E_OK;
    cc_strv steps = {0}, warnings = {0}, written = {0}, replaced = {0};
    cc_source_choice ch = {0};
    cc_lock lock = {-1, NULL};
    cc_txn *txn = NULL;
    cc_receipts rs = {0};
    cc_receipt rec = {0};
    cc_dest dest = {0};
    cc_tree tree = {0};
    cc_staging st = {0};
    char *state = NULL, *staging = NULL, *target_shown = NULL;
    const char *recovered = NULL;
    char digest[65] = {0};
    uint64_t got_size = 0;
    cudnnctl_install_result *res = calloc(1, sizeof(*res));
    *out = res;
    if (!res)
        CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    res->result = "failed";

    /* ---- plan and source (writes nothing) ---- */
    if ((rc = cc_install_choose(ctx, cat, det, o, &ch, &warnings)) != CUDNNCTL_E_OK)
        goto out;
    const cudnnctl_plan *p = ch.plan;
    res->cudnn_version = cc_strdup(ch.cudnn_version);
    res->cuda_variant = cc_strdup(ch.cuda_variant);
    res->platform = cc_strdup(ch.platform);
    res->archive.relative_path = cc_strdup(ch.relative_path);
    res->archive.url = strstr(ch.url, "://") ? cc_strdup(ch.url) : cc_unrooted(ctx, ch.url);
    res->archive.sha256 = ch.sha256 ? cc_strdup(ch.sha256) : NULL;
    res->archive.size = ch.size;
    res->archive.in_catalog = ch.in_catalog;
    res->archive.manifest = ch.manifest ? cc_strdup(ch.manifest) : NULL;
    res->mode = p->mode;
    if ((rc = make_dest(ctx, p, &ch, &dest, &target_shown)) != CUDNNCTL_E_OK)
        goto out;
    res->target_path = cc_strdup(target_shown);
    res->install_dir = cc_unrooted(ctx, dest.install_dir);
    res->lib_dir = cc_unrooted(ctx, dest.lib_dir);
    res->include_dir = cc_unrooted(ctx, dest.include_dir);
    res->bin_dir = p->bin_dir || strcmp(ch.platform, "windows-x86_64") == 0
                       ? cc_unrooted(ctx, dest.bin_dir)
                       : NULL;
    step(ctx, &steps,
         cc_asprintf("plan: cuDNN %s for CUDA %s (%s)%s%s", ch.cudnn_version, ch.cuda_variant,
                     ch.platform, p->reason ? ": " : "", p->reason ? p->reason : ""));
    step(ctx, &steps,
         cc_asprintf("source: %s (%s)", res->archive.url ? res->archive.url : ch.url,
                     ch.sha256 ? "SHA-256 checked while it streams" : "NOT VERIFIED"));
    if (o->dry_run) {
        for (size_t i = 0; i < p->n_warnings; i++)
            cc_strv_push(&warnings, p->warnings[i]);
        step(ctx, &steps,
             cc_asprintf("would extract into a staging dir next to %s, commit "
                         "through a journal, fix the .so links, write a receipt",
                         res->install_dir));
        res->result = "dry-run";
        goto out;
    }

    /* ---- lock, recovery, already installed? ---- */
    state = cc_state_dir(ctx);
    if (!state) {
        rc = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
        goto out;
    }
    if ((rc = cc_lock_acquire(ctx, state, &lock)) != CUDNNCTL_E_OK)
        goto out;
    if ((rc = cc_txn_recover(ctx, state, &recovered, NULL)) != CUDNNCTL_E_OK)
        goto out;
    if (recovered) {
        res->recovered = cc_strdup(recovered);
        cc_strv_push_own(
            &warnings,
            cc_asprintf("an interrupted cudnnctl run was found and %s",
                        strcmp(recovered, "finished") == 0 ? "finished" : "rolled back"));
    }
    if ((rc = cc_receipts_load(ctx, state, &rs)) != CUDNNCTL_E_OK)
        goto out;
    if (!o->force) {
        const cc_receipt *same = already(ctx, &rs, &ch, dest.mode, target_shown, res->install_dir);
        if (same && dest.mode == CUDNNCTL_TARGET_PREFIX &&
            (rc = switch_current(ctx, state, &dest, &steps)) != CUDNNCTL_E_OK)
            goto out;
        if (same) {
            res->result = "unchanged";
            res->receipt_id = cc_strdup(same->id);
            res->receipt_path = cc_unrooted(ctx, same->file);
            res->archive.verified = same->archive.verified;
            step(ctx, &steps,
                 cc_asprintf("unchanged: cuDNN %s (same SHA-256) is already installed in %s "
                             "(receipt %s); --force reinstalls",
                             ch.cudnn_version, res->install_dir, same->id));
            goto out;
        }
    }

    /* ---- prepare checks before anything is written ---- */
    if (dest.mode == CUDNNCTL_TARGET_CUDA_TREE && cc_tx_kind(dest.target) != CC_OBJ_DIR) {
        rc = CC_ERR(ctx, CUDNNCTL_E_NOT_FOUND,
                    "no CUDA tree at %s: install the toolkit first, name another with "
                    "--cuda-home DIR, or install into a prefix with --prefix DIR",
                    target_shown);
        goto out;
    }
    if ((rc = space_check(ctx, dest.target, ch.size)) != CUDNNCTL_E_OK)
        goto out;

    /* ---- the transaction: staging first (on the target's filesystem) ---- */
    if ((rc = cc_txn_new(ctx, state, "install", &txn)) != CUDNNCTL_E_OK)
        goto out;
    char *sname = cc_asprintf(
        dest.mode == CUDNNCTL_TARGET_PREFIX ? ".staging-%s" : ".cudnnctl-staging-%s", txn->id);
    staging = sname ? cc_path_join(dest.target, sname) : NULL;
    free(sname);
    rec.seq = cc_receipts_next_seq(&rs, state);
    rec.id = cc_asprintf("%06ld", rec.seq);
    txn->staging = staging ? cc_strdup(staging) : NULL;
    if (!staging || !rec.id || !txn->staging) {
        rc = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
        goto out;
    }
    if (dest.mode == CUDNNCTL_TARGET_PREFIX &&
        (rc = cc_commit_need_dir(ctx, txn, &rec, dest.target)) != CUDNNCTL_E_OK)
        goto out;
    if ((rc = cc_txn_save(ctx, txn)) != CUDNNCTL_E_OK)
        goto out;
    for (size_t i = 0; i < txn->mkdirs.n; i++)
        if (cc_tx_kind(txn->mkdirs.v[i]) != CC_OBJ_DIR &&
            cc_sys_mkdir(ctx, txn->mkdirs.v[i], 0755) != 0) {
            rc = permission_hint(ctx, CC_ERR_PF(ctx, "cannot create", txn->mkdirs.v[i]),
                                 target_shown);
            goto out;
        }
    if (cc_sys_mkdir(ctx, staging, 0755) != 0) {
        rc = permission_hint(ctx, CC_ERR_PF(ctx, "cannot create the staging dir", staging),
                             target_shown);
        goto out;
    }

    /* ---- fetch → verify → extract ---- */
    step(ctx, &steps, cc_asprintf("fetch + extract: %s", ch.file_name));
    if ((rc = populate(ctx, user, &ch, staging, &st, digest, &got_size)) != CUDNNCTL_E_OK)
        goto out;
    res->archive.verified = ch.sha256 != NULL;
    free(res->archive.sha256);
    res->archive.sha256 = cc_strdup(digest);
    res->archive.size = got_size;
    step(ctx, &steps,
         cc_asprintf("verify: sha256 %s, %llu bytes%s", digest, (unsigned long long)got_size,
                     ch.sha256 ? " (matches)" : " (NOT checked against anything)"));

    /* ---- the link chain and the SONAMEs, in staging ---- */
    char *slib = cc_path_join(staging, "lib");
    cc_strv made = {0};
    rc = slib ? cc_links_fix(ctx, slib, &made) : CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    free(slib);
    if (rc == CUDNNCTL_E_OK && made.n)
        step(ctx, &steps, cc_asprintf("links: %zu made or fixed in staging", made.n));
    cc_strv_free(&made);
    if (rc != CUDNNCTL_E_OK)
        goto out;
    if ((rc = cc_tree_scan(ctx, staging, &st, &tree)) != CUDNNCTL_E_OK)
        goto out;
    {
        char *sl = cc_path_join(staging, "lib"), *sb = cc_path_join(staging, "bin");
        int major = cc_links_major(sl, sb);
        free(sl);
        free(sb);
        if (major < 0) {
            rc = CC_ERR(ctx, CUDNNCTL_E_BAD_LAYOUT,
                        "%s holds no cuDNN library (no lib/libcudnn*.so* or bin/cudnn*.dll): "
                        "not a cuDNN archive",
                        ch.file_name);
            goto out;
        }
    }

    /* ---- plan the commit (conflicts found here, before the live tree is touched) ---- */
    rec.installed_at = cc_now_iso();
    rec.tool_version = cc_strdup(CUDNNCTL_VERSION_STRING);
    rec.cudnn_version = cc_strdup(ch.cudnn_version);
    rec.cuda_variant = cc_strdup(ch.cuda_variant);
    rec.platform = cc_strdup(ch.platform);
    rec.archive.relative_path = cc_strdup(ch.relative_path);
    rec.archive.url = cc_strdup(res->archive.url);
    rec.archive.sha256 = cc_strdup(digest);
    rec.archive.size = got_size;
    rec.archive.verified = ch.sha256 != NULL;
    rec.archive.in_catalog = ch.in_catalog;
    rec.archive.manifest = ch.manifest ? cc_strdup(ch.manifest) : NULL;
    rec.archive.manifest_sha256 = ch.manifest_sha256 ? cc_strdup(ch.manifest_sha256) : NULL;
    rec.archive.manifest_override = ch.manifest_override ? cc_strdup(ch.manifest_override) : NULL;
    rec.mode = dest.mode;
    rec.target_path = cc_strdup(target_shown);
    rec.install_dir = cc_unrooted(ctx, dest.install_dir);
    rec.lib_dir = cc_unrooted(ctx, dest.lib_dir);
    rec.include_dir = cc_unrooted(ctx, dest.include_dir);
    rec.bin_dir = res->bin_dir ? cc_strdup(res->bin_dir) : NULL;
    rec.doc_dir = cc_unrooted(ctx, dest.doc_dir);
    int env_on = !o->no_env && strcmp(cc_pf_os(), "windows") == 0;
    if (env_on) {
        /* the registry changes go into the receipt before the commit, made right after it */
        if ((rc = wire_env(ctx, o, p, &dest, 1, &rec.env_json, NULL)) != CUDNNCTL_E_OK)
            goto out;
    } else {
        rec.env_json = cc_strdup("[]");
    }
    char *rname = cc_asprintf("receipts/%s.json", rec.id);
    rec.file = rname ? cc_path_join(state, rname) : NULL;
    free(rname);
    if (!rec.installed_at || !rec.cudnn_version || !rec.target_path || !rec.install_dir ||
        !rec.file || !rec.env_json) {
        rc = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
        goto out;
    }
    cc_commit_in in = {staging, &tree, state, &rs, o->force, &warnings};
    rc = dest.mode == CUDNNCTL_TARGET_PREFIX ? cc_commit_prefix_plan(ctx, txn, &dest, &in, &rec)
                                             : cc_commit_tree_plan(ctx, txn, &dest, &in, &rec);
    if (rc != CUDNNCTL_E_OK)
        goto out;
    char *rjson = NULL;
    if ((rc = cc_receipt_to_json(ctx, &rec, &rjson)) != CUDNNCTL_E_OK)
        goto out;
    txn->receipt_json = rjson;
    txn->receipt_path = cc_strdup(rec.file);

    /* ---- commit ---- */
    size_t n_files = 0, n_links = 0, n_stale = 0;
    for (size_t i = 0; i < rec.n_entries; i++)
        *(rec.entries[i].type == CC_OBJ_LINK ? &n_links : &n_files) += 1;
    for (size_t i = 0; i < rec.n_replaced; i++)
        n_stale += strcmp(rec.replaced[i].reason, "stale") == 0;
    step(ctx, &steps,
         cc_asprintf("commit: %zu files and %zu links into %s (%zu replaced and kept as backups, "
                     "%zu stale sub-libraries moved out)",
                     n_files, n_links, res->install_dir, rec.n_replaced - n_stale, n_stale));
    rc = cc_txn_run(ctx, txn);
    if (rc != CUDNNCTL_E_OK && txn->phase != CC_PH_COMMITTED) {
        rc = permission_hint(ctx, rc, target_shown);
        cc_txn_free(txn); /* cc_txn_run rolled it back (or left the journal for the next run) */
        txn = NULL;
        goto out;
    }
    res->result = "installed"; /* the files are in place even if bookkeeping failed (JOURNAL) */
    cc_txn_free(txn);
    txn = NULL;
    res->receipt_id = cc_strdup(rec.id);
    res->receipt_path = cc_unrooted(ctx, rec.file);
    for (size_t i = 0; i < rec.n_entries; i++)
        cc_strv_push(&written, rec.entries[i].path);
    for (size_t i = 0; i < rec.n_replaced; i++)
        cc_strv_push(&replaced, rec.replaced[i].path);
    res->bytes_written = tree.bytes;
    if (env_on) {
        int n_env = 0;
        cc_saved_err se;
        cc_err_save(ctx, &se);
        if (wire_env(ctx, o, p, &dest, 0, NULL, &n_env) != CUDNNCTL_E_OK) {
            cc_strv_push_own(&warnings,
                             cc_asprintf("the environment was not updated: %s",
                                         cudnnctl_last_error(ctx)->detail));
            cc_err_restore(ctx, &se, NULL);
        } else {
            step(ctx, &steps,
                 cc_asprintf("environment: %d registry value(s) set in %s (CUDA_PATH, PATH)",
                             n_env, o->system_env ? CC_WINENV_SYSTEM_KEY : CC_WINENV_USER_KEY));
        }
    }
    cc_ldconfig(ctx, o->no_ldconfig, &res->ldconfig);
    step(ctx, &steps, cc_asprintf("ldconfig: %s", res->ldconfig ? res->ldconfig : "?"));
    step(ctx, &steps, cc_asprintf("receipt: %s", res->receipt_path ? res->receipt_path : "?"));

out:
    if (txn) {
        /* failed before the commit ran: remove staging and the journal, keep the error */
        if (rc != CUDNNCTL_E_OK)
            cc_txn_abort(ctx, txn, rc);
        cc_txn_free(txn);
    }
    if (lock.fd >= 0)
        cc_lock_release(ctx, &lock);
    res->error = rc;
    res->seconds = (double)(cc_pf_now_ms() - t0) / 1000.0;
    strv_out(ctx, &steps, &res->steps, &res->n_steps);
    strv_out(ctx, &warnings, &res->warnings, &res->n_warnings);
    strv_out(ctx, &written, &res->files_written, &res->n_files_written);
    strv_out(ctx, &replaced, &res->files_replaced, &res->n_files_replaced);
    cc_staging_free(&st);
    cc_tree_free(&tree);
    cc_receipt_free(&rec);
    cc_receipts_free(&rs);
    cc_dest_free(&dest);
    cc_source_choice_free(&ch);
    free(state);
    free(staging);
    free(target_shown);
    return rc;
}
