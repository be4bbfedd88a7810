/* buildinfo.c: the versions of what the library runs with, and its embedded catalog's newest
 * manifest (`cudnnctl --version`). */
#include <archive.h>
#include <cjson/cJSON.h>
#include <curl/curl.h>
#include <openssl/crypto.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudnnctl/cudnnctl.h"
#include "embedded.h"

/* "redistrib_9.19.1.json" > "redistrib_9.9.0.json": numeric parts compared as numbers. */
static int newer_name(const char *a, const char *b)
{
    while (*a && *b) {
        if (*a >= '0' && *a <= '9' && *b >= '0' && *b <= '9') {
            char *ea, *eb;
            unsigned long x = strtoul(a, &ea, 10), y = strtoul(b, &eb, 10);
            if (x != y)
                return x > y;
            a = ea;
            b = eb;
        } else if (*a != *b) {
            return *a > *b;
        } else {
            a++;
            b++;
        }
    }
    return *a != 0;
}

const cudnnctl_build_info *cudnnctl_build_info_get(void)
{
    static cudnnctl_build_info info;
    static char curl_text[96];
    if (info.version)
        return &info;
    const curl_version_info_data *cv = curl_version_info(CURLVERSION_NOW);
    snprintf(curl_text, sizeof(curl_text), "%s%s%s%s", cv && cv->version ? cv->version : "?",
             cv && cv->ssl_version ? " (" : "", cv && cv->ssl_version ? cv->ssl_version : "",
             cv && cv->ssl_version ? ")" : "");
    info.libcurl = curl_text;
    info.libarchive = archive_version_details();
    info.openssl = OpenSSL_version(OPENSSL_VERSION);
    info.cjson = cJSON_Version();
    info.newest_manifest = "";
    for (size_t i = 0; i < cc_embedded_manifest_count; i++)
        if (!*info.newest_manifest || newer_name(cc_embedded_manifests[i].name, info.newest_manifest))
            info.newest_manifest = cc_embedded_manifests[i].name;
    info.n_manifests = cc_embedded_manifest_count;
    info.version = CUDNNCTL_VERSION_STRING;
    return &info;
}
