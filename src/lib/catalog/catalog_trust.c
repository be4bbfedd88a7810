/* catalog_trust.c: manifest trust — an added manifest (a mirror's, a file, a URL) that gives an
 * archive file name NVIDIA's embedded catalog knows another SHA-256 or size is tampered with or
 * describes a repack. Each disagreement is recorded with both values and both sources and
 * warned about at once (a warning -q does not hide); install refuses to use a catalog that has
 * any unless told --allow-manifest-override (docs/security.md, "Manifest trust"). */
#include <stdlib.h>
#include <string.h>

#include "catalog_model.h"
#include "trust.h"

static int embedded(const cudnnctl_archive *a)
{
    return a->manifest && cc_str_starts(a->manifest, "embedded:");
}

static int disagree(const cudnnctl_archive *a, const cudnnctl_archive *b)
{
    return strcmp(a->sha256, b->sha256) != 0 || a->size != b->size;
}

int cc_catalog_trust_scan(cudnnctl_ctx *ctx, const cc_archive_vec *v, cc_strv *found)
{
    for (size_t i = 0; i < v->n; i++) {
        const cudnnctl_archive *e = &v->v[i];
        if (!embedded(e))
            continue;
        const char *name = cc_path_base(e->relative_path);
        for (size_t k = 0; k < v->n; k++) {
            const cudnnctl_archive *m = &v->v[k];
            if (embedded(m) || !disagree(e, m) ||
                strcmp(cc_path_base(m->relative_path), name) != 0)
                continue;
            char *msg = cc_asprintf(
                "manifest %s gives %s SHA-256 %s and size %llu, but NVIDIA's manifest %s (embedded) "
                "gives SHA-256 %s and size %llu",
                m->manifest ? m->manifest : "(unnamed)", name, m->sha256,
                (unsigned long long)m->size, e->manifest + strlen("embedded:"), e->sha256,
                (unsigned long long)e->size);
            if (!msg)
                return -1;
            if (cc_strv_contains(found, msg)) {
                free(msg);
                continue;
            }
            cc_event(ctx, CUDNNCTL_EV_WARNING, msg, NULL);
            if (cc_strv_push_own(found, msg) != 0)
                return -1;
        }
    }
    return 0;
}

/* The refusal install and mirror share (trust.h). */
cudnnctl_err cc_catalog_trust_refuse(cudnnctl_ctx *ctx, const cudnnctl_catalog *cat,
                                     const char *done, const char *way_out)
{
    size_t n = cudnnctl_catalog_conflict_count(cat);
    if (!n)
        return CUDNNCTL_E_OK;
    CC_RET_ERR(ctx, CUDNNCTL_E_MANIFEST_CONFLICT,
               "%s%s. A manifest that contradicts NVIDIA's own is tampered with or describes "
               "repacked archives: nothing was %s. Use NVIDIA's manifest (or none), or %s",
               cudnnctl_catalog_conflict(cat, 0),
               n > 1 ? " (and more: see the warnings above)" : "", done, way_out);
}
