/* man.c: the command table as man pages (roff, `cudnnctl __man [CMD]`, run by the build), as
 * docs/cli.md's tables (`cudnnctl __doc-tables`), and the check of optspec.c's lines and the
 * getopt table made from them (`cudnnctl __cli-check`). */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"

/* roff-escaped text: backslash, minus; a line may not start with '.' or '\''. */
static void roff(FILE *f, const char *s)
{
    if (*s == '.' || *s == '\'')
        fputs("\\&", f);
    for (; *s; s++) {
        if (*s == '\\')
            fputs("\\e", f);
        else if (*s == '-')
            fputs("\\-", f);
        else
            fputc(*s, f);
    }
}

/* Markdown table cell text: a '|' escaped. */
static void md(FILE *f, const char *s)
{
    for (; *s; s++)
        fputs(*s == '|' ? "\\|" : (char[]){*s, 0}, f);
}

/* How an option's label ("-q, --quiet", "--cudnn V") is marked up: roff for the man pages,
 * Markdown for docs/cli.md's table. */
typedef struct {
    const char *short_open, *short_close; /* around "-c" */
    const char *long_open, *long_close;   /* around the name ("--" in long_open) */
    const char *arg_open, *arg_close;     /* around the argument */
    void (*text)(FILE *f, const char *s); /* the escaping */
} label_markup;

static const label_markup roff_label = {"\\fB\\-", "\\fR, ", "\\fB\\-\\-", "\\fR",
                                        " \\fI",   "\\fR",   roff};
static const label_markup md_label = {"-", "`, `", "--", "", " ", "", md};

static void opt_label(FILE *f, const cli_optspec *s, const label_markup *m)
{
    if (s->short_name) {
        fputs(m->short_open, f);
        fputc(s->short_name, f);
        fputs(m->short_close, f);
    }
    fputs(m->long_open, f);
    m->text(f, s->name);
    fputs(m->long_close, f);
    if (s->arg) {
        fputs(m->arg_open, f);
        m->text(f, s->arg);
        fputs(m->arg_close, f);
    }
}

static void man_header(FILE *f, const char *name, const char *what)
{
    char date[32] = "2026-01-01";
    const char *sde = cudnnctl_host_getenv("SOURCE_DATE_EPOCH");
    time_t t = sde ? (time_t)strtoll(sde, NULL, 10) : time(NULL);
    struct tm *tm = gmtime(&t);
    if (tm)
        strftime(date, sizeof(date), "%Y-%m-%d", tm);
    char up[64];
    size_t i = 0;
    for (; name[i] && i < sizeof(up) - 1; i++)
        up[i] = (char)(name[i] >= 'a' && name[i] <= 'z' ? name[i] - 32 : name[i]);
    up[i] = 0;
    fprintf(f, ".TH \"");
    roff(f, up);
    /* .nh: no hyphenation, so groff never breaks a command name ("cud-nnctl-install(1)"); .ad l:
     * ragged right, no stretched gaps between long names */
    fprintf(f, "\" \"1\" \"%s\" \"cudnnctl %s\" \"User Commands\"\n.nh\n.ad l\n.SH NAME\n",
            date, CUDNNCTL_VERSION_STRING);
    roff(f, name);
    fputs(" \\- ", f);
    roff(f, what);
    fputc('\n', f);
}

static void man_options(FILE *f, const cli_command *c, int global)
{
    for (const cli_optspec *s = cli_optspecs; s->name; s++) {
        if ((strcmp(s->commands, "*") == 0) != global || (c && !cli_command_takes(c, s)))
            continue;
        fputs(".TP\n", f);
        opt_label(f, s, &roff_label);
        fputc('\n', f);
        roff(f, s->help);
        fputc('\n', f);
    }
}

/* A tagged paragraph: the term in bold, then its text. */
static void man_tagged(FILE *f, const char *term, const char *text)
{
    fputs(".TP\n.B ", f);
    roff(f, term);
    fputc('\n', f);
    roff(f, text);
    fputc('\n', f);
}

/* ENVIRONMENT: the variables that matter to this page's command ("" for cudnnctl(1): all). */
static void man_environment(FILE *f, const char *command)
{
    fputs(".SH ENVIRONMENT\n", f);
    for (const cli_envvar *v = cli_envvars; v->name; v++)
        if (cli_envvar_for(v, command))
            man_tagged(f, v->name, v->meaning);
}

/* EXAMPLES: what each does, then the line as typed, in bold, not filled. */
static void man_examples(FILE *f, const char *command)
{
    int any = 0;
    fputs(".SH EXAMPLES\n", f);
    for (const cli_example *e = cli_examples; e->line; e++) {
        if (!cli_example_for(e, command))
            continue;
        if (any++)
            fputs(".PP\n", f);
        roff(f, e->what);
        fputs(":\n.RS 4\n.nf\n\\fB", f);
        roff(f, e->line);
        fputs("\\fR\n.fi\n.RE\n", f);
    }
}

/* The sections after the options; command "" is cudnnctl(1) itself. */
static void man_exit_and_see_also(FILE *f, const char *command)
{
    const char *self = *command ? command : "cudnnctl";
    fputs(".SH EXIT STATUS\n", f);
    for (const cli_exit_code *e = cli_exit_codes; e->meaning; e++) {
        char code[16];
        snprintf(code, sizeof(code), "%d", e->code);
        man_tagged(f, code, e->meaning);
    }
    man_environment(f, command);
    fputs(".SH FILES\n.TP\n.I /etc/cudnnctl/config\nsystem configuration (INI)\n"
          ".TP\n.I $XDG_CONFIG_HOME/cudnnctl/config\nuser configuration; see\n"
          ".BR cudnnctl\\-config (1)\n",
          f);
    man_examples(f, command);
    fputs(".SH SEE ALSO\n", f);
    int first = 1;
    if (strcmp(self, "cudnnctl") != 0) {
        fputs(".BR cudnnctl (1)", f);
        first = 0;
    }
    for (const cli_command *c = cli_commands; c->name; c++) {
        if (c->hidden || strcmp(c->name, self) == 0)
            continue;
        fprintf(f, "%s.BR cudnnctl\\-", first ? "" : ",\n");
        roff(f, c->name);
        fputs(" (1)", f);
        first = 0;
    }
    fputc('\n', f);
}

static void man_main(FILE *f)
{
    man_header(f, "cudnnctl", "install, switch and validate NVIDIA cuDNN");
    fputs(".SH SYNOPSIS\n.B cudnnctl\n[\\fIglobal options\\fR] \\fIcommand\\fR [\\fIoptions\\fR] "
          "[\\fIarguments\\fR]\n.br\n.B cudnnctl \\-\\-version\n.SH DESCRIPTION\n"
          "cudnnctl detects CUDA toolkits, drivers and every cuDNN copy on a machine, plans and "
          "installs cuDNN from NVIDIA's archives (verified, atomic, undoable), wires the "
          "environment, validates on the GPU and diagnoses problems.\n.SH COMMANDS\n",
          f);
    for (const cli_command *c = cli_commands; c->name; c++) {
        if (c->hidden)
            continue;
        fputs(".TP\n.BR cudnnctl\\-", f);
        roff(f, c->name);
        fputs(" (1)\n", f);
        roff(f, c->summary);
        fputc('\n', f);
    }
    fputs(".SH GLOBAL OPTIONS\n", f);
    man_options(f, NULL, 1);
    fputs(".TP\n.B \\-\\-version\nversions of cudnnctl, its libraries and catalog\n", f);
    man_exit_and_see_also(f, "");
}

static void man_command(FILE *f, const cli_command *c)
{
    char name[64];
    snprintf(name, sizeof(name), "cudnnctl-%s", c->name);
    man_header(f, name, c->summary);
    fputs(".SH SYNOPSIS\n.B cudnnctl ", f);
    roff(f, c->name);
    fputs("\n[\\fIoptions\\fR]", f);
    if (c->args && *c->args) {
        fputs(" \\fI", f);
        roff(f, c->args);
        fputs("\\fR", f);
    }
    fputs("\n.SH DESCRIPTION\n", f);
    roff(f, c->description ? c->description : c->summary);
    fputc('\n', f);
    int any = 0;
    for (const cli_optspec *s = cli_optspecs; s->name && !any; s++)
        any = strcmp(s->commands, "*") != 0 && cli_command_takes(c, s);
    if (any) {
        fputs(".SH OPTIONS\n", f);
        man_options(f, c, 0);
    }
    fputs(".SH GLOBAL OPTIONS\n", f);
    man_options(f, NULL, 1);
    man_exit_and_see_also(f, c->name);
}

int cmd_man(cli_opts *o, cudnnctl_ctx *ctx)
{
    (void)ctx;
    if (!o->n_args) {
        man_main(stdout);
        return 0;
    }
    const cli_command *c = cli_find_command(o->args[0]);
    if (!c || c->hidden) {
        fprintf(stderr, "cudnnctl: no man page for '%s'\n", o->args[0]);
        return 2;
    }
    man_command(stdout, c);
    return 0;
}

/* ---- docs/cli.md --------------------------------------------------------------------------- */

int cmd_doc_tables(cli_opts *o, cudnnctl_ctx *ctx)
{
    (void)o;
    (void)ctx;
    FILE *f = stdout;
    fputs("| command | arguments | does |\n|---|---|---|\n", f);
    for (const cli_command *c = cli_commands; c->name; c++) {
        if (c->hidden)
            continue;
        fprintf(f, "| `%s` | ", c->name);
        if (c->args && *c->args) {
            fputc('`', f);
            md(f, c->args);
            fputc('`', f);
        }
        fputs(" | ", f);
        md(f, c->summary);
        fputs(" |\n", f);
    }
    fputs("\n| option | commands | meaning |\n|---|---|---|\n", f);
    for (const cli_optspec *s = cli_optspecs; s->name; s++) {
        fputs("| `", f);
        opt_label(f, s, &md_label);
        fputs("` | ", f);
        fputs(strcmp(s->commands, "*") == 0 ? "all" : s->commands, f);
        fputs(" | ", f);
        md(f, s->help);
        fputs(" |\n", f);
    }
    fputs("\n| code | meaning |\n|---|---|\n", f);
    for (const cli_exit_code *e = cli_exit_codes; e->meaning; e++) {
        fprintf(f, "| %d | ", e->code);
        md(f, e->meaning);
        fputs(" |\n", f);
    }
    return 0;
}

/* ---- consistency ------------------------------------------------------------------------------ */

static int check_commands_list(const cli_optspec *s)
{
    if (strcmp(s->commands, "*") == 0)
        return 0;
    int bad = 0;
    char word[64];
    for (const char *p = s->commands; *p;) {
        size_t m = strcspn(p, " ");
        snprintf(word, sizeof(word), "%.*s", (int)(m < 63 ? m : 63), p);
        if (m && !cli_find_command(word)) {
            fprintf(stderr, "optspec.c: --%s names the command '%s', which does not exist\n",
                    s->name, word);
            bad = 1;
        }
        p += m;
        while (*p == ' ')
            p++;
    }
    return bad;
}

/* A line of the table says how its value is stored the way its kind and value name agree, and
 * the same way as the first line of its name (which the parser uses). 1 when not. */
static int check_storage(const cli_optspec *s)
{
    const cli_optspec *first = cli_find_optspec(s->name, NULL);
    int valued = s->kind != CLI_V_FLAG && s->kind != CLI_V_COUNT;
    if ((s->arg != NULL) != valued || (s->kind == CLI_V_OPTIONAL) != (s->arg && *s->arg == '[')) {
        fprintf(stderr, "optspec.c: --%s %s a value but its kind says otherwise\n", s->name,
                s->arg ? "takes" : "takes no");
        return 1;
    }
    if (first->kind != s->kind || first->offset != s->offset || first->parse != s->parse ||
        first->short_name != s->short_name) {
        fprintf(stderr, "optspec.c: the lines of --%s store it differently\n", s->name);
        return 1;
    }
    return 0;
}

int cmd_cli_check(cli_opts *o, cudnnctl_ctx *ctx)
{
    (void)o;
    int bad = 0, i = 0;
    for (const cli_optspec *s = cli_optspecs; s->name; s++) {
        const char *n = cli_getopt_name(i, NULL);
        if (cli_find_optspec(s->name, NULL) == s && !(n && strcmp(n, s->name) == 0)) {
            fprintf(stderr, "opts.c: --%s did not make it into the getopt table\n", s->name);
            bad = 1;
        }
        i += cli_find_optspec(s->name, NULL) == s;
        bad |= check_storage(s) | check_commands_list(s);
    }
    bad |= cli_examples_check(ctx);
    return bad;
}
