/* cmd_plan.c: the 'plan' command: the archive install would take, the target, the steps, and
 * why — with every rejected candidate (grouped in human output). Writes nothing. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* A group of rejections with the same rule, build and reason (human output only). */
typedef struct {
    const cudnnctl_rejection *first; /* newest */
    const cudnnctl_rejection *last;  /* oldest */
    size_t count;
} rej_group;

static int same_group(const cudnnctl_rejection *a, const cudnnctl_rejection *b)
{
    return strcmp(a->kind, b->kind) == 0 && strcmp(a->reason, b->reason) == 0 &&
           strcmp(a->archive->cuda_variant, b->archive->cuda_variant) == 0 &&
           strcmp(a->archive->platform, b->archive->platform) == 0;
}

static void print_rejections(cli_opts *o, const cudnnctl_plan *p)
{
    if (!p->n_rejected)
        return;
    rej_group *g = calloc(p->n_rejected, sizeof(*g));
    if (!g)
        return;
    size_t ng = 0;
    for (size_t i = 0; i < p->n_rejected; i++) {
        const cudnnctl_rejection *r = &p->rejected[i];
        size_t k = 0;
        if (!o->verbose)
            while (k < ng && !same_group(g[k].first, r))
                k++;
        else
            k = ng;
        if (k == ng)
            g[ng++] = (rej_group){r, r, 0};
        g[k].last = r;
        g[k].count += r->count;
    }
    static const char *const hdr[] = {"  REJECTED", "BUILD", "WHY"};
    cli_table *t = cli_table_new(3, hdr);
    for (size_t k = 0; k < ng; k++) {
        const cudnnctl_archive *a = g[k].first->archive, *z = g[k].last->archive;
        char what[160];
        if (strcmp(g[k].first->kind, "platform") == 0)
            snprintf(what, sizeof(what), "  %s (%zu)", a->platform, g[k].count);
        else if (g[k].count == 1)
            snprintf(what, sizeof(what), "  %s", a->cudnn_version);
        else
            snprintf(what, sizeof(what), "  %s to %s (%zu)", z->cudnn_version, a->cudnn_version,
                     g[k].count);
        char build[32];
        snprintf(build, sizeof(build), "cuda%s", a->cuda_variant);
        const char *row[] = {what, strcmp(g[k].first->kind, "platform") == 0 ? "" : build,
                             g[k].first->reason};
        cli_table_row(t, row);
    }
    printf("\n");
    cli_table_print(t, stdout);
    cli_table_free(t);
    free(g);
}

/* flavor, components and what they install: each selected component's measured bytes, or
 * "not measured". */
static void print_sizes(const cudnnctl_plan *p)
{
    static const char *const names[3] = {"runtime", "dev", "static"};
    const cudnnctl_sizes *z = &p->sizes;
    char comp[40], sz[32];
    cudnnctl_components_text(p->components, comp, sizeof(comp));
    printf("  flavor    %s\n  installs  %s:", cudnnctl_flavor_name(p->flavor), comp);
    for (int i = 0; i < 3; i++) {
        if (!(z->selected & (1u << i)))
            continue;
        if (z->known & (1u << i)) {
            cudnnctl_size_text((double)z->component[i], sz, sizeof(sz));
            printf(" %s %s", names[i], sz);
        } else {
            printf(" %s (not measured)", names[i]);
        }
    }
    if (z->known == z->selected) {
        cudnnctl_size_text((double)z->installed, sz, sizeof(sz));
        printf(" = %s", sz);
    }
    printf("\n");
    if (z->source)
        printf("            (sizes measured from %s)\n", z->source);
}

static void print_plan(cli_opts *o, const cudnnctl_plan *p)
{
    const cudnnctl_archive *a = &p->archive;
    double mib = (double)a->size / (1024.0 * 1024.0);
    printf("cuDNN %s for CUDA %s on %s\n\n", a->cudnn_version, a->cuda_variant, p->platform);
    printf("  archive   %s\n", a->relative_path);
    printf("  sha256    %s\n", a->sha256);
    printf("  size      %llu bytes (%.1f MiB)\n", (unsigned long long)a->size, mib);
    print_sizes(p);
    printf("  url       %s\n", p->url);
    printf("  source    %s: %s\n", cudnnctl_source_name(p->source),
           p->source_reason ? p->source_reason : "");
    printf("  manifest  %s\n", a->manifest ? a->manifest : "-");
    printf("  target    %s %s\n", p->mode == CUDNNCTL_TARGET_PREFIX ? "prefix" : "cuda-tree",
           p->target_path);
    if (p->mode == CUDNNCTL_TARGET_PREFIX)
        printf("  into      %s\n", p->install_dir);
    printf("  headers   %s\n", p->include_dir);
    printf("  libraries %s\n", p->lib_dir);
    if (p->bin_dir)
        printf("  DLLs      %s\n", p->bin_dir);
    printf("  driver    %s%s%s%s\n", p->driver_version ? p->driver_version : "not found",
           p->driver_floor ? " (floor " : "", p->driver_floor ? p->driver_floor : "",
           p->driver_floor ? ")" : "");
    if (p->consumer)
        printf("  for       %s (cuDNN %s)\n", p->consumer, p->consumer_cudnn);
    printf("\nwhy: %s\n\nsteps:\n", p->reason);
    for (size_t i = 0; i < p->n_steps; i++)
        printf("  %zu. %-9s %s\n", i + 1, p->step_names ? p->step_names[i] : "", p->steps[i]);
    print_rejections(o, p);
    fflush(stdout); /* the warnings (stderr) come after the plan, also in a shared pipe */
    for (size_t i = 0; i < p->n_warnings; i++)
        cli_warn(o, "%s", p->warnings[i]);
}

int cmd_plan(cli_opts *o, cudnnctl_ctx *ctx)
{
    cudnnctl_catalog *cat = NULL;
    cudnnctl_detect_result *det = NULL;
    cudnnctl_plan *plan = NULL;
    char *json = NULL;
    if (o->n_args > 0) {
        fprintf(stderr, "cudnnctl: plan takes no arguments (got '%s'); see cudnnctl --help\n",
                o->args[0]);
        return 2;
    }
    int rc = cli_load_catalog(o, ctx, &cat);
    if (rc != 0)
        return rc;
    cudnnctl_err e = cudnnctl_detect(ctx, &det);
    if (e != CUDNNCTL_E_OK) {
        cli_warn(o, "detection failed (%s); planning from the flags alone",
                 cudnnctl_last_error(ctx)->detail);
        det = NULL;
    }
    cudnnctl_selection sel = cli_selection(o);
    e = cudnnctl_plan_make(ctx, cat, det, &sel, &plan);
    if (e != CUDNNCTL_E_OK) {
        rc = cli_fail(o, ctx, e);
        goto out;
    }
    if (o->json) {
        e = cudnnctl_plan_json(plan, &json);
        if (e != CUDNNCTL_E_OK) {
            rc = cli_fail(o, ctx, e);
            goto out;
        }
        cli_print_json(json);
        for (size_t i = 0; i < plan->n_warnings && o->verbose; i++)
            cli_warn(o, "%s", plan->warnings[i]);
    } else {
        print_plan(o, plan);
    }
out:
    cudnnctl_free(json);
    cudnnctl_plan_free(plan);
    cudnnctl_detect_result_free(det);
    cudnnctl_catalog_free(cat);
    return rc;
}
