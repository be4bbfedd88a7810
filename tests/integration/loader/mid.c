/* mid.c: a shared object between a program and libcudnn (DT_NEEDED libcudnn.so.9), for the
 * indirect-dependency rules: whose DT_RPATH / DT_RUNPATH applies to a dependency's dependency. */
extern int cudnnGetVersion(void);
int mid_version(void) { return cudnnGetVersion(); }
