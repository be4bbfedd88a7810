/* elf_fixture.h: real ELF shared objects with a chosen SONAME (test doubles, not NVIDIA's code),
 * built with `cc -shared`. Where there is no cc (the cross build, run under wine) the same doubles
 * come ready-made from CUDNNCTL_TEST_FIXTURES=DIR: DIR/elf/SONAME@TAG.so, built on the Linux side
 * from the same source by tests/fixtures/make_elf_doubles.sh (a CTest fixture of that build). */
#ifndef ELF_FIXTURE_H
#define ELF_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "platform.h"

/* The double's C source (make_elf_doubles.sh writes the same text). */
static inline char *efx_source(const char *soname, const char *tag)
{
    return cc_asprintf("int cudnnctl_test_double_%d(void) { return %d; }\n"
                       "const char *cudnnctl_test_tag = \"%s %s\";\n",
                       (int)strlen(soname), (int)strlen(tag), soname, tag);
}

/* Copy the first @p limit bytes of @p from (all of it when 0) to @p to; 0 on success. */
static inline int efx_copy(const char *from, const char *to, size_t limit)
{
    cc_pf_fd in = cc_pf_open(from, CC_PF_O_RDONLY, 0);
    if (in == -1)
        return -1;
    cc_pf_fd out = cc_pf_open(to, CC_PF_O_WRONLY | CC_PF_O_CREAT | CC_PF_O_TRUNC, 0755);
    int rc = out == -1 ? -1 : 0;
    char buf[65536];
    size_t done = 0;
    while (rc == 0 && (!limit || done < limit)) {
        size_t want = limit && limit - done < sizeof(buf) ? limit - done : sizeof(buf);
        long long n = cc_pf_read(in, buf, want);
        if (n <= 0) {
            rc = n < 0 ? -1 : 0;
            break;
        }
        if (cc_pf_write(out, buf, (size_t)n) != n)
            rc = -1;
        done += (size_t)n;
    }
    cc_pf_close(in);
    if (out != -1 && cc_pf_close(out) != 0)
        rc = -1;
    return rc;
}

/* A real shared object with the given SONAME at path; 0 on success. */
static inline int efx_elf(const char *path, const char *soname, const char *tag)
{
    const char *pre = cc_pf_getenv("CUDNNCTL_TEST_FIXTURES");
    if (pre && *pre) {
        char *ready = cc_asprintf("%s/elf/%s@%s.so", pre, soname, tag);
        int rc = efx_copy(ready, path, 0);
        if (rc != 0)
            fprintf(stderr, "no ready-made ELF double %s: add \"%s@%s\" to the list in "
                            "tests/CMakeLists.txt (make_elf_doubles.sh builds it)\n",
                    ready, soname, tag);
        free(ready);
        return rc;
    }
    char *dir = cc_path_dir(path);
    char *src = cc_asprintf("%s/.double-%s.c", dir, soname);
    char *code = efx_source(soname, tag);
    FILE *f = fopen(src, "w");
    int rc = f && fputs(code, f) >= 0 ? 0 : -1;
    if (f && fclose(f) != 0)
        rc = -1;
    if (rc == 0) {
        char *cmd = cc_asprintf("cc -shared -fPIC -Wl,-soname,%s -o '%s' '%s'", soname, path, src);
        rc = system(cmd);
        if (rc != 0)
            fprintf(stderr, "fixture command failed (%d): %s\n", rc, cmd);
        free(cmd);
    }
    cc_pf_unlink(src);
    free(dir);
    free(src);
    free(code);
    return rc;
}

#endif
