/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The RoCEv2 protocol as data: the opcode table (IBA vol. 1 9.2.1 table 38,
 * 9.3 for the header order; Annex A17.9.3 for the CNP) and the RNR timer
 * table (IBA 9.7.5.2.8 table 45).
 */
#include "wire.h"

#define B WIRE_BTH_LEN

#define OP(code, nm, tr, fl, hm, len, ...)				\
	[code] = { .name = (nm), .flags = (fl), .hdrs = (hm),		\
		   .transport = (tr), .hdr_len = (len),			\
		   .off = { __VA_ARGS__ } }

#define REQ_SEND (WIRE_OPF_REQ | WIRE_OPF_SEND | WIRE_OPF_PAYLOAD)
#define REQ_WRITE (WIRE_OPF_REQ | WIRE_OPF_WRITE | WIRE_OPF_PAYLOAD)
#define RESP_READ (WIRE_OPF_RESP | WIRE_OPF_READ | WIRE_OPF_PAYLOAD)

/* The SEND and RDMA WRITE opcodes, shared by RC (base 0x00) and UC (0x20). */
#define SEND_WRITE_OPS(base, pfx, tr)					\
	OP((base) + 0x00, pfx "SEND_FIRST", tr,				\
	   REQ_SEND | WIRE_OPF_FIRST | WIRE_OPF_RWQE, 0, B, 0),		\
	OP((base) + 0x01, pfx "SEND_MIDDLE", tr,			\
	   REQ_SEND | WIRE_OPF_MIDDLE, 0, B, 0),			\
	OP((base) + 0x02, pfx "SEND_LAST", tr,				\
	   REQ_SEND | WIRE_OPF_LAST | WIRE_OPF_RCOMP, 0, B, 0),		\
	OP((base) + 0x03, pfx "SEND_LAST_WITH_IMMEDIATE", tr,		\
	   REQ_SEND | WIRE_OPF_LAST | WIRE_OPF_IMM | WIRE_OPF_RCOMP,	\
	   WIRE_HM_IMMDT, B + WIRE_IMMDT_LEN, [WIRE_HDR_IMMDT] = B),	\
	OP((base) + 0x04, pfx "SEND_ONLY", tr,				\
	   REQ_SEND | WIRE_OPF_ONLY | WIRE_OPF_RWQE | WIRE_OPF_RCOMP,	\
	   0, B, 0),							\
	OP((base) + 0x05, pfx "SEND_ONLY_WITH_IMMEDIATE", tr,		\
	   REQ_SEND | WIRE_OPF_ONLY | WIRE_OPF_IMM | WIRE_OPF_RWQE |	\
	   WIRE_OPF_RCOMP,						\
	   WIRE_HM_IMMDT, B + WIRE_IMMDT_LEN, [WIRE_HDR_IMMDT] = B),	\
	OP((base) + 0x06, pfx "RDMA_WRITE_FIRST", tr,			\
	   REQ_WRITE | WIRE_OPF_FIRST,					\
	   WIRE_HM_RETH, B + WIRE_RETH_LEN, [WIRE_HDR_RETH] = B),	\
	OP((base) + 0x07, pfx "RDMA_WRITE_MIDDLE", tr,			\
	   REQ_WRITE | WIRE_OPF_MIDDLE, 0, B, 0),			\
	OP((base) + 0x08, pfx "RDMA_WRITE_LAST", tr,			\
	   REQ_WRITE | WIRE_OPF_LAST, 0, B, 0),				\
	OP((base) + 0x09, pfx "RDMA_WRITE_LAST_WITH_IMMEDIATE", tr,	\
	   REQ_WRITE | WIRE_OPF_LAST | WIRE_OPF_IMM | WIRE_OPF_RWQE |	\
	   WIRE_OPF_RCOMP,						\
	   WIRE_HM_IMMDT, B + WIRE_IMMDT_LEN, [WIRE_HDR_IMMDT] = B),	\
	OP((base) + 0x0A, pfx "RDMA_WRITE_ONLY", tr,			\
	   REQ_WRITE | WIRE_OPF_ONLY,					\
	   WIRE_HM_RETH, B + WIRE_RETH_LEN, [WIRE_HDR_RETH] = B),	\
	OP((base) + 0x0B, pfx "RDMA_WRITE_ONLY_WITH_IMMEDIATE", tr,	\
	   REQ_WRITE | WIRE_OPF_ONLY | WIRE_OPF_IMM | WIRE_OPF_RWQE |	\
	   WIRE_OPF_RCOMP,						\
	   WIRE_HM_RETH | WIRE_HM_IMMDT,				\
	   B + WIRE_RETH_LEN + WIRE_IMMDT_LEN,				\
	   [WIRE_HDR_RETH] = B,						\
	   [WIRE_HDR_IMMDT] = B + WIRE_RETH_LEN)

const struct wire_opcode_info wire_opcode_table[256] = {
	SEND_WRITE_OPS(WIRE_OP_BASE_RC, "RC_", WIRE_TRANSPORT_RC),

	OP(WIRE_OP_RC_READ_REQUEST, "RC_RDMA_READ_REQUEST", WIRE_TRANSPORT_RC,
	   WIRE_OPF_REQ | WIRE_OPF_READ | WIRE_OPF_ONLY,
	   WIRE_HM_RETH, B + WIRE_RETH_LEN, [WIRE_HDR_RETH] = B),
	OP(WIRE_OP_RC_READ_RESPONSE_FIRST, "RC_RDMA_READ_RESPONSE_FIRST",
	   WIRE_TRANSPORT_RC, RESP_READ | WIRE_OPF_FIRST,
	   WIRE_HM_AETH, B + WIRE_AETH_LEN, [WIRE_HDR_AETH] = B),
	OP(WIRE_OP_RC_READ_RESPONSE_MIDDLE, "RC_RDMA_READ_RESPONSE_MIDDLE",
	   WIRE_TRANSPORT_RC, RESP_READ | WIRE_OPF_MIDDLE, 0, B, 0),
	OP(WIRE_OP_RC_READ_RESPONSE_LAST, "RC_RDMA_READ_RESPONSE_LAST",
	   WIRE_TRANSPORT_RC, RESP_READ | WIRE_OPF_LAST,
	   WIRE_HM_AETH, B + WIRE_AETH_LEN, [WIRE_HDR_AETH] = B),
	OP(WIRE_OP_RC_READ_RESPONSE_ONLY, "RC_RDMA_READ_RESPONSE_ONLY",
	   WIRE_TRANSPORT_RC, RESP_READ | WIRE_OPF_ONLY,
	   WIRE_HM_AETH, B + WIRE_AETH_LEN, [WIRE_HDR_AETH] = B),
	OP(WIRE_OP_RC_ACKNOWLEDGE, "RC_ACKNOWLEDGE", WIRE_TRANSPORT_RC,
	   WIRE_OPF_RESP | WIRE_OPF_ACK | WIRE_OPF_ONLY,
	   WIRE_HM_AETH, B + WIRE_AETH_LEN, [WIRE_HDR_AETH] = B),
	OP(WIRE_OP_RC_ATOMIC_ACKNOWLEDGE, "RC_ATOMIC_ACKNOWLEDGE",
	   WIRE_TRANSPORT_RC,
	   WIRE_OPF_RESP | WIRE_OPF_ACK | WIRE_OPF_ATOMIC | WIRE_OPF_ONLY,
	   WIRE_HM_AETH | WIRE_HM_ATMACK,
	   B + WIRE_AETH_LEN + WIRE_ATMACK_LEN,
	   [WIRE_HDR_AETH] = B, [WIRE_HDR_ATMACK] = B + WIRE_AETH_LEN),
	OP(WIRE_OP_RC_COMPARE_SWAP, "RC_COMPARE_SWAP", WIRE_TRANSPORT_RC,
	   WIRE_OPF_REQ | WIRE_OPF_ATOMIC | WIRE_OPF_ONLY,
	   WIRE_HM_ATMETH, B + WIRE_ATMETH_LEN, [WIRE_HDR_ATMETH] = B),
	OP(WIRE_OP_RC_FETCH_ADD, "RC_FETCH_ADD", WIRE_TRANSPORT_RC,
	   WIRE_OPF_REQ | WIRE_OPF_ATOMIC | WIRE_OPF_ONLY,
	   WIRE_HM_ATMETH, B + WIRE_ATMETH_LEN, [WIRE_HDR_ATMETH] = B),
	/* 0x15 (RESYNC) is not used by RC: left invalid. */
	OP(WIRE_OP_RC_SEND_LAST_INV, "RC_SEND_LAST_WITH_INVALIDATE",
	   WIRE_TRANSPORT_RC,
	   REQ_SEND | WIRE_OPF_LAST | WIRE_OPF_INV | WIRE_OPF_RCOMP,
	   WIRE_HM_IETH, B + WIRE_IETH_LEN, [WIRE_HDR_IETH] = B),
	OP(WIRE_OP_RC_SEND_ONLY_INV, "RC_SEND_ONLY_WITH_INVALIDATE",
	   WIRE_TRANSPORT_RC,
	   REQ_SEND | WIRE_OPF_ONLY | WIRE_OPF_INV | WIRE_OPF_RWQE |
	   WIRE_OPF_RCOMP,
	   WIRE_HM_IETH, B + WIRE_IETH_LEN, [WIRE_HDR_IETH] = B),

	SEND_WRITE_OPS(WIRE_OP_BASE_UC, "UC_", WIRE_TRANSPORT_UC),

	OP(WIRE_OP_UD_SEND_ONLY, "UD_SEND_ONLY", WIRE_TRANSPORT_UD,
	   REQ_SEND | WIRE_OPF_ONLY | WIRE_OPF_RWQE | WIRE_OPF_RCOMP,
	   WIRE_HM_DETH, B + WIRE_DETH_LEN, [WIRE_HDR_DETH] = B),
	OP(WIRE_OP_UD_SEND_ONLY_IMM, "UD_SEND_ONLY_WITH_IMMEDIATE",
	   WIRE_TRANSPORT_UD,
	   REQ_SEND | WIRE_OPF_ONLY | WIRE_OPF_IMM | WIRE_OPF_RWQE |
	   WIRE_OPF_RCOMP,
	   WIRE_HM_DETH | WIRE_HM_IMMDT, B + WIRE_DETH_LEN + WIRE_IMMDT_LEN,
	   [WIRE_HDR_DETH] = B, [WIRE_HDR_IMMDT] = B + WIRE_DETH_LEN),

	/* CNP: BTH (DestQP = the QP to throttle, BECN set) + 16 reserved
	 * bytes, no payload (Annex A17.9.3). */
	OP(WIRE_OP_CNP, "CNP", WIRE_TRANSPORT_CNP,
	   WIRE_OPF_CNP | WIRE_OPF_ONLY, 0, B + WIRE_CNP_RSVD_LEN, 0),
};

const char *wire_opcode_name(uint8_t opcode)
{
	const struct wire_opcode_info *info = wire_opcode_info(opcode);

	return info ? info->name : "INVALID";
}

/* IBA table 45, in nanoseconds. */
static const uint32_t rnr_timer_ns[32] = {
	655360000,	/*  0: 655.36 ms */
	10000,		/*  1: 0.01 ms */
	20000,		/*  2 */
	30000,		/*  3 */
	40000,		/*  4 */
	60000,		/*  5 */
	80000,		/*  6 */
	120000,		/*  7 */
	160000,		/*  8 */
	240000,		/*  9 */
	320000,		/* 10 */
	480000,		/* 11 */
	640000,		/* 12: 0.64 ms */
	960000,		/* 13 */
	1280000,	/* 14 */
	1920000,	/* 15 */
	2560000,	/* 16 */
	3840000,	/* 17 */
	5120000,	/* 18 */
	7680000,	/* 19 */
	10240000,	/* 20 */
	15360000,	/* 21 */
	20480000,	/* 22 */
	30720000,	/* 23 */
	40960000,	/* 24 */
	61440000,	/* 25 */
	81920000,	/* 26 */
	122880000,	/* 27 */
	163840000,	/* 28 */
	245760000,	/* 29 */
	327680000,	/* 30 */
	491520000,	/* 31: 491.52 ms */
};

uint64_t wire_rnr_timer_ns(unsigned code)
{
	return rnr_timer_ns[code & 31u];
}

unsigned wire_rnr_timer_code(uint64_t ns)
{
	for (unsigned c = 1; c < 32; c++)
		if (rnr_timer_ns[c] >= ns)
			return c;
	return 0;
}
