/* sizes.c: what a selection of an archive costs — the download (the manifest's size) and the
 * bytes each selected component installs, from the measured table (sizes_data.c) when that
 * archive was measured; otherwise the installed size is said to be unknown, never estimated. */
#include <string.h>

#include <cjson/cJSON.h>

#include "catalog_model.h"
#include "sizes.h"

static const cc_size_row *row_of(const char *sha256)
{
    for (size_t i = 0; sha256 && i < cc_size_row_count; i++)
        if (strcmp(cc_size_rows[i].archive_sha256, sha256) == 0)
            return &cc_size_rows[i];
    return NULL;
}

void cudnnctl_archive_sizes(const cudnnctl_archive *a, cudnnctl_components sel,
                            cudnnctl_sizes *out)
{
    memset(out, 0, sizeof(*out));
    out->selected = sel ? sel & CUDNNCTL_COMPONENTS_ALL : CUDNNCTL_COMPONENTS_ALL;
    if (!a)
        return;
    out->download = a->size;
    const cc_size_row *r = row_of(a->sha256);
    if (!r)
        return;
    out->source = r->source;
    const uint64_t bytes[3] = {r->runtime, r->dev, r->static_bytes};
    for (int i = 0; i < 3; i++) {
        cudnnctl_components bit = 1u << i;
        if (!(out->selected & bit) || bytes[i] == CC_SIZE_UNKNOWN)
            continue;
        out->component[i] = bytes[i];
        out->known |= bit;
        out->installed += bytes[i];
    }
}

cJSON *cc_sizes_to_json(const cudnnctl_sizes *z)
{
    static const char *const names[3] = {"runtime", "dev", "static"};
    char comp[40];
    cJSON *o = cJSON_CreateObject();
    int ok = o && cJSON_AddNumberToObject(o, "download", (double)z->download);
    cudnnctl_components_text(z->selected, comp, sizeof(comp));
    ok = ok && cJSON_AddStringToObject(o, "components", comp);
    /* null unless every selected component was measured: a partial sum is no installed size */
    ok = ok && (z->known == z->selected ? cJSON_AddNumberToObject(o, "installed",
                                                                  (double)z->installed)
                                        : cJSON_AddNullToObject(o, "installed"));
    for (int i = 0; ok && i < 3; i++) {
        if (!(z->selected & (1u << i)))
            continue;
        ok = z->known & (1u << i) ? cJSON_AddNumberToObject(o, names[i], (double)z->component[i])
                                         != NULL
                                  : cJSON_AddNullToObject(o, names[i]) != NULL;
    }
    ok = ok && (z->source ? cJSON_AddStringToObject(o, "source", z->source)
                          : cJSON_AddNullToObject(o, "source"));
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}
