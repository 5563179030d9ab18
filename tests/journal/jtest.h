/* SPDX-License-Identifier: BSD-2-Clause */
/* tests/journal/jtest.h - what the journal's tests share: a scratch
 * directory on the real file system, and a seeded generator. */
#ifndef CONQ_TESTS_JTEST_H
#define CONQ_TESTS_JTEST_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A fresh directory <$TMPDIR or /var/tmp>/<prefix>-XXXXXX (ctest points
 * TMPDIR at the build tree: a disk, where /tmp may be tmpfs); exits 2 when
 * it cannot be made. Free it with jt_remove_dir. */
static inline char *jt_make_dir(const char *prefix)
{
	const char *t = getenv("TMPDIR");
	char tmpl[4096];
	snprintf(tmpl, sizeof(tmpl), "%s/%s-XXXXXX", t && *t ? t : "/var/tmp",
		 prefix);
	char *d = mkdtemp(tmpl);
	if (!d) {
		perror("mkdtemp");
		exit(2);
	}
	return strdup(d);
}

/* rm -rf it, and free the name. */
static inline void jt_remove_dir(char *d)
{
	char cmd[4200];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", d);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", d);
	free(d);
}

/* SplitMix64: the next value of the sequence seeded by *s. */
static inline uint64_t jt_splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15u);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

#endif
