/* validate_vendor.c: fill the driver / CUDA runtime / cuDNN function tables with dlsym, each from
 * its list in validate_vendor.h. */
#include <string.h>

#include "platform.h"
#include "validate_vendor.h"

int cc_val_sym(void *h, const char *name, void *slot, size_t slot_size)
{
    void *s = h ? cc_pf_dlsym(h, name) : NULL;
    memcpy(slot, &s, slot_size < sizeof(s) ? slot_size : sizeof(s));
    return s != NULL;
}

/* One function of a table: its symbol, where its member lies, whether the load needs it. */
typedef struct {
    const char *symbol;
    size_t off, size;
    int required;
} sym_row;

/* A row of the table type T (defined around each list's use). */
#define ROW(ret, prefix, name, params, required)                                                   \
    {prefix #name, offsetof(T, name), sizeof(((T *)0)->name), required},

#define T cc_val_cuda
static const sym_row cuda_rows[] = {CC_VD_CUDA_FUNCS(ROW)};
#undef T
#define T cc_val_cudart
static const sym_row cudart_rows[] = {CC_VD_CUDART_FUNCS(ROW)};
#undef T
#define T cc_val_cudnn
static const sym_row version_rows[] = {CC_VD_CUDNN_VERSION_FUNCS(ROW)};
static const sym_row compute_rows[] = {CC_VD_CUDNN_COMPUTE_FUNCS(ROW)};
#undef T
#define T cc_val_backend
static const sym_row backend_rows[] = {CC_VD_BACKEND_FUNCS(ROW)};
#undef T

/* The rows' members of table t from h, in order; the first required symbol missing, or NULL. */
static const char *load(void *h, void *t, const sym_row *r, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!cc_val_sym(h, r[i].symbol, (char *)t + r[i].off, r[i].size) && r[i].required)
            return r[i].symbol;
    return NULL;
}

#define LOAD(h, t, rows) load((h), (t), (rows), sizeof(rows) / sizeof((rows)[0]))

const char *cc_val_load_cuda(cc_val_cuda *t)
{
    return LOAD(t->h, t, cuda_rows);
}

const char *cc_val_load_cudart(cc_val_cudart *t)
{
    return LOAD(t->h, t, cudart_rows);
}

const char *cc_val_load_cudnn_versions(cc_val_cudnn *t)
{
    return LOAD(t->h, t, version_rows);
}

const char *cc_val_load_cudnn_compute(cc_val_cudnn *t)
{
    return LOAD(t->h, t, compute_rows);
}

const char *cc_val_load_backend(void *h, cc_val_backend *t)
{
    return LOAD(h, t, backend_rows);
}
