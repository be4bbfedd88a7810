/* cli.h: what the cudnnctl front end shares between its files: parsed options, the command
 * table, and rendering helpers. The front end only calls the public API. */
#ifndef CC_CLI_H
#define CC_CLI_H

#include <stdint.h>
#include <stdio.h>

#include "cudnnctl/cudnnctl.h"

typedef struct {
    /* global */
    const char *root, *cache_dir, *state_dir;
    int json, quiet, verbose, debug, no_progress;
    int color; /* 0 never, 1 always, 2 auto */
    /* selection */
    const char *cudnn, *cuda, *platform, *for_pkg, *driver_version;
    /* source */
    const char *archive, *sha256, *mirror, *cacert;
    const char *manifests[16];
    int n_manifests;
    int insecure_skip_verify;
    int allow_manifest_override; /* install: a --manifest may contradict the embedded catalog */
    uint64_t max_unpacked;       /* install: --max-unpacked (0: derived from the archive) */
    /* target */
    const char *cuda_home, *prefix;
    /* behaviour */
    int dry_run, no_validate, force, no_ldconfig, all, ld_library_path, remove, system_wide;
    int persist; /* env --persist */
    const char *version, *shell, *to;
    int device;
    unsigned timeout_s;
    /* doctor / report / mirror */
    int deep, validate, all_platforms;
    /* positional arguments after the command */
    char **args;
    int n_args;
} cli_opts;

typedef int (*cli_run_fn)(cli_opts *o, cudnnctl_ctx *ctx);

typedef struct {
    const char *name;
    cli_run_fn run;
    const char *summary;
    int hidden;
} cli_command;

extern const cli_command cli_commands[];

/* opts.c */
int cli_parse(int argc, char **argv, cli_opts *o, const cli_command **cmd);
void cli_usage(FILE *f);

/* output.c */
void cli_setup_output(cli_opts *o, cudnnctl_ctx *ctx);
/* Print the context's last error (with origin under --debug); returns the exit code. */
int cli_fail(cli_opts *o, cudnnctl_ctx *ctx, cudnnctl_err e);
/* Print a JSON document (library-made) on stdout followed by a newline. */
void cli_print_json(const char *json);
/* Human text: to stdout normally, to stderr under --json; nothing with -q for info. */
void cli_info(cli_opts *o, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void cli_warn(cli_opts *o, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Aligned tables: add rows of n cells, then print. */
typedef struct cli_table cli_table;
cli_table *cli_table_new(int ncols, const char *const *headers);
void cli_table_row(cli_table *t, const char *const *cells);
void cli_table_print(cli_table *t, FILE *f);
void cli_table_free(cli_table *t);

/* cmd_available.c: the embedded catalog plus every --manifest; on failure prints the error and
 * returns the exit code (0 = ok, *out set). Shared by available, plan and install. */
int cli_load_catalog(cli_opts *o, cudnnctl_ctx *ctx, cudnnctl_catalog **out);
/* The selection flags (--cudnn, --cuda, --platform, --for, targets, --mirror, --driver-version). */
cudnnctl_selection cli_selection(const cli_opts *o);

/* commands (one file each) */
int cmd_detect(cli_opts *o, cudnnctl_ctx *ctx);
int cmd_available(cli_opts *o, cudnnctl_ctx *ctx);
int cmd_plan(cli_opts *o, cudnnctl_ctx *ctx);
int cmd_install(cli_opts *o, cudnnctl_ctx *ctx);
int cmd_uninstall(cli_opts *o, cudnnctl_ctx *ctx);
int cmd_rollback(cli_opts *o, cudnnctl_ctx *ctx);
int cmd_list(cli_opts *o, cudnnctl_ctx *ctx);
int cmd_use(cli_opts *o, cudnnctl_ctx *ctx);
int cmd_env(cli_opts *o, cudnnctl_ctx *ctx);
int cmd_validate(cli_opts *o, cudnnctl_ctx *ctx);
int cmd_validate_child(cli_opts *o, cudnnctl_ctx *ctx);
int cmd_doctor(cli_opts *o, cudnnctl_ctx *ctx);
int cmd_report(cli_opts *o, cudnnctl_ctx *ctx);
int cmd_compare(cli_opts *o, cudnnctl_ctx *ctx);
int cmd_mirror(cli_opts *o, cudnnctl_ctx *ctx);

#endif
