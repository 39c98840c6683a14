/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unsignaled send WRs (sq_sig_all = 0): only signaled WRs produce
 * completions, a signaled completion frees the slots of the unsignaled
 * WRs before it, and an unsignaled WR that fails still completes (with
 * its error status).  sq_sig_all = 1 signals every WR.
 */
#include "cq_test.h"

struct pair {
	struct env e;
	struct pmr_cq *scq, *bcq;
	struct pmr_qp *a, *b;
	struct tbuf buf;
};

static void pair_open(struct pair *p, enum pmr_progress_mode mode,
		      uint32_t depth, int sig_all)
{
	memset(p, 0, sizeof(*p));
	env_open(&p->e, mode);
	tbuf_make(&p->e, &p->buf, 1 << 16);
	p->scq = t_cq(&p->e, 256);
	p->bcq = t_cq(&p->e, 256);
	p->a = t_qp(&p->e, p->scq, p->scq, NULL, depth, depth, sig_all);
	p->b = t_qp(&p->e, p->bcq, p->bcq, NULL, depth, depth, 0);
	t_connect(&p->e, p->a, p->b);
}

static void pair_close(struct pair *p)
{
	CHECK_EQ(pmr_destroy_qp(p->a), 0);
	CHECK_EQ(pmr_destroy_qp(p->b), 0);
	CHECK_EQ(pmr_destroy_cq(p->scq), 0);
	CHECK_EQ(pmr_destroy_cq(p->bcq), 0);
	tbuf_free(&p->buf);
	env_close(&p->e);
}

/* U,U,S,U,U,S: exactly the two signaled wr_ids; the peer gets all six */
static void test_two_of_six(void)
{
	struct pair p;
	struct pmr_wc wc[8];

	pair_open(&p, PMR_PROGRESS_INLINE, 16, 0);
	for (int i = 0; i < 6; i++)
		CHECK_EQ(t_recv(p.b, 100 + i, &p.buf, 4096 + 64 * i, 64), 0);
	for (int i = 1; i <= 6; i++)
		CHECK_EQ(t_send(p.a, i, i % 3 == 0 ? PMR_SEND_SIGNALED : 0,
				&p.buf, 0, 10 + i), 0);
	t_poll_n(&p.e, p.scq, 2, wc);
	CHECK_WC(&wc[0], 3, PMR_WC_SUCCESS);
	CHECK_EQ(wc[0].opcode, PMR_WC_SEND);
	CHECK_WC(&wc[1], 6, PMR_WC_SUCCESS);
	CHECK_EQ(wc[1].opcode, PMR_WC_SEND);
	t_poll_n(&p.e, p.bcq, 6, wc);
	for (int i = 0; i < 6; i++) {
		CHECK_WC(&wc[i], 100 + i, PMR_WC_SUCCESS);
		CHECK_EQ(wc[i].byte_len, 11 + i);
	}
	pair_close(&p);
}

/* Same with manual progress: staged, then run at once */
static void test_two_of_six_manual(void)
{
	struct pair p;
	struct pmr_wc wc[8];

	pair_open(&p, PMR_PROGRESS_MANUAL, 16, 0);
	for (int i = 0; i < 6; i++)
		CHECK_EQ(t_recv(p.b, 100 + i, &p.buf, 4096 + 64 * i, 64), 0);
	for (int i = 1; i <= 6; i++)
		CHECK_EQ(t_post_send(p.a, i, PMR_WR_RDMA_WRITE,
				     i % 3 == 0 ? PMR_SEND_SIGNALED : 0,
				     &p.buf, 0, 8, 0,
				     (uintptr_t)p.buf.p + 8192 + 8 * i,
				     p.buf.mr->rkey), 0);
	CHECK_EQ(pmr_poll_cq(p.scq, 8, wc), 0);
	t_poll_n(&p.e, p.scq, 2, wc);
	CHECK_WC(&wc[0], 3, PMR_WC_SUCCESS);
	CHECK_EQ(wc[0].opcode, PMR_WC_RDMA_WRITE);
	CHECK_WC(&wc[1], 6, PMR_WC_SUCCESS);
	CHECK_CQ_EMPTY(&p.e, p.bcq);   /* WRITE consumes no receive */
	pair_close(&p);
}

/* sq_sig_all = 1: every WR completes, with or without SIGNALED */
static void test_sig_all(void)
{
	struct pair p;
	struct pmr_wc wc[8];

	pair_open(&p, PMR_PROGRESS_INLINE, 16, 1);
	for (int i = 0; i < 4; i++)
		CHECK_EQ(t_post_send(p.a, 40 + i, PMR_WR_RDMA_WRITE,
				     i == 2 ? PMR_SEND_SIGNALED : 0, &p.buf, 0,
				     8, 0, (uintptr_t)p.buf.p + 8192,
				     p.buf.mr->rkey), 0);
	t_poll_n(&p.e, p.scq, 4, wc);
	for (int i = 0; i < 4; i++)
		CHECK_WC(&wc[i], 40 + i, PMR_WC_SUCCESS);
	pair_close(&p);
}

/*
 * Cycles of (depth - 1) unsignaled WRs + 1 signaled, each cycle filling
 * the whole send queue: never ENOMEM, one completion per cycle.  In
 * manual mode the queue really is full before progress: one more WR is
 * refused with ENOMEM.
 */
static void cycles(enum pmr_progress_mode mode, bool chain)
{
	struct pair p;
	uint32_t depth;
	struct pmr_wc wc[4];
	struct pmr_sge sge;
	struct pmr_send_wr *wr;
	uint64_t id = 0;

	pair_open(&p, mode, 16, 0);
	depth = t_qp_max_send(p.a);
	CHECK(depth >= 16);
	wr = calloc(depth + 1, sizeof(*wr));
	CHECK_PTR(wr);
	sge.addr = (uintptr_t)p.buf.p;
	sge.length = 8;
	sge.lkey = p.buf.mr->lkey;
	for (int cycle = 0; cycle < 200; cycle++) {
		struct pmr_send_wr *bad = NULL;

		for (uint32_t i = 0; i <= depth; i++) {
			wr[i].wr_id = id + i;
			wr[i].sg_list = &sge;
			wr[i].num_sge = 1;
			wr[i].opcode = PMR_WR_RDMA_WRITE;
			wr[i].send_flags = i == depth - 1 ? PMR_SEND_SIGNALED : 0;
			wr[i].wr.rdma.remote_addr = (uintptr_t)p.buf.p + 8192 +
						    8 * i;
			wr[i].wr.rdma.rkey = p.buf.mr->rkey;
			wr[i].next = (chain && i + 1 < depth) ? &wr[i + 1] : NULL;
		}
		if (chain) {
			CHECK_EQ(pmr_post_send(p.a, wr, &bad), 0);
			CHECK(bad == NULL);
		} else {
			for (uint32_t i = 0; i < depth; i++) {
				int r = pmr_post_send(p.a, &wr[i], &bad);

				if (r != 0)
					fprintf(stderr, "cycle %d wr %u: %d\n",
						cycle, i, r);
				CHECK_EQ(r, 0);
			}
		}
		if (mode == PMR_PROGRESS_MANUAL) {
			/* the queue is full now */
			wr[depth].wr_id = 0xdead;
			CHECK_EQ(pmr_post_send(p.a, &wr[depth], &bad), ENOMEM);
			CHECK(bad == &wr[depth]);
		}
		t_poll_n(&p.e, p.scq, 1, wc);
		CHECK_WC(&wc[0], id + depth - 1, PMR_WC_SUCCESS);
		id += depth;
	}
	free(wr);
	pair_close(&p);
}

static void test_cycles_inline_single(void)
{
	cycles(PMR_PROGRESS_INLINE, false);
}

static void test_cycles_inline_chain(void)
{
	cycles(PMR_PROGRESS_INLINE, true);
}

static void test_cycles_manual_chain(void)
{
	cycles(PMR_PROGRESS_MANUAL, true);
}

/*
 * An unsignaled WR that fails completes with its error (bad lkey:
 * LOC_PROT_ERR); an unsignaled WR with a bad rkey completes with
 * REM_ACCESS_ERR; the good unsignaled ones before it complete nothing.
 */
static void test_unsignaled_error(void)
{
	struct pair p;
	struct pmr_wc wc[8];

	pair_open(&p, PMR_PROGRESS_INLINE, 16, 0);
	for (int i = 0; i < 4; i++)
		CHECK_EQ(t_recv(p.b, 100 + i, &p.buf, 4096 + 64 * i, 64), 0);
	CHECK_EQ(t_send(p.a, 1, 0, &p.buf, 0, 8), 0);
	CHECK_EQ(t_post_send(p.a, 2, PMR_WR_SEND, 0, &p.buf, 0, 8,
			     p.buf.mr->lkey ^ 0x3c, 0, 0), 0);
	CHECK_EQ(t_send(p.a, 3, 0, &p.buf, 0, 8), 0);
	CHECK_EQ(t_send(p.a, 4, PMR_SEND_SIGNALED, &p.buf, 0, 8), 0);
	t_poll_n(&p.e, p.scq, 3, wc);
	CHECK_WC(&wc[0], 2, PMR_WC_LOC_PROT_ERR);
	CHECK_EQ(wc[0].qp_num, p.a->qp_num);
	CHECK_WC(&wc[1], 3, PMR_WC_WR_FLUSH_ERR);
	CHECK_WC(&wc[2], 4, PMR_WC_WR_FLUSH_ERR);
	t_poll_n(&p.e, p.bcq, 1, wc);   /* only WR 1 arrived */
	CHECK_WC(&wc[0], 100, PMR_WC_SUCCESS);
	pair_close(&p);

	/* remote error on an unsignaled WRITE */
	pair_open(&p, PMR_PROGRESS_INLINE, 16, 0);
	CHECK_EQ(t_post_send(p.a, 7, PMR_WR_RDMA_WRITE, 0, &p.buf, 0, 8, 0,
			     (uintptr_t)p.buf.p + 8192, p.buf.mr->rkey), 0);
	CHECK_EQ(t_post_send(p.a, 8, PMR_WR_RDMA_WRITE, 0, &p.buf, 0, 8, 0,
			     (uintptr_t)p.buf.p + 8192, p.buf.mr->rkey ^ 0x3c),
		 0);
	t_poll_n(&p.e, p.scq, 1, wc);
	CHECK_WC(&wc[0], 8, PMR_WC_REM_ACCESS_ERR);
	CHECK_EQ(wc[0].qp_num, p.a->qp_num);
	CHECK_EQ(t_async_drain(&p.e), 1);   /* the responder's ACCESS_ERR */
	pair_close(&p);
}

int main(void)
{
	TEST_RUN(test_two_of_six);
	TEST_RUN(test_two_of_six_manual);
	TEST_RUN(test_sig_all);
	TEST_RUN(test_cycles_inline_single);
	TEST_RUN(test_cycles_inline_chain);
	TEST_RUN(test_cycles_manual_chain);
	TEST_RUN(test_unsignaled_error);
	fprintf(stderr, "test_cq_unsignaled: OK\n");
	return 0;
}
