/* front_subs.c: a program linked against libcudnn.so.9 that makes it load its sub-libraries
 * (cudnnGraphVersionCheck, cudnnOpsVersionCheck, ...: no GPU needed), prints the status of each,
 * cudnnGetVersion(), and every libcudnn* object the loader mapped (dl_iterate_phdr). Exit 0 only
 * when every check returned CUDNN_STATUS_SUCCESS: the real test of whether a set fits. */
#define _GNU_SOURCE
#include <stdio.h>

#include "show_mapped.h"

extern int cudnnGraphVersionCheck(void);
extern int cudnnOpsVersionCheck(void);
extern int cudnnCnnVersionCheck(void);
extern int cudnnAdvVersionCheck(void);
extern size_t cudnnGetVersion(void);

int main(void)
{
    int g = cudnnGraphVersionCheck(), o = cudnnOpsVersionCheck(), c = cudnnCnnVersionCheck(),
        a = cudnnAdvVersionCheck();
    printf("version %zu graph %d ops %d cnn %d adv %d\n", cudnnGetVersion(), g, o, c, a);
    dl_iterate_phdr(show, NULL);
    return g || o || c || a;
}
