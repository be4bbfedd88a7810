/* txn_name.c: the names a transaction gives its temporary files beside their destination
 * (".cudnnctl-<txn>-<what>-<name>"): the bottom file that journal.c and inuse.c both use. */
#include <stdlib.h>

#include "journal.h"

char *cc_txn_temp_name(const cc_txn *t, const char *dst, const char *what)
{
    char *dir = cc_path_dir(dst);
    char *name = dir ? cc_asprintf(".cudnnctl-%s-%s-%s", t->id, what, cc_path_base(dst)) : NULL;
    char *r = name ? cc_path_join(dir, name) : NULL;
    free(dir);
    free(name);
    return r;
}
