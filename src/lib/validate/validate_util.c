/* validate_util.c: the pure parts of validation: cuDNN version encodings, versions in library
 * file names, the loaded-from rule, fp16 conversion and the child's scrubbed environment. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "validate_int.h"

void cc_val_decode_cudnn_version(long v, int *major, int *minor, int *patch)
{
    /* 9.x: M*10000 + m*100 + p (91900); up to 8.x: M*1000 + m*100 + p (8907, 7605). */
    if (v >= 10000) {
        *major = (int)(v / 10000);
        *minor = (int)(v / 100 % 100);
    } else {
        *major = (int)(v / 1000);
        *minor = (int)(v / 100 % 10);
    }
    *patch = (int)(v % 100);
}

int cc_val_file_version(const char *name, int parts[3])
{
    const char *base = cc_path_base(name);
    const char *so = strstr(base, ".so.");
    int n = 0;
    if (!so)
        return 0;
    const char *p = so + 4;
    while (n < 3 && *p >= '0' && *p <= '9') {
        long v = 0;
        while (*p >= '0' && *p <= '9')
            v = v * 10 + (*p++ - '0');
        parts[n++] = (int)v;
        if (*p == '.')
            p++;
        else
            break;
    }
    return n;
}

static char *version_mismatch(const char *name, int major, int minor, int patch)
{
    int parts[3];
    int n = cc_val_file_version(name, parts);
    const int want[3] = {major, minor, patch};
    for (int i = 0; i < n; i++)
        if (parts[i] != want[i]) {
            char have[48];
            if (n == 1)
                snprintf(have, sizeof(have), "%d", parts[0]);
            else if (n == 2)
                snprintf(have, sizeof(have), "%d.%d", parts[0], parts[1]);
            else
                snprintf(have, sizeof(have), "%d.%d.%d", parts[0], parts[1], parts[2]);
            return cc_asprintf("%s carries version %s", cc_path_base(name), have);
        }
    return NULL;
}

char *cc_val_judge_module(const char *mapped, const char *real, const char *mapped_dir_real,
                          const char *target_dir_real, int major, int minor, int patch)
{
    const char *what = cc_path_base(mapped);
    if (!mapped_dir_real || !target_dir_real || strcmp(mapped_dir_real, target_dir_real) != 0)
        return cc_asprintf("%s was mapped from %s (file %s), not from the validated dir %s", what,
                           mapped, real ? real : mapped, target_dir_real ? target_dir_real : "?");
    char *why = version_mismatch(mapped, major, minor, patch);
    if (!why && real)
        why = version_mismatch(real, major, minor, patch);
    if (why) {
        char *r = cc_asprintf("%s (%s): %s, but the loaded libcudnn is %d.%d.%d", what,
                              real ? real : mapped, why, major, minor, patch);
        free(why);
        return r;
    }
    return NULL;
}

uint16_t cc_val_f2h(float f)
{
    uint32_t x;
    memcpy(&x, &f, sizeof(x));
    uint32_t sign = (x >> 16) & 0x8000u;
    uint32_t fexp = (x >> 23) & 0xffu;
    uint32_t mant = x & 0x7fffffu;
    if (fexp == 0xff)
        return (uint16_t)(sign | 0x7c00u | (mant ? 0x200u : 0));
    int32_t exp = (int32_t)fexp - 127 + 15;
    if (exp >= 31)
        return (uint16_t)(sign | 0x7c00u);
    if (exp <= 0) {
        if (exp < -10)
            return (uint16_t)sign;
        mant |= 0x800000u;
        uint32_t shift = (uint32_t)(14 - exp);
        uint32_t h = mant >> shift;
        uint32_t rem = mant & ((1u << shift) - 1);
        uint32_t half = 1u << (shift - 1);
        if (rem > half || (rem == half && (h & 1u)))
            h++;
        return (uint16_t)(sign | h);
    }
    uint32_t h = ((uint32_t)exp << 10) | (mant >> 13);
    uint32_t rem = mant & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1u)))
        h++; /* a carry into the exponent is the right rounding */
    return (uint16_t)(sign | h);
}

float cc_val_h2f(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu;
    uint32_t mant = h & 0x3ffu;
    uint32_t x;
    if (exp == 0) {
        if (!mant) {
            x = sign;
        } else {
            uint32_t e = 127 - 15 + 1;
            while (!(mant & 0x400u)) {
                mant <<= 1;
                e--;
            }
            x = sign | (e << 23) | ((mant & 0x3ffu) << 13);
        }
    } else if (exp == 31) {
        x = sign | 0x7f800000u | (mant << 13);
    } else {
        x = sign | ((exp - 15 + 127) << 23) | (mant << 13);
    }
    float f;
    memcpy(&f, &x, sizeof(f));
    return f;
}

/* Variables the child keeps: identity, locale, which GPUs, vendor logging, and the NVLink
 * multicast switches this project's GPU hosts require to stay set in every process. */
static const char *const keep_vars[] = {
    "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "LC_CTYPE", "TMPDIR", "TZ",
    "CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER", "CUDA_CACHE_PATH", "CUDA_CACHE_DISABLE",
    "CUDA_CACHE_MAXSIZE", "CUDA_MODULE_LOADING", "CUDNN_LOGLEVEL_DBG", "CUDNN_LOGDEST_DBG",
    "CUDNN_LOGINFO_DBG", "CUDNN_LOGWARN_DBG", "CUDNN_LOGERR_DBG", "CUDNN_FRONTEND_LOG_INFO",
    "CUDNN_FRONTEND_LOG_FILE", "NCCL_NVLS_ENABLE", "TORCH_SYMM_MEM_DISABLE_MULTICAST",
    "NVSHMEM_DISABLE_NVLS", "SystemRoot", "WINDIR", NULL};

/* A PATH entry holding cuDNN libraries (libcudnn*, cudnn*.dll) must not reach the child. */
static int dir_has_cudnn(const char *dir)
{
    cc_pf_dir *d = cc_pf_opendir(dir);
    if (!d)
        return 0;
    const char *n;
    int found = 0;
    while (!found && (n = cc_pf_readdir(d)) != NULL)
        if (cc_str_cudnn_lib(n) || (cc_str_starts(n, "cudnn") && cc_str_ends(n, ".dll")))
            found = 1;
    cc_pf_closedir(d);
    return found;
}

int cc_val_child_env(cc_strv *out)
{
    for (size_t i = 0; keep_vars[i]; i++) {
        const char *v = cc_pf_getenv(keep_vars[i]);
        if (v && cc_strv_push_own(out, cc_asprintf("%s=%s", keep_vars[i], v)) != 0)
            return -1;
    }
    const char *path = cc_pf_getenv("PATH");
    if (path) {
        cc_buf b = {0};
        char sep = cc_pf_path_list_sep();
        const char *p = path;
        if (cc_buf_puts(&b, "PATH=") != 0)
            return -1;
        size_t start_len = b.len;
        while (*p) {
            const char *e = strchr(p, sep);
            size_t n = e ? (size_t)(e - p) : strlen(p);
            char *ent = cc_strndup(p, n);
            if (!ent) {
                cc_buf_free(&b);
                return -1;
            }
            if (n > 0 && !dir_has_cudnn(ent)) {
                if (b.len > start_len)
                    cc_buf_append(&b, &sep, 1);
                cc_buf_puts(&b, ent);
            }
            free(ent);
            p += n;
            if (*p == sep)
                p++;
        }
        int rc = cc_strv_push(out, b.data ? b.data : "PATH=");
        cc_buf_free(&b);
        if (rc != 0)
            return -1;
    }
    return 0;
}
