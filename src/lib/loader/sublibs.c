/* sublibs.c: the sub-libraries libcudnn.so.M loads itself, searched as cuDNN searches for them,
 * and whether they fit by content (release, symbols, bytes), not by dir.
 *
 * Measured with LD_DEBUG=libs on NVIDIA's 9.1.0 and 9.19.0 (tests/integration/test_which_release.sh
 * repeats it against the real loader): the front dlopens libcudnn_graph first, then each
 * sub-library, trying the names libX.so.M.m.p, libX.so.M.m, libX.so.M, libX.so in turn, each a full
 * loader search on behalf of libcudnn.so.M (whose DT_RUNPATH $ORIGIN comes after LD_LIBRARY_PATH).
 * A candidate built for another graph library fails to load ("undefined symbol: X, version
 * libcudnn_graph.so.9") and the next name is tried. cudnnGetVersion() reports the graph's release,
 * so a graph library of another release than the front breaks it ("compiled against 9.19 but found
 * runtime version 9.14"). cuDNN 8.9.6 tries libX.so.8 only. */
#include <stdlib.h>
#include <string.h>

#include "elf_sections.h"
#include "grow.h"
#include "hash.h"
#include "internal.h"
#include "ldmodel.h"
#include "platform.h"

static const char *const SUB8[] = {"libcudnn_ops_infer", "libcudnn_ops_train", "libcudnn_cnn_infer",
                                   "libcudnn_cnn_train", "libcudnn_adv_infer", "libcudnn_adv_train",
                                   NULL};

/* Sub-libraries from another dir than the front that fit: one note per dir. */
typedef struct {
    char *dir, *rule, *why;
    cc_buf names;
} fit_group;

typedef struct {
    cc_ldmodel *m;
    cudnnctl_consumer *c;
    int obj, major;
    char *front_path, *front_soname, *front_rel;
    size_t graph; /* index of the graph library in c->libs; (size_t)-1 none */
    fit_group groups[8];
    size_t n_groups;
    cc_strv graph_syms; /* what the mapped graph library defines (sorted), read once */
    int graph_syms_read;
    int graph_bad; /* the graph library does not fit the front: that one problem says it */
    int jit;       /* the front's dir is the JIT flavour (issue 22): what it lacks is named */
} sub_run;

static const char *file_of(const cudnnctl_load_result *r)
{
    return r->real_path ? r->real_path : r->path;
}

/* Same copy: the dir the loader named (what $ORIGIN gives), else the same real dir. */
static int same_dir(const cudnnctl_ctx *ctx, const char *a, const char *b)
{
    char *da = cc_path_dir(a), *db = cc_path_dir(b);
    int same = da && db && strcmp(da, db) == 0;
    if (!same && da && db) {
        char *ha = cc_rooted(ctx, da), *hb = cc_rooted(ctx, db);
        char *ra = ha ? cc_pf_realpath(ha) : NULL, *rb = hb ? cc_pf_realpath(hb) : NULL;
        same = ra && rb && strcmp(ra, rb) == 0;
        free(ha);
        free(hb);
        free(ra);
        free(rb);
    }
    free(da);
    free(db);
    return same;
}

/* The same bytes: one file (device and inode: a hard link), or equal size and SHA-256. */
static int same_bytes(cudnnctl_ctx *ctx, const char *a, const char *b)
{
    char *ha = cc_rooted(ctx, a), *hb = cc_rooted(ctx, b);
    cc_pf_stat_t sa, sb;
    int same = 0;
    if (ha && hb && cc_pf_stat(ha, &sa) == 0 && cc_pf_stat(hb, &sb) == 0 && sa.exists &&
        sb.exists) {
        if (sa.dev == sb.dev && sa.ino == sb.ino)
            same = 1;
        else if (sa.size == sb.size) {
            char xa[65], xb[65];
            same = cc_sha256_file(ctx, ha, xa, NULL) == 0 &&
                   cc_sha256_file(ctx, hb, xb, NULL) == 0 && strcmp(xa, xb) == 0;
            cc_clear_error(ctx);
        }
    }
    free(ha);
    free(hb);
    return same;
}

/* Is `sub` of the release of `ref` (a library already mapped)? By release, else by bytes: one of
 * them is a copy of the file of its name in the other's dir. 1 yes, 0 no, -1 cannot tell (then
 * it is not counted as a mix: no false alarm). *why says how, ending in the verdict. */
static int same_release(cudnnctl_ctx *ctx, const cudnnctl_load_result *ref,
                        const cudnnctl_load_result *sub, char **why)
{
    int same = cc_ld_same_release(ref->version, sub->version);
    if (same >= 0) {
        *why = same ? cc_asprintf("the same release %s, so they fit", sub->version)
                    : cc_asprintf("release %s, not %s", sub->version, ref->version);
        return same;
    }
    const cudnnctl_load_result *pair[2][2] = {{ref, sub}, {sub, ref}};
    for (int k = 0; k < 2 && same < 1; k++) {
        char *dir = cc_path_dir(file_of(pair[k][0]));
        char *twin = dir ? cc_path_join(dir, cc_path_base(file_of(pair[k][1]))) : NULL;
        if (twin && same_bytes(ctx, twin, file_of(pair[k][1])))
            same = 1;
        free(twin);
        free(dir);
    }
    *why = cc_strdup(same == 1 ? "the same bytes as the file of that name beside the other, so "
                                 "they fit"
                               : "their releases cannot be read (no release tag, versioned name "
                                 "or header) and neither is a copy of a file beside the other: "
                                 "not counted as a mix");
    return same;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The first of `need` the graph library does not define; NULL when it defines them all. */
static const char *first_missing(const sub_run *s, const cc_strv *need)
{
    for (size_t i = 0; i < need->n; i++)
        if (!bsearch(&need->v[i], s->graph_syms.v, s->graph_syms.n, sizeof(char *), cmp_str))
            return need->v[i];
    return NULL;
}

/* Does the sub-library load against the graph library already mapped, as the loader decides it
 * (measured: the 9.1.0 ops fails its dlopen on a data symbol the 9.19 graph lacks; 9.21's
 * engines_tensor_ir loads under RTLD_LAZY against 9.20's graph although a function it calls is
 * not there)? Every symbol its load-time relocations need from libcudnn_graph.so.M must be defined
 * there, else "undefined symbol: X, version libcudnn_graph.so.9": 0. All of them, and all it
 * calls too: 1. The load-time ones but not every function it calls: it loads, and it is another
 * release (the symbols differ), so cuDNN's version check fails: 2. -1 unknown (no .dynsym). */
static int binds(sub_run *s, const cudnnctl_load_result *graph, const cudnnctl_load_result *sub,
                 char **why)
{
    char *hg = cc_rooted(s->m->ctx, file_of(graph)), *hs = cc_rooted(s->m->ctx, file_of(sub));
    char *soname = cc_asprintf("libcudnn_graph.so.%d", s->major);
    cc_strv eager = {0}, all = {0};
    int rc = -1;
    if (!s->graph_syms_read && hg) {
        s->graph_syms_read = 1;
        if (cc_elf_dyn_defined(hg, &s->graph_syms) != 0)
            cc_strv_free(&s->graph_syms);
    }
    if (hs && soname && s->graph_syms.n && cc_elf_dyn_needed_from(hs, soname, 1, &eager) == 0 &&
        cc_elf_dyn_needed_from(hs, soname, 0, &all) == 0) {
        const char *e = first_missing(s, &eager), *a = e ? NULL : first_missing(s, &all);
        rc = e ? 0 : a ? 2 : 1;
        if (e)
            *why = cc_asprintf("it needs %s (version %s), which the graph library %s does not "
                               "define, so it does not load (\"undefined symbol\")",
                               e, soname, file_of(graph));
        else if (a)
            *why = cc_asprintf("it loads, but calls %s (version %s), which the graph library %s "
                               "does not define: another release",
                               a, soname, file_of(graph));
    }
    cc_strv_free(&eager);
    cc_strv_free(&all);
    free(soname);
    free(hg);
    free(hs);
    return rc;
}

/* The names cuDNN tries for a sub-library stem, in order (see the top of this file). */
static size_t candidate_names(const char *stem, int major, const char *release, char *out[4])
{
    cc_version v;
    size_t n = 0;
    if (major >= 9 && release && cc_version_parse(release, &v) == 0 && v.n >= 3) {
        out[n++] = cc_asprintf("%s.so.%d.%d.%d", stem, v.part[0], v.part[1], v.part[2]);
        out[n++] = cc_asprintf("%s.so.%d.%d", stem, v.part[0], v.part[1]);
    }
    out[n++] = cc_asprintf("%s.so.%d", stem, major);
    if (major >= 9)
        out[n++] = cc_asprintf("%s.so", stem);
    return n;
}

/* One sub-library as cuDNN finds it: each candidate name in turn, a full loader search from
 * `obj`; a file that does not bind to the mapped graph library fails to load and is passed over
 * (listed in skipped), the first that loads is taken. graph == NULL (the graph itself): the first
 * found. 1 taken and of the graph's release, 0 taken but of another release (cuDNN then fails
 * with SUBLIBRARY_VERSION_MISMATCH: pytorch/pytorch#185512), -1 none loads. */
static int find_sub(sub_run *s, int obj, const char *stem, const cudnnctl_load_result *graph,
                    cudnnctl_load_result *out)
{
    char *names[4];
    size_t n = candidate_names(stem, s->major, s->front_rel, names);
    int rc = -1;
    cc_buf skipped = {0};
    memset(out, 0, sizeof(*out));
    for (size_t i = 0; i < n && rc < 0; i++) {
        cudnnctl_load_result r;
        if (!names[i] || cc_ld_one(s->m, obj, names[i], &r) != CUDNNCTL_E_OK || !r.path) {
            cc_ld_result_clear(&r);
            continue;
        }
        char *why = NULL;
        int b = graph ? binds(s, graph, &r, &why) : 1;
        if (b == 0) {
            cc_buf_printf(&skipped, "%s%s (%s)", skipped.len ? "; " : "", r.path, why ? why : "");
            cc_ld_result_clear(&r);
        } else {
            *out = r;
            rc = b == 2 ? 0 : !graph || same_release(s->m->ctx, graph, &r, &why) != 0;
        }
        free(why);
    }
    if (skipped.len) {
        char *t = cc_asprintf("%s; so cuDNN tries its next name", skipped.data);
        cc_ld_skip(out, t ? t : "", "passed over");
        free(t);
        if (rc < 0) { /* only files that do not load: the sub-library fails */
            rc = -2;
            out->soname = cc_asprintf("%s.so.%d", stem, s->major);
            out->rule = cc_strdup("error");
            out->why = cc_strdup("no name cuDNN tries resolves to a file that loads");
        }
    }
    cc_buf_free(&skipped);
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    return rc;
}

/* 1 when the dir of file holds a file whose name starts with "<stem>.so". */
static int dir_has(const cudnnctl_ctx *ctx, const char *file, const char *stem)
{
    char *dir = cc_path_dir(file);
    char *host = dir ? cc_rooted(ctx, dir) : NULL;
    cc_pf_dir *d = host ? cc_pf_opendir(host) : NULL;
    char *want = cc_asprintf("%s.so", stem);
    const char *name;
    int has = 0;
    while (d && want && !has && (name = cc_pf_readdir(d)) != NULL)
        has = cc_str_starts(name, want);
    if (d)
        cc_pf_closedir(d);
    free(want);
    free(host);
    free(dir);
    return has;
}

/* The sub-libraries a cuDNN library dlopens itself, read from its bytes: the "libcudnn_X.so"
 * names in its .rodata (9.19's front names ops, graph, cnn, adv; its graph the engines and the
 * heuristic; 9.27's also ext and engines_tensor_ir), its own stem left out. 0 ok, -1 unreadable
 * (the caller falls back to the list of the release it knows). */
static int dlopen_names(const cudnnctl_ctx *ctx, const char *file, cc_strv *out)
{
    char *h = cc_rooted(ctx, file);
    cc_elf_sections sec;
    int rc = -1;
    if (h && cc_elf_sections_open(h, &sec) == 0) {
        int i = cc_elf_section_find(&sec, ".rodata");
        size_t len = 0;
        char *d = i >= 0 ? cc_elf_section_read(&sec, (size_t)i, 64u << 20, &len) : NULL;
        const char *self = cc_path_base(file);
        for (size_t k = 0; d && k + 13 < len; k++) {
            if (d[k] != 'l' || memcmp(d + k, "libcudnn_", 9) != 0 || (k && d[k - 1]))
                continue;
            size_t n = 9 + strspn(d + k + 9, "abcdefghijklmnopqrstuvwxyz_");
            if (k + n + 3 > len || memcmp(d + k + n, ".so", 3) != 0)
                continue;
            char *stem = cc_strndup(d + k, n);
            if (stem && strncmp(self, stem, n) != 0 && !cc_strv_contains(out, stem))
                cc_strv_push(out, stem);
            free(stem);
        }
        rc = d ? 0 : -1;
        free(d);
        cc_elf_sections_close(&sec);
    }
    free(h);
    return rc;
}

static void fit_add(fit_group *g, size_t *n, const cudnnctl_load_result *r, const char *why)
{
    char *dir = cc_path_dir(r->path);
    size_t k = 0;
    while (k < *n && !(dir && strcmp(g[k].dir, dir) == 0))
        k++;
    if (k == *n && k < 8 && dir) {
        g[k] = (fit_group){dir, cc_strdup(r->rule), cc_strdup(why), {0}};
        dir = NULL;
        (*n)++;
    }
    if (k < *n)
        cc_buf_printf(&g[k].names, "%s%s", g[k].names.len ? ", " : "", cc_path_base(r->path));
    free(dir);
}

static void fit_notes(cudnnctl_consumer *c, fit_group *g, size_t n, const char *front)
{
    for (size_t k = 0; k < n; k++) {
        const char *names = g[k].names.data ? g[k].names.data : "";
        cc_ld_note(c, cc_asprintf("%s %s from %s (%s), not from the dir of %s: %s", names,
                                  strchr(names, ',') ? "come" : "comes", g[k].dir,
                                  g[k].rule ? g[k].rule : "?", front, g[k].why ? g[k].why : ""));
        free(g[k].dir);
        free(g[k].rule);
        free(g[k].why);
        cc_buf_free(&g[k].names);
    }
}

static void add_map(cudnnctl_consumer *c, const cudnnctl_load_result *r)
{
    const char *p = file_of(r);
    if (p)
        cc_strs_push(&c->maps, &c->n_maps, cc_strdup(p));
}

static int push_lib(cudnnctl_consumer *c, cudnnctl_load_result *r)
{
    if (cc_grow(&c->libs, NULL, c->n_libs + 1, sizeof(*c->libs)) != 0)
        return -1;
    c->libs[c->n_libs++] = *r; /* moved */
    memset(r, 0, sizeof(*r));
    return 0;
}

/* A sub-library checked against the front: 9.x's graph library (the runtime release, what
 * cudnnGetVersion reports and the others must match), or each of 8.x's. `core`: the first one,
 * always listed (and its absence a problem); the others are listed when they do not fit. */
static void front_step(sub_run *s, const char *stem, int core)
{
    cudnnctl_load_result r;
    if (find_sub(s, s->obj, stem, NULL, &r) < 0) {
        cc_ld_result_clear(&r);
        if (core) /* an incomplete copy: doctor's CUDNN_INCOMPLETE; not a mix */
            cc_ld_note(s->c, cc_asprintf("%s loads %s.so.%d itself and no dir the loader "
                                         "searches holds it: cuDNN would fail at its first call",
                                         s->front_soname, stem, s->major));
        return;
    }
    add_map(s->c, &r);
    char *why = NULL;
    int other = !same_dir(s->m->ctx, r.path, s->front_path);
    cudnnctl_load_result front = {0};
    front.path = s->front_path;
    front.version = s->front_rel;
    int fits = !other || same_release(s->m->ctx, &front, &r, &why);
    if (other && fits)
        fit_add(s->groups, &s->n_groups, &r, why);
    else if (!fits) {
        s->graph_bad |= core;
        s->c->causes |= CUDNNCTL_CAUSE_MIXED;
        char *then = s->major >= 9
                         ? cc_asprintf("cudnnGetVersion() then reports %s and the other "
                                       "sub-libraries fail to load",
                                       r.version ? r.version : "the graph library's release")
                         : cc_strdup("cuDNN fails with CUDNN_STATUS_VERSION_MISMATCH");
        cc_ld_problem(s->c, cc_asprintf("a mixed cuDNN: %s comes from %s but %s, which it loads "
                                        "itself, from %s (%s: %s): %s; %s",
                                        s->front_soname, s->front_path, cc_path_base(r.path),
                                        r.path, r.rule, r.why ? r.why : "", why ? why : "",
                                        then ? then : ""));
        free(then);
    }
    free(why);
    if (!core && fits) {
        cc_ld_result_clear(&r);
        return;
    }
    size_t at = s->c->n_libs;
    if (push_lib(s->c, &r) != 0)
        cc_ld_result_clear(&r);
    else if (core)
        s->graph = at;
}

/* 9.x: a sub-library other than the graph, as cuDNN finds one that loads against the graph;
 * obj: the library that dlopens it (the front, or the graph for the engines). */
static void other_step(sub_run *s, int obj, const char *stem)
{
    if (s->graph == (size_t)-1)
        return;
    cudnnctl_load_result r;
    int rc = find_sub(s, obj, stem, &s->c->libs[s->graph], &r);
    const cudnnctl_load_result *graph = &s->c->libs[s->graph];
    char *why = NULL;
    if (rc >= 0) {
        add_map(s->c, &r);
        if (binds(s, graph, &r, &why) != 2) {
            free(why);
            why = NULL;
            same_release(s->m->ctx, graph, &r, &why);
        }
    }
    if (rc == 1 && !s->graph_bad && !same_dir(s->m->ctx, r.path, s->front_path)) {
        fit_add(s->groups, &s->n_groups, &r, why);
    } else if (rc == -2 && !s->graph_bad && (dir_has(s->m->ctx, s->front_path, stem) ||
                                             dir_has(s->m->ctx, file_of(graph), stem))) {
        s->c->causes |= CUDNNCTL_CAUSE_MIXED;
        cc_ld_problem(s->c, cc_asprintf("a mixed cuDNN: every name cuDNN tries for %s resolves "
                                        "first to a file of another release, which does not load "
                                        "against the graph library %s (%s); the copy's own %s is "
                                        "never reached: SUBLIBRARY_LOADING_FAILED",
                                        stem, file_of(graph),
                                        r.n_skipped ? r.skipped[0] : "", stem));
        push_lib(s->c, &r);
    } else if (rc == 0 && !s->graph_bad) {
        s->c->causes |= CUDNNCTL_CAUSE_MIXED;
        cc_ld_problem(s->c, cc_asprintf("a mixed cuDNN: %s loads %s from %s (%s), which loads "
                                        "against the graph library %s but is %s: cuDNN fails "
                                        "with CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH",
                                        cc_path_base(s->m->objs[obj].path), cc_path_base(r.path),
                                        r.path, r.rule, file_of(graph), why ? why : ""));
        push_lib(s->c, &r);
    }
    free(why);
    cc_ld_result_clear(&r);
}

/* A sub-library the JIT flavour does not have (libcudnn, libcudnn_graph and the runtime-compiled
 * engines only: docs/flavors.md): where a program would get it, and how not to. */
static void jit_step(sub_run *s, int obj, const char *stem)
{
    cudnnctl_load_result r;
    int rc = find_sub(s, obj, stem, NULL, &r);
    int legacy = strcmp(stem, "libcudnn_ops") == 0 || strcmp(stem, "libcudnn_cnn") == 0 ||
                 strcmp(stem, "libcudnn_adv") == 0;
    char *where = rc >= 0 && r.path
                      ? cc_asprintf("from %s (%s%s%s): a mixed cuDNN, which fails with "
                                    "CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH",
                                    r.path, r.rule, r.why ? ": " : "", r.why ? r.why : "")
                      : cc_strdup("from nowhere (none is found): the call fails with "
                                  "CUDNN_STATUS_NOT_SUPPORTED_SUBLIBRARY_UNAVAILABLE");
    char *text = cc_asprintf(
        "%s is the JIT flavour of cuDNN (libcudnn, libcudnn_graph, "
        "libcudnn_engines_runtime_compiled only): %s.so.%d is not part of it, and %s would take it "
        "%s. Prevent it: %s, keep other cuDNN copies out of this program's loader path "
        "(LD_LIBRARY_PATH, ld.so.conf.d), or install the full flavour there (cudnnctl install "
        "--flavor full --force)",
        s->front_path, stem, s->major,
        legacy ? "a program that calls the legacy API (cudnnConvolutionForward and the rest of "
                 "libcudnn_ops/_cnn/_adv)"
               : "libcudnn_graph, looking for more engines,",
        where ? where : "elsewhere",
        legacy ? "use only the graph API with this install"
               : "use this install where no other cuDNN 9 is on the path");
    if (rc >= 0 && r.path) /* another copy's file would be taken: a mix waiting to happen */
        cc_ld_problem(s->c, text);
    else
        cc_ld_note(s->c, text);
    free(where);
    cc_ld_result_clear(&r);
}

/* The front's dir holds the JIT flavour: the graph and the runtime-compiled engines, none of the
 * legacy API's sub-libraries. */
static int jit_dir(const cudnnctl_ctx *ctx, const char *front)
{
    return dir_has(ctx, front, "libcudnn_graph") &&
           dir_has(ctx, front, "libcudnn_engines_runtime_compiled") &&
           !dir_has(ctx, front, "libcudnn_ops") && !dir_has(ctx, front, "libcudnn_cnn") &&
           !dir_has(ctx, front, "libcudnn_adv");
}

/* The sub-library names of a library, from its bytes, else the list of the release known. */
static void names_of(const cudnnctl_ctx *ctx, const char *file, const char *const *known,
                     cc_strv *out)
{
    if (dlopen_names(ctx, file, out) != 0 || out->n == 0)
        for (const char *const *k = known; *k; k++)
            cc_strv_push(out, *k);
}

static const char *const FRONT9[] = {"libcudnn_graph", "libcudnn_ops", "libcudnn_cnn",
                                     "libcudnn_adv", NULL};
static const char *const GRAPH9[] = {"libcudnn_engines_precompiled",
                                     "libcudnn_engines_runtime_compiled", "libcudnn_heuristic",
                                     NULL};

static void sublibs9(sub_run *s)
{
    cc_strv front = {0}, graph = {0};
    names_of(s->m->ctx, s->front_path, FRONT9, &front);
    front_step(s, "libcudnn_graph", 1); /* first, as cuDNN does */
    const char *gpath = s->graph != (size_t)-1 ? file_of(&s->c->libs[s->graph]) : NULL;
    int gobj = gpath ? cc_ldm_add(s->m, s->c->libs[s->graph].path, s->obj, 0) : -1;
    s->jit = jit_dir(s->m->ctx, s->front_path);
    for (size_t i = 0; i < front.n; i++)
        if (strcmp(front.v[i], "libcudnn_graph") != 0) {
            if (s->jit && !dir_has(s->m->ctx, s->front_path, front.v[i]))
                jit_step(s, s->obj, front.v[i]);
            else
                other_step(s, s->obj, front.v[i]);
        }
    if (gobj >= 0) {
        names_of(s->m->ctx, gpath, GRAPH9, &graph);
        for (size_t i = 0; i < graph.n; i++)
            if (!cc_strv_contains(&front, graph.v[i])) {
                if (s->jit && !dir_has(s->m->ctx, s->front_path, graph.v[i]))
                    jit_step(s, gobj, graph.v[i]);
                else
                    other_step(s, gobj, graph.v[i]);
            }
    }
    cc_strv_free(&front);
    cc_strv_free(&graph);
}

void cc_ld_sublibs(cc_ldmodel *m, cudnnctl_consumer *c)
{
    const cudnnctl_load_result *dnn = NULL;
    for (size_t i = 0; i < c->n_libs && !dnn; i++)
        if (cc_ld_family(c->libs[i].soname) == 0 && c->libs[i].path)
            dnn = &c->libs[i];
    const char *dot = dnn ? strstr(dnn->soname, ".so.") : NULL;
    int major = dot ? atoi(dot + 4) : -1;
    if (major != 8 && major != 9)
        return;
    add_map(c, dnn);
    int req = -1;
    for (size_t i = 0; i < m->n_objs && req < 0 && dnn->requester; i++)
        if (strcmp(m->objs[i].path, dnn->requester) == 0)
            req = (int)i;
    sub_run s;
    memset(&s, 0, sizeof(s));
    s.m = m;
    s.c = c;
    s.major = major;
    s.front_path = cc_strdup(dnn->path);
    s.front_soname = cc_strdup(dnn->soname);
    s.front_rel = dnn->version ? cc_strdup(dnn->version) : NULL;
    s.graph = (size_t)-1;
    s.obj = s.front_path ? cc_ldm_add(m, s.front_path, req, 0) : -1;
    if (s.obj >= 0 && s.front_soname && major == 9) {
        sublibs9(&s);
    } else if (s.obj >= 0 && s.front_soname) { /* 8.x: each sub-library against the front */
        cc_strv names = {0};
        names_of(m->ctx, file_of(dnn), SUB8, &names);
        for (size_t i = 0; i < names.n; i++)
            front_step(&s, names.v[i], i == 0);
        cc_strv_free(&names);
    }
    fit_notes(c, s.groups, s.n_groups, s.front_soname ? s.front_soname : "libcudnn");
    cc_strv_free(&s.graph_syms);
    free(s.front_path);
    free(s.front_soname);
    free(s.front_rel);
}
