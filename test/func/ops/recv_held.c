/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pmr_dereg_mr() of the MR of a receive a QP holds in the middle of a
 * SEND of several packets: EBUSY, and the MR keeps working (the rest of
 * the message lands in it); once the SEND completes the MR goes.  The
 * receive WR is no longer on its queue then: the QP took it off with
 * the first packet, so this is the check of the one the QP holds, with
 * the receive posted to the QP's own receive queue and to an SRQ.
 *
 * Then UC: a receive held mid-message whose second SGE fails its MR
 * check when the second packet reaches it.  The receive completes once,
 * with LOC_PROT_ERR, the rest of the message is dropped, the QP stays in
 * RTS and the next message lands whole in the next receive; the sender
 * is told nothing (its SENDs complete successfully).
 *
 * One process, a RoCE device on a port made of two rte_rings the
 * program holds (ringport.c): the program moves the frames the device
 * sends back to its receive side one at a time, so that the engine runs
 * between the two packets of the message.
 *
 *   recv_held       run by ring.sh (EAL arguments, the configuration)
 */
#include <stdio.h>
#include <string.h>

#include <rte_mbuf.h>
#include <rte_ring.h>

#include <pmr_roce.h>
#include <pmr_verbs.h>

#include "ringport.h"
#include "vt.h"

#define NET 0x31
#define LEN 2048        /* two packets at the path MTU of 1024 */

static struct ringport rp;
static struct vt v;
static uint8_t src[LEN], dst[LEN];

/* Runs the engine, then moves up to n frames the device sent to its
 * receive side; @return the frames moved. */
static unsigned int pass_on(unsigned int n)
{
	unsigned int moved = 0;
	void *m;

	CHECK(pmr_progress(v.ctx, 64) >= 0);
	while (moved < n && rte_ring_dequeue(rp.tx, &m) == 0) {
		CHECK_EQ(rte_ring_enqueue(rp.rx, m), 0);
		moved++;
	}
	return moved;
}

static void held(bool use_srq)
{
	struct vt_opts o = vt_opts_default();
	struct pmr_cq *scq = vt_cq(&v, 16), *rcq = vt_cq(&v, 16);
	struct pmr_srq_init_attr si = { .attr = { .max_wr = 4, .max_sge = 1 } };
	struct pmr_srq *srq = NULL;
	struct pmr_qp_init_attr a;
	struct pmr_qp *qp[2];
	struct pmr_mr *smr, *rmr;
	struct pmr_sge ss, rs;
	struct pmr_send_wr sw;
	struct pmr_recv_wr rw;
	struct pmr_recv_wr *bad = NULL;
	struct pmr_wc wc;
	const char *how = use_srq ? "SRQ" : "RQ";
	int got;

	smr = vt_mr(v.pd, src, LEN, 0);
	rmr = vt_mr(v.pd, dst, LEN, PMR_ACCESS_LOCAL_WRITE);
	for (int i = 0; i < LEN; i++)
		src[i] = (uint8_t)(i * 7 + use_srq);
	memset(dst, 0, sizeof(dst));
	qp[0] = vt_qp(v.pd, PMR_QPT_RC, scq, scq, 16, 1);
	a = vt_qp_attr(PMR_QPT_RC, rcq, rcq, 16, 1);
	if (use_srq) {
		srq = pmr_create_srq(v.pd, &si);
		CHECK(srq != NULL);
		a.srq = srq;
	}
	qp[1] = pmr_create_qp(v.pd, &a);
	CHECK(qp[1] != NULL);
	vt_connect(&v, qp[0], qp[1]->qp_num, &o);
	vt_connect(&v, qp[1], qp[0]->qp_num, &o);

	rs = (struct pmr_sge){ (uintptr_t)dst, LEN, rmr->lkey };
	rw = vt_rwr(2, &rs, 1);
	CHECK_EQ(use_srq ? pmr_post_srq_recv(srq, &rw, &bad) :
		 vt_post_recv1(qp[1], &rw), 0);
	pass_on(0);             /* the moves to RTS applied */
	ss = (struct pmr_sge){ (uintptr_t)src, LEN, smr->lkey };
	sw = vt_swr(1, PMR_WR_SEND, &ss, 1, PMR_SEND_SIGNALED);
	CHECK_EQ(vt_post_send1(qp[0], &sw), 0);

	/* the first packet only: the receive taken off its queue, held */
	CHECK_EQ(pass_on(1), 1);
	CHECK_EQ(pass_on(0), 0);
	EXPECT_EQ_MSG(rte_ring_count(rp.tx), 1, "%s: the second packet", how);
	EXPECT_EQ_MSG(pmr_dereg_mr(rmr), EBUSY, "%s: the MR of the receive "
		      "held mid-message deregistered", how);
	EXPECT_EQ_MSG(pmr_poll_cq(rcq, 1, &wc), 0, "%s: a completion "
		      "before the last packet", how);

	/* the second packet */
	CHECK_EQ(pass_on(1), 1);
	pass_on(0);
	vt_poll1(rcq, &wc);
	CHECK_WC(wc, PMR_WC_SUCCESS);
	EXPECT_EQ(wc.wr_id, 2);
	EXPECT_EQ_MSG(wc.byte_len, LEN, "%s", how);
	EXPECT_MSG(memcmp(src, dst, LEN) == 0, "%s: the message as sent",
		   how);
	/* the ACK back to the sender, whenever the device sends it */
	for (uint64_t end = vt_now_ms() + 2000;
	     (got = pmr_poll_cq(scq, 1, &wc)) == 0 && vt_now_ms() < end;)
		pass_on(8);
	CHECK_EQ(got, 1);
	CHECK_WC(wc, PMR_WC_SUCCESS);
	EXPECT_EQ(wc.wr_id, 1);

	EXPECT_EQ_MSG(pmr_dereg_mr(rmr), 0, "%s: the MR once the SEND "
		      "completed", how);
	CHECK_EQ(pmr_dereg_mr(smr), 0);
	for (int i = 0; i < 2; i++)
		CHECK_EQ(pmr_destroy_qp(qp[i]), 0);
	if (srq != NULL)
		CHECK_EQ(pmr_destroy_srq(srq), 0);
	CHECK_EQ(pmr_destroy_cq(scq), 0);
	CHECK_EQ(pmr_destroy_cq(rcq), 0);
	pass_on(0);
	ringport_take(&rp, NULL, NULL);
}

static void uc_second_sge(void)
{
	struct vt_opts o = vt_opts_default();
	struct pmr_cq *scq = vt_cq(&v, 16), *rcq = vt_cq(&v, 16);
	struct pmr_qp *qp[2];
	struct pmr_mr *smr, *rmr;
	struct pmr_sge ss, rs[2];
	struct pmr_send_wr sw;
	struct pmr_recv_wr rw;
	struct pmr_roce_qp_stats qs;
	struct pmr_wc wc;

	smr = vt_mr(v.pd, src, LEN, 0);
	rmr = vt_mr(v.pd, dst, LEN, PMR_ACCESS_LOCAL_WRITE);
	for (int i = 0; i < LEN; i++)
		src[i] = (uint8_t)(i * 5 + 1);
	memset(dst, 0, sizeof(dst));
	for (int i = 0; i < 2; i++)
		qp[i] = vt_qp(v.pd, PMR_QPT_UC, i ? rcq : scq, i ? rcq : scq,
			      16, 1);
	vt_connect(&v, qp[0], qp[1]->qp_num, &o);
	vt_connect(&v, qp[1], qp[0]->qp_num, &o);

	/* receive 2: the first packet's 1024 bytes fit its first SGE; its
	 * second names no MR */
	rs[0] = (struct pmr_sge){ (uintptr_t)dst, LEN / 2, rmr->lkey };
	rs[1] = (struct pmr_sge){ (uintptr_t)dst + LEN / 2, LEN / 2,
				  rmr->lkey ^ 0x5a5a00 };
	rw = vt_rwr(2, rs, 2);
	CHECK_EQ(vt_post_recv1(qp[1], &rw), 0);
	rs[0] = (struct pmr_sge){ (uintptr_t)dst, LEN, rmr->lkey };
	rw = vt_rwr(3, rs, 1);
	CHECK_EQ(vt_post_recv1(qp[1], &rw), 0);
	pass_on(0);
	ss = (struct pmr_sge){ (uintptr_t)src, LEN, smr->lkey };
	sw = vt_swr(1, PMR_WR_SEND, &ss, 1, PMR_SEND_SIGNALED);
	CHECK_EQ(vt_post_send1(qp[0], &sw), 0);
	ss.length = 16;
	ss.addr = (uintptr_t)src + 100;
	sw = vt_swr(4, PMR_WR_SEND, &ss, 1, PMR_SEND_SIGNALED);
	CHECK_EQ(vt_post_send1(qp[0], &sw), 0);
	for (int i = 0; i < 10; i++)
		pass_on(8);

	vt_poll1(rcq, &wc);
	EXPECT_EQ(wc.wr_id, 2);
	EXPECT_EQ_MSG(wc.status, PMR_WC_LOC_PROT_ERR, "UC: the receive "
		      "whose second SGE fails");
	vt_poll1(rcq, &wc);
	CHECK_WC(wc, PMR_WC_SUCCESS);
	EXPECT_EQ(wc.wr_id, 3);
	EXPECT_EQ_MSG(wc.byte_len, 16, "UC: the next message");
	EXPECT(memcmp(dst, src + 100, 16) == 0);
	EXPECT_EQ_MSG(vt_count(rcq, 50), 0, "UC: a receive completed twice");
	for (int i = 0; i < 2; i++) {
		vt_poll1(scq, &wc);
		CHECK_WC(wc, PMR_WC_SUCCESS);
		EXPECT_EQ(wc.wr_id, i ? 4 : 1);
	}
	EXPECT_EQ(vt_state(qp[1]), PMR_QPS_RTS);
	CHECK_EQ(pmr_roce_qp_stats(qp[0], &qs), 0);
	EXPECT_EQ_MSG(qs.tx_pkts, 3, "UC: the SENDs' packets");

	CHECK_EQ(pmr_dereg_mr(rmr), 0);
	CHECK_EQ(pmr_dereg_mr(smr), 0);
	for (int i = 0; i < 2; i++)
		CHECK_EQ(pmr_destroy_qp(qp[i]), 0);
	CHECK_EQ(pmr_destroy_cq(scq), 0);
	CHECK_EQ(pmr_destroy_cq(rcq), 0);
	pass_on(0);
	ringport_take(&rp, NULL, NULL);
}

int main(void)
{
	struct rte_mempool *own = ringport_open(&rp, &v, "recv_held", 64,
						NET, 64);

	held(false);
	held(true);
	uc_second_sge();
	vt_close(&v);
	rte_mempool_free(own);
	return vt_exit();
}
