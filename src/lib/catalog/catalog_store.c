/* catalog_store.c: the manifests `cudnnctl update` fetched, kept under the state dir (root:
 * the system's, a user: the user's own) — STATE/catalog/index.json (each manifest's name,
 * SHA-256, where and when it came from, an accepted override) and the bytes as
 * STATE/catalog/manifests/<sha256>.json. Written through cc_sys_write_file_atomic, read through
 * cc_sys_read_file, every manifest checked against its recorded SHA-256 before it is used. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "catalog_store.h"
#include "grow.h"
#include "hash.h"
#include "json.h"

#define INDEX_MAX (4u << 20)

int cc_store_sha_hex(const void *data, size_t len, char hex[65])
{
    cc_sha256 *h = cc_sha256_new();
    int ok = h && cc_sha256_update(h, data, len) == 0 && cc_sha256_final_hex(h, hex) == 0;
    cc_sha256_free(h);
    return ok ? 0 : -1;
}

void cc_store_free(cc_catalog_store *s)
{
    for (size_t i = 0; i < s->n; i++) {
        free(s->v[i].name);
        free(s->v[i].sha256);
        free(s->v[i].url);
        free(s->v[i].fetched_at);
        free(s->v[i].override);
    }
    free(s->v);
    free(s->updated_at);
    free(s->source);
    memset(s, 0, sizeof(*s));
}

char *cc_store_dir(const char *state)
{
    return cc_path_join(state, "catalog");
}

char *cc_store_manifest_path(const char *state, const char *sha256)
{
    char *rel = cc_asprintf("catalog/manifests/%s.json", sha256);
    char *p = rel ? cc_path_join(state, rel) : NULL;
    free(rel);
    return p;
}

int cc_store_add(cc_catalog_store *s, const cc_stored_manifest *m)
{
    if (cc_grow(&s->v, NULL, s->n + 1, sizeof(*s->v)) != 0)
        return -1;
    cc_stored_manifest *d = &s->v[s->n];
    memset(d, 0, sizeof(*d));
    d->name = cc_strdup(m->name);
    d->sha256 = cc_strdup(m->sha256);
    d->url = m->url ? cc_strdup(m->url) : NULL;
    d->fetched_at = m->fetched_at ? cc_strdup(m->fetched_at) : NULL;
    d->override = m->override ? cc_strdup(m->override) : NULL;
    s->n++;
    return d->name && d->sha256 && (!m->url || d->url) && (!m->fetched_at || d->fetched_at) &&
                   (!m->override || d->override)
               ? 0
               : -1;
}

/* One entry of index.json; a name or digest that is not what update writes is refused (the
 * file is the state dir's, but a manifest path is built from the digest). */
static int parse_entry(const cJSON *e, cc_stored_manifest *m)
{
    memset(m, 0, sizeof(*m));
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(e, "name");
    const cJSON *h = cJSON_GetObjectItemCaseSensitive(e, "sha256");
    if (!cJSON_IsString(n) || !cc_catalog_listing_name_ok(n->valuestring) || !cJSON_IsString(h) ||
        !cc_sha256_is_hex(h->valuestring) || strlen(h->valuestring) != 64)
        return -1;
    m->name = n->valuestring;
    m->sha256 = h->valuestring;
    const cJSON *u = cJSON_GetObjectItemCaseSensitive(e, "url");
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(e, "fetched_at");
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(e, "override");
    m->url = cJSON_IsString(u) ? u->valuestring : NULL;
    m->fetched_at = cJSON_IsString(f) ? f->valuestring : NULL;
    m->override = cJSON_IsString(o) ? o->valuestring : NULL;
    return 0;
}

cudnnctl_err cc_store_load(cudnnctl_ctx *ctx, const char *state, cc_catalog_store *out)
{
    memset(out, 0, sizeof(*out));
    char *dir = cc_store_dir(state);
    char *path = dir ? cc_path_join(dir, "index.json") : NULL, *text = NULL;
    cudnnctl_err e = CUDNNCTL_E_OK;
    free(dir);
    if (!path)
        CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    cc_pf_stat_t st;
    if (cc_pf_lstat(path, &st) != 0 || !st.exists) {
        free(path);
        return CUDNNCTL_E_OK; /* never updated */
    }
    cJSON *j = NULL;
    if (cc_sys_read_file(ctx, path, INDEX_MAX, &text, NULL) != 0) {
        e = CC_ERR_PF(ctx, "cannot read the catalog index", path);
        goto out;
    }
    j = cJSON_Parse(text);
    const cJSON *ms = cc_json_format1_array(j, "manifests"), *it;
    if (!ms) {
        e = CC_ERR(ctx, CUDNNCTL_E_PARSE,
                   "%s is not a cudnnctl catalog index (format 1): remove it and run `cudnnctl "
                   "update` again",
                   path);
        goto out;
    }
    out->updated_at = cc_json_dup_str(j, "updated_at");
    out->source = cc_json_dup_str(j, "source");
    cJSON_ArrayForEach(it, ms)
    {
        cc_stored_manifest m;
        if (parse_entry(it, &m) != 0) {
            cc_log(ctx, CUDNNCTL_LOG_WARN, "%s: an entry without a manifest name and SHA-256 is "
                   "skipped", path);
            continue;
        }
        if (cc_store_add(out, &m) != 0) {
            e = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
            goto out;
        }
    }
out:
    cJSON_Delete(j);
    free(text);
    free(path);
    if (e != CUDNNCTL_E_OK)
        cc_store_free(out);
    return e;
}

cudnnctl_err cc_store_read_manifest(cudnnctl_ctx *ctx, const char *state,
                                    const cc_stored_manifest *m, char **data, size_t *len)
{
    *data = NULL;
    char *path = cc_store_manifest_path(state, m->sha256);
    char hex[65];
    if (!path)
        CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    cudnnctl_err e = CUDNNCTL_E_OK;
    if (cc_sys_read_file(ctx, path, CC_MANIFEST_MAX, data, len) != 0)
        e = CC_ERR_PF(ctx, "cannot read the stored manifest", path);
    else if (cc_store_sha_hex(*data, *len, hex) != 0 || strcmp(hex, m->sha256) != 0)
        e = CC_ERR(ctx, CUDNNCTL_E_HASH_MISMATCH,
                   "the stored copy %s of %s is damaged (SHA-256 %s, recorded %s): run `cudnnctl "
                   "update` to fetch it again",
                   path, m->name, hex, m->sha256);
    if (e != CUDNNCTL_E_OK) {
        free(*data);
        *data = NULL;
    }
    free(path);
    return e;
}

cudnnctl_err cc_store_save(cudnnctl_ctx *ctx, const char *state, const cc_catalog_store *s)
{
    cJSON *j = cJSON_CreateObject(), *ms = j ? cJSON_AddArrayToObject(j, "manifests") : NULL;
    int ok = ms && cJSON_AddNumberToObject(j, "format", 1) &&
             cc_json_str(j, "updated_at", s->updated_at) == 0 &&
             cc_json_str(j, "source", s->source) == 0;
    for (size_t i = 0; ok && i < s->n; i++) {
        const cc_stored_manifest *m = &s->v[i];
        cJSON *e = cJSON_CreateObject();
        ok = e && cJSON_AddItemToArray(ms, e) && cc_json_str(e, "name", m->name) == 0 &&
             cc_json_str(e, "sha256", m->sha256) == 0 && cc_json_str(e, "url", m->url) == 0 &&
             cc_json_str(e, "fetched_at", m->fetched_at) == 0 &&
             (!m->override || cc_json_str(e, "override", m->override) == 0);
    }
    char *text = ok ? cJSON_Print(j) : NULL;
    cJSON_Delete(j);
    char *dir = cc_store_dir(state);
    char *path = dir ? cc_path_join(dir, "index.json") : NULL;
    cudnnctl_err e = CUDNNCTL_E_OK;
    if (!text || !path)
        e = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    else if (cc_sys_mkdir_p(ctx, dir, 0755) != 0 ||
             cc_sys_write_file_atomic(ctx, path, text, strlen(text), 0644) != 0)
        e = CC_ERR_PF(ctx, "cannot write the catalog index", path);
    cJSON_free(text);
    free(dir);
    free(path);
    return e;
}

/* Days since 1970-01-01 of a civil date (Howard Hinnant's days_from_civil). */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
    y -= m <= 2;
    const int64_t era = (y >= 0 ? y : y - 399) / 400;
    const unsigned yoe = (unsigned)(y - era * 400);
    const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (int64_t)doe - 719468;
}

int64_t cc_iso_epoch(const char *iso)
{
    int y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0;
    if (!iso)
        return -1;
    int n = sscanf(iso, "%4d-%2d-%2dT%2d:%2d:%2d", &y, &mo, &d, &h, &mi, &s);
    if (n != 3 && n != 6)
        return -1;
    if (y < 1970 || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 60)
        return -1;
    return days_from_civil(y, (unsigned)mo, (unsigned)d) * 86400 + h * 3600 + mi * 60 + s;
}
