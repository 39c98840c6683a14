/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Helpers of the CQ / completion / event tests (test/verbs/cq): CHECK
 * macros that stop the program at the first failure (file:line and the
 * expression), and small builders over the public API only: open the
 * loopback device, create CQs and RC QPs, connect two RC QPs to each other
 * (RESET -> INIT -> RTR -> RTS), post simple WRs, poll with a deadline.
 * Header-only; each test is one .c file.
 */
#ifndef CQ_TEST_H
#define CQ_TEST_H

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pmr_verbs.h"

#define CHECK(cond)							\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "%s:%d: CHECK failed: %s\n",	\
				__FILE__, __LINE__, #cond);		\
			exit(1);					\
		}							\
	} while (0)

#define CHECK_EQ(a, b)							\
	do {								\
		long long a_ = (long long)(a), b_ = (long long)(b);	\
		if (a_ != b_) {						\
			fprintf(stderr, "%s:%d: CHECK failed: %s == %s "	\
				"(%lld != %lld)\n", __FILE__, __LINE__,	\
				#a, #b, a_, b_);			\
			exit(1);					\
		}							\
	} while (0)

/* A pointer (or NULL) check that prints errno on failure. */
#define CHECK_PTR(p)							\
	do {								\
		if ((p) == NULL) {					\
			fprintf(stderr, "%s:%d: CHECK failed: %s != NULL "	\
				"(errno %d: %s)\n", __FILE__, __LINE__, #p,	\
				errno, strerror(errno));		\
			exit(1);					\
		}							\
	} while (0)

/* A WC check that names what was found. */
#define CHECK_WC(wc, id, st)						\
	do {								\
		const struct pmr_wc *w_ = (wc);				\
		if (w_->wr_id != (uint64_t)(id) ||			\
		    w_->status != (enum pmr_wc_status)(st)) {		\
			fprintf(stderr, "%s:%d: CHECK failed: WC "	\
				"{wr_id %" PRIu64 ", status %d (%s)}, "	\
				"expected {wr_id %" PRIu64 ", status %d}\n",\
				__FILE__, __LINE__, w_->wr_id, w_->status, \
				pmr_wc_status_str(w_->status),		\
				(uint64_t)(id), (int)(st));		\
			exit(1);					\
		}							\
	} while (0)

#define TEST_RUN(fn)							\
	do {								\
		fprintf(stderr, "== %s\n", #fn);			\
		fn();							\
	} while (0)

struct env {
	struct pmr_context *ctx;
	struct pmr_pd *pd;
	struct pmr_device_attr dattr;
	union pmr_gid gid;
	enum pmr_progress_mode mode;
};

static inline uint64_t t_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static inline struct pmr_device *t_loop_device(void)
{
	static struct pmr_device *dev;
	struct pmr_device **list;
	int n = -1;

	if (dev != NULL)
		return dev;
	list = pmr_get_device_list(&n);
	CHECK_PTR(list);
	CHECK(n >= 1);
	for (int i = 0; i < n; i++)
		if (strcmp(pmr_get_device_name(list[i]), "pmr_loop0") == 0)
			dev = list[i];
	pmr_free_device_list(list);
	CHECK_PTR(dev);
	return dev;
}

static inline void t_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	CHECK(fl >= 0);
	CHECK_EQ(fcntl(fd, F_SETFL, fl | O_NONBLOCK), 0);
}

static inline void env_open(struct env *e, enum pmr_progress_mode mode)
{
	memset(e, 0, sizeof(*e));
	e->ctx = pmr_open_device(t_loop_device());
	CHECK_PTR(e->ctx);
	e->mode = mode;
	CHECK_EQ(pmr_set_progress_mode(e->ctx, mode), 0);
	CHECK_EQ(pmr_query_device(e->ctx, &e->dattr), 0);
	CHECK_EQ(pmr_query_gid(e->ctx, 1, 0, &e->gid), 0);
	e->pd = pmr_alloc_pd(e->ctx);
	CHECK_PTR(e->pd);
	/* never block the test on an event that does not come */
	t_nonblock(e->ctx->async_fd);
}

static inline void env_close(struct env *e)
{
	CHECK_EQ(pmr_dealloc_pd(e->pd), 0);
	CHECK_EQ(pmr_close_device(e->ctx), 0);
	memset(e, 0, sizeof(*e));
}

static inline struct pmr_cq *t_cq(struct env *e, int cqe)
{
	struct pmr_cq *cq = pmr_create_cq(e->ctx, cqe, NULL, NULL, 0);

	CHECK_PTR(cq);
	CHECK(cq->cqe >= cqe);
	return cq;
}

/* A registered buffer with every access right. */
struct tbuf {
	uint8_t *p;
	size_t len;
	struct pmr_mr *mr;
};

static inline void tbuf_make(struct env *e, struct tbuf *b, size_t len)
{
	b->p = calloc(1, len);
	CHECK_PTR(b->p);
	b->len = len;
	b->mr = pmr_reg_mr(e->pd, b->p, len, PMR_ACCESS_LOCAL_WRITE |
			   PMR_ACCESS_REMOTE_WRITE | PMR_ACCESS_REMOTE_READ |
			   PMR_ACCESS_REMOTE_ATOMIC);
	CHECK_PTR(b->mr);
}

static inline void tbuf_free(struct tbuf *b)
{
	CHECK_EQ(pmr_dereg_mr(b->mr), 0);
	free(b->p);
	memset(b, 0, sizeof(*b));
}

#define QP_ACCESS_ALL (PMR_ACCESS_LOCAL_WRITE | PMR_ACCESS_REMOTE_WRITE | \
		       PMR_ACCESS_REMOTE_READ | PMR_ACCESS_REMOTE_ATOMIC)

static inline struct pmr_qp *t_qp(struct env *e, struct pmr_cq *scq,
				  struct pmr_cq *rcq, struct pmr_srq *srq,
				  uint32_t max_send, uint32_t max_recv,
				  int sig_all)
{
	struct pmr_qp_init_attr ia;
	struct pmr_qp *qp;

	memset(&ia, 0, sizeof(ia));
	ia.send_cq = scq;
	ia.recv_cq = rcq;
	ia.srq = srq;
	ia.qp_type = PMR_QPT_RC;
	ia.sq_sig_all = sig_all;
	ia.cap.max_send_wr = max_send;
	ia.cap.max_recv_wr = srq ? 0 : max_recv;
	ia.cap.max_send_sge = 2;
	ia.cap.max_recv_sge = srq ? 0 : 2;
	qp = pmr_create_qp(e->pd, &ia);
	CHECK_PTR(qp);
	CHECK(ia.cap.max_send_wr >= max_send);
	CHECK_EQ(qp->state, PMR_QPS_RESET);
	return qp;
}

/* Granted send queue depth. */
static inline uint32_t t_qp_max_send(struct pmr_qp *qp)
{
	struct pmr_qp_attr a;
	struct pmr_qp_init_attr ia;

	CHECK_EQ(pmr_query_qp(qp, &a, PMR_QP_CAP, &ia), 0);
	return a.cap.max_send_wr;
}

static inline enum pmr_qp_state t_qp_state(struct pmr_qp *qp)
{
	struct pmr_qp_attr a;
	struct pmr_qp_init_attr ia;

	memset(&a, 0xff, sizeof(a));
	CHECK_EQ(pmr_query_qp(qp, &a, PMR_QP_STATE, &ia), 0);
	return a.qp_state;
}

static inline void t_qp_init(struct pmr_qp *qp)
{
	struct pmr_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = PMR_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = 1;
	a.qp_access_flags = QP_ACCESS_ALL;
	CHECK_EQ(pmr_modify_qp(qp, &a, PMR_QP_STATE | PMR_QP_PKEY_INDEX |
			       PMR_QP_PORT | PMR_QP_ACCESS_FLAGS), 0);
}

static inline void t_qp_rtr_rts_ex(struct env *e, struct pmr_qp *qp,
				   uint32_t dest_qpn, uint8_t timeout,
				   uint8_t retry_cnt, uint8_t rnr_retry)
{
	struct pmr_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = PMR_QPS_RTR;
	a.path_mtu = PMR_MTU_1024;
	a.dest_qp_num = dest_qpn;
	a.rq_psn = 0;
	a.max_dest_rd_atomic = 4;
	a.min_rnr_timer = 1;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = 1;
	a.ah_attr.grh.sgid_index = 0;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.grh.dgid = e->gid;
	CHECK_EQ(pmr_modify_qp(qp, &a, PMR_QP_STATE | PMR_QP_AV |
			       PMR_QP_PATH_MTU | PMR_QP_DEST_QPN |
			       PMR_QP_RQ_PSN | PMR_QP_MAX_DEST_RD_ATOMIC |
			       PMR_QP_MIN_RNR_TIMER), 0);
	memset(&a, 0, sizeof(a));
	a.qp_state = PMR_QPS_RTS;
	a.timeout = timeout;
	a.retry_cnt = retry_cnt;
	a.rnr_retry = rnr_retry;
	a.sq_psn = 0;
	a.max_rd_atomic = 4;
	CHECK_EQ(pmr_modify_qp(qp, &a, PMR_QP_STATE | PMR_QP_TIMEOUT |
			       PMR_QP_RETRY_CNT | PMR_QP_RNR_RETRY |
			       PMR_QP_SQ_PSN | PMR_QP_MAX_QP_RD_ATOMIC), 0);
	CHECK_EQ(t_qp_state(qp), PMR_QPS_RTS);
}

static inline void t_qp_rtr_rts(struct env *e, struct pmr_qp *qp,
				uint32_t dest_qpn)
{
	t_qp_rtr_rts_ex(e, qp, dest_qpn, 14, 7, 7);
}

/* Connect two RC QPs to each other: both end in RTS. */
static inline void t_connect(struct env *e, struct pmr_qp *a,
			     struct pmr_qp *b)
{
	t_qp_init(a);
	t_qp_init(b);
	t_qp_rtr_rts(e, a, b->qp_num);
	t_qp_rtr_rts(e, b, a->qp_num);
}

static inline void t_qp_modify_state(struct pmr_qp *qp, enum pmr_qp_state s)
{
	struct pmr_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = s;
	CHECK_EQ(pmr_modify_qp(qp, &a, PMR_QP_STATE), 0);
	CHECK_EQ(t_qp_state(qp), s);
}

/* Post one send WR (one SGE of buf, or none when len is 0). */
static inline int t_post_send(struct pmr_qp *qp, uint64_t wr_id,
			      enum pmr_wr_opcode op, unsigned int flags,
			      struct tbuf *b, size_t off, uint32_t len,
			      uint32_t lkey_override,
			      uint64_t raddr, uint32_t rkey)
{
	struct pmr_sge sge;
	struct pmr_send_wr wr, *bad = NULL;
	int ret;

	memset(&wr, 0, sizeof(wr));
	sge.addr = (uintptr_t)(b->p + off);
	sge.length = len;
	sge.lkey = lkey_override ? lkey_override : b->mr->lkey;
	wr.wr_id = wr_id;
	wr.sg_list = &sge;
	wr.num_sge = len ? 1 : 0;
	wr.opcode = op;
	wr.send_flags = flags;
	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	ret = pmr_post_send(qp, &wr, &bad);
	if (ret == 0)
		CHECK(bad == NULL);
	else
		CHECK(bad == &wr);
	return ret;
}

static inline int t_send(struct pmr_qp *qp, uint64_t wr_id, unsigned flags,
			 struct tbuf *b, size_t off, uint32_t len)
{
	return t_post_send(qp, wr_id, PMR_WR_SEND, flags, b, off, len, 0, 0, 0);
}

/* One receive WR into b at off: on qp's receive queue, or srq's. */
static inline int t_post_one_recv(struct pmr_qp *qp, struct pmr_srq *srq,
				  uint64_t wr_id, struct tbuf *b, size_t off,
				  uint32_t len)
{
	struct pmr_sge sge = {
		.addr = (uintptr_t)(b->p + off), .length = len,
		.lkey = b->mr->lkey,
	};
	struct pmr_recv_wr wr, *bad = NULL;
	int ret;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	ret = srq != NULL ? pmr_post_srq_recv(srq, &wr, &bad) :
			    pmr_post_recv(qp, &wr, &bad);
	if (ret == 0)
		CHECK(bad == NULL);
	else
		CHECK(bad == &wr);
	return ret;
}

static inline int t_recv(struct pmr_qp *qp, uint64_t wr_id, struct tbuf *b,
			 size_t off, uint32_t len)
{
	return t_post_one_recv(qp, NULL, wr_id, b, off, len);
}

static inline int t_srq_recv(struct pmr_srq *srq, uint64_t wr_id,
			     struct tbuf *b, size_t off, uint32_t len)
{
	return t_post_one_recv(NULL, srq, wr_id, b, off, len);
}

/* Drive the engine when the context is in manual mode. */
static inline void t_progress(struct env *e)
{
	if (e->mode == PMR_PROGRESS_MANUAL)
		for (int i = 0; i < 64; i++)
			if (pmr_progress(e->ctx, 256) <= 0)
				break;
}

/*
 * Poll until exactly @p n WCs were collected (at most 2 s), polling at
 * most n - got at a time; then check the CQ is empty.
 */
static inline void t_poll_n_(const char *file, int line, struct env *e,
			     struct pmr_cq *cq, int n, struct pmr_wc *wc)
{
	uint64_t end = t_now_ms() + 2000;
	int got = 0;

	while (got < n) {
		int r;

		t_progress(e);
		r = pmr_poll_cq(cq, n - got, wc + got);
		if (r < 0 || r > n - got) {
			fprintf(stderr, "%s:%d: poll_cq returned %d (want <= %d)\n",
				file, line, r, n - got);
			exit(1);
		}
		got += r;
		if (got < n && t_now_ms() > end) {
			fprintf(stderr, "%s:%d: only %d of %d completions\n",
				file, line, got, n);
			for (int i = 0; i < got; i++)
				fprintf(stderr, "  wc[%d] wr_id %" PRIu64
					" status %s\n", i, wc[i].wr_id,
					pmr_wc_status_str(wc[i].status));
			exit(1);
		}
	}
	{
		struct pmr_wc extra;
		int r;

		t_progress(e);
		r = pmr_poll_cq(cq, 1, &extra);
		if (r != 0) {
			fprintf(stderr, "%s:%d: CQ not empty after %d WCs: "
				"poll_cq = %d", file, line, n, r);
			if (r > 0)
				fprintf(stderr, " (wr_id %" PRIu64 " status %s)",
					extra.wr_id,
					pmr_wc_status_str(extra.status));
			fprintf(stderr, "\n");
			exit(1);
		}
	}
}
#define t_poll_n(e, cq, n, wc) t_poll_n_(__FILE__, __LINE__, e, cq, n, wc)

/* The CQ is empty (after running the engine). */
#define CHECK_CQ_EMPTY(e, cq)						\
	do {								\
		struct pmr_wc wc_;					\
		t_progress(e);						\
		CHECK_EQ(pmr_poll_cq((cq), 1, &wc_), 0);		\
	} while (0)

/* poll(2) readiness of an fd within timeout_ms: 1 readable, 0 not. */
static inline int t_readable(int fd, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int r = poll(&p, 1, timeout_ms);

	CHECK(r >= 0);
	return r > 0 && (p.revents & POLLIN);
}

/* Take one async event (the fd must be non-blocking): 0 or -1/EAGAIN. */
static inline int t_async(struct env *e, struct pmr_async_event *ev)
{
	int r;

	memset(ev, 0, sizeof(*ev));
	errno = 0;
	r = pmr_get_async_event(e->ctx, ev);
	if (r != 0)
		CHECK_EQ(errno, EAGAIN);
	return r;
}

/* Take and ack every pending async event; return how many there were. */
static inline int t_async_drain(struct env *e)
{
	struct pmr_async_event ev;
	int n = 0;

	while (t_async(e, &ev) == 0) {
		pmr_ack_async_event(&ev);
		n++;
	}
	return n;
}

#endif /* CQ_TEST_H */
