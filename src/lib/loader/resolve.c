/* resolve.c: glibc's search for a soname, modelled (elf/dl-load.c, _dl_map_object):
 *   1. a name with '/' is a path ($ORIGIN expanded);
 *   2. an object already loaded under that soname;
 *   3. DT_RPATH of the requester, then of its loader, up to the program — only when the
 *      requester has no DT_RUNPATH (an object with DT_RUNPATH never contributes its DT_RPATH);
 *   4. LD_LIBRARY_PATH;
 *   5. DT_RUNPATH of the requester only (never of its loaders);
 *   6. /etc/ld.so.cache;
 *   7. the default dirs (the multiarch list on Debian-style systems, /lib64:/usr/lib64 else).
 * In every dir, the glibc-hwcaps subdirs the loader searches (x86-64-v4/v3/v2 where the CPU has
 * them; ldhost.c) come first. A candidate of another ELF
 * class or machine is passed over; a file that is not ELF stops the search with an error. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "ldmodel.h"
#include "platform.h"

/* 1 = Debian-style multiarch tree (/lib/<triplet>); 0 = /lib64 (Fedora, SUSE, ...). */
static int multiarch(const cudnnctl_ctx *ctx, const char *triplet)
{
    char *d = cc_asprintf("/lib/%s", triplet);
    char *h = cc_rooted(ctx, d);
    cc_pf_stat_t st;
    int yes = h && cc_pf_stat(h, &st) == 0 && st.exists && st.is_dir;
    free(d);
    free(h);
    return yes;
}

void cc_ldm_set_machine(cc_ldmodel *m, unsigned machine)
{
    cc_ld_host_free(&m->host);
    m->machine = machine;
    cc_ld_host_get(m->ctx, machine, &m->host);
    m->platform = m->host.platform;
}

int cc_ldm_init(cc_ldmodel *m, cudnnctl_ctx *ctx, const cudnnctl_loader_env *env)
{
    memset(m, 0, sizeof(*m));
    m->ctx = ctx;
    m->machine = CC_ELF_EM_X86_64;
    m->is_64 = 1;
    const char *mach = cc_pf_machine();
    if (mach && strcmp(mach, "aarch64") == 0)
        m->machine = CC_ELF_EM_AARCH64;
    cc_ldm_set_machine(m, m->machine);
    const char *triplet =
        m->machine == CC_ELF_EM_AARCH64 ? "aarch64-linux-gnu" : "x86_64-linux-gnu";
    if (multiarch(ctx, triplet)) {
        m->lib = cc_asprintf("lib/%s", triplet);
        cc_strv_push_own(&m->defaults, cc_asprintf("/lib/%s", triplet));
        cc_strv_push_own(&m->defaults, cc_asprintf("/usr/lib/%s", triplet));
        cc_strv_push(&m->defaults, "/lib");
        cc_strv_push(&m->defaults, "/usr/lib");
    } else {
        m->lib = cc_strdup("lib64");
        cc_strv_push(&m->defaults, "/lib64");
        cc_strv_push(&m->defaults, "/usr/lib64");
    }
    if (env && env->ld_library_path)
        m->llp = cc_strdup(env->ld_library_path);
    const char *cf = env && env->cache_file ? env->cache_file : "/etc/ld.so.cache";
    if (*cf) {
        m->cache_file = cc_strdup(cf);
        char *h = cc_rooted(ctx, cf);
        char *data = NULL;
        size_t len = 0;
        if (h && cc_ld_read_file(h, 256u << 20, &data, &len) == 0) {
            if (cc_ldcache_parse(data, len, &m->cache) == 0)
                m->have_cache = 1;
            else
                m->cache_bad = 1;
        }
        free(h);
    }
    return m->lib && m->defaults.n ? 0 : -1;
}

void cc_ldm_free(cc_ldmodel *m)
{
    for (size_t i = 0; i < m->n_objs; i++) {
        free(m->objs[i].path);
        free(m->objs[i].origin);
        cc_elf_info_free(&m->objs[i].elf);
    }
    free(m->objs);
    free(m->lib);
    free(m->llp);
    free(m->cache_file);
    cc_strv_free(&m->defaults);
    cc_ld_host_free(&m->host);
    if (m->have_cache)
        cc_ldcache_free(&m->cache);
    memset(m, 0, sizeof(*m));
}

/* Expand $ORIGIN, ${ORIGIN}, $LIB, $PLATFORM in one path element. */
char *cc_ldm_expand(const cc_ldmodel *m, const char *s, const char *origin)
{
    static const char *const names[] = {"ORIGIN", "LIB", "PLATFORM"};
    cc_buf b = {0};
    while (*s) {
        int done = 0;
        if (*s == '$') {
            for (int i = 0; i < 3 && !done; i++) {
                size_t n = strlen(names[i]);
                const char *val = i == 0 ? origin : i == 1 ? m->lib : m->platform;
                size_t skip = 0;
                int match = strncmp(s + 1, names[i], n) == 0; /* s[1 + n] exists only then */
                char next = match ? s[1 + n] : '\0';
                int ident = next == '_' || (next >= 'A' && next <= 'Z') ||
                            (next >= 'a' && next <= 'z') || (next >= '0' && next <= '9');
                if (match && !ident)
                    skip = 1 + n;
                else if (s[1] == '{' && strncmp(s + 2, names[i], n) == 0 && s[2 + n] == '}')
                    skip = 3 + n;
                if (skip) {
                    if (!val) { /* $ORIGIN of an object without a known dir: glibc drops it */
                        cc_buf_free(&b);
                        return NULL;
                    }
                    cc_buf_puts(&b, val);
                    s += skip;
                    done = 1;
                }
            }
        }
        if (!done)
            cc_buf_append(&b, s++, 1);
    }
    if (!b.data)
        return cc_strdup("");
    return b.data;
}

/* Check one candidate file. 1 = use it; 0 = absent or passed over; -1 = the loader stops. */
static int check_candidate(cc_ldmodel *m, const char *path, cudnnctl_load_result *r)
{
    char *host = cc_rooted(m->ctx, path);
    unsigned char eh[20];
    int rc = 0;
    cc_pf_fd fd = host ? cc_pf_open(host, CC_PF_O_RDONLY, 0) : -1;
    if (fd < 0) {
        cc_pf_stat_t st;
        if (host && cc_pf_stat(host, &st) == 0 && st.exists)
            cc_ld_skip(r, path, "exists but cannot be opened (permissions): the loader moves on");
        free(host);
        return 0;
    }
    long long got = cc_pf_read(fd, eh, sizeof(eh));
    cc_pf_close(fd);
    if (got < (long long)sizeof(eh) || memcmp(eh, "\177ELF", 4) != 0) {
        r->why = cc_asprintf("%s is not an ELF file (%s): the loader stops here with "
                             "\"invalid ELF header\" / \"file too short\" and does not look further",
                             path, got < (long long)sizeof(eh) ? "too short" : "no ELF magic");
        rc = -1;
    } else {
        int is_64 = eh[4] == 2;
        unsigned mach = eh[5] == 1 ? (unsigned)(eh[18] | (eh[19] << 8))
                                   : (unsigned)((eh[18] << 8) | eh[19]);
        if (is_64 != m->is_64 || mach != m->machine)
            cc_ld_skip(r, path, "another ELF class or machine: passed over");
        else
            rc = 1;
    }
    free(host);
    return rc;
}

/* Try soname in dir (its glibc-hwcaps subdirs first). 1 found, 0 not, -1 stop. */
static int try_dir(cc_ldmodel *m, const char *dir, const char *soname, cudnnctl_load_result *r)
{
    if (!*dir)
        dir = "."; /* an empty element is the current directory */
    size_t n_hw = m->host.hwcaps.n;
    for (size_t i = 0; i <= n_hw; i++) {
        char *d = i < n_hw ? cc_asprintf("%s/glibc-hwcaps/%s", dir, m->host.hwcaps.v[i])
                           : cc_strdup(dir);
        if (!d)
            continue;
        char *p = cc_path_join(d, soname);
        int rc = p ? check_candidate(m, p, r) : 0;
        if (rc == 1) {
            r->path = p;
            r->dir = d;
            return 1;
        }
        free(p);
        free(d);
        if (rc < 0)
            return -1;
    }
    return 0;
}

/* Search a ':'-separated list (already from one object or the environment). */
static int try_list(cc_ldmodel *m, const char *list, const char *origin, const char *soname,
                    cudnnctl_load_result *r)
{
    char *copy = cc_strdup(list);
    int rc = 0;
    for (char *p = copy, *next; p && rc == 0; p = next) {
        next = strpbrk(p, ":;");
        if (next)
            *next++ = '\0';
        char *dir = cc_ldm_expand(m, p, origin);
        if (dir)
            rc = try_dir(m, dir, soname, r);
        free(dir);
    }
    free(copy);
    return rc;
}

static int by_rpath(cc_ldmodel *m, int req, const char *soname, cudnnctl_load_result *r)
{
    if (req >= 0 && m->objs[req].elf.runpath)
        return 0; /* the requester has DT_RUNPATH: no DT_RPATH of any object is used */
    int seen_main = 0;
    for (int o = req; o >= 0; o = m->objs[o].loader) {
        const cc_ldobj *ob = &m->objs[o];
        seen_main |= o == m->main;
        if (ob->elf.runpath || !ob->elf.rpath)
            continue;
        int rc = try_list(m, ob->elf.rpath, ob->origin, soname, r);
        if (rc) {
            if (rc > 0)
                cc_ld_found(r, "rpath", ob->path,
                            "DT_RPATH of %s names %s (DT_RPATH comes before LD_LIBRARY_PATH)",
                            ob->path, r->dir);
            return rc;
        }
    }
    if (m->main >= 0 && !seen_main) {
        const cc_ldobj *ob = &m->objs[m->main];
        if (!ob->elf.runpath && ob->elf.rpath) {
            int rc = try_list(m, ob->elf.rpath, ob->origin, soname, r);
            if (rc > 0)
                cc_ld_found(r, "rpath", ob->path,
                            "DT_RPATH of the program %s names %s (it applies to every object "
                            "without DT_RUNPATH)",
                            ob->path, r->dir);
            if (rc)
                return rc;
        }
    }
    return 0;
}

static int by_cache(cc_ldmodel *m, const char *soname, cudnnctl_load_result *r)
{
    if (!m->have_cache)
        return 0;
    int32_t flags = cc_ldcache_flags_for(m->machine, m->is_64);
    const cc_ldc_entry *e = cc_ldcache_lookup(&m->cache, soname, flags, NULL);
    if (!e)
        return 0;
    int rc = check_candidate(m, e->value, r);
    if (rc > 0) {
        r->path = cc_strdup(e->value);
        r->dir = cc_strdup(m->cache_file);
        char *d = cc_path_dir(e->value);
        cc_ld_found(r, "ld.so.cache", NULL,
                    "%s lists %s (its first entry for %s; from a dir in /etc/ld.so.conf(.d) "
                    "when ldconfig last ran)",
                    m->cache_file, e->value, soname);
        free(d);
    }
    return rc;
}

int cc_ldm_search(cc_ldmodel *m, int req, const char *soname, cudnnctl_load_result *r)
{
    int rc;
    const cc_ldobj *ro = req >= 0 ? &m->objs[req] : NULL;
    if (strchr(soname, '/')) {
        char *p = cc_ldm_expand(m, soname, ro ? ro->origin : NULL);
        rc = p ? check_candidate(m, p, r) : 0;
        if (rc > 0) {
            r->path = p;
            r->dir = cc_path_dir(p);
            cc_ld_found(r, "path", NULL, "the name holds a '/': it is opened as a path");
        } else
            free(p);
        return rc;
    }
    for (size_t i = 0; i < m->n_objs; i++) {
        const char *sn = m->objs[i].elf.soname;
        if (m->objs[i].mapped && sn && strcmp(sn, soname) == 0) {
            r->path = cc_strdup(m->objs[i].path);
            r->dir = cc_path_dir(r->path);
            cc_ld_found(r, "loaded", NULL, "an object with DT_SONAME %s is already loaded (%s)",
                        soname, m->objs[i].path);
            return 1;
        }
    }
    if ((rc = by_rpath(m, req, soname, r)) != 0)
        return rc;
    if (m->llp && (rc = try_list(m, m->llp, m->main >= 0 ? m->objs[m->main].origin : NULL,
                                 soname, r)) != 0) {
        if (rc > 0)
            cc_ld_found(r, "ld_library_path", NULL,
                        "LD_LIBRARY_PATH names %s (it comes before DT_RUNPATH, ld.so.cache and "
                        "the default dirs)",
                        r->dir);
        return rc;
    }
    if (ro && ro->elf.runpath && (rc = try_list(m, ro->elf.runpath, ro->origin, soname, r)) != 0) {
        if (rc > 0)
            cc_ld_found(r, "runpath", ro->path,
                        "DT_RUNPATH of %s names %s (LD_LIBRARY_PATH would come first)", ro->path,
                        r->dir);
        return rc;
    }
    if ((rc = by_cache(m, soname, r)) != 0)
        return rc;
    for (size_t i = 0; i < m->defaults.n; i++)
        if ((rc = try_dir(m, m->defaults.v[i], soname, r)) != 0) {
            if (rc > 0)
                cc_ld_found(r, "default_dirs", NULL,
                            "%s is one of the loader's default dirs (searched last)", r->dir);
            return rc;
        }
    return 0;
}
