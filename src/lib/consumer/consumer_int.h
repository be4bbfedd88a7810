/* consumer_int.h: what the consumer folder's files share (frameworks of a Python interpreter,
 * their own loading code, the fixes, the driver stack). Included only by files in
 * src/lib/consumer/ (and the unit tests). */
#ifndef CC_CONSUMER_INT_H
#define CC_CONSUMER_INT_H

#include "ldmodel.h"

/* rooted_files.c: 1 when path (under --root) exists, following a last link when follow; the
 * text of the file (at most max bytes, malloc'd) or NULL (path NULL, unreadable, larger). */
int cc_consumer_rooted_exists(const cudnnctl_ctx *ctx, const char *path, int follow);
char *cc_consumer_rooted_text(const cudnnctl_ctx *ctx, const char *path, size_t max);
/* The container this runs in ("docker", "podman", "kubernetes", ...) or NULL (driver_stack.c). */
const char *cc_consumer_container(cudnnctl_ctx *ctx);
/* consumer_fix.c: the one fix for a judged consumer's causes (c->fix, c->fix_command). */
void cc_consumer_fix(cudnnctl_ctx *ctx, const cudnnctl_which_report *rep, cudnnctl_consumer *c);
/* 1 when a PEP 440 requirement spec (">=9.12.0.46,<10.0", "==9.19.0.56") allows version. */
int cc_consumer_spec_allows(const char *spec, const char *version);
/* What an interpreter's own loading code sees (pyloaders.c): sys.path in order, sysconfig's
 * purelib, the LD_LIBRARY_PATH modelled. */
typedef struct {
    const cc_strv *syspath;
    const char *purelib;
    const char *llp;
} cc_py_env;
/* The libcudnn file a framework's own Python code loads by path before its extension asks the
 * loader (root-relative; NULL: none), *why the sentence; *by_name: a soname that code dlopens by
 * name instead (the loader's search from the interpreter). */
char *cc_consumer_py_preload(cudnnctl_ctx *ctx, const cc_py_env *env, const cudnnctl_consumer *c,
                             const char *site, char **why, char **by_name);
/* A note on an opt-in preload the package offers (onnxruntime.preload_dlls); NULL none. */
char *cc_consumer_py_preload_note(cudnnctl_ctx *ctx, const cudnnctl_consumer *c, const char *site);
/* consumers.c: the frameworks of a Python interpreter */
cudnnctl_err cc_consumer_python(cudnnctl_ctx *ctx, const cudnnctl_which_opts *o,
                                cudnnctl_which_report *rep);

#endif
