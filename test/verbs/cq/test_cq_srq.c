/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared receive queues: creation limits, several RC QPs receiving from
 * one SRQ (wc.qp_num names the QP), post_srq_recv errors, the SRQ limit
 * event, modify / query / destroy rules, and a QP on an SRQ going to ERR
 * (QP_LAST_WQE_REACHED; the SRQ's receives are not flushed).
 */
#include "cq_test.h"

#define NQP 3

static struct pmr_srq *make_srq(struct env *e, uint32_t max_wr,
				uint32_t max_sge, uint32_t limit, void *ctx)
{
	struct pmr_srq_init_attr ia;
	struct pmr_srq *srq;

	memset(&ia, 0, sizeof(ia));
	ia.srq_context = ctx;
	ia.attr.max_wr = max_wr;
	ia.attr.max_sge = max_sge;
	ia.attr.srq_limit = limit;
	srq = pmr_create_srq(e->pd, &ia);
	CHECK_PTR(srq);
	CHECK(ia.attr.max_wr >= max_wr);
	CHECK(ia.attr.max_sge >= max_sge);
	CHECK(srq->context == e->ctx);
	CHECK(srq->pd == e->pd);
	CHECK(srq->srq_context == ctx);
	return srq;
}

static void test_create(void)
{
	struct env e;
	struct pmr_srq_init_attr ia;
	struct pmr_srq_attr a;
	struct pmr_srq *srq;
	int tag;
	static const uint32_t wrs[] = { 1, 3, 10, 100, 1000 };

	env_open(&e, PMR_PROGRESS_INLINE);
	CHECK(e.dattr.max_srq_wr >= 1000);
	CHECK(e.dattr.max_srq_sge >= 4);
	for (size_t i = 0; i < sizeof(wrs) / sizeof(wrs[0]); i++) {
		memset(&ia, 0, sizeof(ia));
		ia.srq_context = &tag;
		ia.attr.max_wr = wrs[i];
		ia.attr.max_sge = 3;
		srq = pmr_create_srq(e.pd, &ia);
		CHECK_PTR(srq);
		CHECK(ia.attr.max_wr >= wrs[i]);
		CHECK(ia.attr.max_sge >= 3);
		memset(&a, 0xff, sizeof(a));
		CHECK_EQ(pmr_query_srq(srq, &a), 0);
		CHECK_EQ(a.max_wr, ia.attr.max_wr);
		CHECK_EQ(a.max_sge, ia.attr.max_sge);
		CHECK_EQ(a.srq_limit, 0);
		CHECK_EQ(pmr_destroy_srq(srq), 0);
	}
	/* the device's maxima are accepted */
	memset(&ia, 0, sizeof(ia));
	ia.attr.max_wr = e.dattr.max_srq_wr;
	ia.attr.max_sge = e.dattr.max_srq_sge;
	srq = pmr_create_srq(e.pd, &ia);
	CHECK_PTR(srq);
	CHECK_EQ(pmr_destroy_srq(srq), 0);

	/* bad attributes */
#define BAD(wr, sge, lim)						\
	do {								\
		memset(&ia, 0, sizeof(ia));				\
		ia.attr.max_wr = (wr);					\
		ia.attr.max_sge = (sge);				\
		ia.attr.srq_limit = (lim);				\
		errno = 0;						\
		CHECK(pmr_create_srq(e.pd, &ia) == NULL);		\
		CHECK_EQ(errno, EINVAL);				\
	} while (0)
	BAD(0, 1, 0);
	BAD((uint32_t)e.dattr.max_srq_wr + 1, 1, 0);
	BAD(0xffffffffu, 1, 0);
	BAD(16, 0, 0);
	BAD(16, (uint32_t)e.dattr.max_srq_sge + 1, 0);
	BAD(16, 1, 17);
#undef BAD
	/* nothing leaked into the PD */
	env_close(&e);
}

struct srq_set {
	struct env e;
	struct pmr_srq *srq;
	struct pmr_cq *rcq, *scq;
	struct pmr_qp *r[NQP], *s[NQP];   /* r[i] on the SRQ, s[i] -> r[i] */
	struct tbuf buf;
	uint32_t max_wr;
};

static void set_open(struct srq_set *t, uint32_t max_wr)
{
	struct pmr_srq_attr a;

	memset(t, 0, sizeof(*t));
	env_open(&t->e, PMR_PROGRESS_INLINE);
	tbuf_make(&t->e, &t->buf, 1 << 16);
	t->srq = make_srq(&t->e, max_wr, 2, 0, t);
	CHECK_EQ(pmr_query_srq(t->srq, &a), 0);
	t->max_wr = a.max_wr;
	t->rcq = t_cq(&t->e, 256);
	t->scq = t_cq(&t->e, 256);
	for (int i = 0; i < NQP; i++) {
		t->r[i] = t_qp(&t->e, t->scq, t->rcq, t->srq, 8, 0, 1);
		CHECK(t->r[i]->srq == t->srq);
		t->s[i] = t_qp(&t->e, t->scq, t->scq, NULL, 64, 8, 1);
		t_connect(&t->e, t->s[i], t->r[i]);
	}
}

static void set_close(struct srq_set *t)
{
	CHECK_EQ(pmr_destroy_srq(t->srq), EBUSY);   /* QPs attached */
	for (int i = 0; i < NQP; i++) {
		CHECK_EQ(pmr_destroy_qp(t->r[i]), 0);
		if (i < NQP - 1)
			CHECK_EQ(pmr_destroy_srq(t->srq), EBUSY);
		CHECK_EQ(pmr_destroy_qp(t->s[i]), 0);
	}
	CHECK_EQ(pmr_destroy_srq(t->srq), 0);
	CHECK_EQ(pmr_destroy_cq(t->rcq), 0);
	CHECK_EQ(pmr_destroy_cq(t->scq), 0);
	tbuf_free(&t->buf);
	env_close(&t->e);
}

/* s[i] sends message @p id (its length 8 + id % 50) to r[i] */
static void send_from(struct srq_set *t, int i, uint64_t id)
{
	struct pmr_wc wc;

	snprintf((char *)t->buf.p + 64 * (id % 64), 64, "from %d id %" PRIu64,
		 i, id);
	CHECK_EQ(t_send(t->s[i], id, PMR_SEND_SIGNALED, &t->buf,
			64 * (id % 64), 8 + id % 50), 0);
	t_poll_n(&t->e, t->scq, 1, &wc);
	CHECK_WC(&wc, id, PMR_WC_SUCCESS);
}

/* several QPs take receives from one SRQ, in the SRQ's order */
static void test_shared(void)
{
	struct srq_set t;
	struct pmr_wc wc[16];
	static const int order[] = { 1, 0, 2, 2, 0, 1, 1 };
	const int n = (int)(sizeof(order) / sizeof(order[0]));

	set_open(&t, 16);
	for (int k = 0; k < 10; k++)
		CHECK_EQ(t_srq_recv(t.srq, 500 + k, &t.buf, 8192 + 128 * k,
				    128), 0);
	for (int k = 0; k < n; k++)
		send_from(&t, order[k], k);
	t_poll_n(&t.e, t.rcq, n, wc);
	for (int k = 0; k < n; k++) {
		CHECK_WC(&wc[k], 500 + k, PMR_WC_SUCCESS);
		CHECK_EQ(wc[k].opcode, PMR_WC_RECV);
		CHECK_EQ(wc[k].qp_num, t.r[order[k]]->qp_num);
		CHECK_EQ(wc[k].byte_len, 8 + k % 50);
		CHECK(memcmp(t.buf.p + 8192 + 128 * k, t.buf.p + 64 * k,
			     8 + k % 50) == 0);
	}
	/* post_recv on a QP attached to an SRQ is refused */
	CHECK_EQ(t_recv(t.r[0], 1, &t.buf, 0, 8), EINVAL);
	set_close(&t);
}

/* post_srq_recv: queue full -> ENOMEM, too many SGEs -> EINVAL; bad_wr */
static void test_post_errors(void)
{
	struct srq_set t;
	struct pmr_recv_wr *wr, *bad;
	struct pmr_sge sge[32];
	struct pmr_wc wc[4];
	uint32_t m;

	set_open(&t, 8);
	m = t.max_wr;
	CHECK(m >= 8 && m <= 1024);
	wr = calloc(m + 2, sizeof(*wr));
	CHECK_PTR(wr);
	for (int i = 0; i < 32; i++) {
		sge[i].addr = (uintptr_t)t.buf.p + 8192 + 64 * i;
		sge[i].length = 64;
		sge[i].lkey = t.buf.mr->lkey;
	}
	/* one chain of m + 1: the first m are posted */
	for (uint32_t i = 0; i < m + 1; i++) {
		wr[i].wr_id = 1000 + i;
		wr[i].sg_list = &sge[i % 32];
		wr[i].num_sge = 1;
		wr[i].next = i < m ? &wr[i + 1] : NULL;
	}
	bad = NULL;
	CHECK_EQ(pmr_post_srq_recv(t.srq, wr, &bad), ENOMEM);
	CHECK(bad == &wr[m]);
	/* still full */
	bad = NULL;
	CHECK_EQ(pmr_post_srq_recv(t.srq, &wr[m], &bad), ENOMEM);
	CHECK(bad == &wr[m]);
	/* one consumed: one slot free */
	send_from(&t, 0, 1);
	t_poll_n(&t.e, t.rcq, 1, wc);
	CHECK_WC(&wc[0], 1000, PMR_WC_SUCCESS);
	wr[m].next = &wr[m + 1];
	wr[m + 1].wr_id = 0xbeef;
	wr[m + 1].sg_list = sge;
	wr[m + 1].num_sge = 1;
	bad = NULL;
	CHECK_EQ(pmr_post_srq_recv(t.srq, &wr[m], &bad), ENOMEM);
	CHECK(bad == &wr[m + 1]);

	/* too many SGEs: EINVAL, bad_wr is that WR, nothing after it */
	{
		struct pmr_srq_attr a;
		struct pmr_recv_wr w2[2];

		CHECK_EQ(pmr_query_srq(t.srq, &a), 0);
		CHECK(a.max_sge < 32);
		/* drain two to make room */
		send_from(&t, 1, 2);
		send_from(&t, 2, 3);
		t_poll_n(&t.e, t.rcq, 2, wc);
		CHECK_WC(&wc[0], 1001, PMR_WC_SUCCESS);
		CHECK_WC(&wc[1], 1002, PMR_WC_SUCCESS);
		memset(w2, 0, sizeof(w2));
		w2[0].wr_id = 1;
		w2[0].sg_list = sge;
		w2[0].num_sge = (int)a.max_sge + 1;
		w2[0].next = &w2[1];
		w2[1].wr_id = 2;
		w2[1].sg_list = sge;
		w2[1].num_sge = 1;
		bad = NULL;
		CHECK_EQ(pmr_post_srq_recv(t.srq, w2, &bad), EINVAL);
		CHECK(bad == &w2[0]);
		w2[0].num_sge = -1;
		bad = NULL;
		CHECK_EQ(pmr_post_srq_recv(t.srq, w2, &bad), EINVAL);
		CHECK(bad == &w2[0]);
		/* a good one then a bad one: the first is posted */
		w2[0].num_sge = 1;
		w2[0].wr_id = 77;
		w2[1].num_sge = (int)a.max_sge + 1;
		bad = NULL;
		CHECK_EQ(pmr_post_srq_recv(t.srq, w2, &bad), EINVAL);
		CHECK(bad == &w2[1]);
		/* the SRQ holds 1003 .. 1000 + m, then 77: taken in order */
		for (uint32_t k = 3; k < m; k++) {
			send_from(&t, (int)(k % NQP), k + 1);
			t_poll_n(&t.e, t.rcq, 1, wc);
			CHECK_WC(&wc[0], 1000 + k, PMR_WC_SUCCESS);
		}
		send_from(&t, 0, 900);
		t_poll_n(&t.e, t.rcq, 1, wc);
		CHECK_WC(&wc[0], 1000 + m, PMR_WC_SUCCESS);   /* posted above */
		send_from(&t, 1, 901);
		t_poll_n(&t.e, t.rcq, 1, wc);
		CHECK_WC(&wc[0], 77, PMR_WC_SUCCESS);
	}
	free(wr);
	set_close(&t);
}

/* the limit event: once when fewer than L remain, then disarmed */
static void test_limit(void)
{
	struct srq_set t;
	struct pmr_srq_attr a;
	struct pmr_async_event ev;
	struct pmr_wc wc[4];
	uint64_t id = 0;

	set_open(&t, 16);
	for (int k = 0; k < 10; k++)
		CHECK_EQ(t_srq_recv(t.srq, 500 + k, &t.buf, 8192, 128), 0);
	/* bad modifications */
	a.max_wr = 32;
	a.srq_limit = 4;
	CHECK_EQ(pmr_modify_srq(t.srq, &a, PMR_SRQ_MAX_WR), EINVAL);
	CHECK_EQ(pmr_modify_srq(t.srq, &a, PMR_SRQ_MAX_WR | PMR_SRQ_LIMIT),
		 EINVAL);
	CHECK_EQ(pmr_modify_srq(t.srq, &a, 1 << 5), EINVAL);
	a.srq_limit = t.max_wr + 1;
	CHECK_EQ(pmr_modify_srq(t.srq, &a, PMR_SRQ_LIMIT), EINVAL);
	CHECK_EQ(pmr_query_srq(t.srq, &a), 0);
	CHECK_EQ(a.srq_limit, 0);    /* none of these armed it */
	CHECK_EQ(a.max_wr, t.max_wr);

	a.srq_limit = 8;
	CHECK_EQ(pmr_modify_srq(t.srq, &a, PMR_SRQ_LIMIT), 0);
	memset(&a, 0, sizeof(a));
	CHECK_EQ(pmr_query_srq(t.srq, &a), 0);
	CHECK_EQ(a.srq_limit, 8);
	CHECK_EQ(a.max_wr, t.max_wr);
	/* 10 -> 9 -> 8 remaining: not below 8 */
	for (int k = 0; k < 2; k++) {
		send_from(&t, k, id++);
		CHECK_EQ(t_async(&t.e, &ev), -1);
	}
	/* 7 remaining: the event */
	send_from(&t, 2, id++);
	CHECK_EQ(t_async(&t.e, &ev), 0);
	CHECK_EQ(ev.event_type, PMR_EVENT_SRQ_LIMIT_REACHED);
	CHECK(ev.element.srq == t.srq);
	CHECK(ev.element.srq->srq_context == &t);
	CHECK_EQ(pmr_query_srq(t.srq, &a), 0);
	CHECK_EQ(a.srq_limit, 0);    /* disarmed */
	/* not again: 6, 5 remaining */
	for (int k = 0; k < 2; k++) {
		send_from(&t, k, id++);
		CHECK_EQ(t_async(&t.e, &ev), -1);
	}
	/* posting more does not raise it either */
	CHECK_EQ(t_srq_recv(t.srq, 600, &t.buf, 8192, 128), 0);
	CHECK_EQ(t_async(&t.e, &ev), -1);
	/* 6 remaining; re-arm at 5: 6 -> 5 nothing, 5 -> 4 event */
	a.srq_limit = 5;
	CHECK_EQ(pmr_modify_srq(t.srq, &a, PMR_SRQ_LIMIT), 0);
	send_from(&t, 0, id++);
	CHECK_EQ(t_async(&t.e, &ev), -1);
	send_from(&t, 1, id++);
	CHECK_EQ(t_async(&t.e, &ev), 0);
	CHECK_EQ(ev.event_type, PMR_EVENT_SRQ_LIMIT_REACHED);
	CHECK(ev.element.srq == t.srq);
	CHECK_EQ(t_async(&t.e, &ev), -1);
	/* limit 0 disarms */
	a.srq_limit = 0;
	CHECK_EQ(pmr_modify_srq(t.srq, &a, PMR_SRQ_LIMIT), 0);
	send_from(&t, 2, id++);
	CHECK_EQ(t_async(&t.e, &ev), -1);
	t_poll_n(&t.e, t.rcq, (int)id, (struct pmr_wc[16]){ 0 });
	(void)wc;

	/* two delivered, none acked: destroy_srq is refused even with no
	 * QP attached; after acking both it works */
	for (int i = 0; i < NQP; i++) {
		CHECK_EQ(pmr_destroy_qp(t.r[i]), 0);
		CHECK_EQ(pmr_destroy_qp(t.s[i]), 0);
	}
	CHECK_EQ(pmr_destroy_srq(t.srq), EBUSY);
	ev.event_type = PMR_EVENT_SRQ_LIMIT_REACHED;
	ev.element.srq = t.srq;
	pmr_ack_async_event(&ev);
	CHECK_EQ(pmr_destroy_srq(t.srq), EBUSY);
	pmr_ack_async_event(&ev);
	CHECK_EQ(t.srq->events_completed, 2);
	CHECK_EQ(pmr_destroy_srq(t.srq), 0);
	CHECK_EQ(pmr_destroy_cq(t.rcq), 0);
	CHECK_EQ(pmr_destroy_cq(t.scq), 0);
	tbuf_free(&t.buf);
	env_close(&t.e);
}

/*
 * r[0] goes to ERR: QP_LAST_WQE_REACHED (once); the SRQ's receives are not
 * flushed and the other QPs still receive from them.
 */
static void test_last_wqe(void)
{
	struct srq_set t;
	struct pmr_async_event ev;
	struct pmr_wc wc[16];

	set_open(&t, 16);
	for (int k = 0; k < 6; k++)
		CHECK_EQ(t_srq_recv(t.srq, 500 + k, &t.buf, 8192 + 128 * k, 128),
			 0);
	send_from(&t, 0, 1);
	t_poll_n(&t.e, t.rcq, 1, wc);
	CHECK_WC(&wc[0], 500, PMR_WC_SUCCESS);
	CHECK_EQ(wc[0].qp_num, t.r[0]->qp_num);

	t_qp_modify_state(t.r[0], PMR_QPS_ERR);
	CHECK_EQ(t_async(&t.e, &ev), 0);
	CHECK_EQ(ev.event_type, PMR_EVENT_QP_LAST_WQE_REACHED);
	CHECK(ev.element.qp == t.r[0]);
	CHECK_EQ(t_async(&t.e, &ev), -1);
	/* no flush of the SRQ's receives */
	CHECK_CQ_EMPTY(&t.e, t.rcq);
	/* a send posted on r[0] in ERR is flushed; no second LAST_WQE */
	CHECK_EQ(t_send(t.r[0], 77, PMR_SEND_SIGNALED, &t.buf, 0, 8), 0);
	t_poll_n(&t.e, t.scq, 1, wc);
	CHECK_WC(&wc[0], 77, PMR_WC_WR_FLUSH_ERR);
	CHECK_EQ(wc[0].qp_num, t.r[0]->qp_num);
	t_qp_modify_state(t.r[0], PMR_QPS_ERR);
	CHECK_EQ(t_async(&t.e, &ev), -1);
	CHECK_CQ_EMPTY(&t.e, t.rcq);

	/* the others keep receiving, in the SRQ's order */
	send_from(&t, 1, 2);
	send_from(&t, 2, 3);
	send_from(&t, 1, 4);
	t_poll_n(&t.e, t.rcq, 3, wc);
	CHECK_WC(&wc[0], 501, PMR_WC_SUCCESS);
	CHECK_EQ(wc[0].qp_num, t.r[1]->qp_num);
	CHECK_WC(&wc[1], 502, PMR_WC_SUCCESS);
	CHECK_EQ(wc[1].qp_num, t.r[2]->qp_num);
	CHECK_WC(&wc[2], 503, PMR_WC_SUCCESS);
	CHECK_EQ(wc[2].qp_num, t.r[1]->qp_num);

	/* destroy_qp(r[0]) refused until the event is acked */
	CHECK_EQ(pmr_destroy_qp(t.r[0]), EBUSY);
	ev.event_type = PMR_EVENT_QP_LAST_WQE_REACHED;
	ev.element.qp = t.r[0];
	pmr_ack_async_event(&ev);
	/* a QP on the SRQ moved to ERR by a receive-side error (message
	 * longer than the SRQ buffer): LAST_WQE as well, the rest stays */
	{
		struct pmr_wc w;

		CHECK_EQ(t_send(t.s[2], 88, PMR_SEND_SIGNALED, &t.buf, 0, 200),
			 0);
		t_poll_n(&t.e, t.scq, 1, &w);
		CHECK_WC(&w, 88, PMR_WC_REM_INV_REQ_ERR);
		t_poll_n(&t.e, t.rcq, 1, &w);
		CHECK_WC(&w, 504, PMR_WC_LOC_LEN_ERR);
		CHECK_EQ(w.qp_num, t.r[2]->qp_num);
		CHECK_EQ(t_qp_state(t.r[2]), PMR_QPS_ERR);
		CHECK_EQ(t_async(&t.e, &ev), 0);
		CHECK_EQ(ev.event_type, PMR_EVENT_QP_LAST_WQE_REACHED);
		CHECK(ev.element.qp == t.r[2]);
		pmr_ack_async_event(&ev);
		CHECK_EQ(t_async(&t.e, &ev), -1);
		send_from(&t, 1, 5);
		t_poll_n(&t.e, t.rcq, 1, &w);
		CHECK_WC(&w, 505, PMR_WC_SUCCESS);
		CHECK_EQ(w.qp_num, t.r[1]->qp_num);
	}
	set_close(&t);
}

int main(void)
{
	TEST_RUN(test_create);
	TEST_RUN(test_shared);
	TEST_RUN(test_post_errors);
	TEST_RUN(test_limit);
	TEST_RUN(test_last_wqe);
	fprintf(stderr, "test_cq_srq: OK\n");
	return 0;
}
