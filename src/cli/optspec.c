/* optspec.c: every option of cudnnctl, one line each (cli.h, cli_optspec): name, short name,
 * value name, the commands that take it ("*": all), value completer, how the value is stored
 * (its kind and field of cli_opts, or a parse function below), help. The only place an option
 * is declared: opts.c makes getopt's tables from it, and help, usage errors, man pages,
 * completions and docs/cli.md's tables all come from here. A new option: a cli_opts field and
 * its line here (and docs/cli.md's table, regenerated). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define SEL "available plan install mirror"

/* How a row is stored: by kind into a cli_opts field, or by its own parse function. */
#define FIELD(f) offsetof(cli_opts, f)
#define FLAG(f) CLI_V_FLAG, FIELD(f), NULL
#define COUNT(f) CLI_V_COUNT, FIELD(f), NULL
#define STR(f) CLI_V_STR, FIELD(f), NULL
#define INT(f) CLI_V_INT, FIELD(f), NULL
#define SIZE(f) CLI_V_SIZE, FIELD(f), NULL
#define CALL(kind, f, fn) CLI_V_##kind, FIELD(f), fn

int cli_parse_size(const char *s, uint64_t *out)
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

/* ---- the rows' own parsing (cli_opt_parse: -1 stored, else the exit code) --------------------- */

static int print_version(cli_opts *o, const char *arg)
{
    (void)o, (void)arg;
    printf("cudnnctl %s\n", CUDNNCTL_VERSION_STRING);
    return 0;
}

/* A word of words[] (NULL-terminated) -> its index, -1 when none. */
static int word_index(const char *arg, const char *const *words)
{
    for (int i = 0; words[i]; i++)
        if (strcmp(arg, words[i]) == 0)
            return i;
    return -1;
}

static int parse_color(cli_opts *o, const char *arg)
{
    static const char *const words[] = {"never", "always", "auto", NULL}; /* 0, 1, 2 */
    int i = word_index(arg, words);
    if (i < 0) {
        cli_usage_error("--color takes auto, always or never");
        return 2;
    }
    o->color = i;
    return -1;
}

/* --link-mode MODE: how the unpacked store fills staging; given at all, the store is used. */
static int parse_link_mode(cli_opts *o, const char *arg)
{
    static const char *const words[] = {"copy", "reflink", "hardlink", "auto", NULL};
    static const cudnnctl_link_mode modes[] = {CUDNNCTL_LINK_COPY, CUDNNCTL_LINK_REFLINK,
                                               CUDNNCTL_LINK_HARDLINK, CUDNNCTL_LINK_AUTO};
    o->link_mode_given = 1;
    int i = word_index(arg, words);
    if (i < 0) {
        cli_usage_error("--link-mode takes auto, copy, reflink or hardlink (not '%s')", arg);
        return 2;
    }
    o->link_mode = modes[i];
    return -1;
}

static int parse_flavor(cli_opts *o, const char *arg)
{
    if (cudnnctl_flavor_parse(arg, &o->flavor) != 0) {
        fprintf(stderr, "cudnnctl: --flavor takes full (NVIDIA's whole library, the default) "
                        "or jit (the Graph JIT library), not '%s'\n",
                arg);
        return 2;
    }
    o->flavor_given = 1;
    return -1;
}

static int parse_source(cli_opts *o, const char *arg)
{
    if (cudnnctl_source_parse(arg, &o->source) != 0) {
        fprintf(stderr, "cudnnctl: --source takes archive (NVIDIA's redist archive, the "
                        "default), wheel (NVIDIA's wheel from the Python package index) or "
                        "auto (the wheel when it carries the components), not '%s'\n",
                arg);
        return 2;
    }
    return -1;
}

static int parse_components(cli_opts *o, const char *arg)
{
    if (cudnnctl_components_parse(arg, &o->components) != 0) {
        fprintf(stderr, "cudnnctl: --components takes a comma-separated list of runtime, dev "
                        "and static (or all), e.g. --components runtime, not '%s'\n",
                arg);
        return 2;
    }
    return -1;
}

static int parse_manifest(cli_opts *o, const char *arg)
{
    if (o->n_manifests >= (int)(sizeof(o->manifests) / sizeof(o->manifests[0]))) {
        cli_usage_error("too many --manifest options");
        return 2;
    }
    o->manifests[o->n_manifests++] = arg;
    return -1;
}

/* A whole decimal number in lo..hi: 0 ok, -1 not. */
static int number_in(const char *arg, long lo, long hi, long *out)
{
    char *end = NULL;
    long v = strtol(arg, &end, 10);
    if (!end || *end || end == arg || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

static int parse_timeout(cli_opts *o, const char *arg)
{
    long t;
    if (number_in(arg, 1, 86400, &t) != 0) {
        cli_usage_error("--timeout takes seconds (1..86400)");
        return 2;
    }
    o->timeout_s = (unsigned)t;
    return -1;
}

static int parse_wait(cli_opts *o, const char *arg)
{
    long t = -1;
    if (arg && number_in(arg, 1, 86400, &t) != 0) {
        cli_usage_error("--wait takes no value (wait as long as it takes) or SECONDS "
                        "(1..86400), not '%s'",
                        arg);
        return 2;
    }
    o->lock_wait = (int)t;
    return -1;
}

static int parse_connections(cli_opts *o, const char *arg)
{
    char *end = NULL;
    unsigned long n = strtoul(arg, &end, 10);
    if (!end || *end || end == arg || n > 16) {
        cli_usage_error("--connections takes a number from 0 (automatic) to 16, not '%s'", arg);
        return 2;
    }
    o->connections = (unsigned)n;
    return -1;
}

/* clang-format off */
const cli_optspec cli_optspecs[] = {
    /* global */
    {"root", 0, "DIR", "*", CLI_COMP_DIR, STR(root), "resolve every absolute path the tool reads or writes under DIR"},
    {"json", 0, NULL, "*", CLI_COMP_NONE, FLAG(json), "machine output on stdout (one JSON document); human text to stderr"},
    {"quiet", 'q', NULL, "*", CLI_COMP_NONE, FLAG(quiet), "errors and warnings only: no progress, no info; the command's own output (detect's report, doctor's findings, ...) stays"},
    {"verbose", 'v', NULL, "*", CLI_COMP_NONE, COUNT(verbose), "more detail: the steps and info lines (-vv: the debug log too)"},
    {"debug", 0, NULL, "*", CLI_COMP_NONE, FLAG(debug), "debug log and error origins (function, file, line)"},
    {"no-progress", 0, NULL, "*", CLI_COMP_NONE, FLAG(no_progress), "no progress display (a live line on a terminal, else a line per stage)"},
    {"color", 0, "WHEN", "*", CLI_COMP_COLOR, CALL(ENUM, color, parse_color), "auto, always or never (NO_COLOR is honoured)"},
    {"cache-dir", 0, "DIR", "*", CLI_COMP_DIR, STR(cache_dir), "download cache (default: $XDG_CACHE_HOME/cudnnctl, ~/.cache/cudnnctl; cudnnctl config shows it)"},
    {"state-dir", 0, "DIR", "*", CLI_COMP_DIR, STR(state_dir), "receipts, journal, lock (default: /var/lib/cudnnctl as root, else $XDG_STATE_HOME/cudnnctl; cudnnctl config shows it)"},
    {"help", 'h', NULL, "*", CLI_COMP_NONE, FLAG(help), "this help"},
    {"print-version", 0, NULL, "*", CLI_COMP_NONE, CALL(FLAG, help, print_version), "print \"cudnnctl VERSION\" (kept for scripts; see --version)"},
    /* selection */
    {"cudnn", 0, "V", SEL, CLI_COMP_CUDNN, STR(cudnn), "cuDNN version: 9, 9.19 or 9.19.0.56 (the newest match for the CUDA major and platform)"},
    {"cudnn", 0, "V", "use", CLI_COMP_INSTALLED, STR(cudnn), "switch --prefix DIR to this cuDNN version, installed there side by side (a link flip)"},
    {"cuda", 0, "M[.m]", SEL " use env", CLI_COMP_CUDA, STR(cuda), "CUDA major or toolkit version (default: the active toolkit's)"},
    {"platform", 0, "P", SEL " doctor", CLI_COMP_PLATFORM, STR(platform), "platform key (default: this machine's)"},
    {"for", 0, "PKG==V", "plan install mirror doctor", CLI_COMP_CONSUMER, STR(for_pkg), "the cuDNN torch==X or tensorflow==X was built with"},
    {"driver-version", 0, "V", "plan install", CLI_COMP_NONE, STR(driver_version), "plan for another machine's driver"},
    {"flavor", 0, "full|jit", SEL, CLI_COMP_NONE, CALL(ENUM, flavor, parse_flavor), "full: NVIDIA's whole cuDNN (default); jit: the Graph JIT library (libcudnn, libcudnn_graph, libcudnn_engines_runtime_compiled; no legacy API)"},
    {"components", 0, "LIST", "available plan install", CLI_COMP_NONE, CALL(LIST, components, parse_components), "what to install of the archive: runtime, dev, static, comma-separated (default: all)"},
    /* source */
    {"archive", 0, "FILE|URL", "install", CLI_COMP_FILE, STR(archive), "a cuDNN archive already at hand"},
    {"sha256", 0, "HEX", "install", CLI_COMP_NONE, STR(sha256), "expected SHA-256 of --archive"},
    {"source", 0, "archive|wheel|auto", "plan install", CLI_COMP_NONE, CALL(ENUM, source, parse_source), "where the bytes come from: archive (NVIDIA's redist archive, default), wheel (NVIDIA's wheel, fetched by pip download through your Python packaging configuration), auto (the wheel when it carries the components: runtime, dev)"},
    {"index-url", 0, "URL", "plan install update", CLI_COMP_NONE, STR(index_url), "plan/install: the package index the wheel comes from (implies --source wheel; default: pip's own): one that serves PEP 691 JSON is read by cudnnctl, which downloads the wheel itself and unpacks it as it lands; one of PEP 503 HTML only is left to pip download; update: the index (PEP 691) whose cuDNN wheels refresh the wheel catalog (default: PyPI unless --mirror)"},
    {"python", 0, "EXE", "install", CLI_COMP_FILE, STR(python), "the interpreter whose pip fetches the wheel (default: python3 on PATH)"},
    {"insecure-skip-verify", 0, NULL, "install", CLI_COMP_NONE, FLAG(insecure_skip_verify), "install an --archive whose SHA-256 is unknown"},
    {"manifest", 0, "FILE|URL", SEL, CLI_COMP_FILE, CALL(LIST, manifests, parse_manifest), "add a redistrib JSON to the catalog (repeatable)"},
    {"mirror", 0, "URL|DIR", "plan install config", CLI_COMP_DIR, STR(mirror), "base that an archive's relative_path is joined to"},
    {"mirror", 0, "URL|DIR", "mirror", CLI_COMP_DIR, STR(mirror), "upstream to copy from (default: NVIDIA)"},
    {"mirror", 0, "URL|DIR", "update", CLI_COMP_DIR, STR(mirror), "the redist listing to read (default: manifest-base-url, mirror, else NVIDIA's)"},
    {"cacert", 0, "FILE", SEL " update config", CLI_COMP_FILE, STR(cacert), "CA bundle for https (archives, manifests and listings)"},
    /* target */
    {"cuda-home", 0, "DIR", "plan install uninstall rollback list validate report", CLI_COMP_DIR, STR(cuda_home), "target: merge into this CUDA tree"},
    {"cuda-home", 0, "DIR", "env", CLI_COMP_DIR, STR(cuda_home), "activate this CUDA toolkit (= env DIR)"},
    {"prefix", 0, "DIR", "plan install uninstall rollback list use env validate report config", CLI_COMP_DIR, STR(prefix), "target: a per-version prefix under DIR"},
    /* install */
    {"dry-run", 0, NULL, "install", CLI_COMP_NONE, FLAG(dry_run), "say what would be done, change nothing"},
    {"dry-run", 0, NULL, "cache", CLI_COMP_NONE, FLAG(dry_run), "clean: list what would be removed, remove nothing"},
    {"no-validate", 0, NULL, "install", CLI_COMP_NONE, FLAG(no_validate), "skip the GPU validation after installing"},
    {"force", 0, NULL, "install", CLI_COMP_NONE, FLAG(force), "install again even when the same build is there"},
    {"no-ldconfig", 0, NULL, "install uninstall rollback use env", CLI_COMP_NONE, FLAG(no_ldconfig), "do not run ldconfig"},
    {"system", 0, NULL, "install use env", CLI_COMP_NONE, FLAG(system_wide), "wire the environment for every user"},
    {"no-login-check", 0, NULL, "install use env", CLI_COMP_NONE, FLAG(no_login_check), "end without asking a new login shell what it loads (its start-up files are not run)"},
    /* uninstall / mirror */
    {"version", 0, "V", "uninstall", CLI_COMP_INSTALLED, STR(version), "the installed cuDNN version to remove"},
    {"all", 0, NULL, "uninstall", CLI_COMP_NONE, FLAG(all), "remove every install on the target"},
    {"all", 0, NULL, "mirror", CLI_COMP_NONE, FLAG(all), "every matching version, not only the newest"},
    {"to", 0, "DIR", "mirror", CLI_COMP_DIR, STR(to), "the mirror directory to fill"},
    {"all-platforms", 0, NULL, "mirror", CLI_COMP_NONE, FLAG(all_platforms), "every platform, not only --platform"},
    /* env */
    {"shell", 0, "SHELL", "env", CLI_COMP_SHELL, STR(shell), "sh, bash, zsh, fish, pwsh, cmd, or lmod / tcl for a modulefile (default: $SHELL's)"},
    {"ld-library-path", 0, NULL, "env", CLI_COMP_NONE, FLAG(ld_library_path), "also set LD_LIBRARY_PATH (this session only)"},
    {"persist", 0, NULL, "env", CLI_COMP_NONE, FLAG(persist), "write the activation into the shell start-up files"},
    {"remove", 0, NULL, "env", CLI_COMP_NONE, FLAG(remove), "take a persisted activation out again"},
    {"no-ld-library-path", 0, NULL, "env", CLI_COMP_NONE, FLAG(no_ld_library_path), "do not put a selected cuDNN the loader would not find in front of LD_LIBRARY_PATH"},
    {"modulefiles", 0, "DIR", "env", CLI_COMP_DIR, STR(modulefiles), "with --persist: write the selection's modulefile as DIR/cudnn/<version>-cuda<M>.lua (--shell tcl: a Tcl one); with --remove: take cudnnctl's modulefiles there out"},
    /* which */
    {"python", 0, "EXE", "which doctor", CLI_COMP_FILE, STR(python), "the CUDA frameworks of that Python interpreter, read from their files (never imported)"},
    {"env-of", 0, "FILE", "which", CLI_COMP_FILE, STR(env_of), "model LD_LIBRARY_PATH after sh evaluates that activation file"},
    {"dll", 0, "NAME", "which", CLI_COMP_NONE, STR(dll), "the Windows DLL search order for a plain LoadLibrary of NAME"},
    {"build", 0, NULL, "which", CLI_COMP_NONE, FLAG(build), "which cudnn.h the C/C++ compiler and nvcc include and which libcudnn.so ld links, against what the loader maps"},
    /* validate / doctor / report */
    {"device", 0, "N", "install validate report", CLI_COMP_NONE, INT(device), "GPU ordinal to validate on"},
    {"timeout", 0, "SECONDS", "install validate report", CLI_COMP_NONE, CALL(INT, timeout_s, parse_timeout), "give the validation child this long (default 60)"},
    {"deep", 0, NULL, "doctor", CLI_COMP_NONE, FLAG(deep), "re-hash the files of install receipts"},
    {"deep", 0, NULL, "use", CLI_COMP_NONE, FLAG(deep), "re-hash the installed files against their receipt before switching"},
    {"windows-env", 0, "FILE", "doctor", CLI_COMP_FILE, STR(windows_env), "NAME=VALUE lines standing in for a Windows tree's environment and registry (with --platform windows-x86_64 --root DIR)"},
    {"wait", 0, "[SECONDS]", "install uninstall rollback use recover", CLI_COMP_NONE, CALL(OPTIONAL, lock_wait, parse_wait), "wait for another run on the same target or state dir (at most SECONDS: --wait 5 or --wait=5) instead of exiting 8"},
    {"max-unpacked", 0, "SIZE", "install", CLI_COMP_NONE, SIZE(max_unpacked), "cap on the archive's declared unpacked size (bytes, or with K/M/G/T; default: 10x the archive, 256 MiB to 6 GiB)"},
    {"link-mode", 0, "MODE", "install", CLI_COMP_NONE, CALL(ENUM, link_mode, parse_link_mode), "use the unpacked store: an archive extracted once (with this option) is kept there, and a later install of it with this option fills its files from the store instead of decoding: auto (reflink where the filesystem can, else copy), copy, reflink, or hardlink (prefixes only, never a CUDA tree); without it the store is neither filled nor read"},
    {"allow-manifest-override", 0, NULL, "install", CLI_COMP_NONE, FLAG(allow_manifest_override), "install even when a --manifest contradicts NVIDIA's embedded manifest (recorded in the receipt)"},
    {"allow-manifest-override", 0, NULL, "mirror", CLI_COMP_NONE, FLAG(allow_manifest_override), "mirror even when a --manifest contradicts NVIDIA's embedded manifest"},
    {"allow-manifest-override", 0, NULL, "update", CLI_COMP_NONE, FLAG(allow_manifest_override), "store a pinned label whose file now names other archives (recorded in the catalog and the receipts)"},
    {"connections", 0, "N", "install mirror", CLI_COMP_NONE, CALL(INT, connections, parse_connections), "download over N connections when the server serves byte ranges (0 = automatic from the measured rate, 1 = one stream; at most 16)"},
    {"validate", 0, NULL, "report", CLI_COMP_NONE, FLAG(validate), "also validate the active cuDNN (or TARGET)"},
    {NULL, 0, NULL, NULL, CLI_COMP_NONE, CLI_V_FLAG, 0, NULL, NULL},
};
/* clang-format on */
