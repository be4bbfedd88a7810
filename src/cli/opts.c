/* opts.c: the command line into cli_opts: getopt over the tables made from optspec.c, each value
 * stored by its line (kind and offset, or its parse function), then the per-command checks. */
#include <getopt.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* getopt's tables, made from cli_optspecs (optspec.c) on first use: one entry per long name (its
 * first line says how it is stored), val = 256 + the entry's index; the short options "+:qvh". */
#define MAX_OPTS 128
static struct option longopts[MAX_OPTS + 1];
static const cli_optspec *rows[MAX_OPTS]; /* the first line of longopts[i]'s name */
static char shortopts[2 + 3 * 26 + 1] = "+:";

static int has_arg_of(const cli_optspec *s)
{
    if (!s->arg)
        return no_argument;
    return s->kind == CLI_V_OPTIONAL ? optional_argument : required_argument;
}

static void make_tables(void)
{
    if (longopts[0].name)
        return;
    size_t n = 0, k = 2;
    for (const cli_optspec *s = cli_optspecs; s->name && n < MAX_OPTS; s++) {
        if (cli_find_optspec(s->name, NULL) != s)
            continue; /* another line of a name already there */
        rows[n] = s;
        longopts[n] = (struct option){s->name, has_arg_of(s), NULL, 256 + (int)n};
        n++;
        if (s->short_name && k + 3 < sizeof(shortopts)) {
            shortopts[k++] = s->short_name;
            if (s->arg)
                shortopts[k++] = ':';
        }
    }
}

/* The first line of what getopt returned: a long option's index, else its short name. */
static const cli_optspec *row_of(int c, int li)
{
    if (li >= 0)
        return rows[li];
    if (c >= 256 && c - 256 < MAX_OPTS)
        return rows[c - 256];
    for (int i = 0; i < MAX_OPTS && rows[i]; i++)
        if (rows[i]->short_name && rows[i]->short_name == c)
            return rows[i];
    return NULL;
}

const char *cli_getopt_name(int i, int *has_arg)
{
    make_tables();
    if (i < 0 || (size_t)i >= sizeof(longopts) / sizeof(longopts[0]) || !longopts[i].name)
        return NULL;
    if (has_arg)
        *has_arg = longopts[i].has_arg;
    return longopts[i].name;
}

static const struct option *find_long(const char *name, size_t n)
{
    for (const struct option *p = longopts; p->name; p++)
        if (strlen(p->name) == n && strncmp(p->name, name, n) == 0)
            return p;
    return NULL;
}

/* A separate value of an option whose value is optional ("--wait 5"): a number. */
static int optional_value(const char *a)
{
    return a && *a && strspn(a, "0123456789") == strlen(a);
}

/* `cudnnctl [global options] --version` before any command word (the version, not uninstall's
 * --version V), or -V anywhere (no option takes a value "-V"). Returns 1 (plain) or 2 (--json)
 * when so, else 0. */
static int version_requested(int argc, char **argv, const char **root, const char **state)
{
    int json = 0, asked = 0, before_cmd = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0)
            break;
        if (strcmp(a, "-V") == 0)
            asked = 1;
        else if (strcmp(a, "--json") == 0)
            json = 1;
        else if ((strcmp(a, "--root") == 0 || strcmp(a, "--state-dir") == 0) && i + 1 < argc)
            *(a[2] == 'r' ? root : state) = argv[++i]; /* where the catalog's store is */
        else if (a[0] != '-' || !a[1])
            before_cmd = 0; /* the command word, or an argument */
        else if (before_cmd && strcmp(a, "--version") == 0)
            asked = 1;
        else if (a[1] == '-' && !strchr(a, '=')) {
            const struct option *p = find_long(a + 2, strlen(a + 2));
            if (p && (p->has_arg == required_argument ||
                      (p->has_arg == optional_argument && optional_value(argv[i + 1]))))
                i++; /* its value */
        }
    }
    return asked ? 1 + json : 0;
}

/* The long name of what getopt returned (for the per-command check and messages). */
static const char *seen_name(int c, int li)
{
    const cli_optspec *s = row_of(c, li);
    return s ? s->name : "?";
}

/* "--cu": the long options it abbreviates, when more than one (getopt's own report, which
 * opterr = 0 keeps from printing). 1 when it said so. */
static int ambiguous(const char *arg)
{
    if (arg[0] != '-' || arg[1] != '-')
        return 0;
    const char *name = arg + 2;
    size_t n = strcspn(name, "="), count = 0;
    if (!n || find_long(name, n))
        return 0;
    for (const struct option *p = longopts; p->name; p++)
        count += strncmp(p->name, name, n) == 0;
    if (count < 2)
        return 0;
    char list[512] = "";
    size_t len = 0;
    for (const struct option *p = longopts; p->name && len < sizeof(list); p++)
        if (strncmp(p->name, name, n) == 0)
            len += (size_t)snprintf(list + len, sizeof(list) - len, " '--%s'", p->name);
    cli_usage_error("option '--%.*s' is ambiguous; possibilities:%s", (int)n, name, list);
    return 1;
}

static int unknown_option(const char *arg, const cli_command *cmd)
{
    char name[64];
    size_t n = strcspn(arg, "=");
    snprintf(name, sizeof(name), "%.*s", (int)(n < 60 ? n : 60), arg);
    if (ambiguous(arg)) {
        fprintf(stderr, "cudnnctl: see cudnnctl %s%s--help\n", cmd ? cmd->name : "",
                cmd ? " " : "");
        return 2;
    }
    const char *near = name[0] == '-' && name[1] == '-' ? cli_suggest_option(name + 2, cmd) : NULL;
    if (near)
        cli_usage_error("unknown option '%s'; did you mean '--%s'?", name, near);
    else
        cli_usage_error("unknown option '%s'", name);
    fprintf(stderr, "cudnnctl: see cudnnctl %s%s--help\n", cmd ? cmd->name : "", cmd ? " " : "");
    return 2;
}

static int missing_value(const char *name)
{
    const cli_optspec *s = cli_find_optspec(name, NULL);
    cli_usage_error("option '--%s' needs a value%s%s%s", name, s ? " (" : "",
            s ? s->arg : "", s ? ")" : "");
    return 2;
}

/* After parsing: every option given is one the command takes, the arguments fit. */
static int check_usage(char **seen, int n_seen, const cli_opts *o, const cli_command *cmd)
{
    for (int i = 0; i < n_seen; i++) {
        if (cli_find_optspec(seen[i], cmd))
            continue;
        char which[512] = "";
        size_t len = 0;
        const char *sep = " (it is an option of: ";
        for (const cli_command *c = cli_commands; c->name && len < sizeof(which); c++)
            if (!c->hidden && cli_find_optspec(seen[i], c)) {
                len += (size_t)snprintf(which + len, sizeof(which) - len, "%s%s", sep, c->name);
                sep = ", ";
            }
        cli_usage_error("'%s' does not take --%s%s%s", cmd->name, seen[i], which,
                        *sep == ',' ? ")" : "");
        fprintf(stderr, "cudnnctl: see cudnnctl %s --help\n", cmd->name);
        return 2;
    }
    if (cmd->max_args >= 0 && o->n_args > cmd->max_args) {
        if (cmd->max_args == 0)
            cli_usage_error("'%s' takes no arguments (got '%s')", cmd->name,
                    o->args[0]);
        else
            cli_usage_error("'%s' takes at most %d argument%s: %s (got '%s' too)",
                    cmd->name, cmd->max_args, cmd->max_args == 1 ? "" : "s", cmd->args,
                    o->args[cmd->max_args]);
        fprintf(stderr, "cudnnctl: see cudnnctl %s --help\n", cmd->name);
        return 2;
    }
    if (o->n_args < cmd->min_args) {
        cli_usage_error("'%s' needs %s", cmd->name, cmd->args);
        fprintf(stderr, "cudnnctl: see cudnnctl %s --help\n", cmd->name);
        return 2;
    }
    return -1;
}

static int add_arg(cli_opts *o, char *a)
{
    char **na = realloc(o->args, sizeof(char *) * (size_t)(o->n_args + 1));
    if (!na)
        return 1;
    o->args = na;
    o->args[o->n_args++] = a;
    return 0;
}

/* A positional word: the command, or one of its arguments. Returns -1 to go on, else a code. */
static int positional(int argc, char **argv, cli_opts *o, const cli_command **cmd)
{
    const char *name = argv[optind];
    if (*cmd) {
        if (add_arg(o, argv[optind++]))
            return 1;
        return -1;
    }
    *cmd = cli_find_command(name);
    if (!*cmd) {
        const char *near = cli_suggest_command(name);
        if (near)
            cli_usage_error("unknown command '%s'; did you mean '%s'?", name, near);
        else
            cli_usage_error("unknown command '%s'", name);
        fprintf(stderr, "cudnnctl: see cudnnctl help\n");
        return 2;
    }
    optind++;
    if ((*cmd)->max_args == -2) /* every word after it, verbatim */
        while (optind < argc)
            if (add_arg(o, argv[optind++]))
                return 1;
    return -1;
}

/* One option into *o, by its line's parse function or its kind: -1 when it is set, else the
 * exit code (0 or 2) to end with. */
static int apply_option(const cli_optspec *s, cli_opts *o, const char *arg)
{
    if (s->parse)
        return s->parse(o, arg);
    char *field = (char *)o + s->offset;
    switch (s->kind) {
    case CLI_V_FLAG: *(int *)field = 1; break;
    case CLI_V_COUNT: (*(int *)field)++; break;
    case CLI_V_STR: *(const char **)field = arg; break;
    case CLI_V_INT: *(int *)field = atoi(arg); break;
    case CLI_V_SIZE:
        if (cli_parse_size(arg, (uint64_t *)(void *)field) != 0) {
            cli_usage_error("--%s takes a size: bytes or a number with K, M, G or T "
                            "(binary units), e.g. 8G", s->name);
            return 2;
        }
        break;
    default: cli_usage_error("--%s: no way to store it (optspec.c)", s->name); return 2;
    }
    return -1;
}

int cli_parse(int argc, char **argv, cli_opts *o, const cli_command **cmd)
{
    memset(o, 0, sizeof(*o));
    o->color = 2;
    o->timeout_s = 60;
    opterr = 0;
    make_tables();
    const char *vroot = NULL, *vstate = NULL;
    int v = version_requested(argc, argv, &vroot, &vstate);
    if (v) {
        cli_print_version(v == 2, vroot, vstate);
        return 0;
    }
    char *seen[64];
    int n_seen = 0, c, li = -1;
    while ((li = -1, c = getopt_long(argc, argv, shortopts, longopts, &li)) != -1 ||
           optind < argc) {
        if (c == -1) {
            int rc = positional(argc, argv, o, cmd);
            if (rc >= 0)
                return rc;
            continue;
        }
        if (c == '?')
            return unknown_option(optopt && optopt < 256 ? (char[]){'-', (char)optopt, 0}
                                                         : argv[optind - 1],
                                  *cmd);
        if (c == ':')
            return missing_value(optopt && optopt < 256 ? seen_name(optopt, -1)
                                                        : argv[optind - 1] + 2);
        if (li >= 0 && longopts[li].has_arg == required_argument && optarg[0] == '-' &&
            optarg[1] == '-' && find_long(optarg + 2, strcspn(optarg + 2, "=")))
            return missing_value(longopts[li].name); /* "--cudnn --cuda 13": no value */
        if (li >= 0 && longopts[li].has_arg == optional_argument && !optarg &&
            optind < argc && optional_value(argv[optind]))
            optarg = argv[optind++]; /* "--wait 5" as well as "--wait=5" */
        if (n_seen < (int)(sizeof(seen) / sizeof(seen[0])))
            seen[n_seen++] = (char *)seen_name(c, li);
        const cli_optspec *s = row_of(c, li);
        if (!s)
            return unknown_option(argv[optind - 1], *cmd);
        int rc = apply_option(s, o, optarg);
        if (rc >= 0)
            return rc;
    }
    if (o->help) {
        if (*cmd)
            cli_command_help(stdout, *cmd);
        else
            cli_usage(stdout);
        return 0;
    }
    if (!*cmd) {
        cli_usage(stderr);
        return 2;
    }
    int rc = check_usage(seen, n_seen, o, *cmd);
    if (rc >= 0)
        return rc;
    if (o->cuda_home && o->prefix) {
        cli_usage_error("give either --cuda-home or --prefix, not both");
        return 2;
    }
    if (o->quiet && o->verbose) {
        cli_usage_error("give either -q (errors and warnings only) or -v (more detail), not "
                        "both");
        return 2;
    }
    return -1;
}
