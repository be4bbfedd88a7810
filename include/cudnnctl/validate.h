/**
 * @file validate.h
 * @brief (filled in by the validate work) Included by cudnnctl.h; do not include directly.
 */
#ifndef CUDNNCTL_VALIDATE_H
#define CUDNNCTL_VALIDATE_H

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
}
#endif
#endif
