/* libnames.h: the file names of NVIDIA's libraries on this OS (keyed on cc_host_native_windows():
 * the loader of the running machine; the *_for variants take the OS of a host profile):
 * libcudnn.so.9 / cudnn64_9.dll, libcudart.so.12 / cudart64_12.dll (cudart64_110.dll for 11),
 * libcuda.so.1 / nvcuda.dll. Stems are given in their Linux form ("libcudnn_ops"). */
#ifndef CC_LIBNAMES_H
#define CC_LIBNAMES_H

/* A library file name, parsed (whatever the OS): its kind, stem and major. */
typedef enum {
    CC_LIB_NONE = 0,
    CC_LIB_SO_DEV,   /* libX.so */
    CC_LIB_SO_MAJOR, /* libX.so.M */
    CC_LIB_SO_FULL,  /* libX.so.M.m[.p...] */
    CC_LIB_STATIC,   /* libX_static.a */
    CC_LIB_STATIC_V, /* libX_static_vM.a */
    CC_LIB_DLL,      /* X64_M.dll, X64_MM0.dll (cudart64_110: 11), X64_MM0_N.dll (nvrtc) */
    CC_LIB_IMPLIB,   /* X.lib */
    CC_LIB_IMPLIB_V  /* X64_M.lib */
} cc_lib_kind;

typedef struct {
    cc_lib_kind kind;
    char stem[128]; /* "libcudnn_ops" / "cudnn_ops" */
    int major;      /* -1 when the name carries none */
    int parts;      /* numeric parts after ".so." (SO_MAJOR 1, SO_FULL 2 or more) */
} cc_libname;

/* The one parser of library file names: 1 when @p name is one of the kinds above (".dll" and
 * ".lib" compared case-insensitively), 0 else (@p out then says CC_LIB_NONE). */
int cc_lib_parse(const char *name, cc_libname *out);
/* The same, for cuDNN's own files only (stem starting with libcudnn / cudnn). */
int cc_lib_classify(const char *name, cc_libname *out); /* 1 = a cuDNN library name */

/* 1 when this OS names libraries the Windows way. */
int cc_ln_windows(void);
/* The major a file name carries for @p stem: "<stem>.so.N[.n]" (Linux) or "<s>64_N.dll" with
 * <s> = stem without "lib" (Windows; "cudart64_110.dll" -> 11, "nvrtc64_120_0.dll" -> 12),
 * compared case-insensitively there; -1 when the name is not that library. */
int cc_ln_major(const char *name, const char *stem);
/* The file name of @p stem for @p major (malloc'd): "libcudnn_ops.so.9" / "cudnn_ops64_9.dll". */
char *cc_ln_name(const char *stem, int major);
/* The same for the OS a host profile names (diagnose a Windows tree from Linux, host.h):
 * @p windows 1 for Windows names, 0 for Linux ones. */
char *cc_ln_name_for(int windows, const char *stem, int major);
int cc_ln_major_for(int windows, const char *name, const char *stem);
/* 1 when @p base is a file of @p stem itself, not of a longer name (libcublas vs libcublasLt). */
int cc_ln_is(const char *base, const char *stem);
/* The driver library, loaded by name: "libcuda.so.1" / "nvcuda.dll". */
const char *cc_ln_driver(void);
/* The prefix loaded module names of @p stem start with ("libcudnn" / "cudnn"). */
const char *cc_ln_module_prefix(const char *stem);

#endif
