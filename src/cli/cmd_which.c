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

int cmd_which(cli_opts *o, cudnnctl_ctx *ctx)
{
    if (o->dll)
        return which_dll(o, ctx);
    if (o->n_args > 1 || (o->n_args == 1 && o->python)) {
        fprintf(stderr, "cudnnctl: which takes one consumer (a program or library path) or "
                        "--python EXE\n");
        return 2;
    }
    cudnnctl_which_opts wo;
    memset(&wo, 0, sizeof(wo));
    wo.consumer = o->n_args ? o->args[0] : NULL;
    wo.python = o->python;
    wo.driver_version = o->driver_version;
    wo.inherit_ld_library_path = 1;
    wo.env_of = o->env_of;
    cudnnctl_which_report *rep = NULL;
    cudnnctl_err e = cudnnctl_which(ctx, &wo, &rep);
    if (e != CUDNNCTL_E_OK)
        return cli_fail(o, ctx, e);
    int bad = 0;
    for (size_t i = 0; i < rep->n; i++)
        bad |= rep->v[i].verdict && (strcmp(rep->v[i].verdict, "mismatch") == 0 ||
                                     strcmp(rep->v[i].verdict, "missing") == 0);
    if (o->json) {
        char *j = NULL;
        if (cudnnctl_which_report_json(rep, &j) == CUDNNCTL_E_OK)
            cli_print_json(j);
        cudnnctl_free(j);
    } else {
        if (rep->python)
            printf("python: %s (%zu site dirs)\n", rep->python, rep->n_site_dirs);
        printf("LD_LIBRARY_PATH: %s; NVIDIA driver: %s\n\n",
               rep->ld_library_path ? rep->ld_library_path : "(unset)",
               rep->driver_version ? rep->driver_version : "none found");
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

/* The hidden '__load-probe SONAME...': dlopen each by name, print the file mapped. */
int cmd_load_probe(cli_opts *o, cudnnctl_ctx *ctx)
{
    cudnnctl_err e = cudnnctl_load_probe_child(ctx, (const char *const *)o->args,
                                               (size_t)o->n_args, emit_line, NULL);
    return e == CUDNNCTL_E_OK ? 0 : cli_fail(o, ctx, e);
}
