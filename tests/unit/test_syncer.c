/* test_syncer.c: the background fsync thread of extraction — every queued file is opened and
 * flushed without error (a read-only one too: on Windows that takes the read-access fallback;
 * that the bytes are durable cannot be observed without a crash), a file that cannot be
 * flushed is named in the error, and freeing without finishing does not hang. Portable: runs
 * under wine as well, in the build dir. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "platform.h"
#include "syncer.h"

static void make_file(const char *path, size_t n)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    for (size_t i = 0; i < n; i++)
        fputc((int)(i * 7u), f);
    assert_int_equal(fclose(f), 0);
}

static void every_queued_file_is_synced(void **state)
{
    (void)state;
    cc_syncer *s = cc_syncer_new();
    assert_non_null(s);
    char names[20][64];
    for (int i = 0; i < 20; i++) {
        snprintf(names[i], sizeof(names[i]), "syncer-%llu-%d.tmp",
                 (unsigned long long)cc_pf_now_ms(), i);
        make_file(names[i], 4096u * (unsigned)(i + 1));
        if (i == 3)
            assert_int_equal(cc_pf_chmod(names[i], 0444), 0); /* read-only: still fine */
        assert_int_equal(cc_syncer_add(s, names[i]), 0);
    }
    char *err = NULL;
    assert_int_equal(cc_syncer_finish(s, &err), 0);
    assert_null(err);
    cc_syncer_free(s);
    for (int i = 0; i < 20; i++) {
        cc_pf_chmod(names[i], 0644);
        assert_int_equal(remove(names[i]), 0);
    }
}

static void a_file_that_cannot_be_flushed_is_named(void **state)
{
    (void)state;
    cc_syncer *s = cc_syncer_new();
    assert_non_null(s);
    assert_int_equal(cc_syncer_add(s, "syncer-no-such-dir/gone.so"), 0);
    char *err = NULL;
    assert_int_equal(cc_syncer_finish(s, &err), -1);
    assert_non_null(err);
    assert_non_null(strstr(err, "gone.so"));
    free(err);
    cc_syncer_free(s);
}

static void free_without_finish_returns(void **state)
{
    (void)state;
    cc_syncer *s = cc_syncer_new();
    assert_non_null(s);
    char name[64];
    snprintf(name, sizeof(name), "syncer-free-%llu.tmp", (unsigned long long)cc_pf_now_ms());
    make_file(name, 1 << 20);
    for (int i = 0; i < 50; i++)
        assert_int_equal(cc_syncer_add(s, name), 0);
    cc_syncer_free(s); /* joins the thread; the rest of the queue is dropped */
    assert_int_equal(remove(name), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_queued_file_is_synced),
        cmocka_unit_test(a_file_that_cannot_be_flushed_is_named),
        cmocka_unit_test(free_without_finish_returns),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
