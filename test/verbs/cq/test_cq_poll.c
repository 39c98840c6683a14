/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pmr_poll_cq and CQ lifetime: empty CQ, FIFO order (shared and separate
 * send / receive CQs), num_entries limits, a polled WC never comes back,
 * create_cq sizes and argument errors, resize_cq, destroy_cq while in use.
 */
#include "cq_test.h"

#define NMSG 200

/* A connected pair a <-> b; a's CQs scq/rcq, b's bcq. */
struct pair {
	struct env e;
	struct pmr_cq *scq, *rcq, *bcq;
	struct pmr_qp *a, *b;
	struct tbuf buf;
};

static void pair_open(struct pair *p, enum pmr_progress_mode mode,
		      int scqe, int rcqe, bool shared, uint32_t depth)
{
	memset(p, 0, sizeof(*p));
	env_open(&p->e, mode);
	tbuf_make(&p->e, &p->buf, 1 << 16);
	p->scq = t_cq(&p->e, scqe);
	p->rcq = shared ? p->scq : t_cq(&p->e, rcqe);
	p->bcq = t_cq(&p->e, 1024);
	p->a = t_qp(&p->e, p->scq, p->rcq, NULL, depth, depth, 1);
	p->b = t_qp(&p->e, p->bcq, p->bcq, NULL, depth, depth, 1);
	t_connect(&p->e, p->a, p->b);
}

static void pair_close(struct pair *p)
{
	CHECK_EQ(pmr_destroy_qp(p->a), 0);
	CHECK_EQ(pmr_destroy_qp(p->b), 0);
	if (p->rcq != p->scq)
		CHECK_EQ(pmr_destroy_cq(p->rcq), 0);
	CHECK_EQ(pmr_destroy_cq(p->scq), 0);
	CHECK_EQ(pmr_destroy_cq(p->bcq), 0);
	tbuf_free(&p->buf);
	env_close(&p->e);
}

static void test_empty(void)
{
	struct env e;
	struct pmr_cq *cq;
	struct pmr_wc wc[4];

	env_open(&e, PMR_PROGRESS_INLINE);
	cq = t_cq(&e, 8);
	memset(wc, 0xa5, sizeof(wc));
	CHECK_EQ(pmr_poll_cq(cq, 4, wc), 0);
	CHECK_EQ(pmr_poll_cq(cq, 1, wc), 0);
	CHECK_EQ(wc[0].wr_id, 0xa5a5a5a5a5a5a5a5ull);   /* untouched */
	CHECK_EQ(pmr_destroy_cq(cq), 0);
	env_close(&e);
}

/*
 * a and b both send NMSG messages to each other; a's send and receive
 * completions go to one CQ (shared) or two: each stream is in posting
 * order, and on the shared CQ message i's two completions come before
 * message i + 1's (inline progress runs each WR when posted).
 */
static void fifo_run(bool shared)
{
	struct pair p;
	struct pmr_wc *wc = calloc(2 * NMSG, sizeof(*wc));
	uint64_t ns = 0, nr = 0;

	CHECK_PTR(wc);
	pair_open(&p, PMR_PROGRESS_INLINE, 1024, 1024, shared, 256);
	for (int i = 0; i < NMSG; i++)
		CHECK_EQ(t_recv(p.a, 10000 + i, &p.buf, 32768 + 64 * i, 64), 0);
	for (int i = 0; i < NMSG; i++)
		CHECK_EQ(t_recv(p.b, 20000 + i, &p.buf, 16384 + 64 * i, 64), 0);
	for (int i = 0; i < NMSG; i++) {
		CHECK_EQ(t_send(p.a, i, PMR_SEND_SIGNALED, &p.buf, 0, 16), 0);
		CHECK_EQ(t_send(p.b, 5000 + i, PMR_SEND_SIGNALED, &p.buf, 0,
				24), 0);
	}
	if (shared) {
		t_poll_n(&p.e, p.scq, 2 * NMSG, wc);
		for (int i = 0; i < 2 * NMSG; i++) {
			if (wc[i].opcode & PMR_WC_RECV) {
				CHECK_WC(&wc[i], 10000 + nr, PMR_WC_SUCCESS);
				CHECK_EQ(wc[i].opcode, PMR_WC_RECV);
				CHECK_EQ(wc[i].byte_len, 24);
				nr++;
			} else {
				CHECK_WC(&wc[i], ns, PMR_WC_SUCCESS);
				CHECK_EQ(wc[i].opcode, PMR_WC_SEND);
				ns++;
			}
			CHECK_EQ(wc[i].qp_num, p.a->qp_num);
			/* after 2k WCs, k sends and k receives */
			if (i % 2 == 1) {
				CHECK_EQ(ns, (uint64_t)(i + 1) / 2);
				CHECK_EQ(nr, (uint64_t)(i + 1) / 2);
			}
		}
	} else {
		t_poll_n(&p.e, p.scq, NMSG, wc);
		for (int i = 0; i < NMSG; i++) {
			CHECK_WC(&wc[i], i, PMR_WC_SUCCESS);
			CHECK_EQ(wc[i].opcode, PMR_WC_SEND);
		}
		t_poll_n(&p.e, p.rcq, NMSG, wc);
		for (int i = 0; i < NMSG; i++) {
			CHECK_WC(&wc[i], 10000 + i, PMR_WC_SUCCESS);
			CHECK_EQ(wc[i].opcode, PMR_WC_RECV);
			CHECK_EQ(wc[i].qp_num, p.a->qp_num);
		}
	}
	/* b: one CQ for both, in order per stream */
	t_poll_n(&p.e, p.bcq, 2 * NMSG, wc);
	ns = nr = 0;
	for (int i = 0; i < 2 * NMSG; i++) {
		if (wc[i].opcode & PMR_WC_RECV)
			CHECK_WC(&wc[i], 20000 + nr++, PMR_WC_SUCCESS);
		else
			CHECK_WC(&wc[i], 5000 + ns++, PMR_WC_SUCCESS);
	}
	CHECK_EQ(ns, NMSG);
	CHECK_EQ(nr, NMSG);
	pair_close(&p);
	free(wc);
}

static void test_fifo_shared_cq(void)
{
	fifo_run(true);
}

static void test_fifo_separate_cqs(void)
{
	fifo_run(false);
}

/*
 * Many more completions than the CQ size, polled in odd-sized batches:
 * the ring wraps many times, order and uniqueness hold.
 */
static void test_fifo_wrap(void)
{
	struct pair p;
	struct pmr_wc wc[8];
	uint64_t next = 0, posted = 0;

	pair_open(&p, PMR_PROGRESS_MANUAL, 8, 8, false, 8);
	CHECK_EQ(p.scq->cqe >= 8, 1);
	while (next < 3000) {
		/* post up to 5 WRITEs, run them, poll in batches of 3 */
		for (int i = 0; i < 5 && posted - next < (uint64_t)p.scq->cqe &&
		     posted - next < 8; i++) {
			CHECK_EQ(t_post_send(p.a, posted, PMR_WR_RDMA_WRITE,
					     PMR_SEND_SIGNALED, &p.buf, 0, 8,
					     0, (uintptr_t)p.buf.p + 8192,
					     p.buf.mr->rkey), 0);
			posted++;
		}
		t_progress(&p.e);
		for (;;) {
			int r = pmr_poll_cq(p.scq, 3, wc);

			CHECK(r >= 0 && r <= 3);
			if (r == 0)
				break;
			for (int i = 0; i < r; i++) {
				CHECK_WC(&wc[i], next, PMR_WC_SUCCESS);
				CHECK_EQ(wc[i].opcode, PMR_WC_RDMA_WRITE);
				next++;
			}
		}
		CHECK_EQ(next, posted);
	}
	pair_close(&p);
}

/* post 10, poll with num_entries 3: 3, 3, 3, 1, 0; nothing twice */
static void test_num_entries(void)
{
	struct pair p;
	struct pmr_wc wc[8];
	int expect[] = { 3, 3, 3, 1, 0, 0 };
	uint64_t next = 0;

	pair_open(&p, PMR_PROGRESS_INLINE, 16, 16, false, 16);
	for (int i = 0; i < 10; i++)
		CHECK_EQ(t_post_send(p.a, 70 + i, PMR_WR_RDMA_WRITE,
				     PMR_SEND_SIGNALED, &p.buf, 0, 8, 0,
				     (uintptr_t)p.buf.p + 4096,
				     p.buf.mr->rkey), 0);
	for (size_t k = 0; k < sizeof(expect) / sizeof(expect[0]); k++) {
		memset(wc, 0, sizeof(wc));
		CHECK_EQ(pmr_poll_cq(p.scq, 3, wc), expect[k]);
		for (int i = 0; i < expect[k]; i++) {
			CHECK_WC(&wc[i], 70 + next, PMR_WC_SUCCESS);
			next++;
		}
		/* the entry after the last written one is untouched */
		if (expect[k] < 3)
			CHECK_EQ(wc[expect[k]].wr_id, 0);
	}
	CHECK_EQ(next, 10);
	/* num_entries 0 takes nothing */
	CHECK_EQ(t_post_send(p.a, 99, PMR_WR_RDMA_WRITE, PMR_SEND_SIGNALED,
			     &p.buf, 0, 8, 0, (uintptr_t)p.buf.p + 4096,
			     p.buf.mr->rkey), 0);
	CHECK_EQ(pmr_poll_cq(p.scq, 0, wc), 0);
	CHECK_EQ(pmr_poll_cq(p.scq, 8, wc), 1);
	CHECK_WC(&wc[0], 99, PMR_WC_SUCCESS);
	CHECK_EQ(pmr_poll_cq(p.scq, 8, wc), 0);
	pair_close(&p);
}

static void test_create_sizes(void)
{
	struct env e, e2;
	static const int sizes[] = { 1, 2, 3, 5, 63, 64, 65, 100, 1000, 4097 };
	struct pmr_comp_channel *ch2;
	struct pmr_cq *cq;
	int tag;

	env_open(&e, PMR_PROGRESS_INLINE);
	CHECK(e.dattr.max_cqe >= 4097);
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		cq = pmr_create_cq(e.ctx, sizes[i], &tag, NULL, 0);
		CHECK_PTR(cq);
		CHECK(cq->cqe >= sizes[i]);
		CHECK(cq->cqe <= e.dattr.max_cqe);
		CHECK(cq->context == e.ctx);
		CHECK(cq->cq_context == &tag);
		CHECK(cq->channel == NULL);
		CHECK_EQ(pmr_destroy_cq(cq), 0);
	}
	cq = pmr_create_cq(e.ctx, e.dattr.max_cqe, NULL, NULL,
			   e.ctx->num_comp_vectors - 1);
	CHECK_PTR(cq);
	CHECK(cq->cqe >= e.dattr.max_cqe);
	CHECK_EQ(pmr_destroy_cq(cq), 0);

	/* argument errors */
	errno = 0;
	CHECK(pmr_create_cq(e.ctx, 0, NULL, NULL, 0) == NULL);
	CHECK_EQ(errno, EINVAL);
	errno = 0;
	CHECK(pmr_create_cq(e.ctx, -1, NULL, NULL, 0) == NULL);
	CHECK_EQ(errno, EINVAL);
	errno = 0;
	CHECK(pmr_create_cq(e.ctx, -4096, NULL, NULL, 0) == NULL);
	CHECK_EQ(errno, EINVAL);
	errno = 0;
	CHECK(pmr_create_cq(e.ctx, e.dattr.max_cqe + 1, NULL, NULL, 0) == NULL);
	CHECK_EQ(errno, EINVAL);
	errno = 0;
	CHECK(pmr_create_cq(e.ctx, 8, NULL, NULL, -1) == NULL);
	CHECK_EQ(errno, EINVAL);
	errno = 0;
	CHECK(pmr_create_cq(e.ctx, 8, NULL, NULL,
			    e.ctx->num_comp_vectors) == NULL);
	CHECK_EQ(errno, EINVAL);

	/* a channel of another context */
	env_open(&e2, PMR_PROGRESS_INLINE);
	ch2 = pmr_create_comp_channel(e2.ctx);
	CHECK_PTR(ch2);
	errno = 0;
	CHECK(pmr_create_cq(e.ctx, 8, NULL, ch2, 0) == NULL);
	CHECK_EQ(errno, EINVAL);
	/* the failed create did not attach a CQ to the channel */
	CHECK_EQ(pmr_destroy_comp_channel(ch2), 0);
	env_close(&e2);
	/* the failed creates left nothing behind in the context */
	env_close(&e);
}

/* resize keeps what is held (in order) and the CQ keeps working */
static void test_resize(void)
{
	struct pair p;
	struct pmr_wc wc[64];
	uint64_t id = 0, next = 0;

	pair_open(&p, PMR_PROGRESS_INLINE, 4, 4, false, 64);
	CHECK_EQ(p.scq->cqe, 4);  /* power of two: what the loop device gives */

#define WRITE_ONE() CHECK_EQ(t_post_send(p.a, id++, PMR_WR_RDMA_WRITE,	\
					 PMR_SEND_SIGNALED, &p.buf, 0, 8, 0, \
					 (uintptr_t)p.buf.p + 4096,	\
					 p.buf.mr->rkey), 0)
	/* wrap the ring: consumer index no longer 0 */
	for (int k = 0; k < 5; k++) {
		for (int i = 0; i < 3; i++)
			WRITE_ONE();
		t_poll_n(&p.e, p.scq, 3, wc);
		for (int i = 0; i < 3; i++)
			CHECK_WC(&wc[i], next++, PMR_WC_SUCCESS);
	}
	/* hold 3, grow to 37 */
	for (int i = 0; i < 3; i++)
		WRITE_ONE();
	CHECK_EQ(pmr_resize_cq(p.scq, 37), 0);
	CHECK(p.scq->cqe >= 37);
	/* fill up beyond the old size */
	for (int i = 0; i < 30; i++)
		WRITE_ONE();
	t_poll_n(&p.e, p.scq, 33, wc);
	for (int i = 0; i < 33; i++)
		CHECK_WC(&wc[i], next++, PMR_WC_SUCCESS);

	/* hold 10: shrinking below 10 fails and keeps everything */
	for (int i = 0; i < 10; i++)
		WRITE_ONE();
	CHECK_EQ(pmr_resize_cq(p.scq, 5), EINVAL);
	CHECK_EQ(pmr_resize_cq(p.scq, 1), EINVAL);
	CHECK_EQ(pmr_resize_cq(p.scq, 0), EINVAL);
	CHECK_EQ(pmr_resize_cq(p.scq, -3), EINVAL);
	CHECK_EQ(pmr_resize_cq(p.scq, p.e.dattr.max_cqe + 1), EINVAL);
	CHECK(p.scq->cqe >= 37);
	/* shrink to what is held: allowed */
	CHECK_EQ(pmr_resize_cq(p.scq, 10), 0);
	CHECK(p.scq->cqe >= 10);
	CHECK_EQ(pmr_poll_cq(p.scq, 4, wc), 4);
	for (int i = 0; i < 4; i++)
		CHECK_WC(&wc[i], next++, PMR_WC_SUCCESS);
	/* keep going through several wraps of the new ring */
	for (int k = 0; k < 20; k++) {
		for (int i = 0; i < 4; i++)
			WRITE_ONE();
		CHECK_EQ(pmr_poll_cq(p.scq, 4, wc), 4);
		for (int i = 0; i < 4; i++)
			CHECK_WC(&wc[i], next++, PMR_WC_SUCCESS);
	}
	t_poll_n(&p.e, p.scq, 6, wc);
	for (int i = 0; i < 6; i++)
		CHECK_WC(&wc[i], next++, PMR_WC_SUCCESS);
	CHECK_EQ(next, id);
	/* an empty CQ shrinks to 1 */
	CHECK_EQ(pmr_resize_cq(p.scq, 1), 0);
	CHECK(p.scq->cqe >= 1);
	WRITE_ONE();
	t_poll_n(&p.e, p.scq, 1, wc);
	CHECK_WC(&wc[0], next++, PMR_WC_SUCCESS);
#undef WRITE_ONE
	pair_close(&p);
}

/* destroy_cq while a QP uses it (as send or receive CQ): EBUSY */
static void test_destroy_busy(void)
{
	struct env e;
	struct pmr_cq *scq, *rcq;
	struct pmr_qp *qp, *qp2;

	env_open(&e, PMR_PROGRESS_INLINE);
	scq = t_cq(&e, 8);
	rcq = t_cq(&e, 8);
	qp = t_qp(&e, scq, rcq, NULL, 4, 4, 0);
	qp2 = t_qp(&e, rcq, rcq, NULL, 4, 4, 0);
	CHECK_EQ(pmr_destroy_cq(scq), EBUSY);
	CHECK_EQ(pmr_destroy_cq(rcq), EBUSY);
	CHECK_EQ(pmr_close_device(e.ctx), EBUSY);
	CHECK_EQ(pmr_destroy_qp(qp), 0);
	CHECK_EQ(pmr_destroy_cq(rcq), EBUSY);   /* qp2 still uses it */
	CHECK_EQ(pmr_destroy_cq(scq), 0);
	CHECK_EQ(pmr_destroy_qp(qp2), 0);
	CHECK_EQ(pmr_destroy_cq(rcq), 0);
	env_close(&e);
}

int main(void)
{
	TEST_RUN(test_empty);
	TEST_RUN(test_fifo_shared_cq);
	TEST_RUN(test_fifo_separate_cqs);
	TEST_RUN(test_fifo_wrap);
	TEST_RUN(test_num_entries);
	TEST_RUN(test_create_sizes);
	TEST_RUN(test_resize);
	TEST_RUN(test_destroy_busy);
	fprintf(stderr, "test_cq_poll: OK\n");
	return 0;
}
