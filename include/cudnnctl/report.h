/**
 * @file report.h
 * @brief Record a machine's CUDA / cuDNN environment as a JSON report, and find drift between
 * reports of several machines (compare). Included by cudnnctl.h; do not include directly.
 */
#ifndef CUDNNCTL_REPORT_H
#define CUDNNCTL_REPORT_H

#ifndef CUDNNCTL_H
#error "include <cudnnctl/cudnnctl.h>, not <cudnnctl/report.h>: this header is a part of it"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** Options of a report. Zero-initialise. */
typedef struct {
    /** Also run validation on the active cuDNN (a child process; see validate.h). */
    int validate;
    /** Passed to cudnnctl_validate when @ref validate is set. */
    cudnnctl_validate_opts validate_opts;
    /** Include doctor's findings (fast; on by default in the CLI). */
    int doctor;
} cudnnctl_report_opts;

/**
 * One JSON document recording this environment: tool version, time, host name, OS (from
 * /etc/os-release under the root, kernel from uname), platform key, detect's full result, the
 * installs made by cudnnctl (receipts), optionally doctor's findings and a validation. Keys are
 * stable (docs/formats.md, "report"). @p det NULL: detect first. Free with cudnnctl_free.
 * A validation that fails or finds no GPU is recorded in the document, not returned as an error.
 */
CUDNNCTL_API cudnnctl_err cudnnctl_report(cudnnctl_ctx *ctx, const cudnnctl_detect_result *det,
                                          const cudnnctl_report_opts *opts, char **json);

/* ---- compare --------------------------------------------------------------------------------- */

/** One compared item ("driver", "cudnn.wheel", ...) and each host's value ("-" when absent). */
typedef struct {
    char *item;
    char **values; /**< one per host, in the order of cudnnctl_compare_result::hosts */
    int drift;     /**< 1 when the hosts disagree */
} cudnnctl_compare_item;

typedef struct {
    char **hosts; /**< host names (made unique: "gpu1", "gpu1#2"), in the order given */
    size_t n_hosts;
    cudnnctl_compare_item *items; /**< every item, in a fixed order */
    size_t n_items;
    size_t n_drift; /**< items with drift */
} cudnnctl_compare_result;

/**
 * Compare report documents. @p names labels each document in errors (a file name); NULL: "#i".
 * A document that is not a cudnnctl report → CUDNNCTL_E_PARSE naming it.
 */
CUDNNCTL_API cudnnctl_err cudnnctl_compare(cudnnctl_ctx *ctx, const char *const *reports,
                                           const char *const *names, size_t n,
                                           cudnnctl_compare_result **out);
/** The same for report files (resolved under the context's root when absolute). A file that
 *  cannot be read → NOT_FOUND / IO naming it. */
CUDNNCTL_API cudnnctl_err cudnnctl_compare_files(cudnnctl_ctx *ctx, const char *const *files,
                                                 size_t n, cudnnctl_compare_result **out);
CUDNNCTL_API void cudnnctl_compare_result_free(cudnnctl_compare_result *r);
/** JSON: hosts[], items[] {item, values{host: value}, drift}, drift[] (the drifting items, same
 *  shape), identical (bool); free with cudnnctl_free. */
CUDNNCTL_API cudnnctl_err cudnnctl_compare_result_json(const cudnnctl_compare_result *r,
                                                       char **json);

#ifdef __cplusplus
}
#endif
#endif
