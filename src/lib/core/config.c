/* config.c: the configuration: /etc/cudnnctl/config (under the root), the user's
 * $XDG_CONFIG_HOME/cudnnctl/config, CUDNNCTL_* variables; a flag wins over all (config.h).
 * Files are INI, read by inih (Debian's libinih): "key = value" lines, '#' or ';' comments,
 * optionally under a [cudnnctl] section. inih is fed one line at a time through its stream
 * reader, so that every problem names its line, and a line inih would split at ':' (it takes
 * "mirror http://x" as the key "mirror http") is refused instead: only '=' separates a key
 * from its value. A build without inih (the Windows cross build) reads no files and says so;
 * the variables still work. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "grow.h"
#include "json.h"
#include "str.h"

#ifdef CUDNNCTL_HAVE_INIH
#include <ini.h>
#endif

static const char *const keys[][2] = {
    {"mirror", "CUDNNCTL_MIRROR"},     {"manifest-base-url", "CUDNNCTL_MANIFEST_BASE_URL"},
    {"cacert", "CUDNNCTL_CACERT"},     {"cache-dir", "CUDNNCTL_CACHE_DIR"},
    {"state-dir", "CUDNNCTL_STATE_DIR"}, {"proxy", "CUDNNCTL_PROXY"},
    {"prefix", "CUDNNCTL_PREFIX"},     {"login-check", "CUDNNCTL_LOGIN_CHECK"},
};
#define N_KEYS (sizeof(keys) / sizeof(keys[0]))

const char *cudnnctl_config_origin_name(cudnnctl_config_origin o)
{
    static const char *const n[] = {"default", "system", "user", "env", "flag"};
    return (unsigned)o < 5 ? n[o] : "?";
}

static cudnnctl_config_item *item(cudnnctl_config *c, const char *key)
{
    for (size_t i = 0; i < c->n_items; i++)
        if (strcmp(c->items[i].key, key) == 0)
            return &c->items[i];
    return NULL;
}

static int set(cudnnctl_config_item *it, const char *value, cudnnctl_config_origin o,
               const char *where)
{
    char *v = cc_strdup(value), *w = cc_strdup(where);
    if (!v || !w) {
        free(v);
        free(w);
        return -1;
    }
    free(it->value);
    free(it->where);
    it->value = v;
    it->where = w;
    it->origin = o;
    return 0;
}

static int problem(cudnnctl_config *c, char *text)
{
    if (!text)
        return -1;
    return cc_strs_push(&c->problems, &c->n_problems, text);
}

typedef struct {
    cudnnctl_config *cfg;
    const char *path;
    cudnnctl_config_origin origin;
    int failed;
    /* the stream inih reads: the file's text, line by line */
    const char *data;
    size_t len, pos;
    int line;      /* the line inih has now */
    int have_key;  /* a key line came before (an indented line continues its value) */
} file_ctx;

#ifdef CUDNNCTL_HAVE_INIH
/* The known key closest to name (at most 2 edits away), NULL when none. */
static const char *closest_key(const char *name)
{
    const char *best = NULL;
    size_t bestd = 3, n = strlen(name);
    for (size_t k = 0; k < N_KEYS && n < 40; k++) {
        const char *key = keys[k][0];
        size_t m = strlen(key), d[41][41];
        for (size_t i = 0; i <= n; i++)
            d[i][0] = i;
        for (size_t j = 0; j <= m; j++)
            d[0][j] = j;
        for (size_t i = 1; i <= n; i++)
            for (size_t j = 1; j <= m && m < 40; j++) {
                size_t v = d[i - 1][j - 1] + (name[i - 1] != key[j - 1]);
                if (d[i - 1][j] + 1 < v)
                    v = d[i - 1][j] + 1;
                if (d[i][j - 1] + 1 < v)
                    v = d[i][j - 1] + 1;
                d[i][j] = v;
            }
        if (m < 40 && d[n][m] < bestd) {
            bestd = d[n][m];
            best = key;
        }
    }
    return best;
}

static int on_ini(void *user, const char *section, const char *name, const char *value)
{
    file_ctx *f = user;
    cudnnctl_config_item *it = item(f->cfg, name);
    const char *near = it ? NULL : closest_key(name);
    if (section && *section && strcmp(section, "cudnnctl") != 0)
        f->failed |= problem(f->cfg, cc_asprintf("%s:%d: [%s]: unknown section (use [cudnnctl] "
                                                 "or none)",
                                                 f->path, f->line, section));
    else if (!it)
        f->failed |= problem(f->cfg, cc_asprintf("%s:%d: unknown key '%s'%s%s%s (known: mirror, "
                                                 "manifest-base-url, cacert, cache-dir, "
                                                 "state-dir, proxy, prefix, login-check)",
                                                 f->path, f->line, name,
                                                 near ? "; did you mean '" : "",
                                                 near ? near : "", near ? "'?" : ""));
    else if (set(it, value, f->origin, f->path) != 0)
        f->failed = 1;
    return 1; /* go on: report every problem, not only the first */
}

/* A line inih would read as "key: value" (or with no '=' at all) is not ours: refused here
 * with its number, and inih gets an empty line in its place. */
static int colon_line(file_ctx *f, const char *s)
{
    int indented = *s == ' ' || *s == '\t';
    while (*s == ' ' || *s == '\t' || *s == '\r')
        s++;
    if (!*s || *s == '\n' || *s == '#' || *s == ';' || *s == '[')
        return 0;
    if (indented && f->have_key)
        return 0; /* inih's continuation of the value above */
    size_t eq = strcspn(s, "="), colon = strcspn(s, ":");
    if (!s[eq] && !s[colon])
        return 0; /* no separator: inih reports the line */
    f->have_key = 1;
    if (colon >= eq)
        return 0;
    /* what was meant: the key is the leading word, the value what follows its ':' or blanks */
    size_t n = strcspn(s, "\r\n"), k = strspn(s, "abcdefghijklmnopqrstuvwxyz"
                                                 "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.");
    size_t v = k + strspn(s + k, " \t");
    if (s[v] == ':' && v == colon)
        v += 1 + strspn(s + v + 1, " \t");
    f->failed |= problem(f->cfg, cc_asprintf("%s:%d: '%.*s' is not KEY = VALUE (only '=' "
                                             "separates a key from its value: write '%.*s = "
                                             "%.*s')",
                                             f->path, f->line, (int)n, s, (int)k, s,
                                             (int)(n > v ? n - v : 0), s + v));
    return 1;
}

static char *next_line(char *str, int num, void *stream)
{
    file_ctx *f = stream;
    if (f->pos >= f->len || num < 2)
        return NULL;
    const char *p = f->data + f->pos;
    const char *nl = memchr(p, '\n', f->len - f->pos);
    size_t n = nl ? (size_t)(nl - p) + 1 : f->len - f->pos;
    f->pos += n; /* a line longer than inih's buffer is cut, never split into two */
    f->line++;
    size_t k = n < (size_t)num - 1 ? n : (size_t)num - 1;
    memcpy(str, p, k);
    str[k] = '\0';
    if (k < n && !memchr(str, '\n', k)) {
        f->failed |= problem(f->cfg, cc_asprintf("%s:%d: longer than %d characters: not read",
                                                 f->path, f->line, num - 2));
        str[0] = '\0'; /* an empty line in its place */
    }
    if (colon_line(f, str))
        str[0] = '\0';
    return str;
}
#endif

/* Read one file if it is there; 1 when read, 0 when absent, -1 out of memory. */
static int read_file(cudnnctl_ctx *ctx, cudnnctl_config *c, const char *path,
                     cudnnctl_config_origin o)
{
    cc_pf_stat_t st;
    if (cc_pf_stat(path, &st) != 0 || !st.exists)
        return 0;
#ifdef CUDNNCTL_HAVE_INIH
    char *data = NULL;
    size_t len = 0;
    file_ctx f = {c, path, o, 0, NULL, 0, 0, 0, 0};
    if (cc_sys_read_file(ctx, path, 1u << 20, &data, &len) != 0)
        return problem(c, cc_asprintf("%s: cannot read it: %s", path, cc_pf_last_error_text()))
                   ? -1
                   : 0;
    f.data = data;
    f.len = len;
    int rc = ini_parse_stream(next_line, &f, on_ini, &f);
    if (rc > 0)
        f.failed |= problem(c, cc_asprintf("%s:%d: not an INI line (KEY = VALUE)", path, rc));
    free(data);
    return f.failed ? -1 : 1;
#else
    (void)o;
    (void)ctx;
    return problem(c, cc_asprintf("%s: not read: this build has no configuration file support "
                                  "(CUDNNCTL_* variables work)",
                                  path)) ? -1 : 0;
#endif
}

static int add_file(cudnnctl_ctx *ctx, cudnnctl_config *c, char *path, cudnnctl_config_origin o)
{
    if (!path)
        return -1;
    if (cc_grow(&c->files, NULL, c->n_files + 1, sizeof(*c->files)) != 0 ||
        cc_grow(&c->file_read, NULL, c->n_files + 1, sizeof(*c->file_read)) != 0) {
        free(path);
        return -1;
    }
    c->files[c->n_files] = path;
    int r = read_file(ctx, c, path, o);
    c->file_read[c->n_files++] = r > 0;
    return r < 0 ? -1 : 0;
}

static char *user_file(void)
{
    /* a relative XDG_CONFIG_HOME is ignored, as the XDG spec says: it would read a config from
     * whatever directory the command runs in */
    const char *x = cc_pf_getenv("XDG_CONFIG_HOME");
    if (x && *x && cc_pf_is_abs(x))
        return cc_asprintf("%s/cudnnctl/config", x);
    char *home = cc_pf_home_dir();
    char *p = home ? cc_asprintf("%s/.config/cudnnctl/config", home) : NULL;
    free(home);
    return p;
}

/* A configuration file is believed only when nobody but root or the effective user could have
 * written it or anything on its path (docs/security.md, "Running as root": under sudo -E the
 * caller's ~/.config would otherwise steer root's mirror, CA bundle and dirs). */
static cudnnctl_err trusted_file(cudnnctl_ctx *ctx, const char *path)
{
    cc_pf_stat_t st;
    if (!path || cc_pf_stat(path, &st) != 0 || !st.exists ||
        cc_pf_trust_check(path, CC_PF_TRUST_OBJECT) == 0 ||
        cc_pf_last_error() != CUDNNCTL_E_UNTRUSTED)
        return CUDNNCTL_E_OK;
    return CC_ERR(ctx, CUDNNCTL_E_UNTRUSTED,
                  "the configuration file %s is not read: %s (running as root, use "
                  "/etc/cudnnctl/config; under sudo, do not keep the caller's environment with -E)",
                  path, cc_pf_last_error_text());
}

/* What each key means when nothing sets it (the library's own defaults, as they are here). */
static char *default_of(const cudnnctl_ctx *ctx, const char *key)
{
    if (strcmp(key, "cache-dir") == 0)
        return cc_cache_dir(ctx); /* no --cache-dir is set yet: the default, as it applies */
    if (strcmp(key, "state-dir") == 0)
        return cc_state_dir(ctx); /* under --root: the root's */
    if (strcmp(key, "mirror") == 0)
        return cc_strdup("(none: NVIDIA, https://developer.download.nvidia.com/compute/cudnn/"
                         "redist/)");
    if (strcmp(key, "manifest-base-url") == 0)
        return cc_strdup("(none: the embedded catalog and --manifest only)");
    if (strcmp(key, "cacert") == 0)
        return cc_strdup("(none: the system's CA certificates)");
    if (strcmp(key, "proxy") == 0)
        return cc_strdup("(none: libcurl's http_proxy / https_proxy / no_proxy)");
    if (strcmp(key, "login-check") == 0)
        return cc_strdup("yes (install, use, env ask a new login shell what it loads)");
    return cc_strdup("(none: the active CUDA toolkit, --cuda-home or --prefix)");
}

cudnnctl_err cudnnctl_config_load(cudnnctl_ctx *ctx, cudnnctl_config **out)
{
    *out = NULL;
    cudnnctl_config *c = calloc(1, sizeof(*c));
    if (!c || !(c->items = calloc(N_KEYS, sizeof(*c->items)))) {
        free(c);
        return CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    }
#ifdef CUDNNCTL_HAVE_INIH
    c->files_supported = 1;
#endif
    c->n_items = N_KEYS;
    for (size_t i = 0; i < N_KEYS; i++) {
        c->items[i].key = keys[i][0];
        c->items[i].env = keys[i][1];
        c->items[i].default_value = default_of(ctx, keys[i][0]);
    }
    char *sys_path = cc_rooted(ctx, "/etc/cudnnctl/config"), *user_path = user_file();
    cudnnctl_err te = trusted_file(ctx, sys_path);
    if (te == CUDNNCTL_E_OK)
        te = trusted_file(ctx, user_path);
    if (te != CUDNNCTL_E_OK) {
        free(sys_path);
        free(user_path);
        cudnnctl_config_free(c);
        return te;
    }
    int bad = add_file(ctx, c, sys_path, CUDNNCTL_CFG_SYSTEM);
    bad |= add_file(ctx, c, user_path, CUDNNCTL_CFG_USER);
    for (size_t i = 0; i < N_KEYS && !bad; i++) {
        const char *v = cc_pf_getenv(keys[i][1]);
        if (v && *v)
            bad |= set(&c->items[i], v, CUDNNCTL_CFG_ENV, keys[i][1]);
    }
    if (bad) {
        cudnnctl_config_free(c);
        return CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    }
    *out = c;
    return CUDNNCTL_E_OK;
}

cudnnctl_err cudnnctl_config_set_flag(cudnnctl_config *cfg, const char *key, const char *value,
                                      const char *flag)
{
    cudnnctl_config_item *it = item(cfg, key);
    if (!it)
        return CUDNNCTL_E_USAGE;
    return set(it, value, CUDNNCTL_CFG_FLAG, flag) == 0 ? CUDNNCTL_E_OK : CUDNNCTL_E_NOMEM;
}

const char *cudnnctl_config_get(const cudnnctl_config *cfg, const char *key)
{
    for (size_t i = 0; cfg && i < cfg->n_items; i++)
        if (strcmp(cfg->items[i].key, key) == 0)
            return cfg->items[i].value;
    return NULL;
}

cudnnctl_err cudnnctl_config_json(const cudnnctl_config *cfg, char **json)
{
    cJSON *root = cJSON_CreateObject(), *vals = cJSON_AddObjectToObject(root, "values");
    cJSON *files = cJSON_AddArrayToObject(root, "files");
    int ok = root && vals && files;
    for (size_t i = 0; ok && i < cfg->n_items; i++) {
        const cudnnctl_config_item *it = &cfg->items[i];
        cJSON *o = cJSON_AddObjectToObject(vals, it->key);
        ok = o && (it->value ? cJSON_AddStringToObject(o, "value", it->value)
                             : cJSON_AddNullToObject(o, "value")) &&
             cJSON_AddStringToObject(o, "origin", cudnnctl_config_origin_name(it->origin)) &&
             (it->where ? cJSON_AddStringToObject(o, "where", it->where)
                        : cJSON_AddNullToObject(o, "where")) &&
             cJSON_AddStringToObject(o, "env", it->env) &&
             (it->default_value ? cJSON_AddStringToObject(o, "default", it->default_value)
                                : cJSON_AddNullToObject(o, "default"));
    }
    for (size_t i = 0; ok && i < cfg->n_files; i++) {
        cJSON *f = cJSON_CreateObject();
        ok = f && cJSON_AddItemToArray(files, f) && cJSON_AddStringToObject(f, "path", cfg->files[i]) &&
             cJSON_AddBoolToObject(f, "read", cfg->file_read[i]);
    }
    ok = ok && cc_json_strs(root, "problems", cfg->problems, cfg->n_problems) == 0 &&
         cJSON_AddBoolToObject(root, "files_supported", cfg->files_supported);
    *json = ok ? cJSON_PrintUnformatted(root) : NULL;
    cJSON_Delete(root);
    return *json ? CUDNNCTL_E_OK : CUDNNCTL_E_NOMEM;
}

void cudnnctl_config_free(cudnnctl_config *cfg)
{
    if (!cfg)
        return;
    for (size_t i = 0; i < cfg->n_items; i++) {
        free(cfg->items[i].value);
        free(cfg->items[i].where);
        free(cfg->items[i].default_value);
    }
    free(cfg->items);
    for (size_t i = 0; i < cfg->n_files; i++)
        free(cfg->files[i]);
    free(cfg->files);
    free(cfg->file_read);
    for (size_t i = 0; i < cfg->n_problems; i++)
        free(cfg->problems[i]);
    free(cfg->problems);
    free(cfg);
}
