/* doctor_state.c: doctor's checks of cudnnctl's own state: the files and links install receipts
 * list (gone, changed; re-hashed with --deep), receipts that cannot be parsed, and a journal left
 * by an interrupted install or uninstall. Also hands the receipts' CUDA variants to the variant
 * checks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doctor_int.h"
#include "hash.h"
#include "journal.h"
#include "receipt.h"

#define MAX_LISTED 5

/* ISO 8601 UTC "2026-02-10T12:00:00Z" -> epoch seconds; -1 when malformed. */
static int64_t parse_iso(const char *s)
{
    int y, mo, d, h, mi, se;
    if (!s || sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d", &y, &mo, &d, &h, &mi, &se) != 6)
        return -1;
    y -= mo <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    int64_t days = era * 146097 + doe - 719468;
    return days * 86400 + h * 3600 + mi * 60 + se;
}

int cc_diag_state_load(cc_doctor_run *run)
{
    char *state = cc_state_dir(run->ctx);
    cc_receipts *rs = calloc(1, sizeof(*rs));
    if (!state || !rs) {
        free(state);
        free(rs);
        return -1;
    }
    cudnnctl_err e = cc_receipts_load(run->ctx, state, rs);
    free(state);
    if (e != CUDNNCTL_E_OK) {
        /* unreadable (I/O, permissions): reported by the state check, not a doctor failure */
        cc_clear_error(run->ctx);
        free(rs);
        return e == CUDNNCTL_E_NOMEM ? -1 : 0;
    }
    run->receipts = rs;
    if (rs->n && !(run->installs = calloc(rs->n, sizeof(*run->installs))))
        return -1;
    for (size_t i = 0; i < rs->n; i++) {
        const cc_receipt *r = &rs->v[i];
        cc_diag_install *in = &run->installs[run->n_installs++];
        in->lib_dir = r->lib_dir ? cc_strdup(r->lib_dir) : NULL;
        in->install_dir = r->install_dir ? cc_strdup(r->install_dir) : NULL;
        in->cuda_major = r->cuda_variant ? atoi(r->cuda_variant) : -1;
        if (in->cuda_major <= 0)
            in->cuda_major = -1;
    }
    return 0;
}

void cc_diag_state_free(cc_doctor_run *run)
{
    for (size_t i = 0; i < run->n_installs; i++) {
        free(run->installs[i].lib_dir);
        free(run->installs[i].install_dir);
    }
    free(run->installs);
    run->installs = NULL;
    run->n_installs = 0;
    if (run->receipts) {
        cc_receipts_free(run->receipts);
        free(run->receipts);
        run->receipts = NULL;
    }
}

/* ---- receipts ------------------------------------------------------------------------------- */

/* A path some newer receipt placed or moved out: the older receipt no longer owns it. */
static int owned_by_newer(const cc_receipts *rs, size_t i, const char *path)
{
    for (size_t k = i + 1; k < rs->n; k++) {
        const cc_receipt *n = &rs->v[k];
        for (size_t e = 0; e < n->n_entries; e++)
            if (strcmp(n->entries[e].path, path) == 0)
                return 1;
        for (size_t e = 0; e < n->n_replaced; e++)
            if (strcmp(n->replaced[e].path, path) == 0)
                return 1;
    }
    return 0;
}

typedef struct {
    cc_buf text;
    size_t n;
} listing;

static void note(listing *l, const char *path, const char *why)
{
    if (l->n++ < MAX_LISTED)
        cc_buf_printf(&l->text, "%s%s%s%s", l->text.len ? ", " : "", path, why ? " " : "",
                      why ? why : "");
}

static void flush(cc_doctor_run *run, cc_doctor_code code, const cc_receipt *r, listing *l,
                  const char *what)
{
    if (!l->n)
        return;
    char more[48] = "";
    if (l->n > MAX_LISTED)
        snprintf(more, sizeof(more), " and %zu more", l->n - MAX_LISTED);
    char *fix = code == CC_DC_RECEIPT_FILE_TOUCHED
                    ? cc_strdup("run `cudnnctl doctor --deep` to compare their contents with "
                                "the receipt")
                    : r->archive.in_catalog || !r->archive.url
                    ? cc_asprintf("reinstall it (`cudnnctl install --cudnn %s --cuda %s %s %s "
                                  "--force`), or remove it (`cudnnctl uninstall %s %s --version "
                                  "%s`)",
                                  r->cudnn_version, r->cuda_variant ? r->cuda_variant : "?",
                                  r->mode == CUDNNCTL_TARGET_PREFIX ? "--prefix" : "--cuda-home",
                                  r->target_path,
                                  r->mode == CUDNNCTL_TARGET_PREFIX ? "--prefix" : "--cuda-home",
                                  r->target_path, r->cudnn_version)
                    : cc_asprintf("reinstall it from the archive it came from, which the "
                                  "catalog does not list (`cudnnctl install --archive %s "
                                  "--sha256 %s %s %s --force`), or remove it (`cudnnctl "
                                  "uninstall %s %s --version %s`)",
                                  r->archive.url, r->archive.sha256 ? r->archive.sha256 : "?",
                                  r->mode == CUDNNCTL_TARGET_PREFIX ? "--prefix" : "--cuda-home",
                                  r->target_path,
                                  r->mode == CUDNNCTL_TARGET_PREFIX ? "--prefix" : "--cuda-home",
                                  r->target_path, r->cudnn_version);
    cc_diag_add(run, code, r->install_dir, fix,
                "%zu file%s of the cuDNN %s install %s (receipt %s) %s: %s%s", l->n,
                l->n == 1 ? "" : "s", r->cudnn_version, r->install_dir, r->id, what,
                l->text.data ? l->text.data : "", more);
    free(fix);
}

static void check_receipt(cc_doctor_run *run, const cc_receipts *rs, size_t i)
{
    const cc_receipt *r = &rs->v[i];
    listing missing = {0}, modified = {0}, touched = {0};
    int64_t at = parse_iso(r->installed_at);
    for (size_t k = 0; k < r->n_entries; k++) {
        const cc_rentry *e = &r->entries[k];
        if (owned_by_newer(rs, i, e->path))
            continue;
        if (r->current_link && strcmp(e->path, r->current_link) == 0)
            continue; /* PREFIX/current moves between the installs of a prefix by design */
        run->r->n_receipt_files++;
        char *h = cc_rooted(run->ctx, e->path);
        cc_pf_stat_t st = {0};
        if (!h || cc_pf_lstat(h, &st) != 0 || !st.exists) {
            note(&missing, e->path, NULL);
        } else if (e->type == CC_OBJ_LINK) {
            char *t = st.is_link ? cc_pf_readlink(h) : NULL;
            if (!t || !e->link_target || strcmp(t, e->link_target) != 0)
                note(&modified, e->path,
                     st.is_link ? "(link target changed)" : "(no longer a link)");
            free(t);
        } else if (!st.is_reg) {
            note(&modified, e->path, "(no longer a regular file)");
        } else if (st.size != e->size) {
            note(&modified, e->path, "(size changed)");
        } else if (run->opts->deep) {
            char hex[65];
            uint64_t size = 0;
            if (cc_sha256_file(run->ctx, h, hex, &size) != 0) {
                cc_clear_error(run->ctx);
                note(&modified, e->path, "(unreadable)");
            } else if (strcmp(hex, e->sha256) != 0) {
                note(&modified, e->path, "(content changed)");
            }
        } else if (at > 0 && st.mtime > at + 2) {
            note(&touched, e->path, NULL);
        }
        free(h);
    }
    flush(run, CC_DC_RECEIPT_FILE_MISSING, r, &missing, "are gone");
    flush(run, CC_DC_RECEIPT_FILE_MODIFIED, r, &modified, "differ from the receipt");
    flush(run, CC_DC_RECEIPT_FILE_TOUCHED, r, &touched,
          "were modified after the install (same size)");
    cc_buf_free(&missing.text);
    cc_buf_free(&modified.text);
    cc_buf_free(&touched.text);
}

/* receipts/<id>.json files that did not load (parse errors are skipped by the loader) */
static int unreadable_receipts(cc_doctor_run *run, const char *state)
{
    char *dir = cc_path_join(state, "receipts");
    cc_pf_dir *d = dir ? cc_pf_opendir(dir) : NULL;
    const cc_receipts *rs = run->receipts;
    const char *name;
    while (d && (name = cc_pf_readdir(d)) != NULL) {
        if (!cc_str_ends(name, ".json") || name[0] == '.')
            continue;
        char *p = cc_path_join(dir, name);
        int loaded = 0;
        for (size_t i = 0; rs && p && i < rs->n && !loaded; i++)
            loaded = rs->v[i].file && strcmp(rs->v[i].file, p) == 0;
        if (p && !loaded) {
            char *shown = cc_unrooted(run->ctx, p);
            cc_diag_add(run, CC_DC_RECEIPT_UNREADABLE, shown,
                        "restore it from a backup; if the install it described is gone, delete "
                        "the receipt (uninstall and rollback ignore it)",
                        "the install receipt %s cannot be read or parsed: uninstall, rollback and "
                        "list ignore it, so its files would stay forever",
                        shown ? shown : p);
            free(shown);
        }
        free(p);
    }
    if (d)
        cc_pf_closedir(d);
    free(dir);
    return run->oom ? -1 : 0;
}

/* ---- the journal ---------------------------------------------------------------------------- */

/* 1 when the lock file names a live process: a transaction is running right now. */
static int lock_held(cudnnctl_ctx *ctx, const char *state)
{
    char *p = cc_path_join(state, "lock");
    char *text = NULL;
    long pid = 0;
    if (p && cc_sys_read_file(ctx, p, 4096, &text, NULL) == 0 && text) {
        char *s = strstr(text, "pid ");
        if (s)
            pid = strtol(s + 4, NULL, 10);
    }
    cc_clear_error(ctx);
    free(text);
    free(p);
    return pid > 0 && cc_pf_pid_alive(pid);
}

static int check_journal(cc_doctor_run *run, const char *state)
{
    cc_txn *t = NULL;
    cudnnctl_err e = cc_txn_load(run->ctx, state, &t);
    if (e != CUDNNCTL_E_OK) {
        /* a journal that exists but cannot be parsed is just as stale */
        char *p = cc_path_join(state, "journal.json");
        char *shown = p ? cc_unrooted(run->ctx, p) : NULL;
        cc_pf_stat_t st;
        if (e != CUDNNCTL_E_NOMEM && p && cc_pf_lstat(p, &st) == 0 && st.exists)
            cc_diag_add(run, CC_DC_STALE_JOURNAL, shown,
                        "inspect the journal; move it away only after checking the target tree "
                        "by hand (`cudnnctl doctor` again shows what is left)",
                        "%s is left from an interrupted install or uninstall and cannot be read "
                        "(%s): the next install, uninstall or rollback refuses to run",
                        shown ? shown : "journal.json", cudnnctl_last_error(run->ctx)->detail);
        cc_clear_error(run->ctx);
        free(shown);
        free(p);
        return e == CUDNNCTL_E_NOMEM ? -1 : 0;
    }
    if (!t)
        return 0;
    if (!lock_held(run->ctx, state)) {
        char *shown = cc_unrooted(run->ctx, t->path);
        int after = t->phase == CC_PH_COMMITTED;
        cc_diag_add(run, CC_DC_STALE_JOURNAL, shown,
                    after ? "run `cudnnctl recover` (any install, uninstall or rollback does "
                            "it first too): it finishes the interrupted change (only its "
                            "bookkeeping was left)"
                          : "run `cudnnctl recover` (any install, uninstall or rollback does it "
                            "first too): it rolls the interrupted change back, leaving the target "
                            "as before",
                    "an interrupted %s (phase %s, %zu operations) left %s: the target may hold a "
                    "half-made change until it is %s",
                    t->kind ? t->kind : "transaction", cc_phase_name(t->phase), t->n_ops,
                    shown ? shown : t->path, after ? "finished" : "rolled back");
        free(shown);
    }
    cc_txn_free(t);
    return run->oom ? -1 : 0;
}

int cc_diag_check_state(cc_doctor_run *run)
{
    char *state = cc_state_dir(run->ctx);
    if (!state)
        return -1;
    const cc_receipts *rs = run->receipts;
    for (size_t i = 0; rs && i < rs->n; i++) {
        check_receipt(run, rs, i);
        const cc_receipt *r = &rs->v[i];
        /* an install of the JIT flavour, wherever it is (detect scans fixed places only) */
        if (r->flavor == CUDNNCTL_FLAVOR_JIT && r->lib_dir && !cc_receipts_superseding(rs, r))
            cc_diag_jit_finding(run, r->lib_dir, r->cudnn_version, atoi(r->cudnn_version));
    }
    int rc = unreadable_receipts(run, state);
    if (rc == 0)
        rc = check_journal(run, state);
    free(state);
    return rc || run->oom ? -1 : 0;
}
