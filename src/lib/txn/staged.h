/* staged.h: the list of what a staging tree holds (staged.c), which the commit planners place. */
#ifndef CC_STAGED_H
#define CC_STAGED_H

#include "extract.h"
#include "internal.h"
#include "txfs.h"

/* One entry of a staged tree. */
typedef struct {
    char *rel; /* '/'-separated path under the staging root ("lib/libcudnn.so.9") */
    cc_obj_type type;
    uint32_t mode;
    uint64_t size;
    char sha256[65];   /* files */
    char *link_target; /* links */
} cc_item;

typedef struct {
    cc_item *v;
    size_t n, cap;
    uint64_t bytes; /* regular-file bytes */
} cc_tree;

/* Walk a staged tree (parents before children, names sorted). File hashes come from `known`
 * (the extractor's list) where it has them, else the file is hashed. */
cudnnctl_err cc_tree_scan(cudnnctl_ctx *ctx, const char *root, const cc_staging *known,
                          cc_tree *out);
void cc_tree_free(cc_tree *t);

#endif
