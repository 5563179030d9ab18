/* SPDX-License-Identifier: BSD-2-Clause */
/* src/journal/format.c - the journal's file and record headers
 * (jinternal.h has the layout), little-endian whatever the CPU. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "jinternal.h"

static void put32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static void put64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static uint32_t get32(const unsigned char *p)
{
	uint32_t v = 0;
	for (int i = 3; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static uint64_t get64(const unsigned char *p)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

void jf_encode(unsigned char out[JF_HEADER_LEN], const struct jf_header *h)
{
	memset(out, 0, JF_HEADER_LEN);
	put32(out, JF_MAGIC);
	put32(out + 8, JF_VERSION);
	put32(out + 12, h->sector_size);
	put64(out + 16, h->file_size);
	put64(out + 24, h->file_id);
	put64(out + 32, h->first_seq);
	put64(out + 40, h->last_id);
	put32(out + 4, conq_crc32c(0, out, JF_HEADER_LEN));
}

int jf_decode(const unsigned char in[JF_HEADER_LEN], struct jf_header *h)
{
	unsigned char tmp[JF_HEADER_LEN];
	if (get32(in) != JF_MAGIC || get32(in + 8) != JF_VERSION)
		return 0;
	memcpy(tmp, in, JF_HEADER_LEN);
	memset(tmp + 4, 0, 4);
	if (conq_crc32c(0, tmp, JF_HEADER_LEN) != get32(in + 4))
		return 0;
	h->sector_size = get32(in + 12);
	h->file_size = get64(in + 16);
	h->file_id = get64(in + 24);
	h->first_seq = get64(in + 32);
	h->last_id = get64(in + 40);
	/* A power of two the journal could have written. */
	if (h->sector_size < JMIN_SECTOR || h->sector_size > 65536u ||
	    (h->sector_size & (h->sector_size - 1)) != 0)
		return 0;
	return 1;
}

static uint32_t jr_crc(const unsigned char *hdr, const void *payload,
		       uint32_t len)
{
	uint32_t c = conq_crc32c(0, hdr, 4);
	c = conq_crc32c(c, hdr + 8, JR_HEADER_LEN - 8);
	return conq_crc32c(c, payload, len);
}

void jr_encode(unsigned char *out, const struct jr_header *h,
	       const void *payload)
{
	put32(out, JR_MAGIC);
	put32(out + 8, h->len);
	put32(out + 12, h->type);
	put64(out + 16, h->seq);
	put64(out + 24, h->file_id);
	put64(out + 32, h->durable);
	put32(out + 4, jr_crc(out, payload, h->len));
}

int jr_peek(const unsigned char *in, uint64_t room, struct jr_header *h)
{
	if (get32(in) != JR_MAGIC)
		return 0;
	h->len = get32(in + 8);
	h->type = get32(in + 12);
	h->seq = get64(in + 16);
	h->file_id = get64(in + 24);
	h->durable = get64(in + 32);
	return room >= JR_HEADER_LEN && h->len <= JR_MAX_LEN &&
	       h->len <= room - JR_HEADER_LEN;
}

int jr_check(const unsigned char *in, const struct jr_header *h)
{
	return jr_crc(in, in + JR_HEADER_LEN, h->len) == get32(in + 4);
}

int j_name_index(const char *name, unsigned *index)
{
	unsigned v = 0;
	int n = 0;
	if (strncmp(name, "journal-", 8) != 0)
		return 0;
	for (name += 8; *name >= '0' && *name <= '9' && n < 9; name++, n++)
		v = v * 10 + (unsigned)(*name - '0');
	if (n != 6 || strcmp(name, ".cqj") != 0)
		return 0;
	*index = v;
	return 1;
}

int j_path(char *buf, const char *dir, const char *name)
{
	int n = snprintf(buf, JPATH_MAX, "%s/%s", dir, name);
	return n < 0 || n >= JPATH_MAX ? -ENAMETOOLONG : 0;
}
