/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Header accessors, PSN / AETH / timer / MTU helpers, the opcode table
 * (checked against an independent transcription of IBA table 38 and
 * PROTOCOL.md), error strings, IPv4 checksum, UDP source-port helpers.
 */
#include "test_common.h"
#include "wire.h"

/* Fill a header-sized buffer with v, return it as bytes. */
#define FILL(h, v) memset(&(h), (v), sizeof(h))

static void test_bth(void)
{
	struct wire_bth b;
	const uint8_t *p = (const uint8_t *)&b;

	/* a captured BTH: RC SEND ONLY, PadCnt 2, P_Key FFFF, QP 0x19,
	 * AckReq, PSN 0xdcf790 */
	static const uint8_t cap[12] = { 0x04, 0x20, 0xff, 0xff, 0x00, 0x00,
					 0x00, 0x19, 0x80, 0xdc, 0xf7, 0x90 };
	memcpy(&b, cap, 12);
	CHECK_EQ(wire_bth_opcode(&b), 4);
	CHECK(!wire_bth_se(&b));
	CHECK(!wire_bth_mig(&b));
	CHECK_EQ(wire_bth_pad(&b), 2);
	CHECK_EQ(wire_bth_tver(&b), 0);
	CHECK_EQ(wire_bth_pkey(&b), 0xFFFF);
	CHECK(!wire_bth_fecn(&b) && !wire_bth_becn(&b));
	CHECK_EQ(wire_bth_qpn(&b), 0x19);
	CHECK(wire_bth_ackreq(&b));
	CHECK_EQ(wire_bth_psn(&b), 0xDCF790);

	/* setters touch only their bits: on all-zero and all-one headers */
	FILL(b, 0);
	wire_bth_set_opcode(&b, 0x81);
	CHECK_EQ(p[0], 0x81);
	wire_bth_set_se(&b, true);
	CHECK_EQ(p[1], 0x80);
	wire_bth_set_mig(&b, true);
	CHECK_EQ(p[1], 0xC0);
	wire_bth_set_pad(&b, 3);
	CHECK_EQ(p[1], 0xF0);
	wire_bth_set_pad(&b, 5);	/* masked to 2 bits */
	CHECK_EQ(p[1], 0xD0);
	wire_bth_set_tver(&b, 0x1F);	/* masked to 4 bits */
	CHECK_EQ(p[1], 0xDF);
	CHECK_EQ(wire_bth_tver(&b), 0xF);
	wire_bth_set_pkey(&b, 0x8001);
	CHECK(p[2] == 0x80 && p[3] == 0x01);
	wire_bth_set_fecn(&b, true);
	CHECK_EQ(p[4], 0x80);
	wire_bth_set_becn(&b, true);
	CHECK_EQ(p[4], 0xC0);
	wire_bth_set_qpn(&b, 0xFF123456u);	/* 24 bits */
	CHECK(p[4] == 0xC0 && p[5] == 0x12 && p[6] == 0x34 && p[7] == 0x56);
	CHECK_EQ(wire_bth_qpn(&b), 0x123456);
	wire_bth_set_ackreq(&b, true);
	CHECK_EQ(p[8], 0x80);
	wire_bth_set_psn(&b, 0x01ABCDEFu);
	CHECK(p[8] == 0x80 && p[9] == 0xAB && p[10] == 0xCD && p[11] == 0xEF);
	CHECK_EQ(wire_bth_psn(&b), 0xABCDEF);

	FILL(b, 0xFF);
	wire_bth_set_se(&b, false);
	CHECK_EQ(p[1], 0x7F);
	wire_bth_set_mig(&b, false);
	CHECK_EQ(p[1], 0x3F);
	wire_bth_set_pad(&b, 0);
	CHECK_EQ(p[1], 0x0F);
	wire_bth_set_tver(&b, 0);
	CHECK_EQ(p[1], 0x00);
	wire_bth_set_fecn(&b, false);
	CHECK_EQ(p[4], 0x7F);
	wire_bth_set_becn(&b, false);
	CHECK_EQ(p[4], 0x3F);
	wire_bth_set_qpn(&b, 0);
	CHECK(p[3] == 0xFF && p[4] == 0x3F && p[5] == 0 && p[6] == 0 &&
	      p[7] == 0 && p[8] == 0xFF);
	wire_bth_set_ackreq(&b, false);
	CHECK_EQ(p[8], 0x7F);
	wire_bth_set_psn(&b, 0);
	CHECK(p[8] == 0x7F && p[9] == 0 && p[10] == 0 && p[11] == 0);
	CHECK(!wire_bth_ackreq(&b));
}

static void test_ext_headers(void)
{
	struct wire_reth r;
	struct wire_aeth a;
	struct wire_atmeth at;
	struct wire_atmack ak;
	struct wire_immdt im;
	struct wire_ieth ie;
	struct wire_deth d;
	static const uint8_t reth_exp[16] = {
		0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
		0xA1, 0xA2, 0xA3, 0xA4, 0x00, 0x00, 0x10, 0x00 };
	static const uint8_t atm_exp[28] = {
		0x00, 0x00, 0x7f, 0xff, 0x12, 0x34, 0x56, 0x78,
		0xde, 0xad, 0xbe, 0xef,
		0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,
		0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff, 0x00 };
	static const uint8_t deth_exp[8] = { 0x80, 0x01, 0x00, 0x00, 0x00,
					     0x00, 0x00, 0x01 };

	FILL(r, 0x5A);
	wire_reth_set_va(&r, 0x0102030405060708ull);
	wire_reth_set_rkey(&r, 0xA1A2A3A4u);
	wire_reth_set_len(&r, 4096);
	CHECK_BYTES(&r, sizeof(r), reth_exp, sizeof(reth_exp), "RETH");
	CHECK_EQ(wire_reth_va(&r), 0x0102030405060708ull);
	CHECK_EQ(wire_reth_rkey(&r), 0xA1A2A3A4u);
	CHECK_EQ(wire_reth_len(&r), 4096);

	FILL(a, 0);
	wire_aeth_set_syn(&a, 0x1F);
	wire_aeth_set_msn(&a, 0x12345678u);
	CHECK(((uint8_t *)&a)[0] == 0x1F && ((uint8_t *)&a)[1] == 0x34 &&
	      ((uint8_t *)&a)[2] == 0x56 && ((uint8_t *)&a)[3] == 0x78);
	CHECK_EQ(wire_aeth_syn(&a), 0x1F);
	CHECK_EQ(wire_aeth_msn(&a), 0x345678);

	FILL(at, 0xEE);
	wire_atmeth_set_va(&at, 0x00007FFF12345678ull);
	wire_atmeth_set_rkey(&at, 0xDEADBEEFu);
	wire_atmeth_set_swap_add(&at, 0x1122334455667788ull);
	wire_atmeth_set_compare(&at, 0x99AABBCCDDEEFF00ull);
	CHECK_BYTES(&at, sizeof(at), atm_exp, sizeof(atm_exp), "AtomicETH");
	CHECK_EQ(wire_atmeth_va(&at), 0x00007FFF12345678ull);
	CHECK_EQ(wire_atmeth_rkey(&at), 0xDEADBEEFu);
	CHECK_EQ(wire_atmeth_swap_add(&at), 0x1122334455667788ull);
	CHECK_EQ(wire_atmeth_compare(&at), 0x99AABBCCDDEEFF00ull);

	wire_atmack_set_orig(&ak, 0x8000000000000001ull);
	CHECK(((uint8_t *)&ak)[0] == 0x80 && ((uint8_t *)&ak)[7] == 0x01);
	CHECK_EQ(wire_atmack_orig(&ak), 0x8000000000000001ull);

	wire_immdt_set_imm(&im, 0x01020304u);
	CHECK(((uint8_t *)&im)[0] == 1 && ((uint8_t *)&im)[3] == 4);
	CHECK_EQ(wire_immdt_imm(&im), 0x01020304u);

	wire_ieth_set_rkey(&ie, 0xCAFEF00Du);
	CHECK(((uint8_t *)&ie)[0] == 0xCA && ((uint8_t *)&ie)[3] == 0x0D);
	CHECK_EQ(wire_ieth_rkey(&ie), 0xCAFEF00Du);

	FILL(d, 0xFF);
	wire_deth_set_qkey(&d, WIRE_GSI_QKEY);
	wire_deth_set_sqp(&d, 1);	/* also clears the reserved byte */
	CHECK_BYTES(&d, sizeof(d), deth_exp, sizeof(deth_exp), "DETH");
	CHECK_EQ(wire_deth_qkey(&d), 0x80010000u);
	CHECK_EQ(wire_deth_sqp(&d), 1);

	/* accessors at odd addresses (no alignment assumptions; UBSan) */
	{
		uint8_t buf[64];
		struct wire_reth *ur = (struct wire_reth *)(void *)(buf + 3);

		memset(buf, 0, sizeof(buf));
		wire_reth_set_va(ur, 0xFEDCBA9876543210ull);
		CHECK_EQ(wire_reth_va(ur), 0xFEDCBA9876543210ull);
		CHECK_EQ(wire_get64(buf + 3), 0xFEDCBA9876543210ull);
		CHECK_EQ(buf[3], 0xFE);
	}
}

static void test_psn(void)
{
	CHECK_EQ(wire_psn_add(0xFFFFFF, 1), 0);
	CHECK_EQ(wire_psn_add(0xFFFFF0, 0x20), 0x10);
	CHECK_EQ(wire_psn_add(5, 0), 5);
	CHECK(wire_psn_cmp(1, 1) == 0);
	CHECK(wire_psn_cmp(2, 1) > 0);
	CHECK(wire_psn_cmp(1, 2) < 0);
	CHECK(wire_psn_cmp(0, 0xFFFFFF) > 0);		/* wrap */
	CHECK(wire_psn_cmp(0xFFFFFF, 0) < 0);
	CHECK(wire_psn_cmp(0x7FFFFF, 0) > 0);		/* 2^23 - 1 ahead */
	CHECK(wire_psn_cmp(0x800000, 0) < 0);		/* 2^23: "behind" */
	CHECK(wire_psn_cmp(0x000010, 0xFFFFF0) > 0);
	/* high garbage bits are ignored */
	CHECK(wire_psn_cmp(0xFF000005, 0x00000005) == 0);
}

static void test_aeth_syndrome(void)
{
	CHECK_EQ(wire_syn_ack(WIRE_AETH_CREDIT_INVALID), 0x1F);
	CHECK_EQ(wire_syn_ack(0), 0x00);
	CHECK_EQ(wire_syn_rnr_nak(12), 0x2C);
	CHECK_EQ(wire_syn_nak(WIRE_NAK_PSN_SEQ), 0x60);
	CHECK_EQ(wire_syn_nak(WIRE_NAK_INVALID_REQ), 0x61);
	CHECK_EQ(wire_syn_nak(WIRE_NAK_REM_ACCESS), 0x62);
	CHECK_EQ(wire_syn_nak(WIRE_NAK_REM_OP), 0x63);
	CHECK_EQ(wire_syn_kind(0x1F), WIRE_AETH_ACK);
	CHECK_EQ(wire_syn_kind(0x2C), WIRE_AETH_RNR_NAK);
	CHECK_EQ(wire_syn_kind(0x62), WIRE_AETH_NAK);
	CHECK_EQ(wire_syn_kind(0x40), WIRE_AETH_RSVD);
	CHECK(wire_syn_kind(0x80) >= 4);
	CHECK_EQ(wire_syn_value(0x2C), 12);
	CHECK_EQ(wire_syn_value(0x63), 3);
	CHECK_EQ(wire_syn_make(WIRE_AETH_RNR_NAK, 0x3F), 0x3F);	/* value masked */
}

static void test_timers(void)
{
	/* PROTOCOL.md, in ms */
	static const double ms[32] = {
		655.36, 0.01, 0.02, 0.03, 0.04, 0.06, 0.08, 0.12, 0.16, 0.24,
		0.32, 0.48, 0.64, 0.96, 1.28, 1.92, 2.56, 3.84, 5.12, 7.68,
		10.24, 15.36, 20.48, 30.72, 40.96, 61.44, 81.92, 122.88,
		163.84, 245.76, 327.68, 491.52 };

	for (unsigned c = 0; c < 32; c++) {
		uint64_t exp = (uint64_t)(ms[c] * 1e6 + 0.5);

		CHECK_EQ(wire_rnr_timer_ns(c), exp);
		CHECK_EQ(wire_rnr_timer_ns(c + 32), exp);	/* 5 bits */
		if (c)
			CHECK_EQ(wire_rnr_timer_code(exp), c);
	}
	CHECK_EQ(wire_rnr_timer_code(0), 1);
	CHECK_EQ(wire_rnr_timer_code(10001), 2);
	CHECK_EQ(wire_rnr_timer_code(500000), 12);	/* 0.64 >= 0.5 ms */
	CHECK_EQ(wire_rnr_timer_code(491520001), 0);	/* only 655.36 ms */
	CHECK_EQ(wire_rnr_timer_code(UINT64_MAX), 0);

	CHECK_EQ(wire_ack_timeout_ns(0), WIRE_TIMEOUT_INFINITE);
	CHECK_EQ(wire_ack_timeout_ns(1), 8192);
	CHECK_EQ(wire_ack_timeout_ns(14), 67108864);	/* 67.1 ms: ibv_rc_pingpong */
	CHECK_EQ(wire_ack_timeout_ns(31), 4096ull << 31);
	CHECK_EQ(wire_ack_timeout_ns(32), WIRE_TIMEOUT_INFINITE);
	/* in TSC ticks: exact, no overflow for the longest timeouts */
	CHECK_EQ(wire_ns_to_ticks(wire_ack_timeout_ns(31), 3000000000u),
		 3 * (4096ull << 31));
	CHECK_EQ(wire_ns_to_ticks(wire_ack_timeout_ns(21), 2600000000u),
		 22333829939ull);			/* 8.59 s at 2.6 GHz */
	CHECK_EQ(wire_ns_to_ticks(1999999999, 1000000000u), 1999999999);
	CHECK_EQ(wire_ns_to_ticks(1, 2600000000u), 2);
	CHECK_EQ(wire_ns_to_ticks(0, 2600000000u), 0);
}

static void test_mtu(void)
{
	CHECK_EQ(wire_mtu_bytes(WIRE_MTU_256), 256);
	CHECK_EQ(wire_mtu_bytes(WIRE_MTU_512), 512);
	CHECK_EQ(wire_mtu_bytes(WIRE_MTU_1024), 1024);
	CHECK_EQ(wire_mtu_bytes(WIRE_MTU_2048), 2048);
	CHECK_EQ(wire_mtu_bytes(WIRE_MTU_4096), 4096);
	CHECK_EQ(wire_mtu_bytes(0), 0);
	CHECK_EQ(wire_mtu_bytes(6), 0);
	CHECK_EQ(wire_mtu_enum(1024), WIRE_MTU_1024);
	CHECK_EQ(wire_mtu_enum(4096), WIRE_MTU_4096);
	CHECK_EQ(wire_mtu_enum(1000), 0);
	CHECK_EQ(wire_mtu_fit(1500 - 20 - 8 - 12 - 28 - 4), WIRE_MTU_1024);
	CHECK_EQ(wire_mtu_fit(9000), WIRE_MTU_4096);
	CHECK_EQ(wire_mtu_fit(255), 0);
	CHECK_EQ(wire_mtu_fit(256), WIRE_MTU_256);
	CHECK_EQ(wire_pad_len(0), 0);
	CHECK_EQ(wire_pad_len(1), 3);
	CHECK_EQ(wire_pad_len(2), 2);
	CHECK_EQ(wire_pad_len(3), 1);
	CHECK_EQ(wire_pad_len(1024), 0);
}

/* ---------------------------------------------------------------------- */
/* IBA table 38 transcribed independently: opcode, name, headers in wire
 * order with their sizes, flags. */
#define R WIRE_OPF_REQ
#define P WIRE_OPF_RESP
#define K WIRE_OPF_ACK
#define S WIRE_OPF_SEND
#define W WIRE_OPF_WRITE
#define RD WIRE_OPF_READ
#define AT WIRE_OPF_ATOMIC
#define F WIRE_OPF_FIRST
#define M WIRE_OPF_MIDDLE
#define L WIRE_OPF_LAST
#define O WIRE_OPF_ONLY
#define D WIRE_OPF_PAYLOAD
#define I WIRE_OPF_IMM
#define V WIRE_OPF_INV
#define Q WIRE_OPF_RWQE
#define C WIRE_OPF_RCOMP

struct exp_op {
	uint8_t op;
	const char *name;
	uint8_t transport;
	uint32_t flags;
	int hdr[3];		/* enum wire_hdr in wire order, -1 ends */
};

#define SW(base, pfx, tr)						\
	{ base + 0x00, pfx "SEND_FIRST", tr, R | S | F | D | Q, { -1 } },	\
	{ base + 0x01, pfx "SEND_MIDDLE", tr, R | S | M | D, { -1 } },	\
	{ base + 0x02, pfx "SEND_LAST", tr, R | S | L | D | C, { -1 } },	\
	{ base + 0x03, pfx "SEND_LAST_WITH_IMMEDIATE", tr, R | S | L | D | I | C, \
	  { WIRE_HDR_IMMDT, -1 } },					\
	{ base + 0x04, pfx "SEND_ONLY", tr, R | S | O | D | Q | C, { -1 } },	\
	{ base + 0x05, pfx "SEND_ONLY_WITH_IMMEDIATE", tr,		\
	  R | S | O | D | I | Q | C, { WIRE_HDR_IMMDT, -1 } },		\
	{ base + 0x06, pfx "RDMA_WRITE_FIRST", tr, R | W | F | D,	\
	  { WIRE_HDR_RETH, -1 } },					\
	{ base + 0x07, pfx "RDMA_WRITE_MIDDLE", tr, R | W | M | D, { -1 } }, \
	{ base + 0x08, pfx "RDMA_WRITE_LAST", tr, R | W | L | D, { -1 } },	\
	{ base + 0x09, pfx "RDMA_WRITE_LAST_WITH_IMMEDIATE", tr,	\
	  R | W | L | D | I | Q | C, { WIRE_HDR_IMMDT, -1 } },		\
	{ base + 0x0A, pfx "RDMA_WRITE_ONLY", tr, R | W | O | D,	\
	  { WIRE_HDR_RETH, -1 } },					\
	{ base + 0x0B, pfx "RDMA_WRITE_ONLY_WITH_IMMEDIATE", tr,	\
	  R | W | O | D | I | Q | C, { WIRE_HDR_RETH, WIRE_HDR_IMMDT, -1 } }

static const struct exp_op exp_ops[] = {
	SW(0x00, "RC_", WIRE_TRANSPORT_RC),
	{ 0x0C, "RC_RDMA_READ_REQUEST", WIRE_TRANSPORT_RC, R | RD | O,
	  { WIRE_HDR_RETH, -1 } },
	{ 0x0D, "RC_RDMA_READ_RESPONSE_FIRST", WIRE_TRANSPORT_RC, P | RD | F | D,
	  { WIRE_HDR_AETH, -1 } },
	{ 0x0E, "RC_RDMA_READ_RESPONSE_MIDDLE", WIRE_TRANSPORT_RC, P | RD | M | D,
	  { -1 } },
	{ 0x0F, "RC_RDMA_READ_RESPONSE_LAST", WIRE_TRANSPORT_RC, P | RD | L | D,
	  { WIRE_HDR_AETH, -1 } },
	{ 0x10, "RC_RDMA_READ_RESPONSE_ONLY", WIRE_TRANSPORT_RC, P | RD | O | D,
	  { WIRE_HDR_AETH, -1 } },
	{ 0x11, "RC_ACKNOWLEDGE", WIRE_TRANSPORT_RC, P | K | O,
	  { WIRE_HDR_AETH, -1 } },
	{ 0x12, "RC_ATOMIC_ACKNOWLEDGE", WIRE_TRANSPORT_RC, P | K | AT | O,
	  { WIRE_HDR_AETH, WIRE_HDR_ATMACK, -1 } },
	{ 0x13, "RC_COMPARE_SWAP", WIRE_TRANSPORT_RC, R | AT | O,
	  { WIRE_HDR_ATMETH, -1 } },
	{ 0x14, "RC_FETCH_ADD", WIRE_TRANSPORT_RC, R | AT | O,
	  { WIRE_HDR_ATMETH, -1 } },
	{ 0x16, "RC_SEND_LAST_WITH_INVALIDATE", WIRE_TRANSPORT_RC,
	  R | S | L | D | V | C, { WIRE_HDR_IETH, -1 } },
	{ 0x17, "RC_SEND_ONLY_WITH_INVALIDATE", WIRE_TRANSPORT_RC,
	  R | S | O | D | V | Q | C, { WIRE_HDR_IETH, -1 } },
	SW(0x20, "UC_", WIRE_TRANSPORT_UC),
	{ 0x64, "UD_SEND_ONLY", WIRE_TRANSPORT_UD, R | S | O | D | Q | C,
	  { WIRE_HDR_DETH, -1 } },
	{ 0x65, "UD_SEND_ONLY_WITH_IMMEDIATE", WIRE_TRANSPORT_UD,
	  R | S | O | D | I | Q | C, { WIRE_HDR_DETH, WIRE_HDR_IMMDT, -1 } },
	{ 0x81, "CNP", WIRE_TRANSPORT_CNP, WIRE_OPF_CNP | O, { -1 } },
};

static const unsigned hdr_size[WIRE_HDR_COUNT] = {
	[WIRE_HDR_RETH] = 16, [WIRE_HDR_AETH] = 4, [WIRE_HDR_ATMETH] = 28,
	[WIRE_HDR_ATMACK] = 8, [WIRE_HDR_IMMDT] = 4, [WIRE_HDR_IETH] = 4,
	[WIRE_HDR_DETH] = 8,
};

static int popcount(uint32_t v)
{
	return __builtin_popcount(v);
}

static void test_opcode_table(void)
{
	static const struct wire_opcode_info zero;
	int seen[256] = { 0 };
	unsigned n_valid = 0;

	CHECK_EQ(sizeof(exp_ops) / sizeof(exp_ops[0]), 23 + 12 + 2 + 1);
	for (size_t i = 0; i < sizeof(exp_ops) / sizeof(exp_ops[0]); i++) {
		const struct exp_op *e = &exp_ops[i];
		const struct wire_opcode_info *info = wire_opcode_info(e->op);
		unsigned len = 12, mask = 0;
		uint8_t off[WIRE_HDR_COUNT] = { 0 };

		seen[e->op] = 1;
		if (!info) {
			CHECK(info != NULL);
			fprintf(stderr, "  opcode 0x%02x missing\n", e->op);
			continue;
		}
		CHECK(info == &wire_opcode_table[e->op]);
		CHECK(strcmp(info->name, e->name) == 0);
		CHECK(strcmp(wire_opcode_name(e->op), e->name) == 0);
		CHECK_EQ(info->transport, e->transport);
		if (info->flags != e->flags) {
			CHECK_EQ(info->flags, e->flags);
			fprintf(stderr, "  opcode 0x%02x %s\n", e->op, e->name);
		}
		for (int k = 0; k < 3 && e->hdr[k] >= 0; k++) {
			off[e->hdr[k]] = (uint8_t)len;
			len += hdr_size[e->hdr[k]];
			mask |= 1u << e->hdr[k];
		}
		if (e->op == WIRE_OP_CNP)
			len += 16;
		CHECK_EQ(info->hdrs, mask);
		CHECK_EQ(info->hdr_len, len);
		CHECK(memcmp(info->off, off, sizeof(off)) == 0);
		/* invariants */
		CHECK_EQ(popcount(info->flags & (WIRE_OPF_REQ | WIRE_OPF_RESP |
						 WIRE_OPF_CNP)), 1);
		CHECK_EQ(popcount(info->flags & (WIRE_OPF_FIRST | WIRE_OPF_MIDDLE |
						 WIRE_OPF_LAST | WIRE_OPF_ONLY)), 1);
		CHECK(popcount(info->flags & (WIRE_OPF_SEND | WIRE_OPF_WRITE |
					      WIRE_OPF_READ | WIRE_OPF_ATOMIC)) <= 1);
		CHECK(!(info->flags & WIRE_OPF_IMM) == !(info->hdrs & WIRE_HM_IMMDT));
		CHECK(!(info->flags & WIRE_OPF_INV) == !(info->hdrs & WIRE_HM_IETH));
		CHECK(!(info->flags & WIRE_OPF_ACK) || (info->flags & WIRE_OPF_RESP));
		if (e->op < 0x20)
			CHECK_EQ(info->transport, WIRE_TRANSPORT_RC);
		else if (e->op < 0x40)
			CHECK_EQ(info->transport, WIRE_TRANSPORT_UC);
	}
	for (unsigned op = 0; op < 256; op++) {
		if (wire_opcode_info((uint8_t)op))
			n_valid++;
		if (seen[op])
			continue;
		CHECK(wire_opcode_info((uint8_t)op) == NULL);
		CHECK(memcmp(&wire_opcode_table[op], &zero, sizeof(zero)) == 0);
		CHECK(strcmp(wire_opcode_name((uint8_t)op), "INVALID") == 0);
	}
	CHECK_EQ(n_valid, sizeof(exp_ops) / sizeof(exp_ops[0]));
	/* spot checks against PROTOCOL.md and the captures */
	CHECK_EQ(wire_opcode_info(0x0B)->off[WIRE_HDR_IMMDT], 28);
	CHECK_EQ(wire_opcode_info(0x12)->off[WIRE_HDR_ATMACK], 16);
	CHECK_EQ(wire_opcode_info(0x65)->off[WIRE_HDR_IMMDT], 20);
	CHECK_EQ(wire_opcode_info(0x13)->hdr_len, 40);
	CHECK(wire_opcode_info(0x15) == NULL);
	CHECK(wire_opcode_info(0x2C) == NULL);
	CHECK(wire_opcode_info(0x60) == NULL);
	CHECK(wire_opcode_info(0x66) == NULL);
	CHECK(wire_opcode_info(0x80) == NULL);
	CHECK(wire_opcode_info(0xFF) == NULL);
}

static void test_err_str(void)
{
	CHECK(strcmp(wire_err_str(0), "ok") == 0);
	CHECK(strcmp(wire_err_str(WIRE_ERR_BAD_ICRC), "bad ICRC") == 0);
	CHECK(strcmp(wire_err_str(1), "unknown error") == 0);
	CHECK(strcmp(wire_err_str(-WIRE_ERR_COUNT), "unknown error") == 0);
	CHECK(strcmp(wire_err_str(-1000), "unknown error") == 0);
	for (int e = -1; e > -WIRE_ERR_COUNT; e--) {
		const char *s = wire_err_str(e);

		CHECK(s && *s && strcmp(s, "unknown error") != 0);
	}
}

static void test_ipv4_csum(void)
{
	/* captured header (send_lat.pcap #0), checksum 0x5826 */
	uint8_t h[20] = { 0x45, 0x00, 0x00, 0x30, 0xcd, 0xe6, 0x40, 0x00, 0x40,
			  0x11, 0x58, 0x26, 0x0a, 0x4d, 0x00, 0x0c, 0x0a, 0x4d,
			  0x00, 0x0b };

	CHECK_EQ(wire_ipv4_csum(h), 0x5826);
	h[10] = h[11] = 0;	/* the current value is ignored */
	CHECK_EQ(wire_ipv4_csum(h), 0x5826);
	/* RFC 1071 example-style carry: all 0xFF words */
	memset(h, 0xFF, sizeof(h));
	CHECK_EQ(wire_ipv4_csum(h), 0x0000);

	/* random headers against the textbook 16-bit sum, whatever the
	 * checksum field holds; a header with its checksum in sums to 0xFFFF
	 * (the parser's check) */
	for (int iter = 0; iter < 2000; iter++) {
		uint32_t sum = 0;
		uint16_t want;

		test_fill_random(h, sizeof(h));
		if (iter % 4 == 0)
			memset(h + 12, iter % 8 == 0 ? 0xFF : 0, 8);
		for (int i = 0; i < 20; i += 2)
			if (i != 10)
				sum += (uint32_t)(h[i] << 8 | h[i + 1]);
		while (sum >> 16)
			sum = (sum & 0xFFFF) + (sum >> 16);
		want = (uint16_t)~sum;
		CHECK_EQ(wire_ipv4_csum(h), want);
		h[10] = (uint8_t)(want >> 8);
		h[11] = (uint8_t)want;
		CHECK_EQ(wire_ipv4_csum(h), want);
	}
}

static void test_udp_sport(void)
{
	/* ports observed in the soft-RoCE captures (README table) */
	CHECK_EQ(wire_udp_sport(1), 55410);		/* QP1, rping CM MADs */
	CHECK_EQ(wire_udp_sport(0x14), 59626);		/* ud_pingpong */
	CHECK_EQ(wire_udp_sport_flow(0x12, 0x12), 49476);	/* rc_pingpong */
	CHECK_EQ(wire_udp_sport_flow(0x15, 0x15), 49593);	/* srq_pingpong */
	CHECK_EQ(wire_udp_sport_flow(0x16, 0x16), 49636);
	CHECK_EQ(wire_udp_sport_flow(0x17, 0x17), 49681);
	CHECK_EQ(wire_udp_sport_flow(0x18, 0x18), 49728);
	CHECK_EQ(wire_udp_sport_flow(0x1d, 0x1d), 49993);	/* write_bw */
	/* large QPNs exercise every fold of rdma_calc_flow_label (values
	 * from a Python transcription of the kernel helpers) */
	CHECK_EQ(wire_udp_sport_flow(0x123456, 0xABCDEF), 50120);
	CHECK_EQ(wire_udp_sport_flow(0xFFFFFF, 0xFFFFFF), 65313);
	CHECK_EQ(wire_udp_sport_flow(0x1000, 0x2000), 49184);
	CHECK_EQ(wire_udp_sport_flow(0x800001, 0x3), 49179);
	CHECK_EQ(wire_udp_sport(0xFFFFFF), 63821);
	CHECK_EQ(wire_udp_sport(0x123456), 49512);
	CHECK_EQ(wire_udp_sport_fl(0), 0xC000);
	CHECK_EQ(wire_udp_sport_fl(0xFFFFF), 0xC000 | (0x3FFF ^ 0x3F));
	for (uint32_t q = 0; q < 100000; q += 7) {
		CHECK((wire_udp_sport(q) & 0xC000) == 0xC000);
		CHECK((wire_udp_sport_flow(q, q + 1) & 0xC000) == 0xC000);
	}
}

int main(void)
{
	test_bth();
	test_ext_headers();
	test_psn();
	test_aeth_syndrome();
	test_timers();
	test_mtu();
	test_opcode_table();
	test_err_str();
	test_ipv4_csum();
	test_udp_sport();
	return test_report("test_wire_hdr");
}
