/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/wire: the RoCEv2 wire format.
 *
 *  - header layouts (Ethernet, IPv4, IPv6, UDP, BTH and the IBA extension
 *    transport headers) as byte arrays, with accessors that do the byte
 *    swapping (no unaligned loads, no strict-aliasing games: every header
 *    struct has alignment 1, so a pointer into a frame at any offset is fine);
 *  - PSN, AETH syndrome, timer-code and MTU helpers;
 *  - the opcode table (wire_opcode.c): which headers follow the BTH, where,
 *    and what the opcode means;
 *  - CRC-32 and the RoCEv2 invariant CRC (wire_icrc.c);
 *  - a frame parser (wire_pkt.c) and a frame builder (wire_build.c).
 *
 * Plain C11, no DPDK: this component is unit-tested and fuzzed on its own.
 * Nothing here prints, aborts or allocates.  Every symbol is internal to
 * libpmrdma (built with hidden visibility).
 *
 * References: IBA vol. 1 ch. 9 (transport headers), Annex A17 (RoCEv2),
 * /work/shared/PROTOCOL.md; Linux drivers/infiniband/sw/rxe (rxe_hdr.h,
 * rxe_opcode.c, rxe_icrc.c) for the soft-RoCE behaviour we interoperate with.
 */
#ifndef WIRE_H
#define WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------
 * Constants
 */
#define WIRE_ROCE_UDP_PORT	4791	/* IANA RoCEv2 destination port */
#define WIRE_ETHERTYPE_IPV4	0x0800
#define WIRE_ETHERTYPE_IPV6	0x86DD
#define WIRE_ETHERTYPE_VLAN	0x8100
#define WIRE_IPPROTO_UDP	17

#define WIRE_ETH_LEN		14
#define WIRE_VLAN_LEN		4
#define WIRE_IPV4_LEN		20	/* no options, ever */
#define WIRE_IPV6_LEN		40
#define WIRE_UDP_LEN		8
#define WIRE_BTH_LEN		12
#define WIRE_RETH_LEN		16
#define WIRE_AETH_LEN		4
#define WIRE_ATMETH_LEN		28
#define WIRE_ATMACK_LEN		8
#define WIRE_IMMDT_LEN		4
#define WIRE_IETH_LEN		4
#define WIRE_DETH_LEN		8
#define WIRE_CNP_RSVD_LEN	16	/* reserved bytes after a CNP's BTH */
#define WIRE_GRH_LEN		40
#define WIRE_ICRC_LEN		4

/* Largest header stack the builder writes: Ethernet + VLAN + IPv6 + UDP +
 * BTH + AtomicETH (the longest extension, 28 bytes after the BTH). */
#define WIRE_MAX_HDR_LEN \
	(WIRE_ETH_LEN + WIRE_VLAN_LEN + WIRE_IPV6_LEN + WIRE_UDP_LEN + \
	 WIRE_BTH_LEN + WIRE_ATMETH_LEN)

#define WIRE_TTL_DEFAULT	64
#define WIRE_PKEY_DEFAULT	0xFFFF	/* the default, full-member P_Key */
#define WIRE_QPN_MASK		0x00FFFFFFu
#define WIRE_PSN_MASK		0x00FFFFFFu
#define WIRE_MSN_MASK		0x00FFFFFFu
#define WIRE_GSI_QKEY		0x80010000u	/* Q_Key of QP1 (rdma_cm MADs) */

/* ------------------------------------------------------------------------
 * Big-endian loads and stores on byte pointers.  The compiler turns these
 * into single (byte-swapping) moves; they are defined for any alignment.
 */
static inline uint16_t wire_get16(const uint8_t *p)
{
	return (uint16_t)((unsigned)p[0] << 8 | p[1]);
}

static inline uint32_t wire_get24(const uint8_t *p)
{
	return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
}

static inline uint32_t wire_get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static inline uint64_t wire_get64(const uint8_t *p)
{
	return (uint64_t)wire_get32(p) << 32 | wire_get32(p + 4);
}

static inline void wire_put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void wire_put24(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 16);
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)v;
}

static inline void wire_put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static inline void wire_put64(uint8_t *p, uint64_t v)
{
	wire_put32(p, (uint32_t)(v >> 32));
	wire_put32(p + 4, (uint32_t)v);
}

/* ------------------------------------------------------------------------
 * Header layouts.  Only uint8_t members: no padding, alignment 1.
 */
struct wire_eth {
	uint8_t dst[6];
	uint8_t src[6];
	uint8_t type[2];
};

struct wire_vlan {		/* follows wire_eth.type == 0x8100 */
	uint8_t tci[2];
	uint8_t type[2];
};

struct wire_ipv4 {
	uint8_t ver_ihl;	/* 0x45 */
	uint8_t tos;		/* DSCP(6) ECN(2)		(ICRC: masked) */
	uint8_t tot_len[2];
	uint8_t id[2];
	uint8_t frag[2];	/* resv(1) DF(1) MF(1) offset(13) */
	uint8_t ttl;		/*				(ICRC: masked) */
	uint8_t proto;
	uint8_t csum[2];	/*				(ICRC: masked) */
	uint8_t saddr[4];
	uint8_t daddr[4];
};

#define WIRE_IPV4_DF	0x4000
#define WIRE_IPV4_MF	0x2000
#define WIRE_IPV4_OFF	0x1FFF

struct wire_ipv6 {
	uint8_t vtcfl[4];	/* version(4) tclass(8) flow(20) (ICRC: tclass, flow masked) */
	uint8_t plen[2];
	uint8_t nxt;
	uint8_t hlim;		/*				(ICRC: masked) */
	uint8_t saddr[16];
	uint8_t daddr[16];
};

struct wire_udp {
	uint8_t sport[2];
	uint8_t dport[2];
	uint8_t len[2];
	uint8_t csum[2];	/*				(ICRC: masked) */
};

/* Base Transport Header (IBA 9.2). */
struct wire_bth {
	uint8_t opcode;
	uint8_t flags;		/* SE(1) M(1) PadCnt(2) TVer(4) */
	uint8_t pkey[2];
	uint8_t fbr;		/* FECN(1) BECN(1) resv(6)	(ICRC: masked) */
	uint8_t qpn[3];
	uint8_t ack;		/* AckReq(1) resv(7) */
	uint8_t psn[3];
};

/* RDMA Extended Transport Header (IBA 9.3.3). */
struct wire_reth {
	uint8_t va[8];
	uint8_t rkey[4];
	uint8_t len[4];
};

/* ACK Extended Transport Header (IBA 9.3.5). */
struct wire_aeth {
	uint8_t syndrome;
	uint8_t msn[3];
};

/* Atomic Extended Transport Header (IBA 9.3.4). */
struct wire_atmeth {
	uint8_t va[8];
	uint8_t rkey[4];
	uint8_t swap_add[8];
	uint8_t compare[8];
};

/* Atomic ACK Extended Transport Header (IBA 9.3.6). */
struct wire_atmack {
	uint8_t orig[8];
};

/* Immediate data (IBA 9.3.7). */
struct wire_immdt {
	uint8_t imm[4];
};

/* Invalidate Extended Transport Header (IBA 9.3.8). */
struct wire_ieth {
	uint8_t rkey[4];
};

/* Datagram Extended Transport Header (IBA 9.3.2). */
struct wire_deth {
	uint8_t qkey[4];
	uint8_t rsvd;
	uint8_t sqp[3];
};

_Static_assert(sizeof(struct wire_eth) == WIRE_ETH_LEN, "eth");
_Static_assert(sizeof(struct wire_vlan) == WIRE_VLAN_LEN, "vlan");
_Static_assert(sizeof(struct wire_ipv4) == WIRE_IPV4_LEN, "ipv4");
_Static_assert(sizeof(struct wire_ipv6) == WIRE_IPV6_LEN, "ipv6");
_Static_assert(sizeof(struct wire_udp) == WIRE_UDP_LEN, "udp");
_Static_assert(sizeof(struct wire_bth) == WIRE_BTH_LEN, "bth");
_Static_assert(sizeof(struct wire_reth) == WIRE_RETH_LEN, "reth");
_Static_assert(sizeof(struct wire_aeth) == WIRE_AETH_LEN, "aeth");
_Static_assert(sizeof(struct wire_atmeth) == WIRE_ATMETH_LEN, "atmeth");
_Static_assert(sizeof(struct wire_atmack) == WIRE_ATMACK_LEN, "atmack");
_Static_assert(sizeof(struct wire_immdt) == WIRE_IMMDT_LEN, "immdt");
_Static_assert(sizeof(struct wire_ieth) == WIRE_IETH_LEN, "ieth");
_Static_assert(sizeof(struct wire_deth) == WIRE_DETH_LEN, "deth");
_Static_assert(_Alignof(struct wire_bth) == 1, "headers must be byte-aligned");
_Static_assert(_Alignof(struct wire_atmeth) == 1, "headers must be byte-aligned");

/* ------------------------------------------------------------------------
 * BTH accessors.  Values are host order; setters mask to the field width.
 */
#define WIRE_BTH_SE	0x80u
#define WIRE_BTH_MIG	0x40u
#define WIRE_BTH_PAD	0x30u
#define WIRE_BTH_TVER	0x0Fu
#define WIRE_BTH_FECN	0x80u
#define WIRE_BTH_BECN	0x40u
#define WIRE_BTH_ACKREQ	0x80u

static inline uint8_t wire_bth_opcode(const struct wire_bth *b) { return b->opcode; }
static inline void wire_bth_set_opcode(struct wire_bth *b, uint8_t op) { b->opcode = op; }

static inline bool wire_bth_se(const struct wire_bth *b) { return b->flags & WIRE_BTH_SE; }
static inline void wire_bth_set_se(struct wire_bth *b, bool v)
{
	b->flags = (uint8_t)((b->flags & ~WIRE_BTH_SE) | (v ? WIRE_BTH_SE : 0));
}

static inline bool wire_bth_mig(const struct wire_bth *b) { return b->flags & WIRE_BTH_MIG; }
static inline void wire_bth_set_mig(struct wire_bth *b, bool v)
{
	b->flags = (uint8_t)((b->flags & ~WIRE_BTH_MIG) | (v ? WIRE_BTH_MIG : 0));
}

static inline unsigned wire_bth_pad(const struct wire_bth *b) { return (b->flags & WIRE_BTH_PAD) >> 4; }
static inline void wire_bth_set_pad(struct wire_bth *b, unsigned pad)
{
	b->flags = (uint8_t)((b->flags & ~WIRE_BTH_PAD) | ((pad & 3u) << 4));
}

static inline unsigned wire_bth_tver(const struct wire_bth *b) { return b->flags & WIRE_BTH_TVER; }
static inline void wire_bth_set_tver(struct wire_bth *b, unsigned tver)
{
	b->flags = (uint8_t)((b->flags & ~WIRE_BTH_TVER) | (tver & 0xFu));
}

static inline uint16_t wire_bth_pkey(const struct wire_bth *b) { return wire_get16(b->pkey); }
static inline void wire_bth_set_pkey(struct wire_bth *b, uint16_t pkey) { wire_put16(b->pkey, pkey); }

static inline bool wire_bth_fecn(const struct wire_bth *b) { return b->fbr & WIRE_BTH_FECN; }
static inline void wire_bth_set_fecn(struct wire_bth *b, bool v)
{
	b->fbr = (uint8_t)((b->fbr & ~WIRE_BTH_FECN) | (v ? WIRE_BTH_FECN : 0));
}

static inline bool wire_bth_becn(const struct wire_bth *b) { return b->fbr & WIRE_BTH_BECN; }
static inline void wire_bth_set_becn(struct wire_bth *b, bool v)
{
	b->fbr = (uint8_t)((b->fbr & ~WIRE_BTH_BECN) | (v ? WIRE_BTH_BECN : 0));
}

static inline uint32_t wire_bth_qpn(const struct wire_bth *b) { return wire_get24(b->qpn); }
static inline void wire_bth_set_qpn(struct wire_bth *b, uint32_t qpn) { wire_put24(b->qpn, qpn); }

static inline bool wire_bth_ackreq(const struct wire_bth *b) { return b->ack & WIRE_BTH_ACKREQ; }
static inline void wire_bth_set_ackreq(struct wire_bth *b, bool v)
{
	b->ack = (uint8_t)((b->ack & ~WIRE_BTH_ACKREQ) | (v ? WIRE_BTH_ACKREQ : 0));
}

static inline uint32_t wire_bth_psn(const struct wire_bth *b) { return wire_get24(b->psn); }
static inline void wire_bth_set_psn(struct wire_bth *b, uint32_t psn) { wire_put24(b->psn, psn); }

/* ------------------------------------------------------------------------
 * Extension header accessors (host order values).
 */
static inline uint64_t wire_reth_va(const struct wire_reth *h) { return wire_get64(h->va); }
static inline uint32_t wire_reth_rkey(const struct wire_reth *h) { return wire_get32(h->rkey); }
static inline uint32_t wire_reth_len(const struct wire_reth *h) { return wire_get32(h->len); }
static inline void wire_reth_set_va(struct wire_reth *h, uint64_t va) { wire_put64(h->va, va); }
static inline void wire_reth_set_rkey(struct wire_reth *h, uint32_t rkey) { wire_put32(h->rkey, rkey); }
static inline void wire_reth_set_len(struct wire_reth *h, uint32_t len) { wire_put32(h->len, len); }

static inline uint8_t wire_aeth_syn(const struct wire_aeth *h) { return h->syndrome; }
static inline uint32_t wire_aeth_msn(const struct wire_aeth *h) { return wire_get24(h->msn); }
static inline void wire_aeth_set_syn(struct wire_aeth *h, uint8_t syn) { h->syndrome = syn; }
static inline void wire_aeth_set_msn(struct wire_aeth *h, uint32_t msn) { wire_put24(h->msn, msn); }

static inline uint64_t wire_atmeth_va(const struct wire_atmeth *h) { return wire_get64(h->va); }
static inline uint32_t wire_atmeth_rkey(const struct wire_atmeth *h) { return wire_get32(h->rkey); }
static inline uint64_t wire_atmeth_swap_add(const struct wire_atmeth *h) { return wire_get64(h->swap_add); }
static inline uint64_t wire_atmeth_compare(const struct wire_atmeth *h) { return wire_get64(h->compare); }
static inline void wire_atmeth_set_va(struct wire_atmeth *h, uint64_t va) { wire_put64(h->va, va); }
static inline void wire_atmeth_set_rkey(struct wire_atmeth *h, uint32_t rkey) { wire_put32(h->rkey, rkey); }
static inline void wire_atmeth_set_swap_add(struct wire_atmeth *h, uint64_t v) { wire_put64(h->swap_add, v); }
static inline void wire_atmeth_set_compare(struct wire_atmeth *h, uint64_t v) { wire_put64(h->compare, v); }

static inline uint64_t wire_atmack_orig(const struct wire_atmack *h) { return wire_get64(h->orig); }
static inline void wire_atmack_set_orig(struct wire_atmack *h, uint64_t v) { wire_put64(h->orig, v); }

/* Immediate data as a host-order integer: the verbs layer stores
 * wc.imm_data / wr.imm_data in network order, so it converts with htobe32. */
static inline uint32_t wire_immdt_imm(const struct wire_immdt *h) { return wire_get32(h->imm); }
static inline void wire_immdt_set_imm(struct wire_immdt *h, uint32_t imm) { wire_put32(h->imm, imm); }

static inline uint32_t wire_ieth_rkey(const struct wire_ieth *h) { return wire_get32(h->rkey); }
static inline void wire_ieth_set_rkey(struct wire_ieth *h, uint32_t rkey) { wire_put32(h->rkey, rkey); }

static inline uint32_t wire_deth_qkey(const struct wire_deth *h) { return wire_get32(h->qkey); }
static inline uint32_t wire_deth_sqp(const struct wire_deth *h) { return wire_get24(h->sqp); }
static inline void wire_deth_set_qkey(struct wire_deth *h, uint32_t qkey) { wire_put32(h->qkey, qkey); }
static inline void wire_deth_set_sqp(struct wire_deth *h, uint32_t qpn)
{
	h->rsvd = 0;
	wire_put24(h->sqp, qpn);
}

/* ------------------------------------------------------------------------
 * PSN arithmetic (24 bits, modulo 2^24).
 */
static inline uint32_t wire_psn_add(uint32_t psn, uint32_t n)
{
	return (psn + n) & WIRE_PSN_MASK;
}

/* <0 if a is before b, 0 if equal, >0 if a is after b (within 2^23). */
static inline int32_t wire_psn_cmp(uint32_t a, uint32_t b)
{
	return (int32_t)((a - b) << 8);
}

/* ------------------------------------------------------------------------
 * AETH syndrome (IBA 9.7.5.1): bits 7..5 the kind, bits 4..0 the value
 * (credit count for an ACK, timer code for an RNR NAK, NAK code for a NAK).
 */
enum wire_aeth_kind {
	WIRE_AETH_ACK = 0,	/* 000 */
	WIRE_AETH_RNR_NAK = 1,	/* 001 */
	WIRE_AETH_RSVD = 2,	/* 010: reserved */
	WIRE_AETH_NAK = 3,	/* 011 */
};

enum wire_nak_code {
	WIRE_NAK_PSN_SEQ = 0,
	WIRE_NAK_INVALID_REQ = 1,
	WIRE_NAK_REM_ACCESS = 2,
	WIRE_NAK_REM_OP = 3,
};

#define WIRE_AETH_CREDIT_INVALID 0x1F	/* "no credit count": soft-RoCE always */

static inline uint8_t wire_syn_make(enum wire_aeth_kind kind, unsigned value)
{
	return (uint8_t)(((unsigned)kind & 7u) << 5 | (value & 0x1Fu));
}
static inline uint8_t wire_syn_ack(unsigned credit) { return wire_syn_make(WIRE_AETH_ACK, credit); }
static inline uint8_t wire_syn_rnr_nak(unsigned timer) { return wire_syn_make(WIRE_AETH_RNR_NAK, timer); }
static inline uint8_t wire_syn_nak(enum wire_nak_code c) { return wire_syn_make(WIRE_AETH_NAK, (unsigned)c); }
/* The kind (bits 7..5; bit 7 is reserved and must be 0, so >= 4 is invalid). */
static inline unsigned wire_syn_kind(uint8_t syn) { return syn >> 5; }
static inline unsigned wire_syn_value(uint8_t syn) { return syn & 0x1Fu; }

/* ------------------------------------------------------------------------
 * Timers.
 */
/* RNR NAK timer code (5 bits; higher bits ignored) -> nanoseconds
 * (IBA table 45; code 0 is the longest, 655.36 ms). */
uint64_t wire_rnr_timer_ns(unsigned code);

/* RNR timer code of the shortest delay >= ns: one of 1..31, or 0 (the
 * longest delay, 655.36 ms) when ns exceeds 491.52 ms. */
unsigned wire_rnr_timer_code(uint64_t ns);

#define WIRE_TIMEOUT_INFINITE 0
/* Local ACK timeout code (5 bits) -> nanoseconds: 4.096 us * 2^code;
 * code 0 means "wait forever" and returns WIRE_TIMEOUT_INFINITE (0).
 * Codes above 31 return WIRE_TIMEOUT_INFINITE too. */
static inline uint64_t wire_ack_timeout_ns(unsigned code)
{
	if (code == 0 || code > 31)
		return WIRE_TIMEOUT_INFINITE;
	return (uint64_t)4096 << code;
}

/* ns nanoseconds in ticks of a clock of hz, rounded down, without the
 * overflow of ns * hz (the longest ACK timeout, 2.4 hours, times a GHz
 * clock is past 2^64). */
static inline uint64_t wire_ns_to_ticks(uint64_t ns, uint64_t hz)
{
	return ns / 1000000000u * hz + ns % 1000000000u * hz / 1000000000u;
}

/* ------------------------------------------------------------------------
 * Path MTU (IBA enum, as ibv_mtu: 1 = 256 ... 5 = 4096).
 */
enum wire_mtu {
	WIRE_MTU_256 = 1,
	WIRE_MTU_512 = 2,
	WIRE_MTU_1024 = 3,
	WIRE_MTU_2048 = 4,
	WIRE_MTU_4096 = 5,
};

/* Bytes of an MTU enum value, 0 if the value is not 1..5. */
static inline uint32_t wire_mtu_bytes(unsigned mtu)
{
	return (mtu >= WIRE_MTU_256 && mtu <= WIRE_MTU_4096) ? 128u << mtu : 0;
}

/* Enum of an exact MTU byte count, 0 if it is not 256/512/1024/2048/4096. */
static inline unsigned wire_mtu_enum(uint32_t bytes)
{
	for (unsigned m = WIRE_MTU_256; m <= WIRE_MTU_4096; m++)
		if (wire_mtu_bytes(m) == bytes)
			return m;
	return 0;
}

/* Largest MTU enum whose size is <= bytes, 0 if bytes < 256.  E.g. the
 * active MTU of a port whose netdev MTU leaves `bytes` for RDMA payload. */
static inline unsigned wire_mtu_fit(uint32_t bytes)
{
	unsigned best = 0;

	for (unsigned m = WIRE_MTU_256; m <= WIRE_MTU_4096; m++)
		if (wire_mtu_bytes(m) <= bytes)
			best = m;
	return best;
}

/* Pad bytes after a payload of len bytes (to a 4-byte multiple). */
static inline unsigned wire_pad_len(uint32_t len)
{
	return (0u - len) & 3u;
}

/* ------------------------------------------------------------------------
 * Opcodes and the opcode table (wire_opcode.c).
 */
enum wire_opcode {
	/* RC */
	WIRE_OP_RC_SEND_FIRST = 0x00,
	WIRE_OP_RC_SEND_MIDDLE = 0x01,
	WIRE_OP_RC_SEND_LAST = 0x02,
	WIRE_OP_RC_SEND_LAST_IMM = 0x03,
	WIRE_OP_RC_SEND_ONLY = 0x04,
	WIRE_OP_RC_SEND_ONLY_IMM = 0x05,
	WIRE_OP_RC_WRITE_FIRST = 0x06,
	WIRE_OP_RC_WRITE_MIDDLE = 0x07,
	WIRE_OP_RC_WRITE_LAST = 0x08,
	WIRE_OP_RC_WRITE_LAST_IMM = 0x09,
	WIRE_OP_RC_WRITE_ONLY = 0x0A,
	WIRE_OP_RC_WRITE_ONLY_IMM = 0x0B,
	WIRE_OP_RC_READ_REQUEST = 0x0C,
	WIRE_OP_RC_READ_RESPONSE_FIRST = 0x0D,
	WIRE_OP_RC_READ_RESPONSE_MIDDLE = 0x0E,
	WIRE_OP_RC_READ_RESPONSE_LAST = 0x0F,
	WIRE_OP_RC_READ_RESPONSE_ONLY = 0x10,
	WIRE_OP_RC_ACKNOWLEDGE = 0x11,
	WIRE_OP_RC_ATOMIC_ACKNOWLEDGE = 0x12,
	WIRE_OP_RC_COMPARE_SWAP = 0x13,
	WIRE_OP_RC_FETCH_ADD = 0x14,
	WIRE_OP_RC_SEND_LAST_INV = 0x16,
	WIRE_OP_RC_SEND_ONLY_INV = 0x17,
	/* UC: the SEND and RDMA WRITE opcodes, RC + 0x20 */
	WIRE_OP_UC_SEND_FIRST = 0x20,
	WIRE_OP_UC_SEND_MIDDLE = 0x21,
	WIRE_OP_UC_SEND_LAST = 0x22,
	WIRE_OP_UC_SEND_LAST_IMM = 0x23,
	WIRE_OP_UC_SEND_ONLY = 0x24,
	WIRE_OP_UC_SEND_ONLY_IMM = 0x25,
	WIRE_OP_UC_WRITE_FIRST = 0x26,
	WIRE_OP_UC_WRITE_MIDDLE = 0x27,
	WIRE_OP_UC_WRITE_LAST = 0x28,
	WIRE_OP_UC_WRITE_LAST_IMM = 0x29,
	WIRE_OP_UC_WRITE_ONLY = 0x2A,
	WIRE_OP_UC_WRITE_ONLY_IMM = 0x2B,
	/* UD */
	WIRE_OP_UD_SEND_ONLY = 0x64,
	WIRE_OP_UD_SEND_ONLY_IMM = 0x65,
	/* RoCEv2 congestion notification packet (Annex A17.9.3) */
	WIRE_OP_CNP = 0x81,
};

#define WIRE_OP_BASE_RC	0x00
#define WIRE_OP_BASE_UC	0x20
#define WIRE_OP_BASE_UD	0x60

/* Extension headers that may follow the BTH, in wire order. */
enum wire_hdr {
	WIRE_HDR_RETH,
	WIRE_HDR_AETH,
	WIRE_HDR_ATMETH,
	WIRE_HDR_ATMACK,
	WIRE_HDR_IMMDT,
	WIRE_HDR_IETH,
	WIRE_HDR_DETH,
	WIRE_HDR_COUNT
};

#define WIRE_HM_RETH	(1u << WIRE_HDR_RETH)
#define WIRE_HM_AETH	(1u << WIRE_HDR_AETH)
#define WIRE_HM_ATMETH	(1u << WIRE_HDR_ATMETH)
#define WIRE_HM_ATMACK	(1u << WIRE_HDR_ATMACK)
#define WIRE_HM_IMMDT	(1u << WIRE_HDR_IMMDT)
#define WIRE_HM_IETH	(1u << WIRE_HDR_IETH)
#define WIRE_HM_DETH	(1u << WIRE_HDR_DETH)

/* Opcode flags. */
enum wire_op_flag {
	/* direction: exactly one of REQ (requester -> responder) or RESP
	 * (responder -> requester), or CNP */
	WIRE_OPF_REQ = 1u << 0,
	WIRE_OPF_RESP = 1u << 1,
	WIRE_OPF_ACK = 1u << 2,		/* ACKNOWLEDGE / ATOMIC ACKNOWLEDGE (also RESP) */
	WIRE_OPF_CNP = 1u << 3,
	/* operation class (READ includes the read responses, ATOMIC the atomic ACK) */
	WIRE_OPF_SEND = 1u << 4,
	WIRE_OPF_WRITE = 1u << 5,
	WIRE_OPF_READ = 1u << 6,
	WIRE_OPF_ATOMIC = 1u << 7,
	/* position in the message: exactly one of the four */
	WIRE_OPF_FIRST = 1u << 8,
	WIRE_OPF_MIDDLE = 1u << 9,
	WIRE_OPF_LAST = 1u << 10,
	WIRE_OPF_ONLY = 1u << 11,
	/* the packet carries payload after the transport headers */
	WIRE_OPF_PAYLOAD = 1u << 12,
	WIRE_OPF_IMM = 1u << 13,	/* carries ImmDt */
	WIRE_OPF_INV = 1u << 14,	/* carries IETH (SEND with invalidate) */
	/* consumes a receive WQE: the packet that starts a SEND, or an RDMA
	 * WRITE with immediate (its last/only packet) */
	WIRE_OPF_RWQE = 1u << 15,
	/* completes a receive WQE: the last packet of a SEND, or an RDMA WRITE
	 * with immediate */
	WIRE_OPF_RCOMP = 1u << 16,
};

#define WIRE_OPF_STARTS	(WIRE_OPF_FIRST | WIRE_OPF_ONLY)	/* begins a message */
#define WIRE_OPF_ENDS	(WIRE_OPF_LAST | WIRE_OPF_ONLY)		/* ends a message */

enum wire_transport {
	WIRE_TRANSPORT_NONE = 0,	/* invalid opcode */
	WIRE_TRANSPORT_RC = 1,
	WIRE_TRANSPORT_UC = 2,
	WIRE_TRANSPORT_UD = 3,
	WIRE_TRANSPORT_CNP = 4,
};

struct wire_opcode_info {
	const char *name;		/* "RC_SEND_ONLY"; NULL: invalid opcode */
	uint32_t flags;			/* WIRE_OPF_*; 0: invalid opcode */
	uint8_t hdrs;			/* WIRE_HM_* */
	uint8_t transport;		/* enum wire_transport */
	uint8_t hdr_len;		/* BTH + extension headers (bytes) */
	uint8_t off[WIRE_HDR_COUNT];	/* offset from the BTH; 0 if absent */
};

/* Indexed by the BTH opcode; an invalid opcode has an all-zero entry. */
extern const struct wire_opcode_info wire_opcode_table[256];

/* Table entry of a valid opcode, NULL for an invalid one. */
static inline const struct wire_opcode_info *wire_opcode_info(uint8_t opcode)
{
	const struct wire_opcode_info *info = &wire_opcode_table[opcode];

	return info->flags ? info : NULL;
}

/* Name of an opcode, "INVALID" for an unknown one (never NULL). */
const char *wire_opcode_name(uint8_t opcode);

/* ------------------------------------------------------------------------
 * Errors (parser, ICRC, builder).  Negative; 0 is success.
 */
enum wire_err {
	WIRE_OK = 0,
	WIRE_ERR_TRUNCATED = -1,	/* frame shorter than its headers/lengths say */
	WIRE_ERR_NOT_IP = -2,		/* Ethernet type not IPv4/IPv6 (ARP...) */
	WIRE_ERR_NOT_ROCE = -3,		/* IP, but not UDP port 4791 */
	WIRE_ERR_BAD_IP = -4,		/* bad version/IHL/length/fragment */
	WIRE_ERR_BAD_IP_CSUM = -5,	/* IPv4 header checksum */
	WIRE_ERR_BAD_UDP = -6,		/* UDP length inconsistent */
	WIRE_ERR_BAD_VERSION = -7,	/* BTH TVer != 0 */
	WIRE_ERR_BAD_OPCODE = -8,	/* opcode not in the table */
	WIRE_ERR_BAD_LENGTH = -9,	/* transport headers/pad do not fit */
	WIRE_ERR_BAD_ICRC = -10,
	WIRE_ERR_INVAL = -11,		/* bad argument (builder) */
	WIRE_ERR_NOSPC = -12,		/* output buffer too small (builder) */
};
#define WIRE_ERR_COUNT 13

/* Static description of an error code ("ok" for 0, "unknown error" for an
 * unknown code; never NULL). */
const char *wire_err_str(int err);

/* ------------------------------------------------------------------------
 * CRC-32 and ICRC (wire_icrc.c).
 */

/* CRC-32 (IEEE 802.3 / zlib: reflected polynomial 0xEDB88320, initial and
 * final inversion), continued from crc.  Same contract as zlib's crc32():
 * wire_crc32(0, "123456789", 9) == 0xCBF43926, and
 * wire_crc32(wire_crc32(0, a, n), b, m) == CRC of a||b.  buf may be NULL
 * when len is 0.  Uses PCLMULQDQ folding when the CPU has it, and AVX-512
 * VPCLMULQDQ from 256 bytes on where it has that too. */
uint32_t wire_crc32(uint32_t crc, const void *buf, size_t len);

/* The portable slice-by-8 implementation (same contract).  Exposed for tests. */
uint32_t wire_crc32_sw(uint32_t crc, const void *buf, size_t len);
/* The folding implementation at the level in use (wire_crc32_set_level);
 * the table below 64 bytes or at level 0.  Exposed for tests. */
uint32_t wire_crc32_clmul(uint32_t crc, const void *buf, size_t len);
/* True if the CPU (and the build) have PCLMULQDQ. */
bool wire_crc32_has_clmul(void);
/* True if the CPU also has AVX-512 VPCLMULQDQ, used from 256 bytes on. */
bool wire_crc32_has_vpclmul(void);
/* Limit the CRC code used from now on (tests, benchmarks): 0 the table,
 * 1 PCLMULQDQ, 2 VPCLMULQDQ; a negative value or one above what the CPU
 * has selects the best it has.  Returns the level in use. */
int wire_crc32_set_level(int level);
/* The slice-by-8 tables (tab[0] is the classic byte table).  For tests. */
extern const uint32_t wire_crc32_tab[8][256];

/*
 * ICRC (IBA Annex A17.3.3; PROTOCOL.md "ICRC").  The running value is a
 * wire_crc32() value; the final value V is sent as the 4 bytes of V least
 * significant first (wire_icrc_put).
 *
 * Incremental use (payload gathered from several buffers):
 *	crc = wire_icrc_begin(ip);              IP + UDP + BTH, masked
 *	crc = wire_icrc_update(crc, ext, n);    extension headers after the BTH
 *	crc = wire_icrc_update(crc, piece, m);  ... payload pieces, then the pad
 *	wire_icrc_put(icrc_dst, crc);
 *
 * wire_icrc_begin_ipv4/ipv6 read the 20/40-byte IP header, the 8-byte UDP
 * header and the 12-byte BTH that follow it contiguously at ip (which the
 * caller has validated).  wire_icrc_begin picks by the IP version nibble
 * (6: IPv6, anything else: IPv4).
 */
uint32_t wire_icrc_begin_ipv4(const void *ip);
uint32_t wire_icrc_begin_ipv6(const void *ip);
uint32_t wire_icrc_begin(const void *ip);

static inline uint32_t wire_icrc_update(uint32_t crc, const void *buf, size_t len)
{
	return wire_crc32(crc, buf, len);
}

/* Store / load an ICRC value in its wire byte order. */
static inline void wire_icrc_put(uint8_t *dst, uint32_t icrc)
{
	dst[0] = (uint8_t)icrc;
	dst[1] = (uint8_t)(icrc >> 8);
	dst[2] = (uint8_t)(icrc >> 16);
	dst[3] = (uint8_t)(icrc >> 24);
}

static inline uint32_t wire_icrc_get(const uint8_t *src)
{
	return (uint32_t)src[0] | (uint32_t)src[1] << 8 |
	       (uint32_t)src[2] << 16 | (uint32_t)src[3] << 24;
}

/*
 * Whole-packet forms.  ip points at the IPv4 (no options) or IPv6 header,
 * len is the number of bytes from ip up to, not including, the ICRC (which
 * is at ip + len).  They need len >= IP + UDP + BTH headers and return
 * WIRE_ERR_TRUNCATED otherwise, WIRE_ERR_BAD_IP if the version nibble is
 * neither 4 nor 6.
 */
/* Computes the ICRC into *icrc; returns 0 or a WIRE_ERR_*. */
int wire_icrc_calc(const void *ip, size_t len, uint32_t *icrc);
/* 0 if the ICRC at ip + len is correct, WIRE_ERR_BAD_ICRC if not. */
int wire_icrc_check(const void *ip, size_t len);
/* Writes the ICRC at ip + len (4 bytes); returns 0 or a WIRE_ERR_*. */
int wire_icrc_write(void *ip, size_t len);

/* ------------------------------------------------------------------------
 * IPv4 header checksum (RFC 791/1071) of a 20-byte header, ignoring the
 * current checksum field; the value to store in it.
 */
uint16_t wire_ipv4_csum(const void *ip);

/* ------------------------------------------------------------------------
 * Frame parser (wire_pkt.c).
 */
struct wire_pkt {
	/* offsets from the start of the frame */
	uint16_t ip_off;
	uint16_t udp_off;
	uint16_t bth_off;
	uint16_t hdr_off[WIRE_HDR_COUNT];	/* per enum wire_hdr; 0: absent */
	uint16_t payload_off;
	uint32_t payload_len;		/* excluding the pad */
	uint32_t frame_len;		/* bytes used, through the ICRC (any
					 * Ethernet padding excluded) */
	uint8_t pad;			/* BTH PadCnt */
	uint8_t opcode;
	const struct wire_opcode_info *info;	/* never NULL after success */
	/* BTH */
	uint32_t dqpn;
	uint32_t psn;
	uint16_t pkey;
	bool ackreq;
	bool se;
	bool mig;
	bool fecn;
	bool becn;
	/* L2 */
	uint8_t dmac[6];
	uint8_t smac[6];
	bool has_vlan;
	uint16_t vlan_tci;		/* when has_vlan */
	/* L3/L4 */
	uint8_t ip_ver;			/* 4 or 6 */
	uint8_t tclass;			/* IPv4 TOS / IPv6 traffic class (ECN: low 2 bits) */
	uint8_t ttl;			/* IPv4 TTL / IPv6 hop limit */
	uint32_t flow_label;		/* IPv6 only, else 0 */
	uint8_t sgid[16];		/* IPv4: ::ffff:a.b.c.d */
	uint8_t dgid[16];
	uint16_t sport;			/* UDP source port */
};

/* Flags of wire_parse(). */
#define WIRE_PARSE_NO_ICRC	0x1u	/* skip the ICRC check */
#define WIRE_PARSE_NO_IP_CSUM	0x2u	/* skip the IPv4 header checksum check
					 * (e.g. the NIC verified it) */

/*
 * Parses and validates a whole Ethernet frame (no FCS) of len bytes.
 *
 * Accepts Ethernet [+ one 802.1Q tag] + IPv4 (IHL 5, no fragment, DF
 * optional) or IPv6 (next header UDP) + UDP to port 4791 + BTH with TVer 0
 * and a known opcode + the opcode's extension headers + payload + pad + ICRC.
 * The IP length decides where the packet ends: bytes after it (Ethernet
 * minimum-size padding) are ignored.  Checked: IPv4 header checksum (a host
 * must drop a datagram whose header checksum is wrong, RFC 1122 3.2.1.2;
 * the ICRC does not cover the fields a router changes, so this is the only
 * check of TOS/TTL; WIRE_PARSE_NO_IP_CSUM skips it), UDP length == IP
 * payload length, transport headers + ICRC fit, PadCnt <= payload bytes,
 * headers + payload + pad a multiple of 4 bytes, no payload bytes for an
 * opcode without payload, ICRC (unless WIRE_PARSE_NO_ICRC).
 * Not checked: MAC addresses, UDP checksum (soft-RoCE sends 0; the ICRC
 * covers the UDP payload), P_Key, Q_Key, QPN, PSN, MTU: the engine's job.
 *
 * Never reads outside [frame, frame + len).  Returns 0 and fills *out, or a
 * negative enum wire_err (out is then partially written):
 *   WIRE_ERR_NOT_IP / WIRE_ERR_NOT_ROCE: not for us (ARP, other IP traffic,
 *   non-first IPv4 fragments); everything else is a malformed RoCEv2 packet.
 */
int wire_parse(const uint8_t *frame, size_t len, unsigned flags,
	       struct wire_pkt *out);

/* Pointers into a parsed frame. */
static inline const struct wire_bth *wire_pkt_bth(const uint8_t *frame,
						  const struct wire_pkt *p)
{
	return (const struct wire_bth *)(const void *)(frame + p->bth_off);
}

/* Extension header h of a parsed frame, NULL if the opcode has none. */
static inline const void *wire_pkt_hdr(const uint8_t *frame,
				       const struct wire_pkt *p, enum wire_hdr h)
{
	return p->hdr_off[h] ? frame + p->hdr_off[h] : NULL;
}

/* ------------------------------------------------------------------------
 * Frame builder (wire_build.c).
 */
struct wire_build {
	/* L2 */
	uint8_t dmac[6];
	uint8_t smac[6];
	bool vlan;			/* insert an 802.1Q tag */
	uint16_t vlan_tci;
	/* L3 */
	bool ipv6;			/* else IPv4 */
	uint8_t sgid[16];		/* IPv4: ::ffff:a.b.c.d (last 4 bytes used) */
	uint8_t dgid[16];
	uint8_t tclass;			/* IPv4 TOS / IPv6 traffic class; 0 = DSCP 0, ECN 0 */
	uint8_t ttl;			/* IPv4 TTL / IPv6 hop limit (init: 64) */
	uint32_t flow_label;		/* IPv6 (20 bits; init: 0) */
	uint16_t ip_id;			/* IPv4 identification (DF is always set) */
	/* L4 */
	uint16_t sport;			/* see wire_udp_sport() */
	/* BTH */
	uint8_t opcode;
	bool se;
	bool mig;
	bool fecn;
	bool becn;
	bool ackreq;
	uint16_t pkey;			/* init: 0xFFFF */
	uint32_t dqpn;
	uint32_t psn;
	/* payload bytes that will follow the headers: PadCnt and lengths */
	uint32_t payload_len;
	/* extension headers, used when the opcode has them */
	uint64_t va;			/* RETH, AtomicETH */
	uint32_t rkey;			/* RETH, AtomicETH */
	uint32_t dma_len;		/* RETH */
	uint8_t syndrome;		/* AETH */
	uint32_t msn;			/* AETH */
	uint64_t swap_add;		/* AtomicETH */
	uint64_t compare;		/* AtomicETH */
	uint64_t orig;			/* AtomicAckETH */
	uint32_t imm;			/* ImmDt, host order */
	uint32_t inv_rkey;		/* IETH */
	uint32_t qkey;			/* DETH */
	uint32_t src_qpn;		/* DETH */
};

/* Zeroes *b and sets the defaults: TTL 64, P_Key 0xFFFF. */
void wire_build_init(struct wire_build *b);

/*
 * Writes Ethernet [+ VLAN] + IP + UDP + BTH + the opcode's extension headers
 * at buf (cap bytes), with every length, PadCnt and the IPv4 header checksum
 * computed for b->payload_len bytes of payload (so a caller that gathers the
 * payload elsewhere only has to append payload, pad and ICRC).  IPv4: TOS
 * b->tclass, DF set, TTL b->ttl, ID b->ip_id; UDP checksum 0 (as soft-RoCE,
 * for IPv6 too).  A CNP gets its 16 reserved bytes zeroed.
 * Returns the header length (> 0), WIRE_ERR_BAD_OPCODE, WIRE_ERR_INVAL
 * (payload for an opcode without payload, or a frame over 64 KiB) or
 * WIRE_ERR_NOSPC.
 */
int wire_build_hdrs(uint8_t *buf, size_t cap, const struct wire_build *b);

/*
 * Completes a contiguous frame built by wire_build_hdrs() whose first len
 * bytes (headers + payload) are written: zero-pads the payload to a 4-byte
 * multiple, sets PadCnt, IP total / payload length, the IPv4 header checksum
 * and the UDP length from the actual length, and appends the ICRC.
 * Returns the frame length (len + pad + 4), or WIRE_ERR_NOSPC if cap is too
 * small, WIRE_ERR_INVAL / WIRE_ERR_BAD_OPCODE if buf does not hold a frame
 * from wire_build_hdrs().
 */
int wire_build_finish(uint8_t *buf, size_t cap, size_t len);

/*
 * Completes a frame whose headers wire_build_hdrs() wrote from the same *b
 * (hdr_len is what it returned) and whose b->payload_len payload bytes
 * follow them: zero-pads the payload and appends the ICRC.  The lengths
 * and checksums wire_build_hdrs() set stand; nothing is re-read but what
 * the ICRC covers.  Returns the frame length, WIRE_ERR_NOSPC if cap is too
 * small, or WIRE_ERR_INVAL (NULL buf or b, hdr_len shorter than the fixed
 * headers).
 */
int wire_build_seal(uint8_t *buf, size_t cap, const struct wire_build *b,
		    size_t hdr_len);

/*
 * Makes the len bytes at buf (Ethernet [+ 802.1Q] + IPv4 without options
 * or IPv6 + UDP + at least a BTH, then the 4 bytes of the ICRC) consistent
 * with that length, whatever the transport headers say: IPv4 total length
 * and header checksum or IPv6 payload length, UDP length, UDP checksum 0,
 * ICRC.  For test programs that change or cut frames and want them to
 * reach the transport's checks (nothing else is touched: opcode, PadCnt
 * and extension headers stay as they are).  Returns 0, or WIRE_ERR_INVAL
 * (nothing written) if buf is not such a frame or longer than an IP
 * datagram may be.
 */
int wire_reseal(uint8_t *buf, size_t len);

/*
 * A header template: what wire_build_hdrs() writes for one flow that does
 * not change from packet to packet (MACs, VLAN, IP version, addresses,
 * traffic class, TTL, flow label, UDP source port, P_Key, destination QP,
 * MigReq, FECN, BECN), written once and copied for every packet.
 */
#define WIRE_TMPL_MAX (WIRE_ETH_LEN + WIRE_VLAN_LEN + WIRE_IPV6_LEN + \
		       WIRE_UDP_LEN + WIRE_BTH_LEN)
struct wire_tmpl {
	uint8_t hdr[WIRE_TMPL_MAX + 2];	/* + 2: a whole number of 16 bytes */
	uint8_t ip_off;			/* 14, or 18 with a VLAN tag */
	uint8_t bth_off;
	bool ipv6;
	uint32_t csum_base;		/* IPv4: the checksum's fixed words */
};

/*
 * Writes the template of the flow *b describes (its per-packet fields are
 * ignored).  Returns 0, or WIRE_ERR_INVAL for a NULL argument.
 */
int wire_tmpl_init(struct wire_tmpl *t, const struct wire_build *b);

/*
 * wire_build_hdrs() from a template: the same bytes as wire_build_hdrs()
 * with *b holding the template's flow fields.  Read from *b: opcode, se,
 * ackreq, psn, payload_len, ip_id, and the extension header fields the
 * opcode has; every other field of *b is ignored.  Same return values.
 * wire_build_seal() reads b->vlan and b->ipv6 as well: start *b with
 * wire_tmpl_build_init().
 */
int wire_tmpl_hdrs(uint8_t *buf, size_t cap, const struct wire_tmpl *t,
		   const struct wire_build *b);

/*
 * A frame of a connected QP whose headers are fixed by its opcode: what
 * wire_tmpl_one() needs besides the template.  The opcodes:
 *  - requests of one packet, the message whole: SEND_ONLY, SEND_ONLY_IMM,
 *    WRITE_ONLY and WRITE_ONLY_IMM of RC or UC; READ_REQUEST,
 *    COMPARE_SWAP and FETCH_ADD of RC;
 *  - the responder's packets (RC): ACKNOWLEDGE, ATOMIC_ACKNOWLEDGE and
 *    the four READ_RESPONSEs.
 * Fields an opcode has no header for are not read.
 */
struct wire_one {
	uint8_t opcode;
	bool se;
	bool ackreq;
	uint16_t ip_id;			/* IPv4 identification */
	uint32_t psn;
	uint32_t imm;			/* ImmDt, host order (_IMM opcodes) */
	uint64_t va;			/* RETH (WRITE, READ), AtomicETH */
	uint32_t rkey;
	uint32_t dma_len;		/* RETH DMA length of a READ_REQUEST;
					 * a WRITE's is len */
	uint64_t swap_add;		/* AtomicETH: swap (COMPARE_SWAP) or
					 * add (FETCH_ADD) */
	uint64_t compare;		/* AtomicETH (COMPARE_SWAP) */
	uint8_t syndrome;		/* AETH */
	uint32_t msn;			/* AETH */
	uint64_t orig;			/* AtomicAckETH */
	uint32_t len;			/* payload bytes: SENDs, WRITEs and
					 * READ_RESPONSEs only */
	const void *data;		/* the payload (NULL when len is 0) */
};

/*
 * The whole frame *o from template t at buf (cap bytes): the bytes
 * wire_tmpl_hdrs() and wire_build_seal() write, with the payload copied in
 * between, in one pass and without a struct wire_build.  Returns the frame
 * length, WIRE_ERR_BAD_OPCODE for an opcode other than those above,
 * WIRE_ERR_NOSPC if cap is too small (nothing written), or WIRE_ERR_INVAL
 * (a NULL argument, data NULL with len > 0, a payload for an opcode that
 * has none, a datagram longer than its IP length field holds).
 */
int wire_tmpl_one(uint8_t *buf, size_t cap, const struct wire_tmpl *t,
		  const struct wire_one *o);

/* wire_build_init(b), with the IP version and the VLAN tag's presence of
 * template t (what wire_build_seal() needs of the flow). */
void wire_tmpl_build_init(struct wire_build *b, const struct wire_tmpl *t);

/*
 * UDP source port of a QP: 0xC000 | (hash & 0x3FFF), flow entropy for
 * ECMP/RSS, fixed per QP (the RoCEv2 range 0xC000-0xFFFF).
 *
 * wire_udp_sport(qpn): Linux soft-RoCE's choice at QP creation, used for UD
 *   QPs: hash_32(qpn, 14) = (qpn * 0x61C88647) >> 18 (the golden-ratio
 *   multiplicative hash).  rxe QP1 -> 55410.
 * wire_udp_sport_flow(lqpn, rqpn): what soft-RoCE uses for a connected
 *   QP whose address vector has flow label 0: the flow label
 *   rdma_calc_flow_label(lqpn, rqpn) (v = lqpn * rqpn; v ^= v >> 20;
 *   v ^= v >> 40; 20 bits) folded to 14 bits as rdma_flow_label_to_udp_sport
 *   (low 14 bits ^ high 6 bits).  QPN 0x12 <-> 0x12 -> 49476.
 * wire_udp_sport_fl(fl): the same folding of a nonzero flow label.
 */
uint16_t wire_udp_sport(uint32_t qpn);
uint16_t wire_udp_sport_fl(uint32_t flow_label);
uint16_t wire_udp_sport_flow(uint32_t lqpn, uint32_t rqpn);

#ifdef __cplusplus
}
#endif

#endif /* WIRE_H */
