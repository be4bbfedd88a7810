/* cmd_detect.c: the 'detect' command: CUDA toolkits, driver, cuDNN copies and the platform key,
 * as aligned tables (with notes and problems) or as the JSON document of CLI.md. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static char *sources_text(unsigned sources)
{
    size_t cap = 256, len = 0;
    char *s = malloc(cap);
    if (!s)
        return NULL;
    s[0] = '\0';
    for (unsigned bit = 1; bit && bit <= CUDNNCTL_SRC_DIST_INFO; bit <<= 1) {
        if (!(sources & bit))
            continue;
        const char *n = cudnnctl_detect_source_name(bit);
        int w = snprintf(s + len, cap - len, "%s%s", len ? "," : "", n);
        if (w < 0 || (size_t)w >= cap - len)
            break;
        len += (size_t)w;
    }
    return s;
}

static void print_toolkits(cli_opts *o, const cudnnctl_detect_result *r, FILE *f)
{
    (void)o;
    fprintf(f, "\nCUDA toolkits\n");
    if (r->n_toolkits == 0) {
        fprintf(f, "  none found\n");
        return;
    }
    const char *hdr[] = {"  PATH", "VERSION", "SOURCES", "ORIGIN", "LIB DIR", "ACTIVE"};
    cli_table *t = cli_table_new(6, hdr);
    for (size_t i = 0; i < r->n_toolkits; i++) {
        const cudnnctl_toolkit *k = &r->toolkits[i];
        char path[1024];
        snprintf(path, sizeof(path), "  %s", k->path);
        char *src = sources_text(k->sources);
        const char *cells[] = {path,       k->version_full ? k->version_full : k->version,
                               src,        k->origin,
                               k->lib_dir, k->active ? "yes" : ""};
        cli_table_row(t, cells);
        free(src);
    }
    cli_table_print(t, f);
    cli_table_free(t);
    for (size_t i = 0; i < r->n_toolkits; i++) {
        const cudnnctl_toolkit *k = &r->toolkits[i];
        if (k->active)
            fprintf(f, "  active: %s (%s)\n", k->path, k->active_reason);
        for (size_t a = 0; a < k->n_aliases; a++)
            fprintf(f, "  %s -> %s\n", k->aliases[a], k->path);
    }
}

static void print_driver(const cudnnctl_detect_result *r, FILE *f)
{
    fprintf(f, "\nNVIDIA driver\n");
    if (!r->driver) {
        fprintf(f, "  none found\n");
        return;
    }
    const char *hdr[] = {"  VERSION", "CUDA", "SOURCE"};
    cli_table *t = cli_table_new(3, hdr);
    char ver[64], cuda[64];
    snprintf(ver, sizeof(ver), "  %s", r->driver->version ? r->driver->version : "unknown");
    if (r->driver->cuda_version > 0)
        snprintf(cuda, sizeof(cuda), "%s%d.%d", r->driver->cuda_version_estimated ? ">= " : "",
                 r->driver->cuda_version / 1000, (r->driver->cuda_version % 1000) / 10);
    else
        snprintf(cuda, sizeof(cuda), "unknown");
    const char *cells[] = {ver, cuda, r->driver->source};
    cli_table_row(t, cells);
    cli_table_print(t, f);
    cli_table_free(t);
}

static void print_cudnn(const cudnnctl_detect_result *r, FILE *f)
{
    fprintf(f, "\ncuDNN copies\n");
    if (r->n_cudnn == 0) {
        fprintf(f, "  none found\n");
        return;
    }
    const char *hdr[] = {"  PATH", "VERSION", "ORIGIN", "FROM", "HEADERS", "LIBS", "LOADER"};
    cli_table *t = cli_table_new(7, hdr);
    for (size_t i = 0; i < r->n_cudnn; i++) {
        const cudnnctl_cudnn_copy *c = &r->cudnn[i];
        char path[1024], libs[32];
        snprintf(path, sizeof(path), "  %s", c->path);
        snprintf(libs, sizeof(libs), "%zu", c->n_libs);
        const char *cells[] = {path,
                               c->version,
                               c->origin,
                               c->version_source,
                               c->header_version ? c->header_version : "",
                               libs,
                               c->in_ld_library_path ? "LD_LIBRARY_PATH"
                               : c->in_loader_path   ? "yes"
                                                     : ""};
        cli_table_row(t, cells);
    }
    cli_table_print(t, f);
    cli_table_free(t);
}

static void print_problems(const cudnnctl_detect_result *r, FILE *f)
{
    size_t n = r->n_notes;
    for (size_t i = 0; i < r->n_toolkits; i++)
        n += r->toolkits[i].n_problems;
    for (size_t i = 0; i < r->n_cudnn; i++)
        n += r->cudnn[i].n_problems;
    if (n == 0)
        return;
    fprintf(f, "\nNotes\n");
    for (size_t i = 0; i < r->n_toolkits; i++)
        for (size_t k = 0; k < r->toolkits[i].n_problems; k++)
            fprintf(f, "  - toolkit %s: %s\n", r->toolkits[i].path, r->toolkits[i].problems[k]);
    for (size_t i = 0; i < r->n_cudnn; i++)
        for (size_t k = 0; k < r->cudnn[i].n_problems; k++)
            fprintf(f, "  - cuDNN %s: %s\n", r->cudnn[i].path, r->cudnn[i].problems[k]);
    for (size_t i = 0; i < r->n_notes; i++)
        fprintf(f, "  - %s\n", r->notes[i]);
}

int cmd_detect(cli_opts *o, cudnnctl_ctx *ctx)
{
    cudnnctl_detect_result *r = NULL;
    cudnnctl_err e = cudnnctl_detect(ctx, &r);
    if (e != CUDNNCTL_E_OK)
        return cli_fail(o, ctx, e);
    if (o->json) {
        char *json = NULL;
        e = cudnnctl_detect_result_json(r, &json);
        if (e != CUDNNCTL_E_OK) {
            cudnnctl_detect_result_free(r);
            return cli_fail(o, ctx, e);
        }
        cli_print_json(json);
        cudnnctl_free(json);
    } else { /* the answer: -q hides progress and info, never it */
        FILE *f = stdout;
        fprintf(f, "platform: %s\n", r->platform);
        print_toolkits(o, r, f);
        print_driver(r, f);
        print_cudnn(r, f);
        print_problems(r, f);
    }
    cudnnctl_detect_result_free(r);
    return 0;
}
