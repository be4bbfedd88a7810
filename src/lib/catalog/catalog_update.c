/* catalog_update.c: `cudnnctl update` — read a redist directory listing (a URL's index page or a
 * local dir), fetch every manifest it links to (fresh: retries, proxy and cacert as downloads),
 * validate each as any manifest, compare it with its pin (the embedded manifest of that name, or
 * the one an earlier update stored), then, under the state lock, store the new ones. A label
 * whose file changed (another digest and other archives) is refused and nothing is stored;
 * offline, nothing is stored either (docs/update.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog_store.h"
#include "embedded.h"
#include "lock.h"
#include "source.h"
#include "wheels.h"

#define NVIDIA_REDIST "https://developer.download.nvidia.com/compute/cudnn/redist/"

typedef struct {
    char *name, *url, sha[65];
    cc_buf bytes;
} fetched;

typedef struct {
    fetched *v;
    size_t n;
} fetched_set;

static void fetched_free(fetched_set *f)
{
    for (size_t i = 0; i < f->n; i++) {
        free(f->v[i].name);
        free(f->v[i].url);
        cc_buf_free(&f->v[i].bytes);
    }
    free(f->v);
    memset(f, 0, sizeof(*f));
}

static void items_free(cudnnctl_update_item *items, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(items[i].name);
        free(items[i].url);
        free(items[i].sha256);
        free(items[i].pinned_sha256);
        free(items[i].pinned_from);
    }
    free(items);
}

void cudnnctl_update_result_free(cudnnctl_update_result *r)
{
    if (!r)
        return;
    items_free(r->items, r->n_items);
    items_free(r->wheel_items, r->n_wheel_items);
    free(r->index_source);
    free(r->index_warning);
    free(r->source);
    free(r->catalog_dir);
    free(r->updated_at);
    free(r->newest);
    free(r);
}

static int is_url(const char *s)
{
    return cc_str_starts(s, "http://") || cc_str_starts(s, "https://");
}

/* base + "/" + name (one slash). */
static char *join_url(const char *base, const char *name)
{
    size_t n = strlen(base);
    return cc_asprintf("%s%s%s", base, n && base[n - 1] == '/' ? "" : "/", name);
}

/* A local listing: the dir's redistrib_*.json (file:// URLs name a dir too). */
static char *local_dir(cudnnctl_ctx *ctx, const char *base)
{
    const char *p = cc_str_starts(base, "file://") ? base + 7 : base;
    if (cc_str_starts(p, "localhost/"))
        p += 9;
    return cc_rooted(ctx, p);
}

/* ---- the listing ---------------------------------------------------------------------------- */

static cudnnctl_err listing_url(cudnnctl_ctx *ctx, const char *base, const char *cacert,
                                cc_strv *names, char **source)
{
    char hex[65];
    cc_buf b = {0};
    *source = join_url(base, "");
    if (!*source)
        CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    cudnnctl_err e = cc_manifest_download(ctx, *source, cacert, &b, hex);
    if (e == CUDNNCTL_E_HTTP_STATUS) {
        /* a server that lists no directories may still have the page `cudnnctl mirror` wrote */
        char *idx = join_url(base, "index.html");
        cc_buf_free(&b);
        cc_clear_error(ctx);
        e = idx ? cc_manifest_download(ctx, idx, cacert, &b, hex)
                : CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
        if (idx) {
            free(*source);
            *source = idx;
        }
    }
    int rc = e == CUDNNCTL_E_OK ? cc_catalog_listing_parse(b.data ? b.data : "", b.len, names) : 0;
    cc_buf_free(&b);
    if (e != CUDNNCTL_E_OK)
        return e;
    if (rc < 0)
        CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    if (rc > 0)
        CC_RET_ERR(ctx, CUDNNCTL_E_PARSE,
                   "%s links to more manifests than any redist listing (over 4096): not a cuDNN "
                   "redist directory; give its URL with --mirror",
                   *source);
    return CUDNNCTL_E_OK;
}

static cudnnctl_err listing_dir(cudnnctl_ctx *ctx, const char *dir, cc_strv *names)
{
    cc_pf_dir *d = cc_pf_opendir(dir);
    if (!d)
        return CC_ERR_PF(ctx, "cannot list the mirror dir", dir);
    const char *n;
    cudnnctl_err e = CUDNNCTL_E_OK;
    while ((n = cc_pf_readdir(d)) != NULL && e == CUDNNCTL_E_OK)
        if (cc_catalog_listing_name_ok(n) && cc_strv_push(names, n) != 0)
            e = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    cc_pf_closedir(d);
    cc_strv_sort(names);
    return e;
}

/* ---- fetching and validating ---------------------------------------------------------------- */

static cudnnctl_err fetch_one(cudnnctl_ctx *ctx, const char *base, const char *dir,
                              const char *name, const char *cacert, fetched *f)
{
    cudnnctl_err e = CUDNNCTL_E_OK;
    f->name = cc_strdup(name);
    f->url = dir ? cc_path_join(dir, name) : join_url(base, name);
    if (!f->name || !f->url)
        CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    if (!dir) {
        e = cc_manifest_download(ctx, f->url, cacert, &f->bytes, f->sha);
    } else {
        char *data = NULL;
        size_t len = 0;
        if (cc_sys_read_file(ctx, f->url, CC_MANIFEST_MAX, &data, &len) != 0)
            CC_RET_ERR(ctx, CUDNNCTL_E_IO, "cannot read %s: %s", f->url, cc_pf_last_error_text());
        f->bytes.data = data;
        f->bytes.len = len;
        if (cc_store_sha_hex(data, len, f->sha) != 0)
            e = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
        char *shown = cc_unrooted(ctx, f->url);
        free(f->url);
        f->url = shown;
    }
    if (e != CUDNNCTL_E_OK)
        return e;
    /* validated as any manifest is, before anything is kept */
    cc_archive_vec v = {0};
    e = cc_manifest_parse(ctx, f->bytes.data ? f->bytes.data : "", f->bytes.len, f->url, f->sha,
                          &v);
    cc_archive_vec_free(&v);
    return e;
}

static cudnnctl_err fetch_all(cudnnctl_ctx *ctx, const cudnnctl_update_opts *o, const char *base,
                              const cc_strv *names, fetched_set *out)
{
    char *dir = is_url(base) ? NULL : local_dir(ctx, base);
    out->v = calloc(names->n ? names->n : 1, sizeof(*out->v));
    if (!out->v || (!is_url(base) && !dir)) {
        free(dir);
        CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    }
    cudnnctl_err e = CUDNNCTL_E_OK;
    for (size_t i = 0; i < names->n && e == CUDNNCTL_E_OK; i++) {
        cc_event(ctx, CUDNNCTL_EV_STEP, names->v[i], NULL);
        e = fetch_one(ctx, base, dir, names->v[i], o->cacert, &out->v[out->n++]);
        if (e == CUDNNCTL_E_OK)
            e = cc_cancel_check(ctx, "the update");
    }
    free(dir);
    return e;
}

/* ---- the pins ------------------------------------------------------------------------------ */

/* Do two manifests name the same archives (relative_path, SHA-256, size)? Bytes that differ
 * only in whitespace, key order or dates describe the same files. */
static int same_archives(cudnnctl_ctx *ctx, const char *a, size_t la, const char *b, size_t lb)
{
    cc_archive_vec va = {0}, vb = {0};
    int same = cc_manifest_parse(ctx, a, la, "pin", NULL, &va) == CUDNNCTL_E_OK &&
               cc_manifest_parse(ctx, b, lb, "new", NULL, &vb) == CUDNNCTL_E_OK && va.n == vb.n;
    for (size_t i = 0; same && i < va.n; i++) {
        int found = 0;
        for (size_t k = 0; !found && k < vb.n; k++)
            found = strcmp(va.v[i].relative_path, vb.v[k].relative_path) == 0 &&
                    strcmp(va.v[i].sha256, vb.v[k].sha256) == 0 && va.v[i].size == vb.v[k].size;
        same = found;
    }
    cc_archive_vec_free(&va);
    cc_archive_vec_free(&vb);
    cc_clear_error(ctx);
    return same;
}

typedef struct {
    const char *sha;  /* the pinned digest */
    char *from;       /* where it came from (malloc'd) */
    char *bytes;      /* its text (malloc'd copy) */
    size_t len;
    long store_index; /* its entry in the store, -1 for an embedded pin */
} pin;

static int find_pin(cudnnctl_ctx *ctx, const char *state, const cc_catalog_store *st,
                    const char *name, pin *p)
{
    memset(p, 0, sizeof(*p));
    p->store_index = -1;
    static char emb_sha[65];
    for (size_t i = 0; i < st->n; i++)
        if (strcmp(st->v[i].name, name) == 0) {
            p->sha = st->v[i].sha256;
            p->store_index = (long)i;
            p->from = cc_asprintf("fetched from %s at %s", st->v[i].url ? st->v[i].url : "?",
                                  st->v[i].fetched_at ? st->v[i].fetched_at : "?");
            if (cc_store_read_manifest(ctx, state, &st->v[i], &p->bytes, &p->len) != 0)
                cc_clear_error(ctx); /* a damaged copy: compared by digest only */
            return 1;
        }
    for (size_t i = 0; i < cc_embedded_manifest_count; i++)
        if (strcmp(cc_embedded_manifests[i].name, name) == 0) {
            cc_store_sha_hex(cc_embedded_manifests[i].data, cc_embedded_manifests[i].len, emb_sha);
            p->sha = emb_sha;
            p->from = cc_strdup("embedded in cudnnctl (NVIDIA's manifest of that name)");
            p->bytes = cc_strndup(cc_embedded_manifests[i].data, cc_embedded_manifests[i].len);
            p->len = cc_embedded_manifests[i].len;
            return 1;
        }
    return 0;
}

/* What one fetched manifest means for the store (next: the store as it will be written). */
static cudnnctl_err judge(cudnnctl_ctx *ctx, const char *state, const cc_catalog_store *st,
                          const fetched *f, int allow, cudnnctl_update_item *it,
                          cc_catalog_store *next, int *changed)
{
    pin p;
    char *now = cc_now_iso();
    it->name = cc_strdup(f->name);
    it->url = cc_strdup(f->url);
    it->sha256 = cc_strdup(f->sha);
    cudnnctl_err e = CUDNNCTL_E_OK;
    cc_stored_manifest m = {f->name, (char *)f->sha, f->url, now, NULL};
    if (!find_pin(ctx, state, st, f->name, &p)) {
        it->result = "added";
        *changed = 1;
        if (cc_store_add(next, &m) != 0)
            e = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
        goto out;
    }
    it->pinned_sha256 = cc_strdup(p.sha);
    it->pinned_from = p.from ? cc_strdup(p.from) : NULL;
    if (strcmp(p.sha, f->sha) == 0) {
        it->result = "known";
    } else if (p.bytes && same_archives(ctx, p.bytes, p.len, f->bytes.data, f->bytes.len)) {
        it->result = "same-archives"; /* the pin is kept: it says the same */
    } else if (!allow) {
        it->result = "refused";
    } else {
        it->result = "overridden";
        *changed = 1;
        m.override = cc_asprintf("--allow-manifest-override: %s from %s (SHA-256 %s) accepted "
                                 "over the pin SHA-256 %s (%s) at %s",
                                 f->name, f->url, f->sha, p.sha, p.from ? p.from : "?", now);
        if (!m.override)
            e = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
        else if (p.store_index >= 0) { /* the stored pin is replaced in place */
            cc_stored_manifest *old = &next->v[p.store_index];
            free(old->sha256);
            free(old->url);
            free(old->fetched_at);
            free(old->override);
            old->sha256 = cc_strdup(f->sha);
            old->url = cc_strdup(f->url);
            old->fetched_at = cc_strdup(now);
            old->override = cc_strdup(m.override);
        } else if (cc_store_add(next, &m) != 0) {
            e = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
        }
        free(m.override);
    }
out:
    if (!it->name || !it->url || !it->sha256)
        e = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    free(p.from);
    free(p.bytes);
    free(now);
    return e;
}

static cudnnctl_err refuse(cudnnctl_ctx *ctx, const cudnnctl_update_result *r)
{
    const cudnnctl_update_item *it = NULL;
    for (size_t i = 0; i < r->n_items && !it; i++)
        if (strcmp(r->items[i].result, "refused") == 0)
            it = &r->items[i];
    CC_RET_ERR(ctx, CUDNNCTL_E_MANIFEST_PINNED,
               "%s from %s has SHA-256 %s, but that label is pinned with SHA-256 %s (%s), and the "
               "two name other archives%s: NVIDIA republished it, or the server is not serving "
               "NVIDIA's file. Nothing was stored; the catalog keeps the pinned one. Check the "
               "file with NVIDIA, or accept it knowingly with --allow-manifest-override (recorded "
               "in the catalog and in the receipt of every install from it)",
               it->name, it->url, it->sha256, it->pinned_sha256,
               it->pinned_from ? it->pinned_from : "?",
               r->n_refused > 1 ? " (and more labels: see the JSON or -v)" : "");
}

/* The manifest bytes of the labels this run stores, then the index (the commit); a failure
 * takes back the files it wrote. */
static cudnnctl_err store_write(cudnnctl_ctx *ctx, const char *state, const fetched_set *fs,
                                const cudnnctl_update_result *r, const cc_catalog_store *next)
{
    cc_strv made = {0};
    cudnnctl_err e = CUDNNCTL_E_OK;
    char *dir = cc_store_dir(state), *mdir = dir ? cc_path_join(dir, "manifests") : NULL;
    if (!mdir || cc_sys_mkdir_p(ctx, mdir, 0755) != 0)
        e = mdir ? CC_ERR_PF(ctx, "cannot create", mdir) : CC_ERR(ctx, CUDNNCTL_E_NOMEM, "oom");
    for (size_t i = 0; e == CUDNNCTL_E_OK && i < r->n_items; i++) {
        const char *res = r->items[i].result;
        if (strcmp(res, "added") != 0 && strcmp(res, "overridden") != 0)
            continue;
        char *path = cc_store_manifest_path(state, fs->v[i].sha);
        cc_pf_stat_t st;
        if (!path)
            e = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
        else if (!(cc_pf_lstat(path, &st) == 0 && st.exists) &&
                 (cc_sys_write_file_atomic(ctx, path, fs->v[i].bytes.data ? fs->v[i].bytes.data : "",
                                           fs->v[i].bytes.len, 0644) != 0 ||
                  cc_strv_push(&made, path) != 0))
            e = CC_ERR_PF(ctx, "cannot store the manifest", path);
        free(path);
    }
    if (e == CUDNNCTL_E_OK)
        e = cc_store_save(ctx, state, next);
    for (size_t i = 0; e != CUDNNCTL_E_OK && i < made.n; i++)
        cc_sys_unlink(ctx, made.v[i]); /* cleanup: the first error is the one to report */
    cc_strv_free(&made);
    free(dir);
    free(mdir);
    return e;
}

/* The newest label the catalog knows (embedded or stored). */
static char *newest_label(const cc_catalog_store *st)
{
    const char *best = NULL;
    char bv[64] = "", v[64];
    for (size_t i = 0; i < cc_embedded_manifest_count + st->n; i++) {
        const char *n = i < cc_embedded_manifest_count ? cc_embedded_manifests[i].name
                                                       : st->v[i - cc_embedded_manifest_count].name;
        snprintf(v, sizeof(v), "%.*s", (int)(strlen(n) - 15), n + 10); /* redistrib_X.json */
        if (!best || cc_version_cmp_str(v, bv) > 0) {
            best = n;
            snprintf(bv, sizeof(bv), "%s", v);
        }
    }
    return best ? cc_strdup(best) : NULL;
}

/* The wheel projects of the package index (before the lock: the network). An optional index
 * that cannot be read leaves the wheel catalog as it is, with a warning. */
static cudnnctl_err read_index(cudnnctl_ctx *ctx, const cudnnctl_update_opts *o,
                               cc_wheel_set *listed, cudnnctl_update_result *r, int *have)
{
    cudnnctl_err e = cc_wheels_index_read(ctx, o->index_url, o->cacert, listed);
    r->index_source = listed->source ? cc_strdup(listed->source) : NULL;
    *have = e == CUDNNCTL_E_OK;
    if (e == CUDNNCTL_E_OK || e == CUDNNCTL_E_NOMEM || e == CUDNNCTL_E_INTERRUPTED)
        return e;
    const char *why = cudnnctl_last_error(ctx)->detail;
    if (o->index_optional) {
        r->index_warning = cc_asprintf("the wheel catalog was not refreshed: %s", why ? why : "?");
        cc_clear_error(ctx);
        cc_wheel_set_free(listed);
        return r->index_warning ? CUDNNCTL_E_OK : CC_ERR(ctx, CUDNNCTL_E_NOMEM, "oom");
    }
    char *d = cc_asprintf("the package index %s (--index-url) cannot be read, nothing was "
                          "stored: %s",
                          o->index_url, why ? why : "?");
    e = d ? CC_ERR(ctx, e, "%s", d) : CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    free(d);
    return e;
}

/* Under the state lock: the pins, then (nothing refused) the store. */
static cudnnctl_err update_store(cudnnctl_ctx *ctx, const cudnnctl_update_opts *o,
                                 const fetched_set *fs, const cc_wheel_set *listed,
                                 cudnnctl_update_result *r)
{
    char *state = cc_state_dir(ctx);
    cc_lock lock = {.fd = -1};
    cc_catalog_store st = {0}, next = {0};
    cudnnctl_err e = state ? cc_lock_acquire(ctx, state, "update", &lock)
                           : CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    if (e == CUDNNCTL_E_OK)
        e = cc_store_load(ctx, state, &st);
    for (size_t i = 0; e == CUDNNCTL_E_OK && i < st.n; i++)
        if (cc_store_add(&next, &st.v[i]) != 0)
            e = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    int changed = 0;
    if (e == CUDNNCTL_E_OK && !(r->items = calloc(fs->n ? fs->n : 1, sizeof(*r->items))))
        e = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    for (size_t i = 0; e == CUDNNCTL_E_OK && i < fs->n; i++) {
        e = judge(ctx, state, &st, &fs->v[i], o->allow_manifest_override, &r->items[i], &next,
                  &changed);
        r->n_items++;
        r->n_refused += e == CUDNNCTL_E_OK && strcmp(r->items[i].result, "refused") == 0;
        r->n_added += e == CUDNNCTL_E_OK && (strcmp(r->items[i].result, "added") == 0 ||
                                              strcmp(r->items[i].result, "overridden") == 0);
    }
    if (e == CUDNNCTL_E_OK && r->n_refused)
        e = refuse(ctx, r);
    cc_wheel_set wst = {0}, wnext = {0};
    if (e == CUDNNCTL_E_OK)
        e = cc_wheels_store_load(ctx, state, &wst);
    if (e == CUDNNCTL_E_OK && listed)
        e = cc_wheels_judge(ctx, &wst, listed, r, &wnext); /* a refused wheel: nothing stored */
    if (e == CUDNNCTL_E_OK) {
        next.updated_at = cc_now_iso();
        next.source = cc_strdup(r->source);
        wnext.updated_at = cc_strdup(next.updated_at);
        wnext.source = listed ? cc_strdup(listed->source) : NULL;
        if (listed)
            e = cc_wheels_store_save(ctx, state, &wnext);
        if (e == CUDNNCTL_E_OK)
            e = store_write(ctx, state, fs, r, &next);
        (void)changed; /* the index is written every time: it records when the update ran */
        r->n_wheels_stored = listed ? wnext.n : wst.n;
    }
    cc_wheel_set_free(&wst);
    cc_wheel_set_free(&wnext);
    if (e == CUDNNCTL_E_OK) {
        r->updated_at = cc_strdup(next.updated_at);
        r->n_stored = next.n;
        r->newest = newest_label(&next);
    }
    cc_store_free(&st);
    cc_store_free(&next);
    cc_lock_release(ctx, &lock);
    free(state);
    return e;
}

cudnnctl_err cudnnctl_update(cudnnctl_ctx *ctx, const cudnnctl_update_opts *opts,
                             cudnnctl_update_result **out)
{
    static const cudnnctl_update_opts none;
    const cudnnctl_update_opts *o = opts ? opts : &none;
    uint64_t t0 = cc_pf_now_ms();
    cudnnctl_update_result *r = calloc(1, sizeof(*r));
    *out = r;
    if (!r)
        CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    const char *base = o->base && *o->base ? o->base : NVIDIA_REDIST;
    char *state = cc_state_dir(ctx), *sdir = state ? cc_store_dir(state) : NULL;
    r->catalog_dir = sdir ? cc_unrooted(ctx, sdir) : NULL;
    free(state);
    free(sdir);
    cc_strv names = {0};
    fetched_set fs = {0};
    cudnnctl_err e;
    if (is_url(base)) {
        e = listing_url(ctx, base, o->cacert, &names, &r->source);
    } else {
        char *dir = local_dir(ctx, base);
        r->source = dir ? cc_unrooted(ctx, dir) : NULL;
        e = dir ? listing_dir(ctx, dir, &names) : CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
        free(dir);
    }
    if (e == CUDNNCTL_E_OK && names.n == 0)
        e = CC_ERR(ctx, CUDNNCTL_E_PARSE,
                   "%s lists no redistrib_*.json: it is not a cuDNN redist directory (NVIDIA's is "
                   "%s; a mirror made by `cudnnctl mirror --to DIR` is one); nothing changed",
                   r->source ? r->source : base, NVIDIA_REDIST);
    if (e == CUDNNCTL_E_OK)
        e = fetch_all(ctx, o, base, &names, &fs);
    cc_wheel_set listed = {0};
    int have_wheels = 0;
    if (e == CUDNNCTL_E_OK && o->index_url)
        e = read_index(ctx, o, &listed, r, &have_wheels);
    if (e == CUDNNCTL_E_OK)
        e = update_store(ctx, o, &fs, have_wheels ? &listed : NULL, r);
    cc_wheel_set_free(&listed);
    fetched_free(&fs);
    cc_strv_free(&names);
    r->seconds = (double)(cc_pf_now_ms() - t0) / 1000.0;
    return e;
}
