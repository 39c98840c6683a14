/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Minimal test harness for the lib/wire unit tests (and pmr-perf's
 * test_bw_samples.c): CHECK macros that report to stderr and count
 * failures, a hex dump for byte comparisons, a bitwise reference CRC-32
 * and a deterministic PRNG.  Header-only (static functions) so each test
 * program is one .c file (+ pcap.c).
 */
#ifndef WIRE_TEST_COMMON_H
#define WIRE_TEST_COMMON_H

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int test_failures;
static int test_checks;

#define CHECK(cond)							\
	do {								\
		test_checks++;						\
		if (!(cond)) {						\
			test_failures++;				\
			fprintf(stderr, "%s:%d: CHECK failed: %s\n",	\
				__FILE__, __LINE__, #cond);		\
		}							\
	} while (0)

#define CHECK_EQ(a, b)							\
	do {								\
		uint64_t a_ = (uint64_t)(a), b_ = (uint64_t)(b);	\
		test_checks++;						\
		if (a_ != b_) {						\
			test_failures++;				\
			fprintf(stderr, "%s:%d: CHECK failed: %s == %s "	\
				"(0x%" PRIx64 " != 0x%" PRIx64 ")\n",	\
				__FILE__, __LINE__, #a, #b, a_, b_);	\
		}							\
	} while (0)

/* Stop the program at the first failure of a precondition. */
#define REQUIRE(cond)							\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "%s:%d: REQUIRE failed: %s\n",	\
				__FILE__, __LINE__, #cond);		\
			exit(1);					\
		}							\
	} while (0)

static inline void test_hexdump(const char *tag, const void *buf, size_t n)
{
	const uint8_t *p = buf;

	fprintf(stderr, "%s (%zu bytes):", tag, n);
	for (size_t i = 0; i < n; i++)
		fprintf(stderr, "%s%02x", i % 16 ? " " : "\n  ", p[i]);
	fprintf(stderr, "\n");
}

/* Byte comparison with a dump of both buffers and the first difference. */
#define CHECK_BYTES(got, glen, exp, elen, what)				\
	do {								\
		test_checks++;						\
		if ((size_t)(glen) != (size_t)(elen) ||			\
		    memcmp((got), (exp), (elen)) != 0) {		\
			size_t i_ = 0;					\
			test_failures++;				\
			while (i_ < (size_t)(glen) && i_ < (size_t)(elen) && \
			       ((const uint8_t *)(got))[i_] ==		\
			       ((const uint8_t *)(exp))[i_])		\
				i_++;					\
			fprintf(stderr, "%s:%d: %s: bytes differ (len %zu vs %zu, " \
				"first difference at %zu)\n", __FILE__,	\
				__LINE__, (what), (size_t)(glen),	\
				(size_t)(elen), i_);			\
			test_hexdump("  got", (got), (glen));		\
			test_hexdump("  expected", (exp), (elen));	\
		}							\
	} while (0)

static inline int test_report(const char *name)
{
	if (test_failures) {
		fprintf(stderr, "%s: FAIL (%d of %d checks failed)\n", name,
			test_failures, test_checks);
		return 1;
	}
	printf("%s: PASS (%d checks)\n", name, test_checks);
	return 0;
}

/* Reference CRC-32: one bit at a time, straight from the definition
 * (reflected polynomial 0xEDB88320, init and final xor 0xFFFFFFFF). */
static inline uint32_t ref_crc32(uint32_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	crc = ~crc;
	while (len--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
	}
	return ~crc;
}

/* xorshift64*: deterministic, seedable. */
static uint64_t test_rng_state = 0x9E3779B97F4A7C15ull;

static inline uint64_t test_rand64(void)
{
	uint64_t x = test_rng_state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	test_rng_state = x;
	return x * 0x2545F4914F6CDD1Dull;
}

static inline uint32_t test_rand(uint32_t n)	/* 0 .. n-1 */
{
	return n ? (uint32_t)(test_rand64() % n) : 0;
}

static inline void test_fill_random(uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)test_rand64();
}

#endif /* WIRE_TEST_COMMON_H */
