/* test_components.c: the flavour and component-selection value types (parse, text, which
 * component a staged path is), the measured sizes of the embedded 9.27 archives, and the
 * redist directory listing parser against the listing styles `update` meets. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "catalog_model.h"

static void flavors(void **state)
{
    (void)state;
    cudnnctl_flavor f = CUDNNCTL_FLAVOR_JIT;
    assert_int_equal(cudnnctl_flavor_parse("full", &f), 0);
    assert_int_equal(f, CUDNNCTL_FLAVOR_FULL);
    assert_int_equal(cudnnctl_flavor_parse("jit", &f), 0);
    assert_int_equal(f, CUDNNCTL_FLAVOR_JIT);
    assert_int_equal(cudnnctl_flavor_parse("JIT", &f), -1);
    assert_int_equal(cudnnctl_flavor_parse("", &f), -1);
    assert_int_equal(cudnnctl_flavor_parse(NULL, &f), -1);
    assert_string_equal(cudnnctl_flavor_name(CUDNNCTL_FLAVOR_FULL), "full");
    assert_string_equal(cudnnctl_flavor_name(CUDNNCTL_FLAVOR_JIT), "jit");
    /* a zeroed selection is the full flavour, every component */
    cudnnctl_selection sel = {0};
    assert_int_equal(sel.flavor, CUDNNCTL_FLAVOR_FULL);
    assert_int_equal(sel.components, 0);
}

static void component_lists(void **state)
{
    (void)state;
    static const struct {
        const char *in;
        int rc;
        cudnnctl_components want;
        const char *text;
    } t[] = {
        {"runtime", 0, CUDNNCTL_COMPONENT_RUNTIME, "runtime"},
        {"dev", 0, CUDNNCTL_COMPONENT_DEV, "dev"},
        {"static,runtime", 0, CUDNNCTL_COMPONENT_RUNTIME | CUDNNCTL_COMPONENT_STATIC,
         "runtime,static"},
        {" runtime , dev ", 0, CUDNNCTL_COMPONENT_RUNTIME | CUDNNCTL_COMPONENT_DEV, "runtime,dev"},
        {"runtime,runtime", 0, CUDNNCTL_COMPONENT_RUNTIME, "runtime"},
        {"all", 0, CUDNNCTL_COMPONENTS_ALL, "runtime,dev,static"},
        {"dev,all", 0, CUDNNCTL_COMPONENTS_ALL, "runtime,dev,static"},
        {"", -1, 0, NULL},
        {"runtime,", -1, 0, NULL},
        {",dev", -1, 0, NULL},
        {"runtime,,dev", -1, 0, NULL},
        {"headers", -1, 0, NULL},
        {"Runtime", -1, 0, NULL},
        {"runtimes", -1, 0, NULL},
    };
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        cudnnctl_components c = 0xdead;
        int rc = cudnnctl_components_parse(t[i].in, &c);
        if (rc != t[i].rc)
            fail_msg("'%s': rc %d, want %d", t[i].in, rc, t[i].rc);
        if (rc == 0) {
            char buf[40];
            assert_int_equal(c, t[i].want);
            assert_string_equal(cudnnctl_components_text(c, buf, sizeof(buf)), t[i].text);
        } else {
            assert_int_equal(c, 0xdead); /* untouched on failure */
        }
    }
    char small[8];
    assert_string_equal(cudnnctl_components_text(0, small, sizeof(small)), "none");
    /* a buffer too small keeps what fits, whole words only */
    assert_string_equal(cudnnctl_components_text(CUDNNCTL_COMPONENTS_ALL, small, sizeof(small)),
                        "runtime");
}

static void component_of_paths(void **state)
{
    (void)state;
    static const struct {
        const char *path;
        cudnnctl_components c;
    } t[] = {
        {"LICENSE", CUDNNCTL_COMPONENT_RUNTIME},
        {"lib/libcudnn.so.9.27.0", CUDNNCTL_COMPONENT_RUNTIME},
        {"lib/libcudnn.so.9", CUDNNCTL_COMPONENT_RUNTIME},
        {"lib/libcudnn_engines_runtime_compiled.so.9", CUDNNCTL_COMPONENT_RUNTIME},
        {"lib/libcudnn.so", CUDNNCTL_COMPONENT_DEV},
        {"lib/libcudnn_graph.so", CUDNNCTL_COMPONENT_DEV},
        {"include/cudnn.h", CUDNNCTL_COMPONENT_DEV},
        {"include/cudnn_graph_v9.h", CUDNNCTL_COMPONENT_DEV},
        {"lib/libcudnn_adv_static.a", CUDNNCTL_COMPONENT_STATIC},
        {"lib/libcudnn_adv_static_v9.a", CUDNNCTL_COMPONENT_STATIC},
        {"lib/libcudnn_static.a", CUDNNCTL_COMPONENT_STATIC},
        /* Windows */
        {"bin/cudnn64_9.dll", CUDNNCTL_COMPONENT_RUNTIME},
        {"bin/cudnn_graph64_9.dll", CUDNNCTL_COMPONENT_RUNTIME},
        {"lib/cudnn.lib", CUDNNCTL_COMPONENT_DEV},
        {"lib/cudnn64_9.lib", CUDNNCTL_COMPONENT_DEV},
        /* build metadata (issue 19's files, wherever they go) */
        {"lib/pkgconfig/cudnn.pc", CUDNNCTL_COMPONENT_DEV},
        {"lib/cmake/cudnn/CUDNNConfig.cmake", CUDNNCTL_COMPONENT_DEV},
        {"share/cmake/CUDNNConfigVersion.cmake", CUDNNCTL_COMPONENT_DEV},
        {"cudnn.pc", CUDNNCTL_COMPONENT_RUNTIME}, /* top level: a text, not metadata */
    };
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
        if (cudnnctl_component_of(t[i].path) != t[i].c)
            fail_msg("%s: component %u, want %u", t[i].path, cudnnctl_component_of(t[i].path),
                     t[i].c);
}

static const cudnnctl_archive *by_file(const cudnnctl_catalog *cat, const char *name)
{
    const cudnnctl_archive *a = cudnnctl_catalog_find_file(cat, name);
    if (!a)
        fail_msg("%s is not in the embedded catalog", name);
    return a;
}

/* The numbers docs/sizes.md shows: measured for the 9.27.0.42 cuda13 linux-x86_64 builds. */
static void sizes_of_927(void **state)
{
    (void)state;
    cudnnctl_ctx *ctx = NULL;
    cudnnctl_catalog *cat = NULL;
    assert_int_equal(cudnnctl_ctx_new(&ctx), CUDNNCTL_E_OK);
    assert_int_equal(cudnnctl_catalog_load(ctx, &cat), CUDNNCTL_E_OK);
    const cudnnctl_archive *full =
        by_file(cat, "cudnn-linux-x86_64-9.27.0.42_cuda13-archive.tar.xz");
    const cudnnctl_archive *jit =
        by_file(cat, "cudnn_jit-linux-x86_64-9.27.0.42_cuda13-archive.tar.xz");
    assert_int_equal(jit->flavor, CUDNNCTL_FLAVOR_JIT);
    cudnnctl_sizes z;
    cudnnctl_archive_sizes(full, 0, &z);
    assert_int_equal(z.download, 937996620);
    assert_int_equal(z.selected, CUDNNCTL_COMPONENTS_ALL);
    assert_int_equal(z.known, CUDNNCTL_COMPONENT_RUNTIME | CUDNNCTL_COMPONENT_DEV);
    assert_int_equal(z.component[0], 925450414);
    assert_int_equal(z.component[1], 1149660);
    assert_int_equal(z.installed, 925450414 + 1149660); /* static: not measured, not guessed */
    assert_non_null(strstr(z.source, "nvidia_cudnn_cu13-9.27.0.42"));
    cudnnctl_archive_sizes(full, CUDNNCTL_COMPONENT_RUNTIME, &z);
    assert_int_equal(z.known, z.selected);
    assert_int_equal(z.installed, 925450414);
    assert_int_equal(z.download, 937996620); /* the stream is read whole whatever is kept */
    cudnnctl_archive_sizes(jit, CUDNNCTL_COMPONENT_RUNTIME | CUDNNCTL_COMPONENT_DEV, &z);
    assert_int_equal(z.download, 55122904);
    assert_int_equal(z.installed, 178664302 + 1149660);
    cudnnctl_archive_sizes(full, CUDNNCTL_COMPONENT_STATIC, &z);
    assert_int_equal(z.known, 0);
    assert_int_equal(z.installed, 0);
    /* an archive nobody measured: no source, nothing known */
    cudnnctl_archive_sizes(by_file(cat, "cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz"), 0,
                           &z);
    assert_null(z.source);
    assert_int_equal(z.known, 0);
    assert_int_not_equal(z.download, 0);
    cudnnctl_catalog_free(cat);
    cudnnctl_ctx_free(ctx);
}

static void names_ok(void **state)
{
    (void)state;
    assert_true(cc_catalog_listing_name_ok("redistrib_9.27.0.json"));
    assert_true(cc_catalog_listing_name_ok("redistrib_8.9.7.29.json"));
    assert_true(cc_catalog_listing_name_ok("redistrib_10.0.json"));
    assert_false(cc_catalog_listing_name_ok("redistrib_9.json"));
    assert_false(cc_catalog_listing_name_ok("redistrib_9.1.2.3.4.json"));
    assert_false(cc_catalog_listing_name_ok("redistrib_9..0.json"));
    assert_false(cc_catalog_listing_name_ok("redistrib_.9.0.json"));
    assert_false(cc_catalog_listing_name_ok("redistrib_9.0..json"));
    assert_false(cc_catalog_listing_name_ok("redistrib_9.27.0.json.sig"));
    assert_false(cc_catalog_listing_name_ok("redistrib_9.27.0-rc1.json"));
    assert_false(cc_catalog_listing_name_ok("Redistrib_9.27.0.json"));
    assert_false(cc_catalog_listing_name_ok("redistrib_1234567890.0.json"));
    assert_false(cc_catalog_listing_name_ok("../redistrib_9.27.0.json"));
    assert_false(cc_catalog_listing_name_ok(NULL));
}

static void parse_case(const char *page, const char *const *want, size_t n)
{
    cc_strv names = {0};
    assert_int_equal(cc_catalog_listing_parse(page, strlen(page), &names), 0);
    if (names.n != n)
        fail_msg("%zu names from '%.60s...', want %zu", names.n, page, n);
    for (size_t i = 0; i < n; i++)
        assert_string_equal(names.v[i], want[i]);
    cc_strv_free(&names);
}

static void listing_styles(void **state)
{
    (void)state;
    static const char *const two[] = {"redistrib_9.22.0.json", "redistrib_9.27.0.json"};
    /* NVIDIA's own index page: single quotes, sub-directories, other files */
    parse_case("<html><body><table><tr><td><a href='cudnn/'>cudnn/</a></td></tr>"
               "<tr><td><a href='cudnn_jit/'>cudnn_jit/</a></td></tr>"
               "<tr><td><a href='redistrib_9.22.0.json'>redistrib_9.22.0.json</a></td>"
               "<td>2026-05-08</td></tr><tr><td><a href='redistrib_9.27.0.json'>"
               "redistrib_9.27.0.json</a></td></tr><a href='LICENSE.txt'>x</a></table>",
               two, 2);
    /* Apache / nginx autoindex */
    parse_case("<pre><a href=\"../\">../</a>\n<a href=\"redistrib_9.22.0.json\">redistrib_9.22.0."
               "json</a>   08-May-2026 10:00  4654\n<a href=\"redistrib_9.27.0.json\">redistrib_9."
               "27.0.json</a>\n</pre>",
               two, 2);
    /* python -m http.server, and what `cudnnctl mirror` writes */
    parse_case("<ul>\n<li><a href=\"redistrib_9.22.0.json\">redistrib_9.22.0.json</a></li>\n"
               "<li><a href=\"redistrib_9.27.0.json\">redistrib_9.27.0.json</a></li>\n</ul>",
               two, 2);
    /* Artifactory (relative, spaces around '='), Nexus (absolute URLs), upper-case HREF,
     * unquoted values, ./ prefixes; duplicates once */
    parse_case("<a href = \"redistrib_9.22.0.json\">x</a><A HREF=https://nexus.example/repository/"
               "cudnn/redistrib_9.27.0.json>y</A><a href=\"./redistrib_9.22.0.json\">again</a>",
               two, 2);
    static const char *const one[] = {"redistrib_9.27.0.json"};
    /* a query or fragment, another name, a data attribute, an unterminated quote: ignored */
    parse_case("<a href=\"redistrib_9.22.0.json?sig=1\">a</a><a href=\"x.json#redistrib_9.1.0.json\">"
               "b</a><a data-href=\"redistrib_9.23.0.json\">c</a><a hreflang=\"en\" "
               "href=\"redistrib_9.27.0.json\">d</a><a href=\"redistrib_9.24.0.json",
               one, 1);
    parse_case("", NULL, 0);
    parse_case("href", NULL, 0);
    parse_case("href=", NULL, 0);
    parse_case("href='", NULL, 0);
    /* a page offering more than any redist listing: stops, says so */
    cc_buf b = {0};
    for (int i = 0; i < 5000; i++)
        cc_buf_printf(&b, "<a href=\"redistrib_1.%d.json\">x</a>", i);
    cc_strv names = {0};
    assert_int_equal(cc_catalog_listing_parse(b.data, b.len, &names), 1);
    assert_int_equal(names.n, 4096);
    cc_strv_free(&names);
    cc_buf_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(flavors),        cmocka_unit_test(component_lists),
        cmocka_unit_test(component_of_paths), cmocka_unit_test(sizes_of_927),
        cmocka_unit_test(names_ok),       cmocka_unit_test(listing_styles),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
