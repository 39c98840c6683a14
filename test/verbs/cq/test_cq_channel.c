/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Completion channels: req_notify_cq arms one event, the channel fd works
 * with epoll, get_cq_event returns the CQ and its context, no event
 * without re-arming, solicited-only arming, non-blocking and blocking
 * get_cq_event, the EBUSY / EINVAL rules of destroy and notify, the
 * EINVAL of NULL arguments, and a full channel.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "cq_test.h"

struct pair {
	struct env e;
	struct pmr_comp_channel *ch;
	struct pmr_cq *scq, *rcq, *bcq, *bscq;
	struct pmr_qp *a, *b;
	struct tbuf buf;
	int ep;
	int tag_s, tag_r;
};

/* a's CQs scq (send) and rcq (receive) on the channel; b's CQs not */
static void pair_open(struct pair *p)
{
	struct epoll_event ev = { .events = EPOLLIN };

	memset(p, 0, sizeof(*p));
	env_open(&p->e, PMR_PROGRESS_INLINE);
	tbuf_make(&p->e, &p->buf, 1 << 16);
	p->ch = pmr_create_comp_channel(p->e.ctx);
	CHECK_PTR(p->ch);
	CHECK(p->ch->context == p->e.ctx);
	CHECK(p->ch->fd >= 0);
	p->scq = pmr_create_cq(p->e.ctx, 64, &p->tag_s, p->ch, 0);
	CHECK_PTR(p->scq);
	CHECK(p->scq->channel == p->ch);
	p->rcq = pmr_create_cq(p->e.ctx, 64, &p->tag_r, p->ch, 0);
	CHECK_PTR(p->rcq);
	p->bcq = t_cq(&p->e, 64);
	p->bscq = t_cq(&p->e, 64);
	p->a = t_qp(&p->e, p->scq, p->rcq, NULL, 32, 32, 0);
	p->b = t_qp(&p->e, p->bscq, p->bcq, NULL, 32, 32, 1);
	t_connect(&p->e, p->a, p->b);
	p->ep = epoll_create1(EPOLL_CLOEXEC);
	CHECK(p->ep >= 0);
	CHECK_EQ(epoll_ctl(p->ep, EPOLL_CTL_ADD, p->ch->fd, &ev), 0);
}

static void pair_close(struct pair *p)
{
	close(p->ep);
	CHECK_EQ(pmr_destroy_qp(p->a), 0);
	CHECK_EQ(pmr_destroy_qp(p->b), 0);
	CHECK_EQ(pmr_destroy_cq(p->scq), 0);
	CHECK_EQ(pmr_destroy_cq(p->rcq), 0);
	CHECK_EQ(pmr_destroy_cq(p->bcq), 0);
	CHECK_EQ(pmr_destroy_cq(p->bscq), 0);
	CHECK_EQ(pmr_destroy_comp_channel(p->ch), 0);
	tbuf_free(&p->buf);
	env_close(&p->e);
}

/* 1 if the channel fd became readable within timeout_ms, else 0 */
static int ep_wait(struct pair *p, int timeout_ms)
{
	struct epoll_event ev;
	int r = epoll_wait(p->ep, &ev, 1, timeout_ms);

	CHECK(r >= 0);
	if (r == 1)
		CHECK((ev.events & EPOLLIN) != 0);
	return r;
}

/* a -> b WRITE (a's send completion if signaled) */
static void a_write(struct pair *p, uint64_t id, unsigned int flags)
{
	CHECK_EQ(t_post_send(p->a, id, PMR_WR_RDMA_WRITE, flags, &p->buf, 0, 8,
			     0, (uintptr_t)p->buf.p + 8192, p->buf.mr->rkey), 0);
}

/* b -> a SEND (a's receive completion) */
static void b_send(struct pair *p, uint64_t id, unsigned int flags)
{
	struct pmr_wc wc;

	CHECK_EQ(t_send(p->b, id, flags, &p->buf, 0, 8), 0);
	t_poll_n(&p->e, p->bscq, 1, &wc);
	CHECK_WC(&wc, id, PMR_WC_SUCCESS);
}

static void get_event(struct pair *p, struct pmr_cq *want, void *want_ctx)
{
	struct pmr_cq *cq = NULL;
	void *ctx = NULL;

	CHECK_EQ(pmr_get_cq_event(p->ch, &cq, &ctx), 0);
	CHECK(cq == want);
	CHECK(ctx == want_ctx);
}

static void test_notify_basic(void)
{
	struct pair p;
	struct pmr_wc wc[4];

	pair_open(&p);
	CHECK_EQ(ep_wait(&p, 0), 0);
	CHECK_EQ(pmr_req_notify_cq(p.scq, 0), 0);
	CHECK_EQ(ep_wait(&p, 0), 0);     /* arming alone raises nothing */
	a_write(&p, 1, PMR_SEND_SIGNALED);
	CHECK_EQ(ep_wait(&p, 1000), 1);
	get_event(&p, p.scq, &p.tag_s);
	CHECK_EQ(ep_wait(&p, 0), 0);     /* consumed */
	t_poll_n(&p.e, p.scq, 1, wc);
	CHECK_WC(&wc[0], 1, PMR_WC_SUCCESS);

	/* not re-armed: another completion raises nothing */
	a_write(&p, 2, PMR_SEND_SIGNALED);
	CHECK_EQ(ep_wait(&p, 50), 0);
	t_poll_n(&p.e, p.scq, 1, wc);
	CHECK_WC(&wc[0], 2, PMR_WC_SUCCESS);

	/* destroy_cq with the event delivered, not acked: EBUSY */
	CHECK_EQ(pmr_destroy_qp(p.a), 0);
	CHECK_EQ(pmr_destroy_cq(p.scq), EBUSY);
	pmr_ack_cq_events(p.scq, 1);
	CHECK_EQ(p.scq->comp_events_completed, 1);
	/* the channel still has CQs */
	CHECK_EQ(pmr_destroy_comp_channel(p.ch), EBUSY);
	CHECK_EQ(pmr_destroy_cq(p.scq), 0);
	CHECK_EQ(pmr_destroy_comp_channel(p.ch), EBUSY);   /* rcq */
	p.a = t_qp(&p.e, p.bscq, p.rcq, NULL, 4, 4, 0);
	p.scq = t_cq(&p.e, 4);
	pair_close(&p);
}

/* re-arm: one event per arming, one event however many WCs arrive */
static void test_rearm(void)
{
	struct pair p;
	struct pmr_wc wc[8];
	struct pmr_cq *cq;
	void *ctx;

	pair_open(&p);
	t_nonblock(p.ch->fd);
	for (int round = 0; round < 5; round++) {
		CHECK_EQ(pmr_req_notify_cq(p.scq, 0), 0);
		a_write(&p, 10 * round, PMR_SEND_SIGNALED);
		a_write(&p, 10 * round + 1, PMR_SEND_SIGNALED);
		a_write(&p, 10 * round + 2, PMR_SEND_SIGNALED);
		CHECK_EQ(ep_wait(&p, 1000), 1);
		get_event(&p, p.scq, &p.tag_s);
		errno = 0;
		CHECK_EQ(pmr_get_cq_event(p.ch, &cq, &ctx), -1);
		CHECK_EQ(errno, EAGAIN);
		t_poll_n(&p.e, p.scq, 3, wc);
		for (int i = 0; i < 3; i++)
			CHECK_WC(&wc[i], 10 * round + i, PMR_WC_SUCCESS);
	}
	/* arming twice before a completion still gives one event */
	CHECK_EQ(pmr_req_notify_cq(p.scq, 0), 0);
	CHECK_EQ(pmr_req_notify_cq(p.scq, 0), 0);
	a_write(&p, 99, PMR_SEND_SIGNALED);
	get_event(&p, p.scq, &p.tag_s);
	errno = 0;
	CHECK_EQ(pmr_get_cq_event(p.ch, &cq, &ctx), -1);
	CHECK_EQ(errno, EAGAIN);
	t_poll_n(&p.e, p.scq, 1, wc);
	/* an unsignaled WR adds no WC: no event */
	CHECK_EQ(pmr_req_notify_cq(p.scq, 0), 0);
	a_write(&p, 100, 0);
	CHECK_EQ(ep_wait(&p, 50), 0);
	/* acks are cumulative: 6 delivered */
	CHECK_EQ(pmr_destroy_qp(p.a), 0);
	pmr_ack_cq_events(p.scq, 5);
	CHECK_EQ(pmr_destroy_cq(p.scq), EBUSY);
	pmr_ack_cq_events(p.scq, 1);
	CHECK_EQ(p.scq->comp_events_completed, 6);
	CHECK_EQ(pmr_destroy_cq(p.scq), 0);
	p.a = t_qp(&p.e, p.bscq, p.rcq, NULL, 4, 4, 0);
	p.scq = t_cq(&p.e, 4);
	pair_close(&p);
}

/* two CQs on one channel: each event names its CQ and context */
static void test_two_cqs(void)
{
	struct pair p;
	struct pmr_wc wc[4];

	pair_open(&p);
	CHECK_EQ(t_recv(p.a, 500, &p.buf, 4096, 64), 0);
	CHECK_EQ(pmr_req_notify_cq(p.scq, 0), 0);
	CHECK_EQ(pmr_req_notify_cq(p.rcq, 0), 0);
	b_send(&p, 1, 0);
	a_write(&p, 2, PMR_SEND_SIGNALED);
	get_event(&p, p.rcq, &p.tag_r);
	get_event(&p, p.scq, &p.tag_s);
	CHECK_EQ(ep_wait(&p, 0), 0);
	t_poll_n(&p.e, p.rcq, 1, wc);
	CHECK_WC(&wc[0], 500, PMR_WC_SUCCESS);
	t_poll_n(&p.e, p.scq, 1, wc);
	CHECK_WC(&wc[0], 2, PMR_WC_SUCCESS);
	pmr_ack_cq_events(p.rcq, 1);
	pmr_ack_cq_events(p.scq, 1);
	pair_close(&p);
}

/*
 * Solicited-only: an unsolicited receive does not trigger, a SEND with
 * PMR_SEND_SOLICITED does; an error completion does; a successful send
 * completion does not.
 */
static void test_solicited(void)
{
	struct pair p;
	struct pmr_wc wc[8];

	pair_open(&p);
	for (int i = 0; i < 4; i++)
		CHECK_EQ(t_recv(p.a, 600 + i, &p.buf, 4096 + 64 * i, 64), 0);
	CHECK_EQ(pmr_req_notify_cq(p.rcq, 1), 0);
	b_send(&p, 1, 0);
	CHECK_EQ(ep_wait(&p, 50), 0);
	t_poll_n(&p.e, p.rcq, 1, wc);
	CHECK_WC(&wc[0], 600, PMR_WC_SUCCESS);
	CHECK_EQ(ep_wait(&p, 0), 0);
	b_send(&p, 2, PMR_SEND_SOLICITED);
	CHECK_EQ(ep_wait(&p, 1000), 1);
	get_event(&p, p.rcq, &p.tag_r);
	t_poll_n(&p.e, p.rcq, 1, wc);
	CHECK_WC(&wc[0], 601, PMR_WC_SUCCESS);
	CHECK_EQ(ep_wait(&p, 0), 0);

	/* SEND_WITH_IMM + SOLICITED triggers too */
	CHECK_EQ(pmr_req_notify_cq(p.rcq, 1), 0);
	{
		struct pmr_sge sge = { (uintptr_t)p.buf.p, 4, p.buf.mr->lkey };
		struct pmr_send_wr wr, *bad;

		memset(&wr, 0, sizeof(wr));
		wr.wr_id = 3;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.opcode = PMR_WR_SEND_WITH_IMM;
		wr.send_flags = PMR_SEND_SOLICITED | PMR_SEND_SIGNALED;
		wr.imm_data = 0x01020304;
		CHECK_EQ(pmr_post_send(p.b, &wr, &bad), 0);
		t_poll_n(&p.e, p.bscq, 1, wc);
	}
	CHECK_EQ(ep_wait(&p, 1000), 1);
	get_event(&p, p.rcq, &p.tag_r);
	t_poll_n(&p.e, p.rcq, 1, wc);
	CHECK_WC(&wc[0], 602, PMR_WC_SUCCESS);
	CHECK((wc[0].wc_flags & PMR_WC_WITH_IMM) != 0);

	/* send side armed solicited-only: a successful send WC does not
	 * trigger (even with the SOLICITED flag on the WR) */
	CHECK_EQ(pmr_req_notify_cq(p.scq, 1), 0);
	a_write(&p, 20, PMR_SEND_SIGNALED | PMR_SEND_SOLICITED);
	CHECK_EQ(ep_wait(&p, 50), 0);
	t_poll_n(&p.e, p.scq, 1, wc);
	CHECK_WC(&wc[0], 20, PMR_WC_SUCCESS);

	/* an error completion on the send side does (bad rkey) */
	CHECK_EQ(t_post_send(p.a, 21, PMR_WR_RDMA_WRITE, 0, &p.buf, 0, 8, 0,
			     (uintptr_t)p.buf.p + 8192, p.buf.mr->rkey ^ 0x77),
		 0);
	CHECK_EQ(ep_wait(&p, 1000), 1);
	get_event(&p, p.scq, &p.tag_s);
	t_poll_n(&p.e, p.scq, 1, wc);
	CHECK_WC(&wc[0], 21, PMR_WC_REM_ACCESS_ERR);
	/* and on the receive side: the flush of the remaining receive */
	t_poll_n(&p.e, p.rcq, 1, wc);
	CHECK_WC(&wc[0], 603, PMR_WC_WR_FLUSH_ERR);
	CHECK_EQ(ep_wait(&p, 0), 0);   /* rcq was not armed */
	CHECK_EQ(t_async_drain(&p.e), 1);   /* b: QP_ACCESS_ERR */

	pmr_ack_cq_events(p.rcq, 2);
	pmr_ack_cq_events(p.scq, 1);
	pair_close(&p);
}

/* Receive side armed solicited-only: a flushed receive triggers */
static void test_solicited_flush(void)
{
	struct pair p;
	struct pmr_wc wc[4];

	pair_open(&p);
	CHECK_EQ(t_recv(p.a, 700, &p.buf, 4096, 64), 0);
	CHECK_EQ(t_recv(p.a, 701, &p.buf, 4096, 64), 0);
	CHECK_EQ(pmr_req_notify_cq(p.rcq, 1), 0);
	t_qp_modify_state(p.a, PMR_QPS_ERR);
	CHECK_EQ(ep_wait(&p, 1000), 1);
	get_event(&p, p.rcq, &p.tag_r);
	t_poll_n(&p.e, p.rcq, 2, wc);
	CHECK_WC(&wc[0], 700, PMR_WC_WR_FLUSH_ERR);
	CHECK_WC(&wc[1], 701, PMR_WC_WR_FLUSH_ERR);
	CHECK_EQ(ep_wait(&p, 0), 0);
	pmr_ack_cq_events(p.rcq, 1);

	/* a receive that fails (message too long) triggers as well */
	pair_close(&p);
	pair_open(&p);
	CHECK_EQ(t_recv(p.a, 710, &p.buf, 4096, 4), 0);
	CHECK_EQ(pmr_req_notify_cq(p.rcq, 1), 0);
	CHECK_EQ(t_send(p.b, 1, 0, &p.buf, 0, 64), 0);
	t_poll_n(&p.e, p.bscq, 1, wc);
	CHECK_WC(&wc[0], 1, PMR_WC_REM_INV_REQ_ERR);
	CHECK_EQ(ep_wait(&p, 1000), 1);
	get_event(&p, p.rcq, &p.tag_r);
	t_poll_n(&p.e, p.rcq, 1, wc);
	CHECK_WC(&wc[0], 710, PMR_WC_LOC_LEN_ERR);
	pmr_ack_cq_events(p.rcq, 1);
	t_async_drain(&p.e);
	pair_close(&p);
}

/* non-blocking channel fd: EAGAIN when nothing is pending */
static void test_nonblocking(void)
{
	struct pair p;
	struct pmr_cq *cq = (struct pmr_cq *)&p;
	void *ctx = &p;
	struct pmr_wc wc;

	pair_open(&p);
	t_nonblock(p.ch->fd);
	errno = 0;
	CHECK_EQ(pmr_get_cq_event(p.ch, &cq, &ctx), -1);
	CHECK_EQ(errno, EAGAIN);
	CHECK_EQ(pmr_req_notify_cq(p.scq, 0), 0);
	errno = 0;
	CHECK_EQ(pmr_get_cq_event(p.ch, &cq, &ctx), -1);
	CHECK_EQ(errno, EAGAIN);
	a_write(&p, 1, PMR_SEND_SIGNALED);
	get_event(&p, p.scq, &p.tag_s);
	errno = 0;
	CHECK_EQ(pmr_get_cq_event(p.ch, &cq, &ctx), -1);
	CHECK_EQ(errno, EAGAIN);
	t_poll_n(&p.e, p.scq, 1, &wc);
	pmr_ack_cq_events(p.scq, 1);
	pair_close(&p);
}

struct waiter {
	struct pmr_comp_channel *ch;
	struct pmr_cq *cq;
	void *ctx;
	int ret;
	atomic_int done;
};

static void *waiter_main(void *arg)
{
	struct waiter *w = arg;

	w->ret = pmr_get_cq_event(w->ch, &w->cq, &w->ctx);
	atomic_store(&w->done, 1);
	return NULL;
}

/* a blocking get_cq_event in another thread wakes up on a completion */
static void test_blocking_thread(void)
{
	struct pair p;
	struct waiter w;
	pthread_t th;
	struct timespec dl;
	struct pmr_wc wc;

	pair_open(&p);
	memset(&w, 0, sizeof(w));
	w.ch = p.ch;
	w.ret = -2;
	CHECK_EQ(pmr_req_notify_cq(p.scq, 0), 0);
	CHECK_EQ(pthread_create(&th, NULL, waiter_main, &w), 0);
	usleep(50 * 1000);
	CHECK_EQ(atomic_load(&w.done), 0);   /* still waiting */
	a_write(&p, 1, PMR_SEND_SIGNALED);
	clock_gettime(CLOCK_REALTIME, &dl);
	dl.tv_sec += 2;
	CHECK_EQ(pthread_timedjoin_np(th, NULL, &dl), 0);
	CHECK_EQ(w.ret, 0);
	CHECK(w.cq == p.scq);
	CHECK(w.ctx == &p.tag_s);
	t_poll_n(&p.e, p.scq, 1, &wc);
	CHECK_WC(&wc, 1, PMR_WC_SUCCESS);
	pmr_ack_cq_events(p.scq, 1);
	pair_close(&p);
}

/* errors: notify without channel, destroy rules, channel refcnt */
static void test_errors(void)
{
	struct env e;
	struct pmr_comp_channel *ch;
	struct pmr_cq *cq, *cq2;

	env_open(&e, PMR_PROGRESS_INLINE);
	cq = t_cq(&e, 4);
	CHECK_EQ(pmr_req_notify_cq(cq, 0), EINVAL);
	CHECK_EQ(pmr_req_notify_cq(cq, 1), EINVAL);
	CHECK_EQ(pmr_destroy_cq(cq), 0);

	ch = pmr_create_comp_channel(e.ctx);
	CHECK_PTR(ch);
	cq = pmr_create_cq(e.ctx, 4, NULL, ch, 0);
	CHECK_PTR(cq);
	cq2 = pmr_create_cq(e.ctx, 4, NULL, ch, 0);
	CHECK_PTR(cq2);
	CHECK_EQ(pmr_destroy_comp_channel(ch), EBUSY);
	CHECK_EQ(pmr_close_device(e.ctx), EBUSY);
	CHECK_EQ(pmr_destroy_cq(cq), 0);
	CHECK_EQ(pmr_destroy_comp_channel(ch), EBUSY);
	CHECK_EQ(pmr_destroy_cq(cq2), 0);
	CHECK_EQ(pmr_destroy_comp_channel(ch), 0);
	env_close(&e);
}

/* NULL arguments: EINVAL, nothing made or taken. */
static void test_null_args(void)
{
	struct pair p;
	struct pmr_cq *cq = NULL;
	void *ctx = NULL;
	struct pmr_wc wc;

	errno = 0;
	CHECK(pmr_create_comp_channel(NULL) == NULL);
	CHECK_EQ(errno, EINVAL);
	pair_open(&p);
	CHECK_EQ(pmr_req_notify_cq(p.scq, 0), 0);
	a_write(&p, 1, PMR_SEND_SIGNALED);
	t_poll_n(&p.e, p.scq, 1, &wc);
	errno = 0;
	CHECK_EQ(pmr_get_cq_event(NULL, &cq, &ctx), -1);
	CHECK_EQ(errno, EINVAL);
	errno = 0;
	CHECK_EQ(pmr_get_cq_event(p.ch, NULL, &ctx), -1);
	CHECK_EQ(errno, EINVAL);
	errno = 0;
	CHECK_EQ(pmr_get_cq_event(p.ch, &cq, NULL), -1);
	CHECK_EQ(errno, EINVAL);
	CHECK(cq == NULL && ctx == NULL);
	get_event(&p, p.scq, &p.tag_s);  /* the event is still there */
	pmr_ack_cq_events(p.scq, 1);
	pair_close(&p);
}

/*
 * A channel holds 65536 events (verbs guide): armed completions beyond
 * that, none taken, are dropped with a warning.  The channel works on:
 * it gives exactly the events it holds, the CQ is destroyed once those
 * are acknowledged (the dropped ones were never delivered), and the next
 * armed completion raises an event again.
 */
#define CHAN_EVENTS 65536
static void test_channel_full(void)
{
	struct pair p;
	struct pmr_cq *cq;
	void *ctx;
	struct pmr_wc wc;
	int n = 0;

	pair_open(&p);
	t_nonblock(p.ch->fd);
	for (int i = 0; i < CHAN_EVENTS + 3; i++) {
		CHECK_EQ(pmr_req_notify_cq(p.scq, 0), 0);
		a_write(&p, (uint64_t)i, PMR_SEND_SIGNALED);
		t_poll_n(&p.e, p.scq, 1, &wc);
		CHECK_WC(&wc, (uint64_t)i, PMR_WC_SUCCESS);
	}
	errno = 0;
	while (pmr_get_cq_event(p.ch, &cq, &ctx) == 0) {
		CHECK(cq == p.scq && ctx == &p.tag_s);
		n++;
	}
	CHECK_EQ(errno, EAGAIN);
	CHECK_EQ(n, CHAN_EVENTS);
	CHECK_EQ(p.scq->comp_events_completed, 0);
	pmr_ack_cq_events(p.scq, (unsigned int)n);
	CHECK_EQ(pmr_req_notify_cq(p.scq, 0), 0);
	a_write(&p, 1, PMR_SEND_SIGNALED);
	t_poll_n(&p.e, p.scq, 1, &wc);
	CHECK_WC(&wc, 1, PMR_WC_SUCCESS);
	get_event(&p, p.scq, &p.tag_s);
	pmr_ack_cq_events(p.scq, 1);
	pair_close(&p);          /* destroys the CQ: every event acked */
}

/*
 * The public refcnt field of the channel counts the CQs attached to it,
 * as ibv_comp_channel.refcnt does (libibverbs increments it in
 * ibv_create_cq and decrements it in ibv_destroy_cq).
 */
static void test_channel_refcnt(void)
{
	struct env e;
	struct pmr_comp_channel *ch;
	struct pmr_cq *cq, *cq2;

	env_open(&e, PMR_PROGRESS_INLINE);
	ch = pmr_create_comp_channel(e.ctx);
	CHECK_PTR(ch);
	CHECK_EQ(ch->refcnt, 0);
	cq = pmr_create_cq(e.ctx, 4, NULL, ch, 0);
	CHECK_PTR(cq);
	cq2 = pmr_create_cq(e.ctx, 4, NULL, ch, 0);
	CHECK_PTR(cq2);
	CHECK_EQ(ch->refcnt, 2);
	CHECK_EQ(pmr_destroy_cq(cq), 0);
	CHECK_EQ(ch->refcnt, 1);
	CHECK_EQ(pmr_destroy_cq(cq2), 0);
	CHECK_EQ(ch->refcnt, 0);
	CHECK_EQ(pmr_destroy_comp_channel(ch), 0);
	env_close(&e);
}

/* destroying a CQ with an undelivered event drops that event */
static void test_destroy_with_pending_event(void)
{
	struct pair p;
	struct pmr_cq *cq;
	void *ctx;
	struct pmr_wc wc;

	pair_open(&p);
	t_nonblock(p.ch->fd);
	CHECK_EQ(pmr_req_notify_cq(p.scq, 0), 0);
	a_write(&p, 1, PMR_SEND_SIGNALED);
	t_poll_n(&p.e, p.scq, 1, &wc);
	CHECK_EQ(pmr_destroy_qp(p.a), 0);
	CHECK_EQ(pmr_destroy_cq(p.scq), 0);   /* never delivered: no ack due */
	errno = 0;
	CHECK_EQ(pmr_get_cq_event(p.ch, &cq, &ctx), -1);
	CHECK_EQ(errno, EAGAIN);
	p.a = t_qp(&p.e, p.bscq, p.rcq, NULL, 4, 4, 0);
	p.scq = t_cq(&p.e, 4);
	pair_close(&p);
}

int main(void)
{
	TEST_RUN(test_notify_basic);
	TEST_RUN(test_rearm);
	TEST_RUN(test_two_cqs);
	TEST_RUN(test_solicited);
	TEST_RUN(test_solicited_flush);
	TEST_RUN(test_nonblocking);
	TEST_RUN(test_blocking_thread);
	TEST_RUN(test_errors);
	TEST_RUN(test_destroy_with_pending_event);
	TEST_RUN(test_channel_refcnt);
	TEST_RUN(test_null_args);
	TEST_RUN(test_channel_full);
	fprintf(stderr, "test_cq_channel: OK\n");
	return 0;
}
