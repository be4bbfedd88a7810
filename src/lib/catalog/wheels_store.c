/* wheels_store.c: the wheel rows `cudnnctl update` took from a package index, kept beside the
 * stored manifests as STATE/catalog/wheels.json (format 1: source, updated_at, wheels[] with
 * package, version, filename, tag, sha256, size, url, platform, cuda, jit). Written atomically
 * under the state lock; read as a believed file (owned by root or the effective user, writable
 * by nobody else), every row checked as the index's rows were (its file name is a wheel of its
 * project and release, a 64-digit SHA-256). The embedded rows always win a file name: a stored
 * row can add a wheel, never change one (update refuses that). */
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

#include "catalog_store.h"
#include "hash.h"
#include "internal.h"
#include "json.h"
#include "wheels.h"

#define STORE_MAX (16u << 20)

static char *store_path(const char *state)
{
    return cc_path_join(state, "catalog/wheels.json");
}

/* One stored row, or -1 when it is not what update writes. */
static int parse_row(const cJSON *e, cc_wheel_set *out)
{
    const char *pkg = cc_json_get_str(e, "package"), *file = cc_json_get_str(e, "filename");
    const char *sha = cc_json_get_str(e, "sha256"), *plat = cc_json_get_str(e, "platform");
    const cJSON *size = cJSON_GetObjectItemCaseSensitive(e, "size");
    int known = 0;
    for (size_t i = 0; pkg && cc_wheel_projects[i]; i++)
        known |= strcmp(pkg, cc_wheel_projects[i]) == 0;
    char *version = NULL, *tag = NULL;
    if (!known || !file || !sha || !plat || !cc_sha256_is_hex(sha) || strlen(sha) != 64 ||
        !cJSON_IsNumber(size) || size->valuedouble < 1 ||
        cc_wheel_parse_filename(pkg, file, &version, &tag) != 0)
        return -1;
    cc_wheel_row r = {
        {pkg, version, file, tag, sha, (uint64_t)size->valuedouble, cc_json_get_str(e, "url")},
        plat,
        pkg + strlen(pkg) - 2,
        strstr(pkg, "-jit-") != NULL};
    int rc = cc_wheel_set_add(out, &r);
    free(version);
    free(tag);
    return rc == 0 ? 0 : -2;
}

cudnnctl_err cc_wheels_store_load(cudnnctl_ctx *ctx, const char *state, cc_wheel_set *out)
{
    memset(out, 0, sizeof(*out));
    char *path = store_path(state), *text = NULL;
    if (!path)
        CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    cc_pf_stat_t st;
    if (cc_pf_lstat(path, &st) != 0 || !st.exists) {
        free(path);
        return CUDNNCTL_E_OK; /* never refreshed */
    }
    cudnnctl_err e = CUDNNCTL_E_OK;
    cJSON *j = NULL;
    if (cc_sys_read_trusted(ctx, path, STORE_MAX, &text, NULL) != 0) {
        e = cudnnctl_last_error(ctx)->code == CUDNNCTL_E_UNTRUSTED
                ? CUDNNCTL_E_UNTRUSTED
                : CC_ERR_PF(ctx, "cannot read the wheel catalog", path);
        goto out;
    }
    j = cJSON_Parse(text);
    const cJSON *ws = cc_json_format1_array(j, "wheels"), *it;
    if (!ws) {
        e = CC_ERR(ctx, CUDNNCTL_E_PARSE,
                   "%s is not a cudnnctl wheel catalog (format 1): remove it and run `cudnnctl "
                   "update` again",
                   path);
        goto out;
    }
    out->source = cc_json_dup_str(j, "source");
    out->updated_at = cc_json_dup_str(j, "updated_at");
    cJSON_ArrayForEach(it, ws)
    {
        int rc = parse_row(it, out);
        if (rc == -2) {
            e = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
            goto out;
        }
        if (rc != 0)
            cc_log(ctx, CUDNNCTL_LOG_WARN, "%s: an entry that is no cuDNN wheel is skipped", path);
    }
out:
    cJSON_Delete(j);
    free(text);
    free(path);
    if (e != CUDNNCTL_E_OK)
        cc_wheel_set_free(out);
    return e;
}

static int add_row(cJSON *ws, const cc_wheel_row *r)
{
    cJSON *e = cJSON_CreateObject();
    return e && cJSON_AddItemToArray(ws, e) && cc_json_str(e, "package", r->pub.package) == 0 &&
                   cc_json_str(e, "version", r->pub.version) == 0 &&
                   cc_json_str(e, "filename", r->pub.filename) == 0 &&
                   cc_json_str(e, "tag", r->pub.tag) == 0 &&
                   cc_json_str(e, "sha256", r->pub.sha256) == 0 &&
                   cJSON_AddNumberToObject(e, "size", (double)r->pub.size) &&
                   cc_json_str(e, "url", r->pub.url) == 0 &&
                   cc_json_str(e, "platform", r->platform) == 0 &&
                   cc_json_str(e, "cuda", r->cuda) == 0 && cJSON_AddBoolToObject(e, "jit", r->jit)
               ? 0
               : -1;
}

cudnnctl_err cc_wheels_store_save(cudnnctl_ctx *ctx, const char *state, const cc_wheel_set *s)
{
    cJSON *j = cJSON_CreateObject(), *ws = j ? cJSON_AddArrayToObject(j, "wheels") : NULL;
    int ok = ws && cJSON_AddNumberToObject(j, "format", 1) &&
             cc_json_str(j, "source", s->source) == 0 &&
             cc_json_str(j, "updated_at", s->updated_at) == 0;
    for (size_t i = 0; ok && i < s->n; i++)
        ok = add_row(ws, &s->v[i]) == 0;
    char *text = ok ? cJSON_Print(j) : NULL;
    cJSON_Delete(j);
    char *dir = cc_store_dir(state), *path = store_path(state);
    cudnnctl_err e = CUDNNCTL_E_OK;
    if (!text || !dir || !path)
        e = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    else if (cc_sys_mkdir_p(ctx, dir, 0755) != 0 ||
             cc_sys_write_file_atomic(ctx, path, text, strlen(text), 0644) != 0)
        e = CC_ERR_PF(ctx, "cannot write the wheel catalog", path);
    cJSON_free(text);
    free(dir);
    free(path);
    return e;
}

/* ---- the stored rows, once per state dir and process ---------------------------------------- */

typedef struct loaded_s {
    char *state;
    cc_wheel_set set;
    struct loaded_s *next;
} loaded;

static loaded *g_loaded; /* kept for the process: a plan points at its wheel's row */

const cc_wheel_row *cc_wheels_stored(cudnnctl_ctx *ctx, size_t *n)
{
    *n = 0;
    char *state = cc_state_dir(ctx);
    if (!state)
        return NULL;
    for (loaded *l = g_loaded; l; l = l->next)
        if (strcmp(l->state, state) == 0) {
            free(state);
            *n = l->set.n;
            return l->set.v;
        }
    loaded *l = calloc(1, sizeof(*l));
    if (!l) {
        free(state);
        return NULL;
    }
    if (cc_wheels_store_load(ctx, state, &l->set) != CUDNNCTL_E_OK) {
        cc_log(ctx, CUDNNCTL_LOG_WARN, "the stored wheel catalog is not used: %s",
               cudnnctl_last_error(ctx)->detail ? cudnnctl_last_error(ctx)->detail : "?");
        cc_clear_error(ctx);
    }
    l->state = state;
    l->next = g_loaded;
    g_loaded = l;
    *n = l->set.n;
    return l->set.v;
}

/* ---- update's step: the pins ---------------------------------------------------------------- */

/* The pinned row of a file name: embedded first, then stored. *from: where it came from. */
static const cc_wheel_row *pin_of(const cc_wheel_set *stored, const char *file, char **from)
{
    for (size_t i = 0; i < cc_wheel_row_count; i++)
        if (strcmp(cc_wheel_rows[i].pub.filename, file) == 0) {
            *from = cc_strdup("embedded in cudnnctl (the wheel catalog it was built with)");
            return &cc_wheel_rows[i];
        }
    for (size_t i = 0; i < stored->n; i++)
        if (strcmp(stored->v[i].pub.filename, file) == 0) {
            *from = cc_asprintf("read from %s by the update of %s",
                                stored->source ? stored->source : "?",
                                stored->updated_at ? stored->updated_at : "?");
            return &stored->v[i];
        }
    *from = NULL;
    return NULL;
}

static cudnnctl_err judge_one(cudnnctl_ctx *ctx, const cc_wheel_set *stored, const cc_wheel_row *w,
                              cudnnctl_update_item *it, cc_wheel_set *next)
{
    char *from = NULL;
    const cc_wheel_row *p = pin_of(stored, w->pub.filename, &from);
    it->name = cc_strdup(w->pub.filename);
    it->url = cc_strdup(w->pub.url);
    it->sha256 = cc_strdup(w->pub.sha256);
    it->result = !p                                                ? "added"
                 : strcmp(p->pub.sha256, w->pub.sha256) == 0 &&
                         p->pub.size == w->pub.size                ? "known"
                                                                   : "refused";
    if (p) {
        it->pinned_sha256 = cc_strdup(p->pub.sha256);
        it->pinned_from = from;
    } else {
        free(from);
    }
    if (!it->name || !it->url || !it->sha256 || (p && (!it->pinned_sha256 || !it->pinned_from)) ||
        (!p && cc_wheel_set_add(next, w) != 0))
        CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    return CUDNNCTL_E_OK;
}

cudnnctl_err cc_wheels_judge(cudnnctl_ctx *ctx, const cc_wheel_set *stored,
                             const cc_wheel_set *listed, cudnnctl_update_result *r,
                             cc_wheel_set *next)
{
    memset(next, 0, sizeof(*next));
    for (size_t i = 0; i < stored->n; i++)
        if (cc_wheel_set_add(next, &stored->v[i]) != 0)
            CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    r->wheel_items = calloc(listed->n ? listed->n : 1, sizeof(*r->wheel_items));
    if (!r->wheel_items)
        CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    for (size_t i = 0; i < listed->n; i++) {
        cudnnctl_err e = judge_one(ctx, stored, &listed->v[i], &r->wheel_items[i], next);
        r->n_wheel_items++;
        if (e != CUDNNCTL_E_OK)
            return e;
        r->n_wheels_added += strcmp(r->wheel_items[i].result, "added") == 0;
        r->n_wheels_refused += strcmp(r->wheel_items[i].result, "refused") == 0;
    }
    const cudnnctl_update_item *bad = NULL;
    for (size_t i = 0; i < r->n_wheel_items && !bad; i++)
        if (strcmp(r->wheel_items[i].result, "refused") == 0)
            bad = &r->wheel_items[i];
    if (bad)
        CC_RET_ERR(ctx, CUDNNCTL_E_MANIFEST_PINNED,
                   "the package index lists %s (%s) with SHA-256 %s, but the wheel catalog pins "
                   "that file with SHA-256 %s (%s): the index or a proxy serves another file "
                   "under NVIDIA's name%s. Nothing was stored; the catalog keeps the pinned "
                   "wheel. Check the index (pip config list), or leave out --index-url",
                   bad->name, bad->url, bad->sha256, bad->pinned_sha256, bad->pinned_from,
                   r->n_wheels_refused > 1 ? " (and more files: see the JSON)" : "");
    return CUDNNCTL_E_OK;
}
