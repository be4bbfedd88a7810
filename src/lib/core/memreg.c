/* memreg.c: an in-memory registry behind the host profile's registry backend (host.h). Keys and
 * value names compare case-insensitively as in Windows; "HKEY_CURRENT_USER" and "HKCU" (and the
 * other hives) are the same key. Types and values are kept as given (REG_EXPAND_SZ unexpanded). */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "host.h"
#include "grow.h"
#include "platform.h"
#include "str.h"

typedef struct {
    char *key, *name, *value;
    int type;
} memreg_val;

struct cc_memreg {
    memreg_val *v;
    size_t n, cap;
    unsigned broadcasts;
};

cc_memreg *cc_memreg_new(void)
{
    return calloc(1, sizeof(cc_memreg));
}

void cc_memreg_free(cc_memreg *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->n; i++) {
        free(m->v[i].key);
        free(m->v[i].name);
        free(m->v[i].value);
    }
    free(m->v);
    free(m);
}

unsigned cc_memreg_broadcasts(const cc_memreg *m)
{
    return m->broadcasts;
}

/* "HKEY_LOCAL_MACHINE\X" -> "HKLM\X"; separators '\\'; no trailing '\\' (malloc'd). */
static char *norm_key(const char *key)
{
    static const char *const hives[][2] = {{"HKEY_LOCAL_MACHINE", "HKLM"},
                                           {"HKEY_CURRENT_USER", "HKCU"},
                                           {"HKEY_USERS", "HKU"},
                                           {"HKEY_CLASSES_ROOT", "HKCR"}};
    for (size_t i = 0; i < sizeof(hives) / sizeof(hives[0]); i++) {
        size_t n = strlen(hives[i][0]);
        if (strncmp(key, hives[i][0], n) == 0 && (key[n] == '\\' || !key[n]))
            return cc_asprintf("%s%s", hives[i][1], key + n);
    }
    char *k = cc_strdup(key);
    size_t n = k ? strlen(k) : 0;
    while (n && k[n - 1] == '\\')
        k[--n] = '\0';
    return k;
}

static memreg_val *find(cc_memreg *m, const char *key, const char *name)
{
    for (size_t i = 0; i < m->n; i++)
        if (cc_str_ieq(m->v[i].key, key) && cc_str_ieq(m->v[i].name, name))
            return &m->v[i];
    return NULL;
}

static int mr_get(void *u, const char *key, const char *name, char **value, int *type)
{
    char *k = norm_key(key);
    *value = NULL;
    *type = CC_PF_REG_NONE;
    if (!k)
        return -1;
    memreg_val *e = find(u, k, name);
    free(k);
    if (e) {
        *type = e->type;
        if (!(*value = cc_strdup(e->value)))
            return -1;
    }
    return 0;
}

static int mr_set(void *u, const char *key, const char *name, const char *value, int type)
{
    cc_memreg *m = u;
    char *k = norm_key(key), *v = cc_strdup(value);
    if (!k || !v) {
        free(k);
        free(v);
        return -1;
    }
    memreg_val *e = find(m, k, name);
    if (e) {
        free(k);
        free(e->value);
        e->value = v;
        e->type = type;
        return 0;
    }
    if (cc_grow(&m->v, &m->cap, m->n + 1, sizeof(*m->v)) != 0) {
        free(k);
        free(v);
        return -1;
    }
    e = &m->v[m->n];
    if (!(e->name = cc_strdup(name))) {
        free(k);
        free(v);
        return -1;
    }
    e->key = k;
    e->value = v;
    e->type = type;
    m->n++;
    return 0;
}

static int mr_del(void *u, const char *key, const char *name)
{
    cc_memreg *m = u;
    char *k = norm_key(key);
    if (!k)
        return -1;
    memreg_val *e = find(m, k, name);
    free(k);
    if (e) {
        free(e->key);
        free(e->name);
        free(e->value);
        *e = m->v[--m->n];
    }
    return 0;
}

static char **mr_subkeys(void *u, const char *key)
{
    cc_memreg *m = u;
    char *k = norm_key(key);
    cc_strv out = {0};
    int bad = !k || !(out.v = calloc(1, sizeof(char *)));
    size_t kl = k ? strlen(k) : 0;
    for (size_t i = 0; !bad && i < m->n; i++) {
        const char *ek = m->v[i].key;
        if (strlen(ek) <= kl + 1 || ek[kl] != '\\')
            continue;
        char *head = cc_strndup(ek, kl);
        int under = head && cc_str_ieq(head, k);
        free(head);
        if (!under)
            continue;
        const char *sub = ek + kl + 1, *end = strchr(sub, '\\');
        char *s = cc_strndup(sub, end ? (size_t)(end - sub) : strlen(sub));
        int dup = 0;
        for (size_t j = 0; s && j < out.n && !dup; j++)
            dup = cc_str_ieq(out.v[j], s);
        if (!s || dup)
            free(s);
        else
            bad = cc_strv_push_own(&out, s) != 0;
    }
    free(k);
    if (bad) {
        cc_strv_free(&out);
        return NULL;
    }
    return out.v;
}

static int mr_broadcast(void *u)
{
    ((cc_memreg *)u)->broadcasts++;
    return 0;
}

void cc_memreg_backend(cc_memreg *m, cc_host_registry *out)
{
    *out = (cc_host_registry){.get = mr_get,
                              .set = mr_set,
                              .del = mr_del,
                              .subkeys = mr_subkeys,
                              .broadcast = mr_broadcast,
                              .user = m};
}
