/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Parser tests: each error class from a crafted frame, then robustness:
 * random garbage, random frames with valid outer headers, random mutations
 * of valid frames.  Every input is an exact-size heap copy so that ASan
 * reports any read outside [frame, frame + len); on success the parsed
 * offsets/lengths must describe the frame consistently.
 */
#include "test_common.h"
#include "wire.h"

/* A valid frame of the given opcode/payload, IPv4 or IPv6. */
static size_t make_frame(uint8_t *buf, size_t cap, uint8_t op, uint32_t plen,
			 int v6)
{
	struct wire_build b;
	int hl, n;

	wire_build_init(&b);
	b.dmac[0] = 0x02;
	b.smac[0] = 0x02;
	b.smac[5] = 1;
	b.ipv6 = v6;
	b.sgid[10] = b.sgid[11] = b.dgid[10] = b.dgid[11] = 0xFF;
	if (v6)
		b.sgid[0] = b.dgid[0] = 0xFD;
	b.sgid[15] = 1;
	b.dgid[15] = 2;
	b.sport = wire_udp_sport(0x11);
	b.opcode = op;
	b.dqpn = 0x11;
	b.psn = 100;
	b.payload_len = plen;
	b.syndrome = 0x1F;
	hl = wire_build_hdrs(buf, cap, &b);
	REQUIRE(hl > 0);
	for (uint32_t i = 0; i < plen; i++)
		buf[hl + i] = (uint8_t)i;
	n = wire_build_finish(buf, cap, (size_t)hl + plen);
	REQUIRE(n > 0);
	return (size_t)n;
}

/* Recompute IPv4 checksum and ICRC after editing a frame (no VLAN). */
static void refix(uint8_t *f, size_t len)
{
	size_t ip = 14;

	if (f[12] == 0x08 && f[13] == 0x00 && f[ip] == 0x45)
		wire_put16(f + ip + 10, wire_ipv4_csum(f + ip));
	(void)wire_icrc_write(f + ip, len - ip - 4);
}

/* Parse an exact-size heap copy into a result full of junk (the parser
 * must set every field, not rely on a zeroed one). */
static int parse_copy(const uint8_t *f, size_t len, unsigned flags,
		      struct wire_pkt *p)
{
	uint8_t *c = malloc(len ? len : 1);
	int rc;

	memset(p, 0xA5, sizeof(*p));

	REQUIRE(c);
	memcpy(c, f, len);
	rc = wire_parse(c, len, flags, p);
	free(c);
	return rc;
}

static void check_consistent(const struct wire_pkt *p, size_t len)
{
	CHECK(p->info != NULL);
	CHECK(p->frame_len <= len);
	CHECK(p->ip_off < p->udp_off && p->udp_off < p->bth_off);
	CHECK(p->bth_off + p->info->hdr_len == p->payload_off);
	CHECK_EQ((uint64_t)p->payload_off + p->payload_len + p->pad + 4,
		 p->frame_len);
	CHECK((p->payload_len + p->pad) % 4 == 0);
	for (int h = 0; h < WIRE_HDR_COUNT; h++)
		CHECK(!p->hdr_off[h] == !(p->info->hdrs & (1u << h)));
	CHECK(p->ip_ver == 4 || p->ip_ver == 6);
	if (p->ip_ver == 4)
		CHECK_EQ(p->flow_label, 0);
	if (!p->has_vlan)
		CHECK_EQ(p->vlan_tci, 0);
}

#define EXPECT(f, len, flags, err)					\
	do {								\
		struct wire_pkt p_;					\
		int rc_ = parse_copy((f), (len), (flags), &p_);		\
		if (rc_ != (err))					\
			fprintf(stderr, "  got \"%s\", expected \"%s\"\n",	\
				wire_err_str(rc_), wire_err_str(err));	\
		CHECK_EQ(rc_, err);					\
	} while (0)

static void test_error_classes(void)
{
	uint8_t f[2048], g[2048];
	size_t n, m;
	struct wire_pkt p;

	CHECK_EQ(wire_parse(NULL, 10, 0, &p), WIRE_ERR_INVAL);
	n = make_frame(f, sizeof(f), WIRE_OP_RC_ACKNOWLEDGE, 0, 0);
	CHECK_EQ(n, 62);
	CHECK_EQ(wire_parse(f, n, 0, NULL), WIRE_ERR_INVAL);
	EXPECT(f, n, 0, 0);

	/* not IP: ARP, IPX, QinQ */
	memcpy(g, f, n);
	g[12] = 0x08; g[13] = 0x06;
	EXPECT(g, n, 0, WIRE_ERR_NOT_IP);
	g[12] = 0x88; g[13] = 0xA8;
	EXPECT(g, n, 0, WIRE_ERR_NOT_IP);
	EXPECT(g, 13, 0, WIRE_ERR_TRUNCATED);

	/* IPv4, not RoCE: ICMP, UDP to another port, a later fragment */
	memcpy(g, f, n);
	g[14 + 9] = 1;
	EXPECT(g, n, 0, WIRE_ERR_NOT_ROCE);
	memcpy(g, f, n);
	wire_put16(g + 34 + 2, 53);
	EXPECT(g, n, 0, WIRE_ERR_NOT_ROCE);
	memcpy(g, f, n);
	wire_put16(g + 14 + 6, 0x0010);	/* offset 128 bytes */
	EXPECT(g, n, 0, WIRE_ERR_NOT_ROCE);

	/* IPv4, RoCE, malformed */
	memcpy(g, f, n);
	wire_put16(g + 14 + 6, WIRE_IPV4_MF);	/* first fragment */
	refix(g, n);
	EXPECT(g, n, 0, WIRE_ERR_BAD_IP);
	memcpy(g, f, n);
	g[14] = 0x65;			/* version 6 in an IPv4 frame */
	EXPECT(g, n, 0, WIRE_ERR_BAD_IP);
	memcpy(g, f, n);
	g[14] = 0x44;			/* IHL 4 */
	EXPECT(g, n, 0, WIRE_ERR_BAD_IP);
	/* IHL 6: a 4-byte option before UDP 4791 */
	memcpy(g, f, 34);
	g[14] = 0x46;
	g[34] = g[35] = g[36] = g[37] = 1;	/* NOPs */
	memcpy(g + 38, f + 34, n - 34);
	wire_put16(g + 16, wire_get16(f + 16) + 4);
	EXPECT(g, n + 4, 0, WIRE_ERR_BAD_IP);
	memcpy(g, f, n);
	wire_put16(g + 16, 27);		/* total length < IP + UDP */
	refix(g, n);
	EXPECT(g, n, 0, WIRE_ERR_BAD_IP);
	memcpy(g, f, n);
	wire_put16(g + 16, (uint16_t)(n - 14 + 1));	/* longer than the frame */
	EXPECT(g, n, WIRE_PARSE_NO_IP_CSUM, WIRE_ERR_TRUNCATED);
	memcpy(g, f, n);
	g[14 + 10] ^= 1;
	EXPECT(g, n, 0, WIRE_ERR_BAD_IP_CSUM);
	EXPECT(g, n, WIRE_PARSE_NO_IP_CSUM, 0);

	/* UDP length */
	memcpy(g, f, n);
	wire_put16(g + 34 + 4, (uint16_t)(n - 34 - 4));
	EXPECT(g, n, 0, WIRE_ERR_BAD_UDP);
	wire_put16(g + 34 + 4, (uint16_t)(n - 34 + 4));
	EXPECT(g, n, 0, WIRE_ERR_BAD_UDP);

	/* BTH: TVer, opcode (with a correct ICRC: the semantic checks) */
	memcpy(g, f, n);
	g[42 + 1] |= 1;
	refix(g, n);
	EXPECT(g, n, 0, WIRE_ERR_BAD_VERSION);
	memcpy(g, f, n);
	g[42] = 0x15;
	refix(g, n);
	EXPECT(g, n, 0, WIRE_ERR_BAD_OPCODE);
	g[42] = 0xFF;
	refix(g, n);
	EXPECT(g, n, 0, WIRE_ERR_BAD_OPCODE);

	/* lengths */
	memcpy(g, f, n);		/* ACK + 4 payload bytes */
	memcpy(g + n + 4, f + n - 4, 4);
	memset(g + n - 4, 0, 4);
	wire_put16(g + 16, (uint16_t)(n + 4 - 14));
	wire_put16(g + 38, (uint16_t)(n + 4 - 34));
	refix(g, n + 4);
	EXPECT(g, n + 4, 0, WIRE_ERR_BAD_LENGTH);
	memcpy(g, f, n);		/* ACK with PadCnt 3 and no payload */
	g[43] |= 0x30;
	refix(g, n);
	EXPECT(g, n, 0, WIRE_ERR_BAD_LENGTH);
	/* SEND with 3 payload bytes, i.e. not padded to 4 */
	m = make_frame(g, sizeof(g), WIRE_OP_RC_SEND_ONLY, 4, 0);
	memmove(g + m - 5, g + m - 4, 4);	/* drop one payload byte */
	wire_put16(g + 16, (uint16_t)(m - 1 - 14));
	wire_put16(g + 38, (uint16_t)(m - 1 - 34));
	refix(g, m - 1);
	EXPECT(g, m - 1, 0, WIRE_ERR_BAD_LENGTH);
	/* SEND with PadCnt 3 but only 0 bytes of payload + pad */
	m = make_frame(g, sizeof(g), WIRE_OP_RC_SEND_ONLY, 0, 0);
	g[43] |= 0x30;
	refix(g, m);
	EXPECT(g, m, 0, WIRE_ERR_BAD_LENGTH);
	/* SEND with 4 bytes of payload + pad, PadCnt 3: payload 1 */
	m = make_frame(g, sizeof(g), WIRE_OP_RC_SEND_ONLY, 1, 0);
	EXPECT(g, m, 0, 0);
	CHECK_EQ(wire_parse(g, m, 0, &p), 0);
	CHECK_EQ(p.payload_len, 1);
	CHECK_EQ(p.pad, 3);
	/* an ACK cut after the BTH (no room for the AETH) */
	memcpy(g, f, 42 + 12);
	memcpy(g + 54, f + n - 4, 4);
	wire_put16(g + 16, 20 + 8 + 12 + 4);
	wire_put16(g + 38, 8 + 12 + 4);
	refix(g, 58);
	EXPECT(g, 58, 0, WIRE_ERR_BAD_LENGTH);
	/* UDP payload shorter than BTH + ICRC: a BTH and no ICRC, ... */
	memcpy(g, f, 54);
	wire_put16(g + 16, 20 + 8 + 12);
	wire_put16(g + 38, 8 + 12);
	refix(g, 58);	/* (writes its ICRC beyond the 54 bytes parsed) */
	EXPECT(g, 54, 0, WIRE_ERR_BAD_LENGTH);
	/* ... or a partial BTH */
	memcpy(g, f, 50);
	wire_put16(g + 16, 20 + 8 + 8);
	wire_put16(g + 38, 8 + 8);
	refix(g, 50);
	EXPECT(g, 50, 0, WIRE_ERR_BAD_LENGTH);

	/* ICRC */
	memcpy(g, f, n);
	g[n - 1] ^= 0x40;
	EXPECT(g, n, 0, WIRE_ERR_BAD_ICRC);
	EXPECT(g, n, WIRE_PARSE_NO_ICRC, 0);

	/* IPv6 */
	n = make_frame(f, sizeof(f), WIRE_OP_RC_SEND_ONLY, 33, 1);
	EXPECT(f, n, 0, 0);
	CHECK_EQ(wire_parse(f, n, 0, &p), 0);
	CHECK_EQ(p.ip_ver, 6);
	CHECK_EQ(p.payload_len, 33);
	CHECK_EQ(p.ttl, 64);
	memcpy(g, f, n);
	g[14 + 6] = 6;			/* next header TCP */
	EXPECT(g, n, 0, WIRE_ERR_NOT_ROCE);
	g[14 + 6] = 0;			/* hop-by-hop options */
	EXPECT(g, n, 0, WIRE_ERR_NOT_ROCE);
	memcpy(g, f, n);
	wire_put16(g + 54 + 2, 4792);
	EXPECT(g, n, 0, WIRE_ERR_NOT_ROCE);
	memcpy(g, f, n);
	g[14] = 0x40;			/* version 4 in an IPv6 frame */
	EXPECT(g, n, 0, WIRE_ERR_BAD_IP);
	memcpy(g, f, n);
	wire_put16(g + 14 + 4, 7);
	EXPECT(g, n, 0, WIRE_ERR_BAD_IP);
	wire_put16(g + 14 + 4, 0);	/* jumbogram without its option */
	EXPECT(g, n, 0, WIRE_ERR_BAD_IP);
	wire_put16(g + 14 + 4, (uint16_t)(n - 54 + 1));
	EXPECT(g, n, 0, WIRE_ERR_TRUNCATED);
	/* masked IPv6 fields: traffic class, flow label, hop limit */
	memcpy(g, f, n);
	g[15] = 0xAB;
	g[16] = 0xCD;
	g[17] = 0xEF;
	g[14 + 7] = 1;
	EXPECT(g, n, 0, 0);
	CHECK_EQ(wire_parse(g, n, 0, &p), 0);
	CHECK_EQ(p.tclass, 0x0A);
	CHECK_EQ(p.flow_label, 0xBCDEF);
	CHECK_EQ(p.ttl, 1);
	for (size_t l = 0; l < n; l++)
		EXPECT(f, l, 0, WIRE_ERR_TRUNCATED);
}

/* ---------------------------------------------------------------------- */
static void test_garbage(void)
{
	uint8_t *f = malloc(1600);
	unsigned ok = 0;

	REQUIRE(f);
	for (int i = 0; i < 20000; i++) {
		size_t len = test_rand(1601);
		struct wire_pkt p;
		int rc;

		test_fill_random(f, len);
		rc = parse_copy(f, len, 0, &p);
		CHECK(rc < 0 && rc > -WIRE_ERR_COUNT);
		ok += rc == 0;
	}
	CHECK_EQ(ok, 0);
	free(f);
}

/* Valid Ethernet/IP/UDP 4791 outer headers, random everything else,
 * including the lengths: reaches the BTH checks.  ICRC/IP checksum
 * checks off, so the parser accepts whatever is structurally sound. */
static void test_random_roce(void)
{
	uint8_t f[700];
	unsigned accepted = 0;

	for (int i = 0; i < 50000; i++) {
		int v6 = i & 1;
		size_t l3 = v6 ? 40 : 20;
		size_t len = test_rand(sizeof(f) + 1);
		struct wire_pkt p;
		int rc;

		test_fill_random(f, sizeof(f));
		f[12] = v6 ? 0x86 : 0x08;
		f[13] = v6 ? 0xDD : 0x00;
		if (v6) {
			f[14] = (uint8_t)(0x60 | (f[14] & 0x0F));
			f[14 + 6] = 17;
		} else {
			f[14] = 0x45;
			f[14 + 9] = 17;
			f[14 + 6] &= 0x40;	/* DF or nothing */
			f[14 + 7] = 0;
		}
		wire_put16(f + 14 + l3 + 2, 4791);
		if (test_rand(4)) {		/* mostly consistent lengths */
			size_t ip_len = len > 14 ? len - 14 - test_rand(8) : 0;

			if (ip_len > len)
				ip_len = 0;
			if (v6)
				wire_put16(f + 18, (uint16_t)(ip_len > 40 ? ip_len - 40 : 0));
			else
				wire_put16(f + 16, (uint16_t)ip_len);
			if (ip_len > l3)
				wire_put16(f + 14 + l3 + 4, (uint16_t)(ip_len - l3));
			f[14 + l3 + 8 + 1] &= 0xF0;	/* TVer 0 */
			if (test_rand(2)) {		/* a valid opcode */
				static const uint8_t ops[] = { 0x04, 0x06, 0x0C,
					0x10, 0x11, 0x12, 0x13, 0x17, 0x64, 0x65,
					0x0B, 0x81, 0x0E };
				f[14 + l3 + 8] = ops[test_rand(sizeof(ops))];
			}
		}
		rc = parse_copy(f, len, WIRE_PARSE_NO_ICRC | WIRE_PARSE_NO_IP_CSUM, &p);
		CHECK(rc <= 0 && rc > -WIRE_ERR_COUNT);
		if (rc == 0) {
			accepted++;
			check_consistent(&p, len);
		}
		/* with the checks on, random bytes never pass the ICRC */
		rc = parse_copy(f, len, 0, &p);
		CHECK(rc < 0);
	}
	printf("random RoCE-shaped frames: %u of 50000 structurally valid\n",
	       accepted);
	CHECK(accepted > 100);	/* the generator does reach the deep checks */
}

/* Random mutations of valid frames of every opcode. */
static void test_mutations(void)
{
	uint8_t f[2048], g[2100];

	for (unsigned op = 0; op < 256; op++) {
		const struct wire_opcode_info *info = wire_opcode_info((uint8_t)op);

		if (!info)
			continue;
		for (int v6 = 0; v6 <= 1; v6++) {
			uint32_t plen = info->flags & WIRE_OPF_PAYLOAD ? test_rand(100) : 0;
			size_t n = make_frame(f, sizeof(f), (uint8_t)op, plen, v6);
			struct wire_pkt p;

			CHECK_EQ(parse_copy(f, n, 0, &p), 0);
			check_consistent(&p, n);
			CHECK_EQ(p.payload_len, plen);
			for (int it = 0; it < 300; it++) {
				size_t len = n;
				int rc;

				memcpy(g, f, n);
				for (int k = 1 + (int)test_rand(4); k > 0; k--)
					g[test_rand((uint32_t)n)] ^= (uint8_t)(1 + test_rand(255));
				if (test_rand(4) == 0)
					len = test_rand((uint32_t)n + 40);
				if (len > n)
					memset(g + n, 0, len - n);
				rc = parse_copy(g, len, WIRE_PARSE_NO_ICRC |
						WIRE_PARSE_NO_IP_CSUM, &p);
				if (rc == 0)
					check_consistent(&p, len);
				rc = parse_copy(g, len, 0, &p);
				if (rc == 0)
					check_consistent(&p, len);
			}
		}
	}
}

int main(void)
{
	test_error_classes();
	test_garbage();
	test_random_roce();
	test_mutations();
	return test_report("test_wire_parse");
}
