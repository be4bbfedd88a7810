/* install_prepare.c: the prepare half of an install (cudnnctl_install_prepare), along the old
 * pipeline's own sections: plan and source → lock, recovery, "already installed?" → checks →
 * staging → fetch + verify + extract → links in staging → the commit planned and the receipt
 * written out (not yet placed). Nothing here changes what a reader of the target sees. */
#include <stdlib.h>
#include <string.h>

#include "buildmeta.h"
#include "direct.h"
#include "freeall.h"
#include "install_internal.h"
#include "install_wheel.h"
#include "wheels.h"
#include "journal.h"
#include "links.h"
#include "owners.h"
#include "receipt.h"

#define STEP(h, ...) cc_install_step(ctx, &(h)->steps, cc_asprintf(__VA_ARGS__))

/* ---- plan and source (writes nothing) ---- */
/* A dry run into a CUDA tree names the cuDNN files there that no receipt owns: the real run
 * would stop at them without --force (foreign.c), and a check mode must not promise a change
 * that then fails. A warning each way: with --force they would be replaced knowingly. */
static cudnnctl_err dry_run_foreign(cudnnctl_ctx *ctx, cudnnctl_install_handle *h)
{
    cc_strv found = {0};
    if (cc_commit_foreign_predict(ctx, &h->rs, &h->dest, &found) != CUDNNCTL_E_OK) {
        cc_strv_free(&found);
        return ctx->err.code;
    }
    for (size_t i = 0; i < found.n; i++) {
        char *w = h->opts.force
                      ? cc_asprintf("--force: would replace %s, which no cudnnctl receipt owns "
                                    "(kept as a backup; uninstall puts it back)",
                                    found.v[i])
                      : cc_asprintf("a real install would stop at %s: no cudnnctl receipt owns "
                                    "it (a distro package's or a manual copy?); remove it (or "
                                    "its package) first, or replace it knowingly with --force",
                                    found.v[i]);
        if (!w || cc_strv_push_own(&h->warnings, w) != 0) {
            cc_strv_free(&found);
            CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
        }
    }
    cc_strv_free(&found);
    return CUDNNCTL_E_OK;
}

/* The same build is installed with fewer components: this install extracts only the missing
 * ones and places them beside what is there (which it leaves as it is). */
static void prep_add(cudnnctl_ctx *ctx, cudnnctl_install_handle *h, const cc_receipt *same,
                     cudnnctl_components have)
{
    char had[40], adds[40];
    h->ch.have = have;
    h->ch.components &= ~have;
    h->res->components = h->ch.components;
    h->res->components_installed = h->ch.components | have;
    cudnnctl_components_text(have, had, sizeof(had));
    cudnnctl_components_text(h->ch.components, adds, sizeof(adds));
    STEP(h,
         "add: cuDNN %s in %s has the components %s (receipt %s); this install adds %s and "
         "leaves those as they are",
         h->ch.cudnn_version, h->res->install_dir, had, same->id, adds);
}

/* Could this process write at path, as the real run would (creating what is missing)? OK, or
 * the error the real run would end with, with the fix that fits (write_fix.c). */
static cudnnctl_err dry_writable(cudnnctl_ctx *ctx, const char *path, const char *what,
                                 const char *choose)
{
    cc_pf_stat_t st;
    char *have = path ? cc_deepest_existing(path, &st) : NULL;
    int w = !have ? -1 : !st.is_dir ? 0 : cc_pf_dir_writable(have);
    cudnnctl_err rc = CUDNNCTL_E_OK;
    if (w == 0) {
        char *why = cc_strdup(st.is_dir ? cc_pf_last_error_text() : "not a directory");
        char *fix = cc_write_fix(ctx, path, choose);
        char *shown = cc_unrooted(ctx, have);
        rc = CC_ERR(ctx, st.is_dir ? CUDNNCTL_E_PERMISSION : CUDNNCTL_E_IO,
                    "--dry-run: the real install would fail: it writes %s in %s, and %s cannot "
                    "be written (%s); %s",
                    what, shown ? shown : have, shown ? shown : have, why ? why : "",
                    fix ? fix : "");
        free(why);
        free(fix);
        free(shown);
    }
    free(have);
    return rc;
}

/* Every place the real run writes: the state dir (lock, journal, receipt), the target (its lock
 * and staging dir, a prefix's version dir; a tree's include and lib dirs) and, for a download,
 * the cache. Nothing is written beside the target (docs/security.md). */
static cudnnctl_err dry_run_writable(cudnnctl_ctx *ctx, cudnnctl_install_handle *h)
{
    char *state = cc_state_dir(ctx);
    const char *u = h->ch.url;
    int download = u && strstr(u, "://") && !cc_str_starts(u, "file://");
    char *cache = download ? cc_cache_dir(ctx) : NULL;
    int tree = h->dest.mode == CUDNNCTL_TARGET_CUDA_TREE;
    const char *choose = tree ? "--cuda-home DIR or --prefix DIR" : "--prefix DIR";
    cudnnctl_err rc = CUDNNCTL_E_OK;
    if (!state || (download && !cache))
        rc = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    if (rc == CUDNNCTL_E_OK)
        rc = dry_writable(ctx, state, "its lock, journal and receipt", "--state-dir DIR");
    if (rc == CUDNNCTL_E_OK)
        rc = dry_writable(ctx, h->dest.target, "the target's lock and staging", choose);
    if (rc == CUDNNCTL_E_OK)
        rc = dry_writable(ctx, tree ? h->dest.lib_dir : h->dest.target, "the libraries", choose);
    if (rc == CUDNNCTL_E_OK && tree)
        rc = dry_writable(ctx, h->dest.include_dir, "the headers", choose);
    if (rc == CUDNNCTL_E_OK && download)
        rc = dry_writable(ctx, cache, "the download", "--cache-dir DIR");
    free(state);
    free(cache);
    return rc;
}

/* A dry run stops after the plan: step 5 of a real run, read only (no lock, no recovery). The
 * same install already there -> "unchanged" (not with --force), so a check mode (Ansible
 * --check) predicts no change; into a CUDA tree, the files a real run would stop at. */
static cudnnctl_err prep_dry_run(cudnnctl_ctx *ctx, cudnnctl_install_handle *h)
{
    cudnnctl_install_result *res = h->res;
    const cc_source_choice *ch = &h->ch;
    const cudnnctl_plan *p = ch->plan;
    for (size_t i = 0; i < p->n_warnings; i++)
        cc_strv_push(&h->warnings, p->warnings[i]);
    STEP(h,
         "would extract into a staging dir next to %s, commit through a journal, fix the .so "
         "links, write a receipt",
         res->install_dir);
    res->result = CUDNNCTL_INSTALL_DRY_RUN;
    cudnnctl_err rc = dry_run_writable(ctx, h);
    if (rc != CUDNNCTL_E_OK)
        return rc;
    char *state = cc_state_dir(ctx);
    rc = state ? cc_receipts_load(ctx, state, &h->rs) : ctx->err.code;
    free(state);
    if (rc != CUDNNCTL_E_OK && h->opts.force)
        return rc; /* without --force an unreadable state only means "not unchanged" */
    if (rc == CUDNNCTL_E_OK &&
        (rc = cc_install_flavor_check(ctx, &h->rs, ch, h->dest.mode, h->target_shown,
                                      res->install_dir, h->opts.force, &h->warnings)) !=
            CUDNNCTL_E_OK)
        return rc; /* what the real run would stop at */
    cudnnctl_components have = 0;
    const cc_receipt *same =
        rc == CUDNNCTL_E_OK && !h->opts.force
            ? cc_install_already(ctx, &h->rs, ch, h->dest.mode, h->target_shown,
                                 res->install_dir, &have)
            : NULL;
    if (same && (ch->components & ~have)) {
        prep_add(ctx, h, same, have);
        same = NULL;
    }
    if (same) {
        res->result = CUDNNCTL_INSTALL_UNCHANGED;
        res->receipt_id = cc_strdup(same->id);
        STEP(h, "unchanged: cuDNN %s (same SHA-256) is already installed in %s (receipt %s); "
                "--force reinstalls",
             ch->cudnn_version, res->install_dir, same->id);
        return CUDNNCTL_E_OK;
    }
    return h->dest.mode == CUDNNCTL_TARGET_CUDA_TREE ? dry_run_foreign(ctx, h) : CUDNNCTL_E_OK;
}

/* What the selection costs: the download (the whole archive) and what it installs. */
static void size_step(cudnnctl_ctx *ctx, cudnnctl_install_handle *h)
{
    const cudnnctl_plan *p = h->ch.plan;
    cudnnctl_sizes z;
    char dl[32], inst[32], comp[40];
    cudnnctl_archive_sizes(&p->archive, h->ch.components, &z);
    cudnnctl_size_text((double)(h->ch.size ? h->ch.size : z.download), dl, sizeof(dl));
    cudnnctl_size_text((double)z.installed, inst, sizeof(inst));
    cudnnctl_components_text(z.selected, comp, sizeof(comp));
    if (z.known == z.selected)
        STEP(h, "size: download %s (the whole archive); %s flavour, components %s install %s "
                "(measured from %s)",
             dl, cudnnctl_flavor_name(h->ch.flavor), comp, inst, z.source);
    else
        STEP(h, "size: download %s (the whole archive); %s flavour, components %s: installed "
                "size %s%s%s",
             dl, cudnnctl_flavor_name(h->ch.flavor), comp, z.known ? "at least " : "not measured",
             z.known ? inst : "", z.known ? " (static not measured)" : "");
}

/* A selection (--cudnn 9, 9.19, none), not one build: an old catalog may not know the newest
 * release; past CUDNNCTL_CATALOG_STALE_DAYS that is worth a warning naming `cudnnctl update`. */
static void stale_warning(cudnnctl_ctx *ctx, cudnnctl_install_handle *h)
{
    const char *pin = h->opts.selection.cudnn;
    cc_version v;
    cudnnctl_catalog_info ci;
    if (h->opts.archive || (pin && cc_version_parse(pin, &v) == 0 && v.n >= 4))
        return;
    if (cudnnctl_catalog_info_get(ctx, &ci) != CUDNNCTL_E_OK) {
        cc_clear_error(ctx); /* the store's own warning says what is wrong with it */
        return;
    }
    if (ci.age_days > CUDNNCTL_CATALOG_STALE_DAYS) {
        char *w = ci.updated_at
                      ? cc_asprintf("the catalog is %ld days old (`cudnnctl update` last ran %s): "
                                    "--cudnn %s may miss a newer release; run `cudnnctl update`, "
                                    "or pin one build (--cudnn %s)",
                                    ci.age_days, ci.updated_at, pin ? pin : "(any)",
                                    h->ch.cudnn_version)
                      : cc_asprintf("the catalog is %ld days old (never updated; its newest "
                                    "manifest, %s, is of %s): --cudnn %s may miss a newer "
                                    "release; run `cudnnctl update`, or pin one build (--cudnn "
                                    "%s)",
                                    ci.age_days, ci.embedded_newest,
                                    ci.embedded_date ? ci.embedded_date : "?", pin ? pin : "(any)",
                                    h->ch.cudnn_version);
        if (w)
            cc_event(ctx, CUDNNCTL_EV_WARNING, w, NULL);
        cc_strv_push_own(&h->warnings, w);
    }
    cudnnctl_catalog_info_clear(&ci);
}

static cudnnctl_err prep_plan(cudnnctl_ctx *ctx, cudnnctl_catalog *cat,
                              const cudnnctl_detect_result *det, cudnnctl_install_handle *h)
{
    cudnnctl_install_result *res = h->res;
    cc_source_choice *ch = &h->ch;
    cudnnctl_err rc = cc_install_choose(ctx, cat, det, &h->opts, ch, &h->warnings);
    if (rc != CUDNNCTL_E_OK)
        return rc;
    cc_wheel_direct(ctx, &h->opts, ch); /* an --index-url of PEP 691: no pip needed */
    const cudnnctl_plan *p = ch->plan;
    res->cudnn_version = cc_strdup(ch->cudnn_version);
    res->cuda_variant = cc_strdup(ch->cuda_variant);
    res->platform = cc_strdup(ch->platform);
    res->archive.relative_path = cc_strdup(ch->relative_path);
    if (ch->via_pip) /* where the bytes come from: pip, through the index it uses */
        res->archive.url = cc_asprintf("pip:%s==%s%s%s", ch->wheel->pub.package,
                                       ch->wheel->pub.version, h->opts.index_url ? "@" : "",
                                       h->opts.index_url ? h->opts.index_url : "");
    else
        res->archive.url = strstr(ch->url, "://") ? cc_strdup(ch->url) : cc_unrooted(ctx, ch->url);
    res->source = cc_strdup(ch->wheel ? "wheel" : "archive");
    res->source_reason = ch->source_why ? cc_strdup(ch->source_why) : NULL;
    res->archive.sha256 = ch->sha256 ? cc_strdup(ch->sha256) : NULL;
    res->archive.size = ch->size;
    res->archive.in_catalog = ch->in_catalog;
    res->archive.manifest = ch->manifest ? cc_strdup(ch->manifest) : NULL;
    res->archive.manifest_sha256 = ch->manifest_sha256 ? cc_strdup(ch->manifest_sha256) : NULL;
    res->archive.manifest_override =
        ch->manifest_override ? cc_strdup(ch->manifest_override) : NULL;
    res->flavor = ch->flavor;
    res->components = res->components_installed = ch->components;
    res->mode = p->mode;
    if ((rc = cc_install_dest(ctx, p, ch, &h->dest, &h->target_shown)) != CUDNNCTL_E_OK)
        return rc;
    if (h->opts.link_mode == CUDNNCTL_LINK_HARDLINK && p->mode == CUDNNCTL_TARGET_CUDA_TREE)
        CC_RET_ERR(ctx, CUDNNCTL_E_USAGE,
                   "--link-mode hardlink cannot install into a CUDA tree (%s): its files would "
                   "be the store's own, and a toolkit's files are replaced in place by other "
                   "tools (a package update); use --link-mode copy (or reflink), or install "
                   "into a prefix with --prefix DIR",
                   h->target_shown);
    res->target_path = cc_strdup(h->target_shown);
    res->install_dir = cc_unrooted(ctx, h->dest.install_dir);
    res->lib_dir = cc_unrooted(ctx, h->dest.lib_dir);
    res->include_dir = cc_unrooted(ctx, h->dest.include_dir);
    res->bin_dir = p->bin_dir || strcmp(ch->platform, "windows-x86_64") == 0
                       ? cc_unrooted(ctx, h->dest.bin_dir)
                       : NULL;
    STEP(h, "plan: cuDNN %s for CUDA %s (%s)%s%s", ch->cudnn_version, ch->cuda_variant,
         ch->platform, p->reason ? ": " : "", p->reason ? p->reason : "");
    STEP(h, "source: %s%s%s (%s)", res->archive.url ? res->archive.url : ch->url,
         ch->source_why ? ": " : "", ch->source_why ? ch->source_why : "",
         ch->sha256 ? (ch->wheel ? "SHA-256 from the wheel catalog, checked again here"
                                 : "SHA-256 checked while it streams")
                    : "NOT VERIFIED");
    size_step(ctx, h);
    stale_warning(ctx, h);
    return h->opts.dry_run ? prep_dry_run(ctx, h) : CUDNNCTL_E_OK;
}

/* ---- lock, recovery, already installed? (*done: nothing left to do) ---- */
static cudnnctl_err prep_state(cudnnctl_ctx *ctx, cudnnctl_install_handle *h, int *done)
{
    cudnnctl_install_result *res = h->res;
    const char *recovered = NULL;
    cudnnctl_err rc;
    *done = 0;
    if (!(h->state = cc_state_dir(ctx)))
        CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    if ((rc = cc_lock_acquire(ctx, h->state, "install", &h->lock)) != CUDNNCTL_E_OK ||
        (rc = cc_lock_target(ctx, h->dest.target, "install", &h->tlock)) != CUDNNCTL_E_OK)
        return rc;
    if ((rc = cc_txn_recover(ctx, h->state, &recovered, NULL)) != CUDNNCTL_E_OK)
        return rc;
    if (recovered) {
        res->recovered = cc_strdup(recovered);
        cc_strv_push_own(&h->warnings,
                         cc_asprintf("an interrupted cudnnctl run was found and %s",
                                     strcmp(recovered, "finished") == 0 ? "finished"
                                                                        : "rolled back"));
    }
    if ((rc = cc_receipts_load(ctx, h->state, &h->rs)) != CUDNNCTL_E_OK ||
        (rc = cc_install_flavor_check(ctx, &h->rs, &h->ch, h->dest.mode, h->target_shown,
                                      res->install_dir, h->opts.force, &h->warnings)) !=
            CUDNNCTL_E_OK ||
        h->opts.force)
        return rc;
    cudnnctl_components have = 0;
    const cc_receipt *same = cc_install_already(ctx, &h->rs, &h->ch, h->dest.mode,
                                                h->target_shown, res->install_dir, &have);
    if (!same)
        return CUDNNCTL_E_OK;
    if (h->ch.components & ~have) {
        prep_add(ctx, h, same, have);
        return CUDNNCTL_E_OK;
    }
    if (cc_ask(ctx, CUDNNCTL_Q_REINSTALL, 0,
               "cuDNN %s (same SHA-256) is already installed in %s (receipt %s): reinstall it?",
               h->ch.cudnn_version, res->install_dir, same->id))
        return CUDNNCTL_E_OK;
    int flipped = 0;
    if (h->dest.mode == CUDNNCTL_TARGET_PREFIX && same->direct)
        rc = cc_direct_switch(ctx, h->state, &h->rs, same, &flipped, &h->steps);
    else if (h->dest.mode == CUDNNCTL_TARGET_PREFIX)
        rc = cc_switch_current(ctx, h->state, h->dest.current, cc_path_base(h->dest.install_dir),
                               &flipped, &h->steps);
    if (rc != CUDNNCTL_E_OK)
        return rc;
    /* nothing was downloaded or hashed now: say when it was */
    res->result = flipped ? CUDNNCTL_INSTALL_SWITCHED : CUDNNCTL_INSTALL_UNCHANGED;
    res->receipt_id = cc_strdup(same->id);
    res->receipt_path = cc_unrooted(ctx, same->file);
    res->archive.verified = same->archive.verified;
    res->verified_at = same->installed_at ? cc_strdup(same->installed_at) : NULL;
    STEP(h,
         "%s: cuDNN %s (same SHA-256) is already installed in %s (receipt %s, verified at "
         "install %s); --force reinstalls",
         flipped ? "switched" : "unchanged", h->ch.cudnn_version, res->install_dir, same->id,
         same->installed_at ? same->installed_at : "?");
    *done = 1;
    return CUDNNCTL_E_OK;
}

/* ---- checks before anything is written, then the transaction's staging dir ---- */
static cudnnctl_err prep_staging(cudnnctl_ctx *ctx, cudnnctl_install_handle *h)
{
    cudnnctl_err rc;
    cc_dest *d = &h->dest;
    if (d->mode == CUDNNCTL_TARGET_CUDA_TREE && cc_txn_kind(d->target) != CC_OBJ_DIR)
        CC_RET_ERR(ctx, CUDNNCTL_E_NOT_FOUND,
                   "no CUDA tree at %s: install the toolkit first, name another with "
                   "--cuda-home DIR, or install into a prefix with --prefix DIR",
                   h->target_shown);
    if ((rc = cc_install_space_check(ctx, d->target, h->ch.size)) != CUDNNCTL_E_OK)
        return rc;
    if ((rc = cc_txn_new(ctx, h->state, d->target, "install", &h->txn)) != CUDNNCTL_E_OK)
        return rc;
    char *sname = cc_asprintf(
        d->mode == CUDNNCTL_TARGET_PREFIX ? ".staging-%s" : ".cudnnctl-staging-%s", h->txn->id);
    h->staging = sname ? cc_path_join(d->target, sname) : NULL;
    free(sname);
    h->rec.seq = cc_receipts_next_seq(&h->rs, h->state);
    h->rec.id = cc_asprintf("%06ld", h->rec.seq);
    h->txn->staging = h->staging ? cc_strdup(h->staging) : NULL;
    if (!h->staging || !h->rec.id || !h->txn->staging)
        CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    if (d->mode == CUDNNCTL_TARGET_PREFIX && h->tlock.rmdir_if_empty) {
        /* the target lock (inside the prefix) made the prefix dir for this install: it is the
         * install's, as if made at the commit */
        char *shown = cc_unrooted(ctx, d->target);
        if (!shown || cc_strv_push(&h->txn->mkdirs, d->target) != 0 ||
            cc_strv_push_own(&h->rec.dirs_created, shown) != 0)
            CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    }
    if (d->mode == CUDNNCTL_TARGET_PREFIX &&
        (rc = cc_commit_need_dir(ctx, h->txn, &h->rec, d->target)) != CUDNNCTL_E_OK)
        return rc;
    if ((rc = cc_txn_save(ctx, h->txn)) != CUDNNCTL_E_OK)
        return rc;
    for (size_t i = 0; i < h->txn->mkdirs.n; i++)
        if (cc_txn_kind(h->txn->mkdirs.v[i]) != CC_OBJ_DIR &&
            cc_sys_mkdir(ctx, h->txn->mkdirs.v[i], 0755) != 0)
            return cc_install_perm_hint(ctx, CC_ERR_PF(ctx, "cannot create", h->txn->mkdirs.v[i]),
                                        h->target_shown);
    if (cc_sys_mkdir(ctx, h->staging, 0755) != 0)
        return cc_install_perm_hint(
            ctx, CC_ERR_PF(ctx, "cannot create the staging dir", h->staging), h->target_shown);
    /* can the prefix's filesystem hold PREFIX/current? (no: direct.h) */
    return d->mode == CUDNNCTL_TARGET_PREFIX ? cc_direct_probe(ctx, h->staging, &d->direct)
                                             : CUDNNCTL_E_OK;
}

/* The include dir of the toolkit a prefix install is for: the plan's toolkit, else the active
 * one of that CUDA major, else the newest of it; only from a detect of the same platform. */
static char *toolkit_include(const cudnnctl_detect_result *det, const cc_source_choice *ch)
{
    const cudnnctl_toolkit *best = NULL;
    int major = atoi(ch->cuda_variant ? ch->cuda_variant : "");
    const char *want = ch->plan ? ch->plan->toolkit_version : NULL;
    if (!det || !det->platform || !ch->platform || strcmp(det->platform, ch->platform) != 0)
        return NULL;
    for (size_t i = 0; i < det->n_toolkits; i++) {
        const cudnnctl_toolkit *t = &det->toolkits[i];
        if (t->major != major || !t->path)
            continue;
        if (want && t->version && strcmp(t->version, want) == 0)
            return cc_path_join(t->path, "include");
        if (!best || (t->active && !best->active) ||
            (t->active == best->active && t->minor > best->minor))
            best = t;
    }
    return best ? cc_path_join(best->path, "include") : NULL;
}

/* pkg-config files and a CMake package into staging: staged files like the others, so the
 * receipt owns them and the journaled commit places them (buildmeta.h). */
static cudnnctl_err prep_buildmeta(cudnnctl_ctx *ctx, const cudnnctl_detect_result *det,
                                   cudnnctl_install_handle *h)
{
    if (!(h->ch.components & CUDNNCTL_COMPONENT_DEV))
        return CUDNNCTL_E_OK; /* build metadata is part of dev (docs/flavors.md, components) */
    const cc_dest *d = &h->dest;
    int prefix = d->mode == CUDNNCTL_TARGET_PREFIX;
    char *inc = cc_unrooted(ctx, d->include_dir), *lib = cc_unrooted(ctx, d->lib_dir);
    char *bin = d->bin_dir ? cc_unrooted(ctx, d->bin_dir) : NULL;
    char *cuda = prefix ? toolkit_include(det, &h->ch) : cc_strdup(inc);
    size_t n = 0;
    cc_buildmeta_in in = {h->staging,
                          h->ch.cudnn_version,
                          h->ch.cuda_variant,
                          cc_str_starts(h->ch.platform, "windows"),
                          prefix,
                          inc,
                          lib,
                          bin,
                          cuda,
                          h->rec.id,
                          (h->ch.have & CUDNNCTL_COMPONENT_RUNTIME)
                              ? (d->bin_dir && cc_str_starts(h->ch.platform, "windows") ? d->bin_dir
                                                                                         : d->lib_dir)
                              : NULL};
    cudnnctl_err rc = inc && lib ? cc_buildmeta_write(ctx, &in, &n)
                                 : CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    if (rc == CUDNNCTL_E_OK && n)
        STEP(h, "build metadata: %zu files (lib/pkgconfig/cudnn.pc, lib/cmake/CUDNN) in staging%s",
             n,
             cuda ? ""
                  : "; no CUDA toolkit of that major known: CUDA's include dir is found at "
                    "build time (CUDA_HOME / CUDA_PATH)");
    CC_FREE_ALL(inc, lib, bin, cuda);
    return rc;
}

/* ---- fetch → verify → extract, then the link chain and the SONAMEs, in staging ---- */
static cudnnctl_err prep_populate(cudnnctl_ctx *ctx, const cudnnctl_detect_result *det,
                                  cudnnctl_install_handle *h)
{
    cudnnctl_install_result *res = h->res;
    cudnnctl_err rc;
    STEP(h, "fetch + extract: %s", h->ch.file_name);
    if ((rc = h->populate(ctx, h->user, &h->ch, h->staging, &h->st, h->digest, &h->got_size)) !=
        CUDNNCTL_E_OK)
        return rc;
    if ((rc = cc_cancel_check(ctx, "the extraction")) != CUDNNCTL_E_OK)
        return rc;
    res->archive.verified = h->ch.sha256 != NULL;
    free(res->archive.sha256);
    res->archive.sha256 = cc_strdup(h->digest);
    res->archive.size = h->got_size;
    STEP(h, "verify: sha256 %s, %llu bytes%s", h->digest, (unsigned long long)h->got_size,
         h->ch.sha256 ? " (matches)" : " (NOT checked against anything)");
    res->store = h->st.store;
    res->store_link = h->st.store_link;
    if (h->st.store)
        STEP(h, "store: %s%s%s", h->st.store, h->st.store_link ? ", staged by " : "",
             h->st.store_link ? h->st.store_link : "");
    char *slib = cc_path_join(h->staging, "lib");
    cc_strv made = {0};
    int dev = (h->ch.components & CUDNNCTL_COMPONENT_DEV) != 0;
    rc = slib ? cc_links_fix_ex(ctx, slib, &made, dev)
              : CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    free(slib);
    if (rc == CUDNNCTL_E_OK && made.n)
        STEP(h, "links: %zu made or fixed in staging", made.n);
    cc_strv_free(&made);
    if (rc != CUDNNCTL_E_OK || (rc = prep_buildmeta(ctx, det, h)) != CUDNNCTL_E_OK ||
        (rc = cc_tree_scan(ctx, h->staging, &h->st, &h->tree)) != 0)
        return rc;
    char *sl = cc_path_join(h->staging, "lib"), *sb = cc_path_join(h->staging, "bin");
    int major = cc_links_major(sl, sb);
    free(sl);
    free(sb);
    if (major < 0 && (h->ch.components & CUDNNCTL_COMPONENT_RUNTIME))
        CC_RET_ERR(ctx, CUDNNCTL_E_BAD_LAYOUT,
                   "%s holds no cuDNN library (no lib/libcudnn*.so* or bin/cudnn*.dll): not a "
                   "cuDNN archive",
                   h->ch.file_name);
    return CUDNNCTL_E_OK;
}

/* The receipt's header: what is installed, from where, into what. */
static cudnnctl_err prep_receipt_head(cudnnctl_ctx *ctx, cudnnctl_install_handle *h)
{
    cc_receipt *rec = &h->rec;
    const cc_source_choice *ch = &h->ch;
    rec->installed_at = cc_now_iso();
    rec->tool_version = cc_strdup(CUDNNCTL_VERSION_STRING);
    rec->cudnn_version = cc_strdup(ch->cudnn_version);
    rec->cuda_variant = cc_strdup(ch->cuda_variant);
    rec->platform = cc_strdup(ch->platform);
    rec->flavor = ch->flavor;
    rec->components = ch->components;
    /* the result's record of the archive, complete since prep_populate verified it */
    if (cc_archive_ref_copy(&rec->archive, &h->res->archive) != 0)
        CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    rec->mode = h->dest.mode;
    rec->target_path = cc_strdup(h->target_shown);
    rec->install_dir = cc_unrooted(ctx, h->dest.install_dir);
    rec->lib_dir = cc_unrooted(ctx, h->dest.lib_dir);
    rec->include_dir = cc_unrooted(ctx, h->dest.include_dir);
    rec->bin_dir = h->res->bin_dir ? cc_strdup(h->res->bin_dir) : NULL;
    rec->doc_dir = cc_unrooted(ctx, h->dest.doc_dir);
    rec->target_id = cc_target_identity(h->dest.target); /* made by now in prefix mode too */
    h->env_on = !h->opts.no_env && cc_host_is_windows(ctx);
    cudnnctl_err rc = CUDNNCTL_E_OK;
    if (h->env_on) /* the registry changes go into the receipt before the commit, made after */
        rc = cc_install_wire_env(ctx, &h->opts, ch->plan, &h->dest, 1, &rec->env_json, NULL);
    else
        rec->env_json = cc_strdup("[]");
    if (rc != CUDNNCTL_E_OK)
        return rc;
    char *rname = cc_asprintf("receipts/%s.json", rec->id);
    rec->file = rname ? cc_path_join(h->state, rname) : NULL;
    free(rname);
    if (!rec->installed_at || !rec->cudnn_version || !rec->target_path || !rec->install_dir ||
        !rec->file || !rec->env_json)
        CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    return CUDNNCTL_E_OK;
}

/* ---- plan the commit (conflicts found here, before the live tree is touched) ---- */
static cudnnctl_err prep_commit_plan(cudnnctl_ctx *ctx, cudnnctl_install_handle *h)
{
    cudnnctl_err rc = prep_receipt_head(ctx, h);
    if (rc != CUDNNCTL_E_OK)
        return rc;
    cc_commit_in in = {h->staging, &h->tree, h->state, &h->rs, h->opts.force, &h->warnings};
    /* adding components to a prefix's version dir merges into it, as into a CUDA tree */
    rc = h->dest.mode == CUDNNCTL_TARGET_PREFIX
             ? (h->ch.have ? cc_commit_prefix_add_plan(ctx, h->txn, &h->dest, &in, &h->rec)
                           : cc_commit_prefix_plan(ctx, h->txn, &h->dest, &in, &h->rec))
             : cc_commit_tree_plan(ctx, h->txn, &h->dest, &in, &h->rec);
    if (rc != CUDNNCTL_E_OK)
        return rc;
    char *rjson = NULL;
    if ((rc = cc_receipt_to_json(ctx, &h->rec, &rjson)) != CUDNNCTL_E_OK)
        return rc;
    h->txn->receipt_json = rjson;
    h->txn->receipt_path = cc_strdup(h->rec.file);
    /* the target's ledger gets this install's line with the receipt, after the commit point */
    h->txn->owners_path = cc_owners_ledger(h->dest.target);
    h->txn->owners_line = cc_owners_line(h->state, h->rec.id);
    h->txn->owners_add = 1;
    return h->txn->receipt_path && h->txn->owners_path && h->txn->owners_line ? CUDNNCTL_E_OK
                                : CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
}

static cudnnctl_err prep_all(cudnnctl_ctx *ctx, cudnnctl_catalog *cat,
                             const cudnnctl_detect_result *det, cudnnctl_install_handle *h)
{
    int done = 0;
    cudnnctl_err rc = prep_plan(ctx, cat, det, h);
    if (rc != CUDNNCTL_E_OK || h->opts.dry_run)
        return rc;
    if ((rc = cc_cancel_check(ctx, "the plan")) != CUDNNCTL_E_OK ||
        (rc = prep_state(ctx, h, &done)) != CUDNNCTL_E_OK || done)
        return rc;
    if ((rc = cc_cancel_check(ctx, "the preparation")) != CUDNNCTL_E_OK ||
        (rc = prep_staging(ctx, h)) != CUDNNCTL_E_OK ||
        (rc = prep_populate(ctx, det, h)) != CUDNNCTL_E_OK ||
        (rc = cc_cancel_check(ctx, "the preparation")) != CUDNNCTL_E_OK ||
        (rc = prep_commit_plan(ctx, h)) != CUDNNCTL_E_OK)
        return rc;
    h->pending = 1;
    h->res->result = CUDNNCTL_INSTALL_PREPARED;
    return CUDNNCTL_E_OK;
}

cudnnctl_err cc_install_prepare_with(cudnnctl_ctx *ctx, cudnnctl_catalog *cat,
                                     const cudnnctl_detect_result *det,
                                     const cudnnctl_install_opts *o, cc_populate_fn populate,
                                     void *user, cudnnctl_install_handle **hp,
                                     cudnnctl_install_result **out)
{
    *hp = NULL;
    cudnnctl_install_handle *h = calloc(1, sizeof(*h));
    cudnnctl_install_result *res = calloc(1, sizeof(*res));
    *out = res;
    if (!h || !res) {
        free(h);
        CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    }
    h->t0 = cc_pf_now_ms();
    h->opts = *o;
    h->populate = populate;
    h->user = user;
    h->lock.fd = h->tlock.fd = -1;
    h->res = res;
    res->result = CUDNNCTL_INSTALL_FAILED;
    cudnnctl_err rc = CUDNNCTL_E_OK;
    const cudnnctl_selection *sel = &o->selection;
    if (!o->plan && det && det->platform && sel->platform && *sel->platform &&
        strcmp(sel->platform, det->platform) != 0 && !(sel->prefix && *sel->prefix))
        rc = CC_ERR(ctx, CUDNNCTL_E_USAGE,
                    "installing for %s on this %s host needs --prefix DIR: no local CUDA toolkit "
                    "is a target for another platform (`cudnnctl plan --platform %s --cuda M` "
                    "shows the archive; copy the prefix to the %s machine afterwards)",
                    sel->platform, det->platform, sel->platform, sel->platform);
    if (rc == CUDNNCTL_E_OK)
        rc = prep_all(ctx, cat, det, h);
    if (rc != CUDNNCTL_E_OK) {
        res->result = CUDNNCTL_INSTALL_FAILED;
        res->error = rc;
        cudnnctl_install_release(ctx, h);
        return rc;
    }
    cc_install_publish(h);
    *hp = h;
    return CUDNNCTL_E_OK;
}
