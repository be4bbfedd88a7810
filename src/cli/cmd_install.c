/* cmd_install.c: the 'install' command — the whole pipeline, then (unless --no-validate) GPU
 * validation of what was installed. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_fault.h"

static void human_size(char *buf, size_t n, double v)
{
    const char *u[] = {"B", "KiB", "MiB", "GiB"};
    int i = 0;
    while (v >= 1024 && i < 3) {
        v /= 1024;
        i++;
    }
    snprintf(buf, n, i ? "%.1f %s" : "%.0f %s", v, u[i]);
}

/* After the install (unless --no-validate / --dry-run): GPU validation of what was installed, in
 * a child process (validate.h). No GPU is a warning, not a failed install; a load or compute
 * failure exits 6. The validation JSON is embedded in install --json. Returns an exit code. */
static int validate_after_install(cli_opts *o, cudnnctl_ctx *ctx, cudnnctl_install_result *r)
{
    if (o->no_validate || o->dry_run || strcmp(r->result, "failed") == 0 || !r->lib_dir)
        return 0;
    cudnnctl_validate_opts vo;
    memset(&vo, 0, sizeof(vo));
    vo.target = r->lib_dir;
    vo.include_dir = r->include_dir;
    vo.cuda_home = r->mode == CUDNNCTL_TARGET_CUDA_TREE ? r->target_path : NULL;
    vo.device = o->device;
    vo.timeout_ms = o->timeout_s * 1000u;
    cudnnctl_validate_result *vr = NULL;
    cudnnctl_err ve = cudnnctl_validate(ctx, &vo, &vr);
    if (vr) {
        char *js = NULL;
        if (cudnnctl_validate_result_json(vr, &js) == CUDNNCTL_E_OK)
            cudnnctl_install_result_set_validation(r, js);
        cudnnctl_free(js);
        if (!o->json)
            cli_info(o, "  validated %s: cuDNN %s loaded from %s (%.2f s)",
                     cudnnctl_validate_status_name(vr->status),
                     vr->cudnn_version ? vr->cudnn_version : "?",
                     vr->cudnn_lib ? vr->cudnn_lib : r->lib_dir, vr->seconds);
    }
    cudnnctl_validate_result_free(vr);
    if (ve == CUDNNCTL_E_OK)
        return 0;
    if (ve == CUDNNCTL_E_NO_GPU) {
        cli_warn(o, "no GPU / driver here: versions and loading were checked, the GPU part of "
                    "the validation was skipped (the install stands)");
        return 0;
    }
    /* the install stands either way; the failure is reported and sets the exit code */
    cli_warn(o, "cuDNN was installed, but validating it failed (--no-validate skips this):");
    return cli_fail(o, ctx, ve);
}

static void print_human(cli_opts *o, const cudnnctl_install_result *r)
{
    cli_info(o, "cuDNN %s for CUDA %s (%s) -> %s [%s]", r->cudnn_version ? r->cudnn_version : "?",
             r->cuda_variant ? r->cuda_variant : "?", r->platform ? r->platform : "?",
             r->install_dir ? r->install_dir : "?",
             r->mode == CUDNNCTL_TARGET_PREFIX ? "prefix" : "cuda-tree");
    if (strcmp(r->result, "dry-run") == 0 || o->verbose) {
        for (size_t i = 0; i < r->n_steps; i++)
            cli_info(o, "  %s %s", strcmp(r->result, "dry-run") == 0 ? "would:" : "-", r->steps[i]);
    }
    if (r->archive.url)
        cli_info(o, "  source    %s", r->archive.url);
    if (r->archive.sha256)
        cli_info(o, "  sha256    %s%s", r->archive.sha256,
                 r->archive.verified
                     ? " (verified)"
                     : (strcmp(r->result, "installed") == 0 ? " (NOT VERIFIED)" : " (expected)"));
    if (strcmp(r->result, "installed") == 0) {
        char sz[32];
        human_size(sz, sizeof(sz), (double)r->bytes_written);
        cli_info(o,
                 "  result    installed: %zu files and links, %s, %zu replaced (backed up), "
                 "%.2f s",
                 r->n_files_written, sz, r->n_files_replaced, r->seconds);
    } else {
        cli_info(o, "  result    %s", r->result);
    }
    if (r->receipt_path)
        cli_info(o, "  receipt   %s", r->receipt_path);
    if (r->ldconfig)
        cli_info(o, "  ldconfig  %s", r->ldconfig);
    if (r->recovered)
        cli_info(o, "  recovered an interrupted run (%s)", r->recovered);
}

int cmd_install(cli_opts *o, cudnnctl_ctx *ctx)
{
    cudnnctl_catalog *cat = NULL;
    cudnnctl_detect_result *det = NULL;
    cudnnctl_install_result *r = NULL;
    int code = 0;
    cudnnctl_err e = cudnnctl_catalog_load(ctx, &cat);
    for (int i = 0; e == CUDNNCTL_E_OK && i < o->n_manifests; i++)
        e = cudnnctl_catalog_add_manifest(ctx, cat, o->manifests[i]);
    if (e == CUDNNCTL_E_OK)
        e = cudnnctl_detect(ctx, &det);
    if (e != CUDNNCTL_E_OK) {
        code = cli_fail(o, ctx, e);
        goto out;
    }
    cudnnctl_install_opts io;
    memset(&io, 0, sizeof(io));
    io.selection = cli_selection(o);
    io.archive = o->archive;
    io.sha256 = o->sha256;
    io.insecure_skip_verify = o->insecure_skip_verify;
    io.mirror = o->mirror;
    io.cacert = o->cacert;
    io.no_ldconfig = o->no_ldconfig;
    io.system_env = o->system_wide;
    io.force = o->force;
    io.dry_run = o->dry_run;
    io.max_unpacked = o->max_unpacked;
    io.allow_manifest_override = o->allow_manifest_override;

    cli_fault_arm(ctx);
    e = cudnnctl_install(ctx, cat, det, &io, &r);
    cli_fault_disarm(ctx);

    /* human: the summary, then the validation; --json: one document with the validation in it */
    if (r && !o->json && !o->quiet && (e == CUDNNCTL_E_OK || strcmp(r->result, "installed") == 0))
        print_human(o, r);
    if (r && e == CUDNNCTL_E_OK)
        code = validate_after_install(o, ctx, r);
    if (r && o->json) {
        char *js = NULL;
        if (cudnnctl_install_result_json(r, &js) == CUDNNCTL_E_OK)
            cli_print_json(js);
        cudnnctl_free(js);
    }
    if (e != CUDNNCTL_E_OK)
        code = cli_fail(o, ctx, e);
out:
    cudnnctl_install_result_free(r);
    cudnnctl_detect_result_free(det);
    cudnnctl_catalog_free(cat);
    return code;
}
