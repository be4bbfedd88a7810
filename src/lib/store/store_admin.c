/* store_admin.c: what the unpacked store holds, for `cudnnctl cache list|verify|clean`: each
 * entry (its archive's SHA-256, the bytes its manifest lists, its last use), fills that never
 * finished (a killed install's tmp dirs) and quarantined entries. */
#include <stdlib.h>
#include <string.h>

#include "store.h"

/* Bytes of an entry's files by its manifest; 0 when it cannot be read. */
static uint64_t entry_bytes(cudnnctl_ctx *ctx, const char *dir)
{
    cc_store_entry e = {0};
    char *man = cc_path_join(dir, "manifest.json");
    uint64_t n = 0;
    if (man && cc_store_manifest_read(ctx, man, &e) == CUDNNCTL_E_OK)
        for (size_t i = 0; i < e.n; i++)
            n += e.files[i].type == CC_ST_FILE ? e.files[i].size : 0;
    cc_clear_error(ctx);
    free(man);
    cc_store_entry_free(&e);
    return n;
}

static int scan_dir(cudnnctl_ctx *ctx, const char *dir, const char *kind, cc_store_list_cb cb,
                    void *user)
{
    cc_pf_dir *d = cc_pf_opendir_nofollow(dir);
    if (!d)
        return 0;
    const char *nm;
    int rc = 0;
    while (rc == 0 && (nm = cc_pf_readdir(d)) != NULL) {
        char *p = cc_path_join(dir, nm);
        cc_pf_stat_t st;
        if (!p) {
            rc = -1;
            break;
        }
        if (cc_pf_lstat(p, &st) == 0 && st.exists) {
            char sha[65] = "";
            if (strlen(nm) > 64 && nm[64] == '-')
                memcpy(sha, nm, 64);
            uint64_t size = strcmp(kind, "store") == 0 && st.is_dir ? entry_bytes(ctx, p) : st.size;
            rc = cb(user, p, kind, *sha ? sha : NULL, size, st.mtime);
        }
        free(p);
    }
    cc_pf_closedir(d);
    return rc;
}

int cc_store_scan(cudnnctl_ctx *ctx, cc_store_list_cb cb, void *user)
{
    static const struct {
        const char *sub, *kind;
    } parts[] = {{"v1", "store"}, {"tmp", "store-partial"}, {"quarantine", "store-quarantine"}};
    char *root = cc_store_root(ctx);
    int rc = root ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < sizeof(parts) / sizeof(parts[0]); i++) {
        char *dir = cc_path_join(root, parts[i].sub);
        rc = !dir || scan_dir(ctx, dir, parts[i].kind, cb, user) ? -1 : 0;
        free(dir);
    }
    free(root);
    return rc;
}

int cc_store_verify_dir(cudnnctl_ctx *ctx, const char *dir)
{
    cc_store_entry e = {0};
    char *man = cc_path_join(dir, "manifest.json");
    e.tree = cc_path_join(dir, "tree");
    int ok = man && e.tree && cc_store_manifest_read(ctx, man, &e) == CUDNNCTL_E_OK &&
             cc_store_verify(ctx, &e) == 0;
    cc_clear_error(ctx);
    free(man);
    cc_store_entry_free(&e);
    return ok;
}
