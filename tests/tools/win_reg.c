/* win_reg.c: test helper of the Windows build (run under wine by tests/windows/*.sh): the registry
 * block of platform.h from the command line, so scripts can cross-check it with `reg query`.
 *   win_reg get KEY NAME            -> "<type> <value>" (type: none, sz, expand_sz, dword, other)
 *   win_reg set KEY NAME TYPE VALUE -> TYPE: sz, expand_sz or dword
 *   win_reg delete KEY NAME
 *   win_reg subkeys KEY             -> one name a line
 *   win_reg broadcast               -> WM_SETTINGCHANGE "Environment"
 * Exit status 0 on success, 1 with the platform error on stderr. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform.h"

static int fail(void)
{
    fprintf(stderr, "win_reg: %s: %s\n", cudnnctl_err_name(cc_pf_last_error()), cc_pf_last_error_text());
    return 1;
}

int main(int argc, char **argv)
{
    static const char *const types[] = {"none", "sz", "expand_sz", "dword", "other"};
    argv = cc_pf_args_utf8(argc, argv);
    if (argc == 4 && strcmp(argv[1], "get") == 0) {
        char *v = NULL;
        int t = 0;
        if (cc_pf_reg_get(argv[2], argv[3], &v, &t) != 0)
            return fail();
        printf("%s %s\n", types[t], v ? v : "");
        free(v);
        return 0;
    }
    if (argc == 6 && strcmp(argv[1], "set") == 0) {
        int t = -1;
        for (int i = 1; i < 4; i++)
            if (strcmp(argv[4], types[i]) == 0)
                t = i;
        if (t < 0 || cc_pf_reg_set(argv[2], argv[3], argv[5], t) != 0)
            return fail();
        return 0;
    }
    if (argc == 4 && strcmp(argv[1], "delete") == 0)
        return cc_pf_reg_delete(argv[2], argv[3]) == 0 ? 0 : fail();
    if (argc == 3 && strcmp(argv[1], "subkeys") == 0) {
        char **v = cc_pf_reg_subkeys(argv[2]);
        if (!v)
            return fail();
        for (size_t i = 0; v[i]; i++) {
            printf("%s\n", v[i]);
            free(v[i]);
        }
        free(v);
        return 0;
    }
    if (argc == 2 && strcmp(argv[1], "broadcast") == 0)
        return cc_pf_env_broadcast() == 0 ? 0 : fail();
    fprintf(stderr, "usage: win_reg get|set|delete|subkeys|broadcast ...\n");
    return 2;
}
