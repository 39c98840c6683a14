/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * CQ overflow: a CQ is never overwritten.  The first cq->cqe completions
 * come back intact and in order, then poll_cq returns a negative value;
 * PMR_EVENT_CQ_ERR is raised once for that CQ; the CQ can be destroyed
 * once its QPs are gone and the event is acknowledged.
 */
#include "cq_test.h"

struct pair {
	struct env e;
	struct pmr_cq *scq, *rcq, *bcq;
	struct pmr_qp *a, *b;
	struct tbuf buf;
};

/* a sends to b; b's receive CQ (rcq) has @p rcqe entries */
static void pair_open(struct pair *p, int rcqe)
{
	memset(p, 0, sizeof(*p));
	env_open(&p->e, PMR_PROGRESS_INLINE);
	tbuf_make(&p->e, &p->buf, 1 << 17);
	p->scq = t_cq(&p->e, 256);
	p->bcq = t_cq(&p->e, 256);
	p->rcq = t_cq(&p->e, rcqe);
	p->a = t_qp(&p->e, p->scq, p->scq, NULL, 128, 128, 1);
	p->b = t_qp(&p->e, p->bcq, p->rcq, NULL, 128, 128, 1);
	t_connect(&p->e, p->a, p->b);
}

/* n messages a -> b, each of length 100 + i; all sends succeed */
static void send_msgs(struct pair *p, int first, int n)
{
	struct pmr_wc wc[128];

	for (int i = first; i < first + n; i++) {
		snprintf((char *)p->buf.p + 64 * i, 64, "msg-%d", i);
		CHECK_EQ(t_recv(p->b, 1000 + i, &p->buf, 16384 + 256 * i, 256), 0);
		CHECK_EQ(t_send(p->a, i, PMR_SEND_SIGNALED, &p->buf, 64 * i,
				16 + i % 32), 0);
	}
	t_poll_n(&p->e, p->scq, n, wc);
	for (int i = 0; i < n; i++)
		CHECK_WC(&wc[i], first + i, PMR_WC_SUCCESS);
}

static void check_recv(struct pair *p, const struct pmr_wc *wc, int i)
{
	CHECK_WC(wc, 1000 + i, PMR_WC_SUCCESS);
	CHECK_EQ(wc->opcode, PMR_WC_RECV);
	CHECK_EQ(wc->byte_len, 16 + i % 32);
	CHECK_EQ(wc->qp_num, p->b->qp_num);
	CHECK(memcmp(p->buf.p + 16384 + 256 * i, p->buf.p + 64 * i,
		     16 + i % 32) == 0);
}

/* The async CQ_ERR for @p cq, exactly once; acknowledged. */
static void expect_cq_err(struct pair *p, struct pmr_cq *cq)
{
	struct pmr_async_event ev;

	CHECK(t_readable(p->e.ctx->async_fd, 0));
	CHECK_EQ(t_async(&p->e, &ev), 0);
	CHECK_EQ(ev.event_type, PMR_EVENT_CQ_ERR);
	CHECK(ev.element.cq == cq);
	CHECK_EQ(t_async(&p->e, &ev), -1);
	/* destroy_cq refuses while the event is not acknowledged */
	CHECK_EQ(pmr_destroy_qp(p->a), 0);
	CHECK_EQ(pmr_destroy_qp(p->b), 0);
	CHECK_EQ(pmr_destroy_cq(cq), EBUSY);
	ev.event_type = PMR_EVENT_CQ_ERR;
	ev.element.cq = cq;
	pmr_ack_async_event(&ev);
	CHECK_EQ(cq->async_events_completed, 1);
	CHECK_EQ(pmr_destroy_cq(cq), 0);
	CHECK_EQ(pmr_destroy_cq(p->scq), 0);
	CHECK_EQ(pmr_destroy_cq(p->bcq), 0);
	tbuf_free(&p->buf);
	env_close(&p->e);
}

/* 3 * cqe completions into a CQ nobody polls */
static void test_overflow_basic(void)
{
	struct pair p;
	struct pmr_wc wc[64];
	int n;

	pair_open(&p, 4);
	n = p.rcq->cqe;
	CHECK(n >= 4 && n <= 32);
	send_msgs(&p, 0, 3 * n);
	/* the first n, intact and in order */
	memset(wc, 0, sizeof(wc));
	CHECK_EQ(pmr_poll_cq(p.rcq, 64, wc), n);
	for (int i = 0; i < n; i++)
		check_recv(&p, &wc[i], i);
	/* then an error, and it stays an error */
	CHECK(pmr_poll_cq(p.rcq, 64, wc) < 0);
	CHECK(pmr_poll_cq(p.rcq, 1, wc) < 0);
	/* a CQ in error cannot be resized */
	CHECK_EQ(pmr_resize_cq(p.rcq, 64), EINVAL);
	/* more completions for the CQ: still no second event */
	send_msgs(&p, 3 * n, 2);
	CHECK(pmr_poll_cq(p.rcq, 64, wc) < 0);
	expect_cq_err(&p, p.rcq);
}

/* Poll one at a time after the overflow: n singles, then negative */
static void test_overflow_single_polls(void)
{
	struct pair p;
	struct pmr_wc wc;
	int n;

	pair_open(&p, 8);
	n = p.rcq->cqe;
	send_msgs(&p, 0, n + 1);
	for (int i = 0; i < n; i++) {
		CHECK_EQ(pmr_poll_cq(p.rcq, 1, &wc), 1);
		check_recv(&p, &wc, i);
	}
	CHECK(pmr_poll_cq(p.rcq, 1, &wc) < 0);
	expect_cq_err(&p, p.rcq);
}

/* Exactly cqe completions: full, not overflowed; no event */
static void test_full_is_not_overflow(void)
{
	struct pair p;
	struct pmr_wc wc[64];
	int n;

	pair_open(&p, 8);
	n = p.rcq->cqe;
	CHECK(n <= 32);
	for (int round = 0; round < 3; round++) {
		send_msgs(&p, round * n, n);
		CHECK_EQ(pmr_poll_cq(p.rcq, 64, wc), n);
		for (int i = 0; i < n; i++)
			check_recv(&p, &wc[i], round * n + i);
		CHECK_EQ(pmr_poll_cq(p.rcq, 64, wc), 0);
	}
	/* partly drained, then topped up to exactly full again */
	send_msgs(&p, 3 * n, n);
	CHECK_EQ(pmr_poll_cq(p.rcq, 2, wc), 2);
	check_recv(&p, &wc[0], 3 * n);
	check_recv(&p, &wc[1], 3 * n + 1);
	send_msgs(&p, 4 * n, 2);
	CHECK_EQ(pmr_poll_cq(p.rcq, 64, wc), n);
	for (int i = 0; i < n; i++)
		check_recv(&p, &wc[i], 3 * n + 2 + i);
	CHECK_EQ(pmr_poll_cq(p.rcq, 64, wc), 0);
	CHECK_EQ(t_async_drain(&p.e), 0);

	/* one more than the space left after a partial drain: overflow */
	send_msgs(&p, 5 * n, n);
	CHECK_EQ(pmr_poll_cq(p.rcq, 3, wc), 3);
	for (int i = 0; i < 3; i++)
		check_recv(&p, &wc[i], 5 * n + i);
	send_msgs(&p, 6 * n, 4);
	CHECK_EQ(pmr_poll_cq(p.rcq, 64, wc), n);
	for (int i = 0; i < n - 3; i++)
		check_recv(&p, &wc[i], 5 * n + 3 + i);
	for (int i = 0; i < 3; i++)
		check_recv(&p, &wc[n - 3 + i], 6 * n + i);
	CHECK(pmr_poll_cq(p.rcq, 64, wc) < 0);
	expect_cq_err(&p, p.rcq);
}

/* Overflow by flush completions of a QP moved to ERR */
static void test_overflow_by_flush(void)
{
	struct pair p;
	struct pmr_wc wc[64];
	int n;

	pair_open(&p, 4);
	n = p.rcq->cqe;
	for (int i = 0; i < n + 5; i++)
		CHECK_EQ(t_recv(p.b, 1000 + i, &p.buf, 16384 + 256 * i, 256), 0);
	t_qp_modify_state(p.b, PMR_QPS_ERR);
	CHECK_EQ(pmr_poll_cq(p.rcq, 64, wc), n);
	for (int i = 0; i < n; i++) {
		CHECK_WC(&wc[i], 1000 + i, PMR_WC_WR_FLUSH_ERR);
		CHECK_EQ(wc[i].qp_num, p.b->qp_num);
	}
	CHECK(pmr_poll_cq(p.rcq, 64, wc) < 0);
	expect_cq_err(&p, p.rcq);
}

/* The CQ_ERR event never taken: destroy_cq works and drops it */
static void test_destroy_with_event_pending(void)
{
	struct pair p;
	struct pmr_async_event ev;
	struct pmr_wc wc[16];
	int n;

	pair_open(&p, 2);
	n = p.rcq->cqe;
	send_msgs(&p, 0, n + 1);
	CHECK_EQ(pmr_destroy_qp(p.a), 0);
	CHECK_EQ(pmr_destroy_qp(p.b), 0);
	CHECK_EQ(pmr_poll_cq(p.rcq, 16, wc), n);
	CHECK_EQ(pmr_destroy_cq(p.rcq), 0);
	CHECK_EQ(t_async(&p.e, &ev), -1);
	CHECK_EQ(pmr_destroy_cq(p.scq), 0);
	CHECK_EQ(pmr_destroy_cq(p.bcq), 0);
	tbuf_free(&p.buf);
	env_close(&p.e);
}

int main(void)
{
	TEST_RUN(test_overflow_basic);
	TEST_RUN(test_overflow_single_polls);
	TEST_RUN(test_full_is_not_overflow);
	TEST_RUN(test_overflow_by_flush);
	TEST_RUN(test_destroy_with_event_pending);
	fprintf(stderr, "test_cq_overflow: OK\n");
	return 0;
}
