/* detect_receipts.c: the lib dirs of the installs cudnnctl made itself, as their receipts in the
 * state dir name them (STATE/receipts/NNNNNN.json: target.lib_dir, target.include_dir, target.mode), so
 * detect lists every install its receipts know, not only those under /opt/cudnn* (issue 20). Only
 * those three fields are read; a receipt that does not parse is skipped here (doctor reports it:
 * RECEIPT_UNREADABLE). */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "detect_int.h"
#include "sys.h"

static const char *field(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsString(v) && v->valuestring[0] ? v->valuestring : NULL;
}

int cc_detect_receipt_dirs(cudnnctl_ctx *ctx, cc_strv *libs, cc_strv *incs, cc_strv *modes)
{
    char *state = cc_state_dir(ctx);
    char *dir = state ? cc_path_join(state, "receipts") : NULL;
    cc_pf_dir *d = dir ? cc_pf_opendir(dir) : NULL;
    const char *name;
    int rc = 0;
    while (d && rc == 0 && (name = cc_pf_readdir(d)) != NULL) {
        if (!cc_str_ends(name, ".json"))
            continue;
        char *p = cc_path_join(dir, name);
        char *text = NULL;
        size_t len = 0;
        if (p && cc_sys_read_file(ctx, p, 4u << 20, &text, &len) == 0 && text) {
            cJSON *j = cJSON_Parse(text);
            const cJSON *t = j ? cJSON_GetObjectItemCaseSensitive(j, "target") : NULL;
            const char *lib = t ? field(t, "lib_dir") : NULL, *mode = t ? field(t, "mode") : NULL;
            const char *inc = t ? field(t, "include_dir") : NULL;
            if (lib && !cc_strv_contains(libs, lib))
                rc = cc_strv_push(libs, lib) || cc_strv_push(incs, inc ? inc : "") ||
                     cc_strv_push(modes, mode ? mode : "");
            cJSON_Delete(j);
        }
        cc_clear_error(ctx);
        free(text);
        free(p);
    }
    if (d)
        cc_pf_closedir(d);
    free(dir);
    free(state);
    return rc ? -1 : 0;
}
