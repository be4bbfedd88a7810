/* error_json.c: a failure as one JSON document, for front ends whose --json output must stay one
 * document when the run fails (cudnnctl --json, and the Ansible role that reads it). */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "json.h"

/* The fix part of a message: what follows its first "; " (cudnnctl's messages say what failed,
 * then what to do), else its last ": " when an instruction follows ("...: update the driver").
 * NULL when it has none. */
static const char *fix_of(const char *msg)
{
    const char *semi = strstr(msg, "; ");
    if (semi && semi[2])
        return semi + 2;
    static const char *const verbs[] = {"update ", "use ", "run ", "pass ", "give ", "install ",
                                        "check ", "choose ", "remove ", "free ", "set ", "add "};
    const char *best = NULL;
    for (const char *p = strstr(msg, ": "); p; p = strstr(p + 2, ": "))
        for (size_t i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
            if (strncmp(p + 2, verbs[i], strlen(verbs[i])) == 0)
                best = p + 2;
    return best;
}

cudnnctl_err cudnnctl_error_json(cudnnctl_err code, int exit_code, const char *message,
                                 char **json)
{
    *json = NULL;
    const char *msg = message && *message ? message : cudnnctl_strerror(code);
    const char *fix = fix_of(msg);
    cJSON *root = cJSON_CreateObject();
    cJSON *e = root ? cJSON_AddObjectToObject(root, "error") : NULL;
    int ok = e && cc_json_str(e, "code", cudnnctl_err_name(code)) == 0 &&
             cJSON_AddNumberToObject(e, "exit_code", exit_code) &&
             cc_json_str(e, "message", msg) == 0 &&
             (fix ? cc_json_str(e, "fix", fix) == 0 : cJSON_AddNullToObject(e, "fix") != NULL);
    *json = ok ? cJSON_PrintUnformatted(root) : NULL;
    cJSON_Delete(root);
    return *json ? CUDNNCTL_E_OK : CUDNNCTL_E_NOMEM;
}
