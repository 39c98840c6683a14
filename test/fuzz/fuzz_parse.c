/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target: wire_parse() on any bytes.
 *
 * Input: one byte of options, then the frame.  Options bit 0 and 1 are
 * wire_parse()'s flags (skip the ICRC, skip the IPv4 checksum), so that
 * mutated frames get past those checks to the ones behind them; bit 2
 * makes the frame consistent again before parsing (wire_reseal(): IP and
 * UDP lengths those of the frame, checksum, ICRC), so that a frame cut
 * or lengthened reaches the transport's length checks with every check
 * on.
 *
 * Checked: the parser reads nothing outside the frame (an exact-size heap
 * copy, for ASan); a frame it accepts is described consistently (offsets
 * in order and inside the frame, every extension header of the opcode
 * present and no other, payload + pad + ICRC ending at the datagram's
 * end); a frame accepted with every check on is accepted the same way
 * with the ICRC and checksum checks off, and its ICRC is right.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "wire.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

static void check_consistent(const struct wire_pkt *p, size_t len)
{
	FZ_CHECK(p->info != NULL);
	FZ_CHECK(p->info == wire_opcode_info(p->opcode));
	FZ_CHECK(p->frame_len <= len);
	FZ_CHECK(p->ip_off == 14 || p->ip_off == 18);
	FZ_CHECK(p->has_vlan == (p->ip_off == 18));
	FZ_CHECK(p->udp_off == p->ip_off + (p->ip_ver == 4 ? 20 : 40));
	FZ_CHECK(p->bth_off == p->udp_off + 8);
	FZ_CHECK(p->bth_off + p->info->hdr_len == p->payload_off);
	FZ_CHECK((uint64_t)p->payload_off + p->payload_len + p->pad +
		 WIRE_ICRC_LEN == p->frame_len);
	FZ_CHECK((p->payload_len + p->pad) % 4 == 0);
	FZ_CHECK(p->payload_len == 0 || (p->info->flags & WIRE_OPF_PAYLOAD));
	for (int h = 0; h < WIRE_HDR_COUNT; h++) {
		FZ_CHECK(!p->hdr_off[h] == !(p->info->hdrs & (1u << h)));
		FZ_CHECK(p->hdr_off[h] == 0 ||
			 (p->hdr_off[h] > p->bth_off &&
			  p->hdr_off[h] < p->payload_off));
	}
	FZ_CHECK(p->ip_ver == 4 || p->ip_ver == 6);
	FZ_CHECK(p->ip_ver == 6 || p->flow_label == 0);
	FZ_CHECK(p->has_vlan || p->vlan_tci == 0);
	FZ_CHECK(p->dqpn <= 0xFFFFFF && p->psn <= 0xFFFFFF);
}

/* Parse an exact-size heap copy into a result full of junk. */
static int parse_copy(const uint8_t *f, size_t len, unsigned int flags,
		      struct wire_pkt *p)
{
	uint8_t *c = malloc(len ? len : 1);
	int rc;

	FZ_CHECK(c != NULL);
	memcpy(c, f, len);
	memset(p, 0xA5, sizeof(*p));
	rc = wire_parse(c, len, flags, p);
	free(c);
	return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t f[FUZZ_MAX_INPUT];
	struct wire_pkt p, q;
	unsigned int opt, flags;
	size_t len;
	int rc;

	if (size < 1)
		return 0;
	opt = data[0];
	flags = opt & (WIRE_PARSE_NO_ICRC | WIRE_PARSE_NO_IP_CSUM);
	len = size - 1 < sizeof(f) ? size - 1 : sizeof(f);
	memcpy(f, data + 1, len);
	if (opt & 4)
		(void)wire_reseal(f, len);      /* (not IP, or cut: left) */

	rc = parse_copy(f, len, flags, &p);
	FZ_CHECK(rc <= 0 && rc > -WIRE_ERR_COUNT);
	FZ_CHECK(strcmp(wire_err_str(rc), "unknown error") != 0);
	if (rc != 0)
		return 0;
	check_consistent(&p, len);
	if (flags != 0)
		return 0;
	FZ_CHECK(wire_icrc_check(f + p.ip_off, p.frame_len - WIRE_ICRC_LEN -
				 p.ip_off) == 0);
	rc = parse_copy(f, len, WIRE_PARSE_NO_ICRC | WIRE_PARSE_NO_IP_CSUM, &q);
	FZ_CHECK(rc == 0);
	FZ_CHECK(memcmp(&p, &q, sizeof(p)) == 0);
	return 0;
}

/* Seeds: one valid frame of each opcode group, IPv4, IPv6 and tagged. */
size_t fuzz_seed(unsigned int i, uint8_t *buf, size_t cap)
{
	static const uint8_t ops[] = {
		WIRE_OP_RC_SEND_ONLY, WIRE_OP_RC_WRITE_FIRST,
		WIRE_OP_RC_READ_REQUEST, WIRE_OP_RC_ACKNOWLEDGE,
		WIRE_OP_RC_ATOMIC_ACKNOWLEDGE, WIRE_OP_RC_COMPARE_SWAP,
		WIRE_OP_UD_SEND_ONLY_IMM, WIRE_OP_UC_SEND_LAST_IMM,
		WIRE_OP_RC_SEND_ONLY_INV, WIRE_OP_RC_READ_RESPONSE_MIDDLE,
	};
	const unsigned int n = sizeof(ops);
	struct wire_build b;
	unsigned int shape = i / n;
	uint32_t plen;
	int hl, len;

	if (shape > 2 || cap < 2048)
		return 0;
	wire_build_init(&b);
	b.dmac[0] = 0x02;
	b.smac[0] = 0x02;
	b.smac[5] = 1;
	b.ipv6 = shape == 1;
	b.vlan = shape == 2;
	b.vlan_tci = 7;
	b.sgid[10] = b.sgid[11] = b.dgid[10] = b.dgid[11] = 0xFF;
	if (b.ipv6)
		b.sgid[0] = b.dgid[0] = 0xFD;
	b.sgid[15] = 1;
	b.dgid[15] = 2;
	b.sport = wire_udp_sport(0x11);
	b.opcode = ops[i % n];
	b.dqpn = 0x11;
	b.psn = 100 + i;
	b.dma_len = 64;
	b.rkey = 0x1234;
	b.va = 0x1000;
	plen = (wire_opcode_info(b.opcode)->flags & WIRE_OPF_PAYLOAD) ?
	       (i * 7) % 70 : 0;
	b.payload_len = plen;
	buf[0] = (uint8_t)(i % 8);      /* every option, with every shape */
	hl = wire_build_hdrs(buf + 1, cap - 1, &b);
	FZ_CHECK(hl > 0);
	memset(buf + 1 + hl, (int)i, plen);
	len = wire_build_finish(buf + 1, cap - 1, (size_t)hl + plen);
	FZ_CHECK(len > 0);
	return (size_t)len + 1;
}
