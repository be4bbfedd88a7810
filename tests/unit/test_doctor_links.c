/* test_doctor_links.c: doctor's checks that read links and listings, on small trees under a
 * temporary --root: the loader's view (conflicts, LD_LIBRARY_PATH), the CUDA variant of a wheel,
 * a tree, a prefix and a dpkg copy, CUDA's own links, .so chains (broken, dangling, good) and
 * cuDNN 8's dlopen names. */
#include "doctor_fixture.h"

static void t_loader_conflict(void **state)
{
    fx *f = *state;
    cudnnctl_detect_result *d = det_new();
    add_tk(d, "/usr/local/cuda-12.8", 12, 8, 1);
    /* (add_cu may move the array: set each copy's flags before adding the next) */
    add_cu(d, "/usr/local/cuda-12.8/lib64", "9.8.0", "cuda-tree", set9("9.8.0"))->in_loader_path =
        1;
    add_cu(d, "/usr/lib/x86_64-linux-gnu", "9.14.0", "system", set9("9.14.0"))->in_loader_path = 1;
    /* another major does not conflict: the SONAMEs differ */
    add_cu(d, "/opt/cudnn8/lib", "8.9.7", "prefix",
           "libcudnn.so.8.9.7 libcudnn_ops_infer.so.8.9.7 libcudnn_ops_train.so.8.9.7 "
           "libcudnn_cnn_infer.so.8.9.7 libcudnn_cnn_train.so.8.9.7 "
           "libcudnn_adv_infer.so.8.9.7 libcudnn_adv_train.so.8.9.7")
        ->in_loader_path = 1;
    RUN(d);
    expect(f->res, "CUDNN_LOADER_CONFLICT", "CUDNN_IN_LD_LIBRARY_PATH");
    const cudnnctl_finding *x = find(f->res, "CUDNN_LOADER_CONFLICT");
    assert_non_null(strstr(x->message, "9.8.0"));
    assert_non_null(strstr(x->message, "9.14.0"));
    assert_null(strstr(x->message, "8.9.7"));
}

static void t_ld_library_path(void **state)
{
    fx *f = *state;
    /* alone on LD_LIBRARY_PATH: a warning */
    cudnnctl_detect_result *d = det_new();
    add_tk(d, "/usr/local/cuda-13.0", 13, 0, 1);
    cudnnctl_cudnn_copy *c = add_cu(d, "/opt/cudnn/lib", "9.14.0", "ld-path", set9("9.14.0"));
    c->in_loader_path = c->in_ld_library_path = 1;
    cudnnctl_doctor_result *r = run(f->ctx, d);
    expect(r, "CUDNN_IN_LD_LIBRARY_PATH", "CUDNN_LD_LIBRARY_PATH_OVERRIDE");
    cudnnctl_doctor_result_free(r);
    /* and a framework's bundled 9.19 wheel: it gets swapped -> error (pytorch#119989) */
    d = det_new();
    add_tk(d, "/usr/local/cuda-13.0", 13, 0, 1);
    c = add_cu(d, "/opt/cudnn/lib", "9.14.0", "ld-path", set9("9.14.0"));
    c->in_loader_path = c->in_ld_library_path = 1;
    add_cu(d, "/venv/site-packages/nvidia/cudnn/lib", "9.19.0", "wheel", set9("9"));
    RUN(d);
    expect(f->res, "CUDNN_LD_LIBRARY_PATH_OVERRIDE", "CUDNN_IN_LD_LIBRARY_PATH");
    const cudnnctl_finding *x = find(f->res, "CUDNN_LD_LIBRARY_PATH_OVERRIDE");
    assert_int_equal(x->severity, CUDNNCTL_SEV_ERROR);
    assert_non_null(strstr(x->message, "/venv/site-packages/nvidia/cudnn/lib"));
    assert_non_null(strstr(x->fix, "LD_LIBRARY_PATH"));
}

static void t_wheel_variant(void **state)
{
    fx *f = *state;
    const char *site = "/usr/lib/python3/dist-packages";
    char p[512];
    snprintf(p, sizeof(p), "%s/nvidia/cudnn/lib", site);
    mk(p);
    snprintf(p, sizeof(p), "%s/nvidia_cudnn_cu12-9.1.0.70.dist-info", site);
    mk(p);
    /* cu12 wheel, CUDA 13 toolkit, no CUDA wheels beside it: mismatch (pykeio/ort#548) */
    cudnnctl_detect_result *d = det_new();
    add_tk(d, "/usr/local/cuda-13.0", 13, 0, 1);
    set_driver(d, "580.95.05", 13000, 0);
    snprintf(p, sizeof(p), "%s/nvidia/cudnn/lib", site);
    add_cu(d, p, "9.1.0", "wheel", set9("9"));
    cudnnctl_doctor_result *r = run(f->ctx, d);
    expect(r, "CUDNN_CUDA_MAJOR_MISMATCH", NULL);
    const cudnnctl_finding *x = find(r, "CUDNN_CUDA_MAJOR_MISMATCH");
    assert_non_null(strstr(x->message, "CUDA 12"));
    assert_non_null(strstr(x->message, "libcublasLt.so.12"));
    assert_non_null(strstr(x->fix, "--cuda 13"));
    cudnnctl_doctor_result_free(r);
    /* with the cu12 cuBLAS wheel beside it (a PyTorch venv) the wheel brings its own CUDA */
    snprintf(p, sizeof(p), "%s/nvidia_cublas_cu12-12.4.5.8.dist-info", site);
    mk(p);
    d = det_new();
    add_tk(d, "/usr/local/cuda-13.0", 13, 0, 1);
    set_driver(d, "580.95.05", 13000, 0);
    snprintf(p, sizeof(p), "%s/nvidia/cudnn/lib", site);
    add_cu(d, p, "9.1.0", "wheel", set9("9"));
    RUN(d);
    expect(f->res, NULL, "CUDNN_CUDA_MAJOR_MISMATCH DRIVER_TOO_OLD");
}

static void t_tree_and_prefix_variant(void **state)
{
    fx *f = *state;
    /* a cu12 cuDNN inside a CUDA 13 tree (dist-info of the tree), and a prefix for CUDA 12 */
    mk("/usr/local/cuda-13.0/dist-info/nvidia_cudnn_cu12-9.10.2.21.dist-info");
    cudnnctl_detect_result *d = det_new();
    add_tk(d, "/usr/local/cuda-13.0", 13, 0, 1);
    set_driver(d, "580.95.05", 13000, 0);
    add_cu(d, "/usr/local/cuda-13.0/lib64", "9.10.2", "cuda-tree", set9("9.10.2"));
    add_cu(d, "/opt/cudnn/cudnn-9.8.0.87-cuda12/lib", "9.8.0", "prefix", set9("9.8.0"));
    add_cu(d, "/opt/cudnn/cudnn-9.19.0.56-cuda13/lib", "9.19.0", "prefix", set9("9.19.0"));
    RUN(d);
    size_t n = 0;
    for (size_t i = 0; i < f->res->n_findings; i++) {
        const cudnnctl_finding *x = &f->res->findings[i];
        if (strcmp(x->code, "CUDNN_CUDA_MAJOR_MISMATCH") != 0)
            continue;
        n++;
        assert_true(strstr(x->path, "cuda-13.0/lib64") || strstr(x->path, "cuda12/lib"));
    }
    assert_int_equal(n, 2);
}

static void t_dpkg_variant(void **state)
{
    /* NVIDIA's libcudnn9-cuda-12 deb under a CUDA 13 toolkit (multiarch list name too) */
    fx *f = *state;
    mk("/usr/lib/x86_64-linux-gnu");
    put("/var/lib/dpkg/info/libcudnn9-cuda-12:amd64.list",
        "/.\n/usr\n/usr/lib/x86_64-linux-gnu\n/usr/lib/x86_64-linux-gnu/libcudnn.so.9.14.0\n"
        "/usr/lib/x86_64-linux-gnu/libcudnn.so.9\n");
    put("/var/lib/dpkg/info/libcudnn9-cuda-13.list", "/usr/lib/other/libcudnn.so.9.19.0\n");
    put("/var/lib/dpkg/info/libcudnn9-cuda-13.md5sums", "x\n");
    cudnnctl_detect_result *d = det_new();
    add_tk(d, "/usr/local/cuda-13.0", 13, 0, 1);
    set_driver(d, "580.95.05", 13000, 0);
    add_cu(d, "/usr/lib/x86_64-linux-gnu", "9.14.0", "system", set9("9.14.0"))->in_loader_path = 1;
    RUN(d);
    expect(f->res, "CUDNN_CUDA_MAJOR_MISMATCH", NULL);
    const cudnnctl_finding *x = find(f->res, "CUDNN_CUDA_MAJOR_MISMATCH");
    assert_non_null(strstr(x->message, "Debian package"));
    assert_non_null(strstr(x->message, "built for CUDA 12"));
}

static void t_cuda_links(void **state)
{
    fx *f = *state;
    mk("/usr/local/cuda-13.0/bin");
    mk("/usr/local/not-a-toolkit");
    ln("/usr/local/cuda-12.4", "/usr/local/cuda");        /* dangling */
    ln("/usr/local/not-a-toolkit", "/usr/local/cuda-12"); /* no toolkit there */
    ln("/usr/local/cuda-13.0", "/usr/local/cuda-13");     /* fine */
    cudnnctl_detect_result *d = det_new();
    cudnnctl_toolkit *t = add_tk(d, "/usr/local/cuda-13.0", 13, 0, 1);
    push(&t->aliases, &t->n_aliases, "/usr/local/cuda-13");
    RUN(d);
    expect(f->res, "CUDA_LINK_DANGLING CUDA_LINK_NOT_TOOLKIT", NULL);
    assert_string_equal(find(f->res, "CUDA_LINK_DANGLING")->path, "/usr/local/cuda");
    assert_string_equal(find(f->res, "CUDA_LINK_NOT_TOOLKIT")->path, "/usr/local/cuda-12");
    for (size_t i = 0; i < f->res->n_findings; i++)
        assert_null(strstr(f->res->findings[i].message, "/usr/local/cuda-13 "));
}

static void t_so_chains(void **state)
{
    fx *f = *state;
    const char *dir = "/opt/c/lib";
    mk(dir);
    mk("/opt/c/include");
    put("/opt/c/lib/libcudnn.so.9.19.0", "x");
    /* libcudnn.so.9 missing entirely */
    put("/opt/c/lib/libcudnn_ops.so.9.19.0", "x");
    put("/opt/c/lib/libcudnn_ops.so.9.14.0", "x");
    ln("libcudnn_ops.so.9.14.0", "/opt/c/lib/libcudnn_ops.so.9"); /* the old one */
    put("/opt/c/lib/libcudnn_cnn.so.9.19.0", "x");
    ln("libcudnn_cnn.so.9.19.1", "/opt/c/lib/libcudnn_cnn.so.9"); /* dangling */
    put("/opt/c/lib/libcudnn_graph.so.9.19.0", "x");
    put("/opt/c/lib/libcudnn_graph.so.9", "a copy"); /* a file shadowing the chain */
    put("/opt/c/lib/libcudnn_adv.so.9.19.0", "x");
    ln("libcudnn_adv.so.9.19.0", "/opt/c/lib/libcudnn_adv.so.9");
    ln("libcudnn_adv.so.9.1.0", "/opt/c/lib/libcudnn_adv.so"); /* dev link dangling */
    cudnnctl_detect_result *d = det_new();
    add_tk(d, "/usr/local/cuda-13.0", 13, 0, 1);
    cudnnctl_cudnn_copy *c = add_cu(d, dir, "9.19.0", "prefix",
                                    "libcudnn.so.9.19.0 libcudnn_ops.so.9.19.0 "
                                    "libcudnn_ops.so.9.14.0 libcudnn_cnn.so.9.19.0 "
                                    "libcudnn_graph.so.9.19.0 libcudnn_graph.so.9 "
                                    "libcudnn_adv.so.9.19.0");
    c->include_dir = sd("/opt/c/include");
    c->header_version = sd("9.19.0");
    RUN(d);
    expect(f->res,
           "CUDNN_SONAME_LINK_MISSING CUDNN_SONAME_LINK_BROKEN CUDNN_SONAME_FILE_SHADOWS "
           "CUDNN_DEV_LINK_MISSING CUDNN_DEV_LINK_BROKEN CUDNN_MIXED_SUBLIBS",
           NULL);
    assert_string_equal(find(f->res, "CUDNN_SONAME_LINK_MISSING")->path,
                        "/opt/c/lib/libcudnn.so.9");
    assert_string_equal(find(f->res, "CUDNN_SONAME_FILE_SHADOWS")->path,
                        "/opt/c/lib/libcudnn_graph.so.9");
    assert_string_equal(find(f->res, "CUDNN_DEV_LINK_MISSING")->path, "/opt/c/lib/libcudnn.so");
    assert_string_equal(find(f->res, "CUDNN_DEV_LINK_BROKEN")->path, "/opt/c/lib/libcudnn_adv.so");
    int ops = 0, cnn = 0;
    for (size_t i = 0; i < f->res->n_findings; i++) {
        const cudnnctl_finding *x = &f->res->findings[i];
        if (strcmp(x->code, "CUDNN_SONAME_LINK_BROKEN") != 0 &&
            strcmp(x->code, "CUDNN_SONAME_LINK_DANGLING") != 0)
            continue;
        ops |= strcmp(x->path, "/opt/c/lib/libcudnn_ops.so.9") == 0 &&
               strcmp(x->code, "CUDNN_SONAME_LINK_BROKEN") == 0 &&
               strstr(x->message, "another file") != NULL;
        cnn |= strcmp(x->path, "/opt/c/lib/libcudnn_cnn.so.9") == 0 &&
               strcmp(x->code, "CUDNN_SONAME_LINK_DANGLING") == 0 &&
               strstr(x->message, "does not exist") != NULL && x->command &&
               strstr(x->command, "ln -sfn libcudnn_cnn.so.9.19.0 ") != NULL;
    }
    assert_true(ops);
    assert_true(cnn);
    /* the correct libcudnn_adv.so.9 link is not reported */
    for (size_t i = 0; i < f->res->n_findings; i++)
        if (f->res->findings[i].path)
            assert_string_not_equal(f->res->findings[i].path, "/opt/c/lib/libcudnn_adv.so.9");
}

static void t_good_chains_and_wheels(void **state)
{
    fx *f = *state;
    /* a correct tarball chain with absolute links, and a wheel (only .so.9, no .so) */
    mk("/opt/ok/lib");
    mk("/opt/ok/include");
    put("/opt/ok/lib/libcudnn.so.9.19.0", "x");
    ln("/opt/ok/lib/libcudnn.so.9.19.0", "/opt/ok/lib/libcudnn.so.9");
    ln("libcudnn.so.9", "/opt/ok/lib/libcudnn.so");
    put("/opt/ok/lib/libcudnn_graph.so.9.19.0", "x");
    ln("libcudnn_graph.so.9.19.0", "/opt/ok/lib/libcudnn_graph.so.9");
    mk("/w/nvidia/cudnn/lib");
    put("/w/nvidia/cudnn/lib/libcudnn.so.9", "x");
    put("/w/nvidia/cudnn/lib/libcudnn_graph.so.9", "x");
    cudnnctl_detect_result *d = det_new();
    add_tk(d, "/usr/local/cuda-13.0", 13, 0, 1);
    cudnnctl_cudnn_copy *c =
        add_cu(d, "/opt/ok/lib", "9.19.0", "prefix", "libcudnn.so.9.19.0 libcudnn_graph.so.9.19.0");
    c->include_dir = sd("/opt/ok/include");
    c = add_cu(d, "/w/nvidia/cudnn/lib", "9.19.0", "wheel", "libcudnn.so.9 libcudnn_graph.so.9");
    c->include_dir = sd("/w/nvidia/cudnn/include");
    RUN(d);
    expect(f->res, NULL,
           "CUDNN_SONAME_LINK_MISSING CUDNN_SONAME_LINK_BROKEN CUDNN_SONAME_FILE_SHADOWS "
           "CUDNN_DEV_LINK_MISSING CUDNN_DEV_LINK_BROKEN");
}

static void t_cudnn8_dlopen_names(void **state)
{
    fx *f = *state;
    mk("/opt/c8/lib");
    mk("/usr/lib/x86_64-linux-gnu");
    mk("/usr/lib/aarch64-linux-gnu");
    put("/usr/lib/x86_64-linux-gnu/libcuda.so.1", "x");
    put("/usr/lib/aarch64-linux-gnu/libcuda.so.1", "x");
    mk("/usr/local/cuda-12.4/lib64");
    put("/usr/local/cuda-12.4/lib64/libnvrtc.so.12", "x");
    const char *libs = "libcudnn.so.8.9.7 libcudnn_ops_infer.so.8.9.7 libcudnn_ops_train.so.8.9.7 "
                       "libcudnn_cnn_infer.so.8.9.7 libcudnn_cnn_train.so.8.9.7 "
                       "libcudnn_adv_infer.so.8.9.7 libcudnn_adv_train.so.8.9.7";
    cudnnctl_detect_result *d = det_new();
    add_tk(d, "/usr/local/cuda-12.4", 12, 4, 1);
    add_cu(d, "/opt/c8/lib", "8.9.7", "prefix", libs);
    cudnnctl_doctor_result *r = run(f->ctx, d);
    expect(r, "CUDNN8_NO_LIBCUDA_SO CUDNN8_NO_LIBNVRTC_SO", NULL);
    assert_non_null(strstr(find(r, "CUDNN8_NO_LIBCUDA_SO")->fix, "libcuda.so.1"));
    assert_non_null(strstr(find(r, "CUDNN8_NO_LIBNVRTC_SO")->fix, "libnvrtc.so.12"));
    cudnnctl_doctor_result_free(r);
    /* the private links the fix names make both go away */
    ln("/usr/local/cuda-12.4/lib64/libnvrtc.so.12", "/opt/c8/lib/libnvrtc.so");
    put("/opt/c8/lib/libcuda.so.1", "x");
    ln("libcuda.so.1", "/opt/c8/lib/libcuda.so");
    d = det_new();
    add_tk(d, "/usr/local/cuda-12.4", 12, 4, 1);
    add_cu(d, "/opt/c8/lib", "8.9.7", "prefix", libs);
    r = run(f->ctx, d);
    expect(r, NULL, "CUDNN8_NO_LIBCUDA_SO CUDNN8_NO_LIBNVRTC_SO");
    cudnnctl_doctor_result_free(r);
    /* found through LD_LIBRARY_PATH too (a host path under the root) */
    char gone[1024];
    snprintf(gone, sizeof(gone), "%s/opt/c8/lib/libcuda.so", root);
    assert_int_equal(cc_pf_unlink(gone), 0);
    mk("/drv");
    put("/drv/libcuda.so", "x");
    char llp[1024];
    snprintf(llp, sizeof(llp), "%s/drv", root);
    cc_pf_setenv("LD_LIBRARY_PATH", llp);
    d = det_new();
    add_tk(d, "/usr/local/cuda-12.4", 12, 4, 1);
    add_cu(d, "/opt/c8/lib", "8.9.7", "prefix", libs);
    RUN(d);
    cc_pf_setenv("LD_LIBRARY_PATH", NULL);
    expect(f->res, NULL, "CUDNN8_NO_LIBCUDA_SO");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(t_loader_conflict, setup, teardown),
        cmocka_unit_test_setup_teardown(t_ld_library_path, setup, teardown),
        cmocka_unit_test_setup_teardown(t_wheel_variant, setup, teardown),
        cmocka_unit_test_setup_teardown(t_tree_and_prefix_variant, setup, teardown),
        cmocka_unit_test_setup_teardown(t_dpkg_variant, setup, teardown),
        cmocka_unit_test_setup_teardown(t_cuda_links, setup, teardown),
        cmocka_unit_test_setup_teardown(t_so_chains, setup, teardown),
        cmocka_unit_test_setup_teardown(t_good_chains_and_wheels, setup, teardown),
        cmocka_unit_test_setup_teardown(t_cudnn8_dlopen_names, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
