/* trust_refuse.c: the refusal that install and mirror share when the catalog's added manifests
 * contradict NVIDIA's (the disagreements come from catalog_trust.c's scan, kept by catalog.c). */
#include "trust.h"

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
