/* effective.c: ask the real loader. A child (this binary's hidden `__load-probe`) dlopens a
 * soname by name and reports the file it mapped; the parent compares that with what was just
 * installed or selected and explains a difference with the model. Also: the LD_LIBRARY_PATH a
 * shell activation file produces (`which --env-of`). */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "json.h"
#include "json_fields.h"
#include "consumer_int.h"
#include "platform.h"

#define MARK "cudnnctl-load: "
#define MARK_LLP "cudnnctl-llp: "
/* as root, not loaded: the loader model's answer instead (probe_guard.c) */
#define MARK_MODEL "cudnnctl-model: "
/* the probe's last line: its report is whole (a background process that a login shell's
 * start-up left holding the pipe never lets it reach EOF) */
#define MARK_END "cudnnctl-end"
/* how long a probe may take once it has its soname (a login shell: its start-up files too) */
#define PROBE_TIMEOUT_MS 60000

cudnnctl_err cudnnctl_load_probe_child(cudnnctl_ctx *ctx, const char *const *sonames, size_t n,
                                       void (*emit)(void *, const char *), void *user)
{
    const char *llp = cc_pf_getenv("LD_LIBRARY_PATH");
    char *line = llp ? cc_asprintf(MARK_LLP "=%s", llp) : cc_strdup(MARK_LLP "-");
    if (line)
        emit(user, line);
    free(line);
    for (size_t i = 0; i < n; i++) {
        char *predicted = NULL, *why = NULL;
        if (!cc_ld_probe_may_load(ctx, sonames[i], &predicted, &why)) {
            line = cc_asprintf(MARK_MODEL "%s %s", sonames[i], predicted ? predicted : "-");
            if (line)
                emit(user, line);
            free(line);
            line = cc_asprintf(MARK "%s - not loaded: as root cudnnctl loads nothing another user "
                                    "could have written (%s)",
                               sonames[i], why ? why : "untrusted");
            if (line)
                emit(user, line);
            free(line);
            free(predicted);
            free(why);
            continue;
        }
        free(predicted); /* may load: the loader itself answers */
        free(why);
        void *h = cc_pf_dlopen_ex(sonames[i], CC_PF_DL_LAZY);
        if (!h) {
            const char *err = cc_pf_dlerror();
            line = cc_asprintf(MARK "%s - %s", sonames[i], err ? err : "not loadable");
        } else {
            char **mods = cc_pf_loaded_module_paths(sonames[i]);
            const char *hit = NULL;
            for (size_t k = 0; mods && mods[k] && !hit; k++)
                if (strcmp(cc_path_base(mods[k]), sonames[i]) == 0)
                    hit = mods[k];
            if (!hit && mods && mods[0])
                hit = mods[0];
            line = cc_asprintf(MARK "%s %s", sonames[i], hit ? hit : "?");
            for (size_t k = 0; mods && mods[k]; k++)
                free(mods[k]);
            free(mods);
        }
        if (line)
            emit(user, line);
        free(line);
    }
    emit(user, MARK_END);
    (void)ctx;
    return CUDNNCTL_E_OK;
}

/* Parse a probe's output for one soname. */
static void parse_probe(const char *out, const char *soname, cudnnctl_effective *e)
{
    for (const char *l = out; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        size_t len = strcspn(l, "\n");
        char *line = cc_strndup(l, len);
        if (!line)
            return;
        char *p;
        if ((p = strstr(line, MARK_MODEL)) != NULL &&
            cc_str_starts(p + strlen(MARK_MODEL), soname) &&
            p[strlen(MARK_MODEL) + strlen(soname)] == ' ') {
            p += strlen(MARK_MODEL) + strlen(soname) + 1;
            e->modelled = 1;
            free(e->mapped);
            e->mapped = strcmp(p, "-") == 0 ? NULL : cc_strdup(p);
        } else if ((p = strstr(line, MARK_LLP)) != NULL) {
            p += strlen(MARK_LLP);
            free(e->ld_library_path);
            e->ld_library_path = *p == '=' ? cc_strdup(p + 1) : NULL;
        } else if ((p = strstr(line, MARK)) != NULL && cc_str_starts(p + strlen(MARK), soname)) {
            p += strlen(MARK) + strlen(soname);
            if (cc_str_starts(p, " - "))
                e->error = cc_strdup(p + 3);
            else if (*p == ' ')
                e->mapped = cc_strdup(p + 1);
        }
        free(line);
    }
}

static char *real_dir(const char *file)
{
    char *d = cc_path_dir(file);
    char *r = d ? cc_pf_realpath(d) : NULL;
    free(d);
    return r;
}

/* The release of the copy the file belongs to (read from the files), host paths. */
static char *release_of(cudnnctl_ctx *ctx, const char *file)
{
    const char *how = NULL;
    char *real = file ? cc_pf_realpath(file) : NULL;
    char *rel = real ? cc_ld_cudnn_release(ctx, real, &how) : NULL;
    free(real);
    return rel;
}

static void judge(cudnnctl_ctx *ctx, cudnnctl_effective *e, const char *expect_dir,
                  const char *fix)
{
    cudnnctl_loader_env env = {e->ld_library_path, NULL, NULL};
    cudnnctl_load_result *r = NULL;
    if (cudnnctl_loader_resolve(ctx, &env, NULL, e->soname, &r) == CUDNNCTL_E_OK)
        e->model = r;
    e->mapped_real = e->mapped ? cc_pf_realpath(e->mapped) : NULL;
    e->matches = 1;
    if (!expect_dir)
        return;
    e->expected = cc_strdup(expect_dir);
    char *want = cc_pf_realpath(expect_dir);
    char *got = e->mapped ? real_dir(e->mapped) : NULL;
    e->matches = want && got && strcmp(want, got) == 0;
    if (!e->matches)
        e->fix = fix ? cc_strdup(fix) : cudnnctl_activation_fix(ctx, expect_dir, e->scope, NULL);
    if (!e->matches && e->mapped && want) {
        char *exp_file = cc_path_join(want, e->soname);
        char *a = release_of(ctx, e->mapped), *b = exp_file ? release_of(ctx, exp_file) : NULL;
        e->same_release = cc_ld_same_release(a, b) == 1;
        free(a);
        free(b);
        free(exp_file);
    }
    free(want);
    free(got);
}

/* The probe's second half: the soname goes to the child started earlier (c; NULL: it did not
 * start, start_err says why), which loads it now; its report is parsed and judged. */
static cudnnctl_err finish_probe(cudnnctl_ctx *ctx, cc_pf_child *c, const char *start_err,
                                 const char *scope, const char *soname, const char *expect_dir,
                                 const char *fix, cudnnctl_effective *e)
{
    memset(e, 0, sizeof(*e));
    e->soname = cc_strdup(soname);
    e->scope = cc_strdup(scope);
    char *out = NULL, *line = cc_asprintf("%s\n", soname);
    size_t len = 0;
    int status = 0;
    if (!c || !line ||
        cc_pf_finish(c, line, PROBE_TIMEOUT_MS, MARK_END, &out, &len, &status) != 0 ||
        status == 127) {
        e->error = cc_asprintf("the probe did not start: %s",
                               c && status == 127 ? "exit 127"
                               : start_err        ? start_err
                                                  : cc_pf_last_error_text());
        e->not_run = 1;
        if (c && !line)
            cc_pf_cancel(c);
    } else {
        parse_probe(out ? out : "", soname, e);
        if (!e->mapped && !e->error && status == -1)
            /* its first line comes before the loading: without it, the probe never ran */
            e->error = cc_asprintf("the probe reported nothing within %d s (exit -1)%s",
                                   PROBE_TIMEOUT_MS / 1000,
                                   out && strstr(out, MARK_LLP) ? ": the loading did not finish"
                                   : strcmp(scope, "login") == 0
                                       ? ": the login shell's start-up files had not finished"
                                       : "");
        else if (!e->mapped && !e->error)
            e->error = cc_asprintf("the probe reported nothing (exit %d)", status);
    }
    free(line);
    free(out);
    judge(ctx, e, expect_dir, fix);
    return e->soname && e->scope ? CUDNNCTL_E_OK : CUDNNCTL_E_NOMEM;
}

static void effective_clear(cudnnctl_effective *e)
{
    char *const *fields[] = {&e->soname,          &e->scope, &e->mapped, &e->mapped_real,
                             &e->ld_library_path, &e->error, &e->fix,    &e->expected};
    for (size_t k = 0; k < sizeof(fields) / sizeof(fields[0]); k++)
        free(*fields[k]);
    cudnnctl_load_result_free(e->model);
    memset(e, 0, sizeof(*e));
}

/* As root, a login shell runs root's start-up files: not run when another user could have
 * written one of them (they would run as root). */
static cudnnctl_err login_refused(const char *soname, const char *expect_dir, char *why,
                                  cudnnctl_effective *e)
{
    memset(e, 0, sizeof(*e));
    e->soname = cc_strdup(soname);
    e->scope = cc_strdup("login");
    e->expected = expect_dir ? cc_strdup(expect_dir) : NULL;
    e->error = cc_asprintf("not run as root: %s (a login shell would run it as root)", why);
    e->not_run = 1;
    free(why);
    return e->soname && e->scope && e->error ? CUDNNCTL_E_OK : CUDNNCTL_E_NOMEM;
}

/* The children, started before the work they check (cudnnctl_effective_start): their
 * environments and a login shell's start-up files are those of now, the loading waits for the
 * soname that cudnnctl_effective_finish sends once the work is done. */
struct cudnnctl_effective_probe {
    cc_pf_child *cur, *login;
    char *cur_err, *login_err; /* why a child did not start */
    char *login_why;           /* as root: why no login shell runs (a start-up file's writer) */
    int login_scope;           /* 0: current only */
};

static char *start_err_text(void)
{
    return cc_strdup(cc_pf_last_error_text());
}

/* The login scope: `bash -lic` from a clean environment with the effective user's passwd home
 * and name (not $HOME / $USER: under `sudo -E` those are the caller's, whose .bash_profile
 * would run as root), through /usr/bin/env (not one found on the caller's PATH). The soname
 * comes on fd 3 and the report goes to fd 4: the start-up files see /dev/null (one that reads
 * its stdin would wait for the install, then eat the soname). */
static void login_start(cudnnctl_effective_probe *p, const char *self)
{
    char *home = cc_pf_passwd_home();
    char *name = cc_pf_passwd_name();
    const char *hd = home ? home : "/";
    p->login_why = cc_pf_is_root() ? cc_ld_login_startup_why(hd) : NULL;
    if (!p->login_why) {
        char *h = cc_asprintf("HOME=%s", hd);
        char *u = cc_asprintf("USER=%s", name ? name : "nobody");
        char *l = cc_asprintf("LOGNAME=%s", name ? name : "nobody");
        cc_pf_stat_t st;
        const char *envbin =
            cc_pf_stat("/usr/bin/env", &st) == 0 && st.is_reg ? "/usr/bin/env" : "/bin/env";
        const char *argv[] = {envbin,
                              "-i",
                              h ? h : "HOME=/",
                              u ? u : "USER=nobody",
                              l ? l : "LOGNAME=nobody",
                              "TERM=dumb",
                              "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
                              "bash",
                              "-lic",
                              "exec \"$0\" __load-probe - <&3 >&4 3<&- 4>&-",
                              self,
                              NULL};
        if (!(p->login = cc_pf_start(argv, NULL, CC_PF_CHILD_FD34 | CC_PF_CHILD_BACKGROUND)))
            p->login_err = start_err_text();
        free(h);
        free(u);
        free(l);
    }
    free(home);
    free(name);
}

cudnnctl_err cudnnctl_effective_start(cudnnctl_ctx *ctx, const char *self_exe, unsigned flags,
                                      cudnnctl_effective_probe **out)
{
    *out = NULL;
    if (cc_host_native_windows())
        return CUDNNCTL_E_OK; /* the model and the probe are glibc's loader: nothing to check */
    cudnnctl_effective_probe *p = calloc(1, sizeof(*p));
    char *self = self_exe ? cc_strdup(self_exe) : cc_pf_self_exe();
    if (!p || !self) {
        free(p);
        free(self);
        CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    }
    const char *cur[] = {self, "__load-probe", "-", NULL};
    if (!(p->cur = cc_pf_start(cur, NULL, CC_PF_CHILD_BACKGROUND)))
        p->cur_err = start_err_text();
    p->login_scope = !ctx->root && !(flags & CUDNNCTL_EFFECTIVE_CURRENT_ONLY);
    if (p->login_scope)
        login_start(p, self);
    free(self);
    *out = p;
    return CUDNNCTL_E_OK;
}

void cudnnctl_effective_cancel(cudnnctl_effective_probe *p)
{
    if (!p)
        return;
    cc_pf_cancel(p->cur);
    cc_pf_cancel(p->login);
    free(p->cur_err);
    free(p->login_err);
    free(p->login_why);
    free(p);
}

/* The login scope's entry: refused as root (why), or the login shell's report; *keep 0 when
 * there is no login scope here (no bash / env). */
static cudnnctl_err login_finish(cudnnctl_ctx *ctx, cudnnctl_effective_probe *p,
                                 const char *soname, const char *expect_dir, const char *fix,
                                 cudnnctl_effective *e, int *keep)
{
    *keep = 1;
    if (p->login_why) {
        char *why = p->login_why;
        p->login_why = NULL;
        return login_refused(soname, expect_dir, why, e);
    }
    cc_pf_child *c = p->login;
    p->login = NULL;
    cudnnctl_err rc = finish_probe(ctx, c, p->login_err, "login", soname, expect_dir, fix, e);
    if (rc == CUDNNCTL_E_OK && e->not_run) { /* no bash / env here: no login scope */
        effective_clear(e);
        *keep = 0;
    }
    return rc;
}

cudnnctl_err cudnnctl_effective_finish(cudnnctl_ctx *ctx, cudnnctl_effective_probe *p,
                                       const char *soname, const char *expect_dir,
                                       const char *fix_current, const char *fix_login,
                                       cudnnctl_effective **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    if (!p)
        return CUDNNCTL_E_OK; /* not this platform's loader (cudnnctl_effective_start) */
    cudnnctl_effective *v = calloc(2, sizeof(*v));
    if (!v) {
        cudnnctl_effective_cancel(p);
        CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    }
    cc_pf_child *cur = p->cur;
    p->cur = NULL;
    cudnnctl_err e =
        finish_probe(ctx, cur, p->cur_err, "current", soname, expect_dir, fix_current, &v[0]);
    size_t cnt = 1;
    if (e == CUDNNCTL_E_OK && p->login_scope) {
        int keep = 0;
        e = login_finish(ctx, p, soname, expect_dir, fix_login, &v[1], &keep);
        cnt = keep ? 2 : 1;
    }
    cudnnctl_effective_cancel(p); /* what is left: a login shell not asked (an error above) */
    if (e != CUDNNCTL_E_OK) {
        cudnnctl_effective_free(v, 2);
        CC_RET_ERR(ctx, e, "out of memory");
    }
    *out = v;
    *n = cnt;
    return CUDNNCTL_E_OK;
}

cudnnctl_err cudnnctl_effective_check(cudnnctl_ctx *ctx, const char *self_exe, const char *soname,
                                      const char *expect_dir, const char *fix_current,
                                      const char *fix_login, unsigned flags,
                                      cudnnctl_effective **out, size_t *n)
{
    cudnnctl_effective_probe *p = NULL;
    *out = NULL;
    *n = 0;
    cudnnctl_err e = cudnnctl_effective_start(ctx, self_exe, flags, &p);
    return e != CUDNNCTL_E_OK ? e
                              : cudnnctl_effective_finish(ctx, p, soname, expect_dir, fix_current,
                                                          fix_login, out, n);
}

void cudnnctl_effective_free(cudnnctl_effective *v, size_t n)
{
    for (size_t i = 0; v && i < n; i++)
        effective_clear(&v[i]);
    free(v);
}

cudnnctl_err cudnnctl_effective_json(const cudnnctl_effective *v, size_t n, char **json)
{
#define F(m) CC_JSON_FIELD(cudnnctl_effective, m)
    static const cc_json_field strs[] = {F(soname),          F(scope), F(mapped),  F(mapped_real),
                                         F(ld_library_path), F(error), F(expected)};
    static const cc_json_field flags[] = {F(matches), F(not_run), F(modelled), F(same_release)};
#undef F
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; a && i < n; i++) {
        cJSON *o = cJSON_CreateObject();
        if (!o)
            break;
        cc_json_str_fields(o, &v[i], strs, sizeof(strs) / sizeof(strs[0]));
        cc_json_bool_fields(o, &v[i], flags, sizeof(flags) / sizeof(flags[0]));
        cc_json_str(o, "fix", v[i].fix);
        if (v[i].model)
            cJSON_AddItemToObject(o, "model", cc_ld_result_obj(v[i].model));
        else
            cJSON_AddNullToObject(o, "model");
        cJSON_AddItemToArray(a, o);
    }
    *json = a ? cJSON_PrintUnformatted(a) : NULL;
    cJSON_Delete(a);
    return *json ? CUDNNCTL_E_OK : CUDNNCTL_E_NOMEM;
}

char *cudnnctl_effective_line(const cudnnctl_effective *e)
{
    const char *who = strcmp(e->scope, "login") == 0 ? "a new login shell" : "this environment";
    if (e->not_run)
        return cc_asprintf("%s was not checked for %s: %s", who, e->soname,
                           e->error ? e->error : "the probe did not run");
    if (e->modelled) { /* nothing loaded: say so, whatever the model predicts */
        const char *m = e->mapped ? e->mapped : "nothing";
        const char *why = e->error ? e->error : "not loaded";
        if (e->matches || !e->fix)
            return cc_asprintf("%s would map %s for %s (the loader model's answer; %s)", who, m,
                               e->soname, why);
        return cc_asprintf("%s would map %s for %s, not the copy in %s (the loader model's answer; "
                           "%s); fix: %s",
                           who, m, e->soname, e->expected ? e->expected : "?", why, e->fix);
    }
    if (e->matches)
        return NULL;
    const char *why = e->model && e->model->why ? e->model->why : "";
    const char *exp = e->expected ? e->expected : "?";
    if (!e->mapped)
        return cc_asprintf("%s loads no %s (%s), not the copy in %s; fix: %s", who, e->soname,
                           e->error ? e->error : "not found", exp, e->fix ? e->fix : "");
    const char *ver = e->model && e->model->version ? e->model->version : NULL;
    if (e->same_release)
        return cc_asprintf("%s maps %s for %s, not the copy in %s: the same release%s%s, so it "
                           "fits (%s); to use that copy's own files: %s",
                           who, e->mapped, e->soname, exp, ver ? " " : "", ver ? ver : "", why,
                           e->fix ? e->fix : "");
    return cc_asprintf("%s maps %s%s%s%s for %s, not the copy in %s: %s; fix: %s", who,
                       e->mapped, ver ? " (cuDNN " : "", ver ? ver : "", ver ? ")" : "",
                       e->soname, exp, why, e->fix ? e->fix : "");
}

cudnnctl_err cudnnctl_env_of(cudnnctl_ctx *ctx, const char *file, const char *base,
                             char **ld_library_path)
{
    *ld_library_path = NULL;
    static const char script[] =
        "if [ \"$2\" = set ]; then LD_LIBRARY_PATH=$3; export LD_LIBRARY_PATH; "
        "else unset LD_LIBRARY_PATH; fi; . \"$1\" >/dev/null 2>&1 || exit 3; "
        "printf '%s' \"${LD_LIBRARY_PATH-" "\001unset}\"";
    const char *argv[] = {"sh", "-c", script, "sh", file, base ? "set" : "unset",
                          base ? base : "", NULL};
    char *out = NULL;
    size_t len = 0;
    int status = 0;
    /* sh runs what the file says: as root, only a file no other user can change */
    if (cc_pf_is_root() && cc_pf_trust_check(file, CC_PF_TRUST_OBJECT) != 0) {
        char *what = cc_asprintf("--env-of %s: refusing to evaluate it as root", file);
        cudnnctl_err e = what ? cc_untrusted_refusal(ctx, what, "cudnnctl which --env-of", file)
                              : CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
        free(what);
        return e;
    }
    int ran = cc_pf_run(argv, NULL, NULL, 30000, 0, &out, &len, &status) == 0;
    if (!ran && cc_pf_last_error() == CUDNNCTL_E_UNTRUSTED) /* sh itself (PATH under sudo -E) */
        return cc_untrusted_refusal(ctx, "--env-of: not evaluated", NULL, NULL);
    if (!ran || status != 0) {
        free(out);
        CC_RET_ERR(ctx, CUDNNCTL_E_USAGE,
                   "%s: sh could not evaluate it (exit %d): give the output of "
                   "`cudnnctl env --shell sh ...` saved to a file",
                   file, status);
    }
    if (out && strcmp(out, "\001unset") != 0)
        *ld_library_path = out;
    else
        free(out);
    return CUDNNCTL_E_OK;
}

int cudnnctl_loader_default_finds(cudnnctl_ctx *ctx, const char *soname, const char *dir)
{
    cudnnctl_loader_env env = {NULL, NULL, NULL};
    cudnnctl_load_result *r = NULL;
    if (cudnnctl_loader_resolve(ctx, &env, NULL, soname, &r) != CUDNNCTL_E_OK)
        return 0;
    int yes = 0;
    if (r->path) {
        char *hd = cc_rooted(ctx, dir);
        char *want = hd ? cc_pf_realpath(hd) : NULL;
        char *hp = cc_rooted(ctx, r->path);
        char *got = hp ? real_dir(hp) : NULL;
        yes = want && got && strcmp(want, got) == 0;
        free(hd);
        free(want);
        free(hp);
        free(got);
    }
    cudnnctl_load_result_free(r);
    return yes;
}

int cudnnctl_is_elevated(void)
{
    return cc_pf_is_root();
}
