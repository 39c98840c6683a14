/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target: the RoCE engine against frames from a peer that may say
 * anything, with verbs calls in between.
 *
 * One process, a RoCE device on a port of two rte_rings (ringport.c):
 * the target puts frames on the receive ring and takes what the device
 * sends off the transmit ring.  Each input gets four new QPs, RC, UC, UD
 * and an RC QP whose receives come from a new SRQ, connected to a peer
 * that does not exist (QPN FAKE_QPN at the device's own address), on a
 * context in inline or manual progress mode.  The input chooses the RC
 * QPs' local ACK timeout (infinite, or 8 to 32 us, so that retries,
 * solicits and their exhaustion happen) and retry counts, the RNR timer
 * and retries, the SRQ's limit, and is read as a list of steps:
 *
 *   a frame to one of the QPs (or to any QPN), IPv4 or IPv6 (the device
 *     has an address of each), tagged or not: an opcode, a PSN near the
 *     one the QP expects, addresses in and around the regions, keys, AETH
 *     syndrome, lengths and payload chosen by the input, then left valid,
 *     changed and made consistent again (IPv4 lengths, checksum, ICRC),
 *     changed and left so, or cut;
 *   an engine run, at once or after a wait of up to 64 us (the RC
 *     timers); a receive posted (to the SRQ for the fourth QP); a SEND,
 *     WRITE, READ or atomic posted (the device's frames for them go
 *     nowhere but the checks); a poll of every CQ; a QP moved to ERR.
 *
 * At the end every QP is moved to ERR and the engine run until its WRs
 * have completed.  Checked, besides ASan's watch over every access:
 *   - every WR posted completes exactly once (a receive posted to the
 *     SRQ at most once: the SRQ keeps those no QP took), with its own
 *     QP's number, a status the API defines and, for a receive, at most
 *     the bytes it had room for; nothing completes that was not posted,
 *     and nothing after the QPs' flush;
 *   - every frame the device sends parses with every check on;
 *   - no byte changes outside the region remote peers may write (guard
 *     bytes on both sides); in the QPs' local buffers (receives, READ
 *     and atomic results) only bytes that an SGE of a WR posted in the
 *     input names; none in the region registered for local access only
 *     (the source of the QPs' SENDs and WRITEs).
 * The timers make a run depend on time: an input replayed may take
 * another path where a wait and a timer meet.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include <pmr_verbs.h>

#include "fuzz.h"
#include "ringport.h"
#include "vt.h"
#include "wire.h"

enum {
	NET = 95,               /* the devices' addresses: 10.NET.0.1, +1 */
	FAKE_QPN = 0xABCD,      /* the peer's QPN */
	QKEY = 0x11111111,
	RSIZE = 8192,           /* the region peers may write */
	DSIZE = 8192,           /* the QPs' receive, READ and atomic buffers */
	LSIZE = 8192,           /* the QPs' SEND and WRITE sources */
	GUARD = 4096,
	NQ = 4,                 /* RC, UC, UD, RC on the SRQ */
	SQ = 3,                 /* the QP on the SRQ */
	QWR = 16,               /* each QP's send and receive queues, the SRQ */
	MAX_STEPS = 128,
	MAX_POSTS = 256,        /* per QP and queue in one input */
	FILL_R = 0x5A,
	FILL_D = 0x96,
	FILL_L = 0xC3,
};

struct fctx {                   /* one per progress mode (and device) */
	struct ringport rp;
	struct vt v;
	struct pmr_mr *rmr, *dmr, *lmr;
	struct pmr_cq *scq[NQ], *rcq[NQ];
	struct pmr_ah *ah;
	union pmr_gid gid6;             /* the device's IPv6 address */
};

struct fq {                     /* one QP of the input */
	struct pmr_qp *qp;
	bool srq;                       /* its receives are the SRQ's */
	uint32_t req_psn, resp_psn;     /* PSN bases of the frames sent to it */
	unsigned int nsend, nrecv;      /* WRs posted */
	uint8_t sdone[MAX_POSTS], rdone[MAX_POSTS];
	uint32_t rroom[MAX_POSTS];      /* a receive's bytes of room */
};

static struct rte_mempool *pool;
static struct fctx ctxs[2];
static uint8_t *rbuf, *dbuf, *lbuf;     /* the regions, GUARD bytes in */
static uint8_t dmay[DSIZE];     /* bytes of dbuf a WR of the input names */
static uint8_t known_ops[256];  /* the opcodes of the table */
static unsigned int nknown;

static void known_ops_init(void)
{
	if (nknown != 0)
		return;
	for (unsigned int op = 0; op < 256; op++)
		if (wire_opcode_info((uint8_t)op) != NULL)
			known_ops[nknown++] = (uint8_t)op;
}

/* What the inputs did, printed at exit with FUZZ_STATS set: a check that
 * the seeds and their mutations reach what they are meant to. */
static struct {
	unsigned long inputs, frames, sent, runs, waits, recvs, sends, errs;
	unsigned long srq_left, timed;
	unsigned long wc[PMR_WC_TM_RNDV_INCOMPLETE + 1][2];
	bool verbose;           /* FUZZ_STATS=2: every completion */
} st;

static void stats_print(void)
{
	fprintf(stderr, "inputs %lu (%lu with ACK timeouts), frames in %lu, "
		"frames out %lu, engine runs %lu (%lu after a wait), receives "
		"%lu and sends %lu posted, QPs to ERR %lu, SRQ receives left "
		"%lu\n", st.inputs, st.timed, st.frames, st.sent, st.runs,
		st.waits, st.recvs, st.sends, st.errs, st.srq_left);
	for (int i = 0; i <= PMR_WC_TM_RNDV_INCOMPLETE; i++)
		if (st.wc[i][0] + st.wc[i][1] != 0)
			fprintf(stderr, "  %-24s send %lu, recv %lu\n",
				pmr_wc_status_str((enum pmr_wc_status)i),
				st.wc[i][0], st.wc[i][1]);
}

/* ---- the input ----------------------------------------------------- */

struct in {
	const uint8_t *p;
	size_t n;
};

static uint8_t in8(struct in *r)
{
	if (r->n == 0)
		return 0;
	r->n--;
	return *r->p++;
}

/* (one read a statement: the order of calls within one is unspecified) */
static uint16_t in16(struct in *r)
{
	uint16_t lo = in8(r);

	return (uint16_t)(lo | in8(r) << 8);
}

static uint32_t in32(struct in *r)
{
	uint32_t lo = in16(r);

	return lo | (uint32_t)in16(r) << 16;
}

/* ---- set-up, once ---------------------------------------------------- */

static uint8_t *region(size_t size, uint8_t fill)
{
	uint8_t *b = malloc(size + 2 * GUARD);

	FZ_CHECK(b != NULL);
	memset(b, fill, size + 2 * GUARD);
	return b + GUARD;
}

static void ctx_open(struct fctx *c, const char *name, uint8_t net,
		     enum pmr_progress_mode mode)
{
	char extra[40];
	struct pmr_device *dev;
	struct pmr_ah_attr ah;

	snprintf(extra, sizeof(extra), ",ipv6=fd00:%u::1", net);
	dev = ringport_device_args(&c->rp, name, 1024, net, extra);
	FZ_CHECK(dev != NULL);
	vt_open_dev(&c->v, dev);
	FZ_CHECK(pmr_query_gid(c->v.ctx, 1, 1, &c->gid6) == 0);
	FZ_CHECK(c->gid6.raw[0] == 0xfd);      /* (not the IPv4 one) */
	FZ_CHECK(pmr_set_progress_mode(c->v.ctx, mode) == 0);
	c->rmr = vt_mr(c->v.pd, rbuf, RSIZE, PMR_ACCESS_LOCAL_WRITE |
		       PMR_ACCESS_REMOTE_WRITE | PMR_ACCESS_REMOTE_READ |
		       PMR_ACCESS_REMOTE_ATOMIC);
	c->dmr = vt_mr(c->v.pd, dbuf, DSIZE, PMR_ACCESS_LOCAL_WRITE);
	c->lmr = vt_mr(c->v.pd, lbuf, LSIZE, 0);
	for (int q = 0; q < NQ; q++) {
		c->scq[q] = vt_cq(&c->v, 4 * MAX_POSTS);
		c->rcq[q] = vt_cq(&c->v, 4 * MAX_POSTS);
	}
	vt_ah_attr(&c->v, &ah);
	c->ah = pmr_create_ah(c->v.pd, &ah);
	FZ_CHECK(c->ah != NULL);
}

int LLVMFuzzerInitialize(int *argc, char **argv[])
{
	(void)argc;
	(void)argv;
	/* as test/func/ops/ring.sh sets them, for a run without it */
	setenv("PMR_EAL_ARGS", "-l 0 --no-pci --no-huge -m 512 --no-shconf "
	       "--vdev net_ring0 --log-level=lib.eal:error", 0);
	setenv("PMR_DEVICES", "roce:port=0,ipv4=10.98.0.1,"
	       "mac=02:00:00:00:98:01,neigh=10.98.0.1/02:00:00:00:98:01", 0);
	ringport_eal_init();
	pool = rte_pktmbuf_pool_create("fuzz_pool", 4095, 256, 0,
				       RTE_PKTMBUF_HEADROOM + 8192,
				       (int)rte_socket_id());
	FZ_CHECK(pool != NULL);
	rbuf = region(RSIZE, FILL_R);
	dbuf = region(DSIZE, FILL_D);
	lbuf = region(LSIZE, FILL_L);
	ctx_open(&ctxs[0], "fz_inline", NET, PMR_PROGRESS_INLINE);
	ctx_open(&ctxs[1], "fz_manual", NET + 1, PMR_PROGRESS_MANUAL);
	known_ops_init();
	if (getenv("FUZZ_STATS") != NULL) {
		atexit(stats_print);
		st.verbose = strcmp(getenv("FUZZ_STATS"), "2") == 0;
	}
	return 0;
}

/* ---- what the device sends ------------------------------------------- */

/* Take every frame off the transmit ring: each must parse. */
static void tx_drain(struct fctx *c)
{
	void *o;

	while (rte_ring_dequeue(c->rp.tx, &o) == 0) {
		struct rte_mbuf *m = o;
		const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *);
		struct wire_pkt p;
		int rc;

		FZ_CHECK(m->nb_segs == 1);
		rc = wire_parse(f, m->data_len, 0, &p);
		if (rc != 0)
			fprintf(stderr, "the device sent a frame that does "
				"not parse: %s\n", wire_err_str(rc));
		FZ_CHECK(rc == 0);
		FZ_CHECK(p.dqpn == FAKE_QPN);
		st.sent++;
		rte_pktmbuf_free(m);
	}
}

static void run_engine(struct fctx *c)
{
	st.runs++;
	for (int i = 0; i < 2; i++) {
		FZ_CHECK(pmr_progress(c->v.ctx, 64) >= 0);
		tx_drain(c);
	}
}

/* Engine runs after `us` microseconds, for the timers to expire in: as
 * many as the device makes between two looks at its timers. */
static void wait_run(struct fctx *c, unsigned int us)
{
	st.waits++;
	rte_delay_us_block(us);
	for (int i = 0; i < 16; i++) {
		FZ_CHECK(pmr_progress(c->v.ctx, 64) >= 0);
		tx_drain(c);
	}
}

/* ---- completions ----------------------------------------------------- */

static uint64_t wr_id(int q, bool recv, unsigned int seq)
{
	return (uint64_t)q << 40 | (uint64_t)recv << 32 | seq;
}

static void check_wc(struct fq *qs, int q, bool recv,
		     const struct pmr_wc *wc)
{
	struct fq *f = &qs[q];
	unsigned int seq = (unsigned int)(wc->wr_id & 0xFFFFFFFFu);

	if (wc->status > PMR_WC_TM_RNDV_INCOMPLETE ||
	    (wc->wr_id >> 40) != (uint64_t)q ||
	    ((wc->wr_id >> 32) & 0xFF) != recv)
		fprintf(stderr, "QP %d %s: wr_id %#llx status %d\n", q,
			recv ? "recv" : "send",
			(unsigned long long)wc->wr_id, (int)wc->status);
	FZ_CHECK(wc->status <= PMR_WC_TM_RNDV_INCOMPLETE);
	FZ_CHECK((wc->wr_id >> 40) == (uint64_t)q);
	FZ_CHECK(((wc->wr_id >> 32) & 0xFF) == recv);
	FZ_CHECK(wc->qp_num == f->qp->qp_num);
	st.wc[wc->status][recv]++;
	if (st.verbose)
		fprintf(stderr, "input %lu: QP %d %s %u: %s, %u bytes\n",
			st.inputs, q, recv ? "recv" : "send", seq,
			pmr_wc_status_str(wc->status), wc->byte_len);
	if (recv) {
		FZ_CHECK(seq < f->nrecv);
		FZ_CHECK(!f->rdone[seq]);
		f->rdone[seq] = 1;
		/* (a WRITE with immediate reports the WRITE's length) */
		if (wc->status == PMR_WC_SUCCESS &&
		    wc->opcode == PMR_WC_RECV &&
		    wc->byte_len > f->rroom[seq])
			fprintf(stderr, "QP %d recv %u: %u bytes, room for "
				"%u\n", q, seq, wc->byte_len, f->rroom[seq]);
		FZ_CHECK(wc->status != PMR_WC_SUCCESS ||
			 wc->opcode != PMR_WC_RECV ||
			 wc->byte_len <= f->rroom[seq]);
	} else {
		FZ_CHECK(seq < f->nsend);
		FZ_CHECK(!f->sdone[seq]);
		f->sdone[seq] = 1;
	}
}

/* Every CQ until empty.  @return the completions read. */
static unsigned int poll_all(struct fctx *c, struct fq *qs)
{
	struct pmr_wc wc[16];
	unsigned int got = 0;

	for (int q = 0; q < NQ; q++) {
		for (int k = 0; k < 2; k++) {
			struct pmr_cq *cq = k ? c->rcq[q] : c->scq[q];
			int n;

			while ((n = pmr_poll_cq(cq, 16, wc)) > 0) {
				for (int i = 0; i < n; i++)
					check_wc(qs, q, k, &wc[i]);
				got += (unsigned int)n;
			}
			FZ_CHECK(n == 0);
		}
	}
	return got;
}

/* The WRs not completed yet (with srq, the SRQ's receives too). */
static unsigned int outstanding(const struct fq *qs, bool srq)
{
	unsigned int n = 0;

	for (int q = 0; q < NQ; q++) {
		for (unsigned int i = 0; i < qs[q].nsend; i++)
			n += !qs[q].sdone[i];
		if (qs[q].srq && !srq)
			continue;
		for (unsigned int i = 0; i < qs[q].nrecv; i++)
			n += !qs[q].rdone[i];
	}
	return n;
}

/* ---- the steps ------------------------------------------------------- */

static uint64_t pick_va(struct in *r)
{
	switch (in8(r) % 6) {
	case 0:
		return (uintptr_t)rbuf + in16(r) % (RSIZE + 256) - 128;
	case 1:         /* near either end of the region */
		return (uintptr_t)rbuf + RSIZE - in8(r);
	case 2:
		return (uintptr_t)rbuf + in8(r) - 128;
	case 3:
		return (uintptr_t)lbuf + in16(r) % LSIZE;
	case 4: {
		uint64_t hi = in32(r);

		return hi << 32 | in32(r);
	}
	default:
		return 0;
	}
}

static uint32_t pick_rkey(struct in *r, const struct fctx *c)
{
	switch (in8(r) % 4) {
	case 0:
		return c->rmr->rkey;
	case 1:
		return c->lmr->rkey;
	case 2:
		return in32(r);
	default:
		return 0;
	}
}

/* A frame to QP q (q == NQ: to a QPN the input gives). */
static void step_frame(struct in *r, struct fctx *c, struct fq *qs)
{
	uint8_t sel = in8(r), opb = in8(r), raw_op = 0, fl, mode, sp;
	uint32_t bth_off;
	int q = sel % (NQ + 1);
	const struct wire_opcode_info *info;
	uint32_t *base, plen = 0, len, room;
	struct wire_build b;
	struct rte_mbuf *m;
	uint8_t *f;
	int hl, n;

	wire_build_init(&b);
	memcpy(b.dmac, c->rp.mac, 6);
	memcpy(b.smac, c->rp.mac, 6);
	/* the source port's byte: bit 6 a VLAN tag, bit 7 IPv6 (to the
	 * device's IPv6 address, from its own) */
	sp = in8(r);
	b.sport = 0xC000 | (sp & 0x3F);
	b.vlan = sp & 0x40;
	b.vlan_tci = b.vlan ? (uint16_t)(sp * 0x1F1) & 0xEFFF : 0;
	b.ipv6 = sp & 0x80;
	b.flow_label = b.ipv6 ? (uint32_t)sp << 9 : 0;
	memcpy(b.sgid, (b.ipv6 ? c->gid6 : c->v.gid0).raw, 16);
	memcpy(b.dgid, b.sgid, 16);
	bth_off = WIRE_ETH_LEN + (b.vlan ? WIRE_VLAN_LEN : 0) +
		  (b.ipv6 ? WIRE_IPV6_LEN : WIRE_IPV4_LEN) + WIRE_UDP_LEN;
	/* mostly an opcode of the table, else any byte */
	if (opb < 0xE0)
		b.opcode = known_ops[opb % nknown];
	else
		b.opcode = raw_op = in8(r);
	info = wire_opcode_info(b.opcode);
	b.dqpn = q < NQ ? qs[q].qp->qp_num : (in32(r) & 0xFFFFFF);
	base = q < NQ ? (info != NULL && !(info->flags & WIRE_OPF_REQ) ?
			 &qs[q].resp_psn : &qs[q].req_psn) : NULL;
	b.psn = ((base ? *base : 0) + (uint32_t)(int8_t)in8(r)) & 0xFFFFFF;
	if (base)
		*base = (b.psn + 1) & 0xFFFFFF;
	fl = in8(r);
	b.ackreq = fl & 1;
	b.se = fl & 2;
	b.mig = fl & 4;
	if (fl & 8)
		b.pkey = in16(r);
	mode = (fl >> 4) & 7;
	b.va = pick_va(r);
	b.rkey = pick_rkey(r, c);
	b.dma_len = in16(r);
	if (b.dma_len & 0x8000)
		b.dma_len = (b.dma_len & 0x7FFF) << 17;
	b.syndrome = in8(r);
	b.msn = in8(r);
	b.imm = in32(r);
	b.inv_rkey = in8(r) & 1 ? c->rmr->rkey : in32(r);
	b.qkey = in8(r) & 1 ? QKEY : in32(r);
	b.src_qpn = in8(r) & 1 ? FAKE_QPN : in32(r) & 0xFFFFFF;
	b.swap_add = in32(r);
	b.compare = in32(r);
	b.orig = in32(r);
	if (info == NULL)
		b.opcode = WIRE_OP_RC_SEND_ONLY;     /* the byte goes in below */
	if (wire_opcode_info(b.opcode)->flags & WIRE_OPF_PAYLOAD)
		plen = in16(r) % (fl & 0x80 ? 4200 : 1100);

	m = rte_pktmbuf_alloc(pool);
	FZ_CHECK(m != NULL);
	f = rte_pktmbuf_mtod(m, uint8_t *);
	room = rte_pktmbuf_tailroom(m);
	b.payload_len = plen;
	hl = wire_build_hdrs(f, room, &b);
	FZ_CHECK(hl > 0);
	memset(f + hl, b.psn & 0xFF, plen);
	n = wire_build_finish(f, room, (size_t)hl + plen);
	FZ_CHECK(n > 0);
	len = (uint32_t)n;
	if (info == NULL) {
		f[bth_off] = raw_op;
		FZ_CHECK(wire_reseal(f, len) == 0);
	}
	if (mode == 5 || mode == 6) {
		/* bytes changed: after the UDP header and made consistent
		 * again, or anywhere and left */
		for (unsigned int k = 1 + in8(r) % 4; k > 0; k--) {
			uint32_t at = in16(r);

			at = mode == 5 ? bth_off + at % (len - WIRE_ICRC_LEN -
							 bth_off) : at % len;
			f[at] = in8(r);
		}
		if (mode == 5)
			FZ_CHECK(wire_reseal(f, len) == 0);
	} else if (mode == 7) {
		/* another length: cut, or longer with bytes of the input,
		 * consistent again */
		uint32_t nl = bth_off + WIRE_ICRC_LEN +
			      in16(r) % (len - bth_off + 64);

		if (nl > room)
			nl = room;
		for (uint32_t k = len; k < nl; k++)
			f[k] = in8(r);
		len = nl;
		if (in8(r) & 1)
			(void)wire_reseal(f, len);      /* (a cut BTH: left) */
	}
	m->data_len = (uint16_t)len;
	m->pkt_len = len;
	if (rte_ring_enqueue(c->rp.rx, m) != 0)
		rte_pktmbuf_free(m);
	else
		st.frames++;
}

/* The bytes of dbuf an SGE names may change (the rest may not). */
static void may_write(const struct pmr_sge *s)
{
	for (uint64_t a = s->addr; a < s->addr + s->length; a++)
		if (a >= (uintptr_t)dbuf && a < (uintptr_t)dbuf + DSIZE)
			dmay[a - (uintptr_t)dbuf] = 1;
}

static struct pmr_srq *srq_of_input;

static void step_recv(struct in *r, struct fctx *c, struct fq *qs)
{
	int q = in8(r) % NQ;
	uint8_t nb = in8(r);
	int nsge = 1 + nb % 2, ret;
	struct fq *f = &qs[q];
	struct pmr_sge sge[2];
	struct pmr_recv_wr wr, *bad = NULL;
	uint32_t room = 0;

	if (f->nrecv == MAX_POSTS)
		return;
	for (int i = 0; i < nsge; i++) {
		uint8_t k = in8(r);

		sge[i].addr = (uintptr_t)dbuf + in16(r) % DSIZE;
		sge[i].length = in16(r) % 4200;
		sge[i].lkey = k % 8 == 0 ? in32(r) : c->dmr->lkey;
		if (sge[i].addr + sge[i].length > (uintptr_t)dbuf + DSIZE &&
		    k % 2)
			sge[i].length = (uint32_t)((uintptr_t)dbuf + DSIZE -
						   sge[i].addr);
		room += sge[i].length;
	}
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id(q, true, f->nrecv);
	wr.sg_list = sge;
	wr.num_sge = nsge;
	ret = f->srq ? pmr_post_srq_recv(srq_of_input, &wr, &bad) :
	      pmr_post_recv(f->qp, &wr, &bad);
	if (ret == 0) {
		for (int i = 0; i < nsge; i++)
			may_write(&sge[i]);
		f->rroom[f->nrecv++] = room;
		st.recvs++;
	} else {
		FZ_CHECK(bad == &wr);
	}
	if (f->srq && (nb & 0x80)) {    /* the limit armed again */
		struct pmr_srq_attr a = { .srq_limit = (nb >> 4) & 7 };

		FZ_CHECK(pmr_modify_srq(srq_of_input, &a, PMR_SRQ_LIMIT) == 0);
	}
}

static void step_send(struct in *r, struct fctx *c, struct fq *qs)
{
	static const enum pmr_wr_opcode ops[] = {
		PMR_WR_SEND, PMR_WR_SEND_WITH_IMM, PMR_WR_RDMA_WRITE,
		PMR_WR_RDMA_WRITE_WITH_IMM, PMR_WR_RDMA_READ,
		PMR_WR_ATOMIC_CMP_AND_SWP, PMR_WR_ATOMIC_FETCH_AND_ADD,
	};
	static const unsigned int nops[NQ] = { 7, 4, 2, 7 };
	int q = in8(r) % NQ;
	struct fq *f = &qs[q];
	uint8_t k = in8(r), fl = in8(r);
	struct pmr_send_wr wr, *bad = NULL;
	struct pmr_sge sge;

	if (f->nsend == MAX_POSTS)
		return;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id(q, false, f->nsend);
	wr.opcode = ops[k % nops[q]];
	wr.sg_list = &sge;
	wr.num_sge = fl & 0x10 ? 0 : 1;
	wr.send_flags = PMR_SEND_SIGNALED | (fl & PMR_SEND_FENCE) |
			(fl & PMR_SEND_SOLICITED);
	wr.imm_data = in32(r);
	sge.length = in16(r) % 3000;
	sge.lkey = fl & 0x20 ? in32(r) : c->lmr->lkey;
	sge.addr = (uintptr_t)lbuf + in16(r) % LSIZE;
	switch (wr.opcode) {
	case PMR_WR_RDMA_READ:
		sge.addr = (uintptr_t)dbuf + (sge.addr - (uintptr_t)lbuf) % DSIZE;
		sge.lkey = fl & 0x20 ? c->lmr->lkey : c->dmr->lkey;
		wr.wr.rdma.remote_addr = (uint64_t)in32(r) << 12;
		wr.wr.rdma.rkey = in32(r);
		break;
	case PMR_WR_ATOMIC_CMP_AND_SWP:
	case PMR_WR_ATOMIC_FETCH_AND_ADD:
		sge.addr = (uintptr_t)dbuf + (in16(r) % (DSIZE / 8)) * 8;
		sge.length = fl & 0x40 ? 4 : 8;
		sge.lkey = fl & 0x20 ? c->lmr->lkey : c->dmr->lkey;
		wr.wr.atomic.remote_addr = (uint64_t)in32(r) << 3;
		wr.wr.atomic.compare_add = in32(r);
		wr.wr.atomic.swap = in32(r);
		wr.wr.atomic.rkey = in32(r);
		break;
	default:
		if ((fl & 0x80) && sge.length <= 64)
			wr.send_flags |= PMR_SEND_INLINE;
		wr.wr.rdma.remote_addr = (uint64_t)in32(r) << 12;
		wr.wr.rdma.rkey = in32(r);
		break;
	}
	if (q == 2) {
		wr.wr.ud.ah = c->ah;
		wr.wr.ud.remote_qpn = FAKE_QPN;
		wr.wr.ud.remote_qkey = QKEY;
	}
	if (pmr_post_send(f->qp, &wr, &bad) == 0) {
		if (wr.num_sge == 1)
			may_write(&sge);
		f->nsend++;
		st.sends++;
	} else {
		FZ_CHECK(bad == &wr);
	}
}

static void step_error(struct in *r, struct fq *qs)
{
	struct pmr_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = PMR_QPS_ERR;
	FZ_CHECK(pmr_modify_qp(qs[in8(r) % NQ].qp, &a, PMR_QP_STATE) == 0);
	st.errs++;
}

/* ---- one input ------------------------------------------------------- */

static struct fq qs_of_input[NQ];

/* The QP on the SRQ (vt_qp() makes QPs with receive queues). */
static struct pmr_qp *srq_qp(struct fctx *c)
{
	struct pmr_qp_init_attr ia;
	struct pmr_qp *qp;

	memset(&ia, 0, sizeof(ia));
	ia.send_cq = c->scq[SQ];
	ia.recv_cq = c->rcq[SQ];
	ia.srq = srq_of_input;
	ia.qp_type = PMR_QPT_RC;
	ia.sq_sig_all = 1;
	ia.cap.max_send_wr = QWR;
	ia.cap.max_send_sge = 4;
	ia.cap.max_inline_data = 64;
	qp = pmr_create_qp(c->v.pd, &ia);
	FZ_CHECK(qp != NULL);
	return qp;
}

static void qps_create(struct fctx *c, struct fq *qs, struct in *r)
{
	static const enum pmr_qp_type types[NQ] = {
		PMR_QPT_RC, PMR_QPT_UC, PMR_QPT_UD, PMR_QPT_RC
	};
	struct vt_opts o = vt_opts_default();
	struct pmr_srq_init_attr sa;
	uint8_t t;

	o.min_rnr_timer = in8(r) % 32;
	o.rnr_retry = in8(r) % 8;
	o.max_dest_rd_atomic = 1 + in8(r) % 4;
	/* one input in four: an ACK timeout of 8, 16 or 32 us (the
	 * others: none, no retransmission by the clock) */
	t = in8(r);
	o.timeout = t & 3 ? 0 : (uint8_t)(1 + (t >> 2) % 3);
	o.retry_cnt = (t >> 4) & 7;
	st.timed += o.timeout != 0;
	memset(&sa, 0, sizeof(sa));
	sa.attr.max_wr = QWR;
	sa.attr.max_sge = 2;
	sa.attr.srq_limit = in8(r) % 8;         /* 0: not armed */
	srq_of_input = pmr_create_srq(c->v.pd, &sa);
	FZ_CHECK(srq_of_input != NULL);
	memset(qs, 0, NQ * sizeof(*qs));
	for (int q = 0; q < NQ; q++) {
		qs[q].srq = q == SQ;
		qs[q].qp = qs[q].srq ? srq_qp(c) :
			   vt_qp(c->v.pd, types[q], c->scq[q], c->rcq[q],
				 QWR, 1);
		vt_connect(&c->v, qs[q].qp, FAKE_QPN, &o);
	}
}

static bool same_bytes(const uint8_t *p, size_t n, uint8_t v)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != v)
			return false;
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct in r = { data, size < FUZZ_MAX_INPUT ? size : FUZZ_MAX_INPUT };
	struct fctx *c = &ctxs[in8(&r) & 1];
	struct fq *qs = qs_of_input;
	struct pmr_qp_attr a;
	int left;

	st.inputs++;
	memset(dbuf, FILL_D, DSIZE);
	memset(dmay, 0, sizeof(dmay));
	qps_create(c, qs, &r);
	run_engine(c);
	for (int step = 0; step < MAX_STEPS && r.n > 0; step++) {
		uint8_t s = in8(&r) % 16;

		if (s < 8)
			step_frame(&r, c, qs);
		else if (s == 8)
			run_engine(c);
		else if (s == 9)
			wait_run(c, 1 + in8(&r) % 64);
		else if (s < 12)
			step_recv(&r, c, qs);
		else if (s < 14)
			step_send(&r, c, qs);
		else if (s < 15)
			poll_all(c, qs);
		else
			step_error(&r, qs);
	}

	/* every WR completes, exactly once */
	memset(&a, 0, sizeof(a));
	a.qp_state = PMR_QPS_ERR;
	run_engine(c);
	for (int q = 0; q < NQ; q++)
		FZ_CHECK(pmr_modify_qp(qs[q].qp, &a, PMR_QP_STATE) == 0);
	for (left = 1000; left > 0 && outstanding(qs, false) > 0; left--) {
		run_engine(c);
		poll_all(c, qs);
	}
	if (outstanding(qs, false) != 0)
		fprintf(stderr, "%u WRs never completed\n",
			outstanding(qs, false));
	FZ_CHECK(outstanding(qs, false) == 0);
	/* (the SRQ's receives are not waited for: what completed of them
	 * is read now) after the flush: nothing more, the timers' expiry
	 * included */
	poll_all(c, qs);
	wait_run(c, 40);
	FZ_CHECK(poll_all(c, qs) == 0);
	st.srq_left += outstanding(qs, true);
	for (int q = 0; q < NQ; q++)
		FZ_CHECK(pmr_destroy_qp(qs[q].qp) == 0);
	vt_async_drain(&c->v);
	FZ_CHECK(pmr_destroy_srq(srq_of_input) == 0);
	srq_of_input = NULL;
	tx_drain(c);
	while (rte_ring_count(c->rp.rx) > 0) {
		void *o;

		FZ_CHECK(rte_ring_dequeue(c->rp.rx, &o) == 0);
		rte_pktmbuf_free(o);
	}

	/* nothing written where no peer may write */
	FZ_CHECK(same_bytes(rbuf - GUARD, GUARD, FILL_R));
	FZ_CHECK(same_bytes(rbuf + RSIZE, GUARD, FILL_R));
	FZ_CHECK(same_bytes(dbuf - GUARD, GUARD, FILL_D));
	FZ_CHECK(same_bytes(dbuf + DSIZE, GUARD, FILL_D));
	for (size_t i = 0; i < DSIZE; i++) {
		if (!dmay[i] && dbuf[i] != FILL_D)
			fprintf(stderr, "byte %zu of the local buffers changed, "
				"named by no WR\n", i);
		FZ_CHECK(dmay[i] || dbuf[i] == FILL_D);
	}
	FZ_CHECK(same_bytes(lbuf - GUARD, LSIZE + 2 * GUARD, FILL_L));
	return 0;
}

/* ---- seeds ----------------------------------------------------------- */

struct out {
	uint8_t *p;
	size_t n, cap;
};

static void put(struct out *o, const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n && o->n < o->cap; i++)
		o->p[o->n++] = b[i];
}

#define PUT(o, ...) do { \
	const uint8_t b_[] = { __VA_ARGS__ }; \
	put((o), b_, sizeof(b_)); \
} while (0)

/* The source port's byte of the seeds' frames (its bits 6 and 7: a VLAN
 * tag, IPv6). */
static uint8_t seed_sp = 0x11;

/* A frame step: QP q, opcode (its place in the table), PSN delta, flags,
 * a va in the R region at `off`, R's rkey, DMA length, syndrome and MSN,
 * payload length plen; the other fields zero. */
static void seed_frame(struct out *o, uint8_t q, uint8_t op, int8_t d,
		       uint8_t fl, uint16_t off, uint16_t dma, uint8_t syn,
		       uint16_t plen)
{
	unsigned int idx = 0;

	while (idx < nknown && known_ops[idx] != op)
		idx++;
	off = (uint16_t)(off + 128);                    /* va: R + off */
	PUT(o, 0, q, (uint8_t)idx, seed_sp, (uint8_t)d, fl,
	    0, (uint8_t)off, (uint8_t)(off >> 8),
	    0,                                          /* rkey: R's */
	    (uint8_t)dma, (uint8_t)(dma >> 8), syn, 0,
	    0, 0, 0, 0,                                 /* imm */
	    1, 1, 1,                                    /* inv_rkey, qkey, src */
	    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);        /* swap, cmp, orig */
	if (wire_opcode_info(op)->flags & WIRE_OPF_PAYLOAD)
		PUT(o, (uint8_t)plen, (uint8_t)(plen >> 8));
}

/* A receive of one SGE; for the SRQ's QP, an arm byte arm >= 0x80 arms
 * its limit again at (arm >> 4) & 7. */
static void seed_recv_arm(struct out *o, uint8_t q, uint16_t off,
			  uint16_t len, uint8_t arm)
{
	PUT(o, 10, q, arm & 0xFE, 1, (uint8_t)off, (uint8_t)(off >> 8),
	    (uint8_t)len, (uint8_t)(len >> 8));
}

static void seed_recv(struct out *o, uint8_t q, uint16_t off, uint16_t len)
{
	seed_recv_arm(o, q, off, len, 0);
}

/* A wait of us microseconds (1..64), then an engine run. */
static void seed_wait(struct out *o, uint8_t us)
{
	PUT(o, 9, (uint8_t)(us - 1));
}

static void seed_send(struct out *o, uint8_t q, uint8_t op, uint16_t len)
{
	/* step, QP, opcode, flags, immediate, length, the SGE at the
	 * region's start, remote address and rkey */
	PUT(o, 12, q, op, 0, 0, 0, 0, 0, (uint8_t)len, (uint8_t)(len >> 8),
	    0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
	if (op == 5 || op == 6)         /* atomics: their SGE, two operands */
		PUT(o, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
}

size_t fuzz_seed(unsigned int i, uint8_t *buf, size_t cap)
{
	struct out o = { buf, 0, cap };

	known_ops_init();
	seed_sp = 0x11;
	/* context; RNR timer, RNR retries, responder resources; ACK
	 * timeout and retries (seeds 7 and 8: 8 us and two retries; the
	 * others: none); the SRQ's limit (seed 6: 2) */
	PUT(&o, (uint8_t)i, 4, 7, 3, i == 7 || i == 8 ? 0x24 : 1,
	    i == 6 ? 2 : 0);
	switch (i) {
	case 0:         /* RC: receives, then SEND ONLY and a WRITE */
		seed_recv(&o, 0, 0, 1024);
		seed_recv(&o, 0, 1024, 1024);
		seed_frame(&o, 0, WIRE_OP_RC_SEND_ONLY, 0, 1, 0, 0, 0, 100);
		seed_frame(&o, 0, WIRE_OP_RC_WRITE_ONLY, 0, 1, RSIZE - 64, 64,
			   0, 64);      /* up to the region's end */
		PUT(&o, 8);
		break;
	case 1:         /* RC: a three-packet SEND, a READ, an atomic */
		seed_recv(&o, 0, 0, 3000);
		seed_frame(&o, 0, WIRE_OP_RC_SEND_FIRST, 0, 0, 0, 0, 0, 1024);
		seed_frame(&o, 0, WIRE_OP_RC_SEND_MIDDLE, 0, 0, 0, 0, 0, 1024);
		seed_frame(&o, 0, WIRE_OP_RC_SEND_LAST, 0, 1, 0, 0, 0, 10);
		seed_frame(&o, 0, WIRE_OP_RC_READ_REQUEST, 0, 0, 128, 2000, 0,
			   0);
		seed_frame(&o, 0, WIRE_OP_RC_FETCH_ADD, 0, 0, 136, 0, 0, 0);
		PUT(&o, 8, 14);
		break;
	case 2:         /* RC requester: SEND, READ, atomic and answers */
		seed_send(&o, 0, 0, 100);
		seed_send(&o, 0, 4, 2000);
		seed_send(&o, 0, 6, 8);
		PUT(&o, 8);
		seed_frame(&o, 0, WIRE_OP_RC_ACKNOWLEDGE, 0, 0, 0, 0, 0, 0);
		seed_frame(&o, 0, WIRE_OP_RC_READ_RESPONSE_FIRST, 0, 0, 0, 0, 1,
			   1024);
		seed_frame(&o, 0, WIRE_OP_RC_READ_RESPONSE_LAST, 0, 0, 0, 0, 2,
			   976);
		seed_frame(&o, 0, WIRE_OP_RC_ATOMIC_ACKNOWLEDGE, 0, 0, 0, 0, 3,
			   0);
		PUT(&o, 8, 14);
		break;
	case 3:         /* RC requester: NAKs (sequence error, RNR) */
		seed_send(&o, 0, 0, 3000);
		PUT(&o, 8);
		seed_frame(&o, 0, WIRE_OP_RC_ACKNOWLEDGE, 1, 0, 0, 0, 0x60, 0);
		PUT(&o, 8);
		seed_frame(&o, 0, WIRE_OP_RC_ACKNOWLEDGE, 0, 0, 0, 0, 0x21, 0);
		PUT(&o, 8, 14);
		break;
	case 4:         /* UC: a SEND and a WRITE of two packets each */
		seed_recv(&o, 1, 0, 2048);
		seed_frame(&o, 1, WIRE_OP_UC_SEND_FIRST, 0, 0, 0, 0, 0, 1024);
		seed_frame(&o, 1, WIRE_OP_UC_SEND_LAST_IMM, 0, 0, 0, 0, 0, 8);
		seed_frame(&o, 1, WIRE_OP_UC_WRITE_FIRST, 0, 0, 0, 1100, 0,
			   1024);
		seed_frame(&o, 1, WIRE_OP_UC_WRITE_LAST, 0, 0, 0, 0, 0, 76);
		seed_send(&o, 1, 2, 1500);
		PUT(&o, 8, 14);
		break;
	case 5:         /* UD: receives and SENDs both ways */
		seed_recv(&o, 2, 0, 1100);
		seed_frame(&o, 2, WIRE_OP_UD_SEND_ONLY, 0, 0, 0, 0, 0, 500);
		seed_frame(&o, 2, WIRE_OP_UD_SEND_ONLY_IMM, 0, 0, 0, 0, 0, 0);
		seed_send(&o, 2, 1, 40);
		PUT(&o, 8, 14);
		break;
	case 6:         /* the SRQ: receives, the limit, SENDs taking them */
		seed_recv(&o, SQ, 0, 1024);
		seed_recv(&o, SQ, 1024, 1024);
		seed_recv_arm(&o, SQ, 2048, 1024, 0x80 | 3 << 4);
		seed_frame(&o, SQ, WIRE_OP_RC_SEND_ONLY, 0, 1, 0, 0, 0, 100);
		seed_frame(&o, SQ, WIRE_OP_RC_SEND_ONLY_IMM, 0, 1, 0, 0, 0, 8);
		seed_frame(&o, SQ, WIRE_OP_RC_WRITE_ONLY_IMM, 0, 1, 256, 16,
			   0, 16);
		seed_frame(&o, SQ, WIRE_OP_RC_SEND_ONLY, 0, 1, 0, 0, 0, 10);
		PUT(&o, 8, 14);
		break;
	case 7:         /* ACK timeouts: retries, then their end */
		seed_send(&o, 0, 0, 100);
		seed_send(&o, SQ, 2, 3000);
		PUT(&o, 8);
		seed_wait(&o, 20);
		seed_wait(&o, 20);
		seed_wait(&o, 20);
		seed_wait(&o, 20);
		PUT(&o, 14);
		break;
	case 8:         /* an RNR NAK of 10 us, waited out, then an ACK */
		seed_send(&o, 0, 0, 100);
		PUT(&o, 8);
		seed_frame(&o, 0, WIRE_OP_RC_ACKNOWLEDGE, 0, 0, 0, 0, 0x21, 0);
		PUT(&o, 8);
		seed_wait(&o, 30);
		seed_frame(&o, 0, WIRE_OP_RC_ACKNOWLEDGE, -1, 0, 0, 0, 0, 0);
		PUT(&o, 8, 14);
		break;
	case 9:         /* seed 0's frames tagged, over IPv6, and both */
		seed_recv(&o, 0, 0, 1024);
		seed_recv(&o, 0, 1024, 1024);
		seed_recv(&o, 0, 2048, 1024);
		seed_sp = 0x51;
		seed_frame(&o, 0, WIRE_OP_RC_SEND_ONLY, 0, 1, 0, 0, 0, 100);
		seed_sp = 0x91;
		seed_frame(&o, 0, WIRE_OP_RC_SEND_ONLY, 0, 1, 0, 0, 0, 200);
		seed_sp = 0xD1;
		seed_frame(&o, 0, WIRE_OP_RC_SEND_ONLY, 0, 1, 0, 0, 0, 300);
		seed_frame(&o, 0, WIRE_OP_RC_WRITE_ONLY, 0, 1, RSIZE - 64, 64,
			   0, 64);
		PUT(&o, 8, 14);
		break;
	default:
		return 0;
	}
	return o.n;
}
