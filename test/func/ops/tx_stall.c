/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * An RC requester with nothing in flight that waits for room on a
 * transmit ring which takes nothing: its local ACK timer runs while it
 * waits, and each timeout uses a retry (the ring is as good as a link
 * that is down), until RETRY_EXC_ERR; nothing of it is ever sent.
 *
 * One process, a RoCE device on a port made of two rte_rings the
 * program holds (rte_eth_from_rings): it never takes a frame from the
 * transmit ring, so once that is full the port takes nothing.  QP B
 * fills the ring and then the device's own queue of built frames with
 * one long SEND (B's timer: 1 s, longer than the test); QP A then posts
 * a SEND that cannot be built for lack of room: no packet of A is in
 * flight, and A's timer (4.2 ms) decides.
 *
 * The other half of the rule: while the ring takes frames, however few,
 * a timeout of a QP that waits with nothing in flight uses no retry (it
 * waits its turn behind other QPs, as on a busy link).  moving() holds
 * A back behind 256 busy QPs on a ring the program empties by one frame
 * every millisecond: the engine hands each freed place to the QP at the
 * head of its rotation, which moves by one QP a run, so A's turn comes
 * only after about 128 frames.  Meanwhile A's timer expires at least
 * twice without a retry; when the ring stops, it fails as above.
 *
 *   tx_stall        run by ring.sh (EAL arguments, the configuration)
 */
#include <stdio.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include <pmr_roce.h>
#include <pmr_verbs.h>

#include "ringport.h"
#include "roce.h"         /* ROCE_TX_MAX, the device's queue */
#include "vt.h"
#include "wire.h"

enum {
	RING = 64,              /* the transmit ring: 63 frames */
	MTU = 256,
	B_PKTS = 200,           /* B's SEND: more than ring + device queue */
	BUSY = 256,             /* moving(): the QPs ahead of A */
	MOVE_MS = 70,           /* moving(): how long the ring moves */
	NET = 97,               /* the device's address: 10.NET.0.1 */
};

static struct vt v;
static struct ringport rp;
static struct rte_mempool *pool;        /* the program's own frames */

static uint64_t port_sent(void)
{
	return ringport_sent(&rp);
}

/* Take every frame off the transmit ring (the ring moves again). */
static void tx_drain(void)
{
	ringport_take(&rp, NULL, NULL);
}

/* The ring moves again: runs of the engine until what the device had
 * queued has gone (destroying a QP sends its queued frames; a full ring
 * leaves the rest to the next runs), every frame taken off. */
static void settle(void)
{
	for (int i = 0; i < 4; i++) {
		tx_drain();
		CHECK(pmr_progress(v.ctx, 32) >= 0);
	}
	CHECK_EQ(rte_ring_count(rp.tx), 0);
}

/*
 * Run the engine until A's WR 2 completes (500 ms at most): it must fail
 * with RETRY_EXC_ERR after `timeouts` timeouts.  *qa: A's counters then.
 * @return the milliseconds it took.
 */
static uint64_t expect_retry_exc(struct vt_pair *a, uint64_t timeouts,
				 struct pmr_roce_qp_stats *qa)
{
	uint64_t t0 = vt_now_ms();
	struct pmr_wc wc;
	int n = 0;

	while (n == 0 && vt_now_ms() - t0 < 500) {
		CHECK(pmr_progress(v.ctx, 32) >= 0);
		n = pmr_poll_cq(a->scq[0], 1, &wc);
		CHECK(n >= 0);
	}
	EXPECT_EQ_MSG(n, 1, "A did not complete within 500 ms");
	if (n == 1) {
		CHECK_WC(wc, PMR_WC_RETRY_EXC_ERR);
		CHECK_EQ(wc.wr_id, 2u);
	}
	CHECK_EQ(pmr_roce_qp_stats(a->qp[0], qa), 0);
	EXPECT_EQ_MSG(qa->timeouts, timeouts, "A's timeouts");
	return vt_now_ms() - t0;
}

/*
 * A (retry_cnt `retries`) waits behind B on the stalled ring: RETRY_EXC_ERR
 * after retries + 1 timeouts, no packet of A sent.
 */
static void stalled(uint8_t retries, uint8_t *buf, struct pmr_mr *mr)
{
	struct vt_opts ob = vt_opts_default(), oa = vt_opts_default();
	struct pmr_sge bs = { (uintptr_t)buf, B_PKTS * MTU, mr->lkey };
	struct pmr_send_wr bw = vt_swr(1, PMR_WR_SEND, &bs, 1, 0);
	struct pmr_sge as = { (uintptr_t)buf, 16, 0 };
	struct pmr_send_wr aw = vt_swr(2, PMR_WR_SEND, &as, 1,
				       PMR_SEND_INLINE);
	struct pmr_roce_qp_stats qa, qb;
	struct pmr_roce_port_stats ps;
	struct vt_pair a, b;
	uint64_t ms, base;

	ob.path_mtu = oa.path_mtu = PMR_MTU_256;
	ob.timeout = 18;                /* 1.07 s */
	oa.timeout = 10;                /* 4.2 ms */
	oa.retry_cnt = retries;
	vt_pair(&v, PMR_QPT_RC, &ob, 1, &b);
	vt_pair(&v, PMR_QPT_RC, &oa, 1, &a);
	CHECK(pmr_progress(v.ctx, 32) >= 0);    /* the moves to RTS */
	base = port_sent();

	/* B: the ring full, then the device's queue, then B waits */
	CHECK_EQ(vt_post_send1(b.qp[0], &bw), 0);
	for (int i = 0; i < 4; i++)
		CHECK(pmr_progress(v.ctx, 32) >= 0);
	CHECK_EQ(rte_ring_count(rp.tx), RING - 1);
	CHECK_EQ(port_sent() - base, RING - 1);
	CHECK_EQ(pmr_roce_qp_stats(b.qp[0], &qb), 0);
	CHECK(qb.tx_pkts > RING - 1 && qb.tx_pkts < B_PKTS);

	/* A: nothing can be built; its timer runs on a ring that moves
	 * not at all (no completion: the timer took the stalled ring for
	 * one that moves) */
	CHECK_EQ(vt_post_send1(a.qp[0], &aw), 0);
	ms = expect_retry_exc(&a, (uint64_t)retries + 1, &qa);
	EXPECT_EQ_MSG(qa.tx_pkts, 0, "A built a packet");
	EXPECT_EQ_MSG(qa.retransmits, 0, "A sent something again");
	EXPECT_EQ_MSG(port_sent() - base, RING - 1,
		      "the stalled ring took a frame");
	/* B is still waiting: its timer is longer, and no frame of it
	 * was given up (a ring is a link that is down after 1 s only) */
	CHECK_EQ(pmr_roce_qp_stats(b.qp[0], &qb), 0);
	EXPECT_EQ(qb.timeouts, 0u);
	CHECK_EQ(pmr_roce_port_stats(v.dev, &ps), 0);
	EXPECT_EQ(ps.tx_drops, 0u);
	CHECK_EQ(vt_count(b.scq[0], 0), 0);
	printf("retry_cnt %u: A waited with nothing in flight, %lu "
	       "timeouts, then RETRY_EXC_ERR after %lu ms\n", retries,
	       (unsigned long)qa.timeouts, (unsigned long)ms);

	tx_drain();
	vt_pair_destroy(&a);
	vt_pair_destroy(&b);
	settle();
}

/* A QP of the device connected to a QPN that never answers (its frames
 * go nowhere), its completions on the shared CQs. */
static struct pmr_qp *busy_qp(struct pmr_cq *scq, struct pmr_cq *rcq,
			      const struct vt_opts *o)
{
	struct pmr_qp *qp = vt_qp(v.pd, PMR_QPT_RC, scq, rcq, 4, 0);

	vt_connect(&v, qp, 0xabcd, o);
	return qp;
}

static uint64_t now_us(void)
{
	return rte_rdtsc() * 1000000 / rte_get_tsc_hz();
}

/*
 * A (retry_cnt 1, timeout 16.8 ms) waits behind BUSY QPs on a ring that
 * takes one frame a millisecond: no retry used, nothing of A sent, for
 * MOVE_MS (two expiries of A's timer at least, timers being checked
 * every 16 engine runs, 8 ms here); then the ring stops, and A fails
 * after two timeouts.
 */
static void moving(uint8_t *buf, struct pmr_mr *mr)
{
	struct vt_opts ob = vt_opts_default(), oa = vt_opts_default();
	struct pmr_sge bs = { (uintptr_t)buf, B_PKTS * MTU, mr->lkey };
	struct pmr_sge s4 = { (uintptr_t)buf, 4 * MTU, mr->lkey };
	struct pmr_sge as = { (uintptr_t)buf, 16, 0 };
	struct pmr_send_wr aw = vt_swr(2, PMR_WR_SEND, &as, 1,
				       PMR_SEND_INLINE);
	static struct pmr_qp *b[BUSY];
	struct pmr_cq *scq = vt_cq(&v, 4 * BUSY), *rcq = vt_cq(&v, 16);
	struct pmr_roce_qp_stats qa;
	struct vt_pair a;
	struct pmr_wc wc;
	uint64_t t0, tick, stop, base, moving_timeouts;
	unsigned int drained = 0;
	int n = 0;

	ob.path_mtu = oa.path_mtu = PMR_MTU_256;
	ob.timeout = 18;                /* 1.07 s */
	oa.timeout = 12;                /* 16.8 ms */
	oa.retry_cnt = 1;
	for (int i = 0; i < BUSY; i++)
		b[i] = busy_qp(scq, rcq, &ob);
	vt_pair(&v, PMR_QPT_RC, &oa, 1, &a);
	CHECK(pmr_progress(v.ctx, 32) >= 0);    /* the moves to RTS */
	base = port_sent();

	/* b[0] fills the ring and the device's queue; the others, then A,
	 * wait in that order */
	for (int i = 0; i < BUSY; i++) {
		struct pmr_send_wr w = vt_swr(100 + (uint64_t)i, PMR_WR_SEND,
					      i == 0 ? &bs : &s4, 1, 0);

		CHECK_EQ(vt_post_send1(b[i], &w), 0);
		if (i == 0)
			for (int k = 0; k < 4; k++)
				CHECK(pmr_progress(v.ctx, 32) >= 0);
	}
	CHECK_EQ(rte_ring_count(rp.tx), RING - 1);
	CHECK_EQ(vt_post_send1(a.qp[0], &aw), 0);

	/* the ring moves: a frame taken every millisecond, two engine
	 * runs after each (the first hands a queued frame to the ring, the
	 * second gives the place freed to the QP at the head) */
	t0 = now_us();
	for (tick = t0 + 1000; n == 0 && tick < t0 + MOVE_MS * 1000;
	     tick += 1000) {
		void *m = NULL;

		while (now_us() < tick)
			;
		CHECK_EQ(rte_ring_dequeue(rp.tx, &m), 0);
		rte_pktmbuf_free(m);
		drained++;
		for (int k = 0; k < 2; k++)
			CHECK(pmr_progress(v.ctx, 32) >= 0);
		n = pmr_poll_cq(a.scq[0], 1, &wc);
		CHECK(n >= 0);
	}
	CHECK_EQ(pmr_roce_qp_stats(a.qp[0], &qa), 0);
	/* (a ring that moved: every frame taken was replaced by one) */
	EXPECT_EQ_MSG(port_sent() - base, RING - 1 + drained,
		      "the ring did not take a frame every millisecond");
	EXPECT_EQ_MSG(qa.tx_pkts, 0, "A got a place in the ring before the "
		      "others (the test needs it to wait its turn)");
	EXPECT_EQ_MSG(n, 0, "A completed (status %s) while the ring moved",
		      n == 1 ? pmr_wc_status_str(wc.status) : "-");
	EXPECT_EQ_MSG(qa.timeouts, 0, "A used a retry while the ring moved");
	moving_timeouts = qa.timeouts;

	/* the ring stops: A's timer now uses its retries */
	stop = now_us();
	expect_retry_exc(&a, 2, &qa);
	EXPECT_EQ(qa.tx_pkts, 0u);
	printf("ring moving for %lu ms (%u frames taken): A's timeouts %lu; "
	       "ring stopped: A's timeouts %lu, completed after %lu ms\n",
	       (unsigned long)(stop - t0) / 1000, drained,
	       (unsigned long)moving_timeouts, (unsigned long)qa.timeouts,
	       (unsigned long)(now_us() - stop) / 1000);

	tx_drain();
	vt_pair_destroy(&a);
	for (int i = 0; i < BUSY; i++) {
		CHECK_EQ(pmr_destroy_qp(b[i]), 0);
		tx_drain();
		CHECK(pmr_progress(v.ctx, 32) >= 0);
	}
	settle();
	CHECK_EQ(pmr_destroy_cq(scq), 0);
	CHECK_EQ(pmr_destroy_cq(rcq), 0);
}

/* Fill the transmit ring with frames of the program's own. */
static void ring_fill(void)
{
	struct rte_mbuf *m;

	while (rte_ring_free_count(rp.tx) > 0) {
		m = rte_pktmbuf_alloc(pool);
		CHECK(m != NULL);
		CHECK_EQ(rte_ring_enqueue(rp.tx, m), 0);
	}
}

struct psns {
	uint32_t dqpn;
	uint32_t *psn;
	unsigned int n, max;
};

static void add_psn(const struct wire_pkt *p, void *arg)
{
	struct psns *ps = arg;

	if (p != NULL && p->dqpn == ps->dqpn) {
		CHECK(ps->n < ps->max);
		ps->psn[ps->n++] = p->psn;
	}
}

/* Take every frame off the transmit ring; the PSNs of those for QPN
 * dqpn (at most max) go to psn[].  @return how many there were. */
static unsigned int drain_psns(uint32_t dqpn, uint32_t *psn, unsigned int max)
{
	struct psns ps = { dqpn, psn, 0, max };

	ringport_take(&rp, add_psn, &ps);
	return ps.n;
}

/* Two engine runs with room for a whole queue: the first hands the
 * queue to the ring, the second fills it again (see partial()). */
static void two_runs(void)
{
	for (int i = 0; i < 2; i++)
		CHECK(pmr_progress(v.ctx, 64) >= 0);
}

/*
 * A (retry_cnt `retries`, timeout 16.8 ms) has sent three packets of an
 * eight-packet SEND, all ACKed, and waits for room.  recover false: the
 * ring stays full, RETRY_EXC_ERR after retries + 1 timeouts; true: the
 * ring moves again after the first timeout, the other five packets go
 * once each, and the SEND completes when the program ACKs them.
 *
 * The set-up: the ring full of the program's frames; C's 61 packets and
 * A's first three fill the device's queue, B (200 packets) waits too.
 * Then three times: the program empties the ring, and two engine runs
 * follow.  The first hands the queue to the ring; the engine, whose
 * queue was full in the run before, starts this one a QP further on in
 * its rotation, so that B, not A, is first in the second run and takes
 * every place freed.  A's three packets go on the wire after C's; the
 * program takes them off the ring and ACKs them.  Each step is checked.
 */
static void partial(uint8_t retries, bool recover, uint8_t *buf,
		    struct pmr_mr *mr)
{
	enum { PSN0 = 0x100, A_PKTS = 8, A_FIRST = 3,
	       C_PKTS = ROCE_TX_MAX - A_FIRST };
	struct vt_opts ob = vt_opts_default(), oa = vt_opts_default();
	struct pmr_sge bs = { (uintptr_t)buf, B_PKTS * MTU, mr->lkey };
	struct pmr_sge cs = { (uintptr_t)buf, C_PKTS * MTU, mr->lkey };
	struct pmr_sge as = { (uintptr_t)buf, A_PKTS * MTU, mr->lkey };
	struct pmr_send_wr bw = vt_swr(1, PMR_WR_SEND, &bs, 1, 0);
	struct pmr_send_wr cw = vt_swr(3, PMR_WR_SEND, &cs, 1, 0);
	struct pmr_send_wr aw = vt_swr(2, PMR_WR_SEND, &as, 1, 0);
	struct pmr_roce_qp_stats qa, qb, qc;
	uint32_t psn[2 * A_PKTS];
	struct vt_pair a, b, c;
	struct pmr_wc wc;
	unsigned int got = 0;
	uint64_t t0;
	int n = 0;

	ob.path_mtu = oa.path_mtu = PMR_MTU_256;
	ob.timeout = 18;                /* 1.07 s */
	oa.timeout = 12;                /* 16.8 ms: none in the set-up */
	oa.retry_cnt = retries;
	oa.sq_psn = PSN0;
	vt_pair(&v, PMR_QPT_RC, &ob, 1, &c);
	vt_pair(&v, PMR_QPT_RC, &oa, 1, &a);
	vt_pair(&v, PMR_QPT_RC, &ob, 1, &b);
	CHECK(pmr_progress(v.ctx, 32) >= 0);    /* the moves to RTS */

	ring_fill();
	CHECK_EQ(vt_post_send1(c.qp[0], &cw), 0);
	CHECK(pmr_progress(v.ctx, 64) >= 0);
	CHECK_EQ(pmr_roce_qp_stats(c.qp[0], &qc), 0);
	CHECK_EQ(qc.tx_pkts, C_PKTS);
	CHECK_EQ(vt_post_send1(a.qp[0], &aw), 0);
	CHECK_EQ(vt_post_send1(b.qp[0], &bw), 0);
	CHECK_EQ(pmr_roce_qp_stats(a.qp[0], &qa), 0);
	CHECK_EQ(pmr_roce_qp_stats(b.qp[0], &qb), 0);
	CHECK_EQ(qa.tx_pkts, A_FIRST);
	CHECK_EQ(qb.tx_pkts, 0);

	for (int round = 0; round < 3; round++) {
		got += drain_psns(a.qp[1]->qp_num, psn + got,
				  RTE_DIM(psn) - got);
		if (round == 2) {
			/* A's three were on the wire: ACKed */
			CHECK_EQ(got, A_FIRST);
			for (unsigned int i = 0; i < got; i++)
				CHECK_EQ(psn[i], PSN0 + i);
			ringport_ack(&rp, pool, a.qp[0]->qp_num,
				     PSN0 + A_FIRST - 1, 0);
		}
		two_runs();
		CHECK_EQ(pmr_roce_qp_stats(a.qp[0], &qa), 0);
		CHECK_EQ(qa.tx_pkts, A_FIRST);  /* B took every place */
	}
	CHECK_EQ(pmr_roce_qp_stats(b.qp[0], &qb), 0);
	CHECK_EQ(qb.tx_pkts, 3 * (RING - 1));
	CHECK_EQ(qa.rx_pkts, 1u);               /* the ACK */
	CHECK_EQ(vt_count(a.scq[0], 0), 0);

	/* nothing of A in flight, five packets to go, the ring full */
	if (!recover) {
		uint64_t ms = expect_retry_exc(&a, (uint64_t)retries + 1,
					       &qa);

		EXPECT_EQ_MSG(qa.tx_pkts, A_FIRST, "A built more packets");
		EXPECT_EQ_MSG(qa.retransmits, 0, "A sent something again");
		printf("a message 3/8 sent and ACKed, the ring stalled: %lu "
		       "timeouts, then the WR failed after %lu ms\n",
		       (unsigned long)qa.timeouts, (unsigned long)ms);
	} else {
		t0 = vt_now_ms();
		while (n == 0 && qa.timeouts == 0 &&
		       vt_now_ms() - t0 < 500) {
			CHECK(pmr_progress(v.ctx, 32) >= 0);
			n = pmr_poll_cq(a.scq[0], 1, &wc);
			CHECK(n >= 0);
			CHECK_EQ(pmr_roce_qp_stats(a.qp[0], &qa), 0);
		}
		EXPECT_EQ_MSG(n, 0, "A completed before the ring moved");
		EXPECT_EQ(qa.timeouts, 1u);
		/* the ring moves: B's frames, then A's other five */
		got = 0;
		for (int round = 0; round < 6; round++) {
			got += drain_psns(a.qp[1]->qp_num, psn + got,
					  RTE_DIM(psn) - got);
			two_runs();
		}
		EXPECT_EQ_MSG(got, A_PKTS - A_FIRST,
			      "A's packets once the ring moved");
		for (unsigned int i = 0; i < got; i++)
			EXPECT_EQ_MSG(psn[i], PSN0 + A_FIRST + i,
				      "PSN of A's packet %u after the wait", i);
		ringport_ack(&rp, pool, a.qp[0]->qp_num, PSN0 + A_PKTS - 1, 1);
		n = vt_poll(a.scq[0], 1, &wc, 500);
		EXPECT_EQ_MSG(n, 1, "A did not complete once ACKed");
		if (n == 1) {
			CHECK_WC(wc, PMR_WC_SUCCESS);
			CHECK_EQ(wc.wr_id, 2u);
		}
		CHECK_EQ(pmr_roce_qp_stats(a.qp[0], &qa), 0);
		EXPECT_EQ(qa.timeouts, 1u);
		EXPECT_EQ(qa.tx_pkts, A_PKTS);
		EXPECT_EQ(qa.retransmits, 0u);
		printf("a message 3/8 sent and ACKed, the ring stalled: %lu "
		       "timeout(s); the ring moving, %u more packets of A, "
		       "%lu sent again\n", (unsigned long)qa.timeouts, got,
		       (unsigned long)qa.retransmits);
	}
	CHECK_EQ(pmr_roce_qp_stats(b.qp[0], &qb), 0);
	EXPECT_EQ(qb.timeouts, 0u);

	tx_drain();
	vt_pair_destroy(&a);
	vt_pair_destroy(&b);
	vt_pair_destroy(&c);
	settle();
}

int main(void)
{
	static uint8_t buf[B_PKTS * MTU];
	struct pmr_mr *mr;

	pool = ringport_open(&rp, &v, "stall", RING, NET, 4 * RING);
	mr = vt_mr(v.pd, buf, sizeof(buf), PMR_ACCESS_LOCAL_WRITE);
	stalled(0, buf, mr);
	stalled(2, buf, mr);
	moving(buf, mr);
	partial(1, false, buf, mr);
	partial(2, true, buf, mr);
	CHECK_EQ(pmr_dereg_mr(mr), 0);
	vt_close(&v);
	return vt_exit();
}
