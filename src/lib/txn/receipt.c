/* receipt.c: install receipts to and from JSON (cJSON), and loading every receipt of the
 * state dir in install order. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "receipt.h"
#include "grow.h"
#include "confine.h"
#include "json.h"

char *cc_mode_str(uint32_t mode)
{
    return cc_asprintf("%04o", (unsigned)(mode & 07777));
}

void cc_receipt_free(cc_receipt *r)
{
    if (!r)
        return;
    free(r->id);
    free(r->installed_at);
    free(r->tool_version);
    free(r->cudnn_version);
    free(r->cuda_variant);
    free(r->platform);
    cc_archive_ref_clear(&r->archive);
    free(r->target_path);
    free(r->install_dir);
    free(r->lib_dir);
    free(r->include_dir);
    free(r->bin_dir);
    free(r->doc_dir);
    free(r->current_link);
    free(r->target_id);
    for (size_t i = 0; i < r->n_entries; i++) {
        free(r->entries[i].path);
        free(r->entries[i].link_target);
    }
    free(r->entries);
    for (size_t i = 0; i < r->n_replaced; i++) {
        free(r->replaced[i].path);
        free(r->replaced[i].link_target);
        free(r->replaced[i].backup);
        free(r->replaced[i].reason);
    }
    free(r->replaced);
    cc_strv_free(&r->dirs_created);
    free(r->env_json);
    free(r->file);
    memset(r, 0, sizeof(*r));
}

/* Copies of path and link_target (NULL stays NULL) in *p and *lt; -1, with both NULL, when
 * memory ran out. */
static int dup_path_link(const char *path, const char *link_target, char **p, char **lt)
{
    *p = cc_strdup(path);
    *lt = link_target ? cc_strdup(link_target) : NULL;
    if (*p && (!link_target || *lt))
        return 0;
    free(*p);
    free(*lt);
    *p = *lt = NULL;
    return -1;
}

cudnnctl_err cc_receipt_add_entry(cudnnctl_ctx *ctx, cc_receipt *r, const cc_rentry *e)
{
    cc_rentry c = *e;
    if (cc_grow(&r->entries, &r->cap_entries, r->n_entries + 1, sizeof(*e)) != 0 ||
        dup_path_link(e->path, e->link_target, &c.path, &c.link_target) != 0)
        CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    r->entries[r->n_entries++] = c;
    return CUDNNCTL_E_OK;
}

cudnnctl_err cc_receipt_add_replaced(cudnnctl_ctx *ctx, cc_receipt *r, const cc_rrepl *e)
{
    cc_rrepl c = *e;
    if (cc_grow(&r->replaced, &r->cap_replaced, r->n_replaced + 1, sizeof(*e)) != 0 ||
        dup_path_link(e->path, e->link_target, &c.path, &c.link_target) != 0)
        CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    c.backup = cc_strdup(e->backup);
    c.reason = cc_strdup(e->reason ? e->reason : "overwritten");
    if (!c.backup || !c.reason) {
        free(c.path);
        free(c.link_target);
        free(c.backup);
        free(c.reason);
        CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    }
    r->replaced[r->n_replaced++] = c;
    return CUDNNCTL_E_OK;
}

/* ---- to JSON --------------------------------------------------------------------------------- */

/* "flavor" and "components" (what this receipt placed). */
static int put_selection(cJSON *o, const cc_receipt *r)
{
    char comp[40];
    cudnnctl_components_text(r->components ? r->components : CUDNNCTL_COMPONENTS_ALL, comp,
                             sizeof(comp));
    return cc_json_str(o, "flavor", cudnnctl_flavor_name(r->flavor)) ||
           cc_json_str(o, "components", comp);
}

static int put_mode(cJSON *o, uint32_t mode)
{
    char *m = cc_mode_str(mode);
    int rc = m ? cc_json_str(o, "mode", m) : -1;
    free(m);
    return rc;
}

/* The receipt's files and links (each with what proves it) and what the install replaced. */
static int put_entries(cJSON *o, const cc_receipt *r)
{
    cJSON *files = cJSON_AddArrayToObject(o, "files");
    cJSON *links = cJSON_AddArrayToObject(o, "links");
    if (!files || !links)
        return -1;
    for (size_t i = 0; i < r->n_entries; i++) {
        const cc_rentry *e = &r->entries[i];
        cJSON *j = cJSON_CreateObject();
        if (!j || !cJSON_AddItemToArray(e->type == CC_OBJ_LINK ? links : files, j) ||
            cc_json_str(j, "path", e->path))
            return -1;
        if (e->type == CC_OBJ_LINK) {
            if (cc_json_str(j, "target", e->link_target))
                return -1;
        } else if (cc_json_str(j, "sha256", e->sha256) ||
                   !cJSON_AddNumberToObject(j, "size", (double)e->size) || put_mode(j, e->mode)) {
            return -1;
        }
    }
    cJSON *rep = cJSON_AddArrayToObject(o, "replaced");
    if (!rep)
        return -1;
    for (size_t i = 0; i < r->n_replaced; i++) {
        const cc_rrepl *e = &r->replaced[i];
        cJSON *j = cJSON_CreateObject();
        if (!j || !cJSON_AddItemToArray(rep, j) || cc_json_str(j, "path", e->path) ||
            cc_json_str(j, "type", cc_txn_kind_name(e->type)) ||
            cc_json_str(j, "reason", e->reason) || cc_json_str(j, "backup", e->backup) ||
            cc_json_str(j, "target", e->link_target) ||
            !cJSON_AddNumberToObject(j, "size", (double)e->size) || put_mode(j, e->mode))
            return -1;
    }
    return 0;
}

cudnnctl_err cc_receipt_to_json(cudnnctl_ctx *ctx, const cc_receipt *r, char **json)
{
    *json = NULL;
    cJSON *o = cJSON_CreateObject();
    if (!o)
        goto oom;
    if (!cJSON_AddNumberToObject(o, "format", 1) || cc_json_str(o, "id", r->id) ||
        !cJSON_AddNumberToObject(o, "seq", (double)r->seq) ||
        cc_json_str(o, "installed_at", r->installed_at) || cc_json_str(o, "tool_version", r->tool_version) ||
        cc_json_str(o, "cudnn_version", r->cudnn_version) || cc_json_str(o, "cuda_variant", r->cuda_variant) ||
        cc_json_str(o, "platform", r->platform) || put_selection(o, r))
        goto oom;
    if (cc_archive_ref_json(cJSON_AddObjectToObject(o, "archive"), &r->archive) != 0)
        goto oom;
    cJSON *m = cJSON_AddObjectToObject(o, "manifest");
    if (!m || cc_json_str(m, "origin", r->archive.manifest) || cc_json_str(m, "sha256", r->archive.manifest_sha256))
        goto oom;
    /* what --allow-manifest-override accepted (docs/security.md, "Manifest trust") */
    if (r->archive.manifest_override && cc_json_str(m, "override", r->archive.manifest_override))
        goto oom;
    cJSON *t = cJSON_AddObjectToObject(o, "target");
    if (!t || cc_json_str(t, "mode", r->mode == CUDNNCTL_TARGET_PREFIX ? "prefix" : "cuda-tree") ||
        cc_json_str(t, "path", r->target_path) || cc_json_str(t, "install_dir", r->install_dir) ||
        cc_json_str(t, "lib_dir", r->lib_dir) || cc_json_str(t, "include_dir", r->include_dir) ||
        cc_json_str(t, "bin_dir", r->bin_dir) || cc_json_str(t, "doc_dir", r->doc_dir) ||
        cc_json_str(t, "current_link", r->current_link) || cc_json_str(t, "id", r->target_id) ||
        (r->direct && !cJSON_AddTrueToObject(t, "direct")))
        goto oom;
    if (put_entries(o, r) != 0)
        goto oom;
    cJSON *dirs = cJSON_AddArrayToObject(o, "dirs_created");
    if (!dirs)
        goto oom;
    for (size_t i = 0; i < r->dirs_created.n; i++) {
        cJSON *s = cJSON_CreateString(r->dirs_created.v[i]);
        if (!s || !cJSON_AddItemToArray(dirs, s))
            goto oom;
    }
    cJSON *env = cJSON_Parse(r->env_json ? r->env_json : "[]");
    if (!env || !cJSON_AddItemToObject(o, "env", env)) {
        cJSON_Delete(env);
        goto oom;
    }
    *json = cJSON_Print(o);
    if (!*json)
        goto oom;
    cJSON_Delete(o);
    return CUDNNCTL_E_OK;
oom:
    cJSON_Delete(o);
    CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
}

/* ---- from JSON ------------------------------------------------------------------------------- */

/* Receipt numbers are counts, sizes and sequence numbers: a value outside 0..2^53 (or NaN) reads
 * as 0 instead of being converted out of range (fuzz_receipt: a size of 4.8e75 was undefined
 * behaviour in the uint64_t cast). */
static double gn(const cJSON *o, const char *k)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, k);
    double v = cJSON_IsNumber(x) ? x->valuedouble : 0;
    return v >= 0 && v <= 9007199254740992.0 ? v : 0;
}

static uint32_t parse_mode(const char *s)
{
    return s ? (uint32_t)strtoul(s, NULL, 8) & 07777 : 0644;
}

/* The receipt's scalar fields: what was installed, from which archive, where. -1 on OOM. */
static int parse_fields(const cJSON *o, const cJSON *t, cc_receipt *r)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, "archive");
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(o, "manifest");
    r->seq = (long)gn(o, "seq");
    r->mode = strcmp(cc_json_get_str(t, "mode"), "prefix") == 0 ? CUDNNCTL_TARGET_PREFIX
                                                                : CUDNNCTL_TARGET_CUDA_TREE;
    r->archive.size = (uint64_t)gn(a, "size");
    r->archive.verified = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(a, "verified"));
    r->archive.in_catalog = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(a, "in_catalog"));
    /* receipts from before flavours and components: the full library, everything */
    const char *fl = cc_json_get_str(o, "flavor"), *comp = cc_json_get_str(o, "components");
    if (!fl || cudnnctl_flavor_parse(fl, &r->flavor) != 0)
        r->flavor = CUDNNCTL_FLAVOR_FULL;
    if (!comp || cudnnctl_components_parse(comp, &r->components) != 0)
        r->components = CUDNNCTL_COMPONENTS_ALL;
    r->direct = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(t, "direct"));
    if (cc_dup_opt(&r->id, cc_json_get_str(o, "id")) ||
        cc_dup_opt(&r->installed_at, cc_json_get_str(o, "installed_at")) ||
        cc_dup_opt(&r->tool_version, cc_json_get_str(o, "tool_version")) ||
        cc_dup_opt(&r->cudnn_version, cc_json_get_str(o, "cudnn_version")) ||
        cc_dup_opt(&r->cuda_variant, cc_json_get_str(o, "cuda_variant")) ||
        cc_dup_opt(&r->platform, cc_json_get_str(o, "platform")) ||
        cc_dup_opt(&r->archive.relative_path, cc_json_get_str(a, "relative_path")) ||
        cc_dup_opt(&r->archive.url, cc_json_get_str(a, "url")) ||
        cc_dup_opt(&r->archive.sha256, cc_json_get_str(a, "sha256")) ||
        cc_dup_opt(&r->archive.manifest, cc_json_get_str(m, "origin")) ||
        cc_dup_opt(&r->archive.manifest_sha256, cc_json_get_str(m, "sha256")) ||
        cc_dup_opt(&r->archive.manifest_override, cc_json_get_str(m, "override")) ||
        cc_dup_opt(&r->target_path, cc_json_get_str(t, "path")) ||
        cc_dup_opt(&r->install_dir, cc_json_get_str(t, "install_dir")) ||
        cc_dup_opt(&r->lib_dir, cc_json_get_str(t, "lib_dir")) ||
        cc_dup_opt(&r->include_dir, cc_json_get_str(t, "include_dir")) ||
        cc_dup_opt(&r->bin_dir, cc_json_get_str(t, "bin_dir")) ||
        cc_dup_opt(&r->doc_dir, cc_json_get_str(t, "doc_dir")) ||
        cc_dup_opt(&r->current_link, cc_json_get_str(t, "current_link")) ||
        cc_dup_opt(&r->target_id, cc_json_get_str(t, "id")))
        return -1;
    return 0;
}

/* The files and links the install wrote. */
static cudnnctl_err parse_entries(cudnnctl_ctx *ctx, const cJSON *o, const char *origin,
                                  cc_receipt *r)
{
    const cJSON *x;
    cudnnctl_err rc;
    cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(o, "files"))
    {
        cc_rentry e = {0};
        e.type = CC_OBJ_FILE;
        e.path = (char *)cc_json_get_str(x, "path");
        const char *h = cc_json_get_str(x, "sha256");
        if (!e.path || !h || strlen(h) != 64)
            CC_RET_ERR(ctx, CUDNNCTL_E_PARSE, "%s: a file entry lacks path or sha256", origin);
        memcpy(e.sha256, h, 65);
        e.size = (uint64_t)gn(x, "size");
        e.mode = parse_mode(cc_json_get_str(x, "mode"));
        if ((rc = cc_receipt_add_entry(ctx, r, &e)) != CUDNNCTL_E_OK)
            return rc;
    }
    cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(o, "links"))
    {
        cc_rentry e = {0};
        e.type = CC_OBJ_LINK;
        e.path = (char *)cc_json_get_str(x, "path");
        e.link_target = (char *)cc_json_get_str(x, "target");
        if (!e.path || !e.link_target)
            CC_RET_ERR(ctx, CUDNNCTL_E_PARSE, "%s: a link entry lacks path or target", origin);
        if ((rc = cc_receipt_add_entry(ctx, r, &e)) != CUDNNCTL_E_OK)
            return rc;
    }
    return CUDNNCTL_E_OK;
}

/* What the install replaced (kept as backups). */
static cudnnctl_err parse_replaced(cudnnctl_ctx *ctx, const cJSON *o, const char *origin,
                                   cc_receipt *r)
{
    const cJSON *x;
    cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(o, "replaced"))
    {
        cc_rrepl e = {0};
        e.path = (char *)cc_json_get_str(x, "path");
        e.type = cc_txn_kind_parse(cc_json_get_str(x, "type"));
        e.backup = (char *)cc_json_get_str(x, "backup");
        e.reason = (char *)cc_json_get_str(x, "reason");
        e.link_target = (char *)cc_json_get_str(x, "target");
        e.size = (uint64_t)gn(x, "size");
        e.mode = parse_mode(cc_json_get_str(x, "mode"));
        if (!e.path || !e.backup || e.type == CC_OBJ_NONE)
            CC_RET_ERR(ctx, CUDNNCTL_E_PARSE, "%s: a replaced entry lacks path, type or backup",
                       origin);
        cudnnctl_err rc = cc_receipt_add_replaced(ctx, r, &e);
        if (rc != CUDNNCTL_E_OK)
            return rc;
    }
    return CUDNNCTL_E_OK;
}

cudnnctl_err cc_receipt_parse(cudnnctl_ctx *ctx, const char *json, const char *origin,
                              cc_receipt *r)
{
    memset(r, 0, sizeof(*r));
    cudnnctl_err rc = CUDNNCTL_E_OK;
    cJSON *o = cJSON_Parse(json);
    const cJSON *t, *x;
    if (!o || !cJSON_IsObject(o) || gn(o, "format") != 1 || !cc_json_get_str(o, "id") ||
        !cc_json_get_str(o, "cudnn_version") ||
        !cJSON_IsObject(t = cJSON_GetObjectItemCaseSensitive(o, "target")) ||
        !cc_json_get_str(t, "mode") || !cc_json_get_str(t, "path")) {
        rc = CC_ERR(ctx, CUDNNCTL_E_PARSE, "%s is not a cudnnctl receipt (format 1)", origin);
        goto out;
    }
    if (parse_fields(o, t, r) != 0)
        goto oom;
    if ((rc = parse_entries(ctx, o, origin, r)) != CUDNNCTL_E_OK ||
        (rc = parse_replaced(ctx, o, origin, r)) != CUDNNCTL_E_OK)
        goto out;
    cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(o, "dirs_created"))
    {
        if (cJSON_IsString(x) && cc_strv_push(&r->dirs_created, x->valuestring) != 0)
            goto oom;
    }
    const cJSON *env = cJSON_GetObjectItemCaseSensitive(o, "env");
    r->env_json = cJSON_IsArray(env) ? cJSON_PrintUnformatted(env) : cc_strdup("[]");
    if (!r->env_json)
        goto oom;
    goto out;
oom:
    rc = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
out:
    cJSON_Delete(o);
    if (rc != CUDNNCTL_E_OK)
        cc_receipt_free(r);
    return rc;
}

/* ---- the receipts of a state dir ------------------------------------------------------------- */

static int by_seq(const void *a, const void *b)
{
    const cc_receipt *x = a, *y = b;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

cudnnctl_err cc_receipts_load(cudnnctl_ctx *ctx, const char *state_dir, cc_receipts *out)
{
    out->v = NULL;
    out->n = 0;
    cudnnctl_err trc = cc_trust_dir(ctx, state_dir, "state dir", "--state-dir DIR");
    if (trc != CUDNNCTL_E_OK)
        return trc;
    char *dir = cc_path_join(state_dir, "receipts");
    if (!dir)
        CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    cc_pf_dir *d = cc_pf_opendir(dir);
    if (!d) {
        free(dir);
        return CUDNNCTL_E_OK; /* no receipts yet */
    }
    cudnnctl_err rc = CUDNNCTL_E_OK;
    size_t cap = 0;
    const char *name;
    while ((name = cc_pf_readdir(d)) != NULL) {
        if (!cc_str_ends(name, ".json") || name[0] == '.')
            continue;
        char *path = cc_path_join(dir, name);
        char *text = NULL;
        if (!path) {
            rc = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
            break;
        }
        if (cc_sys_read_trusted(ctx, path, 64u << 20, &text, NULL) != 0) {
            /* unreadable is not "absent": acting without it could undo the wrong install */
            rc = CC_ERR_PF(ctx, "cannot read the receipt", path);
            free(path);
            break;
        }
        if (cc_grow(&out->v, &cap, out->n + 1, sizeof(*out->v)) != 0) {
            free(path);
            free(text);
            rc = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
            break;
        }
        cc_receipt *r = &out->v[out->n];
        if (cc_receipt_parse(ctx, text, path, r) != CUDNNCTL_E_OK) {
            cc_log(ctx, CUDNNCTL_LOG_WARN, "skipping damaged receipt: %s",
                   cudnnctl_last_error(ctx)->detail);
            cc_clear_error(ctx);
            free(path);
        } else if (cc_receipt_confined(ctx, r, path) != CUDNNCTL_E_OK) {
            /* integrity: an event, which -q does not hide */
            cc_event(ctx, CUDNNCTL_EV_WARNING, cudnnctl_last_error(ctx)->detail, path);
            cc_clear_error(ctx);
            cc_receipt_free(r);
            free(path);
        } else {
            r->file = path;
            out->n++;
        }
        free(text);
    }
    cc_pf_closedir(d);
    free(dir);
    if (rc != CUDNNCTL_E_OK) {
        cc_receipts_free(out);
        return rc;
    }
    if (out->n > 1)
        qsort(out->v, out->n, sizeof(*out->v), by_seq);
    return CUDNNCTL_E_OK;
}

void cc_receipts_free(cc_receipts *rs)
{
    for (size_t i = 0; i < rs->n; i++)
        cc_receipt_free(&rs->v[i]);
    free(rs->v);
    rs->v = NULL;
    rs->n = 0;
}

int cc_receipt_supersedes(const cc_receipt *later, const cc_receipt *earlier)
{
    return later != earlier && later->seq > earlier->seq && later->mode == earlier->mode &&
           later->target_path && earlier->target_path &&
           strcmp(later->target_path, earlier->target_path) == 0 && later->install_dir &&
           earlier->install_dir && strcmp(later->install_dir, earlier->install_dir) == 0 &&
           later->cudnn_version && earlier->cudnn_version &&
           strcmp(later->cudnn_version, earlier->cudnn_version) == 0;
}

const cc_receipt *cc_receipts_superseding(const cc_receipts *rs, const cc_receipt *r)
{
    for (size_t i = 0; i < rs->n; i++)
        if (cc_receipt_supersedes(&rs->v[i], r))
            return &rs->v[i];
    return NULL;
}

const cc_receipt *cc_receipts_superseded(const cc_receipts *rs, const cc_receipt *r)
{
    const cc_receipt *best = NULL;
    for (size_t i = 0; i < rs->n; i++)
        if (cc_receipt_supersedes(r, &rs->v[i]) && (!best || rs->v[i].seq > best->seq))
            best = &rs->v[i];
    return best;
}

char *cc_target_identity(const char *real)
{
    cc_pf_stat_t st;
    if (!real || cc_pf_stat(real, &st) != 0 || !st.exists)
        return NULL;
    return cc_asprintf("%llu:%llu", (unsigned long long)st.dev, (unsigned long long)st.ino);
}

long cc_receipts_next_seq(const cc_receipts *rs, const char *state_dir)
{
    long max = 0;
    for (size_t i = 0; i < rs->n; i++)
        if (rs->v[i].seq > max)
            max = rs->v[i].seq;
    /* backups left by an uninstall that kept a modified file also hold their id: never reuse */
    char *dir = cc_path_join(state_dir, "backups");
    cc_pf_dir *d = dir ? cc_pf_opendir(dir) : NULL;
    const char *name;
    while (d && (name = cc_pf_readdir(d)) != NULL) {
        long n = strtol(name, NULL, 10);
        if (n > max)
            max = n;
    }
    cc_pf_closedir(d);
    free(dir);
    return max + 1;
}
