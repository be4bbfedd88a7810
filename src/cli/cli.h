/* cli.h: what the cudnnctl front end shares between its files: parsed options, the command
 * table, and rendering helpers. The front end only calls the public API. */
#ifndef CC_CLI_H
#define CC_CLI_H

#include <stddef.h>
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
    int link_mode;               /* install: --link-mode (cudnnctl_link_mode) */
    int link_mode_given;         /* install: --link-mode was given (the store is used) */
    cudnnctl_flavor flavor;      /* --flavor (default full) */
    int flavor_given;
    cudnnctl_components components; /* --components (0: all) */
    cudnnctl_source source;         /* --source archive|wheel|auto (default archive) */
    const char *index_url;          /* install: --index-url URL for the wheel source's pip */
    /* target */
    const char *cuda_home, *prefix;
    /* behaviour */
    int dry_run, no_validate, force, no_ldconfig, all, ld_library_path, remove, system_wide;
    int persist; /* env --persist */
    int no_ld_library_path; /* env --no-ld-library-path */
    int no_login_check;     /* install/use/env: the effective check without a login shell */
    const char *env_of, *python; /* which --env-of FILE, which/doctor --python EXE */
    const char *dll;             /* which --dll NAME */
    const char *modulefiles;     /* env --persist/--remove --modulefiles DIR */
    int build;                   /* which --build */
    int lock_wait; /* --wait: 0 fail at once (exit 8), -1 as long as it takes, N seconds */
    const char *version, *shell, *to;
    int device;
    unsigned timeout_s;
    /* doctor / report / mirror */
    int deep, validate, all_platforms;
    unsigned connections; /* install / mirror: --connections N (0 = automatic) */
    const char *windows_env; /* doctor: NAME=VALUE file for a Windows tree's env */
    int help;                /* --help, -h */
    /* positional arguments after the command */
    char **args;
    int n_args;
} cli_opts;

typedef int (*cli_run_fn)(cli_opts *o, cudnnctl_ctx *ctx);

/* What completes a value (complete.c): a completer name in the tables below. */
typedef enum {
    CLI_COMP_NONE = 0, /* free text: nothing offered */
    CLI_COMP_FILE,     /* a file name */
    CLI_COMP_DIR,      /* a directory */
    CLI_COMP_SHELL,    /* sh bash zsh fish pwsh cmd */
    CLI_COMP_PLATFORM, /* linux-x86_64 ... (the catalog's platform keys) */
    CLI_COMP_CUDNN,    /* cuDNN versions of the catalog (9, 9.19, 9.19.0.56) */
    CLI_COMP_CUDA,     /* CUDA majors of the catalog and toolkit versions from detect */
    CLI_COMP_TOOLKIT,  /* toolkit versions found by detect (use X.Y) */
    CLI_COMP_INSTALLED,/* cuDNN versions installed by cudnnctl (receipts) */
    CLI_COMP_COLOR,    /* auto always never */
    CLI_COMP_COMMAND,  /* a cudnnctl command (help X) */
    CLI_COMP_CONSUMER, /* torch==X tensorflow==X */
    CLI_COMP_CACHE_OP  /* list verify clean (cache) */
} cli_comp;

/* One command (commands.c). args/min_args/max_args: its positional arguments (max -1: any
 * number); description: the paragraph of `cudnnctl X --help` and cudnnctl-X(1). */
typedef struct {
    const char *name;
    cli_run_fn run;
    const char *summary;
    int hidden;
    const char *args;
    int min_args, max_args;
    cli_comp args_comp;
    const char *description;
} cli_command;

extern const cli_command cli_commands[];

/* The exit codes (commands.c; docs/cli.md has the same table). */
typedef struct {
    int code;
    const char *meaning;
} cli_exit_code;
extern const cli_exit_code cli_exit_codes[];

/* How an option's value is stored (optspec.c): the kind says what the value is, the row's
 * offset where in cli_opts it goes; a row with a parse callback stores it itself (a value that
 * is checked, a choice of words, a list). */
typedef enum {
    CLI_V_FLAG = 0, /* no value: the int field becomes 1 */
    CLI_V_COUNT,    /* no value, repeatable: the int field counts (-vv) */
    CLI_V_STR,      /* the value as given: a const char * field */
    CLI_V_INT,      /* a number: an int or unsigned field */
    CLI_V_SIZE,     /* bytes, or a number with K/M/G/T: a uint64_t field */
    CLI_V_ENUM,     /* one of a few words */
    CLI_V_LIST,     /* repeatable, or a comma-separated list */
    CLI_V_OPTIONAL  /* a value that may be left out (--wait, --wait 5, --wait=5) */
} cli_vkind;

/* A row's own parsing: -1 when the value is stored, else the exit code to end with (2 after
 * saying what is wrong, 0 when it did what was asked). */
typedef int (*cli_opt_parse)(cli_opts *o, const char *arg);

/* One option as the user sees it (optspec.c), the only place an option is declared: ONE LINE
 * per option. commands: "*" for every command (a global option), else the command names that
 * take it, space-separated. The same option may have several lines with different commands
 * and help (uninstall --all vs mirror --all); its first line says how it is stored. getopt's
 * tables (opts.c), help, man pages, completions and docs/cli.md's tables come from here. */
typedef struct {
    const char *name;     /* long name without "--" */
    char short_name;      /* 'q', or 0 */
    const char *arg;      /* the value's name ("DIR"), NULL for a flag, "[N]" when optional */
    const char *commands; /* "*" or "plan install mirror" */
    cli_comp comp;        /* how a shell completes the value */
    cli_vkind kind;       /* what the value is */
    size_t offset;        /* where it goes: offsetof(cli_opts, field) */
    cli_opt_parse parse;  /* NULL: stored by kind */
    const char *help;
} cli_optspec;

extern const cli_optspec cli_optspecs[];

/* examples.c: what help and the man pages show under EXAMPLES and ENVIRONMENT. An example's
 * command is "" for cudnnctl(1) itself; a variable's commands are "*" or command names. */
typedef struct {
    const char *command, *line, *what;
} cli_example;
extern const cli_example cli_examples[];
typedef struct {
    const char *name, *commands, *meaning;
} cli_envvar;
extern const cli_envvar cli_envvars[];
int cli_example_for(const cli_example *e, const char *command);
int cli_envvar_for(const cli_envvar *v, const char *command); /* "" = cudnnctl(1): all */
/* Every visible command has 2-3 examples that parse; every CUDNNCTL_* variable is listed. */
int cli_examples_check(cudnnctl_ctx *ctx);

/* opts.c */
int cli_parse(int argc, char **argv, cli_opts *o, const cli_command **cmd);
void cli_usage(FILE *f);
/* The getopt table made from cli_optspecs (for the consistency check): name and has_arg of
 * entry i, NULL at the end. */
const char *cli_getopt_name(int i, int *has_arg);
/* "8G", "512M", "1048576" -> bytes (K/M/G/T binary); 0 ok, -1 not a size or 0. */
int cli_parse_size(const char *s, uint64_t *out);

/* help.c: help, version, man pages, tables for docs/cli.md, suggestions */
const cli_command *cli_find_command(const char *name);
/* Is word one of the space-separated words of list ("*" holds every word)? */
int cli_in_words(const char *list, const char *word);
int cli_command_takes(const cli_command *c, const cli_optspec *s);
const cli_optspec *cli_find_optspec(const char *name, const cli_command *c);
void cli_command_help(FILE *f, const cli_command *c);
void cli_print_version(int json, const char *root, const char *state_dir);
/* The closest of the candidates to s (edit distance <= 2 or a prefix), NULL when none. */
const char *cli_suggest_command(const char *s);
const char *cli_suggest_option(const char *s, const cli_command *c);

/* progress.c: the progress display (live line on a terminal, one line per stage otherwise) */
void cli_progress_setup(cli_opts *o, int enabled);
void cli_progress_attach(cudnnctl_ctx *ctx);
int cli_progress_on(void);
void cli_progress_break(void); /* end the live line before other output */
/* End the live line with a newline, its text kept (an interrupt: the line stays visible). */
void cli_progress_newline(void);
void cli_progress_end(void);   /* at exit */
void cli_progress_step(const char *text);

/* cmd_config.c: the configuration applied to the options (flag > env > user > system) */
int cli_config_apply(cli_opts *o, const cli_command *cmd, cudnnctl_ctx *ctx);
const char *cli_config_get(const char *key);
void cli_config_free(void);

/* paths.c: a path option naming nothing (or a file for a dir): exit 2 naming it, else 0. Before
 * the configuration is applied (only what the command line gave); the root before set_root. */
int cli_check_root(const cli_opts *o, const cli_command *cmd, const cudnnctl_ctx *ctx);
int cli_check_paths(const cli_opts *o, const cli_command *cmd, const cudnnctl_ctx *ctx);

/* output.c */
void cli_setup_output(cli_opts *o, cudnnctl_ctx *ctx);
/* Print the context's last error (with origin under --debug); returns the exit code. */
int cli_fail(cli_opts *o, cudnnctl_ctx *ctx, cudnnctl_err e);
/* Print a JSON document (library-made) on stdout followed by a newline. Under --json it is held
 * until cli_output_end, so that a failure after it (cli_fail) lands in it as "error": one
 * document per run, the failure's code, exit code, message and fix in it. */
void cli_print_json(const char *json);
void cli_output_end(void);
/* A usage error: "cudnnctl: MESSAGE" on stderr, remembered for cli_usage_json. */
void cli_usage_error(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
/* --json and exit 2: the last usage error as the one document ({"error": {"code": "USAGE"...}}). */
void cli_usage_json(const char *cmd);
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
/* libopts.c: the selection flags (--cudnn, --cuda, --platform, --for, targets, --mirror, --driver-version). */
cudnnctl_selection cli_selection(const cli_opts *o);
/* manifest-base-url: add BASE/redistrib_X.Y.Z.json for --cudnn X.Y[.Z] when not in the catalog */
cudnnctl_err cli_add_base_manifest(cli_opts *o, cudnnctl_ctx *ctx, cudnnctl_catalog *cat);

/* libopts.c: a library option struct filled from cli_opts by a table of rows, one per field that
 * corresponds (CLI_COPY: the two fields must be of one size, or it does not compile). */
typedef enum {
    CLI_COPY_SAME = 0, /* the value as it is */
    CLI_COPY_NOT,      /* an int flag, negated (--no-validate -> validate) */
    CLI_COPY_MS        /* unsigned seconds -> unsigned milliseconds */
} cli_copy_kind;
typedef struct {
    size_t to, from, size;
    cli_copy_kind kind;
} cli_copy;
#define CLI_COPY(T, to_f, from_f, kind)                                                           \
    {offsetof(T, to_f), offsetof(cli_opts, from_f),                                              \
     sizeof(((T *)0)->to_f) +                                                                    \
         0 * sizeof(char[sizeof(((T *)0)->to_f) == sizeof(((cli_opts *)0)->from_f) ? 1 : -1]),   \
     kind}
void cli_copy_opts(void *dst, const cli_opts *o, const cli_copy *map, size_t n);
/* --prefix or TARGET, --cuda-home, --device, --timeout (validate, report) */
cudnnctl_validate_opts cli_validate_opts(const cli_opts *o);

/* cancel.c: SIGINT/SIGTERM/SIGHUP cancel the library call through its cancel callback
 * (install, uninstall, rollback); cli_fail exits 128 + the signal for CUDNNCTL_E_INTERRUPTED. */
void cli_cancel_on_signals(cudnnctl_ctx *ctx);
int cli_signal_caught(void); /* the signal number, 0 when none came */

/* commands (one file each) */
int cmd_detect(cli_opts *o, cudnnctl_ctx *ctx);
int cmd_available(cli_opts *o, cudnnctl_ctx *ctx);
int cmd_plan(cli_opts *o, cudnnctl_ctx *ctx);
int cmd_install(cli_opts *o, cudnnctl_ctx *ctx);
int cmd_uninstall(cli_opts *o, cudnnctl_ctx *ctx);
int cmd_rollback(cli_opts *o, cudnnctl_ctx *ctx);
int cmd_list(cli_opts *o, cudnnctl_ctx *ctx);
int cmd_recover(cli_opts *o, cudnnctl_ctx *ctx);
int cmd_use(cli_opts *o, cudnnctl_ctx *ctx);
int cmd_env(cli_opts *o, cudnnctl_ctx *ctx);
int cmd_validate(cli_opts *o, cudnnctl_ctx *ctx);
int cmd_validate_child(cli_opts *o, cudnnctl_ctx *ctx);
int cmd_doctor(cli_opts *o, cudnnctl_ctx *ctx);
int cmd_report(cli_opts *o, cudnnctl_ctx *ctx);
int cmd_compare(cli_opts *o, cudnnctl_ctx *ctx);
int cmd_mirror(cli_opts *o, cudnnctl_ctx *ctx);
int cmd_update(cli_opts *o, cudnnctl_ctx *ctx);
int cmd_help(cli_opts *o, cudnnctl_ctx *ctx);
int cmd_config(cli_opts *o, cudnnctl_ctx *ctx);
int cmd_cache(cli_opts *o, cudnnctl_ctx *ctx);
int cmd_man(cli_opts *o, cudnnctl_ctx *ctx);        /* __man [CMD]: roff on stdout */
int cmd_doc_tables(cli_opts *o, cudnnctl_ctx *ctx); /* __doc-tables: docs/cli.md's tables */
int cmd_cli_check(cli_opts *o, cudnnctl_ctx *ctx);  /* __cli-check: the option table agrees */
int cmd_complete(cli_opts *o, cudnnctl_ctx *ctx);   /* __complete WORDS...: candidates */
int cmd_which(cli_opts *o, cudnnctl_ctx *ctx);
int cmd_load_probe(cli_opts *o, cudnnctl_ctx *ctx);

#endif
