/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tests/shm_child.c - the exec'ed child of tests/test_shm.c: open a region
 * in a fresh process, at an address other than the parent's, and write
 * through it.
 *
 * Usage: shm_child name|fd NAME-OR-FD PARENT-ADDR MAP-SIZE
 *
 * It first reserves MAP-SIZE bytes at the parent's address (a hint, so
 * the region cannot land there: either the dummy got that address or
 * something else already had it), opens the region expecting only its kind
 * (learning the geometry from the header), prints
 * "addr=0x... elem=N cap=N size=N", writes TS_CHILD_MARK, its pid and a line
 * into the object and the object's last byte, and exits 0; on failure it
 * prints conq_shm_last_error() to stderr and exits 2.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "shm_test.h"

int main(int argc, char **argv)
{
	if (argc != 5) {
		fprintf(stderr, "usage: shm_child name|fd NAME-OR-FD "
				"PARENT-ADDR MAP-SIZE\n");
		return 2;
	}
	uintptr_t parent = (uintptr_t)strtoull(argv[3], NULL, 0);
	size_t size = (size_t)strtoull(argv[4], NULL, 0);
	long page = sysconf(_SC_PAGESIZE);
	void *hint = (void *)(parent & ~(uintptr_t)(page - 1));
	void *dummy =
	    mmap(hint, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (dummy == MAP_FAILED) {
		perror("shm_child: mmap");
		return 2;
	}
	conq_shm_spec expect = {TS_KIND, 0, 0, 0, 0};
	conq_shm *shm;
	if (strcmp(argv[1], "fd") == 0)
		shm = conq_shm_open_fd(atoi(argv[2]), &expect, NULL);
	else
		shm = conq_shm_open(argv[2], &expect, NULL);
	if (shm == NULL) {
		fprintf(stderr, "shm_child: %s\n", conq_shm_last_error());
		return 2;
	}
	struct ts_obj *o = (struct ts_obj *)conq_shm_object(shm);
	const conq_shm_spec *sp = conq_shm_spec_of(shm);
	printf("addr=%p elem=%llu cap=%llu size=%llu\n", (void *)o,
	       (unsigned long long)sp->elem_size,
	       (unsigned long long)sp->capacity,
	       (unsigned long long)sp->object_size);
	fflush(stdout);
	if (o->init_mark != TS_INIT_MARK) {
		fprintf(stderr, "shm_child: init mark 0x%llx\n",
			(unsigned long long)o->init_mark);
		return 2;
	}
	o->child_pid = (int64_t)getpid();
	snprintf(o->text, sizeof o->text, "hello from exec'ed pid %d",
		 (int)getpid());
	((unsigned char *)o)[conq_shm_object_size(shm) - 1] = 0xa5;
	conq__store_release(&o->child_mark, TS_CHILD_MARK);
	if (conq_shm_close(shm) != 0 || munmap(dummy, size) != 0)
		return 2;
	return 0;
}
