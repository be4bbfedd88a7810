/* cmd_cache.c: 'cache list|verify|clean' — the download cache: blobs (named by their SHA-256),
 * resumable parts, the quarantine, cached manifests; verify re-hashes every blob; clean removes
 * them all (--dry-run: says what it would remove). */
#include <string.h>

#include "cli.h"

static void print_listing(const cudnnctl_cache_listing *l, const char *verb)
{
    static const char *const hdr[] = {"KIND", "SIZE", "STATE", "PATH"};
    cli_table *t = cli_table_new(4, hdr);
    for (size_t i = 0; i < l->n; i++) {
        const cudnnctl_cache_entry *e = &l->entries[i];
        char sz[32];
        cudnnctl_size_text((double)e->size, sz, sizeof(sz));
        const char *state = e->removed               ? "removed"
                            : verb                   ? verb
                            : e->verified == 1 && strcmp(e->kind, "store") == 0 ? "ok (matches its manifest)"
                            : e->verified == 1       ? "ok (matches its name)"
                            : e->verified == 0       ? "MISMATCH"
                            : strcmp(e->kind, "blob") == 0 ? "-"
                                                     : "";
        const char *row[] = {e->kind, sz, state, e->path};
        cli_table_row(t, row);
    }
    if (l->n)
        cli_table_print(t, stdout);
    cli_table_free(t);
    char total[32];
    cudnnctl_size_text((double)l->total, total, sizeof(total));
    printf("%s%zu entr%s, %s in %s\n", l->n ? "\n" : "", l->n, l->n == 1 ? "y" : "ies", total,
           l->dir);
}

int cmd_cache(cli_opts *o, cudnnctl_ctx *ctx)
{
    const char *op = o->args[0];
    int list = strcmp(op, "list") == 0, verify = strcmp(op, "verify") == 0;
    int clean = strcmp(op, "clean") == 0;
    if (!list && !verify && !clean) {
        fprintf(stderr, "cudnnctl: cache takes list, verify or clean (got '%s')\n", op);
        return 2;
    }
    if (o->dry_run && !clean) {
        fprintf(stderr, "cudnnctl: --dry-run is for 'cache clean'\n");
        return 2;
    }
    cudnnctl_cache_listing *l = NULL;
    cudnnctl_err e = clean ? cudnnctl_cache_clean(ctx, o->dry_run, &l)
                           : cudnnctl_cache_list(ctx, verify, &l);
    if (e != CUDNNCTL_E_OK) {
        cudnnctl_cache_listing_free(l);
        return cli_fail(o, ctx, e);
    }
    if (o->json) {
        char *js = NULL;
        if (cudnnctl_cache_listing_json(l, &js) == CUDNNCTL_E_OK)
            cli_print_json(js);
        cudnnctl_free(js);
    } else {
        print_listing(l, clean && o->dry_run ? "would remove" : NULL);
    }
    int rc = verify && l->n_bad ? 3 : 0; /* a blob that does not match its name: exit 3 */
    if (verify && l->n_bad)
        cli_warn(o, "%zu blob%s do not match their SHA-256 name: 'cudnnctl cache clean' removes "
                    "them (they are downloaded again when needed)",
                 l->n_bad, l->n_bad == 1 ? "" : "s");
    cudnnctl_cache_listing_free(l);
    return rc;
}
