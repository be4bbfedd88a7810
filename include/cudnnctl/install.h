/**
 * @file install.h
 * @brief (filled in by the install work) Included by cudnnctl.h; do not include directly.
 */
#ifndef CUDNNCTL_INSTALL_H
#define CUDNNCTL_INSTALL_H

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
}
#endif
#endif
