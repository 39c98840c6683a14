/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A tiny classic-pcap reader and writer for the wire tests (not part of the
 * library).  Reads both byte orders and both the microsecond (0xA1B2C3D4)
 * and nanosecond (0xA1B23C4D) magics; link type must be Ethernet (1).
 */
#ifndef WIRE_TEST_PCAP_H
#define WIRE_TEST_PCAP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define PCAP_LINKTYPE_ETHERNET 1

struct pcap_reader {
	uint8_t *data;		/* the whole file */
	size_t size;
	size_t off;		/* next record */
	int swapped;		/* file byte order != host order */
	int nsec;		/* nanosecond timestamps */
	uint32_t snaplen;
	uint32_t linktype;
	char err[160];		/* why open/next failed */
};

struct pcap_rec {
	const uint8_t *data;	/* points into the reader's buffer */
	uint32_t caplen;
	uint32_t origlen;
	uint64_t ts_nsec;	/* timestamp in nanoseconds */
};

/* 0 on success, -1 with r->err set.  pcap_open_mem copies the buffer. */
int pcap_open_file(struct pcap_reader *r, const char *path);
int pcap_open_mem(struct pcap_reader *r, const void *buf, size_t len);
/* 1: a record, 0: clean end of file, -1: corrupt file (r->err set). */
int pcap_next(struct pcap_reader *r, struct pcap_rec *rec);
void pcap_close(struct pcap_reader *r);

/* Writer: host byte order, microsecond magic, Ethernet.  NULL / -1 on error. */
FILE *pcap_create(const char *path);
int pcap_write(FILE *f, const void *frame, uint32_t len, uint64_t ts_nsec);

#endif /* WIRE_TEST_PCAP_H */
