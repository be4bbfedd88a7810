/* error.c (linux): errno → cudnnctl_err mapping and the thread's last platform error. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "platform.h"

static _Thread_local cudnnctl_err last_code = CUDNNCTL_E_OK;
static _Thread_local char last_text[2048]; /* trust refusals name long paths twice */
static _Thread_local int last_from_errno = 1;

void cc_pf_set_error(cudnnctl_err code, const char *text)
{
    last_code = code;
    snprintf(last_text, sizeof(last_text), "%s", text ? text : "");
    last_from_errno = 0;
}

/* Remember errno as the last error; called by every failing platform function. */
void cc_pf_errno_(void);
void cc_pf_errno_(void)
{
    int e = errno;
    switch (e) {
    case EACCES:
    case EPERM:
    case EROFS:
        last_code = CUDNNCTL_E_PERMISSION;
        break;
    case ENOENT:
    case ENOTDIR:
        last_code = CUDNNCTL_E_NOT_FOUND;
        break;
    case EEXIST:
    case ENOTEMPTY:
        last_code = CUDNNCTL_E_EXISTS;
        break;
    case ENOSPC:
    case EDQUOT:
        last_code = CUDNNCTL_E_NO_SPACE;
        break;
    case ENOMEM:
        last_code = CUDNNCTL_E_NOMEM;
        break;
    case EINTR:
        last_code = CUDNNCTL_E_INTERRUPTED;
        break;
    default:
        last_code = CUDNNCTL_E_IO;
    }
    snprintf(last_text, sizeof(last_text), "%s", strerror(e));
    last_from_errno = 1;
}

cudnnctl_err cc_pf_last_error(void)
{
    return last_code;
}

const char *cc_pf_last_error_text(void)
{
    return last_text;
}
