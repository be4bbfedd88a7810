/**
 * @file doctor.h
 * @brief Diagnose a machine (doctor), record its environment (report), find drift between
 * records (compare), and copy manifests + archives for offline use (mirror).
 * Included by cudnnctl.h; do not include directly.
 */
#ifndef CUDNNCTL_DOCTOR_H
#define CUDNNCTL_DOCTOR_H

#ifdef __cplusplus
extern "C" {
#endif

/* ---- doctor ---------------------------------------------------------------------------------- */

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
} cudnnctl_finding;

/** Options of a doctor run. Zero-initialise. */
typedef struct {
    /** Re-hash every file an install receipt lists (reads every byte: seconds for a full
     *  cuDNN). Without it receipts are checked by presence, type, size and link target. */
    int deep;
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

/* ---- report ---------------------------------------------------------------------------------- */

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

/* ---- mirror ---------------------------------------------------------------------------------- */

/** What to copy where. Zero-initialise. */
typedef struct {
    /** Destination dir (created; resolved under the context's root). Required. */
    const char *to;
    /** cuDNN version prefix ("9", "9.13", "9.13.0.50"); NULL: every version (needs @ref all or
     *  @ref cuda). */
    const char *cudnn;
    /** CUDA major ("13") or major.minor; NULL: every CUDA variant. */
    const char *cuda;
    /** Platform key; NULL: the detected platform (this machine's). */
    const char *platform;
    /** Every platform the catalog offers. */
    int all_platforms;
    /** Every release matching @ref cudnn, not only the newest. */
    int all_versions;
    /** Where to fetch archives from: a base URL or dir that relative_path is joined to.
     *  NULL: NVIDIA's redist base. */
    const char *source;
    const char *cacert;
} cudnnctl_mirror_opts;

/** One archive of a mirror run. */
typedef struct {
    char *relative_path;
    char *cudnn_version;
    char *platform;
    char *cuda_variant;
    char *sha256;
    uint64_t size;
    const char *result; /**< "downloaded", "present" (already there, hash checked), "failed" */
    char *path;         /**< where it is in the mirror (as the user sees it) */
} cudnnctl_mirror_item;

typedef struct {
    char *dir;        /**< the mirror dir (as the user sees it) */
    char **manifests; /**< manifest files written (as the user sees them) */
    size_t n_manifests;
    cudnnctl_mirror_item *items;
    size_t n_items;
    uint64_t bytes_downloaded;
    double seconds;
} cudnnctl_mirror_result;

/**
 * Copy the manifests (their text as it came: the embedded copy, the --manifest file or URL)
 * and the archives the selection picks from @p cat into a dir laid out like NVIDIA's redist
 * tree: DIR/redistrib_<label>.json and DIR/<relative_path>. Each archive is fetched through
 * the download cache and its SHA-256 and size verified before it is renamed into place; an
 * archive already in the mirror is re-hashed and kept when it matches. Afterwards
 * `install --mirror DIR --manifest DIR/redistrib_<label>.json` works without a network.
 * NO_MATCH when the selection picks nothing. *out is set even on failure (as far as it got).
 */
CUDNNCTL_API cudnnctl_err cudnnctl_mirror(cudnnctl_ctx *ctx, const cudnnctl_catalog *cat,
                                          const cudnnctl_mirror_opts *opts,
                                          cudnnctl_mirror_result **out);
CUDNNCTL_API void cudnnctl_mirror_result_free(cudnnctl_mirror_result *r);
CUDNNCTL_API cudnnctl_err cudnnctl_mirror_result_json(const cudnnctl_mirror_result *r, char **json);

#ifdef __cplusplus
}
#endif
#endif
