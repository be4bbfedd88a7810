/* examples.c: the examples and the environment variables that `cudnnctl help CMD` and the man
 * pages show (EXAMPLES, ENVIRONMENT), and their check (`cudnnctl __cli-check`): every visible
 * command has two or three examples of itself, each example's options exist and are taken by
 * the command it runs, and every CUDNNCTL_* variable of the configuration is listed. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* command "": cudnnctl(1) itself. line: what a user types (the cudnnctl part is checked). */
const cli_example cli_examples[] = {
    {"", "sudo cudnnctl install", "the newest cuDNN that fits the active CUDA toolkit and the driver, into that toolkit's tree, validated on the GPU"},
    {"", "cudnnctl install --prefix ~/cudnn --cudnn 9.19", "cuDNN 9.19 into a per-version prefix you own, no root needed"},
    {"", "eval \"$(cudnnctl env ~/cudnn)\"", "use that prefix in this shell"},
    {"", "cudnnctl doctor", "find problems (mixed versions, broken links, an old driver) with a fix for each"},

    {"detect", "cudnnctl detect", "every CUDA toolkit, the driver, the platform key and every cuDNN copy found"},
    {"detect", "cudnnctl detect --json", "the same as one JSON document (keys: docs/detect.md)"},
    {"detect", "cudnnctl detect --root /mnt/image", "look at a mounted system image instead of this machine"},

    {"available", "cudnnctl available", "every cuDNN build for this machine's platform, newest first"},
    {"available", "cudnnctl available --cudnn 9.19 --cuda 12", "the 9.19.x builds for CUDA 12"},
    {"available", "cudnnctl available --platform windows-x86_64", "what NVIDIA publishes for Windows"},

    {"plan", "cudnnctl plan", "what install would choose for the active toolkit, every step, and why"},
    {"plan", "cudnnctl plan --for torch==2.9.1 --cuda 13", "the cuDNN torch 2.9.1 for CUDA 13 was built with"},
    {"plan", "cudnnctl plan --cudnn 9.19 --prefix /opt/cudnn --source auto --json", "the plan of a prefix install as JSON: wheel or archive, why, and the bytes of each"},

    {"install", "sudo cudnnctl install --cuda-home /usr/local/cuda-13.0", "the newest fitting cuDNN into that CUDA tree"},
    {"install", "cudnnctl install --cudnn 9.19 --prefix ~/cudnn --source wheel --components runtime,dev", "NVIDIA's nvidia-cudnn-cu* wheel through pip (your index, proxy, certificates), checked against the wheel catalog's SHA-256, into PREFIX/cudnn-<version>-cuda<major>"},
    {"install", "cudnnctl install --cudnn 9.19 --prefix ~/proj/cudnn --link-mode hardlink", "a second prefix of a release installed before: hard links to the unpacked store, nothing decoded"},

    {"uninstall", "sudo cudnnctl uninstall /usr/local/cuda-13.0", "remove the active install there and restore what it replaced"},
    {"uninstall", "cudnnctl uninstall --prefix ~/cudnn --version 9.19", "remove the 9.19 install from a prefix"},
    {"uninstall", "cudnnctl uninstall --prefix ~/cudnn --all", "remove every install in the prefix"},

    {"rollback", "sudo cudnnctl rollback /usr/local/cuda-13.0", "undo the last install on that tree"},
    {"rollback", "cudnnctl rollback --prefix ~/cudnn", "undo the last install in a prefix; the one before is current again"},

    {"recover", "sudo cudnnctl recover", "settle a run that a crash or power loss interrupted"},
    {"recover", "cudnnctl recover --wait=30", "the same, waiting up to 30 s for a run still holding the lock"},

    {"list", "cudnnctl list", "every install made by cudnnctl, the active ones marked"},
    {"list", "cudnnctl list --prefix ~/cudnn --json", "the installs in one prefix, as JSON"},

    {"use", "sudo cudnnctl use 12.8", "make CUDA 12.8 the active toolkit, with the cuDNN installed for it"},
    {"use", "cudnnctl use --prefix ~/cudnn --cudnn 9.14", "switch a prefix to the 9.14 installed there side by side"},

    {"env", "eval \"$(cudnnctl env 13.0)\"", "use CUDA 13.0 and its cuDNN in this shell"},
    {"env", "cudnnctl env ~/cudnn --shell fish | source", "a prefix's current cuDNN, in fish"},
    {"env", "cudnnctl env 13.0 --persist", "write the activation into your shell's start-up files"},

    {"validate", "cudnnctl validate", "load the active cuDNN and run a convolution on GPU 0"},
    {"validate", "cudnnctl validate /usr/local/cuda-13.0 --device 1", "the cuDNN of that tree, on GPU 1"},
    {"validate", "cudnnctl validate --prefix ~/cudnn --json", "a prefix's current install, the result as JSON"},

    {"which", "cudnnctl which ./train", "the libcudnn, libcudart and libcublas ./train would load, and why"},
    {"which", "cudnnctl which --python .venv/bin/python", "what torch and jax in that environment load"},
    {"which", "cudnnctl which --env-of activate.sh", "what the loader picks after sh evaluates activate.sh"},

    {"doctor", "cudnnctl doctor", "problems with their cause and fix; exit 1 when one is an error"},
    {"doctor", "cudnnctl doctor --deep", "also re-hash every file the install receipts list"},
    {"doctor", "cudnnctl doctor --python .venv/bin/python", "include that environment's frameworks"},

    {"report", "cudnnctl report > host.json", "record this machine for a later compare"},
    {"report", "cudnnctl report --validate > host.json", "the same with a GPU validation of the active cuDNN"},

    {"compare", "cudnnctl compare gpu01.json gpu02.json gpu03.json", "where the machines differ"},
    {"compare", "cudnnctl compare --json before.json after.json", "the drift as JSON"},

    {"mirror", "cudnnctl mirror --to /srv/cudnn --cudnn 9.19 --cuda 12", "copy what install --cudnn 9.19 --cuda 12 takes, for offline installs"},
    {"mirror", "cudnnctl mirror --to /srv/cudnn --cudnn 9 --all --all-platforms", "every 9.x build for every platform"},

    {"update", "cudnnctl update", "fetch the manifests NVIDIA published since this binary was built"},
    {"update", "cudnnctl update --mirror https://mirror.example/cudnn/redist", "the same from a mirror's listing (no package index unless --index-url)"},
    {"update", "cudnnctl update --index-url https://pypi.example/simple/", "NVIDIA's manifests, and the cuDNN wheels of another package index"},

    {"config", "cudnnctl config", "each setting, its value and where it came from"},
    {"config", "CUDNNCTL_MIRROR=/srv/cudnn cudnnctl config --json", "what a variable changes, as JSON"},

    {"cache", "cudnnctl cache list", "the downloads and the unpacked store's entries kept, with their sizes and last use"},
    {"cache", "cudnnctl cache verify", "re-hash every blob and store file; exit 3 when one does not match"},
    {"cache", "cudnnctl cache clean --dry-run", "what clean would remove"},

    {"help", "cudnnctl help install", "the options of install (as cudnnctl install --help)"},
    {"help", "cudnnctl help", "the commands, global options and exit codes"},

    {NULL, NULL, NULL},
};

/* Variables the tool reads. commands as in optspec.c: "*" or the commands they matter to. */
const cli_envvar cli_envvars[] = {
    {"CUDNNCTL_MIRROR", "plan install config", "default of --mirror (the config key mirror)"},
    {"CUDNNCTL_MANIFEST_BASE_URL", "available plan install mirror config", "where redistrib_X.Y.Z.json is fetched from when --cudnn names a release the catalog lacks"},
    {"CUDNNCTL_CACERT", "install mirror config", "default of --cacert"},
    {"CUDNNCTL_CACHE_DIR", "*", "default of --cache-dir"},
    {"CUDNNCTL_STATE_DIR", "*", "default of --state-dir"},
    {"CUDNNCTL_PROXY", "install mirror config", "HTTP(S) proxy for every download (else libcurl's variables below)"},
    {"CUDNNCTL_PREFIX", "plan install config", "default target of plan and install (--cuda-home overrides it)"},
    {"CUDNNCTL_LOGIN_CHECK", "install use env config", "no: as --no-login-check (the config key login-check; yes, the default: a new login shell is asked what it loads)"},
    {"XDG_CACHE_HOME", "*", "the cache is $XDG_CACHE_HOME/cudnnctl (default ~/.cache/cudnnctl)"},
    {"XDG_STATE_HOME", "*", "the state dir is $XDG_STATE_HOME/cudnnctl (default ~/.local/state/cudnnctl; as root /var/lib/cudnnctl)"},
    {"XDG_CONFIG_HOME", "*", "the user's configuration is $XDG_CONFIG_HOME/cudnnctl/config (default ~/.config/cudnnctl/config)"},
    {"https_proxy", "available plan install mirror", "libcurl's proxy variables (also http_proxy, no_proxy), unless CUDNNCTL_PROXY is set"},
    {"CUDA_HOME", "detect plan install use env doctor report", "a CUDA toolkit to find, and the active one (also CUDA_PATH, CUDA_ROOT)"},
    {"PATH", "detect plan install which doctor report", "nvcc found on PATH marks the active toolkit"},
    {"LD_LIBRARY_PATH", "which doctor detect report", "part of the loader's search that which and doctor model"},
    {"CONDA_PREFIX", "detect which doctor report", "the active conda environment is searched for cuDNN (also VIRTUAL_ENV)"},
    {"SHELL", "env", "the default of --shell"},
    {"NO_COLOR", "*", "no colour with --color auto"},
    {"TERM", "*", "dumb: no live progress line, only a line per stage"},
    {NULL, NULL, NULL},
};

int cli_example_for(const cli_example *e, const char *command)
{
    return strcmp(e->command, command) == 0;
}

int cli_envvar_for(const cli_envvar *v, const char *command)
{
    return !*command || cli_in_words(v->commands, command);
}

/* ---- the check ------------------------------------------------------------------------------- */

#define MAX_WORDS 24

/* The words of the cudnnctl invocation in line: from the word "cudnnctl" up to a shell
 * operator or quote (| > " ) ;). Returns how many, 0 when line runs no cudnnctl. */
static int invocation(const char *line, char words[MAX_WORDS][96])
{
    const char *p = line;
    for (;;) {
        p = strstr(p, "cudnnctl");
        if (!p)
            return 0;
        int starts = p == line || strchr(" (\"", p[-1]);
        if (starts && (p[8] == ' ' || p[8] == 0))
            break;
        p += 8;
    }
    int n = 0;
    while (*p && n < MAX_WORDS) {
        size_t m = strcspn(p, " |>\");");
        if (!m)
            break;
        snprintf(words[n++], 96, "%.*s", (int)(m < 95 ? m : 95), p);
        p += m;
        if (*p != ' ')
            break;
        while (*p == ' ')
            p++;
    }
    return n;
}

/* One example: its command runs, takes each option given, every value is there. */
static int check_example(const cli_example *e)
{
    char w[MAX_WORDS][96];
    int n = invocation(e->line, w), bad = 0, npos = 0;
    const cli_command *c = NULL;
    for (int i = 1; i < n; i++) {
        if (strncmp(w[i], "--", 2) == 0 || (w[i][0] == '-' && w[i][1])) {
            char name[64];
            snprintf(name, sizeof(name), "%.*s", (int)strcspn(w[i] + 2, "="), w[i] + 2);
            const cli_optspec *s = w[i][1] == '-' ? cli_find_optspec(name, c) : NULL;
            if (w[i][1] != '-')
                for (const cli_optspec *k = cli_optspecs; k->name && !s; k++)
                    s = k->short_name == w[i][1] && !w[i][2] ? k : NULL;
            if (!s) {
                fprintf(stderr, "examples.c: '%s': %s is no option of %s\n", e->line, w[i],
                        c ? c->name : "cudnnctl");
                bad = 1;
            } else if (s->arg && s->arg[0] != '[' && !strchr(w[i], '=') && ++i >= n) {
                fprintf(stderr, "examples.c: '%s': %s lacks its value\n", e->line, w[i - 1]);
                bad = 1;
            }
        } else if (!c) {
            c = cli_find_command(w[i]);
            if (!c || c->hidden) {
                fprintf(stderr, "examples.c: '%s' runs no command\n", e->line);
                return 1;
            }
        } else {
            npos++;
        }
    }
    if (!c) {
        fprintf(stderr, "examples.c: '%s' runs no cudnnctl command\n", e->line);
        return 1;
    }
    if (*e->command && strcmp(c->name, e->command) != 0) {
        fprintf(stderr, "examples.c: '%s' is listed under %s\n", e->line, e->command);
        bad = 1;
    }
    if (npos < c->min_args || (c->max_args >= 0 && npos > c->max_args)) {
        fprintf(stderr, "examples.c: '%s': %d arguments, %s takes %s\n", e->line, npos, c->name,
                c->args && *c->args ? c->args : "none");
        bad = 1;
    }
    return bad;
}

int cli_examples_check(cudnnctl_ctx *ctx)
{
    int bad = 0;
    for (const cli_example *e = cli_examples; e->line; e++)
        bad |= check_example(e);
    for (const cli_command *c = cli_commands; c->name; c++) {
        int n = 0;
        for (const cli_example *e = cli_examples; e->line; e++)
            n += cli_example_for(e, c->name);
        if (!c->hidden && (n < 2 || n > 3)) {
            fprintf(stderr, "examples.c: %s has %d examples (two or three, please)\n", c->name, n);
            bad = 1;
        }
    }
    cudnnctl_config *cfg = NULL;
    if (cudnnctl_config_load(ctx, &cfg) != CUDNNCTL_E_OK || !cfg) {
        fprintf(stderr, "examples.c: cannot load the configuration to check its variables\n");
        return 1;
    }
    for (size_t i = 0; i < cfg->n_items; i++) {
        const cli_envvar *v = cli_envvars;
        while (v->name && strcmp(v->name, cfg->items[i].env) != 0)
            v++;
        if (!v->name) {
            fprintf(stderr, "examples.c: %s (config key %s) is not in cli_envvars\n",
                    cfg->items[i].env, cfg->items[i].key);
            bad = 1;
        }
    }
    cudnnctl_config_free(cfg);
    for (const cli_envvar *v = cli_envvars; v->name; v++)
        for (const char *p = v->commands; *p && strcmp(v->commands, "*") != 0;) {
            size_t m = strcspn(p, " ");
            char word[32];
            snprintf(word, sizeof(word), "%.*s", (int)(m < 31 ? m : 31), p);
            if (!cli_find_command(word)) {
                fprintf(stderr, "examples.c: %s names the command '%s'\n", v->name, word);
                bad = 1;
            }
            p += m + (p[m] == ' ');
        }
    return bad;
}
