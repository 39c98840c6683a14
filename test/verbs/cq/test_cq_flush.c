/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Flush semantics: moving a QP to ERR completes every outstanding WR with
 * WR_FLUSH_ERR in posting order (per queue, unsignaled ones included), WRs
 * posted in ERR are flushed too, an RC error completion flushes the rest,
 * and RESET discards without completions (the QP can then be used again).
 */
#include "cq_test.h"

#define NS 6   /* sends staged */
#define NR 5   /* receives staged */

/* Send and receive WRs outstanding (manual progress) flushed by ERR. */
static void test_flush_outstanding(void)
{
	struct env e;
	struct pmr_cq *scq, *rcq, *pcq;
	struct pmr_qp *a, *b;
	struct tbuf buf;
	struct pmr_wc wc[32];

	env_open(&e, PMR_PROGRESS_MANUAL);
	tbuf_make(&e, &buf, 4096);
	scq = t_cq(&e, 32);
	rcq = t_cq(&e, 32);
	pcq = t_cq(&e, 32);
	a = t_qp(&e, scq, rcq, NULL, 16, 16, 0);
	b = t_qp(&e, pcq, pcq, NULL, 16, 16, 1);
	t_connect(&e, a, b);

	/* signaled, unsignaled, RDMA WRITE, ... nothing runs until progress */
	for (int i = 0; i < NS; i++) {
		unsigned int fl = (i % 2 == 0) ? PMR_SEND_SIGNALED : 0;

		if (i == 3)
			CHECK_EQ(t_post_send(a, 100 + i, PMR_WR_RDMA_WRITE, fl,
					     &buf, 0, 16, 0,
					     (uintptr_t)buf.p + 1024,
					     buf.mr->rkey), 0);
		else
			CHECK_EQ(t_send(a, 100 + i, fl, &buf, 0, 16), 0);
	}
	for (int i = 0; i < NR; i++)
		CHECK_EQ(t_recv(a, 200 + i, &buf, 2048, 64), 0);
	CHECK_EQ(pmr_poll_cq(scq, 32, wc), 0);
	CHECK_EQ(pmr_poll_cq(rcq, 32, wc), 0);

	t_qp_modify_state(a, PMR_QPS_ERR);
	CHECK_EQ(a->state, PMR_QPS_ERR);

	t_poll_n(&e, scq, NS, wc);
	for (int i = 0; i < NS; i++) {
		CHECK_WC(&wc[i], 100 + i, PMR_WC_WR_FLUSH_ERR);
		CHECK_EQ(wc[i].qp_num, a->qp_num);
	}
	t_poll_n(&e, rcq, NR, wc);
	for (int i = 0; i < NR; i++) {
		CHECK_WC(&wc[i], 200 + i, PMR_WC_WR_FLUSH_ERR);
		CHECK_EQ(wc[i].qp_num, a->qp_num);
		CHECK((wc[i].opcode & PMR_WC_RECV) != 0);
	}
	/* nothing reached the peer */
	CHECK_CQ_EMPTY(&e, pcq);

	/* posted in ERR: flushed as well, send and receive, in order */
	CHECK_EQ(t_send(a, 300, 0, &buf, 0, 8), 0);
	CHECK_EQ(t_send(a, 301, PMR_SEND_SIGNALED, &buf, 0, 8), 0);
	CHECK_EQ(t_recv(a, 400, &buf, 0, 8), 0);
	CHECK_EQ(t_recv(a, 401, &buf, 0, 8), 0);
	t_poll_n(&e, scq, 2, wc);
	CHECK_WC(&wc[0], 300, PMR_WC_WR_FLUSH_ERR);
	CHECK_WC(&wc[1], 301, PMR_WC_WR_FLUSH_ERR);
	CHECK_EQ(wc[0].qp_num, a->qp_num);
	CHECK_EQ(wc[1].qp_num, a->qp_num);
	t_poll_n(&e, rcq, 2, wc);
	CHECK_WC(&wc[0], 400, PMR_WC_WR_FLUSH_ERR);
	CHECK_WC(&wc[1], 401, PMR_WC_WR_FLUSH_ERR);
	CHECK((wc[0].opcode & PMR_WC_RECV) != 0);
	CHECK((wc[1].opcode & PMR_WC_RECV) != 0);
	CHECK_EQ(t_qp_state(a), PMR_QPS_ERR);

	/* ERR -> ERR flushes nothing twice */
	t_qp_modify_state(a, PMR_QPS_ERR);
	CHECK_CQ_EMPTY(&e, scq);
	CHECK_CQ_EMPTY(&e, rcq);

	CHECK_EQ(pmr_destroy_qp(a), 0);
	CHECK_EQ(pmr_destroy_qp(b), 0);
	CHECK_EQ(pmr_destroy_cq(scq), 0);
	CHECK_EQ(pmr_destroy_cq(rcq), 0);
	CHECK_EQ(pmr_destroy_cq(pcq), 0);
	tbuf_free(&buf);
	env_close(&e);
}

/* One CQ for both queues: each queue's flushes stay in posting order. */
static void test_flush_shared_cq(void)
{
	struct env e;
	struct pmr_cq *cq, *pcq;
	struct pmr_qp *a, *b;
	struct tbuf buf;
	struct pmr_wc wc[128];
	uint64_t next_s = 1000, next_r = 2000;
	int ns = 0, nr = 0;

	env_open(&e, PMR_PROGRESS_MANUAL);
	tbuf_make(&e, &buf, 4096);
	cq = t_cq(&e, 128);
	pcq = t_cq(&e, 16);
	a = t_qp(&e, cq, cq, NULL, 64, 64, 0);
	b = t_qp(&e, pcq, pcq, NULL, 16, 16, 1);
	t_connect(&e, a, b);
	for (int i = 0; i < 40; i++) {
		CHECK_EQ(t_send(a, 1000 + i, (i % 3 == 0) ? PMR_SEND_SIGNALED : 0,
				&buf, 0, 8), 0);
		CHECK_EQ(t_recv(a, 2000 + i, &buf, 0, 8), 0);
	}
	t_qp_modify_state(a, PMR_QPS_ERR);
	t_poll_n(&e, cq, 80, wc);
	for (int i = 0; i < 80; i++) {
		CHECK_EQ(wc[i].status, PMR_WC_WR_FLUSH_ERR);
		CHECK_EQ(wc[i].qp_num, a->qp_num);
		if (wc[i].wr_id >= 2000) {
			CHECK((wc[i].opcode & PMR_WC_RECV) != 0);
			CHECK_EQ(wc[i].wr_id, next_r);
			next_r++;
			nr++;
		} else {
			CHECK((wc[i].opcode & PMR_WC_RECV) == 0);
			CHECK_EQ(wc[i].wr_id, next_s);
			next_s++;
			ns++;
		}
	}
	CHECK_EQ(ns, 40);
	CHECK_EQ(nr, 40);
	CHECK_EQ(pmr_destroy_qp(a), 0);
	CHECK_EQ(pmr_destroy_qp(b), 0);
	CHECK_EQ(pmr_destroy_cq(cq), 0);
	CHECK_EQ(pmr_destroy_cq(pcq), 0);
	tbuf_free(&buf);
	env_close(&e);
}

/*
 * RC: a WRITE with a bad rkey completes with REM_ACCESS_ERR; the WRs
 * behind it (signaled or not) and the receives are flushed, in order.
 */
static void test_flush_after_error(void)
{
	struct env e;
	struct pmr_cq *scq, *rcq, *pcq;
	struct pmr_qp *a, *b;
	struct tbuf buf, rbuf;
	struct pmr_wc wc[32];
	struct pmr_async_event ev;

	env_open(&e, PMR_PROGRESS_MANUAL);
	tbuf_make(&e, &buf, 4096);
	tbuf_make(&e, &rbuf, 4096);
	scq = t_cq(&e, 32);
	rcq = t_cq(&e, 32);
	pcq = t_cq(&e, 32);
	a = t_qp(&e, scq, rcq, NULL, 16, 16, 0);
	b = t_qp(&e, pcq, pcq, NULL, 16, 16, 0);
	t_connect(&e, a, b);
	for (int i = 0; i < 4; i++)
		CHECK_EQ(t_recv(b, 900 + i, &rbuf, 64 * i, 64), 0);
	CHECK_EQ(t_recv(a, 800, &buf, 2048, 64), 0);
	CHECK_EQ(t_recv(a, 801, &buf, 2048, 64), 0);

	/* 1: good unsignaled SEND, 2: good signaled SEND,
	 * 3: WRITE with a bad rkey (unsignaled), 4..7 behind it */
	CHECK_EQ(t_send(a, 1, 0, &buf, 0, 32), 0);
	CHECK_EQ(t_send(a, 2, PMR_SEND_SIGNALED, &buf, 0, 32), 0);
	CHECK_EQ(t_post_send(a, 3, PMR_WR_RDMA_WRITE, 0, &buf, 0, 32, 0,
			     (uintptr_t)rbuf.p, rbuf.mr->rkey ^ 0x5a), 0);
	CHECK_EQ(t_send(a, 4, PMR_SEND_SIGNALED, &buf, 0, 32), 0);
	CHECK_EQ(t_send(a, 5, 0, &buf, 0, 32), 0);
	CHECK_EQ(t_post_send(a, 6, PMR_WR_RDMA_WRITE, PMR_SEND_SIGNALED, &buf,
			     0, 32, 0, (uintptr_t)rbuf.p, rbuf.mr->rkey), 0);
	CHECK_EQ(t_send(a, 7, 0, &buf, 0, 32), 0);

	t_poll_n(&e, scq, 6, wc);
	CHECK_WC(&wc[0], 2, PMR_WC_SUCCESS);
	CHECK_EQ(wc[0].opcode, PMR_WC_SEND);
	CHECK_WC(&wc[1], 3, PMR_WC_REM_ACCESS_ERR);
	CHECK_EQ(wc[1].qp_num, a->qp_num);
	for (int i = 2; i < 6; i++) {
		CHECK_WC(&wc[i], 2 + i, PMR_WC_WR_FLUSH_ERR);
		CHECK_EQ(wc[i].qp_num, a->qp_num);
	}
	t_poll_n(&e, rcq, 2, wc);
	CHECK_WC(&wc[0], 800, PMR_WC_WR_FLUSH_ERR);
	CHECK_WC(&wc[1], 801, PMR_WC_WR_FLUSH_ERR);
	CHECK_EQ(t_qp_state(a), PMR_QPS_ERR);

	/* the responder got two SENDs, then detected the access error:
	 * it is in ERR (QP_ACCESS_ERR) and its remaining receives flushed */
	t_poll_n(&e, pcq, 4, wc);
	CHECK_WC(&wc[0], 900, PMR_WC_SUCCESS);
	CHECK_EQ(wc[0].byte_len, 32);
	CHECK_WC(&wc[1], 901, PMR_WC_SUCCESS);
	CHECK_WC(&wc[2], 902, PMR_WC_WR_FLUSH_ERR);
	CHECK_WC(&wc[3], 903, PMR_WC_WR_FLUSH_ERR);
	CHECK_EQ(t_qp_state(b), PMR_QPS_ERR);
	CHECK_EQ(t_async(&e, &ev), 0);
	CHECK_EQ(ev.event_type, PMR_EVENT_QP_ACCESS_ERR);
	CHECK(ev.element.qp == b);
	pmr_ack_async_event(&ev);
	CHECK_EQ(t_async(&e, &ev), -1);

	CHECK_EQ(pmr_destroy_qp(a), 0);
	CHECK_EQ(pmr_destroy_qp(b), 0);
	CHECK_EQ(pmr_destroy_cq(scq), 0);
	CHECK_EQ(pmr_destroy_cq(rcq), 0);
	CHECK_EQ(pmr_destroy_cq(pcq), 0);
	tbuf_free(&buf);
	tbuf_free(&rbuf);
	env_close(&e);
}

/* A local error on a later WR: the earlier ones completed, the rest flush. */
static void test_flush_after_local_error(void)
{
	struct env e;
	struct pmr_cq *scq, *pcq;
	struct pmr_qp *a, *b;
	struct tbuf buf, rbuf;
	struct pmr_wc wc[16];

	env_open(&e, PMR_PROGRESS_INLINE);
	tbuf_make(&e, &buf, 4096);
	tbuf_make(&e, &rbuf, 4096);
	scq = t_cq(&e, 16);
	pcq = t_cq(&e, 16);
	a = t_qp(&e, scq, scq, NULL, 16, 16, 1);
	b = t_qp(&e, pcq, pcq, NULL, 16, 16, 1);
	t_connect(&e, a, b);
	for (int i = 0; i < 4; i++)
		CHECK_EQ(t_recv(b, 50 + i, &rbuf, 64 * i, 64), 0);
	{
		/* a chain: ok, bad lkey, ok, ok */
		struct pmr_sge sg[4];
		struct pmr_send_wr wr[4], *bad = NULL;

		memset(wr, 0, sizeof(wr));
		for (int i = 0; i < 4; i++) {
			sg[i].addr = (uintptr_t)buf.p;
			sg[i].length = 8;
			sg[i].lkey = i == 1 ? buf.mr->lkey + 0x100000 : buf.mr->lkey;
			wr[i].wr_id = 10 + i;
			wr[i].sg_list = &sg[i];
			wr[i].num_sge = 1;
			wr[i].opcode = PMR_WR_SEND;
			wr[i].next = i < 3 ? &wr[i + 1] : NULL;
		}
		CHECK_EQ(pmr_post_send(a, wr, &bad), 0);
	}
	t_poll_n(&e, scq, 4, wc);
	CHECK_WC(&wc[0], 10, PMR_WC_SUCCESS);
	CHECK_WC(&wc[1], 11, PMR_WC_LOC_PROT_ERR);
	CHECK_WC(&wc[2], 12, PMR_WC_WR_FLUSH_ERR);
	CHECK_WC(&wc[3], 13, PMR_WC_WR_FLUSH_ERR);
	CHECK_EQ(t_qp_state(a), PMR_QPS_ERR);
	/* exactly one message reached the peer */
	t_poll_n(&e, pcq, 1, wc);
	CHECK_WC(&wc[0], 50, PMR_WC_SUCCESS);
	CHECK_EQ(t_qp_state(b), PMR_QPS_RTS);
	CHECK_EQ(t_async_drain(&e), 0);

	CHECK_EQ(pmr_destroy_qp(a), 0);
	CHECK_EQ(pmr_destroy_qp(b), 0);
	CHECK_EQ(pmr_destroy_cq(scq), 0);
	CHECK_EQ(pmr_destroy_cq(pcq), 0);
	tbuf_free(&buf);
	tbuf_free(&rbuf);
	env_close(&e);
}

/* Send one message a -> b and check both completions. */
static void exchange(struct env *e, struct pmr_qp *a, struct pmr_qp *b,
		     struct pmr_cq *acq, struct pmr_cq *bcq,
		     struct tbuf *buf, uint64_t id)
{
	struct pmr_wc wc[4];

	memset(buf->p + 3000, 0, 64);
	snprintf((char *)buf->p, 64, "message %" PRIu64, id);
	CHECK_EQ(t_recv(b, id + 1, buf, 3000, 64), 0);
	CHECK_EQ(t_send(a, id, PMR_SEND_SIGNALED, buf, 0, 32), 0);
	t_poll_n(e, acq, 1, wc);
	CHECK_WC(&wc[0], id, PMR_WC_SUCCESS);
	CHECK_EQ(wc[0].qp_num, a->qp_num);
	t_poll_n(e, bcq, 1, wc);
	CHECK_WC(&wc[0], id + 1, PMR_WC_SUCCESS);
	CHECK_EQ(wc[0].qp_num, b->qp_num);
	CHECK_EQ(wc[0].byte_len, 32);
	CHECK(memcmp(buf->p, buf->p + 3000, 32) == 0);
}

/*
 * RESET discards outstanding WRs without completions (from RTS and from
 * ERR); the QP is brought back to RTS and works; the discarded WRs never
 * run.
 */
static void test_reset_discards(void)
{
	struct env e;
	struct pmr_cq *acq, *bcq;
	struct pmr_qp *a, *b;
	struct tbuf buf;
	struct pmr_wc wc[16];

	env_open(&e, PMR_PROGRESS_MANUAL);
	tbuf_make(&e, &buf, 4096);
	acq = t_cq(&e, 32);
	bcq = t_cq(&e, 32);
	a = t_qp(&e, acq, acq, NULL, 16, 16, 1);
	b = t_qp(&e, bcq, bcq, NULL, 16, 16, 1);
	t_connect(&e, a, b);
	exchange(&e, a, b, acq, bcq, &buf, 10);

	/* RTS -> RESET with sends and receives outstanding */
	for (int i = 0; i < 3; i++) {
		CHECK_EQ(t_send(a, 500 + i, PMR_SEND_SIGNALED, &buf, 0, 8), 0);
		CHECK_EQ(t_recv(a, 600 + i, &buf, 0, 8), 0);
	}
	t_qp_modify_state(a, PMR_QPS_RESET);
	CHECK_CQ_EMPTY(&e, acq);
	CHECK_CQ_EMPTY(&e, bcq);
	t_qp_init(a);
	t_qp_rtr_rts(&e, a, b->qp_num);
	CHECK_CQ_EMPTY(&e, acq);
	CHECK_CQ_EMPTY(&e, bcq);
	exchange(&e, a, b, acq, bcq, &buf, 20);
	exchange(&e, b, a, bcq, acq, &buf, 30);

	/* RTS -> ERR (flush) -> RESET: no more completions; back to RTS */
	for (int i = 0; i < 3; i++) {
		CHECK_EQ(t_send(a, 700 + i, PMR_SEND_SIGNALED, &buf, 0, 8), 0);
		CHECK_EQ(t_recv(a, 710 + i, &buf, 0, 8), 0);
	}
	t_qp_modify_state(a, PMR_QPS_ERR);
	t_poll_n(&e, acq, 6, wc);
	for (int i = 0; i < 6; i++)
		CHECK_EQ(wc[i].status, PMR_WC_WR_FLUSH_ERR);
	t_qp_modify_state(a, PMR_QPS_RESET);
	CHECK_CQ_EMPTY(&e, acq);
	t_qp_init(a);
	/* receives posted in INIT are kept */
	CHECK_EQ(t_recv(a, 41, &buf, 3000, 64), 0);
	t_qp_rtr_rts(&e, a, b->qp_num);
	CHECK_CQ_EMPTY(&e, acq);
	exchange(&e, a, b, acq, bcq, &buf, 50);
	CHECK_EQ(t_send(b, 40, PMR_SEND_SIGNALED, &buf, 0, 32), 0);
	t_poll_n(&e, bcq, 1, wc);
	CHECK_WC(&wc[0], 40, PMR_WC_SUCCESS);
	t_poll_n(&e, acq, 1, wc);
	CHECK_WC(&wc[0], 41, PMR_WC_SUCCESS);
	CHECK_EQ(t_async_drain(&e), 0);

	CHECK_EQ(pmr_destroy_qp(a), 0);
	CHECK_EQ(pmr_destroy_qp(b), 0);
	CHECK_EQ(pmr_destroy_cq(acq), 0);
	CHECK_EQ(pmr_destroy_cq(bcq), 0);
	tbuf_free(&buf);
	env_close(&e);
}

/*
 * WRs queued in SQD (not executed) and a WR waiting in an RNR back-off are
 * outstanding too: ERR flushes them, in order.  SQD -> RTS resumes.
 */
static void test_flush_sqd_and_rnr_wait(void)
{
	struct env e;
	struct pmr_cq *scq, *pcq;
	struct pmr_qp *a, *b;
	struct tbuf buf;
	struct pmr_wc wc[8];
	struct pmr_qp_attr at;

	env_open(&e, PMR_PROGRESS_MANUAL);
	tbuf_make(&e, &buf, 4096);
	scq = t_cq(&e, 16);
	pcq = t_cq(&e, 16);
	a = t_qp(&e, scq, scq, NULL, 16, 16, 1);
	b = t_qp(&e, pcq, pcq, NULL, 16, 16, 1);
	t_connect(&e, a, b);

	/* SQD: posted WRs wait; SQD -> RTS runs them */
	memset(&at, 0, sizeof(at));
	at.qp_state = PMR_QPS_SQD;
	CHECK_EQ(pmr_modify_qp(a, &at, PMR_QP_STATE), 0);
	CHECK_EQ(t_recv(b, 60, &buf, 2048, 64), 0);
	CHECK_EQ(t_send(a, 1, 0, &buf, 0, 8), 0);
	CHECK_CQ_EMPTY(&e, scq);
	CHECK_CQ_EMPTY(&e, pcq);
	at.qp_state = PMR_QPS_RTS;
	CHECK_EQ(pmr_modify_qp(a, &at, PMR_QP_STATE), 0);
	t_poll_n(&e, scq, 1, wc);
	CHECK_WC(&wc[0], 1, PMR_WC_SUCCESS);
	t_poll_n(&e, pcq, 1, wc);
	CHECK_WC(&wc[0], 60, PMR_WC_SUCCESS);

	/* SQD then ERR: the queued WRs are flushed */
	at.qp_state = PMR_QPS_SQD;
	CHECK_EQ(pmr_modify_qp(a, &at, PMR_QP_STATE), 0);
	CHECK_EQ(t_send(a, 2, 0, &buf, 0, 8), 0);
	CHECK_EQ(t_send(a, 3, 0, &buf, 0, 8), 0);
	CHECK_CQ_EMPTY(&e, scq);
	t_qp_modify_state(a, PMR_QPS_ERR);
	t_poll_n(&e, scq, 2, wc);
	CHECK_WC(&wc[0], 2, PMR_WC_WR_FLUSH_ERR);
	CHECK_WC(&wc[1], 3, PMR_WC_WR_FLUSH_ERR);
	CHECK_CQ_EMPTY(&e, pcq);

	/* RNR back-off (b has no receive, rnr_retry 7): then ERR */
	t_qp_modify_state(a, PMR_QPS_RESET);
	t_qp_init(a);
	t_qp_rtr_rts(&e, a, b->qp_num);
	CHECK_EQ(t_send(a, 4, 0, &buf, 0, 8), 0);
	CHECK_EQ(t_send(a, 5, 0, &buf, 0, 8), 0);
	t_progress(&e);
	t_progress(&e);
	CHECK_CQ_EMPTY(&e, scq);    /* waiting, not failed */
	t_qp_modify_state(a, PMR_QPS_ERR);
	t_poll_n(&e, scq, 2, wc);
	CHECK_WC(&wc[0], 4, PMR_WC_WR_FLUSH_ERR);
	CHECK_WC(&wc[1], 5, PMR_WC_WR_FLUSH_ERR);
	/* b never saw them: a receive posted now stays unused */
	CHECK_EQ(t_recv(b, 61, &buf, 2048, 64), 0);
	CHECK_CQ_EMPTY(&e, pcq);
	CHECK_EQ(t_async_drain(&e), 0);

	CHECK_EQ(pmr_destroy_qp(a), 0);
	CHECK_EQ(pmr_destroy_qp(b), 0);
	CHECK_EQ(pmr_destroy_cq(scq), 0);
	CHECK_EQ(pmr_destroy_cq(pcq), 0);
	tbuf_free(&buf);
	env_close(&e);
}

/*
 * RNR_RETRY_EXC_ERR (peer has no receive, rnr_retry 0) and RETRY_EXC_ERR
 * (no peer answers, retry_cnt 0): the QP is in ERR, the WRs behind are
 * flushed in order, and posting again only produces WR_FLUSH_ERR.
 */
static void retry_exceeded(bool rnr)
{
	struct env e;
	struct pmr_cq *scq, *pcq;
	struct pmr_qp *a, *b;
	struct tbuf buf;
	struct pmr_wc wc[8];

	env_open(&e, PMR_PROGRESS_MANUAL);
	tbuf_make(&e, &buf, 4096);
	scq = t_cq(&e, 16);
	pcq = t_cq(&e, 16);
	a = t_qp(&e, scq, scq, NULL, 16, 16, 0);
	b = t_qp(&e, pcq, pcq, NULL, 16, 16, 1);
	t_qp_init(a);
	t_qp_init(b);
	/* rnr: b answers but has no receive; else b points elsewhere */
	t_qp_rtr_rts_ex(&e, a, b->qp_num, 1, 0, 0);
	t_qp_rtr_rts(&e, b, rnr ? a->qp_num : a->qp_num + 100);
	CHECK_EQ(t_send(a, 1, 0, &buf, 0, 8), 0);
	CHECK_EQ(t_send(a, 2, PMR_SEND_SIGNALED, &buf, 0, 8), 0);
	CHECK_EQ(t_send(a, 3, 0, &buf, 0, 8), 0);
	t_poll_n(&e, scq, 3, wc);
	CHECK_WC(&wc[0], 1, rnr ? PMR_WC_RNR_RETRY_EXC_ERR :
		 PMR_WC_RETRY_EXC_ERR);
	CHECK_EQ(wc[0].qp_num, a->qp_num);
	CHECK_WC(&wc[1], 2, PMR_WC_WR_FLUSH_ERR);
	CHECK_WC(&wc[2], 3, PMR_WC_WR_FLUSH_ERR);
	CHECK_EQ(t_qp_state(a), PMR_QPS_ERR);
	CHECK_EQ(t_recv(b, 9, &buf, 1024, 64), 0);
	CHECK_EQ(t_send(a, 4, PMR_SEND_SIGNALED, &buf, 0, 8), 0);
	t_poll_n(&e, scq, 1, wc);
	CHECK_WC(&wc[0], 4, PMR_WC_WR_FLUSH_ERR);
	CHECK_CQ_EMPTY(&e, pcq);   /* nothing reached b */
	CHECK_EQ(t_async_drain(&e), 0);
	CHECK_EQ(pmr_destroy_qp(a), 0);
	CHECK_EQ(pmr_destroy_qp(b), 0);
	CHECK_EQ(pmr_destroy_cq(scq), 0);
	CHECK_EQ(pmr_destroy_cq(pcq), 0);
	tbuf_free(&buf);
	env_close(&e);
}

static void test_rnr_retry_exceeded(void)
{
	retry_exceeded(true);
}

static void test_retry_exceeded(void)
{
	retry_exceeded(false);
}

/*
 * RC RDMA WRITE with immediate and a bad rkey: the responder consumed a
 * receive WR for it; that receive completes with LOC_ACCESS_ERR
 * (VERBS.md: "protection error on a local buffer during an incoming RDMA
 * WRITE with immediate"), the responder's other receives are flushed
 * behind it in order, and the requester gets REM_ACCESS_ERR.
 */
static void test_write_imm_bad_rkey(void)
{
	struct env e;
	struct pmr_cq *scq, *pcq;
	struct pmr_qp *a, *b;
	struct tbuf buf;
	struct pmr_wc wc[8];
	struct pmr_sge sge;
	struct pmr_send_wr wr, *bad = NULL;

	env_open(&e, PMR_PROGRESS_INLINE);
	tbuf_make(&e, &buf, 4096);
	scq = t_cq(&e, 16);
	pcq = t_cq(&e, 16);
	a = t_qp(&e, scq, scq, NULL, 16, 16, 1);
	b = t_qp(&e, pcq, pcq, NULL, 16, 16, 1);
	t_connect(&e, a, b);
	for (int i = 0; i < 3; i++)
		CHECK_EQ(t_recv(b, 30 + i, &buf, 2048 + 64 * i, 64), 0);
	memset(&wr, 0, sizeof(wr));
	sge.addr = (uintptr_t)buf.p;
	sge.length = 8;
	sge.lkey = buf.mr->lkey;
	wr.wr_id = 5;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = PMR_WR_RDMA_WRITE_WITH_IMM;
	wr.imm_data = 0x11223344;
	wr.wr.rdma.remote_addr = (uintptr_t)buf.p + 1024;
	wr.wr.rdma.rkey = buf.mr->rkey ^ 0x42;
	CHECK_EQ(pmr_post_send(a, &wr, &bad), 0);
	t_poll_n(&e, scq, 1, wc);
	CHECK_WC(&wc[0], 5, PMR_WC_REM_ACCESS_ERR);
	t_poll_n(&e, pcq, 3, wc);
	CHECK_WC(&wc[0], 30, PMR_WC_LOC_ACCESS_ERR);
	CHECK_EQ(wc[0].qp_num, b->qp_num);
	CHECK_WC(&wc[1], 31, PMR_WC_WR_FLUSH_ERR);
	CHECK_WC(&wc[2], 32, PMR_WC_WR_FLUSH_ERR);
	CHECK_EQ(t_qp_state(b), PMR_QPS_ERR);
	CHECK_EQ(t_qp_state(a), PMR_QPS_ERR);
	CHECK_EQ(t_async_drain(&e), 1);   /* b: QP_ACCESS_ERR */
	CHECK_EQ(pmr_destroy_qp(a), 0);
	CHECK_EQ(pmr_destroy_qp(b), 0);
	CHECK_EQ(pmr_destroy_cq(scq), 0);
	CHECK_EQ(pmr_destroy_cq(pcq), 0);
	tbuf_free(&buf);
	env_close(&e);
}

int main(void)
{
	TEST_RUN(test_flush_outstanding);
	TEST_RUN(test_flush_shared_cq);
	TEST_RUN(test_flush_after_error);
	TEST_RUN(test_flush_after_local_error);
	TEST_RUN(test_reset_discards);
	TEST_RUN(test_flush_sqd_and_rnr_wait);
	TEST_RUN(test_rnr_retry_exceeded);
	TEST_RUN(test_retry_exceeded);
	TEST_RUN(test_write_imm_bad_rkey);
	fprintf(stderr, "test_cq_flush: OK\n");
	return 0;
}
