/* cmd_mirror.c: the 'mirror' command: copy manifests and archives into a dir for offline /
 * air-gapped installs (`install --mirror DIR --manifest DIR/redistrib_X.json`). */
#include <string.h>

#include "cli.h"

/* cudnnctl_mirror_opts from cli_opts (the flavor apart: by its name) */
#define MO(to, from) CLI_COPY(cudnnctl_mirror_opts, to, from, CLI_COPY_SAME)
static const cli_copy mirror_copy[] = {
    MO(to, to), MO(cudnn, cudnn), MO(cuda, cuda), MO(platform, platform),
    MO(all_platforms, all_platforms), MO(all_versions, all), MO(source, mirror),
    MO(cacert, cacert), MO(connections, connections),
    MO(allow_manifest_override, allow_manifest_override), MO(for_pkg, for_pkg),
};

int cmd_mirror(cli_opts *o, cudnnctl_ctx *ctx)
{
    if (o->n_args || !o->to) {
        fprintf(stderr, "cudnnctl: usage: cudnnctl mirror --to DIR --cudnn V [--cuda M] "
                        "[--platform P | --all-platforms] [--all] [--manifest F|URL] "
                        "[--mirror URL|DIR (upstream)]\n");
        return 2;
    }
    cudnnctl_catalog *cat = NULL;
    int rc = cli_load_catalog(o, ctx, &cat);
    if (rc != 0)
        return rc;
    cudnnctl_mirror_opts mo;
    memset(&mo, 0, sizeof(mo));
    cli_copy_opts(&mo, o, mirror_copy, sizeof(mirror_copy) / sizeof(mirror_copy[0]));
    mo.flavor = cudnnctl_flavor_name(o->flavor);
    cudnnctl_mirror_result *r = NULL;
    cudnnctl_err e = cudnnctl_mirror(ctx, cat, &mo, &r);
    if (o->json && r) {
        char *json = NULL;
        if (cudnnctl_mirror_result_json(r, &json) == CUDNNCTL_E_OK)
            cli_print_json(json);
        cudnnctl_free(json);
    } else if (r && !o->quiet) {
        for (size_t i = 0; i < r->n_manifests; i++)
            printf("manifest  %s\n", r->manifests[i]);
        const char *hdr[] = {"archive", "cuDNN", "CUDA", "platform", "size", "result"};
        cli_table *t = cli_table_new(6, hdr);
        for (size_t i = 0; i < r->n_items; i++) {
            const cudnnctl_mirror_item *it = &r->items[i];
            char size[32];
            snprintf(size, sizeof(size), "%.1f MiB", (double)it->size / 1048576.0);
            const char *cells[] = {it->path, it->cudnn_version, it->cuda_variant, it->platform,
                                   size,     it->result};
            cli_table_row(t, cells);
        }
        cli_table_print(t, stdout);
        cli_table_free(t);
        printf("%.1f MiB downloaded in %.1f s into %s\n", (double)r->bytes_downloaded / 1048576.0,
               r->seconds, r->dir ? r->dir : "?");
        if (e == CUDNNCTL_E_OK && r->n_manifests)
            printf("offline install: cudnnctl install --mirror %s --manifest %s ...\n", r->dir,
                   r->manifests[0]);
    }
    rc = e == CUDNNCTL_E_OK ? 0 : cli_fail(o, ctx, e);
    cudnnctl_mirror_result_free(r);
    cudnnctl_catalog_free(cat);
    return rc;
}
