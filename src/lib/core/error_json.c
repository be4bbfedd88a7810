/* error_json.c: a failure as one JSON document, for front ends whose --json output must stay one
 * document when the run fails (cudnnctl --json, and the Ansible role that reads it). */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "json.h"

cudnnctl_err cudnnctl_error_json(cudnnctl_err code, int exit_code, const char *message,
                                 char **json)
{
    *json = NULL;
    const char *msg = message && *message ? message : cudnnctl_strerror(code);
    /* cudnnctl's messages say what failed, then after "; " what to do */
    const char *semi = strstr(msg, "; ");
    cJSON *root = cJSON_CreateObject();
    cJSON *e = root ? cJSON_AddObjectToObject(root, "error") : NULL;
    int ok = e && cc_json_str(e, "code", cudnnctl_err_name(code)) == 0 &&
             cJSON_AddNumberToObject(e, "exit_code", exit_code) &&
             cc_json_str(e, "message", msg) == 0 &&
             (semi && semi[2] ? cc_json_str(e, "fix", semi + 2) == 0
                              : cJSON_AddNullToObject(e, "fix") != NULL);
    *json = ok ? cJSON_PrintUnformatted(root) : NULL;
    cJSON_Delete(root);
    return *json ? CUDNNCTL_E_OK : CUDNNCTL_E_NOMEM;
}
