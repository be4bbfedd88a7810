/* doctor_windows.c: `doctor --platform windows-x86_64 --root DIR`: a Windows tree diagnosed from
 * its files, on any host (C:\ is the root). Toolkits in Program Files\NVIDIA GPU Computing
 * Toolkit\CUDA\vX.Y, cuDNN DLL sets (cudnn64_M.dll) in toolkit bin dirs, Program Files\NVIDIA\
 * CUDNN\vX.Y\bin[\<cuda>[\x64]], wheels (nvidia\cudnn\bin) and every PATH dir; the environment and
 * the registry values come from a NAME=VALUE file (--windows-env). Checks: zlibwapi.dll for cuDNN
 * 8.3-9.1, CUDA 13's bin\x64 on PATH, CUDA_PATH naming a removed toolkit, two DLL sets of one
 * major on PATH, a cuDNN dir not on PATH. Fixes edit that file (the last line of a name wins). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "detect_parse.h"
#include "grow.h"
#include "detect_path.h"
#include "doctor_int.h"

#define TK_DIR "/Program Files/NVIDIA GPU Computing Toolkit/CUDA"

typedef struct {
    cc_strv names, values; /* upper-case names; the last line of a name wins */
} win_env;

typedef struct {
    char *dir;       /* root-relative, '/' separators */
    int major;       /* M of cudnn64_M.dll */
    int vmaj, vmin;  /* release version when known (headers, dist-info, vX.Y dir), else -1 */
    int on_path;     /* index in PATH + 1, 0 when not on PATH */
    int wheel;
} win_set;

typedef struct {
    cc_doctor_run *run;
    win_env env;
    cc_strv path;      /* PATH entries as written */
    cc_strv path_rel;  /* the same, root-relative */
    win_set *sets;
    size_t n_sets;
} win_run;

/* "C:\Program Files\X\" -> "/Program Files/X" (malloc'd). */
static char *to_rel(const char *w)
{
    const char *s = (isalpha((unsigned char)w[0]) && w[1] == ':') ? w + 2 : w;
    char *r = cc_asprintf("%s%s", s[0] == '\\' || s[0] == '/' ? "" : "/", s);
    if (!r)
        return NULL;
    for (char *c = r; *c; c++)
        if (*c == '\\')
            *c = '/';
    size_t n = strlen(r);
    while (n > 1 && r[n - 1] == '/')
        r[--n] = '\0';
    return r;
}

/* "/Program Files/X" -> "C:\Program Files\X" (malloc'd). */
static char *to_win(const char *rel)
{
    char *w = cc_asprintf("C:%s", rel);
    for (char *c = w; c && *c; c++)
        if (*c == '/')
            *c = '\\';
    return w;
}

static const char *env_get(const win_env *e, const char *name)
{
    for (size_t i = e->names.n; i-- > 0;)
        if (strcmp(e->names.v[i], name) == 0)
            return e->values.v[i];
    return NULL;
}

static char *canon(win_run *w, char *rel);

static int env_load(win_run *w, const char *file)
{
    char *text = NULL;
    size_t len = 0;
    if (cc_sys_read_file(w->run->ctx, file, 1u << 20, &text, &len) != 0)
        return -1;
    for (char *l = text; l && *l;) {
        char *nl = strchr(l, '\n');
        if (nl)
            *nl = '\0';
        size_t n = strlen(l);
        if (n && l[n - 1] == '\r')
            l[n - 1] = '\0';
        char *eq = strchr(l, '=');
        if (eq && l[0] != '#' && eq > l) {
            *eq = '\0';
            for (char *c = l; *c; c++)
                *c = (char)toupper((unsigned char)*c);
            cc_strv_push(&w->env.names, l);
            cc_strv_push(&w->env.values, eq + 1);
        }
        l = nl ? nl + 1 : NULL;
    }
    free(text);
    const char *p = env_get(&w->env, "PATH");
    while (p && *p) {
        size_t n = strcspn(p, ";");
        char *e = cc_strndup(p, n);
        char *r = e && *e ? canon(w, to_rel(e)) : NULL;
        if (r) {
            cc_strv_push(&w->path, e);
            cc_strv_push(&w->path_rel, r);
        }
        free(r);
        free(e);
        p += n;
        if (*p == ';')
            p++;
    }
    return 0;
}

static int exists(win_run *w, const char *rel, int dir)
{
    cc_pf_stat_t st;
    char *h = cc_diag_host(w->run, rel);
    int ok = h && cc_pf_stat(h, &st) == 0 && st.exists && (dir ? st.is_dir : st.is_reg);
    free(h);
    return ok;
}

/* a file in dir whose name matches case-insensitively (Windows names): malloc'd name or NULL */
static char *find_ci(win_run *w, const char *dir, const char *name)
{
    cc_strv ents = {0};
    char *out = NULL;
    if (cc_diag_list(w->run, dir, "", &ents) == 0)
        for (size_t i = 0; i < ents.n && !out; i++) {
            const char *a = ents.v[i], *b = name;
            while (*a && *b && tolower((unsigned char)*a) == tolower((unsigned char)*b))
                a++, b++;
            if (!*a && !*b)
                out = cc_strdup(ents.v[i]);
        }
    cc_strv_free(&ents);
    return out;
}

/* rel as the tree spells it: Windows compares names case-insensitively (PATH's
 * "C:\Windows\system32" is the dir System32), the files under --root may be on a case-sensitive
 * file system. Each component is matched as Windows would; an unmatched one is kept as given.
 * Takes rel (malloc'd), returns the canonical form (malloc'd). */
static char *canon(win_run *w, char *rel)
{
    if (!rel || exists(w, rel, 1) || exists(w, rel, 0))
        return rel;
    cc_buf out = {0};
    char *copy = cc_strdup(rel);
    int lost = 0;
    for (char *c = copy ? copy + 1 : NULL, *next; c && *c && !lost; c = next) {
        next = strchr(c, '/');
        if (next)
            *next++ = '\0';
        char *dir = cc_strdup(out.len ? out.data : "/");
        char *hit = dir ? find_ci(w, dir, c) : NULL;
        lost = !hit;
        cc_buf_printf(&out, "/%s", hit ? hit : c);
        free(hit);
        free(dir);
    }
    free(copy);
    if (lost || !out.data) {
        cc_buf_free(&out);
        return rel;
    }
    free(rel);
    return out.data;
}

static int path_index(win_run *w, const char *rel)
{
    for (size_t i = 0; i < w->path_rel.n; i++)
        if (cc_str_ieq(w->path_rel.v[i], rel))
            return (int)i + 1;
    return 0;
}

/* ---- cuDNN DLL sets --------------------------------------------------------------------------- */

static void set_version(win_run *w, win_set *s)
{
    /* cudnn_version.h in ../include, ../../include (bin\12.x) or ../../../include (bin\12.x\x64) */
    static const char *const ups[] = {"/../include", "/../../include", "/../../../include"};
    for (size_t i = 0; i < 3 && s->vmaj < 0; i++) {
        char *p = cc_asprintf("%s%s/cudnn_version.h", s->dir, ups[i]);
        char *text = NULL;
        cc_detect_ver v;
        if (p && cc_detect_read(w->run->ctx, p, 1u << 16, &text) == 0 && text &&
            cc_detect_parse_cudnn_header(text, &v) == 0)
            s->vmaj = v.major, s->vmin = v.minor;
        free(text);
        free(p);
    }
    const char *vd = strstr(s->dir, "/CUDNN/v");
    if (s->vmaj < 0 && vd && sscanf(vd + 8, "%d.%d", &s->vmaj, &s->vmin) != 2)
        s->vmaj = s->vmin = -1;
    if (s->vmaj < 0 && cc_str_ends(s->dir, "/nvidia/cudnn/bin")) {
        char *site = cc_strndup(s->dir, strlen(s->dir) - strlen("/nvidia/cudnn/bin"));
        cc_strv ents = {0};
        if (site && cc_diag_list(w->run, site, "nvidia_cudnn_cu", &ents) == 0)
            for (size_t i = 0; i < ents.n && s->vmaj < 0; i++) {
                const char *dash = strchr(ents.v[i], '-');
                if (dash && cc_str_ends(ents.v[i], ".dist-info") &&
                    sscanf(dash + 1, "%d.%d", &s->vmaj, &s->vmin) != 2)
                    s->vmaj = s->vmin = -1;
            }
        cc_strv_free(&ents);
        free(site);
        s->wheel = 1;
    }
}

static void add_set_dir(win_run *w, const char *dir)
{
    for (size_t i = 0; i < w->n_sets; i++)
        if (cc_str_ieq(w->sets[i].dir, dir))
            return;
    cc_strv ents = {0};
    if (cc_diag_list(w->run, dir, "", &ents) != 0)
        return;
    for (size_t i = 0; i < ents.n; i++) {
        int m = 0;
        char tail[8] = "";
        if (!cc_str_istarts(ents.v[i], "cudnn64_") ||
            sscanf(ents.v[i] + 8, "%d.%3s", &m, tail) != 2 || !cc_str_ieq(tail, "dll"))
            continue;
        if (cc_grow(&w->sets, NULL, w->n_sets + 1, sizeof(*w->sets)) != 0)
            break;
        win_set *s = &w->sets[w->n_sets++];
        memset(s, 0, sizeof(*s));
        s->dir = cc_strdup(dir);
        s->major = m;
        s->vmaj = s->vmin = -1;
        s->on_path = path_index(w, dir);
        set_version(w, s);
    }
    cc_strv_free(&ents);
}

/* dir and its subdirs down to depth (bin\12.x\x64) */
static void scan(win_run *w, const char *dir, int depth)
{
    if (!exists(w, dir, 1))
        return;
    add_set_dir(w, dir);
    cc_strv ents = {0};
    if (depth > 0 && cc_diag_list(w->run, dir, "", &ents) == 0)
        for (size_t i = 0; i < ents.n; i++) {
            char *p = cc_path_join(dir, ents.v[i]);
            if (p && exists(w, p, 1))
                scan(w, p, depth - 1);
            free(p);
        }
    cc_strv_free(&ents);
}

/* ---- the checks ------------------------------------------------------------------------------- */

static char *env_cmd(win_run *w, const char *name, const char *value)
{
    if (!w->run->opts->windows_env)
        return NULL;
    char *line = cc_asprintf("%s=%s", name, value);
    char *q = line ? cc_diag_quote(line) : NULL;
    char *f = cc_diag_quote(w->run->opts->windows_env);
    char *cmd = q && f ? cc_asprintf("printf '%%s\\n' %s >> %s", q, f) : NULL;
    free(line);
    free(q);
    free(f);
    return cmd;
}

/* PATH with one entry added at the end (add) or the entries of a dir dropped (drop). */
static char *path_edit(win_run *w, const char *add, const char *drop_rel)
{
    cc_buf b = {0};
    cc_buf_printf(&b, "%s", "");
    for (size_t i = 0; i < w->path.n; i++)
        if (!drop_rel || !cc_str_ieq(w->path_rel.v[i], drop_rel))
            cc_buf_printf(&b, "%s%s", b.len ? ";" : "", w->path.v[i]);
    if (add)
        cc_buf_printf(&b, "%s%s", b.len ? ";" : "", add);
    return b.data;
}

/* PE machine of a DLL (0x8664 = x64, 0x14c = x86), 0 when unreadable. */
static unsigned pe_machine(win_run *w, const char *rel)
{
    char *data = NULL;
    size_t len = 0;
    unsigned m = 0;
    if (cc_detect_read_n(w->run->ctx, rel, 4096, &data, &len) == 0 && len >= 0x40) {
        const unsigned char *d = (const unsigned char *)data;
        size_t pe = d[0x3c] | (size_t)d[0x3d] << 8 | (size_t)d[0x3e] << 16;
        if (d[0] == 'M' && d[1] == 'Z' && pe + 6 <= len && memcmp(d + pe, "PE\0\0", 4) == 0)
            m = d[pe + 4] | (unsigned)d[pe + 5] << 8;
    }
    free(data);
    return m;
}

/* A 64-bit zlibwapi.dll elsewhere in the tree (Nsight Systems ships one), root-relative. */
static char *zlib_source(win_run *w)
{
    static const char *const bases[] = {"/Program Files/NVIDIA Corporation",
                                        "/Windows/System32"};
    for (size_t b = 0; b < 2; b++) {
        cc_strv ents = {0};
        char *hit = find_ci(w, bases[b], "zlibwapi.dll");
        if (hit) {
            char *p = cc_path_join(bases[b], hit);
            free(hit);
            if (p && pe_machine(w, p) == 0x8664)
                return p;
            free(p);
        }
        if (cc_diag_list(w->run, bases[b], "Nsight", &ents) == 0)
            for (size_t i = 0; i < ents.n; i++) {
                char *p = cc_asprintf("%s/%s/host-windows-x64/zlibwapi.dll", bases[b], ents.v[i]);
                if (p && exists(w, p, 0) && pe_machine(w, p) == 0x8664) {
                    cc_strv_free(&ents);
                    return p;
                }
                free(p);
            }
        cc_strv_free(&ents);
    }
    return NULL;
}

static void zlib_check(win_run *w, const win_set *s)
{
    int needs = (s->vmaj == 8 && s->vmin >= 3) || (s->vmaj == 9 && s->vmin <= 1);
    if (!needs)
        return;
    char *here = find_ci(w, s->dir, "zlibwapi.dll");
    char *hp = here ? cc_path_join(s->dir, here) : NULL;
    if (hp && pe_machine(w, hp) == 0x8664) {
        free(hp);
        free(here);
        return;
    }
    for (size_t i = 0; i < w->path_rel.n && !hp; i++) {
        char *f = find_ci(w, w->path_rel.v[i], "zlibwapi.dll");
        char *p = f ? cc_path_join(w->path_rel.v[i], f) : NULL;
        if (p && pe_machine(w, p) == 0x8664) {
            free(f);
            free(p);
            free(here);
            return;
        }
        free(f);
        free(p);
    }
    int bits32 = hp != NULL;
    char *src = zlib_source(w);
    char *wdir = to_win(s->dir);
    char *cmd = NULL, *fix = NULL;
    if (src) {
        char *qs = cc_diag_qhost(w->run, src), *qd = cc_diag_qhost(w->run, s->dir);
        cmd = qs && qd ? cc_asprintf("cp %s %s/zlibwapi.dll", qs, qd) : NULL;
        char *ws = to_win(src);
        fix = cc_asprintf("copy the 64-bit zlibwapi.dll beside the DLLs: `copy \"%s\" \"%s\"` "
                          "(or move to cuDNN 9.2 or newer, which does not need it)",
                          ws ? ws : "?", wdir ? wdir : "?");
        free(ws);
        free(qs);
        free(qd);
    } else {
        fix = cc_asprintf("put a 64-bit zlibwapi.dll (zlib 1.2.x, ZLIB_WINAPI build) into %s, "
                          "or move to cuDNN 9.2 or newer, which does not need it",
                          wdir ? wdir : "?");
    }
    cc_diag_add_cmd(w->run, CC_DC_WIN_ZLIBWAPI_MISSING, wdir, fix, cmd,
                    "cuDNN %d.%d in %s needs zlibwapi.dll (cuDNN 8.3-9.1 on Windows), and %s: "
                    "\"Could not locate zlibwapi.dll. Please make sure it is in your library "
                    "path!\"",
                    s->vmaj, s->vmin, wdir ? wdir : "?",
                    bits32 ? "the one beside it is not 64-bit (LoadLibrary error 193)"
                           : "none is beside its DLLs or on PATH");
    free(fix);
    free(cmd);
    free(src);
    free(wdir);
    free(hp);
    free(here);
}

static void toolkit_checks(win_run *w)
{
    cc_strv vers = {0};
    cc_diag_list(w->run, TK_DIR, "v", &vers);
    for (size_t i = 0; i < vers.n; i++) {
        int M = 0, m = 0;
        char *bx = cc_asprintf(TK_DIR "/%s/bin/x64", vers.v[i]);
        if (sscanf(vers.v[i], "v%d.%d", &M, &m) != 2 || M < 13 || !bx || !exists(w, bx, 1) ||
            !env_get(&w->env, "PATH") || path_index(w, bx)) {
            free(bx);
            continue;
        }
        char *wb = to_win(bx);
        char *np = path_edit(w, wb, NULL);
        char *cmd = np ? env_cmd(w, "PATH", np) : NULL;
        char *fix = cc_asprintf("add %s to PATH (System Properties > Environment Variables, or "
                                "`setx PATH \"%%PATH%%;%s\"`)",
                                wb, wb);
        cc_diag_add_cmd(w->run, CC_DC_WIN_CUDA_BIN_X64_NOT_ON_PATH, wb, fix, cmd,
                        "CUDA %d.%d keeps its DLLs (cudart64_%d.dll, cublas64_%d.dll) in %s, which "
                        "is not on PATH (CUDA 13 moved them from bin to bin\\x64): programs and "
                        "cuDNN fail with \"Could not load library cudart64_%d.dll\" / error 126",
                        M, m, M, M, wb, M);
        free(fix);
        free(cmd);
        free(np);
        free(wb);
        free(bx);
    }
    /* CUDA_PATH and CUDA_PATH_Vx_y naming a dir that is gone */
    for (size_t i = 0; i < w->env.names.n; i++) {
        const char *n = w->env.names.v[i];
        const char *v = env_get(&w->env, n);
        if ((strcmp(n, "CUDA_PATH") != 0 && strncmp(n, "CUDA_PATH_V", 11) != 0) || !v || !*v ||
            v != w->env.values.v[i])
            continue;
        char *rel = canon(w, to_rel(v));
        if (!rel || exists(w, rel, 1)) {
            free(rel);
            continue;
        }
        char *best = NULL;
        for (size_t k = 0; strcmp(n, "CUDA_PATH") == 0 && k < vers.n; k++) {
            char *p = cc_asprintf(TK_DIR "/%s", vers.v[k]);
            if (p && exists(w, p, 1)) {
                free(best);
                best = p;
            } else {
                free(p);
            }
        }
        char *wbest = best ? to_win(best) : NULL;
        char *cmd = env_cmd(w, n, wbest ? wbest : "");
        char *fix = wbest ? cc_asprintf("point %s at an installed toolkit: `setx %s \"%s\"`", n, n,
                                        wbest)
                          : cc_asprintf("remove %s (`reg delete HKCU\\Environment /v %s` or "
                                        "System Properties), or reinstall that toolkit",
                                        n, n);
        cc_diag_add_cmd(w->run, CC_DC_WIN_CUDA_PATH_MISSING, v, fix, cmd,
                        "%s=%s, which does not exist (the toolkit was uninstalled and the variable "
                        "left): builds (CMake FindCUDAToolkit, MSBuild's CUDA props) and "
                        "frameworks that read it find no CUDA",
                        n, v);
        free(fix);
        free(cmd);
        free(wbest);
        free(best);
        free(rel);
    }
    cc_strv_free(&vers);
}

static void path_checks(win_run *w)
{
    if (!env_get(&w->env, "PATH"))
        return;
    for (size_t i = 0; i < w->n_sets; i++) {
        const win_set *a = &w->sets[i];
        if (!a->on_path)
            continue;
        for (size_t k = 0; k < w->n_sets; k++) {
            const win_set *b = &w->sets[k];
            if (k == i || b->major != a->major || !b->on_path || b->on_path < a->on_path)
                continue;
            char *wa = to_win(a->dir), *wb = to_win(b->dir);
            char *np = path_edit(w, NULL, b->dir);
            char *cmd = np ? env_cmd(w, "PATH", np) : NULL;
            char *fix = cc_asprintf("keep one cuDNN %d on PATH: remove %s from PATH (or %s, to "
                                    "use the other)",
                                    a->major, wb ? wb : "?", wa ? wa : "?");
            cc_diag_add_cmd(w->run, CC_DC_WIN_CUDNN_DLL_SETS_ON_PATH, wb, fix, cmd,
                            "two cuDNN %d DLL sets are on PATH: %s (first, so cudnn64_%d.dll is "
                            "loaded from it) and %s; sub-DLLs that the first set lacks come from "
                            "the second (mixed versions)",
                            a->major, wa ? wa : "?", a->major, wb ? wb : "?");
            free(fix);
            free(cmd);
            free(np);
            free(wa);
            free(wb);
        }
    }
    for (size_t i = 0; i < w->n_sets; i++) {
        const win_set *s = &w->sets[i];
        int other = 0;
        for (size_t k = 0; k < w->n_sets; k++)
            other |= w->sets[k].major == s->major && w->sets[k].on_path;
        if (s->on_path || other || s->wheel)
            continue;
        char *ws = to_win(s->dir);
        char *np = ws ? path_edit(w, ws, NULL) : NULL;
        char *cmd = np ? env_cmd(w, "PATH", np) : NULL;
        char *fix = cc_asprintf("add %s to PATH (`setx PATH \"%%PATH%%;%s\"`)", ws, ws);
        cc_diag_add_cmd(w->run, CC_DC_WIN_CUDNN_NOT_ON_PATH, ws, fix, cmd,
                        "cuDNN %d's DLLs in %s are not on PATH and no other cuDNN %d is: "
                        "programs that load cudnn64_%d.dll by name (TensorFlow, ONNX Runtime, "
                        "C++ programs) fail with \"Could not locate cudnn64_%d.dll\"",
                        s->major, ws, s->major, s->major, s->major);
        free(fix);
        free(cmd);
        free(np);
        free(ws);
    }
}

int cc_diag_check_windows(cc_doctor_run *run)
{
    win_run w;
    memset(&w, 0, sizeof(w));
    w.run = run;
    if (run->opts->windows_env && env_load(&w, run->opts->windows_env) != 0) {
        run->err = CC_ERR(run->ctx, CUDNNCTL_E_NOT_FOUND,
                          "--windows-env %s cannot be read: give a file of NAME=VALUE lines "
                          "(PATH=..., CUDA_PATH=...)",
                          run->opts->windows_env);
        return 0;
    }
    cc_strv vers = {0};
    cc_diag_list(run, TK_DIR, "v", &vers);
    for (size_t i = 0; i < vers.n; i++) {
        char *b = cc_asprintf(TK_DIR "/%s/bin", vers.v[i]);
        if (b)
            scan(&w, b, 1);
        free(b);
    }
    cc_strv_free(&vers);
    cc_diag_list(run, "/Program Files/NVIDIA/CUDNN", "v", &vers);
    for (size_t i = 0; i < vers.n; i++) {
        char *b = cc_asprintf("/Program Files/NVIDIA/CUDNN/%s/bin", vers.v[i]);
        if (b)
            scan(&w, b, 2);
        free(b);
    }
    cc_strv_free(&vers);
    for (size_t i = 0; i < w.path_rel.n; i++)
        scan(&w, w.path_rel.v[i], 0);
    for (size_t i = 0; i < w.n_sets; i++)
        zlib_check(&w, &w.sets[i]);
    toolkit_checks(&w);
    path_checks(&w);
    for (size_t i = 0; i < w.n_sets; i++)
        free(w.sets[i].dir);
    free(w.sets);
    cc_strv_free(&w.env.names);
    cc_strv_free(&w.env.values);
    cc_strv_free(&w.path);
    cc_strv_free(&w.path_rel);
    return run->oom ? -1 : 0;
}
