/* cmd_config.c: the configuration (the library resolves it: include/cudnnctl/config.h) applied
 * to the options — a flag wins, then CUDNNCTL_* variables, the user's file, the system file —
 * and the 'config' command that shows each effective value and where it came from. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static cudnnctl_config *g_cfg;

static int takes(const cli_command *c, const char *opt)
{
    return cli_find_optspec(opt, c) != NULL;
}

/* key ← flag when given; then the option gets the effective value where the command uses it. */
static int one(const char *key, const char **opt, const char *flag, int applies)
{
    if (*opt && cudnnctl_config_set_flag(g_cfg, key, *opt, flag) != CUDNNCTL_E_OK)
        return -1;
    if (!*opt && applies)
        *opt = cudnnctl_config_get(g_cfg, key);
    return 0;
}

static int is_one_of(const char *v, const char *const *set)
{
    for (; *set; set++)
        if (strcmp(v, *set) == 0)
            return 1;
    return 0;
}

/* login-check = yes|no: whether install, use and env ask a new login shell what it loads
 * (--no-login-check is the flag). Another value is warned about, and the check runs. */
static int login_check(cli_opts *o, const cli_command *cmd)
{
    static const char *const no[] = {"no", "false", "off", "0", NULL};
    static const char *const yes[] = {"yes", "true", "on", "1", NULL};
    if (o->no_login_check)
        return cudnnctl_config_set_flag(g_cfg, "login-check", "no", "--no-login-check") ==
                       CUDNNCTL_E_OK
                   ? 0
                   : -1;
    const char *v = cudnnctl_config_get(g_cfg, "login-check");
    if (!v || !takes(cmd, "no-login-check") || is_one_of(v, yes))
        return 0;
    if (is_one_of(v, no)) {
        o->no_login_check = 1;
        return 0;
    }
    const char *where = "?";
    for (size_t i = 0; i < g_cfg->n_items; i++)
        if (strcmp(g_cfg->items[i].key, "login-check") == 0 && g_cfg->items[i].where)
            where = g_cfg->items[i].where;
    cli_warn(o,
             "configuration: login-check = '%s' (%s) is neither yes nor no: the login check "
             "runs; fix: make it 'login-check = no' (or yes) there; for this shell alone: export "
             "CUDNNCTL_LOGIN_CHECK=no",
             v, where);
    return 0;
}

int cli_config_apply(cli_opts *o, const cli_command *cmd, cudnnctl_ctx *ctx)
{
    cudnnctl_err e = cudnnctl_config_load(ctx, &g_cfg);
    if (e != CUDNNCTL_E_OK)
        return cli_fail(o, ctx, e);
    for (size_t i = 0; i < g_cfg->n_problems; i++)
        if (strcmp(cmd->name, "config") != 0)
            cli_warn(o, "configuration: %s", g_cfg->problems[i]);
    int install = strcmp(cmd->name, "plan") == 0 || strcmp(cmd->name, "install") == 0;
    int bad = one("cache-dir", &o->cache_dir, "--cache-dir", 1) |
              one("state-dir", &o->state_dir, "--state-dir", 1) |
              one("cacert", &o->cacert, "--cacert", takes(cmd, "cacert")) |
              /* the mirror to install from (for 'mirror' --mirror is the upstream) */
              one("mirror", &o->mirror, "--mirror", install);
    if (o->cuda_home)
        bad |= cudnnctl_config_set_flag(g_cfg, "prefix", "(none: --cuda-home)", "--cuda-home") !=
               CUDNNCTL_E_OK;
    else
        bad |= one("prefix", &o->prefix, "--prefix", install);
    bad |= login_check(o, cmd);
    if (bad)
        return cli_fail(o, ctx, CUDNNCTL_E_NOMEM);
    const char *proxy = cudnnctl_config_get(g_cfg, "proxy");
    if (proxy && (e = cudnnctl_set_proxy(ctx, proxy)) != CUDNNCTL_E_OK)
        return cli_fail(o, ctx, e);
    /* --cacert serves every https download of the command: --manifest URLs as well */
    if (o->cacert && (e = cudnnctl_set_cacert(ctx, o->cacert)) != CUDNNCTL_E_OK)
        return cli_fail(o, ctx, e);
    return 0;
}

void cli_config_free(void)
{
    cudnnctl_config_free(g_cfg);
    g_cfg = NULL;
}

const char *cli_config_get(const char *key)
{
    return cudnnctl_config_get(g_cfg, key);
}

int cmd_config(cli_opts *o, cudnnctl_ctx *ctx)
{
    if (o->json) {
        char *js = NULL;
        cudnnctl_err e = cudnnctl_config_json(g_cfg, &js);
        if (e != CUDNNCTL_E_OK)
            return cli_fail(o, ctx, e);
        cli_print_json(js);
        cudnnctl_free(js);
        return 0;
    }
    static const char *const hdr[] = {"KEY", "VALUE", "FROM", "VARIABLE"};
    cli_table *t = cli_table_new(4, hdr);
    for (size_t i = 0; i < g_cfg->n_items; i++) {
        const cudnnctl_config_item *it = &g_cfg->items[i];
        char from[1024];
        snprintf(from, sizeof(from), "%s%s%s%s", cudnnctl_config_origin_name(it->origin),
                 it->where ? " (" : "", it->where ? it->where : "", it->where ? ")" : "");
        const char *row[] = {it->key,
                             it->value           ? it->value
                             : it->default_value ? it->default_value
                                                 : "-",
                             from, it->env};
        cli_table_row(t, row);
    }
    cli_table_print(t, stdout);
    cli_table_free(t);
    printf("\nfiles (later wins; variables win over files, flags over all):\n");
    for (size_t i = 0; i < g_cfg->n_files; i++)
        printf("  %s  %s\n", g_cfg->files[i],
               !g_cfg->files_supported ? "(not read: no file support in this build)"
               : g_cfg->file_read[i]   ? "(read)"
                                       : "(absent)");
    for (size_t i = 0; i < g_cfg->n_problems; i++)
        cli_warn(o, "%s", g_cfg->problems[i]);
    return g_cfg->n_problems ? 1 : 0;
}
