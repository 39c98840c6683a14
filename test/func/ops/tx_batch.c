/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The RoCE device's tx_batch=N: pmr_post_send only counts what was
 * posted; once N posts wait (on any QP), or N WRs on the posting QP, one
 * pass builds them all and hands the frames to the port; fewer are built
 * and sent by the next engine run (pmr_poll_cq on an empty CQ,
 * pmr_progress).  One process, a RoCE device on a net_ring vdev that
 * receives its own frames (QPs connected to each other); what the port
 * took is read from the port's own counters (rte_eth_stats_get), not the
 * device's, which count frames as they are built.  With any N: posts
 * made before an engine run applied the QPs' moves to RTS send nothing
 * until it does, then each SEND once.  Then, with N above 1:
 * a list of N WRs in one post goes at once; posts on two QPs count
 * together and go in one pass; a post held longer than its QP's ACK
 * timeout starts its timer when it leaves (no timeout, nothing sent
 * again); a post held when its QP is destroyed is never built or sent,
 * and still counts towards the next pass.
 *
 *   tx_batch N      N: the device's tx_batch (1, the default, sends every
 *                   post's frames at once: the control of the others)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmr_roce.h>
#include <pmr_verbs.h>

#include "vt.h"
#include "port_counts.h"

static struct vt v;

/* Frames the device built that the port has not taken (held for a batch,
 * or waiting for room): built (ACKs included), less dropped, less what the
 * port took.  "The port took none" holds as well for a post that built
 * nothing; this tells the two apart. */
static uint64_t held(void)
{
	struct pmr_roce_port_stats ps = roce_counts(v.dev);

	return ps.tx_pkts - ps.tx_drops - port_sent();
}

static int post_send16(struct pmr_qp *qp, uint64_t wr_id, uint8_t *buf)
{
	struct pmr_sge sg = { (uintptr_t)buf, 16, 0 };
	struct pmr_send_wr w = vt_swr(wr_id, PMR_WR_SEND, &sg, 1,
				      PMR_SEND_INLINE);

	return vt_post_send1(qp, &w);
}

/* N above 1: a SEND held for 150 ms, twice its QP's ACK timeout (14:
 * 67 ms), completes without a timeout: the timer starts when the frame
 * leaves, not when it was built. */
static void held_past_timeout(uint8_t *buf, struct pmr_mr *mr)
{
	struct vt_opts o = vt_opts_default();
	struct pmr_sge rs = { (uintptr_t)buf, 16, mr->lkey };
	struct pmr_recv_wr r = vt_rwr(300, &rs, 1);
	struct pmr_roce_qp_stats qs;
	struct pmr_wc wc;
	struct vt_pair h;
	uint64_t base;

	o.timeout = 14;
	vt_pair(&v, PMR_QPT_RC, &o, 1, &h);
	CHECK_EQ(vt_post_recv1(h.qp[1], &r), 0);
	CHECK(pmr_progress(v.ctx, 32) >= 0);
	base = port_sent();
	CHECK_EQ(post_send16(h.qp[0], 301, buf), 0);
	EXPECT_EQ_MSG(port_sent() - base, 0, "a held post sent");
	usleep(150000);
	CHECK_EQ(vt_poll(h.scq[0], 1, &wc, 2000), 1);
	CHECK_WC(wc, PMR_WC_SUCCESS);
	CHECK_EQ(pmr_roce_qp_stats(h.qp[0], &qs), 0);
	EXPECT_EQ_MSG(qs.timeouts, 0, "the held frame's timer ran while "
		      "it was held");
	EXPECT_EQ(qs.retransmits, 0u);
	vt_pair_destroy(&h);
}

/* Post `n` receives of 16 bytes on qp, from buf + 16, their wr_ids from
 * `id` on. */
static void post_recvs(struct pmr_qp *qp, unsigned int n, uint64_t id,
		       uint8_t *buf, struct pmr_mr *mr)
{
	for (unsigned int i = 0; i < n; i++) {
		struct pmr_sge rs = { (uintptr_t)buf + 16 * (i + 1), 16,
				      mr->lkey };
		struct pmr_recv_wr r = vt_rwr(id + i, &rs, 1);

		CHECK_EQ(vt_post_recv1(qp, &r), 0);
	}
}

/* Poll n completions of cq, each a success. */
static void complete(struct pmr_cq *cq, unsigned int n)
{
	struct pmr_wc wc[64];

	CHECK_EQ(vt_poll(cq, (int)n, wc, 2000), (int)n);
	for (unsigned int i = 0; i < n; i++)
		CHECK_WC(wc[i], PMR_WC_SUCCESS);
}

/* N posts straight after the QPs' moves to RTS, before any engine run:
 * post_send's pass leaves a QP whose move the engine has not applied (its
 * PSNs and indices not yet set from the new attributes) to that run, so
 * nothing leaves until pmr_progress, and then each SEND once. */
static void before_the_move_applies(unsigned int batch, uint8_t *buf,
				    struct pmr_mr *mr)
{
	struct vt_opts o = vt_opts_default();
	struct pmr_roce_qp_stats qs;
	struct vt_pair h;
	uint64_t base;

	vt_pair(&v, PMR_QPT_RC, &o, 1, &h);
	post_recvs(h.qp[1], batch, 800, buf, mr);
	base = port_sent();
	for (unsigned int i = 0; i < batch; i++)
		CHECK_EQ(post_send16(h.qp[0], 800 + i, buf), 0);
	EXPECT_EQ_MSG(port_sent() - base, 0, "%u posts before the engine "
		      "applied the move to RTS", batch);
	CHECK(pmr_progress(v.ctx, 32) >= 0);
	EXPECT_EQ_MSG(port_sent() - base, batch, "after the engine run");
	complete(h.scq[0], batch);
	complete(h.rcq[1], batch);
	CHECK_EQ(pmr_roce_qp_stats(h.qp[0], &qs), 0);
	EXPECT_EQ(qs.retransmits, 0u);
	vt_pair_destroy(&h);
}

/* N above 1: a list of N WRs in one post is sent by that post. */
static void list_at_once(unsigned int batch, uint8_t *buf, struct pmr_mr *mr)
{
	struct vt_opts o = vt_opts_default();
	struct pmr_sge sg = { (uintptr_t)buf, 16, 0 };
	struct pmr_send_wr w[16], *bad = NULL;
	struct vt_pair h;
	uint64_t base;

	vt_pair(&v, PMR_QPT_RC, &o, 1, &h);
	post_recvs(h.qp[1], batch, 500, buf, mr);
	CHECK(pmr_progress(v.ctx, 32) >= 0);
	for (unsigned int i = 0; i < batch; i++) {
		w[i] = vt_swr(600 + i, PMR_WR_SEND, &sg, 1, PMR_SEND_INLINE);
		w[i].next = i + 1 < batch ? &w[i + 1] : NULL;
	}
	base = port_sent();
	CHECK_EQ(pmr_post_send(h.qp[0], w, &bad), 0);
	EXPECT_EQ_MSG(port_sent() - base, batch, "a list of N in one post");
	EXPECT_EQ(held(), 0u);
	complete(h.scq[0], batch);
	complete(h.rcq[1], batch);
	vt_pair_destroy(&h);
}

/* N above 1: posts on two QPs count together; the N-th sends both QPs'
 * WRs in one pass. */
static void two_qps(unsigned int batch, uint8_t *buf, struct pmr_mr *mr)
{
	struct vt_opts o = vt_opts_default();
	struct vt_pair a, b;
	unsigned int na = 0, nb = 0;
	uint64_t base;

	vt_pair(&v, PMR_QPT_RC, &o, 1, &a);
	vt_pair(&v, PMR_QPT_RC, &o, 1, &b);
	post_recvs(a.qp[1], batch, 500, buf, mr);
	post_recvs(b.qp[1], batch, 500, buf, mr);
	CHECK(pmr_progress(v.ctx, 32) >= 0);
	base = port_sent();
	for (unsigned int i = 0; i < batch; i++) {
		bool on_a = i % 2 == 0;

		CHECK_EQ(post_send16(on_a ? a.qp[0] : b.qp[0], 700 + i, buf),
			 0);
		if (on_a)
			na++;
		else
			nb++;
		EXPECT_EQ_MSG(port_sent() - base, i + 1 < batch ? 0u : batch,
			      "after post %u of %u, on two QPs", i + 1, batch);
	}
	EXPECT_EQ(held(), 0u);
	complete(a.scq[0], na);
	complete(b.scq[0], nb);
	complete(a.rcq[1], na);
	complete(b.rcq[1], nb);
	vt_pair_destroy(&a);
	vt_pair_destroy(&b);
}

/* N above 2: the posts of a QP destroyed before the pass still count
 * towards N (roce.rst), so the pass comes that many posts early: a post
 * on a QP then destroyed, and N - 1 posts on another, of which the last
 * makes the pass (N - 2 do not). */
static void destroyed_posts_count(unsigned int batch, uint8_t *buf,
				  struct pmr_mr *mr)
{
	struct vt_opts o = vt_opts_default();
	struct vt_pair a, b;
	uint64_t base;

	vt_pair(&v, PMR_QPT_RC, &o, 1, &a);
	vt_pair(&v, PMR_QPT_RC, &o, 1, &b);
	post_recvs(b.qp[1], batch - 1, 900, buf, mr);
	CHECK(pmr_progress(v.ctx, 32) >= 0);
	base = port_sent();
	CHECK_EQ(post_send16(a.qp[0], 950, buf), 0);
	vt_pair_destroy(&a);
	for (unsigned int i = 0; i + 1 < batch; i++) {
		CHECK_EQ(post_send16(b.qp[0], 900 + i, buf), 0);
		EXPECT_EQ_MSG(port_sent() - base, i + 2 < batch ? 0u : batch - 1,
			      "after post %u on the second QP, the first "
			      "destroyed with one post", i + 1);
	}
	complete(b.scq[0], batch - 1);
	complete(b.rcq[1], batch - 1);
	vt_pair_destroy(&b);
}

int main(int argc, char **argv)
{
	enum { LEN = 16 };
	struct vt_opts o = vt_opts_default();
	struct pmr_roce_port_stats ps;
	struct pmr_roce_qp_stats qs;
	struct vt_pair p;
	struct pmr_wc wc[64];
	struct pmr_mr *mr;
	uint8_t buf[64 * LEN] = { 0 };
	unsigned int batch, nsend, got;
	uint64_t base, built;
	int n0;

	if (argc != 2 || (batch = (unsigned int)atoi(argv[1])) < 1 ||
	    batch > 16) {
		fprintf(stderr, "usage: tx_batch N (1 to 16)\n");
		return 2;
	}
	nsend = batch + 2;
	vt_open(&v);
	CHECK_EQ(pmr_roce_port_stats(v.dev, &ps), 0);   /* a RoCE device */
	o.timeout = 18;         /* 1 s: no timer in the way of the counts */
	vt_pair(&v, PMR_QPT_RC, &o, 1, &p);
	mr = vt_mr(v.pd, buf, sizeof(buf), PMR_ACCESS_LOCAL_WRITE);
	post_recvs(p.qp[1], nsend, 100, buf, mr);

	/* an engine run first: it applies the QPs' moves to RTS, which
	 * post_send's pass leaves to it */
	CHECK(pmr_progress(v.ctx, 32) >= 0);
	/* N posts: the port takes nothing until the N-th, then all N (with
	 * N = 1, every post's frame at once) */
	base = port_sent();
	for (unsigned int i = 0; i < batch; i++) {
		uint64_t want = (i + 1) / batch * batch;

		CHECK_EQ(post_send16(p.qp[0], i, buf), 0);
		EXPECT_EQ_MSG(port_sent() - base, want, "after post %u of %u",
			      i + 1, batch);
	}
	/* one more waits (N > 1) until pmr_poll_cq finds the CQ empty (no
	 * frame has come back yet: nothing received) and runs the engine */
	CHECK_EQ(post_send16(p.qp[0], batch, buf), 0);
	EXPECT_EQ_MSG(port_sent() - base, batch == 1 ? 2u : batch,
		      "after the post past the batch");
	n0 = pmr_poll_cq(p.scq[0], 64, wc);
	CHECK(n0 >= 0 && n0 <= (int)batch + 1);
	EXPECT_EQ_MSG(port_sent() - base, batch + 1,
		      "after pmr_poll_cq on an empty CQ");
	/* exactly those: the ACKs the receives in this run owe are built
	 * by the next run, and nothing built stays behind */
	EXPECT_EQ_MSG(held(), 0, "frames held after pmr_poll_cq");

	/* all of it completes once: N + 1 SENDs, then one more, which
	 * pmr_progress sends */
	got = (unsigned int)n0;
	if (got < batch + 1)
		got += (unsigned int)vt_poll(p.scq[0], (int)batch + 1 - n0, wc,
					     2000);
	CHECK_EQ(got, batch + 1);
	got = (unsigned int)vt_poll(p.rcq[1], (int)batch + 1, wc, 2000);
	CHECK_EQ(got, batch + 1);
	base = port_sent();
	CHECK_EQ(post_send16(p.qp[0], batch + 1, buf), 0);
	EXPECT_EQ_MSG(port_sent() - base, batch == 1 ? 1u : 0u,
		      "after a post alone");
	EXPECT_EQ_MSG(held(), 0, "frames built by a post alone (N > 1: "
		      "none until the pass)");
	CHECK(pmr_progress(v.ctx, 32) >= 0);
	EXPECT_EQ_MSG(port_sent() - base, 1, "after pmr_progress");
	EXPECT_EQ_MSG(held(), 0, "frames held after pmr_progress");
	CHECK_EQ(vt_poll(p.scq[0], 1, wc, 2000), 1);
	CHECK_WC(wc[0], PMR_WC_SUCCESS);
	CHECK_EQ(wc[0].wr_id, batch + 1);
	CHECK_EQ(vt_poll(p.rcq[1], 1, wc, 2000), 1);
	CHECK_WC(wc[0], PMR_WC_SUCCESS);
	CHECK_EQ(wc[0].wr_id, 100u + batch + 1);
	/* nothing more, nothing sent twice */
	CHECK_EQ(vt_count(p.scq[0], 50) + vt_count(p.rcq[1], 50), 0);
	CHECK_EQ(pmr_roce_qp_stats(p.qp[0], &qs), 0);
	EXPECT_EQ(qs.retransmits, 0u);
	printf("tx_batch=%u: %u SENDs, each completed once\n", batch,
	       nsend);
	before_the_move_applies(batch, buf, mr);
	if (batch > 1) {
		held_past_timeout(buf, mr);
		list_at_once(batch, buf, mr);
		two_qps(batch, buf, mr);
	}
	if (batch > 2)
		destroyed_posts_count(batch, buf, mr);

	/* a post, then the QPs destroyed: the frame goes at once with
	 * N = 1; with N above 1 the WR goes with its QP, never built, as
	 * a WR the window held back would */
	CHECK_EQ(pmr_roce_port_stats(v.dev, &ps), 0);
	built = ps.tx_pkts;
	base = port_sent();
	CHECK_EQ(post_send16(p.qp[0], 400, buf), 0);
	EXPECT_EQ_MSG(port_sent() - base, batch == 1 ? 1u : 0u,
		      "after the last post");
	vt_pair_destroy(&p);
	EXPECT_EQ_MSG(port_sent() - base, batch == 1 ? 1u : 0u,
		      "after the QPs were destroyed");
	CHECK_EQ(pmr_roce_port_stats(v.dev, &ps), 0);
	EXPECT_EQ_MSG(ps.tx_pkts - built, batch == 1 ? 1u : 0u,
		      "frames built for a post held at destroy");
	EXPECT_EQ(held(), 0u);
	CHECK_EQ(pmr_dereg_mr(mr), 0);
	vt_close(&v);
	return vt_exit();
}
