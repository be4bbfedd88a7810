/* safepath.c (linux): the safe-path walk (docs/security.md, "Running as root").
 *
 * A path is never handed to the kernel whole for a write: it is walked from "/" one component at
 * a time with openat(O_PATH | O_NOFOLLOW), so the walk itself sees every symbolic link on the
 * way. When the effective user is root (the trust rule is "enforced"), a link is followed only
 * when root or the effective user owns it, and every directory reached must be owned by root or
 * the effective user and not be writable by group or others unless it is sticky — the rule of
 * OpenSSH's StrictModes and systemd's safe transitions: nobody else could have planted anything
 * on such a path. The final component is then operated on through the directory fd
 * (openat/renameat/unlinkat/...), never followed for a write. */
#define _GNU_SOURCE
#include "safepath.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "platform.h"

void cc_pf_errno_(void);

#define MAX_LINKS 40

int cc_sp_enforcing(void)
{
    return geteuid() == 0;
}

/* The user besides root whose files are trusted: the effective user, or with SP_AS_ROOT nobody
 * (the rule as root applies it, whoever asks: would `sudo cudnnctl ...` accept this?). */
static int owner_ok(const struct stat *st, unsigned flags)
{
    return st->st_uid == 0 || (!(flags & SP_AS_ROOT) && st->st_uid == geteuid());
}

static int dir_ok(const struct stat *st, unsigned flags)
{
    if (!owner_ok(st, flags))
        return 0;
    if (st->st_mode & S_ISVTX)
        return 1; /* sticky: others may add names, but not replace or remove ours */
    if (st->st_mode & S_IWOTH)
        return 0;
    if ((st->st_mode & S_IWGRP) && st->st_gid != 0)
        return 0;
    return 1;
}

static __thread char g_untrusted_owner[96];

const char *cc_pf_untrusted_owner(void)
{
    return g_untrusted_owner;
}

int cc_sp_owner_trusted(const struct stat *st)
{
    return owner_ok(st, 0);
}

int cc_sp_dir_trusted(const struct stat *st)
{
    return dir_ok(st, 0);
}

/* path quoted for a POSIX shell ('...' with each ' as '\'') into buf. */
static const char *sh_quote(const char *path, char *buf, size_t cap)
{
    size_t n = 0;
    if (cap < 8)
        return "''";
    buf[n++] = '\'';
    for (const char *p = path; *p && n + 6 < cap; p++) {
        if (*p == '\'') {
            memcpy(buf + n, "'\\''", 4);
            n += 4;
        } else {
            buf[n++] = *p;
        }
    }
    buf[n++] = '\'';
    buf[n] = '\0';
    return buf;
}

static void distrust(const char *path, const struct stat *st, const char *what, unsigned flags);

void cc_sp_distrust(const char *path, const struct stat *st, const char *what)
{
    distrust(path, st, what, 0);
}

static void distrust(const char *path, const struct stat *st, const char *what, unsigned flags)
{
    char owner[96], q[1100], fix[2400];
    int as_root = geteuid() == 0 || (flags & SP_AS_ROOT);
    struct passwd *pw = getpwuid(st->st_uid);
    if (pw && pw->pw_name)
        snprintf(owner, sizeof(owner), "uid %u (%s)", (unsigned)st->st_uid, pw->pw_name);
    else
        snprintf(owner, sizeof(owner), "uid %u", (unsigned)st->st_uid);
    g_untrusted_owner[0] = '\0';
    if (!owner_ok(st, flags) && pw && pw->pw_name)
        snprintf(g_untrusted_owner, sizeof(g_untrusted_owner), "%s", pw->pw_name);
    else if (!owner_ok(st, flags))
        snprintf(g_untrusted_owner, sizeof(g_untrusted_owner), "#%u", (unsigned)st->st_uid);
    const char *why = !owner_ok(st, flags)      ? "owned by another user"
                      : (st->st_mode & S_IWOTH) ? "writable by others"
                                                : "writable by its group";
    sh_quote(path, q, sizeof(q));
    if (as_root)
        snprintf(fix, sizeof(fix),
                 "use a directory only root can write, or make it one: chown root:root %s && "
                 "chmod go-w %s",
                 q, q);
    else if (st->st_uid == geteuid())
        snprintf(fix, sizeof(fix), "chmod go-w %s", q);
    else
        snprintf(fix, sizeof(fix), "use a directory of your own that only you can write");
    char text[3000];
    if (S_ISLNK(st->st_mode))
        snprintf(text, sizeof(text),
                 "%s is a symbolic link owned by %s: not followed (another user could have "
                 "planted it); fix: give the path it points to instead",
                 path, owner);
    else
        snprintf(text, sizeof(text),
                 "%s%s%s is owned by %s with mode %04o (%s): another user could change what "
                 "cudnnctl %s there; fix: %s",
                 what ? what : "", what ? " " : "", path, owner, (unsigned)(st->st_mode & 07777),
                 why, as_root ? "running as root reads, writes or runs" : "relies on", fix);
    cc_pf_set_error(CUDNNCTL_E_UNTRUSTED, text);
}

/* The remaining path to walk and the path walked so far (for messages). */
typedef struct {
    char *todo;
    char *done;
    int fd;
    int links;
    int floor; /* --root: the root's fd (links and ".." never leave it), or -1 */
    struct stat floor_st;
    const char *floor_name;
} walk;

/* --root of this process (cc_pf_set_resolve_root): a path under it resolves inside it, as
 * openat2(RESOLVE_IN_ROOT) would — an absolute link target starts again at the root and ".."
 * at the root stays there — so a tree from another machine cannot point a write outside. */
static char *g_root;

void cc_pf_set_resolve_root(const char *root)
{
    free(g_root);
    g_root = root && *root && strcmp(root, "/") != 0 ? strdup(root) : NULL;
}

static int set_str(char **dst, char *src)
{
    if (!src) {
        errno = ENOMEM;
        return -1;
    }
    free(*dst);
    *dst = src;
    return 0;
}

static char *join_done(const char *done, const char *comp)
{
    char *r;
    if (asprintf(&r, "%s/%s", strcmp(done, "/") == 0 ? "" : done, comp) < 0)
        return NULL;
    return r;
}

static int restart_at_root(walk *w)
{
    if (w->floor >= 0) {
        int fd = dup(w->floor);
        if (fd < 0)
            return -1;
        if (w->fd >= 0)
            close(w->fd);
        w->fd = fd;
        return set_str(&w->done, strdup(w->floor_name));
    }
    int fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    if (w->fd >= 0)
        close(w->fd);
    w->fd = fd;
    return set_str(&w->done, strdup("/"));
}

static int check_dir(walk *w, int fd, const char *shown, unsigned flags)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        return -1;
    if (!S_ISDIR(st.st_mode)) {
        errno = ENOTDIR;
        return -1;
    }
    if ((flags & SP_ENFORCE) && !dir_ok(&st, flags)) {
        distrust(shown, &st, "the directory", flags);
        return -2;
    }
    (void)w;
    return 0;
}

/* Replace the component just read (a link at fd lfd) by its target in front of rest. */
static int expand_link(walk *w, int lfd, const char *shown, const char *rest, unsigned flags)
{
    struct stat st;
    if (fstat(lfd, &st) != 0)
        return -1;
    if ((flags & SP_ENFORCE) && !owner_ok(&st, flags)) {
        distrust(shown, &st, NULL, flags);
        return -2;
    }
    if (++w->links > MAX_LINKS) {
        errno = ELOOP;
        return -1;
    }
    char target[4096];
    ssize_t n = readlinkat(lfd, "", target, sizeof(target) - 1);
    if (n < 0)
        return -1;
    target[n] = '\0';
    char *todo;
    if (asprintf(&todo, "%s/%s", target, rest) < 0) {
        errno = ENOMEM;
        return -1;
    }
    if (target[0] == '/' && restart_at_root(w) != 0) {
        free(todo);
        return -1;
    }
    return set_str(&w->todo, todo);
}

/* Cut the next component off w->todo into comp (a view into a malloc'd copy); 1 when it was the
 * last one, 0 when more follow, -1 when nothing is left. */
static int next_comp(walk *w, char **comp, char **rest)
{
    char *p = w->todo;
    while (*p == '/')
        p++;
    if (!*p)
        return -1;
    char *e = strchr(p, '/');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    char *r = e ? e : p + len;
    while (*r == '/')
        r++;
    *comp = strndup(p, len);
    *rest = strdup(r);
    if (!*comp || !*rest) {
        free(*comp);
        free(*rest);
        errno = ENOMEM;
        return -2;
    }
    return *r ? 0 : 1;
}

static int step(walk *w, const char *comp, const char *rest, int last, unsigned flags,
                char **base)
{
    if (strcmp(comp, "..") == 0 && w->floor >= 0) {
        struct stat here;
        if (fstat(w->fd, &here) != 0)
            return -1;
        if (here.st_dev == w->floor_st.st_dev && here.st_ino == w->floor_st.st_ino)
            comp = "."; /* ".." at the root is the root */
    }
    if (strcmp(comp, ".") == 0 || strcmp(comp, "..") == 0) {
        int nfd = openat(w->fd, comp, O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (nfd < 0)
            return -1;
        int c = check_dir(w, nfd, w->done, flags);
        if (c != 0) {
            close(nfd);
            return c;
        }
        close(w->fd);
        w->fd = nfd;
        if (strcmp(comp, "..") == 0) {
            char *slash = strrchr(w->done, '/');
            if (w->floor >= 0 && strcmp(w->done, w->floor_name) == 0)
                ; /* stays */
            else if (slash && slash != w->done)
                *slash = '\0';
            else if (set_str(&w->done, strdup("/")) != 0)
                return -1;
        }
        if (last && set_str(base, strdup(".")) != 0)
            return -1;
        return set_str(&w->todo, strdup(rest));
    }
    if (last && !(flags & SP_FOLLOW))
        return set_str(base, strdup(comp));
    char *shown = join_done(w->done, comp);
    if (!shown) {
        errno = ENOMEM;
        return -1;
    }
    int rc = -1;
    int nfd = openat(w->fd, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    if (nfd < 0 || fstat(nfd, &st) != 0) {
        if (nfd >= 0)
            close(nfd);
        /* a missing last component is fine: the caller creates it */
        if (last && errno == ENOENT && set_str(base, strdup(comp)) == 0)
            rc = 0;
        free(shown);
        return rc;
    }
    if (S_ISLNK(st.st_mode)) {
        rc = expand_link(w, nfd, shown, rest, flags);
    } else if (S_ISDIR(st.st_mode)) {
        rc = check_dir(w, nfd, shown, flags);
        if (rc == 0) {
            close(w->fd);
            w->fd = nfd;
            nfd = -1;
            rc = set_str(&w->done, shown);
            shown = NULL;
            if (rc == 0)
                rc = set_str(&w->todo, strdup(rest));
            if (rc == 0 && last)
                rc = set_str(base, strdup("."));
        }
    } else if (last) {
        rc = set_str(base, strdup(comp)); /* a file: its directory and its name */
    } else {
        errno = ENOTDIR;
    }
    if (nfd >= 0)
        close(nfd);
    free(shown);
    return rc;
}

int cc_sp_parent(const char *path, unsigned flags, char **base)
{
    *base = NULL;
    if (!path || !*path) {
        errno = ENOENT;
        cc_pf_errno_();
        return -1;
    }
    walk w = {NULL, NULL, -1, 0, -1, {0}, NULL};
    size_t rl = g_root && !(flags & SP_NOFLOOR) ? strlen(g_root) : 0;
    /* strictly below the root: the root itself is an ordinary path (it can be removed) */
    if (rl && strncmp(path, g_root, rl) == 0 && path[rl] == '/' && path[rl + strspn(path + rl, "/")]) {
        char *rb = NULL;
        int rfd = cc_sp_parent(g_root, (flags | SP_FOLLOW | SP_NOFLOOR), &rb);
        int dir_ok = rfd >= 0 && rb && strcmp(rb, ".") == 0 && fstat(rfd, &w.floor_st) == 0;
        free(rb);
        if (!dir_ok) {
            if (rfd >= 0)
                close(rfd);
            if (rfd >= 0)
                cc_pf_set_error(CUDNNCTL_E_NOT_FOUND, "the --root is not a directory");
            return -1;
        }
        w.floor = rfd;
        w.floor_name = g_root;
        w.todo = strdup(path + rl);
    } else if (path[0] == '/') {
        w.todo = strdup(path);
    } else {
        char *cwd = getcwd(NULL, 0);
        if (cwd && asprintf(&w.todo, "%s/%s", cwd, path) < 0)
            w.todo = NULL;
        free(cwd);
    }
    int rc = w.todo ? restart_at_root(&w) : -1;
    if (rc == 0)
        rc = check_dir(&w, w.fd, w.floor >= 0 ? w.floor_name : "/", flags);
    while (rc == 0 && !*base) {
        char *comp = NULL, *rest = NULL;
        int last = next_comp(&w, &comp, &rest);
        if (last == -1) { /* the path was "/" (or ended in a link to it) */
            rc = set_str(base, strdup("."));
            break;
        }
        if (last < -1) {
            rc = -1;
            break;
        }
        rc = step(&w, comp, rest, last, flags, base);
        free(comp);
        free(rest);
    }
    free(w.todo);
    free(w.done);
    if (w.floor >= 0)
        close(w.floor);
    if (rc != 0) {
        if (rc == -1)
            cc_pf_errno_();
        if (w.fd >= 0)
            close(w.fd);
        free(*base);
        *base = NULL;
        return -1;
    }
    return w.fd;
}

int cc_sp_open(const char *path, int oflags, mode_t mode, unsigned flags)
{
    char *base = NULL;
    int dfd = cc_sp_parent(path, flags, &base);
    if (dfd < 0)
        return -1;
    int fd;
    do
        fd = openat(dfd, base, oflags | O_NOFOLLOW | O_CLOEXEC, mode);
    while (fd < 0 && errno == EINTR);
    if (fd < 0) {
        if (errno == ELOOP) {
            char text[1200];
            snprintf(text, sizeof(text),
                     "%s is a symbolic link: cudnnctl never writes through a link; fix: remove "
                     "it, or give the path it points to",
                     path);
            cc_pf_set_error(CUDNNCTL_E_UNTRUSTED, text);
        } else {
            cc_pf_errno_();
        }
    }
    close(dfd);
    free(base);
    return fd;
}

int cc_pf_trust_check(const char *path, unsigned what)
{
    char *base = NULL;
    unsigned flags = SP_ENFORCE | SP_FOLLOW | ((what & CC_PF_TRUST_AS_ROOT) ? SP_AS_ROOT : 0);
    int d = cc_sp_parent(path, flags, &base);
    if (d < 0)
        return -1;
    int rc = 0;
    if (what & CC_PF_TRUST_OBJECT) {
        struct stat st;
        if (fstatat(d, base, &st, AT_SYMLINK_NOFOLLOW) != 0) {
            cc_pf_errno_();
            rc = -1;
        } else if (S_ISDIR(st.st_mode) ? !dir_ok(&st, flags)
                                       : (!owner_ok(&st, flags) || (st.st_mode & S_IWOTH) ||
                                          ((st.st_mode & S_IWGRP) && st.st_gid != 0))) {
            distrust(path, &st, S_ISDIR(st.st_mode) ? "the directory" : "the file", flags);
            rc = -1;
        }
    }
    close(d);
    free(base);
    return rc;
}
