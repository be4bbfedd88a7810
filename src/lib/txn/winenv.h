/* winenv.h: the Windows environment in the registry — CUDA_PATH, CUDA_PATH_Vx_y and PATH in
 * HKCU\Environment (user) or HKLM\...\Session Manager\Environment (system), every change recorded
 * as JSON so that it can be undone exactly (install receipts' "env" array). */
#ifndef CC_WINENV_H
#define CC_WINENV_H

#include <cjson/cJSON.h>

#include "internal.h"

#define CC_WINENV_USER_KEY "HKCU\\Environment"
#define CC_WINENV_SYSTEM_KEY                                                                       \
    "HKLM\\SYSTEM\\CurrentControlSet\\Control\\Session Manager\\Environment"

typedef struct {
    int system;              /* HKLM (machine) instead of HKCU (this user) */
    const char *toolkit;     /* CUDA_PATH (and CUDA_PATH_V<maj>_<min>); NULL: leave them alone */
    const char *version;     /* "12.4" / "12.4.1": names CUDA_PATH_V12_4; NULL: no versioned var */
    const char *const *bins; /* dirs put first on PATH, in this order (duplicates dropped) */
    size_t n_bins;
    const char *const
        *managed; /* PATH entries equal to one of these are dropped (other toolkits) */
    size_t n_managed;
    int dry; /* compute and record the changes, write nothing */
} cc_winenv_want;

/* Bring the registry to @p w. Paths may use '/' (converted to '\'). Values are compared after
 * expanding %VAR% (with %CUDA_PATH% as it will be), so a "%CUDA_PATH%\bin" entry counts as the
 * toolkit's bin. The PATH value keeps its type (REG_EXPAND_SZ stays). Each value changed is
 * appended to @p changes ({"kind":"registry","key","name","old","old_type","new","new_type"});
 * WM_SETTINGCHANGE is broadcast when something changed. */
cudnnctl_err cc_winenv_apply(cudnnctl_ctx *ctx, const cc_winenv_want *w, cJSON *changes,
                             int *n_changed);

/* Undo the registry entries of @p changes (newest first): a value still as written gets its old
 * value (or is deleted when there was none); a PATH changed since loses only the entries this
 * change added; any other value changed since is left, with a warning in @p warnings. */
cudnnctl_err cc_winenv_restore(cudnnctl_ctx *ctx, const cJSON *changes, cc_strv *warnings,
                               int *n_restored);

/* The toolkit's dirs that go on PATH: <tk>\bin and, where it exists, <tk>\bin\x64 (CUDA 13). */
cudnnctl_err cc_winenv_toolkit_bins(cudnnctl_ctx *ctx, const char *toolkit, cc_strv *out);

/* The dirs an install puts first on PATH: a CUDA tree's bin (+ bin\x64) and the cuDNN bin dir
 * (@p tree); a prefix install PREFIX\current\bin, through the junction @p current (real path), so
 * that switching `current` later needs no registry change. */
cudnnctl_err cc_winenv_install_bins(cudnnctl_ctx *ctx, int tree, const char *target,
                                    const char *current, const char *bin_dir, cc_strv *out);

/* `use X.Y` on Windows: CUDA_PATH (+ CUDA_PATH_Vx_y) = @p toolkit, its bin (and bin\x64) first on
 * PATH, the bin dirs of every other toolkit in @p det dropped from PATH. Changes appended to
 * @p changes (may be NULL). */
cudnnctl_err cc_winenv_use(cudnnctl_ctx *ctx, const cudnnctl_detect_result *det,
                           const char *toolkit, const char *version, int system, cJSON *changes,
                           int *n_changed);

#endif
