/* shlib.c: the only source of libcudnnctl.so itself; its code comes whole from the static archive
 * (packaging/install.cmake links it with --whole-archive), and only CUDNNCTL_API symbols leave it. */
#include "cudnnctl/cudnnctl.h"

typedef int cudnnctl_shlib_unit; /* ISO C wants a translation unit to declare something */
