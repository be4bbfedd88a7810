/* wheels_index.c: NVIDIA's cuDNN wheels as a Python package index lists them, for `cudnnctl
 * update` (wheels_update.c). Each project (nvidia-cudnn-cu11/cu12/cu13, nvidia-cudnn-jit-cu12/
 * cu13) is read from its PEP 691 JSON page, INDEX/<project>/ with `Accept:
 * application/vnd.pypi.simple.v1+json` (PyPI, devpi, pypiserver, Artifactory and Nexus serve it;
 * pip reads the same page), and every wheel file of a cuDNN release there becomes a row: its
 * file name (project, version, platform tag), `hashes.sha256`, PEP 700's `size` and its URL.
 * Yanked files, files without a SHA-256 or a size and platforms cudnnctl has no key for are
 * passed over; a project the index does not have (404) is no error. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

#include "catalog_model.h"
#include "grow.h"
#include "hash.h"
#include "internal.h"
#include "source.h"
#include "str.h"
#include "wheels.h"

#define PAGE_MAX (16u << 20) /* PyPI's nvidia-cudnn-cu12 page: ~60 kB */
#define PEP691 "application/vnd.pypi.simple.v1+json"

const char *const cc_wheel_projects[] = {"nvidia-cudnn-cu11", "nvidia-cudnn-cu12",
                                         "nvidia-cudnn-cu13", "nvidia-cudnn-jit-cu12",
                                         "nvidia-cudnn-jit-cu13", NULL};

void cc_wheel_set_free(cc_wheel_set *s)
{
    for (size_t i = 0; s && i < s->n; i++)
        cc_wheel_row_clear(&s->v[i]);
    if (s) {
        free(s->v);
        free(s->source);
        free(s->updated_at);
        memset(s, 0, sizeof(*s));
    }
}

void cc_wheel_row_clear(cc_wheel_row *r)
{
    free((char *)r->pub.package);
    free((char *)r->pub.version);
    free((char *)r->pub.filename);
    free((char *)r->pub.tag);
    free((char *)r->pub.sha256);
    free((char *)r->pub.url);
    free((char *)r->platform);
    free((char *)r->cuda);
    memset(r, 0, sizeof(*r));
}

int cc_wheel_set_add(cc_wheel_set *s, const cc_wheel_row *r)
{
    if (cc_grow(&s->v, NULL, s->n + 1, sizeof(*s->v)) != 0)
        return -1;
    cc_wheel_row *d = &s->v[s->n++];
    memset(d, 0, sizeof(*d));
    d->pub.package = cc_strdup(r->pub.package);
    d->pub.version = cc_strdup(r->pub.version);
    d->pub.filename = cc_strdup(r->pub.filename);
    d->pub.tag = cc_strdup(r->pub.tag);
    d->pub.sha256 = cc_strdup(r->pub.sha256);
    d->pub.size = r->pub.size;
    d->pub.url = cc_strdup(r->pub.url ? r->pub.url : "");
    d->platform = cc_strdup(r->platform);
    d->cuda = cc_strdup(r->cuda);
    d->jit = r->jit;
    return d->pub.package && d->pub.version && d->pub.filename && d->pub.tag && d->pub.sha256 &&
                   d->pub.url && d->platform && d->cuda
               ? 0
               : -1;
}

/* cudnnctl's platform key of a wheel platform tag (the first of a compressed set), or NULL. */
static const char *platform_key(const char *tag)
{
    size_t n = strcspn(tag, ".");
    int linux = cc_str_starts(tag, "manylinux") || cc_str_starts(tag, "linux_");
    if (linux && n >= 7 && strncmp(tag + n - 7, "_x86_64", 7) == 0)
        return "linux-x86_64";
    if (linux && n >= 8 && strncmp(tag + n - 8, "_aarch64", 8) == 0)
        return "linux-sbsa";
    if (n == 9 && strncmp(tag, "win_amd64", 9) == 0)
        return "windows-x86_64";
    return NULL;
}

/* A cuDNN release number: 3 or 4 numeric parts, major 8 or later. */
static int release_ok(const char *v)
{
    int parts = 0;
    for (const char *p = v; *p; parts++) {
        size_t d = strspn(p, "0123456789");
        if (d == 0 || d > 6 || (p[d] != '.' && p[d] != '\0'))
            return 0;
        p += d + (p[d] == '.');
    }
    return (parts == 3 || parts == 4) && atoi(v) >= 8 && v[strlen(v) - 1] != '.';
}

int cc_wheel_parse_filename(const char *project, const char *file, char **version, char **tag)
{
    *version = *tag = NULL;
    size_t n = strlen(file);
    if (n < 5 || strcmp(file + n - 4, ".whl") != 0 || strchr(file, '/') || strchr(file, '\\'))
        return -1;
    /* {dist}-{version}(-{build})?-{python}-{abi}-{platform}.whl */
    const char *part[7];
    size_t len[7];
    int k = 0;
    for (const char *p = file; k < 7 && p < file + n - 4; k++) {
        part[k] = p;
        len[k] = strcspn(p, "-");
        if (p + len[k] > file + n - 4)
            len[k] = (size_t)(file + n - 4 - p);
        p += len[k] + 1;
    }
    int ok = (k == 5 || k == 6) && len[0] == strlen(project);
    for (size_t i = 0; ok && i < len[0]; i++) /* the project, normalized (PEP 503) */
        ok = (part[0][i] == '_' ? '-' : tolower((unsigned char)part[0][i])) == project[i];
    *version = ok ? cc_strndup(part[1], len[1]) : NULL;
    *tag = ok ? cc_strndup(part[k - 1], len[k - 1]) : NULL;
    if (!*version || !*tag || !release_ok(*version)) {
        free(*version);
        free(*tag);
        *version = *tag = NULL;
        return -1;
    }
    return 0;
}

/* path with its "." and ".." segments resolved (RFC 3986, 5.2.4), malloc'd. */
static char *without_dots(const char *path)
{
    size_t n = strlen(path);
    char *out = malloc(n + 2), *o = out;
    if (!out)
        return NULL;
    for (const char *p = path; *p;) {
        size_t k = strcspn(p, "/");
        int last = p[k] == '\0';
        if (k == 0 || (k == 1 && p[0] == '.')) {
            /* "" (a doubled or leading "/") and "." : nothing */
        } else if (k == 2 && p[0] == '.' && p[1] == '.') {
            while (o > out && *--o != '/')
                ; /* back over the previous segment (the root's "/" stays) */
        } else {
            *o++ = '/';
            memcpy(o, p, k);
            o += k;
        }
        if (last && (k == 0 || (k <= 2 && p[0] == '.')) && o > out)
            *o++ = '/'; /* a path that ends in "." or ".." names a dir */
        p += k + !last;
    }
    if (o == out)
        *o++ = '/';
    *o = '\0';
    return out;
}

/* A file's URL, absolute: PEP 691 allows one relative to the page; the fragment is dropped. */
static char *absolute_url(const char *page, const char *u)
{
    size_t keep = strcspn(u, "#");
    if (cc_str_starts(u, "https://") || cc_str_starts(u, "http://"))
        return cc_strndup(u, keep);
    const char *host = strstr(page, "://");
    size_t origin = host ? (size_t)(host + 3 - page) + strcspn(host + 3, "/") : 0;
    const char *dir_end = strrchr(page + origin, '/');
    size_t dir = dir_end ? (size_t)(dir_end + 1 - page) : origin;
    char *joined = u[0] == '/' ? cc_strndup(u, keep)
                               : cc_asprintf("%.*s%.*s", (int)(dir - origin), page + origin,
                                             (int)keep, u);
    char *clean = joined ? without_dots(joined) : NULL;
    char *abs = clean ? cc_asprintf("%.*s%s", (int)origin, page, clean) : NULL;
    free(joined);
    free(clean);
    return abs;
}

/* The rows of one project page. */
static int page_rows(const char *project, const char *page_url, const cJSON *page,
                     cc_wheel_set *out)
{
    const cJSON *files = cJSON_GetObjectItemCaseSensitive(page, "files"), *f;
    if (!cJSON_IsArray(files))
        return 1;
    cJSON_ArrayForEach(f, files)
    {
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(f, "filename");
        const cJSON *url = cJSON_GetObjectItemCaseSensitive(f, "url");
        const cJSON *sha = cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(f, "hashes"), "sha256");
        const cJSON *size = cJSON_GetObjectItemCaseSensitive(f, "size");
        const cJSON *yanked = cJSON_GetObjectItemCaseSensitive(f, "yanked");
        char *version = NULL, *tag = NULL;
        if (!cJSON_IsString(name) || !cJSON_IsString(url) || !cJSON_IsString(sha) ||
            !cc_sha256_is_hex(sha->valuestring) || strlen(sha->valuestring) != 64 ||
            !cJSON_IsNumber(size) || size->valuedouble < 1 || cJSON_IsTrue(yanked) ||
            cJSON_IsString(yanked) ||
            cc_wheel_parse_filename(project, name->valuestring, &version, &tag) != 0)
            continue;
        const char *plat = platform_key(tag);
        char *abs = plat ? absolute_url(page_url, url->valuestring) : NULL;
        char *lower = plat ? cc_str_lower(sha->valuestring) : NULL;
        cc_wheel_row r = {{project, version, name->valuestring, tag, lower,
                           (uint64_t)size->valuedouble, abs},
                          plat,
                          project + strlen(project) - 2,
                          strstr(project, "-jit-") != NULL};
        int rc = plat && abs && lower ? cc_wheel_set_add(out, &r) : plat ? -1 : 0;
        free(version);
        free(tag);
        free(abs);
        free(lower);
        if (rc != 0)
            return -1;
    }
    return 0;
}

static cudnnctl_err download_page(cudnnctl_ctx *ctx, const char *url, const char *cacert,
                                  cc_buf *b)
{
    cc_source_opts o;
    memset(&o, 0, sizeof(o));
    o.url = url;
    o.cacert = cacert;
    o.insecure_skip_verify = 1; /* a listing: every row it gives is checked against the pins */
    o.what = "manifest";        /* a 404 is no archive missing */
    o.accept = PEP691;
    o.connections = 1;
    o.max_tries = 2;
    return cc_url_read_all(ctx, &o, PAGE_MAX, CUDNNCTL_E_PARSE, "", "package index page", b,
                           NULL);
}

/* A page's rows; PARSE (with the fix) when it is no PEP 691 JSON page. */
static cudnnctl_err rows_of(cudnnctl_ctx *ctx, const char *project, const char *url,
                            const cc_buf *b, cc_wheel_set *out)
{
    cJSON *j = cJSON_ParseWithLength(b->data ? b->data : "", b->len);
    int rc = j ? page_rows(project, url, j, out) : 1;
    cJSON_Delete(j);
    if (rc < 0)
        CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    if (rc > 0)
        CC_RET_ERR(ctx, CUDNNCTL_E_PARSE,
                   "%s is not a PEP 691 JSON project page (asked with Accept: %s): give "
                   "--index-url the index's simple API (https://pypi.org/simple/ or your "
                   "mirror's), or leave the wheel catalog as it is",
                   url, PEP691);
    return CUDNNCTL_E_OK;
}

static char *index_base(const char *index)
{
    size_t n = strlen(index);
    return cc_asprintf("%s%s", index, n && index[n - 1] == '/' ? "" : "/");
}

cudnnctl_err cc_wheels_index_locate(cudnnctl_ctx *ctx, const char *index, const char *cacert,
                                    const char *project, const char *filename, char **url_out)
{
    *url_out = NULL;
    char *base = index_base(index);
    char *url = base ? cc_asprintf("%s%s/", base, project) : NULL;
    cc_buf b = {0};
    cc_wheel_set set = {0};
    cudnnctl_err e =
        url ? download_page(ctx, url, cacert, &b) : CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    if (e == CUDNNCTL_E_OK)
        e = rows_of(ctx, project, url, &b, &set);
    for (size_t i = 0; e == CUDNNCTL_E_OK && i < set.n && !*url_out; i++)
        if (strcmp(set.v[i].pub.filename, filename) == 0 &&
            !(*url_out = cc_strdup(set.v[i].pub.url)))
            e = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    if (e == CUDNNCTL_E_OK && !*url_out)
        e = CC_ERR(ctx, CUDNNCTL_E_NOT_FOUND,
                   "%s lists no %s (or not as a wheel with its SHA-256 "
                   "and size)",
                   url, filename);
    cc_wheel_set_free(&set);
    cc_buf_free(&b);
    free(base);
    free(url);
    return e;
}

cudnnctl_err cc_wheels_index_read(cudnnctl_ctx *ctx, const char *index, const char *cacert,
                                  cc_wheel_set *out)
{
    memset(out, 0, sizeof(*out));
    out->source = index_base(index);
    if (!out->source)
        CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    int pages = 0;
    cudnnctl_err e = CUDNNCTL_E_OK;
    for (size_t i = 0; e == CUDNNCTL_E_OK && cc_wheel_projects[i]; i++) {
        char *url = cc_asprintf("%s%s/", out->source, cc_wheel_projects[i]);
        cc_buf b = {0};
        cc_event(ctx, CUDNNCTL_EV_STEP, cc_wheel_projects[i], NULL);
        e = url ? download_page(ctx, url, cacert, &b) : CC_ERR(ctx, CUDNNCTL_E_NOMEM, "oom");
        const char *why = cudnnctl_last_error(ctx)->detail;
        if (e == CUDNNCTL_E_HTTP_STATUS && why &&
            (cc_str_starts(why, "HTTP 404 ") || cc_str_starts(why, "HTTP 410 "))) {
            cc_clear_error(ctx); /* the index has no such project: nothing of it to know */
            e = CUDNNCTL_E_OK;
        } else if (e == CUDNNCTL_E_OK) {
            e = rows_of(ctx, cc_wheel_projects[i], url, &b, out);
            pages++;
        }
        free(url);
        cc_buf_free(&b);
    }
    if (e == CUDNNCTL_E_OK && pages == 0)
        e = CC_ERR(ctx, CUDNNCTL_E_NOT_FOUND,
                   "%s has none of NVIDIA's cuDNN wheel projects (%s, ...): not an index that "
                   "carries them; give --index-url the one pip downloads them from",
                   out->source, cc_wheel_projects[0]);
    return e;
}
