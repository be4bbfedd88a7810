/* effective_out.h: the effective check as the commands that change the environment end. */
#ifndef CC_EFFECTIVE_OUT_H
#define CC_EFFECTIVE_OUT_H

#include "cli.h"

/* Run it (not under --root); warn one line per scope where another copy wins. Returns the JSON
 * array for --json (cudnnctl_free), NULL when not run. */
char *cli_effective(cli_opts *o, cudnnctl_ctx *ctx, const char *cudnn_version,
                    const char *expect_dir, const char *fix_current, const char *fix_login);
/* The fix for new login shells into buf: `[sudo ]cudnnctl env --persist --system ARGS` (args:
 * " --prefix P", leading space) when root would register lib_dir for every user; else an install
 * into a root-owned prefix first (never --persist --system for a dir another user can write). */
void cli_login_fix(cudnnctl_ctx *ctx, const char *lib_dir, const char *args,
                   const char *cudnn_version, int cuda_major, char *buf, size_t n);
/* Print doc with "key": value_json added (doc alone when value_json is NULL). */
void cli_print_json_with(const char *doc, const char *key, const char *value_json);

#endif
