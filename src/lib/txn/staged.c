/* staged.c: the list of what a staging tree holds (type, mode, size, SHA-256, link target). */
#include <stdlib.h>
#include <string.h>

#include "staged.h"
#include "dirops.h"
#include "grow.h"
#include "hash.h"

void cc_tree_free(cc_tree *t)
{
    for (size_t i = 0; i < t->n; i++) {
        free(t->v[i].rel);
        free(t->v[i].link_target);
    }
    free(t->v);
    memset(t, 0, sizeof(*t));
}

static const cc_staged_file *known_file(const cc_staging *known, const char *rel)
{
    if (!known)
        return NULL;
    for (size_t i = 0; i < known->n_files; i++)
        if (known->files[i].path && strcmp(known->files[i].path, rel) == 0)
            return &known->files[i];
    return NULL;
}

static cudnnctl_err push(cudnnctl_ctx *ctx, cc_tree *t, cc_item *it)
{
    if (cc_grow(&t->v, &t->cap, t->n + 1, sizeof(*t->v)) != 0)
        CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    t->v[t->n++] = *it;
    return CUDNNCTL_E_OK;
}

static cudnnctl_err walk(cudnnctl_ctx *ctx, const char *root, const char *rel,
                         const cc_staging *known, cc_tree *out)
{
    char *dir = rel ? cc_path_join(root, rel) : cc_strdup(root);
    cc_strv names = {0};
    if (!dir)
        CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    cudnnctl_err rc = cc_dir_names_sorted(ctx, dir, &names);
    for (size_t i = 0; rc == CUDNNCTL_E_OK && i < names.n; i++) {
        cc_item it = {0};
        it.rel = rel ? cc_path_join(rel, names.v[i]) : cc_strdup(names.v[i]);
        char *path = cc_path_join(dir, names.v[i]);
        cc_pf_stat_t st;
        if (!it.rel || !path) {
            free(it.rel);
            free(path);
            rc = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
            break;
        }
        if (cc_pf_lstat(path, &st) != 0 || !st.exists) {
            rc = CC_ERR_PF(ctx, "cannot stat", path);
        } else if (st.is_link) {
            it.type = CC_OBJ_LINK;
            it.link_target = cc_pf_readlink(path);
            if (!it.link_target)
                rc = CC_ERR_PF(ctx, "cannot read link", path);
        } else if (st.is_dir) {
            it.type = CC_OBJ_DIR;
            it.mode = st.mode;
        } else if (st.is_reg) {
            it.type = CC_OBJ_FILE;
            it.mode = st.mode;
            it.size = st.size;
            const cc_staged_file *k = known_file(known, it.rel);
            if (k && !k->is_link && k->size == st.size && cc_sha256_is_hex(k->sha256)) {
                memcpy(it.sha256, k->sha256, 65);
            } else {
                uint64_t sz = 0;
                if (cc_sha256_file(ctx, path, it.sha256, &sz) != 0)
                    rc = CC_ERR_PF(ctx, "cannot hash", path);
            }
            out->bytes += st.size;
        } else {
            rc = CC_ERR(ctx, CUDNNCTL_E_UNSAFE_ARCHIVE,
                        "%s in staging is not a file, link or directory", it.rel);
        }
        free(path);
        if (rc != CUDNNCTL_E_OK) {
            free(it.rel);
            free(it.link_target);
            break;
        }
        char *sub = it.type == CC_OBJ_DIR ? cc_strdup(it.rel) : NULL;
        rc = push(ctx, out, &it);
        if (rc != CUDNNCTL_E_OK) {
            free(it.rel);
            free(it.link_target);
        } else if (sub) {
            rc = walk(ctx, root, sub, known, out);
        }
        free(sub);
    }
    cc_strv_free(&names);
    free(dir);
    return rc;
}

cudnnctl_err cc_tree_scan(cudnnctl_ctx *ctx, const char *root, const cc_staging *known,
                          cc_tree *out)
{
    memset(out, 0, sizeof(*out));
    cudnnctl_err rc = walk(ctx, root, NULL, known, out);
    if (rc != CUDNNCTL_E_OK)
        cc_tree_free(out);
    return rc;
}
