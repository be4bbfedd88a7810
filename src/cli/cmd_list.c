/* cmd_list.c: the 'list' command — installs made by cudnnctl, from their receipts. */
#include <stdlib.h>

#include "cli.h"

const char *cli_undo_target(cli_opts *o);

int cmd_list(cli_opts *o, cudnnctl_ctx *ctx)
{
    cudnnctl_install_list *l = NULL;
    cudnnctl_err e = cudnnctl_list(ctx, cli_undo_target(o), &l);
    if (e != CUDNNCTL_E_OK) {
        cudnnctl_install_list_free(l);
        return cli_fail(o, ctx, e);
    }
    if (o->json) {
        char *js = NULL;
        e = cudnnctl_install_list_json(l, &js);
        if (e == CUDNNCTL_E_OK)
            cli_print_json(js);
        cudnnctl_free(js);
    } else if (l->n_items == 0) {
        cli_info(o, "no installs made by cudnnctl");
    } else {
        static const char *const hdr[] = {"ID",     "CUDNN",      "CUDA", "FLAVOR", "COMPONENTS",
                                          "MODE",   "INSTALLED IN", "DATE", "ACTIVE"};
        cli_table *t = cli_table_new(9, hdr);
        for (size_t i = 0; i < l->n_items; i++) {
            const cudnnctl_install_record *it = &l->items[i];
            char comp[40];
            cudnnctl_components_text(it->components, comp, sizeof(comp));
            const char *row[] = {it->id,
                                 it->cudnn_version,
                                 it->cuda_variant,
                                 cudnnctl_flavor_name(it->flavor),
                                 comp,
                                 it->mode != CUDNNCTL_TARGET_PREFIX ? "cuda-tree"
                                 : it->direct                       ? "prefix (no link)"
                                                                    : "prefix",
                                 it->install_dir ? it->install_dir : it->target_path,
                                 it->installed_at,
                                 it->active ? (it->verified ? "yes" : "yes (unverified)")
                                            : (it->verified ? "no" : "no (unverified)")};
            cli_table_row(t, row);
        }
        cli_table_print(t, stdout);
        cli_table_free(t);
        size_t n_direct = 0;
        for (size_t i = 0; i < l->n_items; i++)
            n_direct += l->items[i].direct;
        if (n_direct)
            cli_info(o, "prefix (no link): the prefix's filesystem holds no directory junction, "
                        "so there is no PREFIX/current; the environment names the active "
                        "install's own dir ('cudnnctl use --prefix DIR --cudnn V' switches it)");
    }
    if (l->pending_journal)
        cli_warn(o,
                 "an interrupted install/uninstall left %s: the next install, uninstall or "
                 "rollback settles it",
                 l->pending_journal);
    cudnnctl_install_list_free(l);
    return e == CUDNNCTL_E_OK ? 0 : cli_fail(o, ctx, e);
}
