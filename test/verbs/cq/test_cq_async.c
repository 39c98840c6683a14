/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Async events: non-blocking async_fd (EAGAIN), readiness with poll and
 * epoll, FIFO order with the right element, the ack rules of destroy_qp,
 * a full queue, pmr_event_type_str, and the EINVAL of NULL arguments.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "cq_test.h"

/* QP in RTS moved to SQD with the drained notification: SQ_DRAINED */
static void sq_drain(struct pmr_qp *qp)
{
	struct pmr_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = PMR_QPS_SQD;
	a.en_sqd_async_notify = 1;
	CHECK_EQ(pmr_modify_qp(qp, &a, PMR_QP_STATE |
			       PMR_QP_EN_SQD_ASYNC_NOTIFY), 0);
	CHECK_EQ(t_qp_state(qp), PMR_QPS_SQD);
}

static void test_eagain_and_readiness(void)
{
	struct env e;
	struct pmr_async_event ev;
	struct pmr_cq *cq;
	struct pmr_qp *a, *b;
	struct epoll_event eev = { .events = EPOLLIN };
	int ep;

	env_open(&e, PMR_PROGRESS_INLINE);   /* makes async_fd O_NONBLOCK */
	CHECK(e.ctx->async_fd >= 0);
	CHECK((fcntl(e.ctx->async_fd, F_GETFL) & O_NONBLOCK) != 0);
	errno = 0;
	CHECK_EQ(pmr_get_async_event(e.ctx, &ev), -1);
	CHECK_EQ(errno, EAGAIN);
	CHECK_EQ(t_readable(e.ctx->async_fd, 0), 0);
	ep = epoll_create1(EPOLL_CLOEXEC);
	CHECK(ep >= 0);
	CHECK_EQ(epoll_ctl(ep, EPOLL_CTL_ADD, e.ctx->async_fd, &eev), 0);
	CHECK_EQ(epoll_wait(ep, &eev, 1, 0), 0);

	cq = t_cq(&e, 16);
	a = t_qp(&e, cq, cq, NULL, 4, 4, 1);
	b = t_qp(&e, cq, cq, NULL, 4, 4, 1);
	t_connect(&e, a, b);
	CHECK_EQ(t_readable(e.ctx->async_fd, 0), 0);   /* connecting: none */
	sq_drain(a);
	CHECK_EQ(t_readable(e.ctx->async_fd, 1000), 1);
	CHECK_EQ(epoll_wait(ep, &eev, 1, 1000), 1);
	CHECK((eev.events & EPOLLIN) != 0);
	/* NULL arguments: EINVAL, the event left in place */
	errno = 0;
	CHECK_EQ(pmr_get_async_event(NULL, &ev), -1);
	CHECK_EQ(errno, EINVAL);
	errno = 0;
	CHECK_EQ(pmr_get_async_event(e.ctx, NULL), -1);
	CHECK_EQ(errno, EINVAL);
	CHECK_EQ(t_async(&e, &ev), 0);
	CHECK_EQ(ev.event_type, PMR_EVENT_SQ_DRAINED);
	CHECK(ev.element.qp == a);
	/* taken: no longer readable, EAGAIN again */
	CHECK_EQ(t_readable(e.ctx->async_fd, 0), 0);
	CHECK_EQ(epoll_wait(ep, &eev, 1, 0), 0);
	CHECK_EQ(t_async(&e, &ev), -1);

	/* destroy_qp with the delivered event unacked: EBUSY, then 0 */
	CHECK_EQ(pmr_destroy_qp(a), EBUSY);
	ev.event_type = PMR_EVENT_SQ_DRAINED;
	ev.element.qp = a;
	pmr_ack_async_event(&ev);
	CHECK_EQ(a->events_completed, 1);
	CHECK_EQ(pmr_destroy_qp(a), 0);
	CHECK_EQ(pmr_destroy_qp(b), 0);
	CHECK_EQ(pmr_destroy_cq(cq), 0);
	close(ep);
	env_close(&e);
}

/*
 * Several events of different kinds and elements come out in the order
 * they were raised.
 */
static void test_fifo(void)
{
	struct env e;
	struct pmr_async_event ev;
	struct pmr_cq *cq, *small;
	struct pmr_qp *q[4], *sq;
	struct pmr_srq *srq;
	struct pmr_srq_init_attr sia;
	struct pmr_srq_attr sa;
	struct tbuf buf;
	struct pmr_wc wc[4];
	struct {
		enum pmr_event_type type;
		void *element;
	} want[8];
	int nwant = 0;

	env_open(&e, PMR_PROGRESS_INLINE);
	tbuf_make(&e, &buf, 8192);
	cq = t_cq(&e, 64);
	small = t_cq(&e, 1);
	memset(&sia, 0, sizeof(sia));
	sia.attr.max_wr = 8;
	sia.attr.max_sge = 1;
	srq = pmr_create_srq(e.pd, &sia);
	CHECK_PTR(srq);
	for (int i = 0; i < 4; i++)
		q[i] = t_qp(&e, cq, cq, NULL, 8, 8, 1);
	t_connect(&e, q[0], q[1]);
	/* sq receives from q[2] through the SRQ, into the small CQ */
	sq = t_qp(&e, cq, small, srq, 8, 0, 1);
	t_connect(&e, q[2], sq);
	/* q[3]: in RTS, only to be drained */
	t_qp_init(q[3]);
	t_qp_rtr_rts(&e, q[3], q[0]->qp_num);

	/* 1. SQ_DRAINED on q[1] */
	sq_drain(q[1]);
	want[nwant].type = PMR_EVENT_SQ_DRAINED;
	want[nwant++].element = q[1];
	/* 2. SRQ_LIMIT_REACHED: 2 posted, limit 2, one taken */
	CHECK_EQ(t_srq_recv(srq, 1, &buf, 0, 64), 0);
	CHECK_EQ(t_srq_recv(srq, 2, &buf, 64, 64), 0);
	sa.srq_limit = 2;
	CHECK_EQ(pmr_modify_srq(srq, &sa, PMR_SRQ_LIMIT), 0);
	CHECK_EQ(t_send(q[2], 10, 0, &buf, 4096, 8), 0);
	t_poll_n(&e, cq, 1, wc);
	CHECK_WC(&wc[0], 10, PMR_WC_SUCCESS);
	want[nwant].type = PMR_EVENT_SRQ_LIMIT_REACHED;
	want[nwant++].element = srq;
	/* 3. CQ_ERR: the second receive overflows the 1-entry CQ */
	CHECK_EQ(small->cqe, 1);
	CHECK_EQ(t_send(q[2], 11, 0, &buf, 4096, 8), 0);
	t_poll_n(&e, cq, 1, wc);
	CHECK_WC(&wc[0], 11, PMR_WC_SUCCESS);
	want[nwant].type = PMR_EVENT_CQ_ERR;
	want[nwant++].element = small;
	/* 4. QP_ACCESS_ERR: q[0] -> q[1] (in SQD, still a responder) with a
	 *    bad rkey: the responder q[1] reports it */
	CHECK_EQ(t_post_send(q[0], 12, PMR_WR_RDMA_WRITE, 0, &buf, 0, 8, 0,
			     (uintptr_t)buf.p, buf.mr->rkey ^ 0x11), 0);
	t_poll_n(&e, cq, 1, wc);
	CHECK_WC(&wc[0], 12, PMR_WC_REM_ACCESS_ERR);
	CHECK_EQ(t_qp_state(q[1]), PMR_QPS_ERR);
	want[nwant].type = PMR_EVENT_QP_ACCESS_ERR;
	want[nwant++].element = q[1];
	/* 5. QP_LAST_WQE_REACHED on sq */
	t_qp_modify_state(sq, PMR_QPS_ERR);
	want[nwant].type = PMR_EVENT_QP_LAST_WQE_REACHED;
	want[nwant++].element = sq;
	/* 6. SQ_DRAINED on q[3] */
	sq_drain(q[3]);
	want[nwant].type = PMR_EVENT_SQ_DRAINED;
	want[nwant++].element = q[3];

	for (int i = 0; i < nwant; i++) {
		CHECK(t_readable(e.ctx->async_fd, 0));
		CHECK_EQ(t_async(&e, &ev), 0);
		if (ev.event_type != want[i].type)
			fprintf(stderr, "event %d: %s, expected %s\n", i,
				pmr_event_type_str(ev.event_type),
				pmr_event_type_str(want[i].type));
		CHECK_EQ(ev.event_type, want[i].type);
		CHECK(ev.element.qp == want[i].element ||
		      (void *)ev.element.srq == want[i].element ||
		      (void *)ev.element.cq == want[i].element);
		if (want[i].element == (void *)srq)
			CHECK(ev.element.srq == srq);
		else if (want[i].element == (void *)small)
			CHECK(ev.element.cq == small);
		else
			CHECK((void *)ev.element.qp == want[i].element);
		pmr_ack_async_event(&ev);
	}
	CHECK_EQ(t_async(&e, &ev), -1);
	CHECK_EQ(t_readable(e.ctx->async_fd, 0), 0);
	CHECK_EQ(srq->events_completed, 1);
	CHECK_EQ(small->async_events_completed, 1);
	CHECK_EQ(sq->events_completed, 1);
	CHECK_EQ(q[1]->events_completed, 2);
	CHECK_EQ(q[3]->events_completed, 1);

	CHECK_EQ(pmr_destroy_qp(sq), 0);
	for (int i = 0; i < 4; i++)
		CHECK_EQ(pmr_destroy_qp(q[i]), 0);
	CHECK_EQ(pmr_destroy_srq(srq), 0);
	CHECK_EQ(pmr_destroy_cq(small), 0);
	CHECK_EQ(pmr_destroy_cq(cq), 0);
	tbuf_free(&buf);
	env_close(&e);
}

/* The one event left is SQ_DRAINED on qp: destroying qp is EBUSY until it
 * is acked (acks of events without a CQ, QP or SRQ are ignored), then
 * works. */
static void last_drained(struct env *e, struct pmr_qp *qp)
{
	struct pmr_async_event ev, none;

	CHECK_EQ(t_async(e, &ev), 0);
	CHECK_EQ(ev.event_type, PMR_EVENT_SQ_DRAINED);
	CHECK(ev.element.qp == qp);
	CHECK_EQ(t_async(e, &none), -1);
	CHECK_EQ(pmr_destroy_qp(qp), EBUSY);
	pmr_ack_async_event(&none);     /* no element: ignored */
	none.event_type = PMR_EVENT_SQ_DRAINED;
	pmr_ack_async_event(&none);
	none.event_type = PMR_EVENT_SRQ_LIMIT_REACHED;
	pmr_ack_async_event(&none);
	pmr_ack_async_event(NULL);
	CHECK_EQ(pmr_destroy_qp(qp), EBUSY);
	pmr_ack_async_event(&ev);
	CHECK_EQ(pmr_destroy_qp(qp), 0);
}

/* destroy_qp with an event not yet taken: the event is dropped */
static void test_destroy_drops_pending(void)
{
	struct env e;
	struct pmr_cq *cq;
	struct pmr_qp *a, *b;

	env_open(&e, PMR_PROGRESS_INLINE);
	cq = t_cq(&e, 16);
	a = t_qp(&e, cq, cq, NULL, 4, 4, 1);
	b = t_qp(&e, cq, cq, NULL, 4, 4, 1);
	t_connect(&e, a, b);
	sq_drain(a);
	sq_drain(b);
	CHECK_EQ(pmr_destroy_qp(a), 0);   /* never delivered: allowed */
	last_drained(&e, b);
	CHECK_EQ(pmr_destroy_cq(cq), 0);
	env_close(&e);
}

/*
 * A full event queue (1024 events): later events are dropped, the queued
 * ones come out in order and whole, a dropped event needs no ack (the QP
 * can be destroyed once the delivered ones are acked), and the queue
 * takes events again once read.
 */
static void test_overflow(void)
{
	const int queued = 1024, raised = queued + 100;
	struct env e;
	struct pmr_async_event ev;
	struct pmr_cq *cq;
	struct pmr_qp *a, *b;
	int n = 0;

	env_open(&e, PMR_PROGRESS_INLINE);
	cq = t_cq(&e, 16);
	a = t_qp(&e, cq, cq, NULL, 4, 4, 1);
	b = t_qp(&e, cq, cq, NULL, 4, 4, 1);
	t_connect(&e, a, b);
	for (int i = 0; i < raised; i++) {
		sq_drain(a);
		t_qp_modify_state(a, PMR_QPS_RTS);
	}
	sq_drain(b);                     /* dropped too */
	while (t_async(&e, &ev) == 0) {
		CHECK_EQ(ev.event_type, PMR_EVENT_SQ_DRAINED);
		CHECK(ev.element.qp == a);
		pmr_ack_async_event(&ev);
		n++;
	}
	CHECK_EQ(errno, EAGAIN);
	CHECK_EQ(n, queued);
	CHECK_EQ(a->events_completed, (uint32_t)queued);
	CHECK_EQ(pmr_destroy_qp(a), 0);
	/* b's event was dropped: nothing to ack */
	CHECK_EQ(b->events_completed, 0);
	t_qp_modify_state(b, PMR_QPS_RTS);
	sq_drain(b);
	last_drained(&e, b);
	CHECK_EQ(pmr_destroy_cq(cq), 0);
	env_close(&e);
}

struct waiter {
	struct pmr_context *ctx;
	struct pmr_async_event ev;
	int ret;
	atomic_int done;
};

static void *waiter_main(void *arg)
{
	struct waiter *w = arg;

	w->ret = pmr_get_async_event(w->ctx, &w->ev);
	atomic_store(&w->done, 1);
	return NULL;
}

/* a blocking get_async_event wakes up when an event is raised */
static void test_blocking(void)
{
	struct env e;
	struct pmr_cq *cq;
	struct pmr_qp *a, *b;
	struct waiter w;
	pthread_t th;
	struct timespec dl;
	int fl;

	env_open(&e, PMR_PROGRESS_INLINE);
	fl = fcntl(e.ctx->async_fd, F_GETFL);
	CHECK_EQ(fcntl(e.ctx->async_fd, F_SETFL, fl & ~O_NONBLOCK), 0);
	cq = t_cq(&e, 16);
	a = t_qp(&e, cq, cq, NULL, 4, 4, 1);
	b = t_qp(&e, cq, cq, NULL, 4, 4, 1);
	t_connect(&e, a, b);
	memset(&w, 0, sizeof(w));
	w.ctx = e.ctx;
	w.ret = -2;
	CHECK_EQ(pthread_create(&th, NULL, waiter_main, &w), 0);
	usleep(50 * 1000);
	CHECK_EQ(atomic_load(&w.done), 0);
	sq_drain(b);
	clock_gettime(CLOCK_REALTIME, &dl);
	dl.tv_sec += 2;
	CHECK_EQ(pthread_timedjoin_np(th, NULL, &dl), 0);
	CHECK_EQ(w.ret, 0);
	CHECK_EQ(w.ev.event_type, PMR_EVENT_SQ_DRAINED);
	CHECK(w.ev.element.qp == b);
	pmr_ack_async_event(&w.ev);
	CHECK_EQ(pmr_destroy_qp(a), 0);
	CHECK_EQ(pmr_destroy_qp(b), 0);
	CHECK_EQ(pmr_destroy_cq(cq), 0);
	env_close(&e);
}

static void test_event_type_str(void)
{
	static const struct {
		enum pmr_event_type t;
		const char *s;
	} tab[] = {
		{ PMR_EVENT_CQ_ERR, "CQ error" },
		{ PMR_EVENT_QP_FATAL, "local work queue catastrophic error" },
		{ PMR_EVENT_QP_REQ_ERR, "invalid request local work queue error" },
		{ PMR_EVENT_QP_ACCESS_ERR, "local access violation work queue error" },
		{ PMR_EVENT_COMM_EST, "communication established" },
		{ PMR_EVENT_SQ_DRAINED, "send queue drained" },
		{ PMR_EVENT_PATH_MIG, "path migrated" },
		{ PMR_EVENT_PATH_MIG_ERR, "path migration request error" },
		{ PMR_EVENT_DEVICE_FATAL, "local catastrophic error" },
		{ PMR_EVENT_PORT_ACTIVE, "port active" },
		{ PMR_EVENT_PORT_ERR, "port error" },
		{ PMR_EVENT_LID_CHANGE, "LID change" },
		{ PMR_EVENT_PKEY_CHANGE, "P_Key change" },
		{ PMR_EVENT_SM_CHANGE, "SM change" },
		{ PMR_EVENT_SRQ_ERR, "SRQ catastrophic error" },
		{ PMR_EVENT_SRQ_LIMIT_REACHED, "SRQ limit reached" },
		{ PMR_EVENT_QP_LAST_WQE_REACHED, "last WQE reached" },
		{ PMR_EVENT_CLIENT_REREGISTER, "client reregistration" },
		{ PMR_EVENT_GID_CHANGE, "GID table change" },
		{ PMR_EVENT_WQ_FATAL, "WQ fatal" },
	};

	CHECK_EQ(sizeof(tab) / sizeof(tab[0]), PMR_EVENT_WQ_FATAL + 1);
	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++) {
		const char *s = pmr_event_type_str(tab[i].t);

		CHECK_EQ(tab[i].t, (int)i);
		CHECK(s != NULL);
		if (strcmp(s, tab[i].s) != 0)
			fprintf(stderr, "event %zu: \"%s\" != \"%s\"\n", i, s,
				tab[i].s);
		CHECK(strcmp(s, tab[i].s) == 0);
	}
	CHECK(strcmp(pmr_event_type_str((enum pmr_event_type)20), "unknown") == 0);
	CHECK(strcmp(pmr_event_type_str((enum pmr_event_type)-1), "unknown") == 0);
	CHECK(strcmp(pmr_event_type_str((enum pmr_event_type)1000), "unknown") == 0);
}

int main(void)
{
	TEST_RUN(test_eagain_and_readiness);
	TEST_RUN(test_fifo);
	TEST_RUN(test_destroy_drops_pending);
	TEST_RUN(test_overflow);
	TEST_RUN(test_blocking);
	TEST_RUN(test_event_type_str);
	fprintf(stderr, "test_cq_async: OK\n");
	return 0;
}
