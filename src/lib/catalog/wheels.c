/* wheels.c: look-ups in the wheel catalog (wheels.h), and --source for a plan: the wheel when
 * the release has one for that CUDA major, platform and flavour and the selection is in it
 * (runtime libraries and headers; a wheel carries no static archives), else the archive. */
#include "wheels.h"

#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "str.h"

const char *cudnnctl_source_name(cudnnctl_source s)
{
    return s == CUDNNCTL_SOURCE_WHEEL ? "wheel" : s == CUDNNCTL_SOURCE_AUTO ? "auto" : "archive";
}

int cudnnctl_source_parse(const char *s, cudnnctl_source *out)
{
    static const cudnnctl_source all[] = {CUDNNCTL_SOURCE_ARCHIVE, CUDNNCTL_SOURCE_WHEEL,
                                          CUDNNCTL_SOURCE_AUTO};
    for (size_t i = 0; s && i < 3; i++)
        if (strcmp(s, cudnnctl_source_name(all[i])) == 0) {
            *out = all[i];
            return 0;
        }
    return -1;
}

/* Row i of the catalog: the embedded rows, then the stored ones. */
static const cc_wheel_row *row_at(const cc_wheel_row *stored, size_t i)
{
    return i < cc_wheel_row_count ? &cc_wheel_rows[i] : &stored[i - cc_wheel_row_count];
}

const cc_wheel_row *cc_wheel_by_file(cudnnctl_ctx *ctx, const char *name)
{
    const char *b = name ? cc_path_base(name) : NULL;
    size_t n_stored = 0;
    const cc_wheel_row *stored = b ? cc_wheels_stored(ctx, &n_stored) : NULL;
    for (size_t i = 0; b && i < cc_wheel_row_count + n_stored; i++)
        if (strcmp(row_at(stored, i)->pub.filename, b) == 0)
            return row_at(stored, i);
    return NULL;
}

static int cuda_is(const char *major, const char *cuda)
{
    size_t n = strcspn(cuda, ".");
    return strlen(major) == n && strncmp(major, cuda, n) == 0;
}

const cc_wheel_row *cc_wheel_find(cudnnctl_ctx *ctx, const char *version, const char *cuda,
                                  const char *platform, int jit)
{
    cc_version want, have;
    const cc_wheel_row *best = NULL;
    if (!version || cc_version_parse(version, &want) != 0)
        return NULL;
    size_t n_stored = 0;
    const cc_wheel_row *stored = cc_wheels_stored(ctx, &n_stored);
    for (size_t i = 0; i < cc_wheel_row_count + n_stored; i++) {
        const cc_wheel_row *r = row_at(stored, i);
        if (!!r->jit != !!jit || (cuda && !cuda_is(r->cuda, cuda)) ||
            (platform && strcmp(r->platform, platform) != 0) ||
            cc_version_parse(r->pub.version, &have) != 0 || !cc_version_prefix_match(&want, &have))
            continue;
        if (!best || cc_version_cmp_str(r->pub.version, best->pub.version) > 0)
            best = r;
    }
    return best;
}

static char *mib(uint64_t b)
{
    return cc_asprintf("%.1f MiB", (double)b / (1024.0 * 1024.0));
}

cudnnctl_err cc_wheel_plan_source(cudnnctl_ctx *ctx, cudnnctl_plan *p, cudnnctl_source want)
{
    const cudnnctl_archive *a = &p->archive;
    const cc_wheel_row *w = cc_wheel_find(ctx, a->cudnn_version, a->cuda_variant, a->platform,
                                          a->flavor == CUDNNCTL_FLAVOR_JIT);
    /* the release exactly: a wheel of another build is another file */
    if (w && strcmp(w->pub.version, a->cudnn_version) != 0)
        w = NULL;
    p->wheel = w ? &w->pub : NULL;
    p->source = CUDNNCTL_SOURCE_ARCHIVE;
    int needs_static = (p->components & CUDNNCTL_COMPONENT_STATIC) != 0;
    char *wsz = w ? mib(w->pub.size) : NULL, *asz = mib(a->size);
    cudnnctl_err rc = CUDNNCTL_E_OK;
    if (want == CUDNNCTL_SOURCE_ARCHIVE) {
        p->source_reason = cc_asprintf("--source archive: NVIDIA's archive %s (%s)%s%s%s%s",
                                       a->relative_path, asz ? asz : "?",
                                       w ? "; the release's wheel is " : "",
                                       w ? w->pub.filename : "", w ? ", " : "",
                                       w ? wsz : "");
    } else if (!w) {
        p->source_reason = cc_asprintf("no wheel of cuDNN %s for CUDA %s on %s%s in the wheel "
                                       "catalog: NVIDIA's archive %s (%s)",
                                       a->cudnn_version, a->cuda_variant, a->platform,
                                       a->flavor == CUDNNCTL_FLAVOR_JIT ? " (jit)" : "",
                                       a->relative_path, asz ? asz : "?");
        if (want == CUDNNCTL_SOURCE_WHEEL)
            rc = CC_ERR(ctx, CUDNNCTL_E_NO_MATCH,
                        "%s; install it from the archive with --source archive (or auto), or "
                        "pick a release that has a wheel (cudnnctl available)",
                        p->source_reason ? p->source_reason : "no wheel");
    } else if (needs_static) {
        p->source_reason = cc_asprintf(
            "the static libraries (component static%s) are only in NVIDIA's archive %s (%s); "
            "the wheel %s (%s) carries the runtime libraries and headers: --components "
            "runtime,dev takes it",
            p->components == CUDNNCTL_COMPONENTS_ALL ? ", part of the default all" : "",
            a->relative_path, asz ? asz : "?", w->pub.filename, wsz ? wsz : "?");
        if (want == CUDNNCTL_SOURCE_WHEEL)
            rc = CC_ERR(ctx, CUDNNCTL_E_USAGE,
                        "--source wheel: %s; give --components runtime,dev (or runtime) with it, "
                        "or use --source archive",
                        p->source_reason ? p->source_reason : "static");
    } else {
        p->source = CUDNNCTL_SOURCE_WHEEL;
        p->source_reason = cc_asprintf(
            "%s: NVIDIA's wheel %s==%s (%s, %s) carries the selection; the archive %s is %s",
            want == CUDNNCTL_SOURCE_AUTO ? "--source auto" : "--source wheel", w->pub.package,
            w->pub.version, w->pub.filename, wsz ? wsz : "?", a->relative_path, asz ? asz : "?");
    }
    free(wsz);
    free(asz);
    if (rc != CUDNNCTL_E_OK)
        return rc; /* the wheel asked for cannot serve */
    if (!p->source_reason)
        CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    return CUDNNCTL_E_OK;
}
