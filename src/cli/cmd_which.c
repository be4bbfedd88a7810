/* cmd_which.c: the 'which' command: which libcudnn / libcudart / libcublas a consumer will
 * really load (the environment, an ELF program or library, a Python interpreter's frameworks),
 * why, and whether that combination works. docs/which.md. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static void print_lib(const cudnnctl_load_result *r)
{
    if (r->path)
        printf("  %-18s -> %s%s%s%s\n", r->soname, r->path, r->version ? "  (" : "",
               r->version ? r->version : "", r->version ? ")" : "");
    else
        printf("  %-18s -> %s\n", r->soname, strcmp(r->rule, "error") == 0 ? "ERROR" : "not found");
    printf("  %-18s    %s: %s\n", "", r->rule, r->why ? r->why : "");
    if (r->real_path && r->path && strcmp(r->real_path, r->path) != 0)
        printf("  %-18s    file: %s\n", "", r->real_path);
}

static void print_consumer(const cudnnctl_consumer *c)
{
    if (strcmp(c->kind, "framework") == 0)
        printf("%s %s  (%s)\n", c->name, c->version ? c->version : "?",
               c->location ? c->location : "");
    else
        printf("%s\n", c->name);
    if (c->build_cudnn || c->build_cuda || c->need_cudnn_major >= 0 || c->need_cuda_major >= 0) {
        char dnn[32], cuda[32];
        snprintf(dnn, sizeof(dnn), "%d.x", c->need_cudnn_major);
        snprintf(cuda, sizeof(cuda), "%d.x", c->need_cuda_major);
        printf("  built for: cuDNN %s, CUDA %s",
               c->build_cudnn ? c->build_cudnn : c->need_cudnn_major >= 0 ? dnn : "?",
               c->build_cuda ? c->build_cuda : c->need_cuda_major > 0 ? cuda : "?");
        printf("%s%s%s\n", c->build_source ? "  [" : "", c->build_source ? c->build_source : "",
               c->build_source ? "]" : "");
    }
    if (c->extension && strcmp(c->kind, "framework") == 0)
        printf("  extension: %s\n", c->extension);
    else if (!c->extension && strcmp(c->kind, "framework") == 0)
        printf("  extension: none found (no CUDA extension ELF: a CPU build?)\n");
    for (size_t i = 0; i < c->n_libs; i++)
        print_lib(&c->libs[i]);
    if (c->loaded_cudnn_cuda_major > 0)
        printf("  the cuDNN it loads was built for CUDA %d (from %s)\n",
               c->loaded_cudnn_cuda_major,
               c->loaded_cudnn_cuda_source ? c->loaded_cudnn_cuda_source : "?");
    if (c->n_libs && strcmp(c->kind, "environment") != 0) {
        const char *dnn_rule = NULL;
        for (size_t i = 0; i < c->n_libs && !dnn_rule; i++)
            if (strncmp(c->libs[i].soname, "libcudnn.so.", 12) == 0)
                dnn_rule = c->libs[i].rule;
        int by_rpath = dnn_rule && strcmp(dnn_rule, "rpath") == 0;
        if (!c->system_install_affects)
            printf("  a system-wide cuDNN install (ld.so.conf.d, /usr/lib) does not affect it: %s "
                   "decides first\n",
                   by_rpath ? "its DT_RPATH" : "LD_LIBRARY_PATH / DT_RUNPATH");
        if (!c->ld_library_path_affects)
            printf("  LD_LIBRARY_PATH does not affect it either (DT_RPATH comes first)\n");
        else if (by_rpath)
            printf("  but LD_LIBRARY_PATH does: libcudnn comes through DT_RPATH, the sub-libraries "
                   "it loads itself through its DT_RUNPATH, which comes after LD_LIBRARY_PATH (a "
                   "dir there with another cuDNN mixes the two)\n");
    }
    for (size_t i = 0; i < c->n_notes; i++)
        printf("  note: %s\n", c->notes[i]);
    for (size_t i = 0; i < c->n_problems; i++)
        printf("  problem: %s\n", c->problems[i]);
    if (c->fix)
        printf("  fix: %s\n", c->fix);
    if (c->fix_command)
        printf("  run: %s\n", c->fix_command);
    printf("  verdict: %s\n\n", c->verdict ? c->verdict : "unknown");
}

/* which --dll NAME: the Windows DLL search order for a plain LoadLibrary from this program. */
static int which_dll(cli_opts *o, cudnnctl_ctx *ctx)
{
    cudnnctl_load_result *r = NULL;
    cudnnctl_err e = cudnnctl_dll_which(ctx, o->dll, &r);
    if (e != CUDNNCTL_E_OK)
        return cli_fail(o, ctx, e);
    if (o->json) {
        char *j = NULL;
        if (cudnnctl_load_result_json(r, &j) == CUDNNCTL_E_OK)
            cli_print_json(j);
        cudnnctl_free(j);
    } else {
        print_lib(r);
    }
    int rc = r->path ? 0 : 6;
    cudnnctl_load_result_free(r);
    return rc;
}

/* The loader modelled: glibc, $PLATFORM, glibc-hwcaps subdirs, and whether that is assumed. */
static void print_loader(const cudnnctl_which_report *rep)
{
    printf("loader%s: glibc %s, $PLATFORM %s, glibc-hwcaps",
           rep->loader_assumed ? " (assumed)" : "", rep->loader_glibc ? rep->loader_glibc : "unknown",
           rep->loader_platform ? rep->loader_platform : "(none)");
    for (size_t i = 0; i < rep->n_loader_hwcaps; i++)
        printf(" %s", rep->loader_hwcaps[i]);
    printf("%s\n  (%s)\n\n", rep->n_loader_hwcaps ? "" : " (none)",
           rep->loader_source ? rep->loader_source : "?");
}

static void print_build(const cudnnctl_build_view *v)
{
    printf("build: what a compiler and the linker take in this environment\n");
    for (size_t i = 0; i < v->n_compilers; i++) {
        const cudnnctl_build_compiler *c = &v->compilers[i];
        if (c->error)
            printf("  %-8s %s\n", c->name, c->error);
        else if (c->header)
            printf("  %-8s cudnn.h -> %s (cuDNN %s)\n", c->name, c->header,
                   c->header_version ? c->header_version : "?");
        else
            printf("  %-8s cudnn.h -> not on its include path (%zu dirs)\n", c->name,
                   c->n_include_dirs);
    }
    if (v->library)
        printf("  %-8s -lcudnn -> %s (cuDNN %s, SONAME %s)\n", "ld", v->library,
               v->library_version ? v->library_version : "?",
               v->library_soname ? v->library_soname : "none");
    else
        printf("  %-8s -lcudnn -> not found (%zu dirs searched)\n", "ld", v->n_lib_dirs);
    printf("run time (a program built here, no RPATH):\n");
    if (v->runtime)
        print_lib(v->runtime);
    else
        printf("  nothing to look up: no cuDNN header or library for a build\n");
    printf("agreement: %s\n", v->agree > 0    ? "yes, one release"
                              : v->agree == 0 ? "NO"
                                              : "nothing to compare");
    for (size_t i = 0; i < v->n_problems; i++)
        printf("  problem: %s\n", v->problems[i]);
}

/* which --build: the headers and library a build takes against what programs load. */
static int which_build(cli_opts *o, cudnnctl_ctx *ctx)
{
    cudnnctl_build_opts bo;
    memset(&bo, 0, sizeof(bo));
    bo.inherit_ld_library_path = 1;
    cudnnctl_build_view *v = NULL;
    cudnnctl_err e = cudnnctl_build_view_make(ctx, &bo, &v);
    if (e != CUDNNCTL_E_OK)
        return cli_fail(o, ctx, e);
    if (o->json) {
        char *j = NULL;
        if (cudnnctl_build_view_json(v, &j) == CUDNNCTL_E_OK)
            cli_print_json(j);
        cudnnctl_free(j);
    } else {
        print_build(v);
    }
    int rc = v->agree == 0 ? 6 : 0;
    cudnnctl_build_view_free(v);
    return rc;
}

/* which --json: the build section joins the report (null where it cannot be made). */
static void print_with_build(cudnnctl_ctx *ctx, const char *report)
{
    cudnnctl_build_opts bo;
    memset(&bo, 0, sizeof(bo));
    bo.inherit_ld_library_path = 1;
    cudnnctl_build_view *v = NULL;
    char *bj = NULL, *all = NULL;
    if (cudnnctl_build_view_make(ctx, &bo, &v) == CUDNNCTL_E_OK)
        cudnnctl_build_view_json(v, &bj);
    cudnnctl_build_view_free(v);
    if (cudnnctl_json_attach(report, "build", bj ? bj : "null", &all) == CUDNNCTL_E_OK)
        cli_print_json(all);
    else
        cli_print_json(report);
    cudnnctl_free(all);
    cudnnctl_free(bj);
}

/* "python", "python3", "python3.12": an interpreter, asked about its frameworks (--python). */
static int is_python_name(const char *name)
{
    return strncmp(name, "python", 6) == 0 && strspn(name + 6, "0123456789.") == strlen(name + 6);
}

/* "libcudnn.so.9", "libcudart.so": a shared library's name, not a program's. */
static int is_soname(const char *name)
{
    const char *so = strstr(name, ".so");
    return so && (so[3] == '\0' || so[3] == '.');
}

/* A soname as the loader finds it for a program started here (LD_LIBRARY_PATH, ld.so.cache,
 * the default dirs), like `ldd` users know. 0 with *out set; else the exit code, said. */
static int resolve_soname(cli_opts *o, cudnnctl_ctx *ctx, const char *name, char **out)
{
    char *ldp = NULL;
    if (o->env_of && cudnnctl_env_of(ctx, o->env_of, cudnnctl_host_getenv("LD_LIBRARY_PATH"),
                                     &ldp) != CUDNNCTL_E_OK)
        return cli_fail(o, ctx, cudnnctl_last_error(ctx)->code);
    cudnnctl_loader_env env = {o->env_of ? ldp : cudnnctl_host_getenv("LD_LIBRARY_PATH"), NULL,
                               NULL};
    cudnnctl_load_result *r = NULL;
    cudnnctl_err e = cudnnctl_loader_resolve(ctx, &env, NULL, name, &r);
    cudnnctl_free(ldp);
    if (e != CUDNNCTL_E_OK)
        return cli_fail(o, ctx, e);
    int rc = 0;
    if (r->path && (*out = malloc(strlen(r->path) + 1)) != NULL) {
        memcpy(*out, r->path, strlen(r->path) + 1);
        if (!o->json)
            printf("%s: the loader maps %s (%s: %s)\n", name, r->path, r->rule,
                   r->why ? r->why : "");
    } else if (o->json) {
        char *j = NULL;
        if (cudnnctl_load_result_json(r, &j) == CUDNNCTL_E_OK)
            cli_print_json(j);
        cudnnctl_free(j);
        rc = 6;
    } else {
        print_lib(r); /* not found: where it looked */
        rc = 6;
    }
    cudnnctl_load_result_free(r);
    return rc;
}

/* A program name as a shell finds it: the first PATH dir that has it (under --root: that
 * image's file at the same path), like `which`. 0 with *out set; else 2, said. */
static int resolve_program(const cudnnctl_ctx *ctx, const char *name, char **out)
{
    const char *path = cudnnctl_host_getenv("PATH");
    for (const char *p = path; p && *p;) {
        size_t n = strcspn(p, ":");
        char *cand = malloc(n + strlen(name) + 3);
        if (!cand)
            return 1;
        snprintf(cand, n + strlen(name) + 3, "%.*s/%s", (int)(n ? n : 1), n ? p : ".", name);
        if (cudnnctl_host_path_kind(ctx, cand, CUDNNCTL_PATH_ROOTED) == 1) {
            *out = cand;
            return 0;
        }
        free(cand);
        p += n + (p[n] == ':');
    }
    fprintf(stderr, "cudnnctl: which %s: no program of that name on PATH (%s); give its path, "
                    "or a library's soname (libcudnn.so.9)\n",
            name, path ? path : "unset");
    return 2;
}

int cmd_which(cli_opts *o, cudnnctl_ctx *ctx)
{
    if (o->dll)
        return which_dll(o, ctx);
    if (o->build && (o->n_args || o->python || o->env_of)) {
        fprintf(stderr, "cudnnctl: which --build takes no consumer, --python or --env-of: it "
                        "looks at this environment's compilers\n");
        return 2;
    }
    if (o->build)
        return which_build(o, ctx);
    if (o->n_args > 1 || (o->n_args == 1 && o->python)) {
        fprintf(stderr, "cudnnctl: which takes one consumer (a program or library path) or "
                        "--python EXE\n");
        return 2;
    }
    char *found = NULL; /* a bare name, resolved as a shell or the loader would */
    const char *arg = o->n_args ? o->args[0] : NULL, *python = o->python;
    if (arg && !strchr(arg, '/')) {
        int rc = is_soname(arg) ? resolve_soname(o, ctx, arg, &found)
                                : resolve_program(ctx, arg, &found);
        if (rc != 0)
            return rc;
        arg = found;
        if (is_python_name(o->args[0])) { /* `which python3`: what its frameworks load */
            python = found;
            arg = NULL;
        }
    }
    cudnnctl_which_opts wo;
    memset(&wo, 0, sizeof(wo));
    wo.consumer = arg;
    wo.python = python;
    wo.driver_version = o->driver_version;
    wo.inherit_ld_library_path = 1;
    wo.env_of = o->env_of;
    cudnnctl_which_report *rep = NULL;
    cudnnctl_err e = cudnnctl_which(ctx, &wo, &rep);
    free(found);
    if (e != CUDNNCTL_E_OK)
        return cli_fail(o, ctx, e);
    int bad = 0;
    for (size_t i = 0; i < rep->n; i++)
        bad |= rep->v[i].verdict && (strcmp(rep->v[i].verdict, "mismatch") == 0 ||
                                     strcmp(rep->v[i].verdict, "missing") == 0);
    if (o->json) {
        char *j = NULL;
        if (cudnnctl_which_report_json(rep, &j) == CUDNNCTL_E_OK)
            print_with_build(ctx, j);
        cudnnctl_free(j);
    } else {
        if (rep->python)
            printf("python: %s (%zu site dirs)\n", rep->python, rep->n_site_dirs);
        printf("LD_LIBRARY_PATH: %s; NVIDIA driver: %s\n",
               rep->ld_library_path ? rep->ld_library_path : "(unset)",
               rep->driver_version ? rep->driver_version : "none found");
        print_loader(rep);
        if (rep->python && rep->n == 0)
            printf("no CUDA framework found in its site dirs (torch, tensorflow, jax cuda plugin, "
                   "onnxruntime-gpu, cupy, paddle)\n");
        for (size_t i = 0; i < rep->n; i++)
            print_consumer(&rep->v[i]);
    }
    cudnnctl_which_report_free(rep);
    return bad ? 6 : 0;
}

static void emit_line(void *user, const char *line)
{
    (void)user;
    printf("%s\n", line);
    fflush(stdout);
}

/* '__load-probe -': the sonames come on stdin, one line (cudnnctl_effective_start's children
 * wait there until the work they check is done); EOF before it: nothing is loaded. */
static int load_probe_stdin(cli_opts *o, cudnnctl_ctx *ctx)
{
    char line[512];
    const char *names[8];
    size_t n = 0;
    if (!fgets(line, sizeof(line), stdin))
        return 0;
    for (char *t = line + strspn(line, " \t\r\n"); *t && n < 8; t += strspn(t, " \t\r\n")) {
        names[n++] = t;
        t += strcspn(t, " \t\r\n");
        if (*t)
            *t++ = '\0';
    }
    cudnnctl_err e = cudnnctl_load_probe_child(ctx, names, n, emit_line, NULL);
    return e == CUDNNCTL_E_OK ? 0 : cli_fail(o, ctx, e);
}

/* The hidden '__load-probe SONAME...': dlopen each by name, print the file mapped. */
int cmd_load_probe(cli_opts *o, cudnnctl_ctx *ctx)
{
    if (o->n_args == 1 && strcmp(o->args[0], "-") == 0)
        return load_probe_stdin(o, ctx);
    cudnnctl_err e = cudnnctl_load_probe_child(ctx, (const char *const *)o->args,
                                               (size_t)o->n_args, emit_line, NULL);
    return e == CUDNNCTL_E_OK ? 0 : cli_fail(o, ctx, e);
}
