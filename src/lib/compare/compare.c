/* compare.c: drift between environment records (report documents): platform, OS, tool
 * version, driver, CUDA toolkits, cuDNN versions per origin, installs, doctor's findings and
 * validation status, as a host x item matrix with the drifting items marked. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "internal.h"
#include "json.h"

#define ABSENT "-"

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Sorted, de-duplicated, ", "-joined; ABSENT when empty. */
static char *join_set(cc_strv *sv)
{
    if (sv->n == 0)
        return cc_strdup(ABSENT);
    qsort(sv->v, sv->n, sizeof(char *), cmp_str);
    cc_buf b = {0};
    for (size_t i = 0; i < sv->n; i++)
        if (i == 0 || strcmp(sv->v[i], sv->v[i - 1]) != 0)
            cc_buf_printf(&b, "%s%s", b.len ? ", " : "", sv->v[i]);
    return b.data ? b.data : cc_strdup(ABSENT);
}

static char *dup_or_absent(const char *s)
{
    return cc_strdup(s && *s ? s : ABSENT);
}

static char *toolkit_version(const cJSON *t)
{
    const char *v = cc_json_get_str(t, "version_full");
    return dup_or_absent(v ? v : cc_json_get_str(t, "version"));
}

/* ---- items of one document ------------------------------------------------------------------ */

static char *os_value(const cJSON *os)
{
    const char *p = cc_json_get_str(os, "pretty_name");
    if (p)
        return cc_strdup(p);
    const char *id = cc_json_get_str(os, "id"), *v = cc_json_get_str(os, "version_id");
    return id ? cc_asprintf("%s %s", id, v ? v : "") : dup_or_absent(cc_json_get_str(os, "name"));
}

/* One install of the list: "<cudnn>/cuda<variant> <dir>". */
static char *install_value(const cJSON *i)
{
    const char *v = cc_json_get_str(i, "cudnn_version"), *cv = cc_json_get_str(i, "cuda_variant");
    const char *dir = cc_json_get_str(i, "install_dir");
    return cc_asprintf("%s/cuda%s %s", v ? v : "?", cv ? cv : "?", dir ? dir : "?");
}

/* The value of an item for one document, malloc'd (ABSENT when it has none). */
static char *item_value(const cJSON *doc, const char *item)
{
    const cJSON *det = cJSON_GetObjectItemCaseSensitive(doc, "detect");
    const cJSON *host = cJSON_GetObjectItemCaseSensitive(doc, "host");
    const cJSON *os = cJSON_GetObjectItemCaseSensitive(host, "os");
    const cJSON *drv = cJSON_GetObjectItemCaseSensitive(doc, "driver");
    cc_strv set = {0};
    char *out = NULL;
    if (strcmp(item, "platform") == 0)
        return dup_or_absent(cc_json_get_str(doc, "platform"));
    if (strcmp(item, "os") == 0)
        return os_value(os);
    if (strcmp(item, "cudnnctl") == 0)
        return dup_or_absent(cc_json_get_str(doc, "cudnnctl_version"));
    if (strcmp(item, "driver") == 0)
        return dup_or_absent(cc_json_get_str(drv, "version"));
    if (strcmp(item, "driver.cuda") == 0) {
        const cJSON *c = cJSON_GetObjectItemCaseSensitive(drv, "cuda_version");
        int v = cJSON_IsNumber(c) ? c->valueint : 0;
        return v > 0 ? cc_asprintf("%d.%d", v / 1000, v % 1000 / 10) : cc_strdup(ABSENT);
    }
    const cJSON *tks = cJSON_GetObjectItemCaseSensitive(det, "toolkits");
    if (strcmp(item, "cuda.active") == 0) {
        const cJSON *t;
        cJSON_ArrayForEach(t, tks) if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(
                                           t, "active"))) return toolkit_version(t);
        return cc_strdup(ABSENT);
    }
    if (strcmp(item, "cuda.toolkits") == 0) {
        const cJSON *t;
        cJSON_ArrayForEach(t, tks) cc_strv_push_own(&set, toolkit_version(t));
    } else if (cc_str_starts(item, "cudnn.")) {
        const char *origin = item + 6;
        const cJSON *c;
        cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(det, "cudnn"))
        {
            const char *o = cc_json_get_str(c, "origin"), *v = cc_json_get_str(c, "version");
            if (o && v && strcmp(o, origin) == 0)
                cc_strv_push(&set, v);
        }
    } else if (strcmp(item, "installs") == 0) {
        const cJSON *ins = cJSON_GetObjectItemCaseSensitive(doc, "installs");
        const cJSON *arr =
            cJSON_IsArray(ins) ? ins : cJSON_GetObjectItemCaseSensitive(ins, "installs");
        const cJSON *i;
        cJSON_ArrayForEach(i, arr) cc_strv_push_own(&set, install_value(i));
    } else if (strcmp(item, "doctor") == 0) {
        const cJSON *f;
        cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(
                                  cJSON_GetObjectItemCaseSensitive(doc, "doctor"), "findings"))
        {
            const char *sev = cc_json_get_str(f, "severity"), *code = cc_json_get_str(f, "code");
            if (code && sev && strcmp(sev, "info") != 0)
                cc_strv_push(&set, code);
        }
        if (!cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(doc, "doctor")))
            return cc_strdup(ABSENT);
        if (set.n == 0) {
            cc_strv_free(&set);
            return cc_strdup("ok");
        }
    } else if (strcmp(item, "validate") == 0) {
        return dup_or_absent(
            cc_json_get_str(cJSON_GetObjectItemCaseSensitive(doc, "validate"), "status"));
    }
    out = join_set(&set);
    cc_strv_free(&set);
    return out;
}

/* ---- the matrix ------------------------------------------------------------------------------ */

void cudnnctl_compare_result_free(cudnnctl_compare_result *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->n_items; i++) {
        for (size_t h = 0; h < r->n_hosts; h++)
            free(r->items[i].values[h]);
        free(r->items[i].values);
        free(r->items[i].item);
    }
    free(r->items);
    for (size_t h = 0; h < r->n_hosts; h++)
        free(r->hosts[h]);
    free(r->hosts);
    free(r);
}

/* Item names in their fixed order: the cuDNN origins are those any document has. */
static int item_names(cJSON **docs, size_t n, cc_strv *names)
{
    static const char *const head[] = {"platform",    "os",          "cudnnctl",     "driver",
                                       "driver.cuda", "cuda.active", "cuda.toolkits"};
    static const char *const tail[] = {"installs", "doctor", "validate"};
    int rc = 0;
    for (size_t i = 0; i < sizeof(head) / sizeof(head[0]); i++)
        rc |= cc_strv_push(names, head[i]);
    cc_strv origins = {0};
    for (size_t d = 0; d < n; d++) {
        const cJSON *c;
        cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(
                                  cJSON_GetObjectItemCaseSensitive(docs[d], "detect"), "cudnn"))
        {
            const char *o = cc_json_get_str(c, "origin");
            if (o && !cc_strv_contains(&origins, o))
                rc |= cc_strv_push(&origins, o);
        }
    }
    cc_strv_sort(&origins);
    for (size_t i = 0; i < origins.n; i++)
        rc |= cc_strv_push_own(names, cc_asprintf("cudnn.%s", origins.v[i]));
    cc_strv_free(&origins);
    for (size_t i = 0; i < sizeof(tail) / sizeof(tail[0]); i++)
        rc |= cc_strv_push(names, tail[i]);
    return rc;
}

static char *host_name(const cJSON *doc, const char *label, size_t i, char **seen, size_t nseen)
{
    const char *h = cc_json_get_str(cJSON_GetObjectItemCaseSensitive(doc, "host"), "hostname");
    char *base = h && *h ? cc_strdup(h)
                 : label ? cc_strdup(cc_path_base(label))
                         : cc_asprintf("#%zu", i + 1);
    if (!base)
        return NULL;
    char *name = cc_strdup(base);
    for (int k = 2; name; k++) {
        int dup = 0;
        for (size_t s = 0; s < nseen && !dup; s++)
            dup = strcmp(seen[s], name) == 0;
        if (!dup)
            break;
        free(name);
        name = cc_asprintf("%s#%d", base, k);
    }
    free(base);
    return name;
}

cudnnctl_err cudnnctl_compare(cudnnctl_ctx *ctx, const char *const *reports,
                              const char *const *names, size_t n, cudnnctl_compare_result **out)
{
    *out = NULL;
    if (n < 2)
        CC_RET_ERR(ctx, CUDNNCTL_E_USAGE,
                   "compare needs at least two reports (cudnnctl report > "
                   "host.json on each host)");
    cudnnctl_err e = CUDNNCTL_E_OK;
    cJSON **docs = calloc(n, sizeof(*docs));
    cudnnctl_compare_result *r = calloc(1, sizeof(*r));
    cc_strv items = {0};
    if (!docs || !r || !(r->hosts = calloc(n, sizeof(char *))))
        goto oom;
    for (size_t i = 0; i < n; i++) {
        char label[32];
        snprintf(label, sizeof(label), "#%zu", i + 1);
        const char *what = names && names[i] ? names[i] : label;
        docs[i] = cJSON_Parse(reports[i]);
        const char *fmt = docs[i] ? cc_json_get_str(docs[i], "format") : NULL;
        if (!docs[i] || !fmt || strcmp(fmt, "cudnnctl-report") != 0) {
            e = CC_ERR(ctx, CUDNNCTL_E_PARSE,
                       "%s is not a cudnnctl report (%s): make one with `cudnnctl report > "
                       "FILE` on each host",
                       what, docs[i] ? "no \"format\": \"cudnnctl-report\"" : "not JSON");
            goto out;
        }
        if (!(r->hosts[i] = host_name(docs[i], names ? names[i] : NULL, i, r->hosts, i)))
            goto oom;
        r->n_hosts++;
    }
    if (item_names(docs, n, &items) != 0 || !(r->items = calloc(items.n, sizeof(*r->items))))
        goto oom;
    for (size_t k = 0; k < items.n; k++) {
        cudnnctl_compare_item *it = &r->items[k];
        if (!(it->item = cc_strdup(items.v[k])) || !(it->values = calloc(n, sizeof(char *))))
            goto oom;
        r->n_items++;
        for (size_t i = 0; i < n; i++) {
            if (!(it->values[i] = item_value(docs[i], items.v[k])))
                goto oom;
            if (i && strcmp(it->values[i], it->values[0]) != 0)
                it->drift = 1;
        }
        r->n_drift += it->drift;
    }
    *out = r;
    r = NULL;
    goto out;
oom:
    e = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory while comparing reports");
out:
    if (docs)
        for (size_t i = 0; i < n; i++)
            cJSON_Delete(docs[i]);
    free(docs);
    cc_strv_free(&items);
    cudnnctl_compare_result_free(r);
    return e;
}

cudnnctl_err cudnnctl_compare_files(cudnnctl_ctx *ctx, const char *const *files, size_t n,
                                    cudnnctl_compare_result **out)
{
    *out = NULL;
    char **texts = calloc(n ? n : 1, sizeof(char *));
    cudnnctl_err e = CUDNNCTL_E_OK;
    if (!texts)
        CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    for (size_t i = 0; i < n && e == CUDNNCTL_E_OK; i++) {
        char *p = cc_rooted(ctx, files[i]);
        size_t len = 0;
        cc_pf_stat_t st;
        if (!p)
            e = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
        else if (cc_pf_stat(p, &st) != 0 || !st.exists)
            e = CC_ERR(ctx, CUDNNCTL_E_NOT_FOUND, "report %s does not exist", files[i]);
        else if (cc_sys_read_file(ctx, p, 64u << 20, &texts[i], &len) != 0)
            e = CC_ERR_PF(ctx, "cannot read report", files[i]);
        free(p);
    }
    if (e == CUDNNCTL_E_OK)
        e = cudnnctl_compare(ctx, (const char *const *)texts, files, n, out);
    for (size_t i = 0; i < n; i++)
        free(texts[i]);
    free(texts);
    return e;
}

static cJSON *item_json(const cudnnctl_compare_result *r, const cudnnctl_compare_item *it)
{
    cJSON *o = cJSON_CreateObject();
    cJSON *vals = o && cJSON_AddStringToObject(o, "item", it->item) &&
                          cJSON_AddBoolToObject(o, "drift", it->drift)
                      ? cJSON_AddObjectToObject(o, "values")
                      : NULL;
    if (!vals) {
        cJSON_Delete(o);
        return NULL;
    }
    for (size_t h = 0; h < r->n_hosts; h++)
        if (!cJSON_AddStringToObject(vals, r->hosts[h], it->values[h])) {
            cJSON_Delete(o);
            return NULL;
        }
    return o;
}

cudnnctl_err cudnnctl_compare_result_json(const cudnnctl_compare_result *r, char **json)
{
    *json = NULL;
    cJSON *root = cJSON_CreateObject();
    cJSON *hosts = root ? cJSON_AddArrayToObject(root, "hosts") : NULL;
    cJSON *items = root ? cJSON_AddArrayToObject(root, "items") : NULL;
    cJSON *drift = root ? cJSON_AddArrayToObject(root, "drift") : NULL;
    if (!hosts || !items || !drift || !cJSON_AddBoolToObject(root, "identical", r->n_drift == 0) ||
        !cJSON_AddNumberToObject(root, "n_drift", (double)r->n_drift))
        goto oom;
    for (size_t h = 0; h < r->n_hosts; h++)
        if (!cJSON_AddItemToArray(hosts, cJSON_CreateString(r->hosts[h])))
            goto oom;
    for (size_t i = 0; i < r->n_items; i++) {
        cJSON *a = item_json(r, &r->items[i]);
        if (!a || !cJSON_AddItemToArray(items, a)) {
            cJSON_Delete(a);
            goto oom;
        }
        if (!r->items[i].drift)
            continue;
        cJSON *b = item_json(r, &r->items[i]);
        if (!b || !cJSON_AddItemToArray(drift, b)) {
            cJSON_Delete(b);
            goto oom;
        }
    }
    return cc_json_out(root, 1, json);
oom:
    cJSON_Delete(root);
    return CUDNNCTL_E_NOMEM;
}
