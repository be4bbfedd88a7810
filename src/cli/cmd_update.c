/* cmd_update.c: the 'update' command — refresh the catalog from a redist directory listing
 * (NVIDIA's, or --mirror / the configured one) into the state dir; the library does the work. */
#include <string.h>

#include "cli.h"

/* --mirror, else the configured manifest base or mirror (a `cudnnctl mirror` dir has its
 * manifests at its top), else NVIDIA's. */
static const char *update_base(const cli_opts *o)
{
    if (o->mirror)
        return o->mirror;
    const char *b = cli_config_get("manifest-base-url");
    return b ? b : cli_config_get("mirror");
}

static void print_human(cli_opts *o, const cudnnctl_update_result *r)
{
    static const char *const hdr[] = {"MANIFEST", "RESULT", "SHA256"};
    cli_table *t = cli_table_new(3, hdr);
    for (size_t i = 0; i < r->n_items; i++) {
        const cudnnctl_update_item *it = &r->items[i];
        if (strcmp(it->result, "known") == 0 && !o->verbose)
            continue; /* the pinned bytes again: nothing to say */
        char sha[20];
        snprintf(sha, sizeof(sha), "%.16s", it->sha256 ? it->sha256 : "");
        const char *row[] = {it->name, it->result, sha};
        cli_table_row(t, row);
    }
    cli_table_print(t, stdout);
    cli_table_free(t);
    cli_info(o, "%zu manifest%s listed at %s: %zu new stored, %zu in the catalog under %s; the "
                "newest cuDNN manifest known is %s",
             r->n_items, r->n_items == 1 ? "" : "s", r->source ? r->source : "?", r->n_added,
             r->n_stored, r->catalog_dir ? r->catalog_dir : "?", r->newest ? r->newest : "?");
}

int cmd_update(cli_opts *o, cudnnctl_ctx *ctx)
{
    cudnnctl_update_opts uo;
    memset(&uo, 0, sizeof(uo));
    uo.base = update_base(o);
    uo.cacert = o->cacert;
    uo.allow_manifest_override = o->allow_manifest_override;
    cudnnctl_update_result *r = NULL;
    cudnnctl_err e = cudnnctl_update(ctx, &uo, &r);
    if (o->json && r) {
        char *js = NULL;
        if (cudnnctl_update_result_json(r, &js) == CUDNNCTL_E_OK)
            cli_print_json(js);
        cudnnctl_free(js);
    } else if (r && e == CUDNNCTL_E_OK && !o->quiet) {
        print_human(o, r);
    }
    for (size_t i = 0; r && !o->quiet && i < r->n_items; i++)
        if (strcmp(r->items[i].result, "same-archives") == 0)
            cli_warn(o, "%s: other bytes than the pinned ones (%s) but the same archives: the pin "
                        "is kept", r->items[i].name, r->items[i].pinned_from);
    int rc = e == CUDNNCTL_E_OK ? 0 : cli_fail(o, ctx, e);
    cudnnctl_update_result_free(r);
    return rc;
}
