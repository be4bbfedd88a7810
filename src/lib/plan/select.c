/* select.c: choose one archive from the catalog: platform, toolkit CUDA major (and minor for
 * minor-specific builds), --cudnn pin, --for pin, driver floor; then the newest (or the pinned)
 * candidate. Every candidate on the platform gets a reason when it is not chosen. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "select.h"
#include "grow.h"
#include "strset.h"

enum { ST_CUDA, ST_MINOR, ST_CUDNN, ST_CONSUMER, ST_DRIVER, ST_FIT, ST__N };

static const char *const kind_names[] = {"cuda", "cuda-minor", "cudnn", "consumer", "driver"};

/* ---- --cudnn pins ---------------------------------------------------------------------------- */

int cc_cudnn_pin_parse(const char *s, cc_cudnn_pin *pin)
{
    memset(pin, 0, sizeof(*pin));
    if (!s || !*s)
        return -1;
    char *copy = cc_strdup(s);
    if (!copy)
        return -1;
    size_t n = strlen(copy);
    if (n > 2 && copy[n - 2] == '.' && (copy[n - 1] == 'x' || copy[n - 1] == '*')) {
        copy[n - 2] = '\0';
        pin->series = 1;
    }
    int rc = cc_version_parse(copy, &pin->v);
    free(copy);
    if (rc != 0)
        return -1;
    if (pin->v.n == 1)
        pin->series = 1;
    pin->release = !pin->series && pin->v.n == 2;
    return 0;
}

int cc_cudnn_pin_match(const cc_cudnn_pin *pin, const char *cudnn_version)
{
    cc_version v;
    return cc_version_parse(cudnn_version, &v) == 0 && cc_version_prefix_match(&pin->v, &v);
}

static int patch_of(const char *version)
{
    cc_version v;
    return cc_version_parse(version, &v) == 0 ? v.part[2] : -1;
}

long cudnnctl_cudnn_resolve(const char *spec, const char *const *versions, size_t n)
{
    cc_cudnn_pin pin;
    int has_pin = spec && *spec;
    if (has_pin && cc_cudnn_pin_parse(spec, &pin) != 0)
        return -2;
    long best = -1;
    int best_release = 0;
    for (size_t i = 0; i < n; i++) {
        if (!versions[i] || (has_pin && !cc_cudnn_pin_match(&pin, versions[i])))
            continue;
        int release = has_pin && pin.release && patch_of(versions[i]) == 0;
        if (best < 0 || release > best_release ||
            (release == best_release && cc_version_cmp_str(versions[i], versions[best]) > 0)) {
            best = (long)i;
            best_release = release;
        }
    }
    return best;
}

static int major_of(const char *version)
{
    cc_version v;
    return cc_version_parse(version, &v) == 0 ? v.part[0] : -1;
}

/* ---- the rules ------------------------------------------------------------------------------- */

typedef struct {
    cudnnctl_ctx *ctx;
    const cc_select_in *in;
    int has_pin;
    cc_cudnn_pin pin;
} rules;

static char *pin_text(const rules *r)
{
    return r->in->cudnn_pin ? cc_strdup(r->in->cudnn_pin) : cc_strdup("");
}

/* The stage that rejects a (ST_FIT if none); *reason gets the text (malloc'd) when rejected. */
static int check(const rules *r, const cudnnctl_archive *a, char **reason)
{
    const cc_select_in *in = r->in;
    *reason = NULL;
    if (a->cuda_major != in->cuda_major) {
        *reason = cc_asprintf("built for CUDA %d; the toolkit is CUDA %d (%s)", a->cuda_major,
                              in->cuda_major, in->cuda_from);
        return ST_CUDA;
    }
    if (a->cuda_minor >= 0 && in->cuda_minor < 0) {
        *reason = cc_asprintf("made for CUDA %s specifically and the toolkit's minor version is "
                              "unknown (%s): pass --cuda %s if the toolkit is %s or newer",
                              a->cuda_variant, in->cuda_from, a->cuda_variant, a->cuda_variant);
        return ST_MINOR;
    }
    if (a->cuda_minor > in->cuda_minor) {
        *reason = cc_asprintf("made for CUDA %s; the toolkit is %d.%d (%s)", a->cuda_variant,
                              in->cuda_major, in->cuda_minor, in->cuda_from);
        return ST_MINOR;
    }
    if (r->has_pin && !cc_cudnn_pin_match(&r->pin, a->cudnn_version)) {
        char *p = pin_text(r);
        *reason = cc_asprintf("does not match --cudnn %s", p ? p : "");
        free(p);
        return ST_CUDNN;
    }
    const cc_consumer *c = in->consumer;
    if (c && (major_of(a->cudnn_version) != major_of(c->cudnn) ||
              cc_version_cmp_str(a->cudnn_version, c->cudnn) < 0)) {
        int other = major_of(a->cudnn_version) != major_of(c->cudnn);
        *reason = c->exact ? cc_asprintf("%s pins cuDNN %s; this release is %s", c->label, c->cudnn,
                                         other ? "of another major" : "older")
                           : cc_asprintf("%s was built with cuDNN %s and needs the same major "
                                         "with an equal or higher minor",
                                         c->label, c->cudnn);
        return ST_CONSUMER;
    }
    const char *floor = cc_compat_driver_floor(a->cuda_major, a->platform);
    if (in->driver && floor && cc_version_cmp_str(in->driver, floor) < 0) {
        *reason = cc_asprintf("needs driver >= %s (CUDA %d builds); the driver is %s", floor,
                              a->cuda_major, in->driver);
        return ST_DRIVER;
    }
    int need = a->cuda_major * 1000 + (a->cuda_minor > 0 ? a->cuda_minor * 10 : 0);
    if (in->driver_cuda > 0 && in->driver_cuda < need) {
        *reason =
            cc_asprintf("needs a driver for CUDA %s; the driver supports CUDA %d.%d",
                        a->cuda_variant, in->driver_cuda / 1000, (in->driver_cuda % 1000) / 10);
        return ST_DRIVER;
    }
    return ST_FIT;
}

/* ---- choosing among the fitting ones --------------------------------------------------------- */

typedef struct {
    int exact_any;   /* some fit is exactly the consumer's pin */
    int release_any; /* some fit is the M.m.0 release the --cudnn M.m pin names */
} prefs;

static int is_exact(const rules *r, const cudnnctl_archive *a)
{
    const cc_consumer *c = r->in->consumer;
    return c && c->exact && cc_version_cmp_str(a->cudnn_version, c->cudnn) == 0;
}

static int is_release(const rules *r, const cudnnctl_archive *a)
{
    return r->has_pin && r->pin.release && patch_of(a->cudnn_version) == 0;
}

/* > 0 when a is the better choice. */
static int better(const rules *r, const prefs *p, const cudnnctl_archive *a,
                  const cudnnctl_archive *b)
{
    if (!b)
        return 1;
    if (p->exact_any && is_exact(r, a) != is_exact(r, b))
        return is_exact(r, a) ? 1 : -1;
    if (p->release_any && is_release(r, a) != is_release(r, b))
        return is_release(r, a) ? 1 : -1;
    int c = cc_version_cmp_str(a->cudnn_version, b->cudnn_version);
    /* an exact framework pin that is not offered: the nearest newer release, not the newest */
    int nearest = r->in->consumer && r->in->consumer->exact && !p->exact_any;
    if (c)
        return nearest ? -c : c;
    if (a->cuda_minor != b->cuda_minor)
        return a->cuda_minor > b->cuda_minor ? 1 : -1;
    /* a tie: the archive of a manifest the user added wins over the embedded catalog's (a
     * mirror's own build of that release, e.g. scripts/local-mirror's *-local-repack-archive) */
    int ea = a->manifest && cc_str_starts(a->manifest, "embedded:");
    int eb = b->manifest && cc_str_starts(b->manifest, "embedded:");
    if (ea != eb)
        return ea ? -1 : 1;
    return 0;
}

static char *why_not_chosen(const rules *r, const prefs *p, const cudnnctl_archive *a,
                            const cudnnctl_archive *chosen, const char **kind)
{
    int c = cc_version_cmp_str(a->cudnn_version, chosen->cudnn_version);
    *kind = "preference";
    if (c == 0)
        return cc_asprintf("the CUDA %s build of the same release fits the toolkit more closely",
                           chosen->cuda_variant);
    if (p->exact_any)
        return cc_asprintf("%s pins exactly cuDNN %s", r->in->consumer->label,
                           r->in->consumer->cudnn);
    if (c > 0 && p->release_any) {
        char *pin = pin_text(r);
        char *s = cc_asprintf("a later patch; --cudnn %s means release %s.0 (pass --cudnn %s.x, "
                              "or the exact version, to take it)",
                              pin ? pin : "", pin ? pin : "", pin ? pin : "");
        free(pin);
        return s;
    }
    if (c > 0)
        return cc_asprintf("newer than %s, the nearest release to the cuDNN %s that %s pins",
                           chosen->cudnn_version, r->in->consumer ? r->in->consumer->cudnn : "?",
                           r->in->consumer ? r->in->consumer->label : "?");
    *kind = "older";
    return cc_asprintf("older than %s, the chosen release", chosen->cudnn_version);
}

/* ---- when nothing fits: the reason and the fix ---------------------------------------------- */

/* "cuda12 (9.0.0.312-9.27.0.42), cuda13 (...)" for the builds on a platform. */
static char *builds_on_platform(const cudnnctl_catalog *cat, const char *platform,
                                const cc_cudnn_pin *pin)
{
    cc_buf b = {0};
    for (int M = 99; M > 0; M--) {
        const char *newest = NULL, *oldest = NULL;
        for (size_t i = 0; i < cudnnctl_catalog_count(cat); i++) {
            const cudnnctl_archive *a = cudnnctl_catalog_get(cat, i);
            if (strcmp(a->platform, platform) != 0 || a->cuda_major != M)
                continue;
            if (pin && !cc_cudnn_pin_match(pin, a->cudnn_version))
                continue;
            if (!newest)
                newest = a->cudnn_version;
            oldest = a->cudnn_version;
        }
        if (!newest)
            continue;
        if (strcmp(newest, oldest) == 0)
            cc_buf_printf(&b, "%scuda%d (%s)", b.len ? ", " : "", M, newest);
        else
            cc_buf_printf(&b, "%scuda%d (%s to %s)", b.len ? ", " : "", M, oldest, newest);
    }
    return b.data ? b.data : cc_strdup("none");
}

static char *platforms_offered(const cudnnctl_catalog *cat)
{
    cc_strv sv = {0};
    for (size_t i = 0; i < cudnnctl_catalog_count(cat); i++) {
        const cudnnctl_archive *a = cudnnctl_catalog_get(cat, i);
        cc_strset_add(&sv, a->platform);
    }
    return cc_strset_join(&sv, ", ", "none");
}

/* A lower CUDA major whose builds this driver can run, with something that passes the pins. */
static int driver_alternative(const rules *r, const cudnnctl_catalog *cat)
{
    const cc_select_in *in = r->in;
    if (in->consumer)
        return 0; /* the framework build fixes the CUDA major */
    for (int M = in->cuda_major - 1; M > 0; M--) {
        const char *floor = cc_compat_driver_floor(M, in->platform);
        if (!floor || (in->driver && cc_version_cmp_str(in->driver, floor) < 0))
            continue;
        if (in->driver_cuda > 0 && in->driver_cuda < M * 1000)
            continue;
        for (size_t i = 0; i < cudnnctl_catalog_count(cat); i++) {
            const cudnnctl_archive *a = cudnnctl_catalog_get(cat, i);
            if (strcmp(a->platform, in->platform) == 0 && a->cuda_major == M && a->cuda_minor < 0 &&
                (!r->has_pin || cc_cudnn_pin_match(&r->pin, a->cudnn_version)))
                return M;
        }
    }
    return 0;
}

static cudnnctl_err no_fit(const rules *r, const cudnnctl_catalog *cat, const size_t *passed,
                           size_t on_platform, const cudnnctl_archive *last_driver_reject)
{
    cudnnctl_ctx *ctx = r->ctx;
    const cc_select_in *in = r->in;
    cudnnctl_err e;
    char *list = NULL, *pin = pin_text(r);
    const char *p = pin ? pin : "";
    if (on_platform == 0) {
        list = platforms_offered(cat);
        e = CC_ERR(
            ctx, CUDNNCTL_E_BAD_PLATFORM,
            "the catalog has no cuDNN archive for platform %s (offered: %s): pass --platform "
            "with one of those",
            in->platform, list ? list : "");
    } else if (passed[ST_CUDA] == 0) {
        list = builds_on_platform(cat, in->platform, NULL);
        e = CC_ERR(ctx, CUDNNCTL_E_NO_MATCH,
                   "no cuDNN build for CUDA %d on %s (builds there: %s): use a toolkit of one of "
                   "those CUDA majors (--cuda-home DIR, or --cuda M to plan for one)",
                   in->cuda_major, in->platform, list ? list : "");
    } else if (passed[ST_MINOR] == 0) {
        e = CC_ERR(
            ctx, CUDNNCTL_E_NO_MATCH,
            "the only CUDA %d builds for %s are made for a later CUDA %d minor than the "
            "toolkit's (%s): pass --cuda %d.N with the toolkit's minor, or update the toolkit",
            in->cuda_major, in->platform, in->cuda_major, in->cuda_from, in->cuda_major);
    } else if (passed[ST_CUDNN] == 0) {
        cc_cudnn_pin any = r->pin;
        list = builds_on_platform(cat, in->platform, &any);
        char *all = builds_on_platform(cat, in->platform, NULL);
        e = CC_ERR(ctx, CUDNNCTL_E_NO_MATCH,
                   "no cuDNN %s build for CUDA %d on %s (builds of %s there: %s; all builds: %s): "
                   "pass another --cudnn, or --cuda with a CUDA major that %s has",
                   p, in->cuda_major, in->platform, p, list ? list : "", all ? all : "", p);
        free(all);
    } else if (passed[ST_CONSUMER] == 0) {
        const cc_consumer *c = in->consumer;
        e = CC_ERR(ctx, CUDNNCTL_E_NO_MATCH,
                   "%s needs cuDNN %s%s (same major)%s%s, and no such CUDA %d build is offered for "
                   "%s: pick another %s release%s",
                   c->label, c->exact ? "" : ">= ", c->cudnn, r->has_pin ? " and --cudnn " : "",
                   r->has_pin ? p : "", in->cuda_major, in->platform, c->pkg,
                   r->has_pin ? ", or relax --cudnn" : " (or give --cudnn instead of --for)");
    } else {
        const char *floor = cc_compat_driver_floor(in->cuda_major, in->platform);
        int alt = driver_alternative(r, cat);
        char fix[96];
        if (alt)
            snprintf(fix, sizeof(fix),
                     "update the driver or use --cuda %d (with a CUDA %d toolkit)", alt, alt);
        else
            snprintf(fix, sizeof(fix), "update the driver%s%s", floor ? " to " : "",
                     floor ? floor : "");
        if (in->driver && floor && cc_version_cmp_str(in->driver, floor) < 0)
            e = CC_ERR(ctx, CUDNNCTL_E_DRIVER_TOO_OLD,
                       "driver %s is below %s, the floor of the cuda%d build: %s", in->driver,
                       floor, in->cuda_major, fix);
        else
            e = CC_ERR(ctx, CUDNNCTL_E_DRIVER_TOO_OLD,
                       "the driver supports CUDA %d.%d (cuDriverGetVersion %d), below the CUDA %s "
                       "that the cuda%s build needs: %s",
                       in->driver_cuda / 1000, (in->driver_cuda % 1000) / 10, in->driver_cuda,
                       last_driver_reject ? last_driver_reject->cuda_variant : "?",
                       last_driver_reject ? last_driver_reject->cuda_variant : "?", fix);
    }
    free(list);
    free(pin);
    return e;
}

/* ---- the selection --------------------------------------------------------------------------- */

static int push_rej(cc_select_out *out, size_t *cap, const cudnnctl_archive *a, char *reason,
                    const char *kind, size_t count)
{
    if (!reason)
        return -1;
    if (cc_grow(&out->rejected, cap, out->n_rejected + 1, sizeof(*out->rejected)) != 0) {
        free(reason);
        return -1;
    }
    out->rejected[out->n_rejected++] = (cc_select_rej){a, reason, kind, count};
    return 0;
}

/* Closest misses first: preference, older, driver, consumer, cudnn, cuda-minor, cuda, platform
 * (stable, so each group stays newest first). */
static int order_rejections(cc_select_out *out)
{
    static const char *const rank[] = {"preference", "older",      "driver", "consumer",
                                       "cudnn",      "cuda-minor", "cuda",   "platform"};
    if (out->n_rejected < 2)
        return 0;
    cc_select_rej *v = malloc(out->n_rejected * sizeof(*v));
    if (!v)
        return -1;
    size_t w = 0;
    for (size_t k = 0; k < sizeof(rank) / sizeof(rank[0]); k++)
        for (size_t i = 0; i < out->n_rejected; i++)
            if (strcmp(out->rejected[i].kind, rank[k]) == 0)
                v[w++] = out->rejected[i];
    for (size_t i = 0; i < out->n_rejected; i++) { /* any kind not ranked keeps its place last */
        size_t k = 0;
        while (k < sizeof(rank) / sizeof(rank[0]) && strcmp(out->rejected[i].kind, rank[k]) != 0)
            k++;
        if (k == sizeof(rank) / sizeof(rank[0]))
            v[w++] = out->rejected[i];
    }
    free(out->rejected);
    out->rejected = v;
    return 0;
}

void cc_select_out_free(cc_select_out *out)
{
    for (size_t i = 0; i < out->n_rejected; i++)
        free(out->rejected[i].reason);
    free(out->rejected);
    free(out->reason);
    cc_strv_free(&out->warnings);
    memset(out, 0, sizeof(*out));
}

/* Other platforms: one line each (the newest archive stands for all of them). */
static int reject_other_platforms(const cudnnctl_catalog *cat, const char *platform,
                                  cc_select_out *out, size_t *cap)
{
    cc_strv seen = {0};
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < cudnnctl_catalog_count(cat); i++) {
        const cudnnctl_archive *a = cudnnctl_catalog_get(cat, i);
        if (strcmp(a->platform, platform) == 0 || cc_strv_contains(&seen, a->platform))
            continue;
        size_t n = 0;
        for (size_t j = i; j < cudnnctl_catalog_count(cat); j++)
            n += strcmp(cudnnctl_catalog_get(cat, j)->platform, a->platform) == 0;
        rc = cc_strv_push(&seen, a->platform);
        if (rc == 0)
            rc = push_rej(out, cap, a,
                          cc_asprintf("platform %s, not %s (%zu archive%s for %s)", a->platform,
                                      platform, n, n == 1 ? "" : "s", a->platform),
                          "platform", n);
    }
    cc_strv_free(&seen);
    return rc;
}

static char *choice_reason(const rules *r, const prefs *p, const cudnnctl_archive *a,
                           const char *floor)
{
    const cc_select_in *in = r->in;
    cc_buf b = {0};
    char *pin = pin_text(r);
    const char *pp = pin ? pin : "";
    if (p->exact_any)
        cc_buf_printf(&b, "cuDNN %s is the exact release %s pins", a->cudnn_version,
                      in->consumer->label);
    else if (in->consumer && in->consumer->exact)
        cc_buf_printf(&b, "cuDNN %s is the nearest release at or above the %s that %s pins",
                      a->cudnn_version, in->consumer->cudnn, in->consumer->label);
    else if (p->release_any)
        cc_buf_printf(&b, "cuDNN %s is release %s.0, as --cudnn %s asks", a->cudnn_version, pp, pp);
    else if (r->has_pin)
        cc_buf_printf(&b, "cuDNN %s is the newest release matching --cudnn %s", a->cudnn_version,
                      pp);
    else
        cc_buf_printf(&b, "cuDNN %s is the newest release that fits", a->cudnn_version);
    if (in->consumer && !in->consumer->exact)
        cc_buf_printf(&b, " (%s was built with cuDNN %s: same major, equal or higher minor)",
                      in->consumer->label, in->consumer->cudnn);
    cc_buf_printf(&b, "; its CUDA %s build for %s matches CUDA %d (%s)", a->cuda_variant,
                  a->platform, in->cuda_major, in->cuda_from);
    if (floor && in->driver)
        cc_buf_printf(&b, "; driver %s meets the cuda%d floor %s", in->driver, a->cuda_major,
                      floor);
    else if (in->driver_cuda > 0)
        cc_buf_printf(&b, "; the driver supports CUDA %d.%d", in->driver_cuda / 1000,
                      (in->driver_cuda % 1000) / 10);
    free(pin);
    return b.data;
}

static void add_warnings(const rules *r, const prefs *p, const cudnnctl_archive *chosen,
                         const cudnnctl_archive *newer_patch, const char *floor, cc_strv *w)
{
    const cc_select_in *in = r->in;
    char *pin = pin_text(r);
    const char *pp = pin ? pin : "";
    if (!in->driver && in->driver_cuda <= 0 && floor)
        cc_strv_push_own(w, cc_asprintf("no NVIDIA driver found (and no --driver-version): the "
                                        "cuda%d build needs driver >= %s; not checked",
                                        chosen->cuda_major, floor));
    if (p->release_any && newer_patch)
        cc_strv_push_own(w, cc_asprintf("%s is a later patch of cuDNN %s for the same build: pass "
                                        "--cudnn %s.x to take the newest patch",
                                        newer_patch->cudnn_version, pp, pp));
    if (r->has_pin && r->pin.release && !p->release_any)
        cc_strv_push_own(w,
                         cc_asprintf("release %s.0 is not offered for %s CUDA %d; took %s, "
                                     "the newest %s patch",
                                     pp, in->platform, in->cuda_major, chosen->cudnn_version, pp));
    if (in->consumer && in->consumer->exact && !p->exact_any)
        cc_strv_push_own(w, cc_asprintf("%s pins cuDNN %s, which is not offered for %s CUDA %d; "
                                        "took %s, the nearest newer release of the same major",
                                        in->consumer->label, in->consumer->cudnn, in->platform,
                                        in->cuda_major, chosen->cudnn_version));
    const cc_toolkit_range *tr = cc_compat_toolkit_range(chosen->cudnn_version, chosen->cuda_major);
    if (tr && in->cuda_minor >= 0) {
        char tk[32];
        snprintf(tk, sizeof(tk), "%d.%d", in->cuda_major, in->cuda_minor);
        if (cc_version_cmp_str(tk, tr->toolkit_lo) < 0 ||
            cc_version_cmp_str(tk, tr->toolkit_hi) > 0)
            cc_strv_push_own(w, cc_asprintf("cuDNN %s for CUDA %d lists toolkits %s to %s (%s); "
                                            "%s relies on CUDA minor-version compatibility",
                                            chosen->cudnn_version, chosen->cuda_major,
                                            tr->toolkit_lo, tr->toolkit_hi, tr->source, tk));
    }
    free(pin);
}

/* The best of the fitting archives by the preferences; every other one rejected with why it
 * was not chosen, *newer_patch the newest fit of the same CUDA with a newer cuDNN. -1 on OOM. */
static int pick_best(const rules *r, prefs *p, const cudnnctl_archive **fits, size_t n_fits,
                     cc_select_out *out, size_t *cap, const cudnnctl_archive **bestp,
                     const cudnnctl_archive **newer_patch)
{
    for (size_t i = 0; i < n_fits; i++) {
        p->exact_any |= is_exact(r, fits[i]);
        p->release_any |= is_release(r, fits[i]);
    }
    const cudnnctl_archive *best = NULL;
    for (size_t i = 0; i < n_fits; i++)
        if (better(r, p, fits[i], best) > 0)
            best = fits[i];
    *bestp = best;
    *newer_patch = NULL;
    for (size_t i = 0; i < n_fits; i++) {
        const cudnnctl_archive *a = fits[i];
        if (a == best)
            continue;
        const char *kind = NULL;
        char *why = why_not_chosen(r, p, a, best, &kind);
        if (!*newer_patch && cc_version_cmp_str(a->cudnn_version, best->cudnn_version) > 0 &&
            a->cuda_major == best->cuda_major && a->cuda_minor == best->cuda_minor)
            *newer_patch = a; /* fits[] is newest first: the newest such one */
        if (push_rej(out, cap, a, why, kind, 1) != 0)
            return -1;
    }
    return 0;
}

cudnnctl_err cc_select(cudnnctl_ctx *ctx, const cudnnctl_catalog *cat, const cc_select_in *in,
                       cc_select_out *out)
{
    memset(out, 0, sizeof(*out));
    rules r;
    memset(&r, 0, sizeof(r));
    r.ctx = ctx;
    r.in = in;
    cudnnctl_err e = CUDNNCTL_E_OK;
    const cudnnctl_archive **fits = NULL;
    size_t n_fits = 0, cap = 0, on_platform = 0, passed[ST__N] = {0};
    const cudnnctl_archive *last_driver_reject = NULL;
    if (in->cudnn_pin) {
        if (cc_cudnn_pin_parse(in->cudnn_pin, &r.pin) != 0)
            return CC_ERR(ctx, CUDNNCTL_E_BAD_VERSION,
                          "--cudnn %s is not a cuDNN version: give 9, 9.13, 9.13.x or 9.13.0.50",
                          in->cudnn_pin);
        r.has_pin = 1;
    }
    size_t total = cudnnctl_catalog_count(cat);
    fits = malloc((total ? total : 1) * sizeof(*fits));
    if (!fits)
        return CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");

    for (size_t i = 0; i < total; i++) {
        const cudnnctl_archive *a = cudnnctl_catalog_get(cat, i);
        if (strcmp(a->platform, in->platform) != 0)
            continue;
        on_platform++;
        char *reason = NULL;
        int st = check(&r, a, &reason);
        for (int s = 0; s < st; s++)
            passed[s]++;
        if (st == ST_FIT) {
            fits[n_fits++] = a;
            continue;
        }
        if (st == ST_DRIVER)
            last_driver_reject = a;
        if (push_rej(out, &cap, a, reason, kind_names[st], 1) != 0) {
            e = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
            goto out;
        }
    }
    if (n_fits == 0) {
        e = no_fit(&r, cat, passed, on_platform, last_driver_reject);
        goto out;
    }

    prefs p = {0, 0};
    const cudnnctl_archive *best = NULL, *newer_patch = NULL;
    if (pick_best(&r, &p, fits, n_fits, out, &cap, &best, &newer_patch) != 0) {
        e = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
        goto out;
    }
    if (reject_other_platforms(cat, in->platform, out, &cap) != 0 || order_rejections(out) != 0) {
        e = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
        goto out;
    }
    out->chosen = best;
    out->floor = cc_compat_driver_floor(best->cuda_major, best->platform);
    out->reason = choice_reason(&r, &p, best, out->floor);
    add_warnings(&r, &p, best, newer_patch, out->floor, &out->warnings);
    if (!out->reason)
        e = CC_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
out:
    free(fits);
    if (e != CUDNNCTL_E_OK)
        cc_select_out_free(out);
    return e;
}
