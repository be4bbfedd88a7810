/* switch.c: switching between cuDNN versions installed side by side in one prefix — one
 * journaled flip of PREFIX/current, no network, no archive. The installed files are checked
 * against their receipt first: present with the recorded size (cheap), or, with deep, every
 * file re-hashed. */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "direct.h"
#include "hash.h"
#include "install_internal.h"
#include "journal.h"
#include "json.h"
#include "lock.h"
#include "receipt.h"

cudnnctl_err cc_switch_current(cudnnctl_ctx *ctx, const char *state, const char *current,
                               const char *want, int *flipped, cc_strv *steps)
{
    char *now = cc_pf_readlink(current);
    int same = now && strcmp(now, want) == 0;
    free(now);
    *flipped = 0;
    if (same)
        return CUDNNCTL_E_OK;
    cc_obj_type old = cc_txn_kind(current);
    if (old != CC_OBJ_NONE && old != CC_OBJ_LINK)
        return CUDNNCTL_E_OK; /* not ours to replace; install --force handles it */
    cc_txn *t = NULL;
    char *prefix = cc_path_dir(current);
    cudnnctl_err rc = prefix ? cc_txn_new(ctx, state, prefix, "switch", &t)
                             : CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    free(prefix);
    if (rc != CUDNNCTL_E_OK)
        return rc;
    cc_op op = {0};
    op.kind = CC_OP_PLACE;
    op.type = CC_OBJ_LINK;
    op.dst = (char *)current;
    op.link_target = (char *)want;
    op.tmp = cc_txn_temp_name(t, current, "new");
    op.had_old = old != CC_OBJ_NONE;
    op.old_type = old;
    op.bak = op.had_old ? cc_txn_temp_name(t, current, "bak") : NULL;
    if (!op.tmp || (op.had_old && !op.bak))
        rc = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    if (rc == CUDNNCTL_E_OK)
        rc = cc_txn_add(ctx, t, &op);
    if (rc == CUDNNCTL_E_OK)
        rc = cc_txn_run(ctx, t);
    if (rc == CUDNNCTL_E_OK) {
        *flipped = 1;
        char *shown = cc_unrooted(ctx, current);
        cc_install_step(ctx, steps, cc_asprintf("switch: %s -> %s", shown ? shown : current, want));
        free(shown);
    }
    free(op.tmp);
    free(op.bak);
    cc_txn_free(t);
    return rc;
}

/* The receipt to switch to: the newest install in this prefix matching version and variant.
 * Several variants of one version need --cuda. */
static cudnnctl_err pick(cudnnctl_ctx *ctx, const cc_receipts *rs, const char *prefix_shown,
                         const cudnnctl_switch_opts *o, const cc_receipt **out)
{
    cc_version want;
    *out = NULL;
    if (!o->version || cc_version_parse(o->version, &want) != 0)
        CC_RET_ERR(ctx, CUDNNCTL_E_BAD_VERSION,
                   "'%s' is not a cuDNN version (e.g. 9.14 or 9.14.0.64)",
                   o->version ? o->version : "");
    const cc_receipt *best = NULL;
    for (size_t i = 0; i < rs->n; i++) {
        const cc_receipt *r = &rs->v[i];
        cc_version have;
        if (r->mode != CUDNNCTL_TARGET_PREFIX || !r->target_path ||
            !cc_host_same_path(ctx, r->target_path, prefix_shown) || !r->cudnn_version ||
            cc_version_parse(r->cudnn_version, &have) != 0 ||
            !cc_version_prefix_match(&want, &have) ||
            (o->cuda_variant && (!r->cuda_variant || strcmp(r->cuda_variant, o->cuda_variant))))
            continue;
        if (best && best->cuda_variant && r->cuda_variant &&
            strcmp(best->cuda_variant, r->cuda_variant) != 0 &&
            strcmp(best->cudnn_version, r->cudnn_version) == 0)
            CC_RET_ERR(ctx, CUDNNCTL_E_USAGE,
                       "cuDNN %s is installed in %s for CUDA %s and for CUDA %s: add --cuda %s "
                       "or --cuda %s",
                       r->cudnn_version, prefix_shown, best->cuda_variant, r->cuda_variant,
                       best->cuda_variant, r->cuda_variant);
        cc_version bv;
        if (!best || (cc_version_parse(best->cudnn_version, &bv) == 0 &&
                      cc_version_cmp(&have, &bv) >= 0))
            best = r; /* newer version, or a later receipt of the same one */
    }
    if (!best)
        CC_RET_ERR(ctx, CUDNNCTL_E_NOT_FOUND,
                   "no cuDNN %s%s%s is installed in %s; `cudnnctl list` shows what is, and "
                   "`cudnnctl install --cudnn %s --prefix %s` installs it",
                   o->version, o->cuda_variant ? " for CUDA " : "",
                   o->cuda_variant ? o->cuda_variant : "", prefix_shown, o->version,
                   prefix_shown);
    *out = best;
    return CUDNNCTL_E_OK;
}

/* Every file of the receipt is there with its size (or, deep, its SHA-256). */
static cudnnctl_err check_files(cudnnctl_ctx *ctx, const cc_receipt *r, int deep, size_t *n)
{
    *n = 0;
    for (size_t i = 0; i < r->n_entries; i++) {
        const cc_rentry *e = &r->entries[i];
        if (e->type != CC_OBJ_FILE)
            continue;
        char *real = cc_rooted(ctx, e->path);
        cc_pf_stat_t st;
        char hex[65] = {0};
        uint64_t size = 0;
        int ok = real && cc_pf_stat(real, &st) == 0 && st.exists && st.is_reg &&
                 st.size == e->size;
        if (ok && deep)
            ok = cc_sha256_file(ctx, real, hex, &size) == 0 && strcmp(hex, e->sha256) == 0;
        free(real);
        /* the archive it came from, by its digest: a cache hit when the cache still has it */
        if (!ok)
            CC_RET_ERR(ctx, CUDNNCTL_E_HASH_MISMATCH,
                       "%s is %s since cuDNN %s was installed (receipt %s): not switching to a "
                       "damaged install; reinstall it with `cudnnctl install --archive %s --sha256 "
                       "%s --prefix %s --force`",
                       e->path, deep && hex[0] ? "changed" : "missing or of another size",
                       r->cudnn_version, r->id, r->archive.url ? r->archive.url : "FILE",
                       r->archive.sha256 ? r->archive.sha256 : "HEX", r->target_path);
        (*n)++;
    }
    return CUDNNCTL_E_OK;
}

static cudnnctl_switch_result *new_result(const cc_receipt *r, const char *previous)
{
    cudnnctl_switch_result *res = calloc(1, sizeof(*res));
    if (!res)
        return NULL;
    res->result = CUDNNCTL_SWITCH_ALREADY_CURRENT;
    res->cudnn_version = cc_strdup(r->cudnn_version);
    res->cuda_variant = r->cuda_variant ? cc_strdup(r->cuda_variant) : NULL;
    res->prefix = cc_strdup(r->target_path);
    res->install_dir = cc_strdup(r->install_dir);
    res->receipt_id = cc_strdup(r->id);
    res->installed_at = r->installed_at ? cc_strdup(r->installed_at) : NULL;
    res->previous = previous ? cc_strdup(previous) : NULL;
    return res;
}

/* Make r the current version: the prefix's current link, or for a direct install (no
 * PREFIX/current, direct.h) the Path and the state's record; res->result says whether it moved. */
static cudnnctl_err flip(cudnnctl_ctx *ctx, const char *state, cc_receipts *rs, const cc_receipt *r,
                         const char *current, const char *current_real,
                         cudnnctl_switch_result *res, cc_strv *steps)
{
    int flipped = 0;
    if (r->direct) {
        const cc_receipt *was = cc_direct_current(ctx, state, rs, r->target_path);
        free(res->previous);
        res->previous = was ? cc_strdup(cc_path_base(was->install_dir)) : NULL;
        cudnnctl_err rc = cc_direct_switch(ctx, state, rs, r, &flipped, steps);
        if (rc == CUDNNCTL_E_OK && flipped)
            res->result = CUDNNCTL_SWITCH_SWITCHED;
        return rc;
    }
    cudnnctl_err rc = cc_switch_current(ctx, state, current_real, cc_path_base(r->install_dir),
                                        &flipped, steps);
    if (rc != CUDNNCTL_E_OK)
        return rc;
    if (flipped)
        res->result = CUDNNCTL_SWITCH_SWITCHED;
    else if (cc_txn_kind(current_real) != CC_OBJ_LINK)
        rc = CC_ERR(ctx, CUDNNCTL_E_CONFLICT,
                    "%s is not a link made by cudnnctl: move it away, then switch again",
                    current);
    return rc;
}

cudnnctl_err cudnnctl_switch(cudnnctl_ctx *ctx, const cudnnctl_switch_opts *o,
                             cudnnctl_switch_result **out)
{
    uint64_t t0 = cc_pf_now_ms();
    *out = NULL;
    if (!o || !o->prefix || !*o->prefix)
        CC_RET_ERR(ctx, CUDNNCTL_E_USAGE,
                   "switching needs the prefix the versions are installed in: --prefix DIR");
    cc_clear_error(ctx);
    char *state = cc_state_dir(ctx), *abs = cc_txn_absolute(o->prefix);
    char *rooted = abs ? cc_rooted(ctx, abs) : NULL;
    char *shown = rooted ? cc_txn_canonical(ctx, rooted) : NULL;
    char *current = shown ? cc_path_join(shown, "current") : NULL;
    char *current_real = current ? cc_rooted(ctx, current) : NULL;
    char *previous = current_real ? cc_pf_readlink(current_real) : NULL;
    cc_lock lock = {-1, NULL, 0, NULL, 0}, tlock = {-1, NULL, 0, NULL, 0};
    cc_receipts rs = {0};
    cc_strv steps = {0};
    const cc_receipt *r = NULL;
    const char *recovered = NULL;
    cudnnctl_switch_result *res = NULL;
    cudnnctl_err rc = CUDNNCTL_E_OK;
    if (!state || !shown || !current_real) {
        rc = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
        goto out;
    }
    char *prefix_real = cc_rooted(ctx, shown);
    rc = prefix_real ? CUDNNCTL_E_OK : CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    if (rc == CUDNNCTL_E_OK)
        rc = cc_lock_acquire(ctx, state, "use", &lock);
    if (rc == CUDNNCTL_E_OK)
        rc = cc_lock_target(ctx, prefix_real, "use", &tlock);
    free(prefix_real);
    if (rc != CUDNNCTL_E_OK ||
        (rc = cc_txn_recover(ctx, state, &recovered, NULL)) != CUDNNCTL_E_OK ||
        (rc = cc_receipts_load(ctx, state, &rs)) != CUDNNCTL_E_OK ||
        (rc = pick(ctx, &rs, shown, o, &r)) != CUDNNCTL_E_OK)
        goto out;
    if (!(res = new_result(r, previous))) {
        rc = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
        goto out;
    }
    res->deep = o->deep;
    if ((rc = check_files(ctx, r, o->deep, &res->n_checked)) != CUDNNCTL_E_OK)
        goto out;
    cc_install_step(ctx, &steps,
         o->deep ? cc_asprintf("re-verified: %zu files of cuDNN %s match receipt %s",
                               res->n_checked, r->cudnn_version, r->id)
                 : cc_asprintf("verified at install %s (receipt %s); %zu files present",
                               r->installed_at ? r->installed_at : "?", r->id, res->n_checked));
    rc = flip(ctx, state, &rs, r, current, current_real, res, &steps);
out:
    if (res) {
        res->seconds = (double)(cc_pf_now_ms() - t0) / 1000.0;
        res->steps = steps.v;
        res->n_steps = steps.n;
        steps.v = NULL;
        steps.n = 0;
    }
    cc_strv_free(&steps);
    cc_receipts_free(&rs);
    if (tlock.fd >= 0)
        cc_lock_release(ctx, &tlock);
    if (lock.fd >= 0)
        cc_lock_release(ctx, &lock);
    free(state);
    free(abs);
    free(rooted);
    free(shown);
    free(current);
    free(current_real);
    free(previous);
    *out = res;
    return rc;
}

const char *cudnnctl_switch_outcome_name(cudnnctl_switch_outcome o)
{
    switch (o) {
    case CUDNNCTL_SWITCH_SWITCHED:
        return "switched";
    case CUDNNCTL_SWITCH_ALREADY_CURRENT:
        return "already-current";
    default:
        return "failed";
    }
}

void cudnnctl_switch_result_free(cudnnctl_switch_result *r)
{
    if (!r)
        return;
    free(r->cudnn_version);
    free(r->cuda_variant);
    free(r->prefix);
    free(r->install_dir);
    free(r->previous);
    free(r->receipt_id);
    free(r->installed_at);
    for (size_t i = 0; i < r->n_steps; i++)
        free(r->steps[i]);
    free(r->steps);
    free(r);
}

cudnnctl_err cudnnctl_switch_result_json(const cudnnctl_switch_result *r, char **json)
{
    cJSON *o = cJSON_CreateObject();
    *json = NULL;
    if (!o)
        return CUDNNCTL_E_NOMEM;
    int bad = cc_json_str(o, "result", cudnnctl_switch_outcome_name(r->result)) || cc_json_str(o, "cudnn_version", r->cudnn_version) ||
              cc_json_str(o, "cuda_variant", r->cuda_variant) || cc_json_str(o, "prefix", r->prefix) ||
              cc_json_str(o, "install_dir", r->install_dir) ||
              cc_json_str(o, "previous", r->previous) || cc_json_str(o, "receipt_id", r->receipt_id) ||
              cc_json_str(o, "verified_at_install", r->installed_at) ||
              !cJSON_AddBoolToObject(o, "re_verified", r->deep) ||
              !cJSON_AddNumberToObject(o, "files_checked", (double)r->n_checked) ||
              !cJSON_AddNumberToObject(o, "seconds", r->seconds) ||
              cc_json_strs(o, "steps", r->steps, r->n_steps);
    *json = bad ? NULL : cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    return *json ? CUDNNCTL_E_OK : CUDNNCTL_E_NOMEM;
}
