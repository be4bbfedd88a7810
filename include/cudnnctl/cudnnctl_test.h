/**
 * @file cudnnctl_test.h
 * @brief Test hooks of libcudnnctl: curl-style fault injection into the library's file
 * operations (sys_ops), for torture tests. Not part of the API a program uses: cudnnctl.h does
 * not include it, no package installs it, and libcudnnctl.so does not export these functions
 * (they have no CUDNNCTL_API: the CLI, which reads them only from its hidden CUDNNCTL_FAULT_*
 * variables, and the unit tests link the static archive).
 */
#ifndef CUDNNCTL_TEST_H
#define CUDNNCTL_TEST_H

#include "cudnnctl/cudnnctl.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Fail the N-th sys_ops call (1-based; 0 disables) — curl-style torture testing. */
void cudnnctl_set_fault_injection(cudnnctl_ctx *ctx, unsigned long fail_at);
/** With @p sticky, every sys_ops call after the injected one fails too: the process behaves as
 *  if it had died at that call (journal recovery tests). */
void cudnnctl_set_fault_sticky(cudnnctl_ctx *ctx, int sticky);
/** Number of sys_ops calls made so far (for torture loops). */
unsigned long cudnnctl_sys_calls(const cudnnctl_ctx *ctx);
/** A stand-in for this machine's dynamic loader and CPU in the loader model, for the whole
 *  process (NULL or "" = the real ones): a `ld.so --list-diagnostics` text (its dl_platform,
 *  dl_hwcaps_subdirs, dl_hwcaps_subdirs_active, version.version, uname.machine lines), or, without
 *  a dl_platform line, what a loader without that option is decided from: version.version="2.31",
 *  cpu.vendor="GenuineIntel", cpu.usable="avx2 fma bmi1 ..." (docs/which.md). The CLI reads it
 *  from its hidden CUDNNCTL_TEST_LOADER_FACTS variable. Call before other threads use the model. */
void cudnnctl_set_loader_facts(const char *text);

/** Called by an install once the archive's bytes are held open and, for a zip, verified — right
 *  before they are unpacked — with the path they were read from (the --archive as given, the
 *  cache blob, the download): a test renames another archive over that path there and checks
 *  that what is installed (and what the receipt's SHA-256 says) are still the verified bytes. */
typedef void (*cudnnctl_archive_hook)(void *user, const char *path);
void cudnnctl_set_archive_hook(cudnnctl_ctx *ctx, cudnnctl_archive_hook fn,
                                            void *user);

#ifdef __cplusplus
}
#endif
#endif
