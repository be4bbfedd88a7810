/**
 * @file cudnnctl.h
 * @brief Public API of libcudnnctl: detect, plan, install, switch and validate NVIDIA cuDNN.
 *
 * The library never prints, prompts or exits. It reports through the callbacks set on the
 * context and returns a ::cudnnctl_err from every function that can fail. This header pulls in
 * no libarchive, libcurl, OpenSSL or cJSON header.
 */
#ifndef CUDNNCTL_H
#define CUDNNCTL_H

#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32) && defined(CUDNNCTL_BUILDING_DLL)
#define CUDNNCTL_API __declspec(dllexport)
#elif defined(__GNUC__)
#define CUDNNCTL_API __attribute__((visibility("default")))
#else
#define CUDNNCTL_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define CUDNNCTL_VERSION_STRING "0.1.0"

/** Error codes, from include/cudnnctl/errors.def. */
typedef enum {
#define X(name, group, msg) CUDNNCTL_E_##name,
#include "cudnnctl/errors.def"
#undef X
    CUDNNCTL_E__COUNT
} cudnnctl_err;

/** Opaque library context: options, callbacks, last error. One per thread of use. */
typedef struct cudnnctl_ctx cudnnctl_ctx;

/** Log levels for the log callback. */
typedef enum {
    CUDNNCTL_LOG_ERROR = 0,
    CUDNNCTL_LOG_WARN = 1,
    CUDNNCTL_LOG_INFO = 2,
    CUDNNCTL_LOG_DEBUG = 3
} cudnnctl_log_level;

typedef void (*cudnnctl_log_cb)(void *user, cudnnctl_log_level level, const char *msg);

/** Progress of a long stage (download, extract, hash, commit). total is 0 when unknown. */
typedef struct {
    const char *stage; /**< "download", "extract", "verify", "commit", ... */
    uint64_t done;
    uint64_t total;
} cudnnctl_progress;

typedef void (*cudnnctl_progress_cb)(void *user, const cudnnctl_progress *p);

/** Events: a tagged union of notable things the library did. */
typedef enum {
    CUDNNCTL_EV_STEP = 0,      /**< a pipeline step started: text = its name */
    CUDNNCTL_EV_FILE_WRITTEN,  /**< path = file placed in a live tree */
    CUDNNCTL_EV_FILE_REMOVED,  /**< path = file removed from a live tree */
    CUDNNCTL_EV_CACHE_HIT,     /**< text = sha256 found in cache */
    CUDNNCTL_EV_RETRY,         /**< text = why a network operation is retried */
    CUDNNCTL_EV_WARNING        /**< text = something the user should know */
} cudnnctl_event_kind;

typedef struct {
    cudnnctl_event_kind kind;
    const char *text;
    const char *path;
} cudnnctl_event;

typedef void (*cudnnctl_event_cb)(void *user, const cudnnctl_event *ev);

/** A decision the library would otherwise take alone. The callback answers 1 (yes) or 0 (no);
 *  without a callback, or for an answer other than 0/1, @ref default_answer is taken — always
 *  the safe choice (nothing is replaced or reinstalled that the caller did not ask for). */
typedef enum {
    CUDNNCTL_Q_REINSTALL = 0 /**< the same version and SHA-256 is installed there: reinstall? */
} cudnnctl_question_kind;

typedef struct {
    cudnnctl_question_kind kind;
    const char *text; /**< the question, in words */
    int default_answer;
} cudnnctl_question;

typedef int (*cudnnctl_question_cb)(void *user, const cudnnctl_question *q);

/** Polled between the steps of an install / uninstall and inside its long loops (download,
 *  extraction, the prepare half of a commit). Nonzero: stop — the run rolls back what it did
 *  (staging, journal) and returns CUDNNCTL_E_INTERRUPTED. Never consulted after a commit point
 *  (the run then finishes). It may be called from the download thread: make it a flag read
 *  (sig_atomic_t set by a signal handler, an atomic), nothing more. */
typedef int (*cudnnctl_cancel_cb)(void *user);

/** Details of the last failure on a context. Strings belong to the context. */
typedef struct {
    cudnnctl_err code;
    const char *detail; /**< what failed and, where known, how to fix it */
    const char *func;   /**< origin of the failure (for --debug) */
    const char *file;
    int line;
} cudnnctl_error_info;

/** Create a context with defaults (no root, XDG cache/state dirs, no callbacks). */
CUDNNCTL_API cudnnctl_err cudnnctl_ctx_new(cudnnctl_ctx **out);
CUDNNCTL_API void cudnnctl_ctx_free(cudnnctl_ctx *ctx);

/** Resolve every absolute path the library reads or writes under @p root (NULL: none). */
CUDNNCTL_API cudnnctl_err cudnnctl_set_root(cudnnctl_ctx *ctx, const char *root);
/** Apply the rules of another OS than the one the library runs on: "linux" or "windows" (NULL or
 *  the native name: back to the machine's own). Meant with cudnnctl_set_root() for inspecting a
 *  fake tree (detect, doctor): with "windows" a drive letter maps to a folder under the root
 *  (C:\\Program Files\\X -> ROOT/c/Program Files/X), the registry is an empty in-memory one,
 *  environment variables are the process's, and no program of that OS is run. */
CUDNNCTL_API cudnnctl_err cudnnctl_set_host_os(cudnnctl_ctx *ctx, const char *os);
/** "linux" or "windows": the OS whose rules the context applies. */
CUDNNCTL_API const char *cudnnctl_host_os(const cudnnctl_ctx *ctx);
CUDNNCTL_API cudnnctl_err cudnnctl_set_cache_dir(cudnnctl_ctx *ctx, const char *dir);
CUDNNCTL_API cudnnctl_err cudnnctl_set_state_dir(cudnnctl_ctx *ctx, const char *dir);
/** HTTP(S) proxy for every download ("http://proxy:3128"); NULL: libcurl's default (the
 *  http_proxy / https_proxy / no_proxy variables). */
CUDNNCTL_API cudnnctl_err cudnnctl_set_proxy(cudnnctl_ctx *ctx, const char *url);
/** CA bundle for every https download of this context — archives and manifests alike (an
 *  option's own cacert, e.g. cudnnctl_install_opts.cacert, wins); NULL: the system's. */
CUDNNCTL_API cudnnctl_err cudnnctl_set_cacert(cudnnctl_ctx *ctx, const char *file);
CUDNNCTL_API void cudnnctl_set_log_cb(cudnnctl_ctx *ctx, cudnnctl_log_cb cb, void *user);
CUDNNCTL_API void cudnnctl_set_progress_cb(cudnnctl_ctx *ctx, cudnnctl_progress_cb cb, void *user);
CUDNNCTL_API void cudnnctl_set_event_cb(cudnnctl_ctx *ctx, cudnnctl_event_cb cb, void *user);

/** The callbacks a run consults: questions (cudnnctl_question_cb) and cancellation
 *  (cudnnctl_cancel_cb); NULL removes one. */
CUDNNCTL_API void cudnnctl_set_question_cb(cudnnctl_ctx *ctx, cudnnctl_question_cb cb, void *user);
CUDNNCTL_API void cudnnctl_set_cancel_cb(cudnnctl_ctx *ctx, cudnnctl_cancel_cb cb, void *user);
/** How long an install / uninstall / rollback waits for a target or state lock another process
 *  holds: 0 (default) fails at once with CUDNNCTL_E_LOCKED naming the holder; N > 0 waits up
 *  to N seconds (polling the cancel callback); -1 waits for as long as it takes. */
CUDNNCTL_API void cudnnctl_set_lock_wait(cudnnctl_ctx *ctx, int seconds);

/** The last failure on @p ctx (code, detail with the fix, origin); its strings belong to the
 *  context (until its next failure). cudnnctl_strerror: a code's message; cudnnctl_err_name:
 *  its name ("LOCKED" for CUDNNCTL_E_LOCKED); both static strings. */
CUDNNCTL_API const cudnnctl_error_info *cudnnctl_last_error(const cudnnctl_ctx *ctx);
CUDNNCTL_API const char *cudnnctl_strerror(cudnnctl_err code);
CUDNNCTL_API const char *cudnnctl_err_name(cudnnctl_err code);
/** Process exit code group of an error (CLI.md "Exit codes"). */
CUDNNCTL_API int cudnnctl_err_exit_code(cudnnctl_err code);
/** A failure as one JSON document (free with cudnnctl_free): {"error": {"code": "NETWORK",
 *  "exit_code": N, "message": ..., "fix": ... or null}}. @p message NULL: the code's text. The
 *  fix is what follows the message's first "; " (the messages say what failed, then what to
 *  do), else its last ": " before an instruction ("update ...", "use ..."); @p exit_code is
 *  the process's (the front end may map signals). */
CUDNNCTL_API cudnnctl_err cudnnctl_error_json(cudnnctl_err code, int exit_code,
                                              const char *message, char **json);
/** A run that must write nothing (install --dry-run, a check mode): manifests fetched from
 *  URLs are not kept in the download cache either. */
CUDNNCTL_API void cudnnctl_set_read_only(cudnnctl_ctx *ctx, int on);

/** What this library is and what it runs with (`cudnnctl --version`). Static strings. */
typedef struct {
    const char *version;         /**< CUDNNCTL_VERSION_STRING */
    const char *libarchive;      /**< version of the libarchive linked at run time */
    const char *libcurl;         /**< libcurl's version (and its TLS backend) */
    const char *openssl;         /**< OpenSSL's version string */
    const char *cjson;           /**< cJSON's version */
    const char *newest_manifest; /**< the embedded catalog's newest manifest file name */
    size_t n_manifests;          /**< manifests embedded */
} cudnnctl_build_info;

/** This build's cudnnctl_build_info (static, never freed). */
CUDNNCTL_API const cudnnctl_build_info *cudnnctl_build_info_get(void);

/** Free a string returned by the library. */
CUDNNCTL_API void cudnnctl_free(void *p);

/** Add "key": value_json to the JSON object @p doc (an array doc becomes {"changes": doc,
 *  key: value}); a key already there gets the new value. Free *out with cudnnctl_free. */
CUDNNCTL_API cudnnctl_err cudnnctl_json_attach(const char *doc, const char *key,
                                               const char *value_json, char **out);

/** A byte count (or a rate in bytes per second) as text in @p buf: "812 B", "1.5 MiB" (binary
 *  units up to GiB, one decimal from KiB up). */
CUDNNCTL_API void cudnnctl_size_text(double bytes, char *buf, size_t n);

#ifdef __cplusplus
}
#endif

/* Per-area API, each owned by one part of the library. */
#include "cudnnctl/host.h"
#include "cudnnctl/detect.h"
#include "cudnnctl/catalog.h"
#include "cudnnctl/plan.h"
#include "cudnnctl/validate.h"
#include "cudnnctl/install.h"
#include "cudnnctl/envwire.h"
#include "cudnnctl/use.h"
#include "cudnnctl/doctor.h"
#include "cudnnctl/report.h"
#include "cudnnctl/mirror.h"
#include "cudnnctl/config.h"
#include "cudnnctl/cache.h"
#include "cudnnctl/loader.h"
#include "cudnnctl/buildview.h"

#endif /* CUDNNCTL_H */
