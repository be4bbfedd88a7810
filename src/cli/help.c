/* help.c: what the command table says to people: the global and per-command help, "did you
 * mean" suggestions, and `cudnnctl --version`. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "gitversion.h"

const cli_command *cli_find_command(const char *name)
{
    for (const cli_command *k = cli_commands; k->name; k++)
        if (strcmp(k->name, name) == 0)
            return k;
    return NULL;
}

int cli_in_words(const char *list, const char *word)
{
    if (strcmp(list, "*") == 0)
        return 1;
    size_t n = strlen(word);
    for (const char *p = list; *p;) {
        size_t m = strcspn(p, " ");
        if (m == n && strncmp(p, word, n) == 0)
            return 1;
        p += m;
        while (*p == ' ')
            p++;
    }
    return 0;
}

int cli_command_takes(const cli_command *c, const cli_optspec *s)
{
    return cli_in_words(s->commands, c->name);
}

const cli_optspec *cli_find_optspec(const char *name, const cli_command *c)
{
    for (const cli_optspec *s = cli_optspecs; s->name; s++)
        if (strcmp(s->name, name) == 0 && (!c || cli_command_takes(c, s)))
            return s;
    return NULL;
}

/* "--cudnn V", "-q, --quiet" */
static void opt_label(char *buf, size_t n, const cli_optspec *s)
{
    char sh[8] = "";
    if (s->short_name)
        snprintf(sh, sizeof(sh), "-%c, ", s->short_name);
    snprintf(buf, n, "%s--%s%s%s", sh, s->name, s->arg ? " " : "", s->arg ? s->arg : "");
}

/* The words of text filled to width columns, then a newline. The text goes on from column col
 * of the current line (0: a line of its own); each line it starts is indented by ind. */
static void fill(FILE *f, const char *text, int col, int ind, int width)
{
    int words = 0; /* on this line */
    for (const char *p = text; *p;) {
        while (*p == ' ')
            p++;
        int n = (int)strcspn(p, " ");
        if (!n)
            break;
        if (words && col + 1 + n > width) {
            fputc('\n', f);
            col = 0;
            words = 0;
        }
        if (!col) {
            fprintf(f, "%*s", ind, "");
            col = ind;
        } else {
            fputc(' ', f);
            col++;
        }
        fwrite(p, 1, (size_t)n, f);
        col += n;
        words++;
        p += n;
    }
    fputc('\n', f);
}

/* An option's help after its label (column 29), wrapped at 79 columns. */
static void help_text(FILE *f, const char *text)
{
    fill(f, text, 28, 29, 79);
}

static void print_opts(FILE *f, const cli_command *c, int global)
{
    for (const cli_optspec *s = cli_optspecs; s->name; s++) {
        int g = strcmp(s->commands, "*") == 0;
        if (g != global || (c && !cli_command_takes(c, s)))
            continue;
        char label[64];
        opt_label(label, sizeof(label), s);
        fprintf(f, "  %-26s", label);
        if (strlen(label) > 26)
            fprintf(f, "\n%28s", "");
        help_text(f, s->help);
    }
}

/* Text wrapped at 78 columns, each line indented by ind. */
static void wrap(FILE *f, const char *text, int ind)
{
    fill(f, text, 0, ind, 78);
}

/* examples.c's lines for this command: the line, then what it does, indented. */
static void print_examples(FILE *f, const char *command)
{
    int any = 0;
    for (const cli_example *e = cli_examples; e->line; e++) {
        if (!cli_example_for(e, command))
            continue;
        fprintf(f, "%s  %s\n", any++ ? "" : "\nexamples:\n", e->line);
        wrap(f, e->what, 6);
    }
}

void cli_command_help(FILE *f, const cli_command *c)
{
    fprintf(f, "usage: cudnnctl %s [options]%s%s\n\n", c->name, c->args && *c->args ? " " : "",
            c->args ? c->args : "");
    wrap(f, c->description ? c->description : c->summary, 0);
    int any = 0;
    for (const cli_optspec *s = cli_optspecs; s->name && !any; s++)
        any = strcmp(s->commands, "*") != 0 && cli_command_takes(c, s);
    if (any) {
        fprintf(f, "\noptions:\n");
        print_opts(f, c, 0);
    }
    fprintf(f, "\nglobal options:\n");
    print_opts(f, NULL, 1);
    print_examples(f, c->name);
    fprintf(f, "\nSee cudnnctl-%s(1) and docs/cli.md; exit codes: cudnnctl help.\n", c->name);
}

void cli_usage(FILE *f)
{
    fprintf(f, "usage: cudnnctl [global options] <command> [options] [arguments]\n\ncommands:\n");
    for (const cli_command *c = cli_commands; c->name; c++)
        if (!c->hidden)
            fprintf(f, "  %-10s %s\n", c->name, c->summary);
    fprintf(f, "\nglobal options:\n");
    print_opts(f, NULL, 1);
    fprintf(f, "  %-26s %s\n", "-V, --version", "versions of cudnnctl, its libraries and catalog");
    fprintf(f, "\nexit codes:\n");
    for (const cli_exit_code *e = cli_exit_codes; e->meaning; e++)
        fprintf(f, "  %2d  %s\n", e->code, e->meaning);
    fprintf(f, "\n'cudnnctl help COMMAND' or 'cudnnctl COMMAND --help' shows a command's options.\n");
}

int cmd_help(cli_opts *o, cudnnctl_ctx *ctx)
{
    (void)ctx;
    if (!o->n_args) {
        cli_usage(stdout);
        return 0;
    }
    const cli_command *c = cli_find_command(o->args[0]);
    if (!c) {
        const char *near = cli_suggest_command(o->args[0]);
        fprintf(stderr, "cudnnctl: unknown command '%s'%s%s%s\n", o->args[0],
                near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "");
        return 2;
    }
    cli_command_help(stdout, c);
    return 0;
}

/* ---- suggestions ---------------------------------------------------------------------------- */

static int edit_distance(const char *a, const char *b)
{
    size_t n = strlen(a), m = strlen(b);
    if (n > 40 || m > 40)
        return 99;
    int d[41][41];
    for (size_t i = 0; i <= n; i++)
        d[i][0] = (int)i;
    for (size_t j = 0; j <= m; j++)
        d[0][j] = (int)j;
    for (size_t i = 1; i <= n; i++)
        for (size_t j = 1; j <= m; j++) {
            int best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            if (d[i - 1][j] + 1 < best)
                best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best)
                best = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1; /* a swap of two letters */
            d[i][j] = best;
        }
    return d[n][m];
}

/* Keep the candidate closest to s: distance at most 2 (1 for words of up to 3 letters). */
static void consider(const char *s, const char *cand, const char **best, int *bestd)
{
    int d = edit_distance(s, cand);
    int limit = strlen(s) <= 3 ? 1 : 2;
    if (d <= limit && d < *bestd) {
        *best = cand;
        *bestd = d;
    }
}

const char *cli_suggest_command(const char *s)
{
    const char *best = NULL;
    int bestd = 99;
    for (const cli_command *c = cli_commands; c->name; c++)
        if (!c->hidden)
            consider(s, c->name, &best, &bestd);
    return best;
}

const char *cli_suggest_option(const char *s, const cli_command *c)
{
    const char *best = NULL;
    int bestd = 99;
    for (const cli_optspec *o = cli_optspecs; o->name; o++)
        if (!c || cli_command_takes(c, o))
            consider(s, o->name, &best, &bestd);
    return best;
}

/* ---- version ------------------------------------------------------------------------------- */

/* The catalog line of --version: what `cudnnctl update` stored under the state dir, and how
 * old the catalog is (--root / --state-dir before --version are honoured). */
static cudnnctl_catalog_info *version_catalog(const char *root, const char *state_dir)
{
    static cudnnctl_catalog_info info;
    cudnnctl_ctx *ctx = NULL;
    int ok = cudnnctl_ctx_new(&ctx) == CUDNNCTL_E_OK &&
             (!root || cudnnctl_set_root(ctx, root) == CUDNNCTL_E_OK) &&
             (!state_dir || cudnnctl_set_state_dir(ctx, state_dir) == CUDNNCTL_E_OK) &&
             cudnnctl_catalog_info_get(ctx, &info) == CUDNNCTL_E_OK;
    cudnnctl_ctx_free(ctx);
    return ok ? &info : NULL;
}

void cli_print_version(int json, const char *root, const char *state_dir)
{
    const cudnnctl_build_info *b = cudnnctl_build_info_get();
    cudnnctl_catalog_info *ci = version_catalog(root, state_dir);
    if (json) {
        char *cj = NULL;
        if (!ci || cudnnctl_catalog_info_json(ci, &cj) != CUDNNCTL_E_OK)
            cj = NULL;
        printf("{\"version\":\"%s\",\"git\":\"%s\",\"libarchive\":\"%s\",\"libcurl\":\"%s\","
               "\"openssl\":\"%s\",\"cjson\":\"%s\",\"catalog_newest\":\"%s\","
               "\"catalog_manifests\":%zu,\"catalog\":%s}\n",
               b->version, CUDNNCTL_GIT_DESCRIBE, b->libarchive, b->libcurl, b->openssl, b->cjson,
               b->newest_manifest, b->n_manifests, cj ? cj : "null");
        cudnnctl_free(cj);
        cudnnctl_catalog_info_clear(ci);
        return;
    }
    printf("cudnnctl %s (git %s)\n", b->version, CUDNNCTL_GIT_DESCRIBE);
    printf("  libarchive %s\n", b->libarchive);
    printf("  libcurl    %s\n", b->libcurl);
    printf("  OpenSSL    %s\n", b->openssl);
    printf("  cJSON      %s\n", b->cjson);
    printf("  catalog    %zu manifests, newest %s\n", b->n_manifests, b->newest_manifest);
    if (ci && ci->updated_at)
        printf("             + %zu from `cudnnctl update` (newest %s), last run %s from %s; %ld "
               "days old\n",
               ci->stored, ci->stored_newest ? ci->stored_newest : "-", ci->updated_at,
               ci->source ? ci->source : "?", ci->age_days);
    else if (ci)
        printf("             never updated (`cudnnctl update`); %ld days since its newest "
               "release (%s)\n",
               ci->age_days, ci->embedded_date ? ci->embedded_date : "?");
    cudnnctl_catalog_info_clear(ci);
}
