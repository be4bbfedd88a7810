/* opts.c: the one option table of the cudnnctl front end (global, selection, source, target). */
#include <getopt.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

enum {
    O_ROOT = 256, O_JSON, O_DEBUG, O_NO_PROGRESS, O_COLOR, O_CACHE_DIR, O_STATE_DIR, O_CUDNN,
    O_CUDA, O_PLATFORM, O_FOR, O_ARCHIVE, O_MANIFEST, O_MIRROR, O_SHA256, O_CACERT, O_INSECURE,
    O_CUDA_HOME, O_PREFIX, O_DRY_RUN, O_NO_VALIDATE, O_FORCE, O_NO_LDCONFIG, O_ALL, O_VERSION,
    O_SHELL, O_LDPATH, O_REMOVE, O_SYSTEM, O_PERSIST, O_TO, O_DEVICE, O_TIMEOUT, O_DRIVER, O_HELP,
    O_PRINT_VERSION, O_DEEP, O_VALIDATE, O_ALL_PLATFORMS, O_CONNECTIONS, O_WINDOWS_ENV, O_ENV_OF, O_PYTHON, O_NO_LDPATH, O_DLL, O_WAIT, O_MAX_UNPACKED, O_ALLOW_MANIFEST_OVERRIDE, O_LINK_MODE,
    O_FLAVOR, O_COMPONENTS, O_SOURCE, O_INDEX_URL,
    O_MODULEFILES, O_BUILD
};

static const struct option longopts[] = {
    {"root", required_argument, 0, O_ROOT},
    {"json", no_argument, 0, O_JSON},
    {"quiet", no_argument, 0, 'q'},
    {"verbose", no_argument, 0, 'v'},
    {"debug", no_argument, 0, O_DEBUG},
    {"no-progress", no_argument, 0, O_NO_PROGRESS},
    {"color", required_argument, 0, O_COLOR},
    {"cache-dir", required_argument, 0, O_CACHE_DIR},
    {"state-dir", required_argument, 0, O_STATE_DIR},
    {"cudnn", required_argument, 0, O_CUDNN},
    {"cuda", required_argument, 0, O_CUDA},
    {"platform", required_argument, 0, O_PLATFORM},
    {"for", required_argument, 0, O_FOR},
    {"driver-version", required_argument, 0, O_DRIVER},
    {"archive", required_argument, 0, O_ARCHIVE},
    {"manifest", required_argument, 0, O_MANIFEST},
    {"mirror", required_argument, 0, O_MIRROR},
    {"sha256", required_argument, 0, O_SHA256},
    {"cacert", required_argument, 0, O_CACERT},
    {"insecure-skip-verify", no_argument, 0, O_INSECURE},
    {"max-unpacked", required_argument, 0, O_MAX_UNPACKED},
    {"allow-manifest-override", no_argument, 0, O_ALLOW_MANIFEST_OVERRIDE},
    {"link-mode", required_argument, 0, O_LINK_MODE},
    {"flavor", required_argument, 0, O_FLAVOR},
    {"source", required_argument, 0, O_SOURCE},
    {"index-url", required_argument, 0, O_INDEX_URL},
    {"components", required_argument, 0, O_COMPONENTS},
    {"cuda-home", required_argument, 0, O_CUDA_HOME},
    {"prefix", required_argument, 0, O_PREFIX},
    {"dry-run", no_argument, 0, O_DRY_RUN},
    {"no-validate", no_argument, 0, O_NO_VALIDATE},
    {"force", no_argument, 0, O_FORCE},
    {"no-ldconfig", no_argument, 0, O_NO_LDCONFIG},
    {"wait", optional_argument, 0, O_WAIT},
    {"all", no_argument, 0, O_ALL},
    {"version", required_argument, 0, O_VERSION},
    {"shell", required_argument, 0, O_SHELL},
    {"ld-library-path", no_argument, 0, O_LDPATH},
    {"no-ld-library-path", no_argument, 0, O_NO_LDPATH},
    {"env-of", required_argument, 0, O_ENV_OF},
    {"modulefiles", required_argument, 0, O_MODULEFILES},
    {"build", no_argument, 0, O_BUILD},
    {"python", required_argument, 0, O_PYTHON},
    {"dll", required_argument, 0, O_DLL},
    {"remove", no_argument, 0, O_REMOVE},
    {"system", no_argument, 0, O_SYSTEM},
    {"persist", no_argument, 0, O_PERSIST},
    {"to", required_argument, 0, O_TO},
    {"device", required_argument, 0, O_DEVICE},
    {"timeout", required_argument, 0, O_TIMEOUT},
    {"deep", no_argument, 0, O_DEEP},
    {"validate", no_argument, 0, O_VALIDATE},
    {"all-platforms", no_argument, 0, O_ALL_PLATFORMS},
    {"connections", required_argument, 0, O_CONNECTIONS},
    {"windows-env", required_argument, 0, O_WINDOWS_ENV},
    {"help", no_argument, 0, O_HELP},
    {"print-version", no_argument, 0, O_PRINT_VERSION},
    {0, 0, 0, 0},
};

const char *cli_getopt_name(int i, int *has_arg)
{
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
    if (li >= 0)
        return longopts[li].name;
    return c == 'q' ? "quiet" : c == 'v' ? "verbose" : c == 'h' ? "help" : "?";
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

/* "8G", "512M", "1048576" -> bytes (K/M/G/T binary); 0 ok, -1 not a size or 0. */
static int cli_parse_size(const char *s, uint64_t *out)
{
    char *end = NULL;
    unsigned long long v = strtoull(s, &end, 10);
    if (!end || end == s || *s == '-')
        return -1;
    int shift = 0;
    switch (*end) {
    case '\0': break;
    case 'K': case 'k': shift = 10; break;
    case 'M': case 'm': shift = 20; break;
    case 'G': case 'g': shift = 30; break;
    case 'T': case 't': shift = 40; break;
    default: return -1;
    }
    if (*end && end[1] && strcmp(end + 1, "iB") != 0 && strcmp(end + 1, "B") != 0)
        return -1;
    if (v == 0 || v > (UINT64_MAX >> shift))
        return -1;
    *out = (uint64_t)v << shift;
    return 0;
}

/* --flavor and --components: -1 when set, 2 after saying what is wrong, -2 for another option. */
static int apply_selection(int c, cli_opts *o)
{
    switch (c) {
    case O_FLAVOR:
        if (cudnnctl_flavor_parse(optarg, &o->flavor) != 0) {
            fprintf(stderr, "cudnnctl: --flavor takes full (NVIDIA's whole library, the default) "
                            "or jit (the Graph JIT library), not '%s'\n",
                    optarg);
            return 2;
        }
        o->flavor_given = 1;
        break;
    case O_SOURCE:
        if (cudnnctl_source_parse(optarg, &o->source) != 0) {
            fprintf(stderr, "cudnnctl: --source takes archive (NVIDIA's redist archive, the "
                            "default), wheel (NVIDIA's wheel from the Python package index) or "
                            "auto (the wheel when it carries the components), not '%s'\n",
                    optarg);
            return 2;
        }
        break;
    case O_INDEX_URL: o->index_url = optarg; break;
    case O_COMPONENTS:
        if (cudnnctl_components_parse(optarg, &o->components) != 0) {
            fprintf(stderr, "cudnnctl: --components takes a comma-separated list of runtime, dev "
                            "and static (or all), e.g. --components runtime, not '%s'\n",
                    optarg);
            return 2;
        }
        break;
    default: return -2;
    }
    return -1;
}

/* Returns -1 to go on and run *cmd, else the exit code to end with. */
/* An option whose value is checked: -1 when it is set, 2 after saying what is wrong, -2 for an
 * option that is not one of these. */
/* --link-mode MODE: how the unpacked store fills staging; given at all, the store is used. */
static int parse_link_mode(cli_opts *o)
{
    o->link_mode_given = 1;
    if (strcmp(optarg, "copy") == 0)
        o->link_mode = CUDNNCTL_LINK_COPY;
    else if (strcmp(optarg, "reflink") == 0)
        o->link_mode = CUDNNCTL_LINK_REFLINK;
    else if (strcmp(optarg, "hardlink") == 0)
        o->link_mode = CUDNNCTL_LINK_HARDLINK;
    else if (strcmp(optarg, "auto") == 0)
        o->link_mode = CUDNNCTL_LINK_AUTO;
    else {
        cli_usage_error("--link-mode takes auto, copy, reflink or hardlink (not '%s')", optarg);
        return 2;
    }
    return -1; /* go on parsing, as apply_valued's cases do */
}

static int apply_valued(int c, cli_opts *o)
{
    switch (c) {
    case O_COLOR:
        if (strcmp(optarg, "never") == 0)
            o->color = 0;
        else if (strcmp(optarg, "always") == 0)
            o->color = 1;
        else if (strcmp(optarg, "auto") == 0)
            o->color = 2;
        else {
            cli_usage_error("--color takes auto, always or never");
            return 2;
        }
        break;
    case O_MANIFEST:
        if (o->n_manifests >= (int)(sizeof(o->manifests) / sizeof(o->manifests[0]))) {
            cli_usage_error("too many --manifest options");
            return 2;
        }
        o->manifests[o->n_manifests++] = optarg;
        break;
    case O_LINK_MODE:
        return parse_link_mode(o);
    case O_MAX_UNPACKED:
        if (cli_parse_size(optarg, &o->max_unpacked) != 0) {
            cli_usage_error("--max-unpacked takes a size: bytes or a number with K, M, G or T "
                            "(binary units), e.g. 8G");
            return 2;
        }
        break;
    case O_TIMEOUT: {
        char *end = NULL;
        long t = strtol(optarg, &end, 10);
        if (!end || *end || t <= 0 || t > 86400) {
            cli_usage_error("--timeout takes seconds (1..86400)");
            return 2;
        }
        o->timeout_s = (unsigned)t;
        break;
    }
    case O_WAIT: {
        char *end = NULL;
        long t = optarg ? strtol(optarg, &end, 10) : -1;
        if (optarg && (!end || *end || t <= 0 || t > 86400)) {
            cli_usage_error("--wait takes no value (wait as long as it takes) or SECONDS "
                            "(1..86400), not '%s'",
                            optarg);
            return 2;
        }
        o->lock_wait = (int)t;
        break;
    }
    case O_CONNECTIONS: {
        char *end = NULL;
        unsigned long n = strtoul(optarg, &end, 10);
        if (!end || *end || end == optarg || n > 16) {
            cli_usage_error("--connections takes a number from 0 (automatic) to 16, not '%s'",
                            optarg);
            return 2;
        }
        o->connections = (unsigned)n;
        break;
    }
    default: return apply_selection(c, o);
    }
    return -1;
}

/* One option into *o: -1 when it is set, 0 or 2 to return, -2 for an unknown one. */
static int apply_option(int c, cli_opts *o, int *help)
{
    switch (c) {
    case O_ROOT: o->root = optarg; break;
    case O_JSON: o->json = 1; break;
    case 'q': o->quiet = 1; break;
    case 'v': o->verbose++; break;
    case O_DEBUG: o->debug = 1; break;
    case O_NO_PROGRESS: o->no_progress = 1; break;
    case O_CACHE_DIR: o->cache_dir = optarg; break;
    case O_STATE_DIR: o->state_dir = optarg; break;
    case O_CUDNN: o->cudnn = optarg; break;
    case O_CUDA: o->cuda = optarg; break;
    case O_PLATFORM: o->platform = optarg; break;
    case O_FOR: o->for_pkg = optarg; break;
    case O_DRIVER: o->driver_version = optarg; break;
    case O_ARCHIVE: o->archive = optarg; break;
    case O_MIRROR: o->mirror = optarg; break;
    case O_SHA256: o->sha256 = optarg; break;
    case O_CACERT: o->cacert = optarg; break;
    case O_INSECURE: o->insecure_skip_verify = 1; break;
    case O_ALLOW_MANIFEST_OVERRIDE: o->allow_manifest_override = 1; break;
    case O_CUDA_HOME: o->cuda_home = optarg; break;
    case O_PREFIX: o->prefix = optarg; break;
    case O_DRY_RUN: o->dry_run = 1; break;
    case O_NO_VALIDATE: o->no_validate = 1; break;
    case O_FORCE: o->force = 1; break;
    case O_NO_LDCONFIG: o->no_ldconfig = 1; break;
    case O_ALL: o->all = 1; break;
    case O_VERSION: o->version = optarg; break;
    case O_SHELL: o->shell = optarg; break;
    case O_LDPATH: o->ld_library_path = 1; break;
    case O_NO_LDPATH: o->no_ld_library_path = 1; break;
    case O_ENV_OF: o->env_of = optarg; break;
    case O_MODULEFILES: o->modulefiles = optarg; break;
    case O_BUILD: o->build = 1; break;
    case O_PYTHON: o->python = optarg; break;
    case O_DLL: o->dll = optarg; break;
    case O_REMOVE: o->remove = 1; break;
    case O_SYSTEM: o->system_wide = 1; break;
    case O_PERSIST: o->persist = 1; break;
    case O_TO: o->to = optarg; break;
    case O_DEVICE: o->device = atoi(optarg); break;
    case O_DEEP: o->deep = 1; break;
    case O_VALIDATE: o->validate = 1; break;
    case O_ALL_PLATFORMS: o->all_platforms = 1; break;
    case O_WINDOWS_ENV: o->windows_env = optarg; break;
    case 'h':
    case O_HELP: *help = 1; break;
    case O_PRINT_VERSION: printf("cudnnctl %s\n", CUDNNCTL_VERSION_STRING); return 0;
    default: return apply_valued(c, o);
    }
    return -1;
}

int cli_parse(int argc, char **argv, cli_opts *o, const cli_command **cmd)
{
    memset(o, 0, sizeof(*o));
    o->color = 2;
    o->timeout_s = 60;
    opterr = 0;
    const char *vroot = NULL, *vstate = NULL;
    int v = version_requested(argc, argv, &vroot, &vstate);
    if (v) {
        cli_print_version(v == 2, vroot, vstate);
        return 0;
    }
    char *seen[64];
    int n_seen = 0, help = 0, c, li = -1;
    while ((li = -1, c = getopt_long(argc, argv, "+:qvh", longopts, &li)) != -1 ||
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
        int rc = apply_option(c, o, &help);
        if (rc == -2)
            return unknown_option(argv[optind - 1], *cmd);
        if (rc >= 0)
            return rc;
    }
    if (help) {
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

cudnnctl_selection cli_selection(const cli_opts *o)
{
    cudnnctl_selection sel;
    memset(&sel, 0, sizeof(sel));
    sel.cudnn = o->cudnn;
    sel.cuda = o->cuda;
    sel.platform = o->platform;
    sel.for_pkg = o->for_pkg;
    sel.cuda_home = o->cuda_home;
    sel.prefix = o->prefix;
    sel.mirror = o->mirror;
    sel.driver_version = o->driver_version;
    sel.flavor = o->flavor;
    sel.components = o->components;
    sel.source = o->index_url && o->source == CUDNNCTL_SOURCE_ARCHIVE ? CUDNNCTL_SOURCE_WHEEL
                                                                       : o->source;
    return sel;
}
