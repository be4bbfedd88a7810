/* catalog.c: the catalog of cuDNN archives: the embedded manifests plus any added from a file or
 * URL, de-duplicated by relative_path and kept newest first. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "catalog_model.h"
#include "catalog_store.h"
#include "embedded.h"
#include "hash.h"
#include "trust.h"

struct cudnnctl_catalog {
    cc_archive_vec all;
    size_t n_manifests;
    cc_strv conflicts; /* an added manifest vs the embedded catalog (catalog_trust.c) */
    cc_strv override_origin, override_note; /* stored manifests accepted over a pin */
};

/* ---- ordering and de-duplication ----------------------------------------------------------- */

/* Display order: newest cuDNN first, then platform, then the newest CUDA build first. */
static int cmp_display(const void *pa, const void *pb)
{
    const cudnnctl_archive *a = pa, *b = pb;
    int c = cc_version_cmp_str(b->cudnn_version, a->cudnn_version);
    if (c)
        return c;
    if ((c = strcmp(a->platform, b->platform)) != 0)
        return c;
    if (a->cuda_major != b->cuda_major)
        return a->cuda_major > b->cuda_major ? -1 : 1;
    if (a->cuda_minor != b->cuda_minor)
        return a->cuda_minor > b->cuda_minor ? -1 : 1;
    return strcmp(a->relative_path, b->relative_path);
}

typedef struct {
    cudnnctl_archive *a;
    size_t pos;
} path_ref;

static int cmp_path_pos(const void *pa, const void *pb)
{
    const path_ref *a = pa, *b = pb;
    int c = strcmp(a->a->relative_path, b->a->relative_path);
    if (c)
        return c;
    return a->pos < b->pos ? -1 : (a->pos > b->pos);
}

/* The 3-part and 4-part 8.x manifests list the same files; the later addition wins, but an
 * identical file keeps its earliest release date (the 3-part files were regenerated in 2024). */
static cudnnctl_err normalise(cudnnctl_ctx *ctx, cudnnctl_catalog *cat)
{
    cc_archive_vec *v = &cat->all;
    if (v->n == 0)
        return CUDNNCTL_E_OK;
    if (cc_catalog_trust_scan(ctx, v, &cat->conflicts) != 0)
        return CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    path_ref *r = malloc(v->n * sizeof(*r));
    char *drop = calloc(v->n, 1);
    if (!r || !drop) {
        free(r);
        free(drop);
        return CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    }
    for (size_t i = 0; i < v->n; i++)
        r[i] = (path_ref){&v->v[i], i};
    qsort(r, v->n, sizeof(*r), cmp_path_pos);
    for (size_t i = 0; i + 1 < v->n; i++) {
        cudnnctl_archive *old = r[i].a, *new = r[i + 1].a;
        if (strcmp(old->relative_path, new->relative_path) != 0)
            continue;
        if (strcmp(old->sha256, new->sha256) == 0 && old->size == new->size) {
            if (old->release_date &&
                (!new->release_date || strcmp(old->release_date, new->release_date) < 0)) {
                free(new->release_date);
                new->release_date = old->release_date;
                old->release_date = NULL;
            }
        } else if (cc_str_starts(old->manifest, "embedded:") ==
                   cc_str_starts(new->manifest, "embedded:")) {
            /* (added vs embedded: catalog_trust.c has warned already, with both values) */
            /* integrity: an event, which -q does not hide (a log warning would be) */
            char *msg = cc_asprintf("%s gives %s a different SHA-256 / size than %s; using %s's (%s)",
                                    new->manifest, new->relative_path, old->manifest,
                                    new->manifest, new->sha256);
            cc_event(ctx, CUDNNCTL_EV_WARNING, msg ? msg : "conflicting manifests", NULL);
            free(msg);
        }
        drop[r[i].pos] = 1;
    }
    size_t w = 0;
    for (size_t i = 0; i < v->n; i++) {
        if (drop[i])
            cc_archive_clear(&v->v[i]);
        else
            v->v[w++] = v->v[i];
    }
    v->n = w;
    free(r);
    free(drop);
    qsort(v->v, v->n, sizeof(*v->v), cmp_display);
    return CUDNNCTL_E_OK;
}

/* ---- loading ------------------------------------------------------------------------------- */

static cudnnctl_err add_bytes(cudnnctl_ctx *ctx, cudnnctl_catalog *cat, cc_sha256 *h,
                              const char *data, size_t len, const char *origin)
{
    char hex[65];
    if (cc_sha256_reset(h) != 0 || cc_sha256_update(h, data, len) != 0 ||
        cc_sha256_final_hex(h, hex) != 0)
        return CC_ERR(ctx, CUDNNCTL_E_GENERIC, "SHA-256 of manifest %s failed", origin);
    cudnnctl_err e = cc_manifest_parse(ctx, data, len, origin, hex, &cat->all);
    if (e == CUDNNCTL_E_OK)
        cat->n_manifests++;
    return e;
}

cudnnctl_catalog *cc_catalog_new(void)
{
    return calloc(1, sizeof(cudnnctl_catalog));
}

/* A stored manifest that cannot be used is a warning (an event: -q does not hide it), never a
 * silently smaller catalog: the embedded manifests still work. */
static void store_warning(cudnnctl_ctx *ctx, const char *what)
{
    char *msg = cc_asprintf("%s; the catalog goes on without it (`cudnnctl update` fetches it "
                            "again)",
                            what);
    cc_event(ctx, CUDNNCTL_EV_WARNING, msg ? msg : what, NULL);
    free(msg);
    cc_clear_error(ctx);
}

/* The manifests `cudnnctl update` stored under the state dir, as origin "catalog:<name>". */
static cudnnctl_err add_stored(cudnnctl_ctx *ctx, cudnnctl_catalog *cat, cc_sha256 *h)
{
    char *state = cc_state_dir(ctx);
    cc_catalog_store st;
    if (!state)
        return CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    if (cc_store_load(ctx, state, &st) != CUDNNCTL_E_OK) {
        store_warning(ctx, cudnnctl_last_error(ctx)->detail);
        free(state);
        return CUDNNCTL_E_OK;
    }
    cudnnctl_err e = CUDNNCTL_E_OK;
    for (size_t i = 0; i < st.n && e != CUDNNCTL_E_NOMEM; i++) {
        char *data = NULL, *origin = cc_asprintf("catalog:%s", st.v[i].name);
        size_t len = 0;
        if (!origin) {
            e = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
        } else if (cc_store_read_manifest(ctx, state, &st.v[i], &data, &len) != CUDNNCTL_E_OK ||
                   (e = add_bytes(ctx, cat, h, data, len, origin)) != CUDNNCTL_E_OK) {
            if (e != CUDNNCTL_E_NOMEM)
                store_warning(ctx, cudnnctl_last_error(ctx)->detail);
            e = e == CUDNNCTL_E_NOMEM ? e : CUDNNCTL_E_OK;
        } else if (st.v[i].override && (cc_strv_push(&cat->override_origin, origin) != 0 ||
                                        cc_strv_push(&cat->override_note, st.v[i].override) != 0)) {
            e = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
        }
        free(data);
        free(origin);
    }
    cc_store_free(&st);
    free(state);
    return e;
}

const char *cc_catalog_override_note(const cudnnctl_catalog *cat, const char *origin)
{
    for (size_t i = 0; cat && origin && i < cat->override_origin.n; i++)
        if (strcmp(cat->override_origin.v[i], origin) == 0)
            return cat->override_note.v[i];
    return NULL;
}

cudnnctl_err cudnnctl_catalog_load(cudnnctl_ctx *ctx, cudnnctl_catalog **out)
{
    cudnnctl_err e = CUDNNCTL_E_OK;
    *out = NULL;
    cudnnctl_catalog *cat = cc_catalog_new();
    cc_sha256 *h = cc_sha256_new();
    if (!cat || !h) {
        e = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < cc_embedded_manifest_count; i++) {
        const cc_embedded_manifest *m = &cc_embedded_manifests[i];
        char *origin = cc_asprintf("embedded:%s", m->name);
        if (!origin) {
            e = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
            goto out;
        }
        e = add_bytes(ctx, cat, h, m->data, m->len, origin);
        free(origin);
        if (e != CUDNNCTL_E_OK)
            goto out;
    }
    if (e == CUDNNCTL_E_OK)
        e = add_stored(ctx, cat, h);
    if (e == CUDNNCTL_E_OK)
        e = normalise(ctx, cat);
out:
    cc_sha256_free(h);
    if (e != CUDNNCTL_E_OK)
        cudnnctl_catalog_free(cat);
    else
        *out = cat;
    return e;
}

cudnnctl_err cudnnctl_catalog_add_json(cudnnctl_ctx *ctx, cudnnctl_catalog *cat, const char *json,
                                       size_t len, const char *origin)
{
    cc_sha256 *h = cc_sha256_new();
    if (!h)
        return CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    cudnnctl_err e = add_bytes(ctx, cat, h, json, len, origin ? origin : "(text)");
    cc_sha256_free(h);
    if (e == CUDNNCTL_E_OK)
        e = normalise(ctx, cat);
    return e;
}

/* http(s): the bytes come through the source layer (or, offline, from the copy cached when
 * the URL last worked); their SHA-256 is recorded in every entry. */
static cudnnctl_err add_url(cudnnctl_ctx *ctx, cudnnctl_catalog *cat, const char *url)
{
    char *data = NULL;
    size_t len = 0;
    char hex[65];
    cudnnctl_err e = cc_manifest_fetch(ctx, url, &data, &len, hex);
    if (e != CUDNNCTL_E_OK)
        return e;
    e = cc_manifest_parse(ctx, data, len, url, hex, &cat->all);
    if (e == CUDNNCTL_E_OK) {
        cat->n_manifests++;
        cc_log(ctx, CUDNNCTL_LOG_INFO, "manifest %s: sha256 %s", url, hex);
        e = normalise(ctx, cat);
    }
    free(data);
    return e;
}

cudnnctl_err cudnnctl_catalog_add_manifest(cudnnctl_ctx *ctx, cudnnctl_catalog *cat,
                                           const char *file_or_url)
{
    if (!file_or_url || !*file_or_url)
        return CC_ERR(ctx, CUDNNCTL_E_USAGE, "--manifest needs a file or a URL");
    if (cc_str_starts(file_or_url, "http://") || cc_str_starts(file_or_url, "https://"))
        return add_url(ctx, cat, file_or_url);
    const char *path = file_or_url;
    if (cc_str_starts(path, "file://")) {
        path += 7;
        if (cc_str_starts(path, "localhost/"))
            path += 9;
        if (path[0] == '/' && isalpha((unsigned char)path[1]) && path[2] == ':')
            path++; /* file:///C:/x names the drive path C:/x */
        if (*path != '/' && !cc_pf_is_abs(path))
            return CC_ERR(ctx, CUDNNCTL_E_USAGE,
                          "manifest URL %s: a file:// URL needs an absolute path "
                          "(file:///dir/redistrib_9.13.0.json)",
                          file_or_url);
    } else if (strstr(path, "://")) {
        return CC_ERR(ctx, CUDNNCTL_E_USAGE,
                      "manifest %s: only http://, https:// and file:// URLs are supported",
                      file_or_url);
    }
    char *real = cc_rooted(ctx, path), *data = NULL;
    size_t len = 0;
    cudnnctl_err e = CUDNNCTL_E_OK;
    if (!real)
        return CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    if (cc_sys_read_file(ctx, real, CC_MANIFEST_MAX, &data, &len) != 0) {
        cudnnctl_err pe = cc_pf_last_error();
        e = CC_ERR(ctx,
                   pe == CUDNNCTL_E_NOT_FOUND || pe == CUDNNCTL_E_PERMISSION ? pe : CUDNNCTL_E_IO,
                   "cannot read manifest %s: %s", path, cc_pf_last_error_text());
        goto out;
    }
    e = cudnnctl_catalog_add_json(ctx, cat, data, len, file_or_url);
out:
    free(real);
    free(data);
    return e;
}

/* The archives of one flavour (deep copies, same order): what selection chooses among. */
cudnnctl_catalog *cc_catalog_flavor_view(const cudnnctl_catalog *cat, cudnnctl_flavor flavor)
{
    cudnnctl_catalog *v = cc_catalog_new();
    if (!v)
        return NULL;
    v->n_manifests = cat ? cat->n_manifests : 0;
    for (size_t i = 0; cat && i < cat->all.n; i++) {
        cudnnctl_archive a;
        if (cat->all.v[i].flavor != flavor)
            continue;
        if (cc_archive_copy(&a, &cat->all.v[i]) != 0 || cc_archive_vec_push_move(&v->all, &a) != 0) {
            cc_archive_clear(&a);
            cudnnctl_catalog_free(v);
            return NULL;
        }
    }
    return v;
}

/* ---- reading ------------------------------------------------------------------------------- */

size_t cudnnctl_catalog_count(const cudnnctl_catalog *cat)
{
    return cat ? cat->all.n : 0;
}

size_t cudnnctl_catalog_manifest_count(const cudnnctl_catalog *cat)
{
    return cat ? cat->n_manifests : 0;
}

const cudnnctl_archive *cudnnctl_catalog_get(const cudnnctl_catalog *cat, size_t i)
{
    return cat && i < cat->all.n ? &cat->all.v[i] : NULL;
}

const cudnnctl_archive *cudnnctl_catalog_find_file(const cudnnctl_catalog *cat,
                                                   const char *file_name)
{
    if (!cat || !file_name)
        return NULL;
    const char *base = cc_path_base(file_name);
    const char *bs = strrchr(base, '\\'); /* a Windows path given to a Linux build */
    if (bs)
        base = bs + 1;
    for (size_t i = 0; i < cat->all.n; i++)
        if (strcmp(cc_path_base(cat->all.v[i].relative_path), base) == 0)
            return &cat->all.v[i];
    return NULL;
}

size_t cudnnctl_catalog_conflict_count(const cudnnctl_catalog *cat)
{
    return cat ? cat->conflicts.n : 0;
}

const char *cudnnctl_catalog_conflict(const cudnnctl_catalog *cat, size_t i)
{
    return cat && i < cat->conflicts.n ? cat->conflicts.v[i] : NULL;
}

void cudnnctl_catalog_free(cudnnctl_catalog *cat)
{
    if (!cat)
        return;
    cc_strv_free(&cat->conflicts);
    cc_strv_free(&cat->override_origin);
    cc_strv_free(&cat->override_note);
    cc_archive_vec_free(&cat->all);
    free(cat);
}
