/* registry.c (linux): the Windows registry / persistent environment block of platform.h, which has
 * no Linux meaning: every function fails with CUDNNCTL_E_UNSUPPORTED. The library reaches the
 * registry through its host profile (src/lib/core/host.h), whose in-memory backend runs the
 * Windows policy here. */
#include <stdlib.h>

#include "platform.h"

static int unsupported(void)
{
    cc_pf_set_error(CUDNNCTL_E_UNSUPPORTED, "the Windows registry exists only on Windows");
    return -1;
}

int cc_pf_reg_get(const char *key, const char *name, char **value, int *type)
{
    (void)key;
    (void)name;
    *value = NULL;
    *type = CC_PF_REG_NONE;
    return unsupported();
}

int cc_pf_reg_set(const char *key, const char *name, const char *value, int type)
{
    (void)key;
    (void)name;
    (void)value;
    (void)type;
    return unsupported();
}

int cc_pf_reg_delete(const char *key, const char *name)
{
    (void)key;
    (void)name;
    return unsupported();
}

char **cc_pf_reg_subkeys(const char *key)
{
    (void)key;
    unsupported();
    return NULL;
}

int cc_pf_env_broadcast(void)
{
    return unsupported();
}

char *cc_pf_expand_env(const char *s)
{
    (void)s;
    unsupported();
    return NULL;
}
