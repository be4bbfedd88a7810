/* envwire_out.h: how the env and use commands show the changes they made. */
#ifndef CC_CLI_ENVWIRE_OUT_H
#define CC_CLI_ENVWIRE_OUT_H

#include "cli.h"

/* One line per change ("wrote ...", "linked ... -> ...", "ran ldconfig"); under --json nothing. */
void cli_print_changes(cli_opts *o, const cudnnctl_changes *c);

#endif
