/* install_wheel.c: the wheel source's download — NVIDIA's wheel fetched by the user's own Python
 * packaging tools, so that the index, proxy and certificates they configured apply: `python -m
 * pip download --no-deps --only-binary=:all: --platform TAG --require-hashes -r REQ` with REQ
 * "package==version --hash=sha256:<the wheel catalog's>", into a private dir of the cache. The
 * bytes are verified again by the source (cc_source) as every archive is. As root the interpreter
 * must pass the exec trust rule (cc_pf_run) and runs isolated (-I) in a scrubbed environment:
 * docs/security.md, "The wheel source as root". An index given with --index-url that serves PEP
 * 691 JSON is read by cudnnctl itself instead (cc_wheel_direct): the wheel's URL from its
 * project page, downloaded and unpacked as it lands, as any archive URL. */
#include <stdlib.h>
#include <string.h>

#include "install_wheel.h"
#include "source.h"
#include "wheels.h"

#define PIP_TIMEOUT_MS (60u * 60u * 1000u) /* a 900 MB wheel over a slow proxy */

/* Root: what pip may see of the caller's environment — where to connect and whom to trust
 * (data pip reads), never what runs code (PYTHON*, PIP_CONFIG_FILE, keyring providers). */
static const char *const ROOT_KEEP[] = {
    "LANG", "LC_ALL", "LC_CTYPE", "http_proxy", "https_proxy", "no_proxy", "all_proxy",
    "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY", "SSL_CERT_FILE", "SSL_CERT_DIR",
    "REQUESTS_CA_BUNDLE", "PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_TRUSTED_HOST", "PIP_CERT",
    "PIP_CLIENT_CERT", "PIP_PROXY", "PIP_TIMEOUT", "PIP_DEFAULT_TIMEOUT", "PIP_RETRIES",
    "PIP_FIND_LINKS", NULL};

static void env_free(char **env)
{
    for (size_t i = 0; env && env[i]; i++)
        free(env[i]);
    free(env);
}

static char **root_env(void)
{
    size_t n = 0, cap = sizeof(ROOT_KEEP) / sizeof(ROOT_KEEP[0]) + 5;
    char **env = calloc(cap, sizeof(char *));
    char *home = cc_pf_passwd_home();
    if (!env) {
        free(home);
        return NULL;
    }
    env[n++] = cc_strdup("PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
    env[n++] = cc_asprintf("HOME=%s", home ? home : "/root"); /* root's own pip.conf */
    env[n++] = cc_strdup("PIP_KEYRING_PROVIDER=disabled");
    env[n++] = cc_strdup("PIP_NO_INPUT=1");
    for (size_t i = 0; ROOT_KEEP[i]; i++) {
        const char *v = cc_pf_getenv(ROOT_KEEP[i]);
        if (v)
            env[n++] = cc_asprintf("%s=%s", ROOT_KEEP[i], v);
    }
    free(home);
    for (size_t i = 0; i < n; i++)
        if (!env[i]) {
            for (size_t k = 0; k < n; k++)
                free(env[k]);
            free(env);
            return NULL;
        }
    return env;
}

/* The tail of pip's output: what a message quotes. */
static const char *tail(const char *out, size_t keep)
{
    size_t n = out ? strlen(out) : 0;
    return n > keep ? out + n - keep : out ? out : "";
}

static cudnnctl_err pip_failed(cudnnctl_ctx *ctx, const cc_wheel_row *w, const char *py,
                               int status, const char *out)
{
    if (out && (strstr(out, "DO NOT MATCH THE HASHES") || strstr(out, "do not match the hashes")))
        CC_RET_ERR(ctx, CUDNNCTL_E_HASH_MISMATCH,
                   "the index served %s with another SHA-256 than the wheel catalog's %s (pip "
                   "--require-hashes refused it; nothing was installed): the index or a proxy "
                   "changed the file — check the index pip uses (pip config list), or use "
                   "--source archive. pip said: %s",
                   w->pub.filename, w->pub.sha256, tail(out, 600));
    if (status == 1 && out && strstr(out, "No module named pip"))
        CC_RET_ERR(ctx, CUDNNCTL_E_NOT_FOUND,
                   "%s has no pip: install it (python3 -m ensurepip, or the distribution's "
                   "python3-pip), give another interpreter with --python EXE, or use --source "
                   "archive",
                   py);
    CC_RET_ERR(ctx, CUDNNCTL_E_NETWORK,
               "pip download of %s==%s (%s) failed (exit %d): %s; check the index, proxy and "
               "certificates pip is configured with (python3 -m pip config list), give the "
               "index with --index-url URL, or use --source archive",
               w->pub.package, w->pub.version, w->pub.filename, status, tail(out, 800));
}

static cudnnctl_err run_pip(cudnnctl_ctx *ctx, const cudnnctl_install_opts *o,
                            const cc_wheel_row *w, const char *dir, const char *req)
{
    const char *py = o->python ? o->python : "python3";
    int root = cc_pf_is_root();
    const char *argv[32];
    size_t n = 0;
    argv[n++] = py;
    if (root)
        argv[n++] = "-I"; /* no PYTHON* variables, no user site, no cwd on sys.path */
    const char *fixed[] = {"-m", "pip", "download", "--no-deps", "--only-binary=:all:",
                           "--platform", w->pub.tag, "--require-hashes", "--no-cache-dir",
                           "--disable-pip-version-check", "--progress-bar", "off", "--dest",
                           dir, "-r", req, NULL};
    for (size_t i = 0; fixed[i]; i++)
        argv[n++] = fixed[i];
    if (o->index_url) {
        argv[n++] = "--index-url";
        argv[n++] = o->index_url;
    }
    argv[n] = NULL;
    char **env = root ? root_env() : NULL;
    if (root && !env)
        CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    char *out = NULL;
    int status = 0;
    cc_log(ctx, CUDNNCTL_LOG_INFO, "wheel: %s -m pip download %s==%s --platform %s%s%s", py,
           w->pub.package, w->pub.version, w->pub.tag, o->index_url ? " --index-url " : "",
           o->index_url ? o->index_url : "");
    cc_event(ctx, CUDNNCTL_EV_STEP, "download", w->pub.filename);
    int ran = cc_pf_run(argv, (const char *const *)env, NULL, PIP_TIMEOUT_MS, 1, &out, NULL,
                        &status) == 0;
    env_free(env);
    cudnnctl_err rc = CUDNNCTL_E_OK;
    if (!ran && cc_pf_last_error() == CUDNNCTL_E_UNTRUSTED)
        rc = cc_untrusted_refusal(ctx, "the Python interpreter for the wheel source",
                                  "cudnnctl install --source wheel --python", py);
    else if (!ran)
        rc = CC_ERR(ctx, CUDNNCTL_E_NOT_FOUND,
                    "cannot run %s for the wheel source (%s): give a Python interpreter with pip "
                    "(--python EXE), or use --source archive",
                    py, cc_pf_last_error_text());
    else if (status != 0)
        rc = pip_failed(ctx, w, py, status, out);
    free(out);
    return rc;
}

cudnnctl_err cc_wheel_fetch(cudnnctl_ctx *ctx, const cudnnctl_install_opts *o,
                            const cc_wheel_row *w, char **dir_out, char **file_out)
{
    *dir_out = *file_out = NULL;
    char *cache = cc_cache_dir(ctx), *tok = cc_sys_random_token();
    char *dir = cache && tok ? cc_asprintf("%s/tmp-wheel-%s", cache, tok) : NULL;
    char *req = dir ? cc_path_join(dir, "requirements.txt") : NULL;
    char *line = cc_asprintf("%s==%s --hash=sha256:%s\n", w->pub.package, w->pub.version,
                             w->pub.sha256);
    cudnnctl_err rc = CUDNNCTL_E_OK;
    free(tok);
    if (!dir || !req || !line) {
        rc = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
        goto out;
    }
    if (cc_sys_mkdir_p(ctx, cache, 0755) != 0 || cc_sys_mkdir(ctx, dir, 0700) != 0) {
        rc = CC_ERR_PF(ctx, "cannot make a private download dir in the cache", dir);
        goto out;
    }
    *dir_out = dir;
    dir = NULL;
    if (cc_sys_write_file_atomic(ctx, req, line, strlen(line), 0600) != 0) {
        rc = CC_ERR_PF(ctx, "cannot write the requirements file", req);
        goto out;
    }
    if ((rc = run_pip(ctx, o, w, *dir_out, req)) != CUDNNCTL_E_OK)
        goto out;
    *file_out = cc_path_join(*dir_out, w->pub.filename);
    cc_pf_stat_t st;
    if (!*file_out || cc_pf_lstat(*file_out, &st) != 0 || !st.exists || !st.is_reg)
        rc = CC_ERR(ctx, CUDNNCTL_E_NOT_FOUND,
                    "pip download ended without %s in %s: the index offers another file for "
                    "%s==%s; use --source archive",
                    w->pub.filename, *dir_out, w->pub.package, w->pub.version);
out:
    free(cache);
    free(dir);
    free(req);
    free(line);
    return rc;
}

int cc_wheel_direct(cudnnctl_ctx *ctx, const cudnnctl_install_opts *o, cc_source_choice *ch)
{
    if (!ch->via_pip || !o->index_url || (!o->no_cache && cc_cache_has(ctx, ch->sha256, ch->size)))
        return 0;
    char *url = NULL;
    if (cc_wheels_index_locate(ctx, o->index_url, o->cacert, ch->wheel->pub.package,
                               ch->wheel->pub.filename, &url) != CUDNNCTL_E_OK) {
        cc_log(ctx, CUDNNCTL_LOG_INFO, "wheel: %s; pip downloads it",
               cudnnctl_last_error(ctx)->detail);
        cc_clear_error(ctx);
        return 0;
    }
    cc_log(ctx, CUDNNCTL_LOG_INFO, "wheel: %s lists %s at %s: downloaded and unpacked by cudnnctl",
           o->index_url, ch->wheel->pub.filename, url);
    free(ch->url);
    ch->url = url;
    ch->via_pip = 0;
    return 1;
}

void cc_wheel_fetch_done(cudnnctl_ctx *ctx, const cc_wheel_row *w, const char *dir,
                         const char *file, int keep)
{
    if (keep && file && !cc_cache_has(ctx, w->pub.sha256, w->pub.size)) {
        /* verified and unpacked: the cache keeps it as a blob, as a download (a later install of
         * it runs no pip) */
        char *blob = cc_cache_blob_path(ctx, w->pub.sha256);
        char *bdir = blob ? cc_path_dir(blob) : NULL;
        if (!bdir || cc_sys_mkdir_p(ctx, bdir, 0755) != 0 || cc_pf_rename(file, blob) != 0)
            cc_log(ctx, CUDNNCTL_LOG_INFO, "wheel: not kept in the cache (%s)",
                   cc_pf_last_error_text());
        free(blob);
        free(bdir);
    }
    if (dir && cc_sys_rm_rf(ctx, dir) != 0)
        cc_log(ctx, CUDNNCTL_LOG_WARN, "wheel: could not remove %s", dir);
}
