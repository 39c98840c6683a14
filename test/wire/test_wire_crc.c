/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * CRC-32 and ICRC unit tests: known vectors, the slice-by-8 tables entry by
 * entry, slice-by-8 and PCLMULQDQ against a bitwise reference over many
 * lengths/alignments, incremental == one-shot over arbitrary splits, and the
 * ICRC (masking, incremental form, captured known answers, errors).
 */
#include "test_common.h"
#include "wire.h"

typedef uint32_t (*crc_fn)(uint32_t, const void *, size_t);

static const struct {
	const char *name;
	crc_fn fn;
} impls[] = {
	{ "wire_crc32", wire_crc32 },
	{ "wire_crc32_sw", wire_crc32_sw },
	{ "wire_crc32_clmul", wire_crc32_clmul },
};
#define N_IMPLS (sizeof(impls) / sizeof(impls[0]))

static void test_known_vectors(void)
{
	static const char fox[] = "The quick brown fox jumps over the lazy dog";
	uint8_t zeros[4096] = { 0 };

	for (size_t i = 0; i < N_IMPLS; i++) {
		crc_fn f = impls[i].fn;

		CHECK_EQ(f(0, "123456789", 9), 0xCBF43926u);
		CHECK_EQ(f(0, NULL, 0), 0);
		CHECK_EQ(f(0x12345678u, NULL, 0), 0x12345678u);
		CHECK_EQ(f(0, "a", 1), 0xE8B7BE43u);
		CHECK_EQ(f(0, fox, sizeof(fox) - 1), 0x414FA339u);
		/* 32 zero bytes: a well-known value (iSCSI/RFC 3720 style
		 * vectors use CRC32C; this one is CRC-32/ISO-HDLC) */
		CHECK_EQ(f(0, zeros, 32), 0x190A55ADu);
		CHECK_EQ(f(0, zeros, sizeof(zeros)), ref_crc32(0, zeros, sizeof(zeros)));
	}
	CHECK_EQ(ref_crc32(0, "123456789", 9), 0xCBF43926u);
}

/* Every table entry, from the definition (bitwise). */
static void test_tables(void)
{
	for (unsigned k = 0; k < 8; k++) {
		for (unsigned n = 0; n < 256; n++) {
			/* register after byte n then k zero bytes, from 0 */
			uint32_t c = n;

			for (unsigned bit = 0; bit < 8 * (k + 1); bit++)
				c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
			if (wire_crc32_tab[k][n] != c) {
				CHECK_EQ(wire_crc32_tab[k][n], c);
				fprintf(stderr, "  table %u entry %u\n", k, n);
			}
		}
	}
	CHECK_EQ(wire_crc32_tab[0][1], 0x77073096u);
	CHECK_EQ(wire_crc32_tab[0][255], 0x2D02EF8Du);
}

static void test_random_buffers(void)
{
	enum { MAX = 20000 };
	uint8_t *buf = malloc(MAX + 64);

	REQUIRE(buf);
	test_fill_random(buf, MAX + 64);
	/* every length up to 1100 (covers the 64/16-byte folding edges), all
	 * 16 alignments for the short ones, random seeds */
	for (size_t len = 0; len <= 1100; len++) {
		size_t align = len < 300 ? len % 16 : test_rand(16);
		uint32_t seed = len % 3 ? (uint32_t)test_rand64() : 0;
		uint32_t exp = ref_crc32(seed, buf + align, len);

		for (size_t i = 0; i < N_IMPLS; i++) {
			uint32_t got = impls[i].fn(seed, buf + align, len);

			if (got != exp) {
				CHECK_EQ(got, exp);
				fprintf(stderr, "  %s len %zu align %zu\n",
					impls[i].name, len, align);
			}
		}
	}
	/* long random lengths */
	for (int iter = 0; iter < 300; iter++) {
		size_t len = test_rand(MAX);
		size_t align = test_rand(64);
		uint32_t seed = (uint32_t)test_rand64();
		uint32_t exp = ref_crc32(seed, buf + align, len);

		for (size_t i = 0; i < N_IMPLS; i++)
			CHECK_EQ(impls[i].fn(seed, buf + align, len), exp);
	}
	free(buf);
}

/* Chaining over arbitrary splits == one shot (zlib semantics). */
static void test_incremental(void)
{
	enum { MAX = 9000 };
	uint8_t *buf = malloc(MAX);

	REQUIRE(buf);
	test_fill_random(buf, MAX);
	for (int iter = 0; iter < 400; iter++) {
		size_t len = iter < 100 ? test_rand(200) : test_rand(MAX);
		uint32_t exp = ref_crc32(0, buf, len);

		for (size_t i = 0; i < N_IMPLS; i++) {
			uint32_t crc = 0;
			size_t off = 0;

			while (off < len) {
				size_t n = test_rand(4) == 0 ? 0 :
					   1 + test_rand((uint32_t)(len - off));

				if (test_rand(3) == 0 && len - off > 70)
					n = 1 + test_rand(70);	/* small pieces */
				crc = impls[i].fn(crc, buf + off, n);
				off += n;
			}
			CHECK_EQ(crc, exp);
		}
	}
	free(buf);
}

/* ---------------------------------------------------------------------- */
/* ICRC, computed independently: copy, mask per PROTOCOL.md, bitwise CRC
 * over 8 x 0xFF + the copy. */
static uint32_t ref_icrc(const uint8_t *ip, size_t len)
{
	uint8_t *c = malloc(len + 8);
	size_t l3 = (ip[0] >> 4) == 6 ? 40 : 20;
	uint32_t crc;

	REQUIRE(c);
	memset(c, 0xFF, 8);
	memcpy(c + 8, ip, len);
	if (l3 == 20) {
		c[8 + 1] = 0xFF;		/* TOS */
		c[8 + 8] = 0xFF;		/* TTL */
		c[8 + 10] = c[8 + 11] = 0xFF;	/* header checksum */
	} else {
		c[8 + 0] |= 0x0F;		/* traffic class (high nibble) */
		c[8 + 1] = c[8 + 2] = c[8 + 3] = 0xFF; /* tclass low, flow label */
		c[8 + 7] = 0xFF;		/* hop limit */
	}
	c[8 + l3 + 6] = c[8 + l3 + 7] = 0xFF;	/* UDP checksum */
	c[8 + l3 + 8 + 4] = 0xFF;		/* BTH FECN/BECN/resv */
	crc = ref_crc32(0, c, len + 8);
	free(c);
	return crc;
}

static void make_random_ip(uint8_t *p, size_t len, int v6)
{
	test_fill_random(p, len);
	if (v6)
		p[0] = (uint8_t)(0x60 | (p[0] & 0x0F));
	else
		p[0] = 0x45;
}

/* Every length from the bare headers to 600 bytes after them: each way
 * the headers and the rest split into 16-byte blocks, both IP versions. */
static void test_icrc_lengths(void)
{
	uint8_t buf[1024];

	for (int v6 = 0; v6 <= 1; v6++) {
		size_t fixed = (v6 ? 40 : 20) + 8 + 12;

		for (size_t extra = 0; extra <= 600; extra++) {
			size_t len = fixed + extra;
			uint32_t icrc;

			make_random_ip(buf, len + 4, v6);
			CHECK_EQ(wire_icrc_calc(buf, len, &icrc), 0);
			CHECK_EQ(icrc, ref_icrc(buf, len));
		}
	}
}

static void test_icrc_random(void)
{
	uint8_t buf[2200];

	for (int iter = 0; iter < 400; iter++) {
		int v6 = iter & 1;
		size_t fixed = (v6 ? 40 : 20) + 8 + 12;
		size_t len = fixed + test_rand(2000);
		uint32_t icrc, crc;
		size_t off;

		make_random_ip(buf, len + 4, v6);
		CHECK_EQ(wire_icrc_calc(buf, len, &icrc), 0);
		CHECK_EQ(icrc, ref_icrc(buf, len));

		/* incremental: begin + pieces */
		crc = iter & 2 ? wire_icrc_begin(buf) :
		      v6 ? wire_icrc_begin_ipv6(buf) : wire_icrc_begin_ipv4(buf);
		off = fixed;
		while (off < len) {
			size_t n = 1 + test_rand((uint32_t)(len - off));

			crc = wire_icrc_update(crc, buf + off, n);
			off += n;
		}
		CHECK_EQ(crc, icrc);

		/* write, then check; a flipped covered byte fails */
		CHECK_EQ(wire_icrc_write(buf, len), 0);
		CHECK_EQ(wire_icrc_get(buf + len), icrc);
		CHECK_EQ(wire_icrc_check(buf, len), 0);
		off = 1 + test_rand((uint32_t)len - 1);	/* not the version byte */
		buf[off] ^= (uint8_t)(1u << test_rand(8));
		{
			int masked;
			size_t l3 = v6 ? 40 : 20;

			if (v6)
				masked = off <= 3 || off == 7;
			else
				masked = off == 1 || off == 8 || off == 10 || off == 11;
			masked |= off == l3 + 6 || off == l3 + 7 || off == l3 + 12;
			CHECK_EQ(wire_icrc_check(buf, len),
				 masked ? 0 : WIRE_ERR_BAD_ICRC);
		}
	}
}

static void test_icrc_put_get(void)
{
	uint8_t b[4];

	wire_icrc_put(b, 0x11223344u);
	CHECK(b[0] == 0x44 && b[1] == 0x33 && b[2] == 0x22 && b[3] == 0x11);
	CHECK_EQ(wire_icrc_get(b), 0x11223344u);
}

static void test_icrc_errors(void)
{
	uint8_t buf[128] = { 0 };
	uint32_t icrc = 0;

	buf[0] = 0x45;
	CHECK_EQ(wire_icrc_calc(buf, 0, &icrc), WIRE_ERR_TRUNCATED);
	CHECK_EQ(wire_icrc_calc(buf, 39, &icrc), WIRE_ERR_TRUNCATED);
	CHECK_EQ(wire_icrc_calc(buf, 40, &icrc), 0);
	CHECK_EQ(wire_icrc_check(buf, 39), WIRE_ERR_TRUNCATED);
	CHECK_EQ(wire_icrc_write(buf, 39), WIRE_ERR_TRUNCATED);
	buf[0] = 0x46;	/* IPv4 with options: not RoCEv2 */
	CHECK_EQ(wire_icrc_calc(buf, 64, &icrc), WIRE_ERR_BAD_IP);
	buf[0] = 0x55;
	CHECK_EQ(wire_icrc_calc(buf, 64, &icrc), WIRE_ERR_BAD_IP);
	buf[0] = 0x60;
	CHECK_EQ(wire_icrc_calc(buf, 59, &icrc), WIRE_ERR_TRUNCATED);
	CHECK_EQ(wire_icrc_calc(buf, 60, &icrc), 0);
}

/* Known answers: two frames captured between two Linux soft-RoCE peers
 * (send_lat.pcap #0: RC SEND ONLY, 2-byte payload, PadCnt 2;
 * atomic_lat.pcap #0: RC FETCH ADD). */
static const uint8_t cap_send[] = {
	0x52, 0x54, 0x00, 0x77, 0x00, 0x11, 0x52, 0x54, 0x00, 0x77, 0x00, 0x12,
	0x08, 0x00, 0x45, 0x00, 0x00, 0x30, 0xcd, 0xe6, 0x40, 0x00, 0x40, 0x11,
	0x58, 0x26, 0x0a, 0x4d, 0x00, 0x0c, 0x0a, 0x4d, 0x00, 0x0b, 0xc2, 0x71,
	0x12, 0xb7, 0x00, 0x1c, 0x00, 0x00, 0x04, 0x20, 0xff, 0xff, 0x00, 0x00,
	0x00, 0x19, 0x80, 0xdc, 0xf7, 0x90, 0x96, 0x1c, 0x00, 0x00, 0xbe, 0x04,
	0x0d, 0xc7,
};
static const uint8_t cap_fadd[] = {
	0x52, 0x54, 0x00, 0x77, 0x00, 0x11, 0x52, 0x54, 0x00, 0x77, 0x00, 0x12,
	0x08, 0x00, 0x45, 0x00, 0x00, 0x48, 0xd5, 0x59, 0x40, 0x00, 0x40, 0x11,
	0x50, 0x9b, 0x0a, 0x4d, 0x00, 0x0c, 0x0a, 0x4d, 0x00, 0x0b, 0xc3, 0x10,
	0x12, 0xb7, 0x00, 0x34, 0x00, 0x00, 0x14, 0x00, 0xff, 0xff, 0x00, 0x00,
	0x00, 0x1c, 0x80, 0xb0, 0x5d, 0xcc, 0x00, 0x00, 0x56, 0x41, 0xb9, 0x5d,
	0x30, 0x00, 0x00, 0x00, 0x0a, 0x11, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xef, 0x8f,
	0xf7, 0xae,
};

static void test_icrc_captured(void)
{
	uint32_t icrc = 0;

	CHECK_EQ(wire_icrc_calc(cap_send + 14, sizeof(cap_send) - 14 - 4, &icrc), 0);
	CHECK_EQ(icrc, 0xC70D04BEu);	/* wire bytes be 04 0d c7, LSB first */
	CHECK_EQ(wire_icrc_check(cap_send + 14, sizeof(cap_send) - 14 - 4), 0);
	CHECK_EQ(ref_icrc(cap_send + 14, sizeof(cap_send) - 14 - 4), icrc);
	CHECK_EQ(wire_icrc_check(cap_fadd + 14, sizeof(cap_fadd) - 14 - 4), 0);
	CHECK_EQ(ref_icrc(cap_fadd + 14, sizeof(cap_fadd) - 14 - 4),
		 wire_icrc_get(cap_fadd + sizeof(cap_fadd) - 4));
}

int main(void)
{
	static const char *const names[] = { "table", "PCLMULQDQ",
					     "AVX-512 VPCLMULQDQ" };
	int best = wire_crc32_set_level(-1);

	printf("CRC code on this CPU: up to %s; each level is tested against "
	       "the bitwise reference\n", names[best]);
	CHECK_EQ(best >= 1, wire_crc32_has_clmul());
	CHECK_EQ(best >= 2, wire_crc32_has_vpclmul());
	test_tables();
	test_icrc_put_get();
	test_icrc_errors();
	for (int level = 0; level <= best; level++) {
		CHECK_EQ(wire_crc32_set_level(level), level);
		test_known_vectors();
		test_random_buffers();
		test_incremental();
		test_icrc_lengths();
		test_icrc_random();
		test_icrc_captured();
	}
	CHECK_EQ(wire_crc32_set_level(99), best);
	return test_report("test_wire_crc");
}
