/* store_manifest.c: a store entry's manifest.json — what the entry holds, one record per entry
 * of the staged tree (type, mode, size, mtime, SHA-256, link target), written atomically and read
 * back trusted (cc_sys_read_trusted). */
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "json.h"
#include "store.h"
#include "sys.h"

#define FORMAT "cudnnctl-store/1"

static const char *type_name(cc_store_type t)
{
    return t == CC_ST_DIR ? "dir" : t == CC_ST_LINK ? "link" : "file";
}

static cJSON *file_json(const cc_store_file *f)
{
    cJSON *o = cJSON_CreateObject();
    int ok = o && cJSON_AddStringToObject(o, "path", f->rel) &&
             cJSON_AddStringToObject(o, "type", type_name(f->type)) &&
             cJSON_AddNumberToObject(o, "mode", (double)f->mode);
    if (ok && f->type == CC_ST_FILE)
        ok = cJSON_AddNumberToObject(o, "size", (double)f->size) &&
             cJSON_AddNumberToObject(o, "mtime", (double)f->mtime) &&
             cJSON_AddNumberToObject(o, "mtime_ns", (double)f->mtime_ns) &&
             cJSON_AddStringToObject(o, "sha256", f->sha256);
    if (ok && f->type == CC_ST_LINK)
        ok = cJSON_AddStringToObject(o, "target", f->link_target ? f->link_target : "") != NULL;
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

cudnnctl_err cc_store_manifest_write(cudnnctl_ctx *ctx, const char *path, const char *key,
                                     const char *archive_sha256, uint64_t archive_size,
                                     const cc_store_file *v, size_t n)
{
    cJSON *root = cJSON_CreateObject(), *a = NULL;
    char *now = cc_now_iso();
    int ok = root && now && cJSON_AddStringToObject(root, "format", FORMAT) &&
             cJSON_AddStringToObject(root, "key", key) &&
             cJSON_AddStringToObject(root, "archive_sha256", archive_sha256) &&
             cJSON_AddNumberToObject(root, "archive_size", (double)archive_size) &&
             cJSON_AddStringToObject(root, "created_at", now) &&
             (a = cJSON_AddArrayToObject(root, "files")) != NULL;
    free(now);
    for (size_t i = 0; ok && i < n; i++) {
        cJSON *o = file_json(&v[i]);
        ok = o && cJSON_AddItemToArray(a, o);
    }
    char *text = ok ? cJSON_PrintUnformatted(root) : NULL;
    cJSON_Delete(root);
    if (!text)
        CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    int w = cc_sys_write_file_atomic(ctx, path, text, strlen(text), 0444);
    cJSON_free(text);
    return w == 0 ? CUDNNCTL_E_OK : CC_ERR_PF(ctx, "cannot write the store manifest", path);
}

static int read_file_rec(const cJSON *o, cc_store_file *f)
{
    const cJSON *p = cJSON_GetObjectItem(o, "path"), *t = cJSON_GetObjectItem(o, "type");
    const cJSON *m = cJSON_GetObjectItem(o, "mode");
    if (!cJSON_IsString(p) || !cJSON_IsString(t) || !cJSON_IsNumber(m) || !*p->valuestring ||
        p->valuestring[0] == '/' || strstr(p->valuestring, "..") || strchr(p->valuestring, '\\'))
        return -1; /* a path that could leave the staging dir is no record of ours */
    f->rel = cc_strdup(p->valuestring);
    f->mode = (uint32_t)m->valuedouble & 07777;
    if (strcmp(t->valuestring, "dir") == 0) {
        f->type = CC_ST_DIR;
    } else if (strcmp(t->valuestring, "link") == 0) {
        const cJSON *tg = cJSON_GetObjectItem(o, "target");
        f->type = CC_ST_LINK;
        if (!cJSON_IsString(tg))
            return -1;
        f->link_target = cc_strdup(tg->valuestring);
        if (!f->link_target)
            return -1;
    } else if (strcmp(t->valuestring, "file") == 0) {
        const cJSON *s = cJSON_GetObjectItem(o, "size"), *mt = cJSON_GetObjectItem(o, "mtime");
        const cJSON *h = cJSON_GetObjectItem(o, "sha256");
        f->type = CC_ST_FILE;
        if (!cJSON_IsNumber(s) || !cJSON_IsNumber(mt) || !cJSON_IsString(h) ||
            !cc_sha256_is_hex(h->valuestring))
            return -1;
        f->size = (uint64_t)s->valuedouble;
        f->mtime = (int64_t)mt->valuedouble;
        const cJSON *ns = cJSON_GetObjectItem(o, "mtime_ns");
        f->mtime_ns = cJSON_IsNumber(ns) ? (uint32_t)ns->valuedouble : 0;
        memcpy(f->sha256, h->valuestring, 65);
    } else {
        return -1;
    }
    return f->rel ? 0 : -1;
}

cudnnctl_err cc_store_manifest_read(cudnnctl_ctx *ctx, const char *path, cc_store_entry *e)
{
    char *data = NULL;
    size_t len = 0;
    if (cc_sys_read_trusted(ctx, path, (size_t)16 << 20, &data, &len) != 0)
        return ctx->err.code ? ctx->err.code : CC_ERR_PF(ctx, "cannot read", path);
    cJSON *root = cJSON_ParseWithLength(data, len);
    free(data);
    const cJSON *fmt = cJSON_GetObjectItem(root, "format");
    const cJSON *sha = cJSON_GetObjectItem(root, "archive_sha256");
    const cJSON *sz = cJSON_GetObjectItem(root, "archive_size");
    const cJSON *files = cJSON_GetObjectItem(root, "files");
    int ok = cJSON_IsString(fmt) && strcmp(fmt->valuestring, FORMAT) == 0 && cJSON_IsString(sha) &&
             cc_sha256_is_hex(sha->valuestring) && cJSON_IsNumber(sz) && cJSON_IsArray(files);
    size_t n = ok ? (size_t)cJSON_GetArraySize(files) : 0;
    e->files = ok && n ? calloc(n, sizeof(*e->files)) : NULL;
    ok = ok && (n == 0 || e->files);
    for (size_t i = 0; ok && i < n; i++) {
        ok = read_file_rec(cJSON_GetArrayItem(files, (int)i), &e->files[i]) == 0;
        e->n = i + 1;
    }
    if (ok) {
        memcpy(e->archive_sha256, sha->valuestring, 65);
        e->archive_size = (uint64_t)sz->valuedouble;
    }
    cJSON_Delete(root);
    if (!ok)
        CC_RET_ERR(ctx, CUDNNCTL_E_IO, "the store manifest %s is damaged", path);
    return CUDNNCTL_E_OK;
}
