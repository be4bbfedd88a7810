/* cmd_install.c: the 'install' command — the whole pipeline and (unless --no-validate) the GPU
 * validation of what was installed, both in the library; this file renders the result. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_fault.h"
#include "effective_out.h"

/* The validation that followed the install (the library ran it and ruled on it: postcheck):
 * its line, then the warning or the failure (exit 6; the install stands). Returns an exit code. */
static int print_postcheck(cli_opts *o, cudnnctl_ctx *ctx, const cudnnctl_install_result *r,
                           cudnnctl_err e)
{
    const cudnnctl_validate_result *vr = r->validation;
    if (vr && !o->json)
        cli_info(o, "  validated %s: cuDNN %s loaded from %s (%.2f s)",
                 cudnnctl_validate_status_name(vr->status),
                 vr->cudnn_version ? vr->cudnn_version : "?",
                 vr->cudnn_lib ? vr->cudnn_lib : r->lib_dir, vr->seconds);
    if (r->postcheck == CUDNNCTL_POSTCHECK_NO_GPU)
        cli_warn(o, "no GPU / driver here: versions and loading were checked, the GPU part of "
                    "the validation was skipped (the install stands)");
    if (r->postcheck != CUDNNCTL_POSTCHECK_FAILED)
        return 0;
    cli_warn(o, "cuDNN was installed, but validating it failed (--no-validate skips this):");
    return cli_fail(o, ctx, e);
}

/* The effective check (docs/which.md): does a process that dlopens libcudnn.so.<M> by name map
 * what was just installed, here and in a new login shell? The library names the fixes (the
 * activation of the prefix or tree: cudnnctl_activation_fix, the same as validate and doctor). */
static char *effective_after_install(cli_opts *o, cudnnctl_ctx *ctx,
                                     cudnnctl_effective_probe *pre,
                                     const cudnnctl_install_result *r)
{
    return cli_effective_with(o, ctx, pre, r->cudnn_version, r->lib_dir, NULL, NULL);
}

static void print_human(cli_opts *o, const cudnnctl_install_result *r)
{
    cli_info(o, "cuDNN %s for CUDA %s (%s) -> %s [%s]", r->cudnn_version ? r->cudnn_version : "?",
             r->cuda_variant ? r->cuda_variant : "?", r->platform ? r->platform : "?",
             r->install_dir ? r->install_dir : "?",
             r->mode == CUDNNCTL_TARGET_PREFIX ? "prefix" : "cuda-tree");
    char comp[40], all[40];
    cudnnctl_components_text(r->components, comp, sizeof(comp));
    cudnnctl_components_text(r->components_installed, all, sizeof(all));
    cli_info(o, "  flavor    %s; components %s%s%s%s", cudnnctl_flavor_name(r->flavor), comp,
             r->components_installed != r->components ? " (the install now has " : "",
             r->components_installed != r->components ? all : "",
             r->components_installed != r->components ? ")" : "");
    int dry = r->result == CUDNNCTL_INSTALL_DRY_RUN;
    if (dry || o->verbose) {
        for (size_t i = 0; i < r->n_steps; i++)
            cli_info(o, "  %s %s", dry ? "would:" : "-", r->steps[i]);
    }
    if (r->archive.url)
        cli_info(o, "  source    %s", r->archive.url);
    if (r->source && (r->source_reason || strcmp(r->source, "wheel") == 0))
        cli_info(o, "  from      %s%s%s", r->source, r->source_reason ? ": " : "",
                 r->source_reason ? r->source_reason : "");
    if (r->archive.sha256 && r->verified_at)
        cli_info(o, "  sha256    %s (verified at install %s; nothing downloaded now)",
                 r->archive.sha256, r->verified_at);
    else if (r->archive.sha256)
        cli_info(o, "  sha256    %s%s", r->archive.sha256,
                 r->archive.verified ? " (verified)"
                                     : (r->result == CUDNNCTL_INSTALL_INSTALLED ? " (NOT VERIFIED)"
                                                                                : " (expected)"));
    if (r->result == CUDNNCTL_INSTALL_INSTALLED) {
        char sz[32];
        cudnnctl_size_text((double)r->bytes_written, sz, sizeof(sz));
        cli_info(o,
                 "  result    installed: %zu files and links, %s, %zu replaced (backed up), "
                 "%.2f s",
                 r->n_files_written, sz, r->n_files_replaced, r->seconds);
    } else {
        cli_info(o, "  result    %s", cudnnctl_install_outcome_name(r->result));
    }
    if (r->receipt_path)
        cli_info(o, "  receipt   %s", r->receipt_path);
    if (r->ldconfig)
        cli_info(o, "  ldconfig  %s", r->ldconfig);
    if (r->recovered)
        cli_info(o, "  recovered an interrupted run (%s)", r->recovered);
}

/* After the install: the summary, the validation, the effective check (its children started
 * before the install: pre, consumed) and, for --json, one document with all of it. */
static int report_install(cli_opts *o, cudnnctl_ctx *ctx, cudnnctl_effective_probe *pre,
                          const cudnnctl_install_result *r, cudnnctl_err e)
{
    int code = 0;
    /* human: the summary, then the validation; --json: one document with the validation in it */
    int installed = r && (e == CUDNNCTL_E_OK || r->result == CUDNNCTL_INSTALL_INSTALLED ||
                          r->postcheck == CUDNNCTL_POSTCHECK_FAILED);
    if (installed && !o->json && !o->quiet)
        print_human(o, r);
    if (r)
        code = print_postcheck(o, ctx, r, e);
    char *eff = NULL;
    if (r && (e == CUDNNCTL_E_OK || r->postcheck == CUDNNCTL_POSTCHECK_FAILED) && !o->dry_run &&
        (r->result == CUDNNCTL_INSTALL_INSTALLED || r->result == CUDNNCTL_INSTALL_SWITCHED) &&
        r->lib_dir && r->target_path) {
        eff = effective_after_install(o, ctx, pre, r);
        pre = NULL;
    }
    cudnnctl_effective_cancel(pre);
    if (r && o->json) {
        char *js = NULL;
        if (cudnnctl_install_result_json(r, &js) == CUDNNCTL_E_OK)
            cli_print_json_with(js, "effective_load", eff);
        cudnnctl_free(js);
    }
    cudnnctl_free(eff);
    if (e != CUDNNCTL_E_OK && !(r && r->postcheck == CUDNNCTL_POSTCHECK_FAILED))
        code = cli_fail(o, ctx, e);
    return code;
}

/* cudnnctl_install_opts from cli_opts (the selection apart: cli_selection) */
#define IO(to, from) CLI_COPY(cudnnctl_install_opts, to, from, CLI_COPY_SAME)
static const cli_copy install_copy[] = {
    IO(archive, archive), IO(sha256, sha256), IO(insecure_skip_verify, insecure_skip_verify),
    IO(mirror, mirror), IO(cacert, cacert), IO(connections, connections),
    IO(no_ldconfig, no_ldconfig), IO(system_env, system_wide), IO(force, force),
    IO(dry_run, dry_run), CLI_COPY(cudnnctl_install_opts, validate, no_validate, CLI_COPY_NOT),
    IO(validate_device, device),
    CLI_COPY(cudnnctl_install_opts, validate_timeout_ms, timeout_s, CLI_COPY_MS),
    IO(max_unpacked, max_unpacked), IO(allow_manifest_override, allow_manifest_override),
    IO(index_url, index_url), IO(python, python), IO(link_mode, link_mode),
    IO(use_store, link_mode_given),
};

int cmd_install(cli_opts *o, cudnnctl_ctx *ctx)
{
    cudnnctl_catalog *cat = NULL;
    cudnnctl_detect_result *det = NULL;
    cudnnctl_install_result *r = NULL;
    int code = 0;
    if (o->dry_run)
        cudnnctl_set_read_only(ctx, 1); /* a check mode keeps nothing, manifests included */
    cudnnctl_err e = cudnnctl_catalog_load(ctx, &cat);
    if (e == CUDNNCTL_E_OK)
        e = cli_add_base_manifest(o, ctx, cat);
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
    cli_copy_opts(&io, o, install_copy, sizeof(install_copy) / sizeof(install_copy[0]));

    /* the two halves: nothing in the target changes until the commit */
    cudnnctl_install_handle *h = NULL;
    /* the check's children start now: a login shell's start-up runs while the install works */
    cudnnctl_effective_probe *pre = o->dry_run ? NULL : cli_effective_early(o, ctx);
    cli_cancel_on_signals(ctx);
    cli_fault_arm(ctx);
    e = cudnnctl_install_prepare(ctx, cat, det, &io, &h, &r);
    if (e == CUDNNCTL_E_OK)
        e = cudnnctl_install_commit(ctx, h);
    cudnnctl_install_release(ctx, h);
    cli_fault_disarm(ctx);

    code = report_install(o, ctx, pre, r, e);
out:
    cudnnctl_install_result_free(r);
    cudnnctl_detect_result_free(det);
    cudnnctl_catalog_free(cat);
    return code;
}
