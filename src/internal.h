/* SPDX-License-Identifier: BSD-2-Clause */
/* src/internal.h - helpers for the compiled cold paths; not installed. */
#ifndef CONQ_SRC_INTERNAL_H
#define CONQ_SRC_INTERNAL_H

#include <stddef.h>

/* CONQ_PAD-aligned allocation of `size` bytes, zeroed; NULL + ENOMEM. */
void *conq__alloc_aligned(size_t size);
void conq__free_aligned(void *p);

#endif
