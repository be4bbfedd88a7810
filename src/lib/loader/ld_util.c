/* ld_util.c: the bottom file of the loader stage — reading a file whole, recording why a
 * candidate was skipped and what was found, growing a which report — used by the model, the
 * resolver, the consumer readers and the reports alike. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "grow.h"
#include "ldmodel.h"
#include "platform.h"

int cc_ld_read_file(const char *host, size_t max, char **data, size_t *len)
{
    cc_pf_fd fd = cc_pf_open(host, CC_PF_O_RDONLY, 0);
    if (fd < 0)
        return -1;
    cc_buf b = {0};
    char chunk[65536];
    long long n;
    while ((n = cc_pf_read(fd, chunk, sizeof(chunk))) > 0 && b.len < max)
        if (cc_buf_append(&b, chunk, (size_t)n) != 0) {
            n = -1;
            break;
        }
    cc_pf_close(fd);
    if (n < 0 || b.len > max || cc_buf_append(&b, "", 1) != 0) {
        cc_buf_free(&b);
        return -1;
    }
    *data = b.data;
    *len = b.len - 1;
    return 0;
}

void cc_ld_skip(cudnnctl_load_result *r, const char *path, const char *reason)
{
    cc_strs_push(&r->skipped, &r->n_skipped, cc_asprintf("%s: %s", path, reason));
}

void cc_ld_found(cudnnctl_load_result *r, const char *rule, const char *from, const char *fmt, ...)
{
    free(r->rule);
    free(r->from);
    free(r->why);
    r->rule = cc_strdup(rule);
    r->from = from ? cc_strdup(from) : NULL;
    va_list ap;
    va_start(ap, fmt);
    r->why = cc_vasprintf(fmt, ap);
    va_end(ap);
}

cudnnctl_err cc_ld_push_consumer(cudnnctl_which_report *rep, cudnnctl_consumer **out)
{
    if (cc_grow(&rep->v, NULL, rep->n + 1, sizeof(*rep->v)) != 0)
        return CUDNNCTL_E_NOMEM;
    *out = &rep->v[rep->n++];
    memset(*out, 0, sizeof(**out));
    (*out)->need_cudnn_major = (*out)->need_cudnn_minor = (*out)->need_cuda_major = -1;
    return CUDNNCTL_E_OK;
}

void cc_ld_problem(cudnnctl_consumer *c, char *text)
{
    cc_strs_push(&c->problems, &c->n_problems, text);
}

void cc_ld_note(cudnnctl_consumer *c, char *text)
{
    cc_strs_push(&c->notes, &c->n_notes, text);
}

char *cc_ld_first_version(const char *s)
{
    for (const char *p = s; *p && *p != '\n'; p++) {
        if (*p < '0' || *p > '9' || (p > s && p[-1] != ' ' && p[-1] != '\t'))
            continue;
        size_t n = strspn(p, "0123456789.");
        if (memchr(p, '.', n) && n > 2)
            return cc_strndup(p, n);
    }
    return NULL;
}
