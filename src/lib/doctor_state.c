/* doctor_state.c: doctor's checks of cudnnctl's own state: files that install receipts list
 * (gone, changed), and a journal left by an interrupted install or uninstall. */
#include <stdlib.h>
#include <string.h>

#include "doctor_int.h"

int cc_doc_state_load(cc_doctor_run *run)
{
    (void)run; /* receipts land with the install work */
    return 0;
}

void cc_doc_state_free(cc_doctor_run *run)
{
    for (size_t i = 0; i < run->n_installs; i++) {
        free(run->installs[i].lib_dir);
        free(run->installs[i].install_dir);
    }
    free(run->installs);
    run->installs = NULL;
    run->n_installs = 0;
}

int cc_doc_check_state(cc_doctor_run *run)
{
    (void)run;
    return 0;
}
