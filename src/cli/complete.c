/* complete.c: `cudnnctl __complete WORDS...` — what the shells' completion scripts call
 * (share/bash-completion/completions/cudnnctl, _cudnnctl, cudnnctl.fish). WORDS are the words
 * after "cudnnctl", the last one the word being completed (may be empty). Prints one candidate
 * per line as "WORD<TAB>description"; "__files__" or "__dirs__" alone asks the shell to
 * complete file or directory names. Commands and options come from the tables, values from the
 * catalog, detect and the receipts (under the --root / --state-dir given on the line). */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

typedef struct {
    const char *cur;    /* the word being completed, after any "--opt=" */
    const char *prefix; /* "--opt=" to put back in front of a value, else "" */
    char *seen[256];    /* values already printed (no duplicates) */
    int n_seen;
} comp_out;

static void emit(comp_out *c, const char *word, const char *desc)
{
    if (strncmp(word, c->cur, strlen(c->cur)) != 0)
        return;
    for (int i = 0; i < c->n_seen; i++)
        if (strcmp(c->seen[i], word) == 0)
            return;
    if (c->n_seen < 256) {
        size_t n = strlen(word) + 1;
        c->seen[c->n_seen] = malloc(n);
        if (c->seen[c->n_seen])
            memcpy(c->seen[c->n_seen++], word, n);
    }
    printf("%s%s%s%s\n", c->prefix, word, desc && *desc ? "\t" : "", desc ? desc : "");
}

static void values_catalog(comp_out *c, cudnnctl_ctx *ctx, cli_comp kind)
{
    cudnnctl_catalog *cat = NULL;
    if (cudnnctl_catalog_load(ctx, &cat) != CUDNNCTL_E_OK)
        return;
    cudnnctl_catalog_filter flt = {NULL, NULL, "all", "any"};
    const cudnnctl_archive **v = NULL;
    size_t n = 0;
    if (cudnnctl_catalog_query(ctx, cat, &flt, &v, &n) == CUDNNCTL_E_OK) {
        for (size_t i = 0; i < n; i++) {
            char buf[64];
            if (kind == CLI_COMP_PLATFORM) {
                emit(c, v[i]->platform, "platform");
            } else if (kind == CLI_COMP_CUDA) {
                snprintf(buf, sizeof(buf), "%d", v[i]->cuda_major);
                emit(c, buf, "CUDA major (catalog)");
            } else {
                /* 9.19 (the newest 9.19.x for the CUDA major and platform) and 9.19.0.56 */
                const char *ver = v[i]->cudnn_version;
                const char *d1 = strchr(ver, '.'), *d2 = d1 ? strchr(d1 + 1, '.') : NULL;
                size_t mm = d2 ? (size_t)(d2 - ver) : strlen(ver);
                snprintf(buf, sizeof(buf), "%.*s", (int)mm, ver);
                emit(c, buf, "newest release of this series");
                emit(c, ver, "cuDNN release");
            }
        }
    }
    cudnnctl_free((void *)v);
    cudnnctl_catalog_free(cat);
}

static void values_detect(comp_out *c, cudnnctl_ctx *ctx)
{
    cudnnctl_detect_result *det = NULL;
    if (cudnnctl_detect(ctx, &det) != CUDNNCTL_E_OK)
        return;
    for (size_t i = 0; i < det->n_toolkits; i++)
        emit(c, det->toolkits[i].version,
             det->toolkits[i].active ? "CUDA toolkit (active)" : "CUDA toolkit");
    cudnnctl_detect_result_free(det);
}

static void values_installed(comp_out *c, cudnnctl_ctx *ctx)
{
    cudnnctl_install_list *l = NULL;
    if (cudnnctl_list(ctx, NULL, &l) == CUDNNCTL_E_OK)
        for (size_t i = 0; i < l->n_items; i++)
            emit(c, l->items[i].cudnn_version, "installed by cudnnctl");
    cudnnctl_install_list_free(l);
}

static void values(comp_out *c, cudnnctl_ctx *ctx, cli_comp kind)
{
    static const char *const shells[] = {"sh", "bash", "zsh", "fish", "pwsh", "cmd", "lmod", "tcl", NULL};
    static const char *const colors[] = {"auto", "always", "never", NULL};
    switch (kind) {
    case CLI_COMP_FILE: printf("__files__\n"); break;
    case CLI_COMP_DIR: printf("__dirs__\n"); break;
    case CLI_COMP_SHELL:
        for (int i = 0; shells[i]; i++)
            emit(c, shells[i], "shell");
        break;
    case CLI_COMP_COLOR:
        for (int i = 0; colors[i]; i++)
            emit(c, colors[i], NULL);
        break;
    case CLI_COMP_CONSUMER:
        emit(c, "torch==", "the cuDNN a PyTorch release was built with");
        emit(c, "tensorflow==", "the cuDNN a TensorFlow release was built with");
        break;
    case CLI_COMP_COMMAND:
        for (const cli_command *k = cli_commands; k->name; k++)
            if (!k->hidden)
                emit(c, k->name, k->summary);
        break;
    case CLI_COMP_CACHE_OP:
        emit(c, "list", "blobs in the cache");
        emit(c, "verify", "re-hash every blob");
        emit(c, "clean", "remove blobs, parts and quarantine");
        break;
    case CLI_COMP_TOOLKIT: values_detect(c, ctx); break;
    case CLI_COMP_CUDA:
        values_detect(c, ctx);
        values_catalog(c, ctx, kind);
        break;
    case CLI_COMP_PLATFORM:
    case CLI_COMP_CUDNN: values_catalog(c, ctx, kind); break;
    case CLI_COMP_INSTALLED: values_installed(c, ctx); break;
    case CLI_COMP_NONE: break;
    }
}

/* The option a word names ("--cudnn", "--cudnn=9", "-q"), for command c (NULL: any). */
static const cli_optspec *word_opt(const char *w, const cli_command *c)
{
    if (w[0] != '-')
        return NULL;
    if (w[1] != '-') {
        for (const cli_optspec *s = cli_optspecs; s->name; s++)
            if (s->short_name && s->short_name == w[1])
                return s;
        return NULL;
    }
    char name[64];
    snprintf(name, sizeof(name), "%.*s", (int)strcspn(w + 2, "="), w + 2);
    const cli_optspec *s = c ? cli_find_optspec(name, c) : NULL;
    return s ? s : cli_find_optspec(name, NULL);
}

static void options(comp_out *c, const cli_command *cmd)
{
    for (const cli_optspec *s = cli_optspecs; s->name; s++) {
        if (cmd ? !cli_command_takes(cmd, s) : strcmp(s->commands, "*") != 0)
            continue;
        char w[64];
        snprintf(w, sizeof(w), "--%s", s->name);
        emit(c, w, s->help);
    }
    if (!cmd)
        emit(c, "--version", "versions of cudnnctl, its libraries and catalog");
}

int cmd_complete(cli_opts *o, cudnnctl_ctx *ctx)
{
    comp_out c = {"", "", {0}, 0};
    int n = o->n_args;
    char **w = o->args;
    if (n < 1)
        return 0;
    const cli_command *cmd = NULL;
    int npos = 0;
    /* the words before the current one: the command, --root / --state-dir, values */
    for (int i = 0; i < n - 1; i++) {
        const cli_optspec *s = word_opt(w[i], cmd);
        if (s && s->arg && !strchr(w[i], '=') && i + 1 < n - 1) {
            if (strcmp(s->name, "root") == 0)
                cudnnctl_set_root(ctx, w[i + 1]);
            else if (strcmp(s->name, "state-dir") == 0)
                cudnnctl_set_state_dir(ctx, w[i + 1]);
            i++;
        } else if (!s && w[i][0] != '-') {
            if (!cmd)
                cmd = cli_find_command(w[i]);
            else
                npos++;
        }
    }
    const char *cur = w[n - 1], *prev = n >= 2 ? w[n - 2] : "";
    const cli_optspec *ps = word_opt(prev, cmd);
    if (ps && ps->arg && !strchr(prev, '=')) {
        c.cur = cur;
        values(&c, ctx, ps->comp);
    } else if (cur[0] == '-' && strchr(cur, '=')) {
        const cli_optspec *s = word_opt(cur, cmd);
        static char pre[80];
        snprintf(pre, sizeof(pre), "%.*s=", (int)strcspn(cur, "="), cur);
        c.prefix = pre;
        c.cur = strchr(cur, '=') + 1;
        if (s && s->arg)
            values(&c, ctx, s->comp);
    } else if (cur[0] == '-') {
        c.cur = cur;
        options(&c, cmd);
    } else if (!cmd) {
        c.cur = cur;
        values(&c, ctx, CLI_COMP_COMMAND);
    } else if (cmd->max_args < 0 || npos < cmd->max_args) {
        c.cur = cur;
        values(&c, ctx, cmd->args_comp);
    }
    for (int i = 0; i < c.n_seen; i++)
        free(c.seen[i]);
    return 0;
}
