/* envwire_out.c: human text for the changes env --persist / --remove and use made. */
#include <string.h>

#include "envwire_out.h"

void cli_print_changes(cli_opts *o, const cudnnctl_changes *c)
{
    if (o->json)
        return;
    for (size_t i = 0; i < c->n; i++) {
        const cudnnctl_change *e = &c->v[i];
        const char *d = e->detail ? e->detail : "";
        if (strcmp(e->action, "write") == 0)
            cli_info(o, "wrote    %s%s%s", e->path, *d ? "  " : "", d);
        else if (strcmp(e->action, "remove") == 0)
            cli_info(o, "removed  %s", e->path);
        else if (strcmp(e->action, "link") == 0)
            cli_info(o, "linked   %s -> %s", e->path, d);
        else if (strcmp(e->action, "line-add") == 0)
            cli_info(o, "added    to %s: %s", e->path, d);
        else if (strcmp(e->action, "line-remove") == 0)
            cli_info(o, "removed  cudnnctl line from %s", e->path);
        else if (strcmp(e->action, "run") == 0)
            cli_info(o, "ran      %s", e->path);
        else if (o->verbose || strcmp(e->path, "ldconfig") == 0)
            cli_info(o, "kept     %s%s%s", e->path, *d ? "  " : "", d);
    }
}
