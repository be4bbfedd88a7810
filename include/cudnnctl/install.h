/**
 * @file install.h
 * @brief Install, uninstall, roll back and list cuDNN installs made by cudnnctl.
 * Included by cudnnctl.h; do not include directly.
 *
 * An install runs: lock → plan → source (cache) → extract into staging → verify (SHA-256 and
 * size) → prepare checks (space, permissions, conflicts) → journaled commit → links → ldconfig
 * → receipt. Nothing becomes visible in the target before the digest matched, and an
 * interrupted commit is found and finished or rolled back by the next run (docs/install.md).
 * Every install writes a JSON receipt into the state dir; uninstall, rollback and list read
 * receipts and never guess (docs/formats.md).
 */
#ifndef CUDNNCTL_INSTALL_H
#define CUDNNCTL_INSTALL_H

#ifndef CUDNNCTL_H
#error "include <cudnnctl/cudnnctl.h>, not <cudnnctl/install.h>: this header is a part of it"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** How a later install of an archive already verified and extracted once fills its staging
 *  dir from the unpacked store under the cache dir (`--link-mode`, docs/install.md). */
typedef enum {
    CUDNNCTL_LINK_AUTO = 0, /**< reflink where the filesystem can, else a copy (default) */
    CUDNNCTL_LINK_COPY,     /**< always a copy of the bytes */
    CUDNNCTL_LINK_REFLINK,  /**< reflinks only: fails where the filesystem cannot share blocks */
    /** hard links to the store's own (read-only) files: a prefix only, never a CUDA tree */
    CUDNNCTL_LINK_HARDLINK
} cudnnctl_link_mode;

/** What to install and from where. Zero-initialise, then set what the user gave. */
typedef struct {
    /** The choice, made with cudnnctl_plan_make; NULL: the library plans from @ref selection. */
    const cudnnctl_plan *plan;
    /** Selection (version, CUDA, platform, target, mirror) used when @ref plan is NULL. */
    cudnnctl_selection selection;
    /** An archive already at hand: a file path, file:// or http(s) URL. It is matched to the
     *  catalog by file name; an archive that matches nothing needs @ref sha256 or
     *  @ref insecure_skip_verify. */
    const char *archive;
    /** Expected SHA-256 (64 hex) overriding the catalog's, or for an unmatched archive. */
    const char *sha256;
    /** Install without a known SHA-256 (loud warning; recorded in the result and receipt). */
    int insecure_skip_verify;
    /** Base URL or local dir that the archive's relative_path is joined to. */
    const char *mirror;
    /** Extra CA bundle for HTTPS. */
    const char *cacert;
    /** Do not run ldconfig after a system-wide install on Linux. */
    int no_ldconfig;
    /** Reinstall even when the same version and SHA-256 is already installed there; replace a
     *  foreign PREFIX/current. */
    int force;
    /** Plan and report only: writes nothing, takes no lock. */
    int dry_run;
    /** Do not look up or store the archive in the download cache. */
    int no_cache;
    /** Windows: leave CUDA_PATH, CUDA_PATH_Vx_y and PATH in the registry alone (by default an
     *  install points them at the target and records the old values in the receipt). */
    int no_env;
    /** Windows: the machine environment (HKLM\...\Session Manager\Environment) instead of
     *  the user's (HKCU\Environment); needs an elevated process. */
    int system_env;
    /** After an install that did not fail (and not a dry run): validate what is now in place
     *  on the GPU (cudnnctl_validate in a child process, on the result's lib and include dirs
     *  and, for a CUDA tree, its toolkit). The verdict is the result's postcheck. */
    int validate;
    /** GPU index and child timeout of that validation (cudnnctl_validate_opts). */
    int validate_device;
    unsigned validate_timeout_ms;
    /** Connections for the archive's download when the server serves byte ranges: 0 = chosen
     *  from the first connection's measured rate (1–8, archives from 16 MiB), 1 = one stream,
     *  N = N (at most 16). */
    unsigned connections;
    /** Cap on the archive's declared unpacked size in bytes (0: derived from the archive:
     *  10x its compressed size, at least 256 MiB, at most 6 GiB; docs/security.md). */
    uint64_t max_unpacked;
    /** Install even when an added manifest gives an archive another SHA-256 or size than the
     *  embedded NVIDIA catalog (a repack or tampering: refused by default, exit 3); recorded
     *  in the receipt. */
    int allow_manifest_override;
    /** The wheel source (selection.source wheel, or auto choosing it): the package index pip
     *  downloads from (pip's --index-url); NULL: the index pip is configured with (pip.conf,
     *  PIP_INDEX_URL, ...). */
    const char *index_url;
    /** The Python interpreter whose pip fetches the wheel (NULL: python3 on PATH). As root it
     *  must pass the trust rule and runs isolated (docs/security.md). */
    const char *python;
    /** How staging is filled from the unpacked store (no_cache: the store is not used). */
    cudnnctl_link_mode link_mode;
    /** Use the unpacked store: stage from it when it holds the archive, else keep the verified
     *  tree there (0: neither: the cold path writes nothing more than the install; the CLI sets
     *  it when --link-mode is given). */
    int use_store;
} cudnnctl_install_opts;

/** The outcome of an install (cudnnctl_install_outcome_name gives its JSON string). */
typedef enum {
    CUDNNCTL_INSTALL_FAILED = 0, /**< "failed": nothing changed in the target */
    CUDNNCTL_INSTALL_INSTALLED,  /**< "installed": the files are in place */
    CUDNNCTL_INSTALL_UNCHANGED,  /**< "unchanged": that version was installed there already */
    CUDNNCTL_INSTALL_DRY_RUN,    /**< "dry-run": planned and reported only */
    /** "switched": that version was installed there already (a prefix) and PREFIX/current now
     *  names it again */
    CUDNNCTL_INSTALL_SWITCHED,
    /** "prepared": cudnnctl_install_prepare is done; cudnnctl_install_commit is next */
    CUDNNCTL_INSTALL_PREPARED
} cudnnctl_install_outcome;

/** What the GPU validation after an install (cudnnctl_install_opts.validate) means for it. */
typedef enum {
    CUDNNCTL_POSTCHECK_NOT_RUN = 0, /**< not asked for, a dry run, or nothing was installed */
    CUDNNCTL_POSTCHECK_PASSED,      /**< every check passed, compute included */
    /** No GPU / driver here: versions and loading were checked, the GPU part was skipped. A
     *  warning (in the result's warnings and as an event), not a failed install. */
    CUDNNCTL_POSTCHECK_NO_GPU,
    /** A load or compute check failed. The install stands (outcome installed / unchanged);
     *  cudnnctl_install returns the validation's error. */
    CUDNNCTL_POSTCHECK_FAILED
} cudnnctl_postcheck;

/** The archive an install came from: what the install result reports and its receipt keeps
 *  (one type, one copy, one clear, one JSON of the shared keys). */
typedef struct {
    char *relative_path; /**< catalog relative_path, or the file name of a given archive */
    char *url;           /**< where the bytes came from */
    char *sha256;        /**< verified digest (expected one before download) */
    uint64_t size;
    int verified;            /**< 1: SHA-256 matched a known digest; 0: insecure_skip_verify */
    int in_catalog;          /**< 1: matched an entry of the catalog */
    char *manifest;          /**< where the catalog entry came from, NULL when none */
    char *manifest_sha256;   /**< that manifest's SHA-256, NULL when none */
    char *manifest_override; /**< what --allow-manifest-override accepted, NULL when none */
} cudnnctl_archive_ref;

/** What an install did (also filled, as far as known, when it failed). */
typedef struct {
    cudnnctl_install_outcome result;
    cudnnctl_err error;  /**< the failure, CUDNNCTL_E_OK when none */
    char *cudnn_version; /**< 4 parts ("9.19.0.56"); 3 when read from headers only */
    char *cuda_variant;  /**< "13" */
    char *platform;      /**< "linux-x86_64" */
    cudnnctl_archive_ref archive;
    cudnnctl_target_mode mode;
    char *target_path; /**< CUDA tree root or prefix root (as the user sees it) */
    char *install_dir; /**< prefix: PREFIX/cudnn-<ver>-cuda<M>; tree: = target_path */
    char *lib_dir, *include_dir, *bin_dir; /**< bin_dir NULL on Linux */
    char *receipt_id;                      /**< NULL unless installed */
    char *receipt_path;
    char *recovered; /**< "rolled-back" / "finished" when an interrupted run was found */
    char *ldconfig;  /**< "ran", "skipped: --root", "skipped: --no-ldconfig", ... */
    char **steps;    /**< what was (or, for dry-run, would be) done */
    size_t n_steps;
    char **warnings;
    size_t n_warnings;
    char **files_written; /**< files and links placed (as the user sees the paths) */
    size_t n_files_written;
    char **files_replaced; /**< files that were there before and are kept as backups */
    size_t n_files_replaced;
    uint64_t bytes_written;
    double seconds;
    char *validation_json; /**< the validation's JSON (opts.validate), else NULL */
    cudnnctl_postcheck postcheck;         /**< the validation's verdict on this install */
    cudnnctl_validate_result *validation; /**< what it found, NULL when it did not run */
    char *verified_at; /**< unchanged / switched: when the installed archive was verified (its
                            receipt's installed_at); nothing was hashed in this run */
    cudnnctl_flavor flavor;         /**< the archive's flavour */
    cudnnctl_components components; /**< what this run extracted and placed */
    /** the components the target holds of this build afterwards (with those earlier installs
     *  of it placed: installing dev after runtime adds dev and leaves runtime as it is) */
    cudnnctl_components components_installed;
    /** "archive" (NVIDIA's redist archive, or an --archive file) or "wheel" (NVIDIA's wheel:
     *  fetched by pip, from the cache, or an --archive .whl) */
    char *source;
    char *source_reason; /**< why that source (--source auto / wheel), NULL when not asked */
    /** The unpacked store (static strings): NULL not used (--no-cache, nothing verified, a dry
     *  run), "hit" (staging filled from it, nothing decoded), "filled" (extracted, then kept
     *  there), "rebuilt" (an entry that failed its hashes was quarantined and filled again),
     *  "skipped" (it could not be filled: the install went on); store_link for a hit: "copy",
     *  "reflink", "hardlink", ... */
    const char *store, *store_link;
} cudnnctl_install_result;

/**
 * Install cuDNN. @p cat may get a synthetic entry added for an archive that matches nothing.
 * @p det may be NULL when @p opts names the target. *out is set even on failure (free with
 * cudnnctl_install_result_free). With opts.validate the installed copy is validated on the GPU
 * afterwards: no GPU is a warning (postcheck NO_GPU, returns OK); a failed check returns the
 * validation's error while the install stands (postcheck FAILED, result still installed).
 */
CUDNNCTL_API cudnnctl_err cudnnctl_install(cudnnctl_ctx *ctx, cudnnctl_catalog *cat,
                                           const cudnnctl_detect_result *det,
                                           const cudnnctl_install_opts *opts,
                                           cudnnctl_install_result **out);
CUDNNCTL_API void cudnnctl_install_result_free(cudnnctl_install_result *r);
/** A prepared install: the archive fetched, verified and extracted into a hidden staging dir on
 *  the target's filesystem, the commit planned, the target and state dir locked. */
typedef struct cudnnctl_install_handle cudnnctl_install_handle;

/**
 * The first half of cudnnctl_install (libalpm's prepare): plan, lock the target and the state
 * dir, settle an interrupted run, decide "already installed", fetch + verify + extract into
 * staging, fix the link chain there and plan the commit (conflicts are found here). Nothing in
 * the target changes that a reader of it could see. *out is always set (the caller frees it,
 * after cudnnctl_install_release); *h is set on success and must be released. When
 * (*out)->result is UNCHANGED, SWITCHED or DRY_RUN there is nothing to commit (commit is a
 * no-op); otherwise it is PREPARED. The cancel callback is polled throughout.
 */
CUDNNCTL_API cudnnctl_err cudnnctl_install_prepare(cudnnctl_ctx *ctx, cudnnctl_catalog *cat,
                                                   const cudnnctl_detect_result *det,
                                                   const cudnnctl_install_opts *opts,
                                                   cudnnctl_install_handle **h,
                                                   cudnnctl_install_result **out);
/**
 * The second half: the journaled commit (renames into the live tree, links), then the
 * environment (Windows), ldconfig and the receipt; the result given to prepare is completed.
 * A cancel before the commit point rolls everything back (CUDNNCTL_E_INTERRUPTED); after it the
 * install is finished. Call once.
 */
CUDNNCTL_API cudnnctl_err cudnnctl_install_commit(cudnnctl_ctx *ctx, cudnnctl_install_handle *h);
/* (With opts.validate, commit ends with the GPU validation of what is in place — also when
 *  there was nothing to commit — and sets the result's postcheck.) */
/** Undo an uncommitted prepare (staging and journal removed), drop the locks, free @p h
 *  (NULL is fine). The result stays the caller's. */
CUDNNCTL_API void cudnnctl_install_release(cudnnctl_ctx *ctx, cudnnctl_install_handle *h);

/** Attach the JSON of a validation run separately (embedded under "validation"; without one
 *  the install JSON says "validation": "not run"). opts.validate does this itself. */
CUDNNCTL_API cudnnctl_err cudnnctl_install_result_set_validation(cudnnctl_install_result *r,
                                                                 const char *json);
/** Switch a prefix between cuDNN versions installed side by side in it (`use --cudnn`). */
typedef struct {
    const char *prefix;       /**< the prefix given to install --prefix */
    const char *version;      /**< "9.14", "9.14.0", "9.14.0.64": the newest installed match */
    const char *cuda_variant; /**< "12" / "13"; NULL: any (needed when both are installed) */
    int deep;                 /**< re-hash every installed file against its receipt */
} cudnnctl_switch_opts;

/** What `use --cudnn` did (cudnnctl_switch_outcome_name gives its JSON string). */
typedef enum {
    CUDNNCTL_SWITCH_FAILED = 0,      /**< "failed": PREFIX/current unchanged */
    CUDNNCTL_SWITCH_SWITCHED,        /**< "switched": PREFIX/current moved */
    CUDNNCTL_SWITCH_ALREADY_CURRENT  /**< "already-current": it named that version already */
} cudnnctl_switch_outcome;

typedef struct {
    cudnnctl_switch_outcome result;
    char *cudnn_version, *cuda_variant, *prefix, *install_dir;
    char *previous;     /**< what PREFIX/current named before, NULL when nothing */
    char *receipt_id;
    char *installed_at; /**< when its archive was verified (nothing is downloaded or hashed
                             now, unless deep) */
    int deep;           /**< 1: every file was re-hashed against the receipt */
    size_t n_checked;   /**< files checked (present with their size, or re-hashed) */
    double seconds;
    char **steps;
    size_t n_steps;
} cudnnctl_switch_result;

/** Point PREFIX/current at an installed version: one journaled link flip, no network, no
 *  archive; refuses an install whose files are missing or changed (say how to reinstall).
 *  *out is set when the choice was made, also on failure. */
CUDNNCTL_API cudnnctl_err cudnnctl_switch(cudnnctl_ctx *ctx, const cudnnctl_switch_opts *opts,
                                          cudnnctl_switch_result **out);
CUDNNCTL_API void cudnnctl_switch_result_free(cudnnctl_switch_result *r);
CUDNNCTL_API const char *cudnnctl_switch_outcome_name(cudnnctl_switch_outcome o);
CUDNNCTL_API cudnnctl_err cudnnctl_switch_result_json(const cudnnctl_switch_result *r,
                                                      char **json);

/** JSON with the keys of CLI.md ("install --json"); free with cudnnctl_free. */
CUDNNCTL_API cudnnctl_err cudnnctl_install_result_json(const cudnnctl_install_result *r,
                                                       char **json);
/** "installed", "unchanged", "failed", "dry-run": the outcome as install --json names it. */
CUDNNCTL_API const char *cudnnctl_install_outcome_name(cudnnctl_install_outcome outcome);

/**
 * Settle an interrupted install, uninstall or switch (its journal in the state dir) and do
 * nothing else: before its commit point it is rolled back, after it finished — the target is
 * then exactly as before that run or exactly as after it. Every install / uninstall / rollback
 * does this first anyway. *what: NULL (nothing to settle), "rolled-back" or "finished"; *kind
 * (may be NULL; free with cudnnctl_free): "install", "uninstall", "switch".
 */
CUDNNCTL_API cudnnctl_err cudnnctl_recover(cudnnctl_ctx *ctx, const char **what, char **kind);

/** Which installs to remove. */
typedef struct {
    const char *target;  /**< CUDA tree or prefix root; NULL: the only target with receipts */
    const char *version; /**< version prefix ("9", "9.19", "9.19.0.56"); NULL: the active one */
    int all;             /**< every install on the target, newest first */
    int no_ldconfig;
} cudnnctl_uninstall_opts;

/** What an uninstall / rollback did. */
typedef struct {
    char **removed_ids; /**< receipts undone, newest first */
    size_t n_removed_ids;
    char **versions; /**< their cuDNN versions */
    size_t n_versions;
    char *target_path;
    char **files_removed;
    size_t n_files_removed;
    char **files_restored; /**< files put back from the receipts' backups */
    size_t n_files_restored;
    char **files_kept; /**< modified since install: left in place (with a warning) */
    size_t n_files_kept;
    char **warnings;
    size_t n_warnings;
    char *recovered; /**< "rolled-back" / "finished" when an interrupted run was found */
    char *ldconfig;
} cudnnctl_uninstall_result;

/**
 * Remove exactly what receipts list and restore what they replaced. A file modified since the
 * install is kept (warning, files_kept); the user's own files are never touched. Installs are
 * undone newest first; an install whose files a later install on the same target replaced is
 * refused (CONFLICT naming the later one) unless @ref cudnnctl_uninstall_opts.all.
 */
CUDNNCTL_API cudnnctl_err cudnnctl_uninstall(cudnnctl_ctx *ctx, const cudnnctl_uninstall_opts *opts,
                                             cudnnctl_uninstall_result **out);
/**
 * Undo the newest install on @p target (NULL: the only target with receipts): its files go,
 * what it replaced comes back — the tree is exactly as before that install, so an earlier
 * install on the same target is the active one again.
 */
CUDNNCTL_API cudnnctl_err cudnnctl_rollback(cudnnctl_ctx *ctx, const char *target, int no_ldconfig,
                                            cudnnctl_uninstall_result **out);
CUDNNCTL_API void cudnnctl_uninstall_result_free(cudnnctl_uninstall_result *r);
CUDNNCTL_API cudnnctl_err cudnnctl_uninstall_result_json(const cudnnctl_uninstall_result *r,
                                                         char **json);

/** One install made by cudnnctl, from its receipt. */
typedef struct {
    char *id;
    char *cudnn_version;
    char *cuda_variant;
    char *platform;
    cudnnctl_target_mode mode;
    char *target_path;
    char *install_dir;
    char *lib_dir;
    char *include_dir;
    char *archive_sha256;
    int verified;
    char *installed_at; /**< ISO 8601 UTC */
    size_t n_files;
    size_t n_links;
    size_t n_replaced;
    int active; /**< tree: the newest on its target; prefix: PREFIX/current → it (direct: the
                 *   selected install the state records) */
    char *receipt_path;
    cudnnctl_flavor flavor;         /**< full, or the Graph JIT library */
    cudnnctl_components components; /**< what this install placed */
    char *sublibs; /**< the cuDNN sub-libraries it placed, "libcudnn,libcudnn_graph,..." */
    int direct; /**< prefix on a filesystem without directory links (FAT32, exFAT, network
                 *   shares, wine): no PREFIX/current, the environment names install_dir */
} cudnnctl_install_record;

typedef struct {
    cudnnctl_install_record *items; /**< oldest first */
    size_t n_items;
    char *pending_journal; /**< path of an interrupted run's journal, NULL when none */
} cudnnctl_install_list;

/** Installs made by cudnnctl (from receipts), on @p target or everywhere (NULL). Read-only. */
CUDNNCTL_API cudnnctl_err cudnnctl_list(cudnnctl_ctx *ctx, const char *target,
                                        cudnnctl_install_list **out);
CUDNNCTL_API void cudnnctl_install_list_free(cudnnctl_install_list *l);
CUDNNCTL_API cudnnctl_err cudnnctl_install_list_json(const cudnnctl_install_list *l, char **json);

#ifdef __cplusplus
}
#endif
#endif
