/* SPDX-License-Identifier: BSD-2-Clause */
#include "conq/common.h"
#include "conq/version.h"

const char *conq_version(void)
{
	return CONQ_VERSION_STRING;
}

size_t conq__array_round_capacity(size_t capacity)
{
	if (capacity == 0 || capacity > CONQ_ARRAY_MAX_CAPACITY)
		return 0;
	size_t c = 1;
	while (c < capacity)
		c <<= 1;
	return c;
}
