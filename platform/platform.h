/* platform.h: the only interface through which libcudnnctl touches the operating system.
 * One implementation per OS lives in platform/<os>/; CMake compiles exactly one of them.
 * Paths are UTF-8 everywhere; wide strings exist only inside platform/windows.
 * Functions return 0 on success and -1 on failure; cc_pf_last_error() then names the problem
 * as a cudnnctl_err plus text. Strings returned as `char *` are malloc'd; the caller frees them. */
#ifndef CUDNNCTL_PLATFORM_H
#define CUDNNCTL_PLATFORM_H

#include <stddef.h>
#include <stdint.h>

#include "cudnnctl/cudnnctl.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- errors --------------------------------------------------------------------------------- */
/* Mapping of the last OS error (errno / GetLastError) of this thread. */
cudnnctl_err cc_pf_last_error(void);
const char *cc_pf_last_error_text(void);                   /* static / thread-local buffer */
void cc_pf_set_error(cudnnctl_err code, const char *text); /* used by fault injection */
/* Make an errno value that another library reported (libarchive's archive_errno) the last error:
 * its code and the OS's text for it. */
void cc_pf_set_errno(int e);

/* ---- identity ------------------------------------------------------------------------------- */
const char *cc_pf_os(void);      /* "linux" or "windows" */
int cc_pf_is_windows(void);      /* 1 on Windows, 0 on Linux: the OS without comparing names */
const char *cc_pf_machine(void); /* "x86_64", "aarch64", ... (uname -m / PROCESSOR_ARCHITECTURE) */
char cc_pf_path_sep(void);       /* '/' or '\\' — native separator for display */
const char *cc_pf_exe_suffix(void); /* "" or ".exe" */
char *cc_pf_self_exe(void);         /* absolute path of the running binary */

/* ---- files ---------------------------------------------------------------------------------- */
typedef struct {
    int exists;
    int is_dir;
    int is_reg;
    int is_link; /* only from cc_pf_lstat */
    uint64_t size;
    uint32_t mode; /* POSIX permission bits (synthesised on Windows) */
    int64_t mtime;
    uint32_t mtime_ns; /* the nanoseconds of mtime (Windows: its 100 ns ticks, as ns) */
    uint64_t dev;
    uint64_t ino;
} cc_pf_stat_t;

#define CC_PF_O_RDONLY 0x0
#define CC_PF_O_WRONLY 0x1
#define CC_PF_O_RDWR 0x2
#define CC_PF_O_CREAT 0x10
#define CC_PF_O_EXCL 0x20
#define CC_PF_O_TRUNC 0x40
#define CC_PF_O_APPEND 0x80
/* With CC_PF_O_RDONLY: opened only to be flushed by cc_pf_fsync (Windows needs write access for
 * FlushFileBuffers; a read-only file there is opened for reading and not flushed). */
#define CC_PF_O_FOR_SYNC 0x100
/* Read a file that will be believed (state, receipts, journal, config, cache records): walked
 * with the trust rule whoever runs (every directory owned by root or the effective user, not
 * writable by others unless sticky; links owned by them), and the file itself a regular file of
 * root or the effective user, not writable by group or others. Else CUDNNCTL_E_UNTRUSTED. */
#define CC_PF_O_TRUSTED 0x200

typedef intptr_t cc_pf_fd; /* -1 = invalid */

int cc_pf_stat(const char *path, cc_pf_stat_t *st);  /* follows links; st->exists=0 if absent */
int cc_pf_lstat(const char *path, cc_pf_stat_t *st); /* does not follow the last link */
int cc_pf_fstat(cc_pf_fd fd, cc_pf_stat_t *st);       /* an open file: exists, size, dev, ino */
/* Opens that write or create (and every rename, unlink, rmdir, mkdir, symlink, link, chmod and
 * lock below) go through the safe-path layer (docs/security.md, "Running as root"): the path is
 * walked one component at a time without following links blindly — as root a link is followed
 * only when root owns it, and every directory walked must pass the trust rule — and the last
 * component is never followed: nothing is written through a link. Read-only opens follow links
 * as the kernel does (reading is harmless), except with CC_PF_O_TRUSTED. */
cc_pf_fd cc_pf_open(const char *path, int flags, uint32_t mode);
cc_pf_fd cc_pf_open_trusted(const char *path); /* = cc_pf_open(path, CC_PF_O_TRUSTED, 0) */
long long cc_pf_read(cc_pf_fd fd, void *buf, size_t len);
/* Read at offset off without moving the file position (pread; ReadFile with an OVERLAPPED
 * offset): several threads read one open file, each at its own place. 0 at the end. */
long long cc_pf_pread(cc_pf_fd fd, void *buf, size_t len, uint64_t off);
long long cc_pf_write(cc_pf_fd fd, const void *buf, size_t len);
int cc_pf_seek(cc_pf_fd fd, uint64_t off);
int cc_pf_fsync(cc_pf_fd fd);
int cc_pf_close(cc_pf_fd fd);
int cc_pf_truncate(cc_pf_fd fd, uint64_t len);
/* Atomic replace of newpath (rename(2); MoveFileExW(REPLACE_EXISTING) with bounded retry). */
int cc_pf_rename(const char *oldpath, const char *newpath);
int cc_pf_unlink(const char *path);
int cc_pf_rmdir(const char *path);
int cc_pf_mkdir(const char *path, uint32_t mode); /* EEXIST is an error: callers decide */
int cc_pf_chmod(const char *path, uint32_t mode);
int cc_pf_symlink(const char *target, const char *linkpath);
/* A link to a directory, which need not exist yet: symlink(2) on Linux; a directory junction on
 * Windows (no privilege needed; a relative target is taken from the link's directory). */
int cc_pf_symlink_dir(const char *target, const char *linkpath);
char *cc_pf_readlink(const char *path);
char *cc_pf_realpath(const char *path);
int cc_pf_fsync_dir(const char *path); /* no-op where directories cannot be synced */
/* Start writing a file's dirty pages to disk without waiting (sync_file_range); best effort,
 * a no-op where the OS has no such call. A later fsync then finds little left to do. */
void cc_pf_start_writeback(const char *path);
int cc_pf_free_space(const char *path, uint64_t *bytes);
/* 1 when the file system holding path (which must exist) is mounted read-only, 0 when not. */
int cc_pf_fs_readonly(const char *path);
/* 1 when this process may create entries in the directory path (its effective ids, the mount),
 * 0 when not (cc_pf_last_error says why), -1 when it cannot be told. Windows: only a read-only
 * volume counts as not writable (ACLs are not evaluated). */
int cc_pf_dir_writable(const char *path);
int cc_pf_is_abs(const char *path);
/* Length of the root of an absolute path, its separator included: "/" 1 (Linux); "C:\" 3,
 * "\\server\share\" (UNC) and "\\?\C:\" their whole prefix (Windows); 0 when relative. */
size_t cc_pf_path_root_len(const char *path);

/* Directory listing: names only, without "." and "..". */
typedef struct cc_pf_dir cc_pf_dir;
cc_pf_dir *cc_pf_opendir(const char *path);
/* The same through the safe-path walk, a final link not followed (a tree being deleted). */
cc_pf_dir *cc_pf_opendir_nofollow(const char *path);
const char *cc_pf_readdir(cc_pf_dir *d); /* NULL at end */
void cc_pf_closedir(cc_pf_dir *d);

/* Exclusive, non-blocking advisory lock on a file (created if missing). 1 = busy. */
int cc_pf_lock(const char *path, cc_pf_fd *out, int *busy);
void cc_pf_unlock(cc_pf_fd fd);

/* ---- trust (docs/security.md, "Running as root") -------------------------------------------- */
/* The trust rule, whoever runs: every directory from "/" to path (links resolved on the way,
 * each owned by root or the effective user) is owned by root or the effective user and not
 * writable by group or others unless sticky; with CC_PF_TRUST_OBJECT the object itself too (a
 * directory by the same rule, a file owned by them and writable by nobody else). 0 when it
 * holds; -1 with CUDNNCTL_E_UNTRUSTED naming the component, its owner and mode, and a fix.
 * Windows: reparse points on the way are refused unless they are directory junctions; ACLs are
 * not read (docs/security.md says what a check of them would add). */
#define CC_PF_TRUST_PATH 0x0
#define CC_PF_TRUST_OBJECT 0x1
/* The rule as root applies it, whoever asks (only root's files and dirs trusted): would
 * `sudo cudnnctl ...` accept this path? Used to decide which fix to print. */
#define CC_PF_TRUST_AS_ROOT 0x2
int cc_pf_trust_check(const char *path, unsigned what);
/* The --root of this process (NULL: none). The safe-path layer then resolves a path under it
 * inside it, as openat2(RESOLVE_IN_ROOT) does: an absolute link target starts again at the root
 * and ".." at the root stays there, so a tree from another machine cannot point a write, a
 * deletion or a trusted read outside itself. (Windows: recorded, not used; junctions under a
 * root are refused like links by cc_pf_trust_check.) */
void cc_pf_set_resolve_root(const char *root);
/* After a CUDNNCTL_E_UNTRUSTED of this thread: the name (or "uid N") of the other user who owns
 * the component it named — the user to run the command as instead of root; "" when root or the
 * effective user owns it (writable by others: a chmod fixes that) or where owners are not read
 * (Windows). */
const char *cc_pf_untrusted_owner(void);
/* len bytes from the OS's random source (getrandom, BCryptGenRandom): temp names nobody can
 * guess. */
int cc_pf_random(void *buf, size_t len);

/* ---- environment / processes ---------------------------------------------------------------- */
const char *cc_pf_getenv(const char *name);
int cc_pf_isatty(int fd);
/* Columns of the terminal on fd; 0 when it is none or they are unknown. */
int cc_pf_term_cols(int fd);
/* On an interrupt (SIGINT / SIGTERM / SIGHUP, Ctrl-C / Ctrl-Break): when *pending is non-zero,
 * write a newline to stderr (ends a progress line), then die as the interrupt would. */
void cc_pf_interrupt_newline(volatile int *pending);
uint64_t cc_pf_now_ms(void); /* monotonic */
int64_t cc_pf_time(void);    /* wall clock, seconds since the epoch */
char *cc_pf_home_dir(void);
int cc_pf_is_root(void); /* uid 0 / elevated */
/* The effective user's home and name from the passwd database, never from $HOME / $USER (which
 * `sudo -E` keeps from the caller); NULL when unknown. Windows: the profile dir, %USERNAME%. */
char *cc_pf_passwd_home(void);
char *cc_pf_passwd_name(void);
/* The owner of path (links followed): its uid and user name (*name NULL when the uid has none).
 * Windows: -1 with CUDNNCTL_E_UNSUPPORTED. */
int cc_pf_owner(const char *path, uint32_t *uid, char **name);

/* Run argv[0] (absolute, or looked up on PATH), capture stdout (and stderr when merge_stderr),
 * stop it (as cc_pf_cancel does) after timeout_ms. env: NULL = inherit, else a NULL-terminated
 * "K=V" list. *status = exit code, or -1 when stopped by the timeout, -2 when killed by a
 * signal. */
int cc_pf_run(const char *const *argv, const char *const *env, const char *stdin_data,
              unsigned timeout_ms, int merge_stderr, char **out, size_t *out_len, int *status);
/* cc_pf_run in two halves, for a child whose slow start-up (a login shell's start-up files) may
 * overlap the caller's work while what it does last waits for its input: cc_pf_start spawns it
 * now (the same trust rule, session and output capture; its input a pipe that stays open),
 * cc_pf_finish writes stdin_data, closes the pipe, reads the output until EOF, the line end_line
 * (NULL: none) or timeout_ms (from now) and reaps it; cc_pf_cancel stops its session and reaps
 * it. Either frees the child. A child that is stopped (a timeout, a cancel) gets SIGHUP and
 * SIGTERM, and SIGKILL only after a grace period: a start-up script's EXIT trap releases what
 * it holds. Flags: CC_PF_CHILD_MERGE_STDERR; CC_PF_CHILD_FD34: the input on fd 3 and the output
 * on fd 4, /dev/null on 0-2 (a login shell's start-up files neither read the input nor write
 * into the output); CC_PF_CHILD_BACKGROUND: the child and what it starts run 10 nice levels
 * below the caller (its session's scheduler group too, where the kernel groups sessions), so a
 * check started beside the work takes only the CPU the work leaves. Windows: start keeps the
 * arguments and finish runs it then (cc_pf_run). */
#define CC_PF_CHILD_MERGE_STDERR 1u
#define CC_PF_CHILD_FD34 2u
#define CC_PF_CHILD_BACKGROUND 4u
typedef struct cc_pf_child cc_pf_child;
cc_pf_child *cc_pf_start(const char *const *argv, const char *const *env, unsigned flags);
int cc_pf_finish(cc_pf_child *c, const char *stdin_data, unsigned timeout_ms,
                 const char *end_line, char **out, size_t *out_len, int *status);
void cc_pf_cancel(cc_pf_child *c);

/* ---- dynamic loading ------------------------------------------------------------------------ */
/* By absolute path, or plain SONAME via the loader. As root a path (one with a '/') that fails
 * cc_pf_trust_check(CC_PF_TRUST_OBJECT) is not loaded: NULL, and cc_pf_dlerror() says why. */
void *cc_pf_dlopen(const char *path);
void *cc_pf_dlsym(void *handle, const char *name);
void cc_pf_dlclose(void *handle);
const char *cc_pf_dlerror(void);
/* Files of loaded modules whose base name starts with prefix; a NULL-terminated malloc'd list. */
char **cc_pf_loaded_modules(const char *prefix);

/* ---- hard links, process ids, files held open by other processes ---------------------------- */
/* Hard link newpath to existing (same filesystem); -1 where unsupported (callers copy then). */
int cc_pf_link(const char *existing, const char *newpath);
/* Id of the running process: the holder of the state lock, unique temporary names. */
long cc_pf_getpid(void);
/* 1 when a process with this id exists (best effort; 1 when unknown). */
int cc_pf_pid_alive(long pid);
/* Files in use (Windows: a loaded DLL cannot be replaced or deleted, only renamed). Schedule the
 * deletion of @p path at the next reboot (MoveFileExW DELAY_UNTIL_REBOOT; needs elevation);
 * CUDNNCTL_E_UNSUPPORTED on Linux. */
int cc_pf_delete_on_reboot(const char *path);
/* The processes holding @p path, each "name (pid N)": the Restart Manager where it answers, else
 * the processes that have it loaded as a module. A NULL-terminated malloc'd list (empty when none
 * is known; always empty on Linux); NULL when out of memory. */
char **cc_pf_file_users(const char *path);
/* ---- whole-file copies (the unpacked store, src/lib/store) ------------------------------ */
#define CC_PF_COPY_REFLINK 1 /* the copy shares the source's blocks (FICLONE) */
#define CC_PF_COPY_KERNEL 2  /* copied inside the kernel (copy_file_range) */
/* Copy the regular file open as src (size bytes from offset 0) into dst, an empty file open for
 * writing: a reflink (FICLONE) when reflink is set and the filesystem can, else copy_file_range;
 * *how says which. -1 with CUDNNCTL_E_UNSUPPORTED when neither applies (another filesystem pair,
 * Windows): the caller copies with read/write then. */
int cc_pf_copy_fd(cc_pf_fd src, cc_pf_fd dst, uint64_t size, int reflink, int *how);
/* An open file's permission bits and modification time (seconds since the epoch + ns). Windows: the
 * time only (the read-only attribute is cc_pf_chmod's). */
int cc_pf_fset_mode_time(cc_pf_fd fd, uint32_t mode, int64_t mtime, uint32_t mtime_ns);
/* Set path's modification time to now (a store entry's last use); a final link not followed. */
int cc_pf_touch(const char *path);
/* ---- threads, mutexes, condition variables, atomic counters --------------------------------- */
/* Opaque, heap-allocated objects (pthreads on Linux; SRWLOCK / CONDITION_VARIABLE / threads on
 * Windows). Creation returns NULL on failure; lock/unlock/signal cannot fail. */
typedef struct cc_pf_thread cc_pf_thread;
typedef struct cc_pf_mutex cc_pf_mutex;
typedef struct cc_pf_cond cc_pf_cond;

/* Start fn(arg) in a new thread; 0 on success. */
int cc_pf_thread_start(cc_pf_thread **out, void (*fn)(void *), void *arg);
/* Wait for the thread to end and free it. */
void cc_pf_thread_join(cc_pf_thread *t);
cc_pf_mutex *cc_pf_mutex_new(void);
void cc_pf_mutex_free(cc_pf_mutex *m);
void cc_pf_mutex_lock(cc_pf_mutex *m);
void cc_pf_mutex_unlock(cc_pf_mutex *m);
cc_pf_cond *cc_pf_cond_new(void);
void cc_pf_cond_free(cc_pf_cond *c);
/* Wait on c with m held; timeout_ms 0 = no timeout. Returns 1 on timeout, else 0 (which may be
 * spurious: callers re-check their predicate). */
int cc_pf_cond_wait(cc_pf_cond *c, cc_pf_mutex *m, unsigned timeout_ms);
void cc_pf_cond_signal(cc_pf_cond *c);
void cc_pf_cond_broadcast(cc_pf_cond *c);
/* The process-wide lock around code that reads the umask by changing it: libarchive's
 * archive_write_disk_new and archive_write_header (of a disk writer) do umask(0) then put the
 * old value back. Two threads doing that at once can each read the other's 0: one then skips
 * the chmod a file needs (a 0644 file left at its umasked 0600), or puts 0 back for good (every
 * later file made without a umask). Static: nothing to create, cannot fail. */
void cc_pf_umask_lock(void);
void cc_pf_umask_unlock(void);
/* Atomically add 1 to *p and return the new value (sys_ops call counting from two threads). */
unsigned long cc_pf_atomic_inc(volatile unsigned long *p);
/* Processors this process may run on (sched_getaffinity; GetActiveProcessorCount), >= 1. */
unsigned cc_pf_ncpu(void);

/* ---- loading flags, the modules a process mapped, crash notes, the path-list separator ------ */
#define CC_PF_DL_GLOBAL 0x1 /* symbols visible to later loads (RTLD_GLOBAL) */
#define CC_PF_DL_LAZY 0x2   /* bind functions at first call (RTLD_LAZY): cheap preloads */
void *cc_pf_dlopen_ex(const char *path, unsigned flags);
/* Like cc_pf_loaded_modules, but each name as the loader mapped it (dlpi_name / the module's
 * path as loaded), links NOT resolved: the directory the loader searched is what matters. */
char **cc_pf_loaded_module_paths(const char *prefix);
/* Make a crash (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT; Windows: an unhandled exception) write
 * before + the signal's name ("SIGSEGV") + after to standard output before the process dies the
 * same way. Lets a parent name the crash of a child that ran vendor code. */
void cc_pf_crash_notify(const char *before, const char *after);
char cc_pf_path_list_sep(void); /* ':' (PATH, LD_LIBRARY_PATH) or ';' */

/* ---- machine name and kernel release -------------------------------------------------------- */
char *cc_pf_hostname(void);       /* this machine's name (gethostname / GetComputerNameExW) */
char *cc_pf_kernel_release(void); /* "6.1.0-27-amd64" (uname -r); NULL where there is none */

/* ---- this machine's dynamic loader and CPU ($PLATFORM, glibc-hwcaps) ------------------------ */
/* What `LDSO --list-diagnostics` prints (glibc >= 2.34; LDSO is the ABI's loader path,
 * /lib64/ld-linux-x86-64.so.2 or /lib/ld-linux-aarch64.so.1; the environment is inherited). Run
 * at the first call, kept for the life of the process (thread-safe). NULL when there is no such
 * loader or it refuses the option (glibc < 2.34, musl), and on Windows. */
const char *cc_pf_ldso_diagnostics(void);
/* The C library's version ("2.36", gnu_get_libc_version); NULL when it is not glibc. Static. */
const char *cc_pf_libc_version(void);
/* x86 CPU features as glibc's ld.so counts them usable (sysdeps/x86/cpu-features.c,
 * update_active): the cpuid bit; for AVX, AVX2, FMA, F16C also XMM+YMM state enabled by the OS
 * (OSXSAVE, XCR0); for AVX-512 also opmask and ZMM state, and AVX512F. */
#define CC_PF_CPU_SSE3 (1u << 0)
#define CC_PF_CPU_SSSE3 (1u << 1)
#define CC_PF_CPU_SSE4_1 (1u << 2)
#define CC_PF_CPU_SSE4_2 (1u << 3)
#define CC_PF_CPU_POPCNT (1u << 4)
#define CC_PF_CPU_CMPXCHG16B (1u << 5)
#define CC_PF_CPU_LAHF64 (1u << 6)
#define CC_PF_CPU_MOVBE (1u << 7)
#define CC_PF_CPU_LZCNT (1u << 8)
#define CC_PF_CPU_BMI1 (1u << 9)
#define CC_PF_CPU_BMI2 (1u << 10)
#define CC_PF_CPU_AVX (1u << 11)
#define CC_PF_CPU_AVX2 (1u << 12)
#define CC_PF_CPU_FMA (1u << 13)
#define CC_PF_CPU_F16C (1u << 14)
#define CC_PF_CPU_AVX512F (1u << 15)
#define CC_PF_CPU_AVX512CD (1u << 16)
#define CC_PF_CPU_AVX512ER (1u << 17)
#define CC_PF_CPU_AVX512PF (1u << 18)
#define CC_PF_CPU_AVX512BW (1u << 19)
#define CC_PF_CPU_AVX512DQ (1u << 20)
#define CC_PF_CPU_AVX512VL (1u << 21)
typedef struct {
    char vendor[13];  /* cpuid leaf 0: "GenuineIntel", "AuthenticAMD", ... */
    uint32_t usable;  /* CC_PF_CPU_* */
} cc_pf_cpu;
/* 0 and *cpu filled; -1 where there is no cpuid (not x86; the Windows build). */
int cc_pf_cpu_x86(cc_pf_cpu *cpu);

/* ---- default locations ---------------------------------------------------------------------- */
/* /var/cache/cudnnctl for root, else $XDG_CACHE_HOME/cudnnctl; %LOCALAPPDATA%\cudnnctl\cache */
char *cc_pf_default_cache_dir(void);
char *cc_pf_default_state_dir(void); /* /var/lib/cudnnctl for root, else $XDG_STATE_HOME/cudnnctl */

/* ---- UTF-8 arguments, this process's environment, sleeping ---------------------------------- */
/* The command-line arguments as UTF-8: Windows converts GetCommandLineW() (the char argv of main is
 * in the ANSI code page) and switches the console to UTF-8 output; Linux returns argv. Call first
 * in main(); the vector lives until exit. */
char **cc_pf_args_utf8(int argc, char **argv);
/* Set (value != NULL) or remove (value == NULL) a variable of this process; children inherit it. */
int cc_pf_setenv(const char *name, const char *value);
/* Sleep at least ms milliseconds. */
void cc_pf_sleep_ms(unsigned ms);

/* ---- the Windows registry, persistent environment (Linux: CUDNNCTL_E_UNSUPPORTED) ----------- */
/* Keys are written "HKLM\\SOFTWARE\\..." or "HKCU\\Environment" (HKEY_LOCAL_MACHINE,
 * HKEY_CURRENT_USER, HKU, HKCR spelled out or short); the 64-bit registry view is always used. */
#define CC_PF_REG_NONE 0      /* the key or value is absent */
#define CC_PF_REG_SZ 1        /* REG_SZ */
#define CC_PF_REG_EXPAND_SZ 2 /* REG_EXPAND_SZ: holds %VAR% references, kept unexpanded */
#define CC_PF_REG_DWORD 3     /* REG_DWORD, as decimal text */
#define CC_PF_REG_OTHER 4     /* any other type: *value is NULL */
#define CC_PF_ENV_KEY_USER "HKCU\\Environment"
#define CC_PF_ENV_KEY_SYSTEM                                                                       \
    "HKLM\\SYSTEM\\CurrentControlSet\\Control\\Session Manager\\Environment"
/* Read a value without expanding it. Absent key or value: 0, *value NULL, *type CC_PF_REG_NONE. */
int cc_pf_reg_get(const char *key, const char *name, char **value, int *type);
/* Write a value of type SZ, EXPAND_SZ or DWORD (value = decimal text), creating the key. */
int cc_pf_reg_set(const char *key, const char *name, const char *value, int type);
/* Delete a value; an absent key or value is success. */
int cc_pf_reg_delete(const char *key, const char *name);
/* Names of the subkeys: a NULL-terminated malloc'd list (empty when the key is absent); NULL on
 * error. */
char **cc_pf_reg_subkeys(const char *key);
/* Tell running programs (Explorer, new shells) that the persistent environment changed:
 * WM_SETTINGCHANGE "Environment" to all top-level windows, 5 s timeout per window. */
int cc_pf_env_broadcast(void);
/* Expand %VAR% references the way Windows does (ExpandEnvironmentStringsW); malloc'd. */
char *cc_pf_expand_env(const char *s);

#ifdef __cplusplus
}
#endif
#endif
