/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * COMM_EST: the first packet of an RC or UC peer that reaches a QP in RTR
 * raises PMR_EVENT_COMM_EST on it, once; a QP in RTS raises none, a UD QP
 * none (IB o11-5.1.1), and a QP that goes through RESET and back to RTR
 * raises it again.  One process, the first device: a RoCE device on a
 * net_ring vdev that receives its own frames (ring.sh), or the loopback
 * device (no PMR_DEVICES).  QP a (RTS) sends to QP b.
 *
 *   comm_est           run by ring.sh, or alone
 */
#include <stdio.h>
#include <string.h>

#include <pmr_verbs.h>

#include "vt.h"

static uint8_t buf[2][64];
static struct pmr_mr *mr[2];

/* SENDs from a to b, each received: n of them. */
static void sends(struct pmr_qp *a, struct pmr_qp *b, struct pmr_cq *cq,
		  int n)
{
	struct pmr_sge s = { (uintptr_t)buf[0], 16, mr[0]->lkey };
	struct pmr_sge r = { (uintptr_t)buf[1], 64, mr[1]->lkey };
	struct pmr_wc wc;

	for (int i = 0; i < n; i++) {
		struct pmr_recv_wr rw = vt_rwr(100 + (uint64_t)i, &r, 1);
		struct pmr_send_wr sw = vt_swr(200 + (uint64_t)i, PMR_WR_SEND,
					       &s, 1, PMR_SEND_SIGNALED);

		CHECK_EQ(vt_post_recv1(b, &rw), 0);
		CHECK_EQ(vt_post_send1(a, &sw), 0);
		for (int k = 0; k < 2; k++) {
			vt_poll1(cq, &wc);
			CHECK_WC(wc, PMR_WC_SUCCESS);
		}
	}
}

/* The async events since: @return how many, each checked to be
 * COMM_EST on qp. */
static int comm_ests(struct vt *v, struct pmr_qp *qp)
{
	struct pmr_async_event ev;
	int n = 0;

	(void)pmr_progress(v->ctx, 32);
	while (vt_async(v, &ev) == 0) {
		EXPECT_EQ_MSG(ev.event_type, PMR_EVENT_COMM_EST, "event %s",
			      pmr_event_type_str(ev.event_type));
		EXPECT_MSG(ev.element.qp == qp, "COMM_EST on another QP");
		n++;
	}
	return n;
}

static void connected(struct vt *v, enum pmr_qp_type t, const char *name)
{
	struct vt_opts o = vt_opts_default();
	struct pmr_cq *cq = vt_cq(v, 64);
	struct pmr_qp *a = vt_qp(v->pd, t, cq, cq, 16, 1);
	struct pmr_qp *b = vt_qp(v->pd, t, cq, cq, 16, 1);
	struct pmr_qp_attr at = { .qp_state = PMR_QPS_RESET };

	vt_connect(v, a, b->qp_num, &o);
	CHECK_EQ(vt_to_init(b, &o), 0);
	CHECK_EQ(vt_to_rtr(v, b, a->qp_num, &o), 0);
	EXPECT_EQ_MSG(comm_ests(v, b), 0, "%s: before any packet", name);
	sends(a, b, cq, 3);
	EXPECT_EQ_MSG(comm_ests(v, b), 1, "%s: three SENDs to b in RTR",
		      name);
	CHECK_EQ(vt_to_rts(b, &o), 0);
	sends(a, b, cq, 1);
	EXPECT_EQ_MSG(comm_ests(v, b), 0, "%s: b in RTS", name);
	sends(b, a, cq, 1);
	EXPECT_EQ_MSG(comm_ests(v, a), 0, "%s: to a, in RTS", name);

	/* through RESET and back to RTR: once more */
	CHECK_EQ(pmr_modify_qp(b, &at, PMR_QP_STATE), 0);
	o.rq_psn = o.sq_psn = 0;
	CHECK_EQ(vt_to_init(b, &o), 0);
	CHECK_EQ(vt_to_rtr(v, b, a->qp_num, &o), 0);
	/* a's next PSN: b expects 0 again, so a starts over too */
	CHECK_EQ(pmr_modify_qp(a, &at, PMR_QP_STATE), 0);
	vt_connect(v, a, b->qp_num, &o);
	sends(a, b, cq, 2);
	EXPECT_EQ_MSG(comm_ests(v, b), 1, "%s: b in RTR after a RESET", name);

	CHECK_EQ(pmr_destroy_qp(a), 0);
	CHECK_EQ(pmr_destroy_qp(b), 0);
	CHECK_EQ(pmr_destroy_cq(cq), 0);
}

/* A UD QP in RTR takes a datagram: no event. */
static void ud(struct vt *v)
{
	struct vt_opts o = vt_opts_default();
	struct pmr_cq *cq = vt_cq(v, 64);
	struct pmr_qp *a = vt_qp(v->pd, PMR_QPT_UD, cq, cq, 16, 1);
	struct pmr_qp *b = vt_qp(v->pd, PMR_QPT_UD, cq, cq, 16, 1);
	struct pmr_ah_attr aa;
	struct pmr_ah *ah;
	struct pmr_sge s = { (uintptr_t)buf[0], 16, mr[0]->lkey };
	struct pmr_sge r = { (uintptr_t)buf[1], 64, mr[1]->lkey };
	struct pmr_recv_wr rw = vt_rwr(1, &r, 1);
	struct pmr_send_wr sw = vt_swr(2, PMR_WR_SEND, &s, 1,
				       PMR_SEND_SIGNALED);
	struct pmr_wc wc;

	vt_connect(v, a, 0, &o);
	CHECK_EQ(vt_to_init(b, &o), 0);
	CHECK_EQ(vt_to_rtr(v, b, 0, &o), 0);
	vt_ah_attr(v, &aa);
	ah = pmr_create_ah(v->pd, &aa);
	CHECK(ah != NULL);
	sw.wr.ud.ah = ah;
	sw.wr.ud.remote_qpn = b->qp_num;
	sw.wr.ud.remote_qkey = o.qkey;
	CHECK_EQ(vt_post_recv1(b, &rw), 0);
	CHECK_EQ(vt_post_send1(a, &sw), 0);
	for (int k = 0; k < 2; k++) {
		vt_poll1(cq, &wc);
		CHECK_WC(wc, PMR_WC_SUCCESS);
	}
	EXPECT_EQ_MSG(comm_ests(v, b), 0, "UD: a datagram to b in RTR");
	CHECK_EQ(pmr_destroy_ah(ah), 0);
	CHECK_EQ(pmr_destroy_qp(a), 0);
	CHECK_EQ(pmr_destroy_qp(b), 0);
	CHECK_EQ(pmr_destroy_cq(cq), 0);
}

int main(void)
{
	struct vt v;

	vt_open(&v);
	for (int i = 0; i < 2; i++)
		mr[i] = vt_mr(v.pd, buf[i], sizeof(buf[i]),
			      PMR_ACCESS_LOCAL_WRITE);
	connected(&v, PMR_QPT_RC, "RC");
	connected(&v, PMR_QPT_UC, "UC");
	ud(&v);
	for (int i = 0; i < 2; i++)
		CHECK_EQ(pmr_dereg_mr(mr[i]), 0);
	vt_close(&v);
	return vt_exit();
}
