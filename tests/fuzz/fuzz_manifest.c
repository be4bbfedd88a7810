/* fuzz_manifest.c: NVIDIA redistrib JSON → catalog entries (cc_manifest_parse), then the same
 * text added to a catalog that already holds a real NVIDIA manifest as "embedded" (dedupe and the
 * manifest trust check). Every entry accepted must carry a safe relative_path, 64 lowercase hex
 * digits and a version; the catalog must stay consistent. */
#include "catalog_model.h"
#include "fuzz_common.h"
#include "hash.h"
#include "internal.h"

static const char *embedded_seed(size_t *len)
{
    static char *text;
    static size_t n;
    if (!text) {
        FILE *f = fopen(CUDNNCTL_SOURCE_DIR "/data/manifests/cudnn/redistrib_9.19.0.json", "rb");
        if (!f)
            abort();
        text = malloc(1 << 20);
        n = text ? fread(text, 1, (1 << 20) - 1, f) : 0;
        fclose(f);
        if (!text || !n)
            abort();
        text[n] = '\0';
    }
    *len = n;
    return text;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cudnnctl_ctx *ctx = fz_ctx();
    cc_archive_vec v = {0};
    if (cc_manifest_parse(ctx, (const char *)data, size, "fuzz", NULL, &v) == CUDNNCTL_E_OK) {
        for (size_t i = 0; i < v.n; i++) {
            const cudnnctl_archive *a = &v.v[i];
            const char *why = NULL;
            FZ_CHECK(a->relative_path && cc_relative_path_check(a->relative_path, &why) == 0);
            FZ_CHECK(a->sha256 && cc_sha256_is_hex(a->sha256) && strlen(a->sha256) == 64);
            for (const char *c = a->sha256; *c; c++)
                FZ_CHECK((*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'f'));
            FZ_CHECK(a->cudnn_version && a->platform && a->cuda_variant);
        }
    }
    cc_archive_vec_free(&v);

    cudnnctl_catalog *cat = cc_catalog_new();
    size_t elen;
    const char *emb = embedded_seed(&elen);
    FZ_CHECK(cat && cudnnctl_catalog_add_json(ctx, cat, emb, elen, "embedded:seed") ==
                        CUDNNCTL_E_OK);
    size_t before = cudnnctl_catalog_count(cat);
    /* what the embedded side says, to check the trust scan against */
    cc_archive_vec emb_v = {0};
    FZ_CHECK(cc_manifest_parse(ctx, emb, elen, "embedded:seed", NULL, &emb_v) == CUDNNCTL_E_OK);
    if (cudnnctl_catalog_add_json(ctx, cat, (const char *)data, size, "fuzz") != CUDNNCTL_E_OK) {
        FZ_CHECK(cudnnctl_catalog_count(cat) == before); /* nothing appended on failure */
    } else {
        /* manifest trust: any file name both know with another digest or size is a conflict */
        cc_archive_vec fv = {0};
        FZ_CHECK(cc_manifest_parse(ctx, (const char *)data, size, "fuzz", NULL, &fv) ==
                 CUDNNCTL_E_OK);
        int expect = 0;
        for (size_t i = 0; i < fv.n; i++)
            for (size_t k = 0; k < emb_v.n; k++)
                if (strcmp(cc_path_base(fv.v[i].relative_path),
                           cc_path_base(emb_v.v[k].relative_path)) == 0 &&
                    (strcmp(fv.v[i].sha256, emb_v.v[k].sha256) != 0 ||
                     fv.v[i].size != emb_v.v[k].size))
                    expect = 1;
        FZ_CHECK((cudnnctl_catalog_conflict_count(cat) > 0) == expect);
        cc_archive_vec_free(&fv);
    }
    cc_archive_vec_free(&emb_v);
    for (size_t i = 0; i < cudnnctl_catalog_count(cat); i++) {
        const cudnnctl_archive *a = cudnnctl_catalog_get(cat, i);
        FZ_CHECK(cudnnctl_catalog_find_file(cat, a->relative_path) != NULL);
    }
    cudnnctl_catalog_free(cat);
    cc_clear_error(ctx);
    return 0;
}
