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
    for (size_t i = 0; i < r->n_wheel_items; i++) {
        const cudnnctl_update_item *it = &r->wheel_items[i];
        if (strcmp(it->result, "known") == 0 && !o->verbose)
            continue;
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
    if (r->index_source && !r->index_warning)
        cli_info(o, "%zu wheel file%s of cuDNN releases listed at %s: %zu new stored, %zu in the "
                    "stored wheel catalog (beside the embedded one)",
                 r->n_wheel_items, r->n_wheel_items == 1 ? "" : "s", r->index_source,
                 r->n_wheels_added, r->n_wheels_stored);
}

/* The package index whose wheels refresh the wheel catalog: --index-url (then it must be
 * readable), else PyPI when the manifests come from NVIDIA (a mirror's users name their index;
 * PyPI unreachable is then only a warning). */
static void update_index(const cli_opts *o, cudnnctl_update_opts *uo)
{
    uo->index_url = o->index_url;
    if (!uo->index_url && !uo->base) {
        uo->index_url = "https://pypi.org/simple/";
        uo->index_optional = 1;
    }
}

int cmd_update(cli_opts *o, cudnnctl_ctx *ctx)
{
    cudnnctl_update_opts uo;
    memset(&uo, 0, sizeof(uo));
    uo.base = update_base(o);
    uo.cacert = o->cacert;
    uo.allow_manifest_override = o->allow_manifest_override;
    update_index(o, &uo);
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
    if (r && r->index_warning)
        cli_warn(o, "%s", r->index_warning);
    for (size_t i = 0; r && !o->quiet && i < r->n_items; i++)
        if (strcmp(r->items[i].result, "same-archives") == 0)
            cli_warn(o, "%s: other bytes than the pinned ones (%s) but the same archives: the pin "
                        "is kept", r->items[i].name, r->items[i].pinned_from);
    int rc = e == CUDNNCTL_E_OK ? 0 : cli_fail(o, ctx, e);
    cudnnctl_update_result_free(r);
    return rc;
}
