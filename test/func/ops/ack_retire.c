/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What an ACK retires: the SENDs and WRITEs it covers, in one go (their
 * completions, then the send queue's consumer moved once), up to a READ
 * whose answer did not come.
 *
 * One process, a RoCE device on a port made of two rte_rings the
 * program holds (rte_eth_from_rings).  One RC QP, sq_sig_all 0, connected
 * to a QPN that never answers: the program takes its frames off the
 * transmit ring and puts ACKs on the receive ring (ringport_ack()).
 *
 * - mixed: six WRs (SENDs and a WRITE of different lengths, signaled and
 *   not) in flight; an ACK of the first four gives the completions of the
 *   signaled ones among them, in order, with their wr_id, opcode and
 *   length, and none more; an ACK of the last two gives the one signaled
 *   there.  Then the queue takes as many WRs as it holds again: the
 *   consumer moved past all six.
 * - read: a SEND, a READ and a SEND; an ACK of all three PSNs completes
 *   the first SEND only: the READ's answer never came, so the READ is
 *   asked for again and the SEND after it waits.
 *
 *   ack_retire      run by ring.sh (EAL arguments, the configuration)
 */
#include <stdio.h>
#include <string.h>

#include <rte_mbuf.h>
#include <rte_ring.h>

#include <pmr_verbs.h>

#include "ringport.h"
#include "vt.h"
#include "wire.h"

enum {
	RING = 256,
	SQ = 8,                 /* send queue slots */
	PSN0 = 0x2000,
	DQPN = 0xbeef,          /* a QPN that never answers */
	NET = 97,               /* the device's address: 10.NET.0.1 */
};

static struct vt v;
static struct ringport rp;
static struct rte_mempool *pool;        /* the program's own frames */
static uint8_t buf[4096];
static struct pmr_mr *mr;

struct count {
	uint8_t op;
	unsigned int n;
};

static void count_op(const struct wire_pkt *p, void *arg)
{
	struct count *c = arg;

	if (p != NULL && p->dqpn == DQPN && p->opcode == c->op)
		c->n++;
}

/* Run the engine, then every frame off the transmit ring.  @return the
 * frames of opcode `op` among them. */
static unsigned int run_and_take(uint8_t op)
{
	struct count c = { op, 0 };

	for (int k = 0; k < 16; k++)
		CHECK(pmr_progress(v.ctx, 64) >= 0);
	ringport_take(&rp, count_op, &c);
	return c.n;
}

/* An RC QP on cq, connected to DQPN, first PSN PSN0; no retry before
 * the case is over (timeout 20: 4.3 s). */
static struct pmr_qp *new_qp(struct pmr_cq *cq)
{
	struct vt_opts o = vt_opts_default();
	struct pmr_qp *qp = vt_qp(v.pd, PMR_QPT_RC, cq, cq, SQ, 0);

	o.timeout = 20;
	o.sq_psn = PSN0;
	vt_connect(&v, qp, DQPN, &o);
	run_and_take(0xff);
	return qp;
}

static void post(struct pmr_qp *qp, uint64_t wr_id, enum pmr_wr_opcode op,
		 uint32_t len, unsigned int flags)
{
	struct pmr_sge s = { (uintptr_t)buf, len, mr->lkey };
	struct pmr_send_wr w = vt_swr(wr_id, op, &s, 1, flags);

	w.wr.rdma.remote_addr = 0x10000;
	w.wr.rdma.rkey = 0x1234;
	CHECK_EQ(vt_post_send1(qp, &w), 0);
}

/* The next completion is wr_id's: successful, of opcode op and len bytes. */
static void expect_wc(struct pmr_cq *cq, uint64_t wr_id,
		      enum pmr_wc_opcode op, uint32_t len)
{
	struct pmr_wc wc;

	CHECK_EQ(vt_poll(cq, 1, &wc, 500), 1);
	EXPECT_EQ_MSG(wc.wr_id, wr_id, "a completion out of order");
	EXPECT_EQ_MSG(wc.status, PMR_WC_SUCCESS, "wr %lu: status",
		      (unsigned long)wr_id);
	EXPECT_EQ_MSG(wc.opcode, op, "wr %lu: opcode", (unsigned long)wr_id);
	EXPECT_EQ_MSG(wc.byte_len, len, "wr %lu: byte_len",
		      (unsigned long)wr_id);
}

static void mixed(void)
{
	static const struct {
		enum pmr_wr_opcode op;
		uint32_t len;
		unsigned int flags;
	} wr[6] = {
		{ PMR_WR_SEND, 8, 0 },
		{ PMR_WR_SEND, 16, PMR_SEND_SIGNALED },
		{ PMR_WR_SEND, 24, 0 },
		{ PMR_WR_RDMA_WRITE, 32, PMR_SEND_SIGNALED },
		{ PMR_WR_SEND, 40, PMR_SEND_SIGNALED },
		{ PMR_WR_SEND, 48, 0 },
	};
	struct pmr_cq *cq = vt_cq(&v, 4 * SQ);
	struct pmr_qp *qp = new_qp(cq);

	for (unsigned int i = 0; i < 6; i++)
		post(qp, i, wr[i].op, wr[i].len, wr[i].flags);
	EXPECT_EQ_MSG(run_and_take(WIRE_OP_RC_SEND_ONLY), 5,
		      "the SENDs did not go once each");
	EXPECT_EQ_MSG(vt_count(cq, 20), 0, "a completion before any ACK");
	ringport_ack(&rp, pool, qp->qp_num, PSN0 + 3, 4);
	expect_wc(cq, 1, PMR_WC_SEND, 16);
	expect_wc(cq, 3, PMR_WC_RDMA_WRITE, 32);
	EXPECT_EQ_MSG(vt_count(cq, 20), 0, "completions beyond the ACK's");
	ringport_ack(&rp, pool, qp->qp_num, PSN0 + 5, 6);
	expect_wc(cq, 4, PMR_WC_SEND, 40);
	EXPECT_EQ_MSG(vt_count(cq, 20), 0, "completions beyond the signaled");
	/* all six retired: the queue takes SQ WRs again */
	for (unsigned int i = 0; i < SQ; i++)
		post(qp, 100 + i, PMR_WR_SEND, 8, 0);
	run_and_take(0xff);
	printf("mixed: one ACK of four WRs, two completions in order; then "
	       "one; the queue free again\n");
	CHECK_EQ(pmr_destroy_qp(qp), 0);
	run_and_take(0xff);
	CHECK_EQ(pmr_destroy_cq(cq), 0);
}

static void read_at_head(void)
{
	struct pmr_cq *cq = vt_cq(&v, 4 * SQ);
	struct pmr_qp *qp = new_qp(cq);

	post(qp, 1, PMR_WR_SEND, 8, PMR_SEND_SIGNALED);
	post(qp, 2, PMR_WR_RDMA_READ, 64, PMR_SEND_SIGNALED);
	post(qp, 3, PMR_WR_SEND, 8, PMR_SEND_SIGNALED);
	EXPECT_EQ_MSG(run_and_take(WIRE_OP_RC_READ_REQUEST), 1,
		      "the READ request did not go once");
	ringport_ack(&rp, pool, qp->qp_num, PSN0 + 2, 3);
	expect_wc(cq, 1, PMR_WC_SEND, 8);
	EXPECT_EQ_MSG(vt_count(cq, 20), 0, "the READ or the SEND after it "
		      "completed without the READ's answer");
	EXPECT_EQ_MSG(run_and_take(WIRE_OP_RC_READ_REQUEST), 1,
		      "the READ was not asked for again");
	printf("read: the SEND before the READ completed, the READ asked "
	       "for again, the SEND after it waits\n");
	CHECK_EQ(pmr_destroy_qp(qp), 0);
	run_and_take(0xff);
	CHECK_EQ(pmr_destroy_cq(cq), 0);
}

int main(void)
{
	pool = ringport_open(&rp, &v, "ack_retire", RING, NET, 64);
	mr = vt_mr(v.pd, buf, sizeof(buf), PMR_ACCESS_LOCAL_WRITE);
	mixed();
	read_at_head();
	CHECK_EQ(pmr_dereg_mr(mr), 0);
	vt_close(&v);
	return vt_exit();
}
