/* config.c: the configuration: /etc/cudnnctl/config (under the root), the user's
 * $XDG_CONFIG_HOME/cudnnctl/config, CUDNNCTL_* variables; a flag wins over all (config.h).
 * Files are INI, read by inih (Debian's libinih): "key = value" lines, '#' or ';' comments,
 * optionally under a [cudnnctl] section. A build without inih (the Windows cross build) reads
 * no files and says so; the variables still work. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "json.h"
#include "str.h"

#ifdef CUDNNCTL_HAVE_INIH
#include <ini.h>
#endif

static const char *const keys[][2] = {
    {"mirror", "CUDNNCTL_MIRROR"},     {"manifest-base-url", "CUDNNCTL_MANIFEST_BASE_URL"},
    {"cacert", "CUDNNCTL_CACERT"},     {"cache-dir", "CUDNNCTL_CACHE_DIR"},
    {"state-dir", "CUDNNCTL_STATE_DIR"}, {"proxy", "CUDNNCTL_PROXY"},
    {"prefix", "CUDNNCTL_PREFIX"},
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
    char **n = realloc(c->problems, (c->n_problems + 1) * sizeof(*n));
    if (!n) {
        free(text);
        return -1;
    }
    c->problems = n;
    c->problems[c->n_problems++] = text;
    return 0;
}

typedef struct {
    cudnnctl_config *cfg;
    const char *path;
    cudnnctl_config_origin origin;
    int failed;
} file_ctx;

#ifdef CUDNNCTL_HAVE_INIH
static int on_ini(void *user, const char *section, const char *name, const char *value)
{
    file_ctx *f = user;
    cudnnctl_config_item *it = item(f->cfg, name);
    if (section && *section && strcmp(section, "cudnnctl") != 0)
        f->failed |= problem(f->cfg, cc_asprintf("%s: [%s]: unknown section (use [cudnnctl] or "
                                                 "none)",
                                                 f->path, section));
    else if (!it)
        f->failed |= problem(f->cfg, cc_asprintf("%s: unknown key '%s' (known: mirror, "
                                                 "manifest-base-url, cacert, cache-dir, "
                                                 "state-dir, proxy, prefix)",
                                                 f->path, name));
    else if (set(it, value, f->origin, f->path) != 0)
        f->failed = 1;
    return 1; /* go on: report every problem, not only the first */
}
#endif

/* Read one file if it is there; 1 when read, 0 when absent, -1 out of memory. */
static int read_file(cudnnctl_config *c, const char *path, cudnnctl_config_origin o)
{
    cc_pf_stat_t st;
    if (cc_pf_stat(path, &st) != 0 || !st.exists)
        return 0;
#ifdef CUDNNCTL_HAVE_INIH
    file_ctx f = {c, path, o, 0};
    int rc = ini_parse(path, on_ini, &f);
    if (rc > 0)
        f.failed |= problem(c, cc_asprintf("%s:%d: not an INI line (key = value)", path, rc));
    else if (rc < 0)
        f.failed |= problem(c, cc_asprintf("%s: cannot read it", path));
    return f.failed ? -1 : 1;
#else
    (void)o;
    return problem(c, cc_asprintf("%s: not read: this build has no configuration file support "
                                  "(CUDNNCTL_* variables work)",
                                  path)) ? -1 : 0;
#endif
}

static int add_file(cudnnctl_config *c, char *path, cudnnctl_config_origin o)
{
    if (!path)
        return -1;
    char **nf = realloc(c->files, (c->n_files + 1) * sizeof(*nf));
    int *nr = nf ? realloc(c->file_read, (c->n_files + 1) * sizeof(*nr)) : NULL;
    if (nf)
        c->files = nf;
    if (!nr) {
        free(path);
        return -1;
    }
    c->file_read = nr;
    c->files[c->n_files] = path;
    int r = read_file(c, path, o);
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
    }
    int bad = add_file(c, cc_rooted(ctx, "/etc/cudnnctl/config"), CUDNNCTL_CFG_SYSTEM);
    bad |= add_file(c, user_file(), CUDNNCTL_CFG_USER);
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
             cJSON_AddStringToObject(o, "env", it->env);
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
