/* model.c: objects of the modelled process, the public resolve / tree entry points, results
 * and their JSON. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "grow.h"
#include "json.h"
#include "json_fields.h"
#include "ldmodel.h"
#include "platform.h"

/* An absolute, display path for a consumer given on the command line. */
static char *abs_display(cudnnctl_ctx *ctx, const char *path, int resolve_links)
{
    if (ctx->root && cc_pf_is_abs(path)) {
        char *h = cc_rooted(ctx, path);
        char *u = cc_unrooted(ctx, h);
        free(h);
        return u;
    }
    if (resolve_links)
        return cc_pf_realpath(path);
    if (cc_pf_is_abs(path))
        return cc_strdup(path);
    char *dir = cc_path_dir(path);
    char *rd = dir ? cc_pf_realpath(dir) : NULL;
    char *out = rd ? cc_path_join(rd, cc_path_base(path)) : NULL;
    free(dir);
    free(rd);
    return out;
}

int cc_ldm_add(cc_ldmodel *m, const char *path, int loader, int is_main)
{
    if (cc_grow(&m->objs, &m->cap_objs, m->n_objs + 1, sizeof(*m->objs)) != 0)
        return -1;
    cc_ldobj *o = &m->objs[m->n_objs];
    memset(o, 0, sizeof(*o));
    o->loader = loader;
    o->path = abs_display(m->ctx, path, is_main); /* the program's origin is /proc/self/exe's */
    char *host = o->path ? cc_rooted(m->ctx, o->path) : NULL;
    if (!host || cc_elf_read_dyn(host, &o->elf) != 0) {
        free(host);
        free(o->path);
        return -1;
    }
    free(host);
    o->origin = cc_path_dir(o->path);
    if (is_main) {
        m->main = (int)m->n_objs;
        if (o->elf.machine != m->machine)
            cc_ldm_set_machine(m, o->elf.machine);
        m->is_64 = o->elf.is_64;
    }
    return (int)m->n_objs++;
}

void cc_ld_finish(cc_ldmodel *m, cudnnctl_load_result *r)
{
    if (!r->path)
        return;
    char *host = cc_rooted(m->ctx, r->path);
    char *real = host ? cc_pf_realpath(host) : NULL;
    r->real_path = real ? cc_unrooted(m->ctx, real) : NULL;
    free(host);
    free(real);
    const char *name = r->real_path ? r->real_path : r->path;
    char *stem = cc_strndup(r->soname, strcspn(r->soname, "."));
    if (stem && cc_str_starts(stem, "libcudnn")) {
        /* the copy's release, read from the files: "9" from a wheel-style name says little */
        const char *how = NULL;
        r->version = cc_ld_cudnn_release(m->ctx, name, &how);
        r->version_source = r->version ? cc_strdup(how) : NULL;
    } else if (stem) {
        r->version = cc_ld_version_from_name(name, stem);
        r->version_source = r->version ? cc_strdup("its file name") : NULL;
    }
    free(stem);
}

cudnnctl_err cc_ld_one(cc_ldmodel *m, int req, const char *soname, cudnnctl_load_result *r)
{
    memset(r, 0, sizeof(*r));
    r->soname = cc_strdup(soname);
    r->requester = req >= 0 ? cc_strdup(m->objs[req].path) : NULL;
    int rc = cc_ldm_search(m, req, soname, r);
    if (rc < 0) {
        free(r->rule);
        r->rule = cc_strdup("error");
    } else if (rc == 0) {
        cc_ld_found(r, "not_found", NULL,
                    "%s is in no dir the loader searches (RPATH, LD_LIBRARY_PATH, RUNPATH, "
                    "ld.so.cache, default dirs)",
                    soname);
    }
    cc_ld_finish(m, r);
    return r->soname && r->rule ? CUDNNCTL_E_OK : CUDNNCTL_E_NOMEM;
}

/* 1 when path is a dynamically linked program (a PT_INTERP segment). */
static int is_program(cudnnctl_ctx *ctx, const char *path)
{
    cc_elf_info probe;
    char *host = cc_rooted(ctx, path);
    int ok = host && cc_elf_read(host, &probe) == 0;
    int yes = ok && probe.has_interp;
    if (ok)
        cc_elf_info_free(&probe);
    free(host);
    return yes;
}

cudnnctl_err cudnnctl_loader_resolve(cudnnctl_ctx *ctx, const cudnnctl_loader_env *env,
                                     const char *requester, const char *soname,
                                     cudnnctl_load_result **out)
{
    *out = NULL;
    cc_ldmodel m;
    if (cc_ldm_init(&m, ctx, env) != 0) {
        cc_ldm_free(&m);
        CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    }
    m.main = -1;
    int req = -1;
    if (env && env->main_exe && cc_ldm_add(&m, env->main_exe, -1, 1) < 0) {
        cc_ldm_free(&m);
        CC_RET_ERR(ctx, CUDNNCTL_E_IO, "%s: not a readable ELF program", env->main_exe);
    }
    if (requester) {
        int is_exe = is_program(ctx, requester);
        req = cc_ldm_add(&m, requester, m.main, is_exe && m.main < 0);
        if (req < 0) {
            cc_ldm_free(&m);
            CC_RET_ERR(ctx, CUDNNCTL_E_IO, "%s: not a readable ELF object", requester);
        }
    }
    cudnnctl_load_result *r = calloc(1, sizeof(*r));
    cudnnctl_err e = r ? cc_ld_one(&m, req, soname, r) : CUDNNCTL_E_NOMEM;
    cc_ldm_free(&m);
    if (e != CUDNNCTL_E_OK) {
        cudnnctl_load_result_free(r);
        CC_RET_ERR(ctx, e, "out of memory");
    }
    *out = r;
    return CUDNNCTL_E_OK;
}

void cc_ld_result_clear(cudnnctl_load_result *r)
{
    free(r->soname);
    free(r->requester);
    free(r->path);
    free(r->real_path);
    free(r->rule);
    free(r->dir);
    free(r->from);
    free(r->why);
    free(r->version);
    free(r->version_source);
    for (size_t i = 0; i < r->n_skipped; i++)
        free(r->skipped[i]);
    free(r->skipped);
}

void cudnnctl_load_result_free(cudnnctl_load_result *r)
{
    if (!r)
        return;
    cc_ld_result_clear(r);
    free(r);
}

/* Breadth first, as _dl_map_object_deps: each object's DT_NEEDED in order, an already loaded
 * soname reused; each found object joins the process with its requester as its loader. */
cudnnctl_err cudnnctl_loader_tree(cudnnctl_ctx *ctx, const cudnnctl_loader_env *env,
                                  const char *consumer, cudnnctl_load_tree **out)
{
    *out = NULL;
    cc_ldmodel m;
    cudnnctl_load_tree *t = calloc(1, sizeof(*t));
    if (!t || cc_ldm_init(&m, ctx, env) != 0) {
        free(t);
        cc_ldm_free(&m);
        CC_RET_ERR(ctx, CUDNNCTL_E_NOMEM, "out of memory");
    }
    m.main = -1;
    int is_exe = is_program(ctx, consumer);
    int main_idx = -1;
    if (!is_exe && env && env->main_exe)
        main_idx = cc_ldm_add(&m, env->main_exe, -1, 1);
    int first = cc_ldm_add(&m, consumer, main_idx, is_exe);
    if (first < 0) {
        cc_ldm_free(&m);
        free(t);
        CC_RET_ERR(ctx, CUDNNCTL_E_IO, "%s: not a readable ELF object", consumer);
    }
    m.objs[first].mapped = 1;
    cudnnctl_err e = CUDNNCTL_E_OK;
    for (size_t o = (size_t)first; o < m.n_objs && e == CUDNNCTL_E_OK && t->n < 4096; o++) {
        for (size_t k = 0; k < m.objs[o].elf.n_needed && e == CUDNNCTL_E_OK; k++) {
            const char *need = m.objs[o].elf.needed[k];
            int dup = 0;
            for (size_t j = 0; j < t->n && !dup; j++)
                dup = strcmp(t->v[j].soname, need) == 0;
            if (dup)
                continue;
            if (cc_grow(&t->v, NULL, t->n + 1, sizeof(*t->v)) != 0) {
                e = CUDNNCTL_E_NOMEM;
                break;
            }
            cudnnctl_load_result *r = &t->v[t->n++];
            e = cc_ld_one(&m, (int)o, need, r);
            if (e == CUDNNCTL_E_OK && r->path && strcmp(r->rule, "loaded") != 0) {
                int idx = cc_ldm_add(&m, r->path, (int)o, 0);
                if (idx >= 0)
                    m.objs[idx].mapped = 1;
            }
        }
    }
    cc_ldm_free(&m);
    if (e != CUDNNCTL_E_OK) {
        cudnnctl_load_tree_free(t);
        CC_RET_ERR(ctx, e, "out of memory");
    }
    *out = t;
    return CUDNNCTL_E_OK;
}

void cudnnctl_load_tree_free(cudnnctl_load_tree *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->n; i++)
        cc_ld_result_clear(&t->v[i]);
    free(t->v);
    free(t);
}

cJSON *cc_ld_result_obj(const cudnnctl_load_result *r)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
#define F(m) CC_JSON_FIELD(cudnnctl_load_result, m)
    static const cc_json_field strs[] = {F(soname),  F(requester),     F(path), F(real_path),
                                         F(rule),    F(dir),           F(from), F(why),
                                         F(version), F(version_source)};
#undef F
    cc_json_str_fields(o, r, strs, sizeof(strs) / sizeof(strs[0]));
    cc_json_strs(o, "skipped", r->skipped, r->n_skipped);
    return o;
}

cudnnctl_err cudnnctl_load_result_json(const cudnnctl_load_result *r, char **json)
{
    cJSON *o = cc_ld_result_obj(r);
    *json = o ? cJSON_PrintUnformatted(o) : NULL;
    cJSON_Delete(o);
    return *json ? CUDNNCTL_E_OK : CUDNNCTL_E_NOMEM;
}
