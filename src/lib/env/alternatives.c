/* alternatives.c: Debian's update-alternatives state (/var/lib/dpkg/alternatives/<name>) read
 * and written in its own format, and selecting a choice the way update-alternatives --set does.
 *
 * The state file, one item per line: the mode ("auto" / "manual"), the master link, then
 * "slave name" / "slave link" pairs, an empty line, then per choice its path, its priority and
 * one line per slave with that choice's slave path (empty when it has none), and a final empty
 * line. /etc/alternatives/<name> links to the chosen path; each slave link
 * /etc/alternatives/<slave> to the choice's slave path (removed when the choice has none). */
#include <stdlib.h>
#include <string.h>

#include "envwire_int.h"
#include "grow.h"

#define ALT_ADMIN_DIR "/var/lib/dpkg/alternatives"
#define ALT_DIR "/etc/alternatives"

void cc_alt_free(cc_alt *a)
{
    if (!a)
        return;
    for (size_t i = 0; i < a->n_slaves; i++) {
        free(a->slave_names[i]);
        free(a->slave_links[i]);
    }
    free(a->slave_names);
    free(a->slave_links);
    for (size_t i = 0; i < a->n_choices; i++) {
        free(a->choices[i].path);
        free(a->choices[i].priority);
        for (size_t k = 0; k < a->n_slaves; k++)
            free(a->choices[i].slave_paths ? a->choices[i].slave_paths[k] : NULL);
        free(a->choices[i].slave_paths);
    }
    free(a->choices);
    free(a->name);
    free(a->mode);
    free(a->link);
    memset(a, 0, sizeof(*a));
}

/* Next line of text (without its newline); NULL at the end. */
static char *next_line(const char **p)
{
    if (!**p)
        return NULL;
    const char *e = strchr(*p, '\n');
    size_t n = e ? (size_t)(e - *p) : strlen(*p);
    char *l = cc_strndup(*p, n);
    *p += n + (e ? 1 : 0);
    return l;
}

static int push(char ***v, size_t n, char *s)
{
    if (cc_grow(v, NULL, n + 1, sizeof(char *)) != 0)
        return -1;
    (*v)[n] = s;
    return 0;
}

cudnnctl_err cc_alt_parse(cudnnctl_ctx *ctx, const char *name, const char *text, cc_alt *out)
{
    memset(out, 0, sizeof(*out));
    const char *p = text;
    char *l = NULL;
    out->name = cc_strdup(name);
    out->mode = next_line(&p);
    out->link = next_line(&p);
    if (!out->name || !out->mode || !out->link ||
        (strcmp(out->mode, "auto") != 0 && strcmp(out->mode, "manual") != 0))
        goto bad;
    for (;;) {
        if (!(l = next_line(&p)))
            goto bad;
        if (!*l)
            break;
        char *slink = next_line(&p);
        if (!slink || push(&out->slave_names, out->n_slaves, l) != 0) {
            free(slink);
            goto bad;
        }
        l = NULL;
        if (push(&out->slave_links, out->n_slaves, slink) != 0) {
            free(slink);
            free(out->slave_names[out->n_slaves]);
            goto bad;
        }
        out->n_slaves++;
    }
    free(l);
    l = NULL;
    for (;;) {
        if (!(l = next_line(&p)))
            goto bad;
        if (!*l)
            break;
        if (cc_grow(&out->choices, NULL, out->n_choices + 1, sizeof(*out->choices)) != 0)
            goto bad;
        cc_alt_choice *c = &out->choices[out->n_choices++];
        memset(c, 0, sizeof(*c));
        c->path = l;
        l = NULL;
        c->slave_paths = calloc(out->n_slaves ? out->n_slaves : 1, sizeof(char *));
        if (!c->slave_paths || !(c->priority = next_line(&p)))
            goto bad;
        for (size_t k = 0; k < out->n_slaves; k++)
            if (!(c->slave_paths[k] = next_line(&p)))
                goto bad;
    }
    free(l);
    return CUDNNCTL_E_OK;
bad:
    free(l);
    cc_alt_free(out);
    CC_RET_ERR(ctx, CUDNNCTL_E_PARSE,
               "alternatives state of '%s' is not in update-alternatives' format; check it with: "
               "update-alternatives --display %s",
               name, name);
}

char *cc_alt_format(const cc_alt *a)
{
    cc_buf b = {0};
    int bad = 0;
    bad |= cc_buf_printf(&b, "%s\n%s\n", a->mode, a->link);
    for (size_t i = 0; i < a->n_slaves; i++)
        bad |= cc_buf_printf(&b, "%s\n%s\n", a->slave_names[i], a->slave_links[i]);
    bad |= cc_buf_puts(&b, "\n");
    for (size_t c = 0; c < a->n_choices; c++) {
        bad |= cc_buf_printf(&b, "%s\n%s\n", a->choices[c].path, a->choices[c].priority);
        for (size_t i = 0; i < a->n_slaves; i++)
            bad |= cc_buf_printf(&b, "%s\n", a->choices[c].slave_paths[i]);
    }
    bad |= cc_buf_puts(&b, "\n");
    if (bad) {
        cc_buf_free(&b);
        return NULL;
    }
    return b.data;
}

static char *admin_file(cudnnctl_ctx *ctx, const char *name)
{
    char *u = cc_asprintf(ALT_ADMIN_DIR "/%s", name);
    char *r = u ? cc_rooted(ctx, u) : NULL;
    free(u);
    return r;
}

int cc_alt_manages(cudnnctl_ctx *ctx, const char *link, char **name)
{
    *name = NULL;
    char *rl = cc_rooted(ctx, link);
    char *t = rl ? cc_pf_readlink(rl) : NULL;
    free(rl);
    if (!t)
        return 0;
    /* a relative target ("../../etc/alternatives/cuda") counts as well */
    char *abs = NULL;
    if (t[0] == '/') {
        abs = t;
        t = NULL;
    } else {
        char *d = cc_path_dir(link);
        char *j = d ? cc_asprintf("%s/%s", d, t) : NULL;
        /* resolve the dir part only: the last component is /etc/alternatives/<name> itself */
        char *jd = j ? cc_path_dir(j) : NULL;
        char *rd = jd ? cc_env_realpath(ctx, jd) : NULL;
        abs = rd ? cc_path_join(rd, cc_path_base(j)) : NULL;
        free(jd);
        free(rd);
        free(d);
        free(j);
    }
    free(t);
    int ok = 0;
    if (abs && cc_str_starts(abs, ALT_DIR "/") && !strchr(abs + strlen(ALT_DIR "/"), '/')) {
        const char *n = abs + strlen(ALT_DIR "/");
        char *af = admin_file(ctx, n);
        cc_pf_stat_t st;
        if (af && cc_pf_stat(af, &st) == 0 && st.exists && st.is_reg) {
            *name = cc_strdup(n);
            ok = *name != NULL;
        }
        free(af);
    }
    free(abs);
    return ok;
}

cudnnctl_err cc_alt_load(cudnnctl_ctx *ctx, const char *name, cc_alt *out)
{
    memset(out, 0, sizeof(*out));
    char *af = admin_file(ctx, name);
    char *data = NULL;
    if (!af)
        CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    if (cc_sys_read_file(ctx, af, 1 << 20, &data, NULL) != 0) {
        cudnnctl_err e = CC_ERR_PF(ctx, "cannot read alternatives state", af);
        free(af);
        return e;
    }
    free(af);
    cudnnctl_err e = cc_alt_parse(ctx, name, data, out);
    free(data);
    return e;
}

int cc_alt_find(cudnnctl_ctx *ctx, const cc_alt *a, const char *path)
{
    for (size_t i = 0; i < a->n_choices; i++)
        if (strcmp(a->choices[i].path, path) == 0)
            return (int)i;
    char *want = cc_env_realpath(ctx, path);
    int hit = -1;
    for (size_t i = 0; want && hit < 0 && i < a->n_choices; i++) {
        char *r = cc_env_realpath(ctx, a->choices[i].path);
        if (r && strcmp(r, want) == 0)
            hit = (int)i;
        free(r);
    }
    free(want);
    return hit;
}

static char *choices_text(const cc_alt *a)
{
    cc_buf b = {0};
    for (size_t i = 0; i < a->n_choices; i++)
        cc_buf_printf(&b, "%s%s", i ? ", " : "", a->choices[i].path);
    if (!b.data)
        cc_buf_puts(&b, "none");
    return b.data;
}

/* Point /etc/alternatives/<n> at @p target (or remove it when target is NULL / ""). */
static cudnnctl_err set_alt_link(cudnnctl_ctx *ctx, const char *n, const char *target,
                                 cudnnctl_changes *ch)
{
    char *l = cc_asprintf(ALT_DIR "/%s", n);
    cudnnctl_err rc = CUDNNCTL_E_OK;
    if (!l)
        CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    if (target && *target) {
        rc = cc_env_replace_link(ctx, l, target, ch);
    } else if (cc_env_exists(ctx, l)) {
        char *rl = cc_rooted(ctx, l);
        if (!rl || cc_sys_unlink(ctx, rl) != 0)
            rc = CC_ERR_PF(ctx, "cannot remove", l);
        else if (cc_changes_add(ch, "remove", l, NULL) != 0)
            rc = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
        free(rl);
    }
    free(l);
    return rc;
}

/* Under --root: do what `update-alternatives --set` does, in its formats. */
static cudnnctl_err set_rooted(cudnnctl_ctx *ctx, cc_alt *a, int idx, cudnnctl_changes *ch)
{
    cudnnctl_err rc = CUDNNCTL_E_OK;
    const cc_alt_choice *c = &a->choices[idx];
    char *af = NULL, *text = NULL;
    char *was = cc_strdup(a->mode);
    if (!was)
        CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    /* a choice made by the user puts the group in manual mode (update-alternatives --set) */
    free(a->mode);
    a->mode = cc_strdup("manual");
    if (!a->mode) {
        rc = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
        goto out;
    }
    if (strcmp(was, "manual") != 0) {
        af = admin_file(ctx, a->name);
        text = cc_alt_format(a);
        if (!af || !text) {
            rc = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
            goto out;
        }
        if (cc_sys_write_file_atomic(ctx, af, text, strlen(text), 0644) != 0) {
            rc = CC_ERR_PF(ctx, "cannot write alternatives state", af);
            goto out;
        }
        char *u = cc_unrooted(ctx, af);
        cc_changes_add(ch, "write", u ? u : af, "mode manual");
        free(u);
    }
    if ((rc = set_alt_link(ctx, a->name, c->path, ch)) != CUDNNCTL_E_OK)
        goto out;
    for (size_t i = 0; i < a->n_slaves; i++) {
        const char *sp = c->slave_paths[i];
        if ((rc = set_alt_link(ctx, a->slave_names[i], sp, ch)) != CUDNNCTL_E_OK)
            goto out;
        /* the slave link itself (e.g. /usr/local/cuda-x -> /etc/alternatives/cudax) exists
         * exactly while the choice provides that slave */
        char *via = cc_asprintf(ALT_DIR "/%s", a->slave_names[i]);
        if (!via) {
            rc = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
            goto out;
        }
        int present = cc_env_exists(ctx, a->slave_links[i]);
        if (sp && *sp && !present)
            rc = cc_env_replace_link(ctx, a->slave_links[i], via, ch);
        else if ((!sp || !*sp) && present) {
            char *rl = cc_rooted(ctx, a->slave_links[i]);
            cc_pf_stat_t st;
            if (rl && cc_pf_lstat(rl, &st) == 0 && st.is_link) {
                if (cc_sys_unlink(ctx, rl) != 0)
                    rc = CC_ERR_PF(ctx, "cannot remove", a->slave_links[i]);
                else
                    cc_changes_add(ch, "remove", a->slave_links[i], NULL);
            }
            free(rl);
        }
        free(via);
        if (rc != CUDNNCTL_E_OK)
            goto out;
    }
out:
    free(was);
    free(af);
    free(text);
    return rc;
}

cudnnctl_err cc_alt_set(cudnnctl_ctx *ctx, const char *name, const char *path, cudnnctl_changes *ch)
{
    cc_alt a;
    cudnnctl_err rc = cc_alt_load(ctx, name, &a);
    if (rc != CUDNNCTL_E_OK)
        return rc;
    int idx = cc_alt_find(ctx, &a, path);
    if (idx < 0) {
        char *list = choices_text(&a);
        rc = CC_ERR(ctx, CUDNNCTL_E_ENV,
                    "%s is not registered in the alternatives group '%s' (choices: %s); register "
                    "it first: update-alternatives --install %s %s %s <priority>",
                    path, name, list ? list : "?", a.link, name, path);
        free(list);
        goto out;
    }
    if (ctx->root) {
        rc = set_rooted(ctx, &a, idx, ch);
        goto out;
    }
    if (!cc_pf_is_root()) {
        rc = CC_ERR(ctx, CUDNNCTL_E_PERMISSION,
                    "switching the alternatives group '%s' needs root; run: sudo cudnnctl use ...",
                    name);
        goto out;
    }
    const char *argv[] = {"update-alternatives", "--set", name, a.choices[idx].path, NULL};
    char *outp = NULL;
    size_t outn = 0;
    int status = 0;
    if (cc_pf_run(argv, NULL, NULL, 60000, 1, &outp, &outn, &status) != 0 || status != 0) {
        /* refused as untrusted (a PATH under sudo -E): say so, exit 9 */
        cudnnctl_err why = !outp && cc_pf_last_error() == CUDNNCTL_E_UNTRUSTED
                               ? CUDNNCTL_E_UNTRUSTED
                               : CUDNNCTL_E_ENV;
        rc = CC_ERR(ctx, why, "update-alternatives --set %s %s failed (status %d): %s",
                    name, a.choices[idx].path, status, outp ? outp : cc_pf_last_error_text());
    } else {
        char *cmd = cc_asprintf("update-alternatives --set %s %s", name, a.choices[idx].path);
        if (!cmd || cc_changes_add(ch, "run", cmd, NULL) != 0)
            rc = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
        free(cmd);
    }
    free(outp);
out:
    cc_alt_free(&a);
    return rc;
}
