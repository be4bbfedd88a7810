/* which_report.c: `which` for the environment itself and for an ELF consumer; the report's
 * JSON (docs/which.md, schema cudnnctl-which/1) and its release. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "grow.h"
#include "json.h"
#include "json_fields.h"
#include "consumer_int.h"
#include "platform.h"

/* A program without RPATH / RUNPATH: each soname a CUDA program of any recent major asks for;
 * those found, and libcudnn.so.9 always. */
static cudnnctl_err env_consumer(cc_ldmodel *m, cudnnctl_which_report *rep)
{
    static const char *const sonames[] = {"libcudnn.so.9",   "libcudnn.so.8",   "libcudart.so.13",
                                          "libcudart.so.12", "libcudart.so.11", "libcublas.so.13",
                                          "libcublas.so.12", "libcublas.so.11"};
    cudnnctl_consumer *c;
    cudnnctl_err e = cc_ld_push_consumer(rep, &c);
    if (e != CUDNNCTL_E_OK)
        return e;
    c->kind = cc_strdup("environment");
    c->name = cc_strdup("environment");
    for (size_t i = 0; i < sizeof(sonames) / sizeof(sonames[0]) && e == CUDNNCTL_E_OK; i++) {
        e = cc_ld_add_lib(m, c, -1, sonames[i]);
        cudnnctl_load_result *r = &c->libs[c->n_libs - 1];
        if (e == CUDNNCTL_E_OK && !r->path && i != 0 && strcmp(r->rule, "error") != 0) {
            cc_ld_result_clear(r);
            c->n_libs--;
        }
    }
    if (e == CUDNNCTL_E_OK)
        cc_ld_sublibs(m, c);
    return e;
}

/* An ELF consumer: its load tree, the three families from it; libcudnn.so.<M> as a dlopen from
 * the consumer when it does not link cuDNN (TensorFlow, XLA, ONNX Runtime's provider do). */
static cudnnctl_err elf_consumer(cudnnctl_ctx *ctx, const cudnnctl_which_opts *o, cc_ldmodel *m,
                                 cudnnctl_which_report *rep)
{
    cudnnctl_load_tree *t = NULL;
    cudnnctl_err e = cudnnctl_loader_tree(ctx, &o->env, o->consumer, &t);
    if (e != CUDNNCTL_E_OK)
        return e;
    cudnnctl_consumer *c;
    if ((e = cc_ld_push_consumer(rep, &c)) != CUDNNCTL_E_OK) {
        cudnnctl_load_tree_free(t);
        return e;
    }
    c->kind = cc_strdup("elf");
    c->name = cc_strdup(o->consumer);
    c->extension = cc_strdup(o->consumer);
    int have_dnn = 0;
    for (size_t i = 0; i < t->n; i++) {
        int fam = cc_ld_family(t->v[i].soname);
        if (fam < 0)
            continue;
        if (cc_grow(&c->libs, NULL, c->n_libs + 1, sizeof(*c->libs)) != 0)
            break;
        c->libs[c->n_libs++] = t->v[i]; /* moved */
        memset(&t->v[i], 0, sizeof(t->v[i]));
        t->v[i].soname = cc_strdup("");
        const char *dot = strstr(c->libs[c->n_libs - 1].soname, ".so.");
        int major = dot ? atoi(dot + 4) : -1;
        if (fam == 0) {
            have_dnn = 1;
            c->need_cudnn_major = major;
        } else if (fam == 1) {
            c->need_cuda_major = major;
        }
    }
    cudnnctl_load_tree_free(t);
    c->build_source = cc_strdup("DT_NEEDED");
    if (!have_dnn) {
        int req = cc_ldm_add(m, o->consumer, -1, 0);
        e = cc_ld_add_lib(m, c, req, "libcudnn.so.9");
        if (e == CUDNNCTL_E_OK) {
            cudnnctl_load_result *r = &c->libs[c->n_libs - 1];
            char *why = cc_asprintf("%s does not link cuDNN; if it dlopens libcudnn.so.9: %s",
                                    o->consumer, r->why ? r->why : "");
            free(r->why);
            r->why = why;
        }
    }
    if (e == CUDNNCTL_E_OK)
        cc_ld_sublibs(m, c);
    return e;
}

static cudnnctl_err which_build(cudnnctl_ctx *ctx, const cudnnctl_which_opts *o,
                                cudnnctl_which_report **out);

cudnnctl_err cudnnctl_which(cudnnctl_ctx *ctx, const cudnnctl_which_opts *o,
                            cudnnctl_which_report **out)
{
    *out = NULL;
    cudnnctl_which_opts local = *o;
    char *llp = NULL;
    if (o->inherit_ld_library_path) {
        const char *v = cc_pf_getenv("LD_LIBRARY_PATH");
        local.env.ld_library_path = v && *v ? v : NULL;
    }
    if (o->env_of) {
        cudnnctl_err e = cudnnctl_env_of(ctx, o->env_of, local.env.ld_library_path, &llp);
        if (e != CUDNNCTL_E_OK)
            return e;
        local.env.ld_library_path = llp && *llp ? llp : NULL;
    }
    cudnnctl_err e = which_build(ctx, &local, out);
    free(llp);
    return e;
}

/* What the model took for the loader (the report's "loader" object). */
static void loader_facts(cudnnctl_which_report *rep, const cc_ld_host *h)
{
    rep->loader_glibc = h->glibc ? cc_strdup(h->glibc) : NULL;
    rep->loader_platform = h->platform ? cc_strdup(h->platform) : NULL;
    rep->loader_hwcaps = h->hwcaps.n ? calloc(h->hwcaps.n, sizeof(char *)) : NULL;
    for (size_t i = 0; rep->loader_hwcaps && i < h->hwcaps.n; i++)
        rep->loader_hwcaps[rep->n_loader_hwcaps++] = cc_strdup(h->hwcaps.v[i]);
    rep->loader_source = h->source ? cc_strdup(h->source) : NULL;
    rep->loader_assumed = h->assumed;
}

static cudnnctl_err which_build(cudnnctl_ctx *ctx, const cudnnctl_which_opts *o,
                                cudnnctl_which_report **out)
{
    cudnnctl_which_report *rep = calloc(1, sizeof(*rep));
    cc_ldmodel m;
    if (!rep || cc_ldm_init(&m, ctx, &o->env) != 0) {
        free(rep);
        cc_ldm_free(&m);
        CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    }
    m.main = -1;
    rep->ld_library_path = o->env.ld_library_path ? cc_strdup(o->env.ld_library_path) : NULL;
    if (o->consumer && !o->python) { /* the program's machine decides (cc_ldm_add) */
        char *h = cc_rooted(ctx, o->consumer);
        cc_elf_info ei;
        if (h && cc_elf_read(h, &ei) == 0) {
            if (ei.machine != m.machine)
                cc_ldm_set_machine(&m, ei.machine);
            cc_elf_info_free(&ei);
        }
        free(h);
    }
    loader_facts(rep, &m.host);
    rep->driver_version =
        o->driver_version ? cc_strdup(o->driver_version) : cc_ld_driver_version(&m);
    cudnnctl_err e;
    if (o->python)
        e = cc_consumer_python(ctx, o, rep);
    else if (o->consumer)
        e = elf_consumer(ctx, o, &m, rep);
    else
        e = env_consumer(&m, rep);
    cc_ldm_free(&m);
    if (e != CUDNNCTL_E_OK) {
        cudnnctl_which_report_free(rep);
        return e; /* the error is already recorded */
    }
    for (size_t i = 0; i < rep->n; i++) {
        if (!rep->v[i].verdict)
            cc_ld_judge(ctx, &rep->v[i], rep->driver_version);
        cc_consumer_fix(ctx, rep, &rep->v[i]);
    }
    *out = rep;
    return CUDNNCTL_E_OK;
}

static void consumer_clear(cudnnctl_consumer *c)
{
    free(c->kind);
    free(c->name);
    free(c->version);
    free(c->location);
    free(c->extension);
    free(c->build_cudnn);
    free(c->build_cuda);
    free(c->build_source);
    for (size_t i = 0; i < c->n_libs; i++)
        cc_ld_result_clear(&c->libs[i]);
    free(c->libs);
    free(c->verdict);
    free(c->loaded_cudnn_cuda_source);
    for (size_t i = 0; i < c->n_problems; i++)
        free(c->problems[i]);
    free(c->problems);
    cc_strs_free(c->notes, c->n_notes);
    cc_strs_free(c->maps, c->n_maps);
    free(c->fix);
    free(c->fix_command);
}

void cudnnctl_which_report_free(cudnnctl_which_report *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->n; i++)
        consumer_clear(&r->v[i]);
    free(r->v);
    free(r->python);
    for (size_t i = 0; i < r->n_site_dirs; i++)
        free(r->site_dirs[i]);
    free(r->site_dirs);
    free(r->ld_library_path);
    free(r->driver_version);
    free(r->loader_glibc);
    free(r->loader_platform);
    for (size_t i = 0; i < r->n_loader_hwcaps; i++)
        free(r->loader_hwcaps[i]);
    free(r->loader_hwcaps);
    free(r->loader_source);
    free(r);
}

static void num_or_null(cJSON *o, const char *k, int v)
{
    if (v >= 0)
        cJSON_AddNumberToObject(o, k, v);
    else
        cJSON_AddNullToObject(o, k);
}

static cJSON *consumer_obj(const cudnnctl_consumer *c)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
#define F(m) CC_JSON_FIELD(cudnnctl_consumer, m)
    static const cc_json_field what[] = {F(kind), F(name), F(version), F(location), F(extension)};
#undef F
    static const cc_json_field built[] = {{"cudnn", offsetof(cudnnctl_consumer, build_cudnn)},
                                          {"cuda", offsetof(cudnnctl_consumer, build_cuda)},
                                          {"source", offsetof(cudnnctl_consumer, build_source)}};
    cc_json_str_fields(o, c, what, sizeof(what) / sizeof(what[0]));
    cJSON *b = cJSON_AddObjectToObject(o, "built_for");
    cc_json_str_fields(b, c, built, sizeof(built) / sizeof(built[0]));
    num_or_null(b, "cudnn_major", c->need_cudnn_major);
    num_or_null(b, "cudnn_minor", c->need_cudnn_minor);
    num_or_null(b, "cuda_major", c->need_cuda_major);
    cJSON *libs = cJSON_AddArrayToObject(o, "loads");
    for (size_t i = 0; i < c->n_libs; i++)
        cJSON_AddItemToArray(libs, cc_ld_result_obj(&c->libs[i]));
    num_or_null(o, "loaded_cudnn_cuda_major", c->loaded_cudnn_cuda_major);
    cc_json_str(o, "loaded_cudnn_cuda_source", c->loaded_cudnn_cuda_source);
    cc_json_str(o, "verdict", c->verdict);
    cc_json_strs(o, "problems", c->problems, c->n_problems);
    cc_json_strs(o, "notes", c->notes, c->n_notes);
    cc_json_strs(o, "maps", c->maps, c->n_maps);
    cJSON *causes = cJSON_AddArrayToObject(o, "causes");
    static const char *const names[] = {"not_found", "bad_file", "major", "too_old",
                                        "cuda_major", "driver", "mixed"};
    for (unsigned k = 0; causes && k < 7; k++)
        if (c->causes & (1u << k))
            cJSON_AddItemToArray(causes, cJSON_CreateString(names[k]));
    cc_json_str(o, "fix", c->fix);
    cc_json_str(o, "fix_command", c->fix_command);
    cJSON_AddBoolToObject(o, "system_install_affects", c->system_install_affects);
    cJSON_AddBoolToObject(o, "ld_library_path_affects", c->ld_library_path_affects);
    return o;
}

cudnnctl_err cudnnctl_which_report_json(const cudnnctl_which_report *r, char **json)
{
    *json = NULL;
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return CUDNNCTL_E_NOMEM;
    cJSON_AddStringToObject(o, "schema", "cudnnctl-which/1");
    cc_json_str(o, "python", r->python);
    cc_json_strs(o, "site_dirs", r->site_dirs, r->n_site_dirs);
    cc_json_str(o, "ld_library_path", r->ld_library_path);
    cc_json_str(o, "driver_version", r->driver_version);
    cJSON *ld = cJSON_AddObjectToObject(o, "loader");
    cc_json_str(ld, "glibc", r->loader_glibc);
    cc_json_str(ld, "platform", r->loader_platform);
    cc_json_strs(ld, "hwcaps", r->loader_hwcaps, r->n_loader_hwcaps);
    cc_json_str(ld, "source", r->loader_source);
    cJSON_AddBoolToObject(ld, "assumed", r->loader_assumed);
    cJSON *arr = cJSON_AddArrayToObject(o, "consumers");
    for (size_t i = 0; i < r->n; i++)
        cJSON_AddItemToArray(arr, consumer_obj(&r->v[i]));
    *json = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    return *json ? CUDNNCTL_E_OK : CUDNNCTL_E_NOMEM;
}
