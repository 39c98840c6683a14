/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The mbuf pool run dry while a long message is sent, with the device's
 * tx_flush on (frames handed to the port every N bytes of a pass) and
 * off.  One process, a RoCE device (mtu=4096) on a net_ring vdev that
 * receives its own frames (QPs connected to each other).  After a first
 * WRITE, which leaves the device its stash of mbufs, the test takes every
 * free mbuf of the device's pool and, after each engine run, those that
 * came back, so that the device sends only with the mbufs it keeps (the
 * stash, which its own received frames refill as they are let go):
 * passes run out of mbufs in their middle, with tx_flush after frames of
 * theirs already left.  A frame that finds no mbuf is put off
 * (tx_no_mbuf), not dropped and not sent twice.  Then the mbufs go back
 * and the engine runs on.  Checked: frames were put off, and with
 * tx_flush some engine run both handed frames to the port more than once
 * and put one off; four 64 KiB WRITEs and a 48 KiB SEND (in one list) all
 * complete once, in order, their data in place; the requester sent each
 * of their 76 packets once (its tx_pkts), nothing again (retransmits,
 * timeouts) and the responder took no duplicate and sent no NAK.  Then
 * the same with 48 WRITEs of one packet each (a request written whole
 * from the QP's template, whose want of an mbuf is its own path), in
 * two posts with no engine run between, so that the requester's own
 * frames, not only ACKs, are the ones put off.
 *
 *   tx_starve N     N: the device's tx_flush as the test was given it
 *                   (0: off), to check that passes flushed mid-way
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_mbuf.h>
#include <rte_mempool.h>

#include <pmr_roce.h>
#include <pmr_verbs.h>

#include "vt.h"
#include "port_counts.h"

enum { NW = 4, WLEN = 65536, SLEN = 49152, MTU = 4096,
       PKTS = NW * WLEN / MTU + SLEN / MTU, NONE = 48, OLEN = 1024 };

static struct vt v;
static struct rte_mempool *pool;
static struct rte_mbuf *held[16384];
static unsigned int nheld;

static void find_pool(struct rte_mempool *mp, void *arg)
{
	(void)arg;
	if (strncmp(mp->name, "pmr_roce", 8) == 0)
		pool = mp;
}

/* Every free mbuf of the device's pool taken. */
static void starve(void)
{
	while (nheld < RTE_DIM(held)) {
		struct rte_mbuf *m = rte_pktmbuf_alloc(pool);

		if (m == NULL)
			break;
		held[nheld++] = m;
	}
	CHECK(nheld < RTE_DIM(held));
}

static void feed(void)
{
	while (nheld > 0)
		rte_pktmbuf_free(held[--nheld]);
}

/* The engine on the mbufs it keeps: 200 runs, the pool taken dry again
 * after each. */
static void starved_runs(void)
{
	for (int i = 0; i < 200; i++) {
		CHECK(pmr_progress(v.ctx, 64) >= 0);
		starve();
	}
}

/*
 * NONE one-packet WRITEs of OLEN bytes from src to dst, posted as two
 * lists while the pool is dry, the second finding no mbuf for the
 * requester's frames: each completes once, in order, its data in place,
 * sent once (the requester's tx_pkts), nothing again.
 */
static void one_packet_writes(struct vt_pair *p, struct pmr_mr *mr,
			      uint8_t *src, uint8_t *dst)
{
	static struct pmr_send_wr w[NONE];
	static struct pmr_sge sg[NONE];
	struct pmr_send_wr *bad = NULL;
	struct pmr_roce_qp_stats q0, qs, q1;
	struct pmr_roce_port_stats s0, s1;
	struct pmr_wc wc[NONE];

	CHECK_EQ(pmr_roce_qp_stats(p->qp[0], &q0), 0);
	for (uint32_t i = 0; i < NONE * OLEN; i++)
		src[i] = (uint8_t)(i * 7 + 3);
	memset(dst, 0, NONE * OLEN);
	for (int i = 0; i < NONE; i++) {
		sg[i] = (struct pmr_sge){ (uintptr_t)(src + i * OLEN), OLEN,
					  mr->lkey };
		w[i] = vt_swr((uint64_t)(1000 + i), PMR_WR_RDMA_WRITE, &sg[i],
			      1, PMR_SEND_SIGNALED);
		w[i].wr.rdma.remote_addr = (uintptr_t)(dst + i * OLEN);
		w[i].wr.rdma.rkey = mr->rkey;
		w[i].next = i + 1 < NONE ? &w[i + 1] : NULL;
	}
	s0 = roce_counts(v.dev);
	starve();
	/* two posts, no engine run between (so no frame received, no ACK
	 * sent): a post builds up to 32 frames, as many as the device
	 * keeps mbufs in hand, so the second finds none in hand and the
	 * pool dry.  The requester built fewer frames than it was given,
	 * and the ones it could not build are the port's frames put off. */
	w[NONE / 3 * 2 - 1].next = NULL;
	CHECK_EQ(pmr_post_send(p->qp[0], w, &bad), 0);
	CHECK_EQ(pmr_post_send(p->qp[0], &w[NONE / 3 * 2], &bad), 0);
	s1 = roce_counts(v.dev);
	CHECK_EQ(pmr_roce_qp_stats(p->qp[0], &qs), 0);
	EXPECT_MSG(s1.tx_no_mbuf > s0.tx_no_mbuf, "one-packet WRITEs: no "
		   "frame put off for want of an mbuf at the posts");
	EXPECT_MSG(qs.tx_pkts - q0.tx_pkts < NONE, "one-packet WRITEs: all "
		   "%d built at the posts with the pool dry", NONE);
	starved_runs();
	feed();
	CHECK_EQ(vt_poll(p->scq[0], NONE, wc, 3000), NONE);
	for (int i = 0; i < NONE; i++) {
		CHECK_WC(wc[i], PMR_WC_SUCCESS);
		CHECK_EQ(wc[i].wr_id, (uint64_t)(1000 + i));
	}
	CHECK(memcmp(src, dst, NONE * OLEN) == 0);
	CHECK_EQ(vt_count(p->scq[0], 50), 0);
	CHECK_EQ(pmr_roce_qp_stats(p->qp[0], &q1), 0);
	EXPECT_EQ(q1.tx_pkts, q0.tx_pkts + NONE);
	EXPECT_EQ(q1.retransmits, 0u);
	EXPECT_EQ(q1.timeouts, 0u);
}

int main(int argc, char **argv)
{
	struct vt_opts o = vt_opts_default();
	struct pmr_send_wr w[NW + 1], *bad = NULL;
	struct pmr_sge sg[NW + 1], rs;
	struct pmr_recv_wr r;
	struct pmr_roce_qp_stats q0, q1;
	uint64_t tx0;
	struct pmr_roce_port_stats s0, s1;
	struct pmr_wc wc[NW + 1];
	struct vt_pair p;
	struct pmr_mr *mr;
	uint8_t *src, *dst;
	uint32_t flush;
	unsigned int both = 0;
	char *end;

	if (argc != 2 || (flush = (uint32_t)strtoul(argv[1], &end, 10),
			  *end != '\0')) {
		fprintf(stderr, "usage: tx_starve N (tx_flush bytes, 0: off)\n");
		return 2;
	}
	vt_open(&v);
	rte_mempool_walk(find_pool, NULL);
	CHECK(pool != NULL);
	src = calloc(2, NW * WLEN + SLEN);
	CHECK(src != NULL);
	dst = src + NW * WLEN + SLEN;
	mr = vt_mr(v.pd, src, 2 * (NW * WLEN + SLEN),
		   PMR_ACCESS_LOCAL_WRITE | PMR_ACCESS_REMOTE_WRITE);
	o.timeout = 18;         /* 1 s: no timer sends anything again */
	o.path_mtu = PMR_MTU_4096;
	vt_pair(&v, PMR_QPT_RC, &o, 0, &p);
	/* an engine run first: it applies the QPs' moves to RTS */
	CHECK(pmr_progress(v.ctx, 32) >= 0);
	/* a first WRITE: its transmit burst fills the device's stash */
	sg[0] = (struct pmr_sge){ (uintptr_t)src, MTU, mr->lkey };
	w[0] = vt_swr(99, PMR_WR_RDMA_WRITE, &sg[0], 1, PMR_SEND_SIGNALED);
	w[0].wr.rdma.remote_addr = (uintptr_t)dst;
	w[0].wr.rdma.rkey = mr->rkey;
	CHECK_EQ(vt_post_send1(p.qp[0], &w[0]), 0);
	CHECK_EQ(vt_poll(p.scq[0], 1, wc, 2000), 1);
	CHECK_WC(wc[0], PMR_WC_SUCCESS);
	CHECK_EQ(pmr_roce_qp_stats(p.qp[0], &q0), 0);
	tx0 = q0.tx_pkts;

	for (uint32_t i = 0; i < NW * WLEN + SLEN; i++)
		src[i] = (uint8_t)(i * 29 + i / 4096);
	rs = (struct pmr_sge){ (uintptr_t)(dst + NW * WLEN), SLEN, mr->lkey };
	r = vt_rwr(100, &rs, 1);
	CHECK_EQ(vt_post_recv1(p.qp[1], &r), 0);
	for (int i = 0; i <= NW; i++) {
		uint32_t len = i < NW ? WLEN : SLEN;

		sg[i] = (struct pmr_sge){ (uintptr_t)(src + i * WLEN), len,
					  mr->lkey };
		w[i] = vt_swr((uint64_t)i, i < NW ? PMR_WR_RDMA_WRITE :
			      PMR_WR_SEND, &sg[i], 1, PMR_SEND_SIGNALED);
		if (i < NW) {
			w[i].wr.rdma.remote_addr = (uintptr_t)(dst + i * WLEN);
			w[i].wr.rdma.rkey = mr->rkey;
		}
		w[i].next = i < NW ? &w[i + 1] : NULL;
	}

	s0 = roce_counts(v.dev);
	starve();
	CHECK_EQ(pmr_post_send(p.qp[0], w, &bad), 0);
	/* the device on what it keeps: 200 runs, the mbufs that came back
	 * to the pool taken again after each (some ms; the ACK timeout is
	 * 1 s); the runs that handed frames to the port more than once and
	 * put one off counted */
	for (int i = 0; i < 200; i++) {
		struct pmr_roce_port_stats a = roce_counts(v.dev), b;

		CHECK(pmr_progress(v.ctx, 64) >= 0);
		b = roce_counts(v.dev);
		both += b.tx_bursts - a.tx_bursts >= 2 &&
			b.tx_no_mbuf > a.tx_no_mbuf;
		starve();
	}
	s1 = roce_counts(v.dev);
	feed();
	EXPECT_MSG(s1.tx_no_mbuf > s0.tx_no_mbuf, "no frame was put off for "
		   "want of an mbuf: the test tests nothing");
	EXPECT_MSG(s1.tx_pkts > s0.tx_pkts, "nothing sent while the pool was "
		   "dry: the test tests nothing");
	if (flush > 0)
		EXPECT_MSG(both > 0, "tx_flush=%u: no engine run both flushed "
			   "frames mid-way and put one off", flush);

	CHECK_EQ(vt_poll(p.scq[0], NW + 1, wc, 3000), NW + 1);
	for (int i = 0; i <= NW; i++) {
		CHECK_WC(wc[i], PMR_WC_SUCCESS);
		CHECK_EQ(wc[i].wr_id, (uint64_t)i);
	}
	CHECK_EQ(vt_poll(p.rcq[1], 1, wc, 2000), 1);
	CHECK_WC(wc[0], PMR_WC_SUCCESS);
	CHECK_EQ(wc[0].byte_len, (uint32_t)SLEN);
	CHECK(memcmp(src, dst, NW * WLEN + SLEN) == 0);
	CHECK_EQ(vt_count(p.scq[0], 50) + vt_count(p.rcq[1], 50), 0);
	CHECK_EQ(pmr_roce_qp_stats(p.qp[0], &q0), 0);
	CHECK_EQ(pmr_roce_qp_stats(p.qp[1], &q1), 0);
	EXPECT_EQ(q0.tx_pkts, tx0 + PKTS);
	EXPECT_EQ(q0.retransmits, 0u);
	EXPECT_EQ(q0.timeouts, 0u);
	EXPECT_EQ(q1.dup_rx, 0u);
	EXPECT_EQ(q1.nak_tx, 0u);
	printf("tx_flush=%u: %llu frames put off for want of an mbuf, %u "
	       "engine runs that flushed and put one off\n", flush,
	       (unsigned long long)(s1.tx_no_mbuf - s0.tx_no_mbuf), both);
	one_packet_writes(&p, mr, src, dst);
	vt_pair_destroy(&p);
	CHECK_EQ(pmr_dereg_mr(mr), 0);
	free(src);
	vt_close(&v);
	return vt_exit();
}
