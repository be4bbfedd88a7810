/* cmd_available.c: the 'available' command: what the catalog (embedded manifests + --manifest)
 * offers, filtered by --platform (default: this machine's), --cuda and --cudnn. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* manifest-base-url (configuration): the manifest of the release --cudnn names
 * (BASE/redistrib_X.Y.Z.json) when the catalog does not have it yet. */
cudnnctl_err cli_add_base_manifest(cli_opts *o, cudnnctl_ctx *ctx, cudnnctl_catalog *cat)
{
    const char *base = cli_config_get("manifest-base-url");
    unsigned a, b, c = 0;
    char tail[8] = "";
    if (!base || !o->cudnn)
        return CUDNNCTL_E_OK;
    int n = sscanf(o->cudnn, "%u.%u.%u%7s", &a, &b, &c, tail);
    if (n != 2 && n != 3)
        return CUDNNCTL_E_OK; /* a series (9, 9.19.x) or one build: nothing to add */
    char name[64], url[2048];
    snprintf(name, sizeof(name), "redistrib_%u.%u.%u.json", a, b, c);
    for (size_t i = 0; i < cudnnctl_catalog_count(cat); i++) {
        const char *m = cudnnctl_catalog_get(cat, i)->manifest;
        size_t lm = m ? strlen(m) : 0, ln = strlen(name);
        if (lm >= ln && strcmp(m + lm - ln, name) == 0)
            return CUDNNCTL_E_OK;
    }
    size_t lb = strlen(base);
    snprintf(url, sizeof(url), "%s%s%s", base, lb && base[lb - 1] == '/' ? "" : "/", name);
    return cudnnctl_catalog_add_manifest(ctx, cat, url);
}

int cli_load_catalog(cli_opts *o, cudnnctl_ctx *ctx, cudnnctl_catalog **out)
{
    cudnnctl_err e = cudnnctl_catalog_load(ctx, out);
    if (e == CUDNNCTL_E_OK)
        e = cli_add_base_manifest(o, ctx, *out);
    if (e != CUDNNCTL_E_OK) {
        cudnnctl_catalog_free(*out);
        *out = NULL;
        return cli_fail(o, ctx, e);
    }
    for (int i = 0; i < o->n_manifests; i++) {
        e = cudnnctl_catalog_add_manifest(ctx, *out, o->manifests[i]);
        if (e != CUDNNCTL_E_OK) {
            cudnnctl_catalog_free(*out);
            *out = NULL;
            return cli_fail(o, ctx, e);
        }
    }
    return 0;
}

/* The installed size of the selection: "884.7 MiB", "884.7 MiB + static ?" when a selected
 * component was never measured, "?" when nothing of this archive was. */
static void installed_text(const cudnnctl_sizes *z, char *buf, size_t n)
{
    if (!z->known) {
        snprintf(buf, n, "?");
        return;
    }
    char sz[32], miss[40] = "";
    cudnnctl_size_text((double)z->installed, sz, sizeof(sz));
    cudnnctl_components unknown = z->selected & ~z->known;
    if (unknown)
        cudnnctl_components_text(unknown, miss, sizeof(miss));
    snprintf(buf, n, "%s%s%s%s", sz, unknown ? " + " : "", miss, unknown ? " ?" : "");
}

/* What the catalog holds beyond the embedded manifests, and how old it is. */
static void print_catalog_age(cli_opts *o, cudnnctl_ctx *ctx)
{
    cudnnctl_catalog_info ci;
    if (cudnnctl_catalog_info_get(ctx, &ci) != CUDNNCTL_E_OK)
        return;
    if (ci.updated_at)
        fprintf(stderr, "catalog: %zu embedded + %zu from `cudnnctl update` (last run %s from %s, "
                        "%ld days ago; newest %s)\n",
                ci.embedded, ci.stored, ci.updated_at, ci.source ? ci.source : "?", ci.age_days,
                ci.stored_newest ? ci.stored_newest : ci.embedded_newest);
    else
        fprintf(stderr, "catalog: %zu embedded manifests, never updated (newest %s of %s, %ld "
                        "days ago): `cudnnctl update` fetches newer ones\n",
                ci.embedded, ci.embedded_newest, ci.embedded_date ? ci.embedded_date : "?",
                ci.age_days);
    (void)o;
    cudnnctl_catalog_info_clear(&ci);
}

/* The table (on stdout); returns 1 when some INSTALLED is partly or wholly unknown. */
static int print_table(const cli_opts *o, const cudnnctl_archive **v, size_t n)
{
    static const char *const hdr[] = {"CUDNN", "CUDA",     "PLATFORM", "DOWNLOAD",
                                      "INSTALLED", "RELEASED", "FILE"};
    cli_table *t = cli_table_new(7, hdr);
    int unmeasured = 0;
    for (size_t i = 0; i < n; i++) {
        char sz[32], inst[64];
        cudnnctl_sizes z;
        cudnnctl_archive_sizes(v[i], o->components, &z);
        cudnnctl_size_text((double)v[i]->size, sz, sizeof(sz));
        installed_text(&z, inst, sizeof(inst));
        unmeasured |= z.selected & ~z.known ? 1 : 0;
        const char *base = strrchr(v[i]->relative_path, '/');
        const char *row[] = {v[i]->cudnn_version, v[i]->cuda_variant, v[i]->platform, sz, inst,
                             v[i]->release_date, base ? base + 1 : v[i]->relative_path};
        cli_table_row(t, row);
    }
    if (n)
        cli_table_print(t, stdout);
    cli_table_free(t);
    return unmeasured;
}

int cmd_available(cli_opts *o, cudnnctl_ctx *ctx)
{
    cudnnctl_catalog *cat = NULL;
    cudnnctl_detect_result *det = NULL;
    const cudnnctl_archive **v = NULL;
    char *json = NULL;
    size_t n = 0;
    int rc = cli_load_catalog(o, ctx, &cat);
    if (rc != 0)
        return rc;
    const char *platform = o->platform;
    if (!platform) {
        /* only the platform key is needed; a failed scan just means "every platform" */
        if (cudnnctl_detect(ctx, &det) == CUDNNCTL_E_OK && det->platform)
            platform = det->platform;
    }
    cudnnctl_catalog_filter f = {o->cudnn, o->cuda, platform, cudnnctl_flavor_name(o->flavor)};
    cudnnctl_err e;
    if (o->json) {
        e = cudnnctl_catalog_json(ctx, cat, &f, &json);
        if (e != CUDNNCTL_E_OK) {
            rc = cli_fail(o, ctx, e);
            goto out;
        }
        cli_print_json(json);
        goto out;
    }
    e = cudnnctl_catalog_query(ctx, cat, &f, &v, &n);
    if (e != CUDNNCTL_E_OK) {
        rc = cli_fail(o, ctx, e);
        goto out;
    }
    int unmeasured = print_table(o, v, n);
    if (!o->quiet)
        fprintf(stderr, "%zu archive%s from %zu manifests (platform %s%s)\n", n, n == 1 ? "" : "s",
                cudnnctl_catalog_manifest_count(cat), platform ? platform : "all",
                platform && !o->platform ? "; --platform all lists every platform" : "");
    if (n && !o->quiet) {
        char comp[40];
        cudnnctl_components_text(o->components ? o->components : CUDNNCTL_COMPONENTS_ALL, comp,
                                 sizeof(comp));
        fprintf(stderr, "flavor %s, components %s: DOWNLOAD is the whole archive; INSTALLED what "
                        "the components take%s (docs/sizes.md)\n",
                cudnnctl_flavor_name(o->flavor), comp,
                unmeasured ? ", '?' where no measurement of that archive exists" : "");
    }
    if (!o->quiet)
        print_catalog_age(o, ctx);
    if (o->cudnn && n && !o->quiet) {
        /* what --cudnn means here, resolved as plan, install, mirror and uninstall do */
        const char **names = malloc(n * sizeof(*names));
        for (size_t i = 0; names && i < n; i++)
            names[i] = v[i]->cudnn_version;
        long b = names ? cudnnctl_cudnn_resolve(o->cudnn, names, n) : -1;
        if (b >= 0)
            fprintf(stderr, "--cudnn %s takes %s from these (as plan, install, mirror and "
                            "uninstall do)\n", o->cudnn, names[b]);
        free(names);
    }
out:
    free(v);
    cudnnctl_free(json);
    cudnnctl_detect_result_free(det);
    cudnnctl_catalog_free(cat);
    return rc;
}
