/* SPDX-License-Identifier: BSD-3-Clause */
/* Classic pcap reader/writer for tests; see pcap.h. */
#include "pcap.h"

#include <stdlib.h>
#include <string.h>

#define MAGIC_USEC 0xA1B2C3D4u
#define MAGIC_NSEC 0xA1B23C4Du
#define FILE_HDR_LEN 24
#define REC_HDR_LEN 16
#define MAX_CAPLEN (256u * 1024u)

static uint32_t rd32(const struct pcap_reader *r, const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	if (r->swapped)
		v = __builtin_bswap32(v);
	return v;
}

static int parse_header(struct pcap_reader *r)
{
	uint32_t magic;

	if (r->size < FILE_HDR_LEN) {
		snprintf(r->err, sizeof(r->err), "file shorter than a pcap header");
		return -1;
	}
	memcpy(&magic, r->data, 4);
	if (magic == MAGIC_USEC || magic == MAGIC_NSEC) {
		r->swapped = 0;
	} else if (__builtin_bswap32(magic) == MAGIC_USEC ||
		   __builtin_bswap32(magic) == MAGIC_NSEC) {
		r->swapped = 1;
		magic = __builtin_bswap32(magic);
	} else {
		snprintf(r->err, sizeof(r->err),
			 "not a classic pcap file (magic 0x%08x)", magic);
		return -1;
	}
	r->nsec = magic == MAGIC_NSEC;
	r->snaplen = rd32(r, r->data + 16);
	r->linktype = rd32(r, r->data + 20) & 0x0FFFFFFF;	/* low 28 bits */
	if (r->linktype != PCAP_LINKTYPE_ETHERNET) {
		snprintf(r->err, sizeof(r->err), "link type %u, not Ethernet",
			 r->linktype);
		return -1;
	}
	r->off = FILE_HDR_LEN;
	return 0;
}

int pcap_open_mem(struct pcap_reader *r, const void *buf, size_t len)
{
	memset(r, 0, sizeof(*r));
	r->data = malloc(len ? len : 1);
	if (!r->data) {
		snprintf(r->err, sizeof(r->err), "out of memory");
		return -1;
	}
	memcpy(r->data, buf, len);
	r->size = len;
	if (parse_header(r)) {
		free(r->data);
		r->data = NULL;
		return -1;
	}
	return 0;
}

int pcap_open_file(struct pcap_reader *r, const char *path)
{
	FILE *f = fopen(path, "rb");
	long sz;
	int rc = -1;
	uint8_t *buf = NULL;

	memset(r, 0, sizeof(*r));
	if (!f) {
		snprintf(r->err, sizeof(r->err), "cannot open %s", path);
		return -1;
	}
	if (fseek(f, 0, SEEK_END) == 0 && (sz = ftell(f)) >= 0 &&
	    fseek(f, 0, SEEK_SET) == 0) {
		buf = malloc((size_t)sz + 1);
		if (buf && fread(buf, 1, (size_t)sz, f) == (size_t)sz)
			rc = pcap_open_mem(r, buf, (size_t)sz);
		else
			snprintf(r->err, sizeof(r->err), "cannot read %s", path);
	} else {
		snprintf(r->err, sizeof(r->err), "cannot size %s", path);
	}
	free(buf);
	fclose(f);
	return rc;
}

int pcap_next(struct pcap_reader *r, struct pcap_rec *rec)
{
	const uint8_t *h;
	uint32_t sec, frac;

	if (r->off == r->size)
		return 0;
	if (r->size - r->off < REC_HDR_LEN) {
		snprintf(r->err, sizeof(r->err), "truncated record header at %zu",
			 r->off);
		return -1;
	}
	h = r->data + r->off;
	sec = rd32(r, h);
	frac = rd32(r, h + 4);
	rec->caplen = rd32(r, h + 8);
	rec->origlen = rd32(r, h + 12);
	if (rec->caplen > MAX_CAPLEN ||
	    rec->caplen > r->size - r->off - REC_HDR_LEN) {
		snprintf(r->err, sizeof(r->err), "bad record length %u at %zu",
			 rec->caplen, r->off);
		return -1;
	}
	rec->ts_nsec = (uint64_t)sec * 1000000000u +
		       (r->nsec ? frac : (uint64_t)frac * 1000u);
	rec->data = h + REC_HDR_LEN;
	r->off += REC_HDR_LEN + rec->caplen;
	return 1;
}

void pcap_close(struct pcap_reader *r)
{
	free(r->data);
	r->data = NULL;
}

FILE *pcap_create(const char *path)
{
	/* magic, version 2.4, thiszone 0, sigfigs 0, snaplen, link type */
	uint8_t hdr[FILE_HDR_LEN];
	uint32_t magic = MAGIC_USEC, zero = 0, snaplen = 65535;
	uint32_t link = PCAP_LINKTYPE_ETHERNET;
	uint16_t major = 2, minor = 4;
	FILE *f;

	memcpy(hdr, &magic, 4);
	memcpy(hdr + 4, &major, 2);
	memcpy(hdr + 6, &minor, 2);
	memcpy(hdr + 8, &zero, 4);
	memcpy(hdr + 12, &zero, 4);
	memcpy(hdr + 16, &snaplen, 4);
	memcpy(hdr + 20, &link, 4);
	f = fopen(path, "wb");
	if (!f)
		return NULL;
	if (fwrite(hdr, sizeof(hdr), 1, f) != 1) {
		fclose(f);
		return NULL;
	}
	return f;
}

int pcap_write(FILE *f, const void *frame, uint32_t len, uint64_t ts_nsec)
{
	uint32_t rec[4];

	rec[0] = (uint32_t)(ts_nsec / 1000000000u);
	rec[1] = (uint32_t)(ts_nsec % 1000000000u / 1000u);
	rec[2] = len;
	rec[3] = len;
	if (fwrite(rec, sizeof(rec), 1, f) != 1 ||
	    fwrite(frame, 1, len, f) != len)
		return -1;
	return 0;
}
