/* paths.c: every path the command line names that must already be there (--cuda-home,
 * --manifest FILE, --cacert, --python, validate TARGET, ...) is checked before the command runs:
 * a missing one, or a file where a directory belongs (and back), is a usage error (exit 2) that
 * names the option and says what to give instead — one rule for every path option, looked up
 * the way the library then reads that path (under --root or not). */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

enum { WANT_FILE = 1, WANT_DIR = 2 };

typedef struct {
    const char *what;  /* "--cuda-home", "validate TARGET" */
    const char *value;
    int want, how;     /* WANT_*, CUDNNCTL_PATH_* */
    int url_ok;        /* an http(s):// URL is fine; file:// names a path */
    const char *hint;  /* what to give instead */
} path_arg;

/* file:///x and file://localhost/x name /x; other URLs are not paths (NULL). */
static const char *as_path(const char *v, int url_ok)
{
    if (!url_ok || !strstr(v, "://"))
        return v;
    if (strncmp(v, "file://", 7) != 0)
        return NULL;
    v += 7;
    if (strncmp(v, "localhost/", 10) == 0)
        v += 9;
    return v;
}

/* A program name without a '/' is looked up on PATH, as the library runs it. */
static int on_path(const cudnnctl_ctx *ctx, const char *name)
{
    const char *path = cudnnctl_host_getenv("PATH");
    char buf[4096];
    for (const char *p = path; p && *p;) {
        size_t n = strcspn(p, ":");
        snprintf(buf, sizeof(buf), "%.*s/%s", (int)(n ? n : 1), n ? p : ".", name);
        if (cudnnctl_host_path_kind(ctx, buf, CUDNNCTL_PATH_AS_IS) == 1)
            return 1;
        p += n + (p[n] == ':');
    }
    return 0;
}

static int check_one(const cli_command *cmd, const cudnnctl_ctx *ctx, const path_arg *a)
{
    const char *p = a->value ? as_path(a->value, a->url_ok) : NULL;
    if (!p || !*p)
        return 0;
    if (a->want == WANT_FILE && a->how == CUDNNCTL_PATH_AS_IS && !strchr(p, '/') &&
        strcmp(a->what, "--python") == 0 && on_path(ctx, p))
        return 0;
    int kind = cudnnctl_host_path_kind(ctx, p, a->how);
    if (kind < 0 || kind == a->want)
        return 0; /* cannot tell: the command says what it finds */
    if (kind == 0)
        cli_usage_error("%s %s: no such %s (%s)", a->what, a->value,
                a->want == WANT_DIR ? "directory" : "file", a->hint);
    else
        cli_usage_error("%s %s is a %s, not a %s (%s)", a->what, a->value,
                kind == 2 ? "directory" : "file", a->want == WANT_DIR ? "directory" : "file",
                a->hint);
    fprintf(stderr, "cudnnctl: see cudnnctl %s --help\n", cmd->name);
    return 2;
}

int cli_check_paths(const cli_opts *o, const cli_command *cmd, const cudnnctl_ctx *ctx)
{
    const int R = CUDNNCTL_PATH_ROOTED, RC = CUDNNCTL_PATH_ROOTED_CWD, P = CUDNNCTL_PATH_AS_IS;
    const path_arg fixed[] = {
        {"--cuda-home", o->cuda_home, WANT_DIR, R, 0,
         "give the root of a CUDA toolkit, e.g. /usr/local/cuda-13.0 (cudnnctl detect lists "
         "them), or install into --prefix DIR"},
        {"--mirror", o->mirror, WANT_DIR, RC, 1,
         "give a directory made by 'cudnnctl mirror --to DIR', or an http(s):// URL"},
        {"--cacert", o->cacert, WANT_FILE, P, 0,
         "give a PEM file of CA certificates, e.g. /etc/ssl/certs/ca-certificates.crt"},
        {"--python", o->python, WANT_FILE, P, 0,
         "give the interpreter, e.g. /opt/venv/bin/python or a name on PATH such as python3"},
        {"--env-of", o->env_of, WANT_FILE, P, 0, "give an activation file that sh can source"},
        {"--windows-env", o->windows_env, WANT_FILE, P, 0, "give a file of NAME=VALUE lines"},
    };
    for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
        if (check_one(cmd, ctx, &fixed[i]))
            return 2;
    for (int i = 0; i < o->n_manifests; i++) {
        path_arg m = {"--manifest", o->manifests[i], WANT_FILE, R, 1,
                      "give a redistrib_X.Y.Z.json file, or an http(s):// URL"};
        if (check_one(cmd, ctx, &m))
            return 2;
    }
    if (strcmp(cmd->name, "validate") == 0 && o->n_args == 1) {
        path_arg t = {"validate", o->args[0], WANT_DIR, R, 0,
                      "give a CUDA tree or a prefix with a cuDNN in it; 'cudnnctl list' shows "
                      "the installs"};
        if (check_one(cmd, ctx, &t))
            return 2;
    }
    for (int i = 0; strcmp(cmd->name, "compare") == 0 && i < o->n_args; i++) {
        path_arg f = {"compare", o->args[i], WANT_FILE, P, 0,
                      "give files written by 'cudnnctl report'"};
        if (check_one(cmd, ctx, &f))
            return 2;
    }
    return 0;
}

/* --root DIR: before the context takes it (it is not looked up under itself). */
int cli_check_root(const cli_opts *o, const cli_command *cmd, const cudnnctl_ctx *ctx)
{
    path_arg r = {"--root", o->root, WANT_DIR, CUDNNCTL_PATH_AS_IS, 0,
                  "give the directory that holds the system image to inspect"};
    return check_one(cmd, ctx, &r);
}
