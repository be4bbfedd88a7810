/* fuzz_env.c: env rendering, round-tripped through real shells. The input gives a selection
 * (fields split at '\n': toolkit dir, then groups of bin dirs / managed dirs / roots split at
 * '\x01'; as in every real selection each bin dir lies under one of the roots: root/<given>);
 * the sh activation is rendered (cudnnctl_env_render), evaluated three times by dash and by bash
 * from PATH=/usr/bin:/bin, and the variables are read back: CUDA_HOME is the toolkit dir byte for
 * byte, PATH is the bin dirs in order followed by the user's entries that no managed dir and no
 * root covers, CUDNNCTL_ENV the roots, and evaluating it again changes nothing. ':' cannot be
 * part of a PATH entry and is dropped from the input, as are NUL and '\r'. */
#define _POSIX_C_SOURCE 200809L
#include <unistd.h>

#include "fuzz_common.h"

typedef struct {
    char *v[16];
    size_t n;
} list;

static char *trim(const char *s)
{
    size_t n = strlen(s);
    while (n > 1 && s[n - 1] == '/')
        n--;
    return fz_str((const uint8_t *)s, n);
}

static void cat(char *out, size_t cap, const char *s)
{
    size_t n = strlen(out);
    FZ_CHECK(n + strlen(s) < cap);
    memcpy(out + n, s, strlen(s) + 1);
}

static void join(char *out, size_t cap, const list *l, int do_trim)
{
    for (size_t i = 0; i < l->n; i++) {
        char *t = do_trim ? trim(l->v[i]) : fz_str((const uint8_t *)l->v[i], strlen(l->v[i]));
        if (i)
            cat(out, cap, ":");
        cat(out, cap, t);
        free(t);
    }
}

static int dropped(const char *e, const list *managed)
{
    for (size_t i = 0; i < managed->n; i++) {
        char *m = trim(managed->v[i]);
        size_t n = strlen(m);
        int d = strcmp(e, m) == 0 || (strncmp(e, m, n) == 0 && e[n] == '/');
        free(m);
        if (d)
            return 1;
    }
    return 0;
}

/* 1 when a value is one the activation refuses by design (root-safe rules: never escaped, since
 * a changed path names another dir): a control character anywhere, or ':' (the separator of the
 * lists it writes) in a dir. */
static int refusable(const char *v)
{
    for (; v && *v; v++)
        if ((unsigned char)*v < 0x20 || (unsigned char)*v == 0x7f || *v == ':')
            return 1;
    return 0;
}

static int selection_refusable(const cudnnctl_env_selection *s)
{
    int r = refusable(s->toolkit_path);
    for (size_t i = 0; i < s->n_bin_dirs; i++)
        r |= refusable(s->bin_dirs[i]);
    for (size_t i = 0; i < s->n_roots; i++)
        r |= refusable(s->roots[i]);
    return r;
}

static void run_shell(const char *shell, const char *script, const char *expect)
{
    char cmd[512], out[16384];
    snprintf(cmd, sizeof(cmd),
             "env -i PATH=/usr/bin:/bin %s -c '. \"%s\"; . \"%s\"; a=$PATH; . \"%s\"; "
             "[ \"$a\" = \"$PATH\" ] || echo DIFF; printf \"%%s|%%s|%%s\" \"$PATH\" "
             "\"${CUDA_HOME-unset}\" \"${CUDNNCTL_ENV-unset}\"' 2>&1",
             shell, script, script, script);
    int st = -1;
    for (int attempt = 0; attempt < 2; attempt++) {
        FILE *p = popen(cmd, "r");
        FZ_CHECK(p != NULL);
        size_t n = fread(out, 1, sizeof(out) - 1, p);
        out[n] = '\0';
        st = pclose(p);
        /* once in a 10-minute run the shell died of SIGPIPE before printing anything (exit 141,
         * not reproducible with that input): an empty answer is asked again once */
        if (n > 0 || st == 0)
            break;
    }
    if (st != 0 || strcmp(out, expect) != 0) {
        fprintf(stderr, "%s:\n got    [%s] (status %d)\n wanted [%s]\n", shell, out, st, expect);
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 2048)
        return 0;
    char *s = malloc(size + 1);
    size_t k = 0;
    for (size_t i = 0; i < size; i++)
        if (data[i] && data[i] != ':' && data[i] != '\r')
            s[k++] = (char)data[i];
    s[k] = '\0';
    char *f[4] = {s, "", "", ""};
    fz_split(s, '\n', f, 4);
    list l[3] = {{{0}, 0}, {{0}, 0}, {{0}, 0}}; /* bin dirs, managed, roots */
    for (int g = 0; g < 3; g++)
        if (f[g + 1][0])
            l[g].n = fz_split(f[g + 1], '\x01', l[g].v, 8);
    for (int g = 1; g < 3; g++) { /* managed dirs and roots are absolute dirs */
        size_t w = 0;
        for (size_t i = 0; i < l[g].n; i++)
            if (l[g].v[i][0] == '/')
                l[g].v[w++] = l[g].v[i];
        l[g].n = w;
    }
    char *bins[8];
    size_t nb = l[2].n ? l[0].n : 0; /* bin dirs only under roots */
    for (size_t i = 0; i < nb; i++) {
        char *r = trim(l[2].v[i % l[2].n]);
        size_t n = strlen(r) + strlen(l[0].v[i]) + 2;
        bins[i] = malloc(n);
        snprintf(bins[i], n, "%s/%s", r, l[0].v[i]);
        free(r);
    }
    for (size_t i = 0; i < nb; i++)
        l[0].v[i] = bins[i];
    l[0].n = nb;
    list drop = l[1]; /* the user's entries under a managed dir or a root are dropped */
    for (size_t i = 0; i < l[2].n && drop.n < 16; i++)
        drop.v[drop.n++] = l[2].v[i];
    cudnnctl_env_selection sel;
    memset(&sel, 0, sizeof(sel));
    sel.toolkit_path = f[0][0] ? f[0] : NULL;
    sel.bin_dirs = l[0].v;
    sel.n_bin_dirs = l[0].n;
    sel.managed = l[1].v;
    sel.n_managed = l[1].n;
    sel.roots = l[2].v;
    sel.n_roots = l[2].n;
    sel.toolkit_major = sel.toolkit_minor = sel.cudnn_cuda_major = -1;
    char *text = NULL;
    cudnnctl_err rc = cudnnctl_env_render(fz_ctx(), &sel, CUDNNCTL_SHELL_SH, 0, &text);
    if (rc != CUDNNCTL_E_OK) { /* refused: only a value it must refuse, and as a usage error */
        FZ_CHECK(rc == CUDNNCTL_E_USAGE && selection_refusable(&sel));
        for (size_t i = 0; i < nb; i++)
            free(bins[i]);
        free(s);
        return 0;
    }
    static char script[64];
    if (!script[0])
        snprintf(script, sizeof(script), "/tmp/cudnnctl-fuzz-env-%ld.sh", (long)getpid());
    FILE *fp = fopen(script, "w");
    FZ_CHECK(fp != NULL);
    fputs(text, fp);
    fclose(fp);
    cudnnctl_free(text);

    static char expect[16384];
    expect[0] = '\0';
    join(expect, sizeof(expect), &l[0], 1);
    int first = l[0].n == 0;
    const char *user[] = {"/usr/bin", "/bin"};
    for (int i = 0; i < 2; i++)
        if (!dropped(user[i], &drop)) {
            if (!first)
                cat(expect, sizeof(expect), ":");
            cat(expect, sizeof(expect), user[i]);
            first = 0;
        }
    cat(expect, sizeof(expect), "|");
    cat(expect, sizeof(expect), sel.toolkit_path ? sel.toolkit_path : "unset");
    cat(expect, sizeof(expect), "|");
    if (l[2].n)
        join(expect, sizeof(expect), &l[2], 1);
    else
        cat(expect, sizeof(expect), "unset");
    run_shell("dash", script, expect);
    run_shell("bash", script, expect);
    for (size_t i = 0; i < nb; i++)
        free(bins[i]);
    free(s);
    return 0;
}
