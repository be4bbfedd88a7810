/* list.c: installs made by cudnnctl (from receipts), with their JSON. */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "direct.h"
#include "json.h"
#include "libnames.h"
#include "receipt.h"
#include "strset.h"

static int is_active(cudnnctl_ctx *ctx, const char *state, const cc_receipts *rs, size_t i)
{
    const cc_receipt *r = &rs->v[i];
    for (size_t k = 0; k < rs->n; k++)
        if (cc_receipt_supersedes(&rs->v[k], r) && (rs->v[k].components & r->components))
            return 0; /* reinstalled over: the later receipt is the live one (a later install
                       * that only added components leaves this one live beside it) */
    if (r->mode == CUDNNCTL_TARGET_PREFIX && r->direct) /* no current: the state's record */
        return cc_direct_current(ctx, state, rs, r->target_path) == r;
    if (r->mode == CUDNNCTL_TARGET_PREFIX) {
        char *cur = r->current_link ? cc_rooted(ctx, r->current_link) : NULL;
        char *t = cur ? cc_pf_readlink(cur) : NULL;
        int yes = t && r->install_dir && strcmp(t, cc_path_base(r->install_dir)) == 0;
        free(cur);
        free(t);
        return yes;
    }
    for (size_t k = i + 1; k < rs->n; k++)
        if (rs->v[k].mode == r->mode && strcmp(rs->v[k].target_path, r->target_path) == 0 &&
            !(cc_receipt_supersedes(&rs->v[k], r) && !(rs->v[k].components & r->components)))
            return 0; /* a newer install on the same tree is the live one */
    return 1;
}

/* The cuDNN sub-libraries an install placed (its files libX.so.M[.m.p] / X64_M.dll), sorted:
 * "libcudnn,libcudnn_engines_runtime_compiled,libcudnn_graph" for the JIT flavour. */
static char *receipt_sublibs(const cc_receipt *r)
{
    cc_strv stems = {0};
    for (size_t i = 0; i < r->n_entries; i++) {
        cc_libname ln;
        if (r->entries[i].type == CC_OBJ_LINK ||
            !cc_lib_classify(cc_path_base(r->entries[i].path), &ln) ||
            (ln.kind != CC_LIB_SO_FULL && ln.kind != CC_LIB_SO_MAJOR && ln.kind != CC_LIB_DLL))
            continue;
        cc_strset_add(&stems, ln.stem);
    }
    return cc_strset_join(&stems, ",", "");
}

cudnnctl_err cudnnctl_list(cudnnctl_ctx *ctx, const char *target, cudnnctl_install_list **out)
{
    cc_receipts rs = {0};
    char *state = cc_state_dir(ctx), *want = NULL;
    cudnnctl_err rc = CUDNNCTL_E_OK;
    cudnnctl_install_list *l = calloc(1, sizeof(*l));
    *out = l;
    if (!l || !state) {
        free(state);
        CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    }
    if (target) {
        char *abs = cc_txn_absolute(target);
        char *rooted = abs ? cc_rooted(ctx, abs) : NULL;
        want = rooted ? cc_txn_canonical(ctx, rooted) : NULL;
        free(abs);
        free(rooted);
        if (!want) {
            rc = CC_ERR(ctx, CUDNNCTL_E_NOT_FOUND, "cannot resolve %s", target);
            goto out;
        }
    }
    char *jp = cc_path_join(state, "journal.json");
    if (jp && cc_txn_kind(jp) != CC_OBJ_NONE)
        l->pending_journal = cc_unrooted(ctx, jp);
    free(jp);
    if ((rc = cc_receipts_load(ctx, state, &rs)) != CUDNNCTL_E_OK)
        goto out;
    l->items = calloc(rs.n ? rs.n : 1, sizeof(*l->items));
    if (!l->items) {
        rc = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < rs.n; i++) {
        cc_receipt *r = &rs.v[i];
        if (want && strcmp(r->target_path, want) != 0)
            continue;
        cudnnctl_install_record *it = &l->items[l->n_items++];
        it->id = cc_strdup(r->id);
        it->cudnn_version = cc_strdup(r->cudnn_version);
        it->cuda_variant = r->cuda_variant ? cc_strdup(r->cuda_variant) : NULL;
        it->platform = r->platform ? cc_strdup(r->platform) : NULL;
        it->mode = r->mode;
        it->target_path = cc_strdup(r->target_path);
        it->install_dir = r->install_dir ? cc_strdup(r->install_dir) : NULL;
        it->lib_dir = r->lib_dir ? cc_strdup(r->lib_dir) : NULL;
        it->include_dir = r->include_dir ? cc_strdup(r->include_dir) : NULL;
        it->archive_sha256 = r->archive.sha256 ? cc_strdup(r->archive.sha256) : NULL;
        it->verified = r->archive.verified;
        it->installed_at = r->installed_at ? cc_strdup(r->installed_at) : NULL;
        for (size_t k = 0; k < r->n_entries; k++)
            *(r->entries[k].type == CC_OBJ_LINK ? &it->n_links : &it->n_files) += 1;
        it->n_replaced = r->n_replaced;
        it->active = is_active(ctx, state, &rs, i);
        it->direct = r->direct;
        it->receipt_path = cc_unrooted(ctx, r->file);
        it->flavor = r->flavor;
        it->components = r->components;
        it->sublibs = receipt_sublibs(r);
    }
out:
    cc_receipts_free(&rs);
    free(state);
    free(want);
    return rc;
}

void cudnnctl_install_list_free(cudnnctl_install_list *l)
{
    if (!l)
        return;
    for (size_t i = 0; i < l->n_items; i++) {
        cudnnctl_install_record *it = &l->items[i];
        free(it->id);
        free(it->cudnn_version);
        free(it->cuda_variant);
        free(it->platform);
        free(it->target_path);
        free(it->install_dir);
        free(it->lib_dir);
        free(it->include_dir);
        free(it->archive_sha256);
        free(it->installed_at);
        free(it->receipt_path);
        free(it->sublibs);
    }
    free(l->items);
    free(l->pending_journal);
    free(l);
}

cudnnctl_err cudnnctl_install_list_json(const cudnnctl_install_list *l, char **json)
{
    *json = NULL;
    cJSON *o = cJSON_CreateObject();
    cJSON *a = o ? cJSON_AddArrayToObject(o, "installs") : NULL;
    if (!a)
        goto oom;
    for (size_t i = 0; i < l->n_items; i++) {
        const cudnnctl_install_record *it = &l->items[i];
        cJSON *j = cJSON_CreateObject();
        if (!j || !cJSON_AddItemToArray(a, j) || cc_json_str(j, "id", it->id) ||
            cc_json_str(j, "cudnn_version", it->cudnn_version) ||
            cc_json_str(j, "cuda_variant", it->cuda_variant) || cc_json_str(j, "platform", it->platform) ||
            cc_json_str(j, "mode", it->mode == CUDNNCTL_TARGET_PREFIX ? "prefix" : "cuda-tree") ||
            cc_json_str(j, "target", it->target_path) || cc_json_str(j, "install_dir", it->install_dir) ||
            cc_json_str(j, "lib_dir", it->lib_dir) || cc_json_str(j, "include_dir", it->include_dir) ||
            cc_json_str(j, "archive_sha256", it->archive_sha256) ||
            !cJSON_AddBoolToObject(j, "verified", it->verified) ||
            cc_json_str(j, "installed_at", it->installed_at) ||
            !cJSON_AddNumberToObject(j, "files", (double)it->n_files) ||
            !cJSON_AddNumberToObject(j, "links", (double)it->n_links) ||
            !cJSON_AddNumberToObject(j, "replaced", (double)it->n_replaced) ||
            !cJSON_AddBoolToObject(j, "active", it->active) ||
            (it->mode == CUDNNCTL_TARGET_PREFIX && !cJSON_AddBoolToObject(j, "direct", it->direct)) ||
            cc_json_str(j, "receipt", it->receipt_path))
            goto oom;
        char comp[40];
        cudnnctl_components_text(it->components, comp, sizeof(comp));
        if (cc_json_str(j, "flavor", cudnnctl_flavor_name(it->flavor)) ||
            cc_json_str(j, "components", comp) || cc_json_str(j, "sublibs", it->sublibs))
            goto oom;
    }
    if (cc_json_str(o, "pending_journal", l->pending_journal))
        goto oom;
    return cc_json_out(o, 0, json);
oom:
    cJSON_Delete(o);
    return CUDNNCTL_E_NOMEM;
}
