/* effective_out.h: the effective check as the commands that change the environment end. */
#ifndef CC_EFFECTIVE_OUT_H
#define CC_EFFECTIVE_OUT_H

#include "cli.h"

/* Run it (not under --root); warn one line per scope where another copy wins. Returns the JSON
 * array for --json (cudnnctl_free), NULL when not run. NULL fixes: the library's
 * (cudnnctl_activation_fix: the activation, or a root-owned prefix where root must not register
 * the dir for every user). */
char *cli_effective(cli_opts *o, cudnnctl_ctx *ctx, const char *cudnn_version,
                    const char *expect_dir, const char *fix_current, const char *fix_login);
/* Print doc with "key": value_json added (doc alone when value_json is NULL). */
void cli_print_json_with(const char *doc, const char *key, const char *value_json);

#endif
