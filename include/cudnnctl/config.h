/**
 * @file config.h
 * @brief Configuration: /etc/cudnnctl/config (under the context's root), the user's
 * $XDG_CONFIG_HOME/cudnnctl/config (~/.config/...), and CUDNNCTL_* environment variables.
 * Precedence: a flag (cudnnctl_config_set_flag) > environment > user file > system file.
 * The library resolves; it does not apply the values (the caller does) and never prints.
 * Included by cudnnctl.h; do not include directly.
 */
#ifndef CUDNNCTL_CONFIG_H
#define CUDNNCTL_CONFIG_H

#ifndef CUDNNCTL_H
#error "include <cudnnctl/cudnnctl.h>, not <cudnnctl/config.h>: this header is a part of it"
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    CUDNNCTL_CFG_DEFAULT = 0, /**< not set anywhere */
    CUDNNCTL_CFG_SYSTEM,      /**< /etc/cudnnctl/config */
    CUDNNCTL_CFG_USER,        /**< $XDG_CONFIG_HOME/cudnnctl/config */
    CUDNNCTL_CFG_ENV,         /**< a CUDNNCTL_* variable */
    CUDNNCTL_CFG_FLAG         /**< the command line */
} cudnnctl_config_origin;

/** One setting. Keys: "mirror", "manifest-base-url", "cacert", "cache-dir", "state-dir",
 *  "proxy", "prefix" (the default target), "login-check" ("yes" / "no": whether install, use
 *  and env ask a new login shell what it loads); variables: CUDNNCTL_MIRROR, ... (upper case,
 *  '_'). */
typedef struct {
    const char *key;
    const char *env;   /**< its environment variable */
    char *value;       /**< NULL when unset */
    cudnnctl_config_origin origin;
    char *where;       /**< the file, the variable or the flag it came from; NULL by default */
    /** What applies when it is unset, for people to read: a real path ("/var/lib/cudnnctl" as
     *  root, else $XDG_STATE_HOME/cudnnctl expanded), NVIDIA's URL, or "(none: ...)". */
    char *default_value;
} cudnnctl_config_item;

typedef struct {
    cudnnctl_config_item *items;
    size_t n_items;
    char **files;     /**< the files looked at, in order (system, user) */
    int *file_read;   /**< per file: 1 read, 0 absent */
    size_t n_files;
    char **problems;  /**< unknown keys, syntax errors ("FILE:LINE: ...") */
    size_t n_problems;
    int files_supported; /**< 0 when this build cannot read files (no inih) */
} cudnnctl_config;

/** Resolve the configuration (files under the context's root; the user file is not). */
CUDNNCTL_API cudnnctl_err cudnnctl_config_load(cudnnctl_ctx *ctx, cudnnctl_config **out);
/** A value given on the command line (wins over everything): key, value, the flag's name. */
CUDNNCTL_API cudnnctl_err cudnnctl_config_set_flag(cudnnctl_config *cfg, const char *key,
                                                   const char *value, const char *flag);
/** The effective value of key, NULL when unset. */
CUDNNCTL_API const char *cudnnctl_config_get(const cudnnctl_config *cfg, const char *key);
CUDNNCTL_API const char *cudnnctl_config_origin_name(cudnnctl_config_origin o);
/** {"values": {key: {"value", "origin", "where", "env"}}, "files": [{"path", "read"}],
 *  "problems": [...]}; free with cudnnctl_free. */
CUDNNCTL_API cudnnctl_err cudnnctl_config_json(const cudnnctl_config *cfg, char **json);
CUDNNCTL_API void cudnnctl_config_free(cudnnctl_config *cfg);

#ifdef __cplusplus
}
#endif
#endif
