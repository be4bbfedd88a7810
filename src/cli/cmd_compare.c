/* cmd_compare.c: the 'compare' command: drift between environment records (`cudnnctl report`
 * files) as an item x host table, drifting rows marked. Exit 0 when the records agree, 1 when
 * something drifts, 2 for usage errors and files that are not reports (docs/formats.md). */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static void print_table(cli_opts *o, const cudnnctl_compare_result *r)
{
    (void)o; /* every row, also under -q: the table is the answer */
    int ncols = (int)r->n_hosts + 2;
    const char **cells = calloc((size_t)ncols, sizeof(char *));
    if (!cells)
        return;
    cells[0] = "";
    cells[1] = "item";
    for (size_t h = 0; h < r->n_hosts; h++)
        cells[h + 2] = r->hosts[h];
    cli_table *t = cli_table_new(ncols, cells);
    for (size_t i = 0; i < r->n_items; i++) {
        const cudnnctl_compare_item *it = &r->items[i];
        cells[0] = it->drift ? "*" : "";
        cells[1] = it->item;
        for (size_t h = 0; h < r->n_hosts; h++)
            cells[h + 2] = it->values[h];
        cli_table_row(t, cells);
    }
    cli_table_print(t, stdout);
    cli_table_free(t);
    free(cells);
    if (r->n_drift)
        printf("%zu of %zu items drift across %zu hosts (marked *)\n", r->n_drift, r->n_items,
               r->n_hosts);
    else
        printf("identical: %zu items agree across %zu hosts\n", r->n_items, r->n_hosts);
}

int cmd_compare(cli_opts *o, cudnnctl_ctx *ctx)
{
    if (o->n_args < 2) {
        fprintf(stderr, "cudnnctl: compare takes two or more report files (cudnnctl report > "
                        "host.json on each host)\n");
        return 2;
    }
    cudnnctl_compare_result *r = NULL;
    cudnnctl_err e =
        cudnnctl_compare_files(ctx, (const char *const *)o->args, (size_t)o->n_args, &r);
    if (e != CUDNNCTL_E_OK) {
        cli_fail(o, ctx, e);
        return e == CUDNNCTL_E_NOMEM ? 1 : 2; /* a missing or foreign file: bad arguments */
    }
    if (o->json) {
        char *json = NULL;
        if ((e = cudnnctl_compare_result_json(r, &json)) != CUDNNCTL_E_OK) {
            cudnnctl_compare_result_free(r);
            return cli_fail(o, ctx, e);
        }
        cli_print_json(json);
        cudnnctl_free(json);
    } else {
        print_table(o, r);
    }
    int rc = r->n_drift ? 1 : 0;
    cudnnctl_compare_result_free(r);
    return rc;
}
