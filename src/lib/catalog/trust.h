/* trust.h: manifest trust for the stages that use a catalog (install, mirror); the scan itself is
 * catalog_trust.c's, and so is the refusal (docs/security.md, "Manifest trust"). */
#ifndef CUDNNCTL_TRUST_H
#define CUDNNCTL_TRUST_H

#include "internal.h"

/* CUDNNCTL_E_MANIFEST_CONFLICT naming the catalog's first disagreement when it has any, else OK.
 * `done`: what did not happen ("installed"); `way_out`: the sentence after "or " that names
 * --allow-manifest-override for this command. */
cudnnctl_err cc_catalog_trust_refuse(cudnnctl_ctx *ctx, const cudnnctl_catalog *cat,
                                     const char *done, const char *way_out);

/* A manifest of the catalog's store (origin "catalog:<name>") that `update
 * --allow-manifest-override` accepted over its pin: what it replaced (for the receipt), else
 * NULL. */
const char *cc_catalog_override_note(const cudnnctl_catalog *cat, const char *origin);

#endif
