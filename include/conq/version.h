/* SPDX-License-Identifier: BSD-2-Clause */
/* conq/version.h - compile-time and run-time version. CMake reads the three
 * numbers from this file, so it is the one place to bump them. */
#ifndef CONQ_VERSION_H
#define CONQ_VERSION_H

#define CONQ_VERSION_MAJOR 0
#define CONQ_VERSION_MINOR 1
#define CONQ_VERSION_PATCH 0
#define CONQ_VERSION_STRING "0.1.0"
/* MAJOR * 10000 + MINOR * 100 + PATCH, for #if comparisons. */
#define CONQ_VERSION_NUMBER                                                    \
	(CONQ_VERSION_MAJOR * 10000 + CONQ_VERSION_MINOR * 100 +               \
	 CONQ_VERSION_PATCH)

#ifdef __cplusplus
extern "C" {
#endif

/* The version of the library actually linked, "MAJOR.MINOR.PATCH"; compare
 * with CONQ_VERSION_STRING to catch a header/library mismatch. */
const char *conq_version(void);

#ifdef __cplusplus
}
#endif

#endif /* CONQ_VERSION_H */
