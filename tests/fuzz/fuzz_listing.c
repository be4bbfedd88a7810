/* fuzz_listing.c: a redist directory listing (any bytes: HTML, junk) → the manifest names it
 * links to (cc_catalog_listing_parse). Every name returned must be of the strict form
 * redistrib_<d>(.<d>){1,3}.json, appear once, and their number stay under the cap; the names
 * are what `update` joins to its base URL, so nothing else may get through. */
#include "catalog_model.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cc_strv names = {0};
    int rc = cc_catalog_listing_parse((const char *)data, size, &names);
    FZ_CHECK(rc == 0 || rc == 1);
    FZ_CHECK(names.n <= 4096);
    for (size_t i = 0; i < names.n; i++) {
        FZ_CHECK(cc_catalog_listing_name_ok(names.v[i]));
        FZ_CHECK(!strchr(names.v[i], '/') && !strchr(names.v[i], '\\'));
        for (size_t k = 0; k < i; k++)
            FZ_CHECK(strcmp(names.v[i], names.v[k]) != 0);
    }
    cc_strv_free(&names);
    return 0;
}
