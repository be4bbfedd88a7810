/* demo.c: a program that uses the installed libcudnnctl (built through pkg-config and through
 * find_package by the packaging tests). It prints the version, the embedded catalog's size and
 * one error's text, so the tests see the library really ran. */
#include <cudnnctl/cudnnctl.h>
#include <stdio.h>

int main(void)
{
    cudnnctl_ctx *ctx = NULL;
    cudnnctl_catalog *cat = NULL;
    if (cudnnctl_ctx_new(&ctx) != CUDNNCTL_E_OK || cudnnctl_catalog_load(ctx, &cat) != CUDNNCTL_E_OK)
        return 1;
    size_t n = cudnnctl_catalog_count(cat);
    const cudnnctl_archive *a = n ? cudnnctl_catalog_get(cat, n - 1) : NULL;
    printf("libcudnnctl %s: %zu archives from %zu manifests, e.g. %s\n", CUDNNCTL_VERSION_STRING, n,
           cudnnctl_catalog_manifest_count(cat), a ? a->relative_path : "(none)");
    printf("exit code of %s: %d\n", cudnnctl_err_name(CUDNNCTL_E_OK), cudnnctl_err_exit_code(CUDNNCTL_E_OK));
    cudnnctl_catalog_free(cat);
    cudnnctl_ctx_free(ctx);
    return n > 0 ? 0 : 2;
}
