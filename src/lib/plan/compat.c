/* compat.c: lookups over the compatibility tables: driver floors, tested toolkit ranges, and
 * resolving a --for framework release to the cuDNN and CUDA it was built with. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog_model.h"
#include "compat.h"

const char *cc_compat_driver_floor(int cuda_major, const char *platform)
{
    int windows = platform && cc_str_starts(platform, "windows");
    for (size_t i = 0; i < cc_driver_floor_count; i++)
        if (cc_driver_floors[i].cuda_major == cuda_major)
            return windows ? cc_driver_floors[i].windows_floor : cc_driver_floors[i].linux_floor;
    return NULL;
}

/* Compare v with bound on the first n parts only (so "2.9" falls inside "2.9.1".."2.9.1"). */
static int cmp_parts(const cc_version *v, const char *bound, int n)
{
    cc_version b;
    if (cc_version_parse(bound, &b) != 0)
        return 1;
    for (int i = 0; i < n && i < 4; i++) {
        int x = v->part[i] < 0 ? 0 : v->part[i], y = b.part[i] < 0 ? 0 : b.part[i];
        if (x != y)
            return x < y ? -1 : 1;
    }
    return 0;
}

static int in_range(const cc_version *v, const char *lo, const char *hi)
{
    return cmp_parts(v, lo, v->n) >= 0 && cmp_parts(v, hi, v->n) <= 0;
}

const cc_toolkit_range *cc_compat_toolkit_range(const char *cudnn_version, int cuda_major)
{
    cc_version v;
    if (cc_version_parse(cudnn_version, &v) != 0)
        return NULL;
    v.n = v.n > 3 ? 3 : v.n; /* the rows name 3-part releases */
    for (size_t i = 0; i < cc_toolkit_range_count; i++) {
        const cc_toolkit_range *r = &cc_toolkit_ranges[i];
        if (r->cuda_major == cuda_major && in_range(&v, r->cudnn_lo, r->cudnn_hi))
            return r;
    }
    return NULL;
}

void cc_consumer_clear(cc_consumer *c)
{
    free(c->label);
    free(c->pkg);
    memset(c, 0, sizeof(*c));
}

/* "cu130" → 13.0, "cu118" → 11.8, "cu92" → 9.2 */
static int parse_cu_tag(const char *s, int *major, int *minor)
{
    if (!cc_str_starts(s, "cu"))
        return -1;
    s += 2;
    size_t n = strlen(s);
    if (n < 2 || n > 3)
        return -1;
    for (size_t i = 0; i < n; i++)
        if (!isdigit((unsigned char)s[i]))
            return -1;
    int x = atoi(s);
    *major = x / 10;
    *minor = x % 10;
    return 0;
}

static void cuda_of(const cc_consumer_pin *p, int *major, int *minor)
{
    if (cc_cuda_variant_parse(p->cuda, major, minor) != 0 || *minor < 0)
        *minor = 0;
}

/* Known builds of the rows that matched, for messages: "cu128, cu129, cu130". */
static char *list_builds(const cc_consumer_pin **rows, size_t n)
{
    cc_buf b = {0};
    for (size_t i = 0; i < n; i++) {
        int M, m;
        cuda_of(rows[i], &M, &m);
        char tag[16];
        snprintf(tag, sizeof(tag), "cu%d%d", M, m);
        if (b.data && strstr(b.data, tag))
            continue;
        cc_buf_printf(&b, "%s%s (CUDA %s)", b.len ? ", " : "", tag, rows[i]->cuda);
    }
    return b.data ? b.data : cc_strdup("");
}

static char *list_releases(const char *pkg)
{
    cc_buf b = {0};
    for (size_t i = 0; i < cc_consumer_pin_count; i++) {
        const cc_consumer_pin *p = &cc_consumer_pins[i];
        if (strcmp(p->pkg, pkg) != 0)
            continue;
        char *one = strcmp(p->ver_lo, p->ver_hi) == 0 ? cc_strdup(p->ver_lo)
                    : cc_str_ends(p->ver_hi, ".999")
                        ? cc_asprintf("%s-%.*s.x", p->ver_lo, (int)strlen(p->ver_hi) - 4, p->ver_hi)
                        : cc_asprintf("%s-%s", p->ver_lo, p->ver_hi);
        if (one && !(b.data && strstr(b.data, one)))
            cc_buf_printf(&b, "%s%s", b.len ? ", " : "", one);
        free(one);
    }
    return b.data ? b.data : cc_strdup("");
}

/* A --for request: framework, release and the CUDA build tag it asks for (0 / -1: none). */
typedef struct {
    char *name, *ver;
    int want_M, want_m;
    cc_version v;
} for_req;

/* Parse "torch==2.9.1+cu130" in place (spec is a copy of for_pkg). */
static cudnnctl_err parse_for(cudnnctl_ctx *ctx, const char *for_pkg, char *spec, for_req *q)
{
    char *eq = strstr(spec, "==");
    if (!eq || eq == spec || !eq[2])
        CC_RET_ERR(ctx, CUDNNCTL_E_USAGE,
                   "--for %s: give a framework release as torch==2.9.1 (optionally +cu130) or "
                   "tensorflow==2.18.0",
                   for_pkg);
    *eq = '\0';
    q->name = spec;
    q->ver = eq + 2;
    char *bracket = strchr(q->name, '['); /* tensorflow[and-cuda]==2.18.0 */
    if (bracket)
        *bracket = '\0';
    for (char *c = q->name; *c; c++)
        *c = (char)tolower((unsigned char)*c);
    if (strcmp(q->name, "pytorch") == 0)
        q->name = "torch";
    if (strcmp(q->name, "tensorflow-gpu") == 0 || strcmp(q->name, "tf") == 0)
        q->name = "tensorflow";
    if (strcmp(q->name, "torch") != 0 && strcmp(q->name, "tensorflow") != 0)
        CC_RET_ERR(ctx, CUDNNCTL_E_USAGE,
                   "--for %s: known frameworks are torch and tensorflow; for anything else pass "
                   "the cuDNN it needs with --cudnn",
                   for_pkg);
    q->want_M = 0;
    q->want_m = -1;
    char *plus = strchr(q->ver, '+');
    if (plus) {
        *plus = '\0';
        if (parse_cu_tag(plus + 1, &q->want_M, &q->want_m) != 0)
            CC_RET_ERR(ctx, CUDNNCTL_E_USAGE,
                       "--for %s: the build tag after '+' must look like cu130 or cu128", for_pkg);
    }
    if (cc_version_parse(q->ver, &q->v) != 0)
        CC_RET_ERR(ctx, CUDNNCTL_E_USAGE, "--for %s: '%s' is not a release number", for_pkg,
                   q->ver);
    return CUDNNCTL_E_OK;
}

/* Pick the framework build: the one asked for, else the one for the toolkit's CUDA. */
static const cc_consumer_pin *pick_build(const cc_consumer_pin **rows, size_t n, const for_req *q,
                                         int tk_major, int tk_minor, int *bM, int *bm)
{
    const cc_consumer_pin *best = NULL;
    *bM = *bm = 0;
    for (size_t i = 0; i < n; i++) {
        int M, m;
        cuda_of(rows[i], &M, &m);
        int take = 0;
        if (q->want_M)
            take = M == q->want_M && m == q->want_m;
        else if (tk_major && M != tk_major)
            take = 0;
        else if (!best)
            take = 1;
        else if (tk_major && tk_minor >= 0)
            /* the newest build not newer than the toolkit; else the oldest */
            take = (m <= tk_minor && (*bm > tk_minor || m > *bm)) || (*bm > tk_minor && m < *bm);
        else
            take = M > *bM || (M == *bM && m > *bm);
        if (take) {
            best = rows[i];
            *bM = M;
            *bm = m;
        }
    }
    return best;
}

cudnnctl_err cc_compat_consumer(cudnnctl_ctx *ctx, const char *for_pkg, int tk_major, int tk_minor,
                                cc_consumer *out)
{
    memset(out, 0, sizeof(*out));
    cudnnctl_err e = CUDNNCTL_E_OK;
    char *spec = cc_strdup(for_pkg), *msg = NULL;
    const cc_consumer_pin **rows = NULL;
    for_req q;
    if (!spec)
        return CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    if ((e = parse_for(ctx, for_pkg, spec, &q)) != CUDNNCTL_E_OK)
        goto out;
    const char *name = q.name, *ver = q.ver;
    rows = malloc(cc_consumer_pin_count * sizeof(*rows));
    if (!rows) {
        e = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
        goto out;
    }
    size_t n = 0;
    for (size_t i = 0; i < cc_consumer_pin_count; i++) {
        const cc_consumer_pin *p = &cc_consumer_pins[i];
        if (strcmp(p->pkg, name) == 0 && in_range(&q.v, p->ver_lo, p->ver_hi))
            rows[n++] = p;
    }
    if (n == 0) {
        msg = list_releases(name);
        e = CC_ERR(ctx, CUDNNCTL_E_NO_PIN,
                   "no cuDNN pin is recorded for %s %s (known: %s): pass the cuDNN it needs with "
                   "--cudnn (see its wheel's Requires-Dist on nvidia-cudnn-cu*)",
                   name, ver, msg ? msg : "");
        goto out;
    }
    int bM, bm;
    const cc_consumer_pin *best = pick_build(rows, n, &q, tk_major, tk_minor, &bM, &bm);
    if (!best) {
        msg = list_builds(rows, n);
        if (q.want_M)
            e = CC_ERR(ctx, CUDNNCTL_E_NO_PIN,
                       "no cu%d%d build of %s %s is recorded (known builds: %s): drop the +cu tag "
                       "or pass --cudnn",
                       q.want_M, q.want_m, name, ver, msg ? msg : "");
        else
            e = CC_ERR(ctx, CUDNNCTL_E_NO_MATCH,
                       "%s %s is built for %s, and the toolkit is CUDA %d: use a toolkit of one of "
                       "those majors (--cuda-home DIR / --cuda M) or another %s release",
                       name, ver, msg ? msg : "", tk_major, name);
        goto out;
    }
    out->pkg = cc_strdup(name);
    out->label = strcmp(name, "torch") == 0 ? cc_asprintf("%s==%s+cu%d%d", name, ver, bM, bm)
                                            : cc_asprintf("%s==%s", name, ver);
    out->cuda_major = bM;
    out->cuda_minor = bm;
    out->cudnn = best->cudnn;
    out->exact = best->exact;
    out->source = best->source;
    if (!out->pkg || !out->label) {
        cc_consumer_clear(out);
        e = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    }
out:
    free(rows);
    free(msg);
    free(spec);
    return e;
}
