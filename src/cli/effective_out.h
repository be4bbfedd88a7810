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
/* The same with its children started early (cli_effective_early, before the install: a login
 * shell's start-up overlaps the work); pre NULL: started now. pre is consumed. */
char *cli_effective_with(cli_opts *o, cudnnctl_ctx *ctx, cudnnctl_effective_probe *pre,
                         const char *cudnn_version, const char *expect_dir,
                         const char *fix_current, const char *fix_login);
/* Start the children of the check that will end the command (NULL under --root, on a platform
 * without glibc's loader, or when they cannot start: the check then starts them itself);
 * cudnnctl_effective_cancel when the command ends without the check. */
cudnnctl_effective_probe *cli_effective_early(cli_opts *o, cudnnctl_ctx *ctx);
/* Print doc with "key": value_json added (doc alone when value_json is NULL). */
void cli_print_json_with(const char *doc, const char *key, const char *value_json);

#endif
