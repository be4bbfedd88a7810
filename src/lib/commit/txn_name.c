/* txn_name.c: the names a transaction gives its temporary files beside their destination
 * (".cudnnctl-<txn>-<what>-<name>"): the bottom file that journal.c and inuse.c both use. */
#include <stdlib.h>
#include <string.h>

#include "journal.h"
#include "txfs.h"

char *cc_txn_temp_name(const cc_txn *t, const char *dst, const char *what)
{
    /* next to dst; when dst's dir is one the transaction has yet to create (its mkdirs, made at
     * the commit), in the nearest dir that exists, the rest of the path folded into the name
     * with '%', so nothing new is visible in the tree before the commit starts */
    char *dir = cc_path_dir(dst), *rest = cc_strdup(cc_path_base(dst));
    while (dir && rest && cc_tx_kind(dir) != CC_OBJ_DIR) {
        char *up = cc_path_dir(dir);
        char *folded = up ? cc_asprintf("%s%%%s", cc_path_base(dir), rest) : NULL;
        int top = up && strcmp(up, dir) == 0;
        free(dir);
        free(rest);
        dir = up;
        rest = folded;
        if (top)
            break;
    }
    char *name = dir && rest ? cc_asprintf(".cudnnctl-%s-%s-%s", t->id, what, rest) : NULL;
    char *r = name ? cc_path_join(dir, name) : NULL;
    free(dir);
    free(rest);
    free(name);
    return r;
}
