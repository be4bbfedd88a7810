/* inuse.c: files another process holds (Windows). A loaded DLL (cudnn64_9.dll in a Python kernel,
 * an IDE, a service) can be neither replaced nor deleted there, but it can be renamed inside its
 * directory. So a replace that fails moves the old file aside under a name the journal derives
 * (DIR/.cudnnctl-<txn>-old-<base>, cc_txn_temp_name(t, dst, "old")), puts the new file in place,
 * and whatever cannot be deleted afterwards (that aside name, backups that are hard links of a
 * loaded file) is queued: STATE/cleanup.json, which every later run empties as far as it can,
 * and — in an elevated process — MoveFileExW(DELAY_UNTIL_REBOOT). Only when even the rename fails
 * does the error say "close X (pid N) or reboot to finish". Linux never gets here (rename(2)
 * replaces an open or mapped file). */
#include "inuse.h"

#include "confine.h"

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "json.h"

#define CLEANUP_FILE "cleanup.json"

/* "python.exe (pid 1234), code.exe (pid 77)" or NULL when nobody is known (malloc'd). */
static char *holders(const char *path)
{
    char **u = cc_pf_file_users(path);
    cc_buf b = {0};
    for (size_t i = 0; u && u[i]; i++) {
        if (i)
            cc_buf_puts(&b, ", ");
        cc_buf_puts(&b, u[i]);
        free(u[i]);
    }
    free(u);
    return b.data;
}

/* Who holds what is left of a directory that could not be removed (a prefix's version dir with a
 * loaded DLL, renamed aside first): its files, each also under @p orig, the name it was loaded
 * by. Depth-limited; NULL when nobody is known. */
static char *dir_holders(const char *path, const char *orig, int depth)
{
    cc_pf_dir *d = depth < 4 ? cc_pf_opendir(path) : NULL;
    const char *name;
    char *who = NULL;
    while (d && !who && (name = cc_pf_readdir(d)) != NULL) {
        char *p = cc_path_join(path, name), *o = orig ? cc_path_join(orig, name) : NULL;
        cc_pf_stat_t st;
        if (p && cc_pf_lstat(p, &st) == 0 && st.is_dir && !st.is_link) {
            who = dir_holders(p, o, depth + 1);
        } else {
            who = p ? holders(p) : NULL;
            if (!who && o)
                who = holders(o);
        }
        free(p);
        free(o);
    }
    if (d)
        cc_pf_closedir(d);
    return who;
}

static int in_use_error(cudnnctl_err e)
{
    return e == CUDNNCTL_E_PERMISSION;
}

int cc_inuse_replace(cudnnctl_ctx *ctx, const cc_txn *t, const cc_op *op)
{
    if (!cc_host_is_windows(ctx) || op->type != CC_OBJ_FILE ||
        cc_txn_kind(op->dst) != CC_OBJ_FILE || !in_use_error(cc_pf_last_error()))
        return 1;
    char *who = holders(op->dst), *aside = cc_txn_temp_name(t, op->dst, "old");
    char *shown = cc_unrooted(ctx, op->dst);
    int rc = -1;
    if (!aside || !shown) {
        CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    } else if (cc_sys_rename(ctx, op->dst, aside) != 0) {
        cc_set_error(ctx, CUDNNCTL_E_PERMISSION, __func__, __FILE__, __LINE__,
                     "cannot replace %s: it is in use%s%s and cannot even be renamed; %s%s or "
                     "reboot to finish",
                     shown, who ? " by " : "", who ? who : "",
                     who ? "close " : "close the program using it", who ? who : "");
    } else if (cc_sys_rename(ctx, op->tmp, op->dst) != 0) {
        CC_ERR_PF(ctx, "cannot rename into place", op->dst);
        cc_sys_rename(ctx, aside, op->dst); /* the old file back; else rollback does it */
    } else {
        cc_log(ctx, CUDNNCTL_LOG_WARN,
               "%s is in use%s%s: the old file was renamed to %s beside it and is deleted once "
               "it is free (next cudnnctl run, or at reboot)",
               shown, who ? " by " : "", who ? who : "", cc_path_base(aside));
        cc_event(ctx, CUDNNCTL_EV_WARNING, "file in use: replaced, the old one is renamed aside",
                 shown);
        rc = 0;
    }
    free(who);
    free(aside);
    free(shown);
    return rc;
}

static cJSON *load_list(cudnnctl_ctx *ctx, const char *file)
{
    char *data = NULL;
    size_t len = 0;
    cJSON *doc = NULL;
    if (cc_txn_kind(file) == CC_OBJ_FILE &&
        cc_sys_read_trusted(ctx, file, 1 << 20, &data, &len) == 0)
        doc = cJSON_Parse(data);
    free(data);
    cJSON *files = cJSON_GetObjectItemCaseSensitive(doc, "files");
    if (!cJSON_IsArray(files)) {
        cJSON_Delete(doc);
        doc = cJSON_CreateObject();
        if (doc && !cJSON_AddArrayToObject(doc, "files")) {
            cJSON_Delete(doc);
            doc = NULL;
        }
    }
    return doc;
}

static int save_list(cudnnctl_ctx *ctx, const char *file, cJSON *doc)
{
    if (cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(doc, "files")) == 0)
        return cc_txn_kind(file) == CC_OBJ_NONE ? 0 : cc_sys_unlink(ctx, file);
    char *text = cJSON_Print(doc);
    int rc = text ? cc_sys_write_file_atomic(ctx, file, text, strlen(text), 0644) : -1;
    free(text);
    return rc;
}

int cc_inuse_remove(cudnnctl_ctx *ctx, const char *state_dir, const char *path, const char *orig)
{
    if (cc_txn_kind(path) == CC_OBJ_NONE || cc_sys_rm_rf(ctx, path) == 0)
        return 0;
    if (!cc_host_is_windows(ctx) || !in_use_error(cc_pf_last_error()) || !state_dir)
        return -1;
    char *who = holders(path), *shown = cc_unrooted(ctx, path);
    if (!who && orig)
        who = holders(orig);
    if (!who && cc_txn_kind(path) == CC_OBJ_DIR)
        who = dir_holders(path, orig, 0);
    char *file = cc_path_join(state_dir, CLEANUP_FILE);
    cJSON *doc = file ? load_list(ctx, file) : NULL;
    cJSON *files = cJSON_GetObjectItemCaseSensitive(doc, "files"), *it;
    int known = 0, rc = -1;
    cJSON_ArrayForEach(it, files) known |= cJSON_IsString(it) && strcmp(it->valuestring, path) == 0;
    if (doc && (known || cJSON_AddItemToArray(files, cJSON_CreateString(path))) &&
        save_list(ctx, file, doc) == 0) {
        int reboot = cc_pf_is_root() && cc_pf_delete_on_reboot(path) == 0;
        cc_log(ctx, CUDNNCTL_LOG_WARN,
               "%s is in use%s%s: left for the next cudnnctl run to delete%s", shown ? shown : path,
               who ? " by " : "", who ? who : "",
               reboot ? " (and queued for deletion at reboot)" : "");
        rc = 0;
    }
    cJSON_Delete(doc);
    free(file);
    free(who);
    free(shown);
    return rc;
}

void cc_inuse_sweep(cudnnctl_ctx *ctx, const char *state_dir)
{
    char *file = cc_path_join(state_dir, CLEANUP_FILE);
    if (!file || cc_txn_kind(file) == CC_OBJ_NONE) {
        free(file);
        return;
    }
    cJSON *doc = load_list(ctx, file);
    cJSON *files = cJSON_GetObjectItemCaseSensitive(doc, "files");
    for (int i = cJSON_GetArraySize(files) - 1; i >= 0; i--) {
        const char *p = cJSON_GetStringValue(cJSON_GetArrayItem(files, i));
        if (p && !cc_confine_cleanup(ctx, state_dir, p)) {
            cc_event(ctx, CUDNNCTL_EV_WARNING,
                     "the cleanup list names a path that is neither in the state dir nor one of "
                     "cudnnctl's temp names: not deleted (another user may have forged it)",
                     p);
            cJSON_DeleteItemFromArray(files, i);
            continue;
        }
        if (!p || cc_txn_kind(p) == CC_OBJ_NONE || cc_sys_rm_rf(ctx, p) == 0) {
            if (p)
                cc_log(ctx, CUDNNCTL_LOG_INFO, "deleted %s, left by an earlier run while in use",
                       p);
            cJSON_DeleteItemFromArray(files, i);
        }
    }
    if (doc)
        save_list(ctx, file, doc);
    cJSON_Delete(doc);
    free(file);
}
