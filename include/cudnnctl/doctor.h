/**
 * @file doctor.h
 * @brief Diagnose a machine (doctor): findings with their cause and fix, and the table of
 * finding codes. Report and compare: report.h; mirror: mirror.h.
 * Included by cudnnctl.h; do not include directly.
 */
#ifndef CUDNNCTL_DOCTOR_H
#define CUDNNCTL_DOCTOR_H

#ifndef CUDNNCTL_H
#error "include <cudnnctl/cudnnctl.h>, not <cudnnctl/doctor.h>: this header is a part of it"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** How bad a finding is. Any ERROR makes `cudnnctl doctor` exit 1. */
typedef enum {
    CUDNNCTL_SEV_INFO = 0,    /**< worth knowing, nothing is broken */
    CUDNNCTL_SEV_WARNING = 1, /**< likely to bite some programs, or a build */
    CUDNNCTL_SEV_ERROR = 2    /**< programs using this will fail */
} cudnnctl_severity;

/** One problem found, with its cause and its fix. */
typedef struct {
    const char *code; /**< stable identifier ("CUDNN_MIXED_SUBLIBS"); static string */
    cudnnctl_severity severity;
    char *message; /**< what is wrong and why it matters */
    char *fix;     /**< what to do about it (commands where there are some) */
    char *path;    /**< the file or dir concerned (as the user sees it), NULL when none */
    /** One shell command (POSIX sh) that applies the fix on this host, NULL when the fix needs
     *  a person (installing a driver). Files are named by their host paths (under --root: the
     *  root's real path); environment values are written as the user sees them, so running the
     *  command and then doctor with the same --root in the same shell checks the fix. */
    char *command;
} cudnnctl_finding;

/** Options of a doctor run. Zero-initialise. */
typedef struct {
    /** Re-hash every file an install receipt lists (reads every byte: seconds for a full
     *  cuDNN). Without it receipts are checked by presence, type, size and link target. */
    int deep;
    /** A consumer to check what it needs against what is installed: "torch==2.9.1[+cu130]",
     *  "tensorflow==2.14.0" (the compatibility tables of the catalog). NULL: none. */
    const char *for_pkg;
    /** "windows-x86_64": diagnose the context's root as a Windows tree (C:\ = the root), from
     *  its files, whatever the host is. NULL: the host's platform. */
    const char *platform;
    /** For a Windows tree: a file of NAME=VALUE lines standing in for the process environment
     *  and the registry (PATH, CUDA_PATH, CUDA_PATH_V13_0, ...; the last line of a name wins).
     *  NULL: the tree is checked without them (PATH checks are skipped). */
    const char *windows_env;
    /** A Python interpreter: check what its frameworks need against what they will load
     *  (cudnnctl_which, docs/which.md); NULL = none. */
    const char *python;
} cudnnctl_doctor_opts;

typedef struct {
    cudnnctl_finding *findings; /**< errors first, then warnings, then info */
    size_t n_findings;
    size_t n_errors, n_warnings, n_info;
    size_t n_receipt_files; /**< files and links of receipts that were checked */
    int deep;               /**< receipts were re-hashed */
    double seconds;         /**< wall time of the checks (detect excluded when it was given) */
} cudnnctl_doctor_result;

/** A finding code with its fixed severity and a one-line summary (docs/doctor.md has more). */
typedef struct {
    const char *code;
    cudnnctl_severity severity;
    const char *summary;
} cudnnctl_doctor_code;

/**
 * Check the machine. Every check is driven by detect's result plus a few reads of links,
 * directory listings, /etc/ld.so.cache, receipts and the install journal (all under the
 * context's root); cuDNN is never loaded and no GPU is needed. @p det NULL: detect first.
 * Findings are not failures: the call returns CUDNNCTL_E_OK whatever it found.
 */
CUDNNCTL_API cudnnctl_err cudnnctl_doctor(cudnnctl_ctx *ctx, const cudnnctl_detect_result *det,
                                          const cudnnctl_doctor_opts *opts,
                                          cudnnctl_doctor_result **out);
CUDNNCTL_API void cudnnctl_doctor_result_free(cudnnctl_doctor_result *r);
/** JSON with the keys of CLI.md ("doctor --json": findings[] with code, severity, message,
 *  fix, path) plus counts; free with cudnnctl_free. */
CUDNNCTL_API cudnnctl_err cudnnctl_doctor_result_json(const cudnnctl_doctor_result *r, char **json);
/** "info", "warning", "error". */
CUDNNCTL_API const char *cudnnctl_severity_name(cudnnctl_severity s);
/** Every code doctor can report (static table of *n entries). */
CUDNNCTL_API const cudnnctl_doctor_code *cudnnctl_doctor_codes(size_t *n);

#ifdef __cplusplus
}
#endif
#endif
