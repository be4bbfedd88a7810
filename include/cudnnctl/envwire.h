/**
 * @file envwire.h
 * @brief (filled in by the envwire work) Included by cudnnctl.h; do not include directly.
 */
#ifndef CUDNNCTL_ENVWIRE_H
#define CUDNNCTL_ENVWIRE_H

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
}
#endif
#endif
