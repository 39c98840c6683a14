/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The requester's max_rd_atomic: a QP has at most that many READs and
 * atomics in flight, and sends the next when an earlier one's answer has
 * come.  One process, a RoCE device on a net_ring vdev that receives its
 * own frames (QPs connected to each other); the frames are the port's own
 * counter (rte_eth_stats_get).  For max_rd_atomic 1, 2 and 16, a list of
 * eight READs, then of eight FETCH_ADDs, posted in one call: the post
 * sends as many requests as max_rd_atomic allows and no more (the engine
 * has not run, so no answer has come), and then all eight complete in
 * order, each READ's data in place and each FETCH_ADD's original value
 * the one before it left, with no request sent but those eight, none
 * sent again and no NAK.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmr_roce.h>
#include <pmr_verbs.h>

#include "vt.h"
#include "port_counts.h"

enum { N = 8, LEN = 256 };

static struct vt v;

/* N requests of op from qp[0] in one list against buf's second half,
 * with max_rd_atomic `outs`. */
static void one_list(struct vt_pair *p, enum pmr_wr_opcode op,
		     uint8_t outs, uint8_t *buf, struct pmr_mr *mr)
{
	uint8_t *src = buf + N * LEN, *dst = buf;
	uint64_t *ctr = (uint64_t *)(void *)src;
	struct pmr_send_wr w[N], *bad = NULL;
	struct pmr_sge sg[N];
	struct pmr_roce_qp_stats qs;
	struct pmr_wc wc[N];
	uint64_t s0;
	uint32_t want = outs < N ? outs : N;
	bool rd = op == PMR_WR_RDMA_READ;

	for (uint32_t i = 0; i < N * LEN; i++) {
		src[i] = (uint8_t)(i * 11 + outs);
		dst[i] = 0;
	}
	*ctr = 1000;
	for (int i = 0; i < N; i++) {
		sg[i] = (struct pmr_sge){ (uintptr_t)(dst + i * LEN),
					  rd ? LEN : 8, mr->lkey };
		w[i] = vt_swr((uint64_t)i, op, &sg[i], 1, PMR_SEND_SIGNALED);
		if (rd) {
			w[i].wr.rdma.remote_addr = (uintptr_t)(src + i * LEN);
			w[i].wr.rdma.rkey = mr->rkey;
		} else {
			w[i].wr.atomic.remote_addr = (uintptr_t)ctr;
			w[i].wr.atomic.rkey = mr->rkey;
			w[i].wr.atomic.compare_add = 1;
		}
		w[i].next = i + 1 < N ? &w[i + 1] : NULL;
	}
	s0 = port_sent();
	CHECK_EQ(pmr_post_send(p->qp[0], w, &bad), 0);
	EXPECT_EQ_MSG(port_sent() - s0, want, "max_rd_atomic %u: requests "
		      "the post of %d %ss sent", outs, N,
		      rd ? "READ" : "FETCH_ADD");
	CHECK_EQ(vt_poll(p->scq[0], N, wc, 2000), N);
	for (int i = 0; i < N; i++) {
		CHECK_WC(wc[i], PMR_WC_SUCCESS);
		CHECK_EQ(wc[i].wr_id, (uint64_t)i);
		if (!rd) {
			uint64_t orig;

			memcpy(&orig, dst + i * LEN, 8);
			CHECK_EQ(orig, 1000u + (uint64_t)i);
		}
	}
	if (rd)
		CHECK(memcmp(src, dst, N * LEN) == 0);
	else
		CHECK_EQ(*ctr, 1000u + N);
	CHECK_EQ(vt_count(p->scq[0], 50), 0);
	CHECK_EQ(pmr_roce_qp_stats(p->qp[0], &qs), 0);
	/* (counters since the pair was made: one_list's of READs first) */
	EXPECT_EQ(qs.tx_pkts, rd ? (uint64_t)N : 2u * N);
	EXPECT_EQ(qs.retransmits, 0u);
	EXPECT_EQ(qs.nak_rx, 0u);
}

int main(void)
{
	static const uint8_t outs[] = { 1, 2, 16 };
	struct vt_opts o = vt_opts_default();
	struct vt_pair p;
	struct pmr_mr *mr;
	uint8_t *buf;

	vt_open(&v);
	buf = aligned_alloc(64, 2 * N * LEN);
	CHECK(buf != NULL);
	mr = vt_mr(v.pd, buf, 2 * N * LEN, PMR_ACCESS_LOCAL_WRITE |
		   PMR_ACCESS_REMOTE_READ | PMR_ACCESS_REMOTE_ATOMIC);
	o.timeout = 18;         /* 1 s: no timer in the way of the counts */
	o.max_dest_rd_atomic = 16;
	for (size_t k = 0; k < sizeof(outs); k++) {
		o.max_rd_atomic = outs[k];
		vt_pair(&v, PMR_QPT_RC, &o, 0, &p);
		/* an engine run first: it applies the QPs' moves to RTS */
		CHECK(pmr_progress(v.ctx, 32) >= 0);
		one_list(&p, PMR_WR_RDMA_READ, outs[k], buf, mr);
		one_list(&p, PMR_WR_ATOMIC_FETCH_AND_ADD, outs[k], buf, mr);
		vt_pair_destroy(&p);
	}
	printf("max_rd_atomic 1, 2, 16: READs and FETCH_ADDs in flight as "
	       "it allows\n");
	CHECK_EQ(pmr_dereg_mr(mr), 0);
	free(buf);
	vt_close(&v);
	return vt_exit();
}
