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
    O_PRINT_VERSION, O_DEEP, O_VALIDATE, O_ALL_PLATFORMS, O_MAX_UNPACKED, O_ALLOW_MANIFEST_OVERRIDE
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
    {"cuda-home", required_argument, 0, O_CUDA_HOME},
    {"prefix", required_argument, 0, O_PREFIX},
    {"dry-run", no_argument, 0, O_DRY_RUN},
    {"no-validate", no_argument, 0, O_NO_VALIDATE},
    {"force", no_argument, 0, O_FORCE},
    {"no-ldconfig", no_argument, 0, O_NO_LDCONFIG},
    {"all", no_argument, 0, O_ALL},
    {"version", required_argument, 0, O_VERSION},
    {"shell", required_argument, 0, O_SHELL},
    {"ld-library-path", no_argument, 0, O_LDPATH},
    {"remove", no_argument, 0, O_REMOVE},
    {"system", no_argument, 0, O_SYSTEM},
    {"persist", no_argument, 0, O_PERSIST},
    {"to", required_argument, 0, O_TO},
    {"device", required_argument, 0, O_DEVICE},
    {"timeout", required_argument, 0, O_TIMEOUT},
    {"deep", no_argument, 0, O_DEEP},
    {"validate", no_argument, 0, O_VALIDATE},
    {"all-platforms", no_argument, 0, O_ALL_PLATFORMS},
    {"help", no_argument, 0, O_HELP},
    {"print-version", no_argument, 0, O_PRINT_VERSION},
    {0, 0, 0, 0},
};

void cli_usage(FILE *f)
{
    fprintf(f, "usage: cudnnctl [global options] <command> [options]\n\ncommands:\n");
    for (const cli_command *c = cli_commands; c->name; c++)
        if (!c->hidden)
            fprintf(f, "  %-10s %s\n", c->name, c->summary);
    fprintf(f,
            "\nglobal options:\n"
            "  --root DIR         resolve every absolute path under DIR\n"
            "  --json             machine output on stdout\n"
            "  -q, -v, --debug    quieter, more, error origins\n"
            "  --no-progress, --color=auto|always|never\n"
            "  --cache-dir DIR, --state-dir DIR\n"
            "selection: --cudnn V  --cuda M[.m]  --platform P  --for torch==X|tensorflow==X\n"
            "           --driver-version V (plan for another machine's driver)\n"
            "source:    --archive FILE|URL [--sha256 HEX | --insecure-skip-verify]\n"
            "           --manifest FILE|URL  --mirror URL|DIR  --cacert FILE\n"
            "target:    --cuda-home DIR | --prefix DIR\n"
            "install:   --dry-run --no-validate --force --no-ldconfig\n"
            "           --max-unpacked SIZE (cap on the unpacked archive: 8G, 512M, bytes)\n"
            "           --allow-manifest-override (a --manifest that contradicts NVIDIA's)\n"
            "uninstall: --version V | --all\n"
            "env:       --shell S --ld-library-path | --persist [--system] | --remove [--system]\n"
            "validate:  --device N --timeout SECONDS\n"
            "doctor:    --deep (re-hash the files of install receipts)\n"
            "report:    --validate (also validate the active cuDNN; --device, --timeout)\n"
            "mirror:    --to DIR [--all-platforms] [--all] (selection as for plan; --mirror URL "
            "= upstream)\n");
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

/* Returns -1 to go on and run *cmd, else the exit code to end with. */
int cli_parse(int argc, char **argv, cli_opts *o, const cli_command **cmd)
{
    memset(o, 0, sizeof(*o));
    o->color = 2;
    o->timeout_s = 60;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "+qvh", longopts, NULL)) != -1 || optind < argc) {
        if (c == -1) {
            /* a positional argument: the command, or one of its arguments */
            if (!*cmd) {
                const char *name = argv[optind];
                for (const cli_command *k = cli_commands; k->name; k++)
                    if (strcmp(k->name, name) == 0)
                        *cmd = k;
                if (!*cmd) {
                    fprintf(stderr, "cudnnctl: unknown command '%s' (see cudnnctl --help)\n", name);
                    return 2;
                }
            } else {
                char **na = realloc(o->args, sizeof(char *) * (size_t)(o->n_args + 1));
                if (!na)
                    return 1;
                o->args = na;
                o->args[o->n_args++] = argv[optind];
            }
            optind++;
            continue;
        }
        switch (c) {
        case O_ROOT: o->root = optarg; break;
        case O_JSON: o->json = 1; break;
        case 'q': o->quiet = 1; break;
        case 'v': o->verbose++; break;
        case O_DEBUG: o->debug = 1; break;
        case O_NO_PROGRESS: o->no_progress = 1; break;
        case O_COLOR:
            if (strcmp(optarg, "never") == 0)
                o->color = 0;
            else if (strcmp(optarg, "always") == 0)
                o->color = 1;
            else if (strcmp(optarg, "auto") == 0)
                o->color = 2;
            else {
                fprintf(stderr, "cudnnctl: --color takes auto, always or never\n");
                return 2;
            }
            break;
        case O_CACHE_DIR: o->cache_dir = optarg; break;
        case O_STATE_DIR: o->state_dir = optarg; break;
        case O_CUDNN: o->cudnn = optarg; break;
        case O_CUDA: o->cuda = optarg; break;
        case O_PLATFORM: o->platform = optarg; break;
        case O_FOR: o->for_pkg = optarg; break;
        case O_DRIVER: o->driver_version = optarg; break;
        case O_ARCHIVE: o->archive = optarg; break;
        case O_MANIFEST:
            if (o->n_manifests >= (int)(sizeof(o->manifests) / sizeof(o->manifests[0]))) {
                fprintf(stderr, "cudnnctl: too many --manifest options\n");
                return 2;
            }
            o->manifests[o->n_manifests++] = optarg;
            break;
        case O_MIRROR: o->mirror = optarg; break;
        case O_SHA256: o->sha256 = optarg; break;
        case O_CACERT: o->cacert = optarg; break;
        case O_INSECURE: o->insecure_skip_verify = 1; break;
        case O_ALLOW_MANIFEST_OVERRIDE: o->allow_manifest_override = 1; break;
        case O_MAX_UNPACKED:
            if (cli_parse_size(optarg, &o->max_unpacked) != 0) {
                fprintf(stderr, "cudnnctl: --max-unpacked takes a size: bytes or a number with "
                                "K, M, G or T (binary units), e.g. 8G\n");
                return 2;
            }
            break;
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
        case O_REMOVE: o->remove = 1; break;
        case O_SYSTEM: o->system_wide = 1; break;
        case O_PERSIST: o->persist = 1; break;
        case O_TO: o->to = optarg; break;
        case O_DEVICE: o->device = atoi(optarg); break;
        case O_TIMEOUT: {
            char *end = NULL;
            long t = strtol(optarg, &end, 10);
            if (!end || *end || t <= 0 || t > 86400) {
                fprintf(stderr, "cudnnctl: --timeout takes seconds (1..86400)\n");
                return 2;
            }
            o->timeout_s = (unsigned)t;
            break;
        }
        case O_DEEP: o->deep = 1; break;
        case O_VALIDATE: o->validate = 1; break;
        case O_ALL_PLATFORMS: o->all_platforms = 1; break;
        case 'h':
        case O_HELP: cli_usage(stdout); return 0;
        case O_PRINT_VERSION: printf("cudnnctl %s\n", CUDNNCTL_VERSION_STRING); return 0;
        default:
            if (optopt && optopt < 256)
                fprintf(stderr, "cudnnctl: unknown or incomplete option '-%c'\n", optopt);
            else
                fprintf(stderr, "cudnnctl: unknown or incomplete option '%s'\n", argv[optind - 1]);
            fprintf(stderr, "cudnnctl: see cudnnctl --help\n");
            return 2;
        }
    }
    if (!*cmd) {
        cli_usage(stderr);
        return 2;
    }
    if (o->cuda_home && o->prefix) {
        fprintf(stderr, "cudnnctl: give either --cuda-home or --prefix, not both\n");
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
    return sel;
}
