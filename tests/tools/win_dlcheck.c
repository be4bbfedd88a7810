/* win_dlcheck.c: test helper of the Windows build (run under wine by tests/windows/*.sh). Loads each
 * DLL given by absolute path through the platform layer (LoadLibraryExW with
 * LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR | LOAD_LIBRARY_SEARCH_DEFAULT_DIRS), then calls cudnnGetVersion()
 * when the DLL exports it. One line per step, flushed at once (a vendor DLL may exit the process):
 *   loaded <path> from=<module path the loader reports>
 *   cudnnGetVersion=<value>
 *   modules=<every loaded module whose name starts with "cudnn", ';'-separated>
 *   fail <path> <cudnnctl error name> <loader message>
 * Exit status: the number of DLLs that failed to load. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform.h"

typedef size_t (*version_fn)(void);

static void print_modules(const char *prefix, const char *label)
{
    char **mods = cc_pf_loaded_modules(prefix);
    printf("%s", label);
    for (size_t k = 0; mods && mods[k]; k++) {
        printf("%s%s", k ? ";" : "", mods[k]);
        free(mods[k]);
    }
    printf("\n");
    free(mods);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    argv = cc_pf_args_utf8(argc, argv);
    int failed = 0;
    for (int i = 1; i < argc; i++) {
        const char *path = argv[i];
        void *h = cc_pf_dlopen(path);
        if (!h) {
            printf("fail %s %s %s\n", path, cudnnctl_err_name(cc_pf_last_error()), cc_pf_dlerror());
            fflush(stdout);
            failed++;
            continue;
        }
        const char *base = path;
        for (const char *c = path; *c; c++)
            if (*c == '\\' || *c == '/')
                base = c + 1;
        printf("loaded %s ", path);
        print_modules(base, "from=");
        void *p = cc_pf_dlsym(h, "cudnnGetVersion");
        if (p) {
            version_fn f;
            memcpy(&f, &p, sizeof(f));
            printf("cudnnGetVersion=%zu\n", f());
            fflush(stdout);
        }
        print_modules("cudnn", "modules=");
    }
    return failed;
}
