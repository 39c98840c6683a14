/* SPDX-License-Identifier: BSD-3-Clause */
#include "vt.h"

#include <fcntl.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>

int vt_failures;

int vt_exit(void)
{
	if (vt_failures != 0) {
		fprintf(stderr, "%d expectation(s) failed\n", vt_failures);
		return 1;
	}
	return 0;
}

uint64_t vt_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

void vt_open(struct vt *v)
{
	struct pmr_device **list, *dev;
	int n = -1;

	list = pmr_get_device_list(&n);
	CHECK(list != NULL);
	CHECK(n >= 1);
	dev = list[0];
	pmr_free_device_list(list);
	vt_open_dev(v, dev);
}

int vt_ndevices(void)
{
	int n = -1;
	struct pmr_device **l = pmr_get_device_list(&n);

	CHECK(l != NULL);
	pmr_free_device_list(l);
	return n;
}

void vt_open_dev(struct vt *v, struct pmr_device *dev)
{
	int fl;

	memset(v, 0, sizeof(*v));
	v->dev = dev;
	v->ctx = pmr_open_device(v->dev);
	CHECK(v->ctx != NULL);
	fl = fcntl(v->ctx->async_fd, F_GETFL);
	CHECK(fl >= 0);
	CHECK(fcntl(v->ctx->async_fd, F_SETFL, fl | O_NONBLOCK) == 0);
	v->pd = pmr_alloc_pd(v->ctx);
	CHECK(v->pd != NULL);
	CHECK_EQ(pmr_query_device(v->ctx, &v->dattr), 0);
	CHECK_EQ(pmr_query_port(v->ctx, 1, &v->pattr), 0);
	CHECK_EQ(pmr_query_gid(v->ctx, 1, 0, &v->gid0), 0);
}

void vt_close(struct vt *v)
{
	vt_async_drain(v);
	CHECK_EQ(pmr_dealloc_pd(v->pd), 0);
	CHECK_EQ(pmr_close_device(v->ctx), 0);
}

struct pmr_cq *vt_cq(struct vt *v, int cqe)
{
	struct pmr_cq *cq = pmr_create_cq(v->ctx, cqe, NULL, NULL, 0);

	CHECK(cq != NULL);
	return cq;
}

struct pmr_mr *vt_mr(struct pmr_pd *pd, void *buf, size_t len, int access)
{
	struct pmr_mr *mr = pmr_reg_mr(pd, buf, len, access);

	if (mr == NULL)
		fprintf(stderr, "reg_mr: %s\n", strerror(errno));
	CHECK(mr != NULL);
	return mr;
}

struct pmr_qp_init_attr vt_qp_attr(enum pmr_qp_type type,
				   struct pmr_cq *scq, struct pmr_cq *rcq,
				   uint32_t wr, int sq_sig_all)
{
	struct pmr_qp_init_attr ia;

	memset(&ia, 0, sizeof(ia));
	ia.send_cq = scq;
	ia.recv_cq = rcq;
	ia.qp_type = type;
	ia.sq_sig_all = sq_sig_all;
	ia.cap.max_send_wr = wr;
	ia.cap.max_recv_wr = wr;
	ia.cap.max_send_sge = 4;
	ia.cap.max_recv_sge = 4;
	ia.cap.max_inline_data = 64;
	return ia;
}

struct pmr_qp *vt_qp(struct pmr_pd *pd, enum pmr_qp_type type,
		     struct pmr_cq *scq, struct pmr_cq *rcq, uint32_t wr,
		     int sq_sig_all)
{
	struct pmr_qp_init_attr ia = vt_qp_attr(type, scq, rcq, wr,
						sq_sig_all);
	struct pmr_qp *qp;

	qp = pmr_create_qp(pd, &ia);
	if (qp == NULL)
		fprintf(stderr, "create_qp: %s\n", strerror(errno));
	CHECK(qp != NULL);
	CHECK_EQ(vt_state(qp), PMR_QPS_RESET);
	return qp;
}

struct vt_opts vt_opts_default(void)
{
	struct vt_opts o;

	memset(&o, 0, sizeof(o));
	o.access = PMR_ACCESS_LOCAL_WRITE | PMR_ACCESS_REMOTE_WRITE |
		   PMR_ACCESS_REMOTE_READ | PMR_ACCESS_REMOTE_ATOMIC;
	o.qkey = 0x11111111;
	o.timeout = 14;
	o.retry_cnt = 7;
	o.rnr_retry = 7;
	o.min_rnr_timer = 1;
	o.max_rd_atomic = 4;
	o.max_dest_rd_atomic = 4;
	o.path_mtu = PMR_MTU_1024;
	return o;
}

void vt_ah_attr(struct vt *v, struct pmr_ah_attr *ah)
{
	memset(ah, 0, sizeof(*ah));
	ah->is_global = 1;
	ah->port_num = 1;
	ah->grh.dgid = v->gid0;
	ah->grh.sgid_index = 0;
	ah->grh.hop_limit = 64;
}

int vt_to_init(struct pmr_qp *qp, const struct vt_opts *o)
{
	struct pmr_qp_attr a;
	int mask = PMR_QP_STATE | PMR_QP_PKEY_INDEX | PMR_QP_PORT;

	memset(&a, 0, sizeof(a));
	a.qp_state = PMR_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = 1;
	if (qp->qp_type == PMR_QPT_UD) {
		a.qkey = o->qkey;
		mask |= PMR_QP_QKEY;
	} else {
		a.qp_access_flags = (unsigned int)o->access;
		mask |= PMR_QP_ACCESS_FLAGS;
	}
	return pmr_modify_qp(qp, &a, mask);
}

int vt_to_rtr(struct vt *v, struct pmr_qp *qp, uint32_t dest_qpn,
	      const struct vt_opts *o)
{
	struct pmr_qp_attr a;
	int mask = PMR_QP_STATE;

	memset(&a, 0, sizeof(a));
	a.qp_state = PMR_QPS_RTR;
	if (qp->qp_type != PMR_QPT_UD) {
		vt_ah_attr(v, &a.ah_attr);
		a.path_mtu = o->path_mtu;
		a.dest_qp_num = dest_qpn;
		a.rq_psn = o->rq_psn;
		mask |= PMR_QP_AV | PMR_QP_PATH_MTU | PMR_QP_DEST_QPN |
			PMR_QP_RQ_PSN;
	}
	if (qp->qp_type == PMR_QPT_RC) {
		a.max_dest_rd_atomic = o->max_dest_rd_atomic;
		a.min_rnr_timer = o->min_rnr_timer;
		mask |= PMR_QP_MAX_DEST_RD_ATOMIC | PMR_QP_MIN_RNR_TIMER;
	}
	return pmr_modify_qp(qp, &a, mask);
}

int vt_to_rts(struct pmr_qp *qp, const struct vt_opts *o)
{
	struct pmr_qp_attr a;
	int mask = PMR_QP_STATE | PMR_QP_SQ_PSN;

	memset(&a, 0, sizeof(a));
	a.qp_state = PMR_QPS_RTS;
	a.sq_psn = o->sq_psn;
	if (qp->qp_type == PMR_QPT_RC) {
		a.timeout = o->timeout;
		a.retry_cnt = o->retry_cnt;
		a.rnr_retry = o->rnr_retry;
		a.max_rd_atomic = o->max_rd_atomic;
		mask |= PMR_QP_TIMEOUT | PMR_QP_RETRY_CNT | PMR_QP_RNR_RETRY |
			PMR_QP_MAX_QP_RD_ATOMIC;
	}
	return pmr_modify_qp(qp, &a, mask);
}

void vt_connect(struct vt *v, struct pmr_qp *qp, uint32_t dest_qpn,
		const struct vt_opts *o)
{
	CHECK_EQ(vt_to_init(qp, o), 0);
	CHECK_EQ(vt_state(qp), PMR_QPS_INIT);
	CHECK_EQ(vt_to_rtr(v, qp, dest_qpn, o), 0);
	CHECK_EQ(vt_state(qp), PMR_QPS_RTR);
	CHECK_EQ(vt_to_rts(qp, o), 0);
	CHECK_EQ(vt_state(qp), PMR_QPS_RTS);
}

enum pmr_qp_state vt_state(struct pmr_qp *qp)
{
	struct pmr_qp_attr a;
	struct pmr_qp_init_attr ia;

	CHECK_EQ(pmr_query_qp(qp, &a, PMR_QP_STATE, &ia), 0);
	return a.qp_state;
}

void vt_pair(struct vt *v, enum pmr_qp_type type, const struct vt_opts *o,
	     int sq_sig_all, struct vt_pair *p)
{
	memset(p, 0, sizeof(*p));
	for (int i = 0; i < 2; i++) {
		p->scq[i] = vt_cq(v, 256);
		p->rcq[i] = vt_cq(v, 256);
		p->qp[i] = vt_qp(v->pd, type, p->scq[i], p->rcq[i], 64,
				 sq_sig_all);
	}
	for (int i = 0; i < 2; i++)
		vt_connect(v, p->qp[i], p->qp[1 - i]->qp_num, o);
	if (type == PMR_QPT_UD) {
		struct pmr_ah_attr ah;

		vt_ah_attr(v, &ah);
		p->ah = pmr_create_ah(v->pd, &ah);
		CHECK(p->ah != NULL);
	}
}

void vt_pair_destroy(struct vt_pair *p)
{
	if (p->ah)
		CHECK_EQ(pmr_destroy_ah(p->ah), 0);
	for (int i = 0; i < 2; i++) {
		int r = pmr_destroy_qp(p->qp[i]);

		if (r != 0)
			fprintf(stderr, "destroy_qp: %s\n", strerror(r));
		CHECK_EQ(r, 0);
	}
	for (int i = 0; i < 2; i++) {
		CHECK_EQ(pmr_destroy_cq(p->scq[i]), 0);
		CHECK_EQ(pmr_destroy_cq(p->rcq[i]), 0);
	}
}

int vt_poll(struct pmr_cq *cq, int n, struct pmr_wc *wc, int ms)
{
	uint64_t end = vt_now_ms() + (uint64_t)ms;
	int got = 0;

	for (;;) {
		int r = pmr_poll_cq(cq, n - got, wc + got);

		CHECK(r >= 0);
		got += r;
		if (got == n || vt_now_ms() > end)
			return got;
		if (r == 0)
			sched_yield();
	}
}

void vt_poll1(struct pmr_cq *cq, struct pmr_wc *wc)
{
	int n = vt_poll(cq, 1, wc, 2000);

	if (n != 1)
		fprintf(stderr, "vt_poll1: no completion within 2 s\n");
	CHECK_EQ(n, 1);
}

int vt_count(struct pmr_cq *cq, int ms)
{
	struct pmr_wc wc[16];
	uint64_t end = vt_now_ms() + (uint64_t)ms;
	int total = 0;

	do {
		int r = pmr_poll_cq(cq, 16, wc);

		CHECK(r >= 0);
		total += r;
	} while (vt_now_ms() <= end);
	return total;
}

int vt_async(struct vt *v, struct pmr_async_event *ev)
{
	if (pmr_get_async_event(v->ctx, ev) != 0)
		return -1;
	pmr_ack_async_event(ev);
	return 0;
}

int vt_async_drain(struct vt *v)
{
	struct pmr_async_event ev;
	int n = 0;

	while (vt_async(v, &ev) == 0)
		n++;
	return n;
}

struct pmr_send_wr vt_swr(uint64_t wr_id, enum pmr_wr_opcode op,
			  struct pmr_sge *sge, int nsge, unsigned int flags)
{
	struct pmr_send_wr wr;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	wr.opcode = op;
	wr.sg_list = sge;
	wr.num_sge = nsge;
	wr.send_flags = flags;
	return wr;
}

struct pmr_recv_wr vt_rwr(uint64_t wr_id, struct pmr_sge *sge, int nsge)
{
	struct pmr_recv_wr wr;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	wr.sg_list = sge;
	wr.num_sge = nsge;
	return wr;
}

int vt_post_send1(struct pmr_qp *qp, struct pmr_send_wr *wr)
{
	struct pmr_send_wr *bad = NULL;
	int r = pmr_post_send(qp, wr, &bad);

	if (r != 0)
		CHECK(bad == wr);
	return r;
}

int vt_post_recv1(struct pmr_qp *qp, struct pmr_recv_wr *wr)
{
	struct pmr_recv_wr *bad = NULL;
	int r = pmr_post_recv(qp, wr, &bad);

	if (r != 0)
		CHECK(bad == wr);
	return r;
}

void vt_send_passes(struct vt *v)
{
	static uint8_t buf[2][64];
	struct vt_opts o = vt_opts_default();
	struct vt_pair p;
	struct pmr_mr *mr[2];
	struct pmr_sge s, r;
	struct pmr_send_wr sw;
	struct pmr_recv_wr rw;
	struct pmr_wc wc;

	vt_pair(v, PMR_QPT_RC, &o, 1, &p);
	for (int i = 0; i < 2; i++)
		mr[i] = vt_mr(v->pd, buf[i], sizeof(buf[i]),
			      PMR_ACCESS_LOCAL_WRITE);
	memset(buf[0], 0x5a, sizeof(buf[0]));
	memset(buf[1], 0, sizeof(buf[1]));
	r = (struct pmr_sge){ (uintptr_t)buf[1], sizeof(buf[1]), mr[1]->lkey };
	rw = vt_rwr(2, &r, 1);
	CHECK_EQ(vt_post_recv1(p.qp[1], &rw), 0);
	s = (struct pmr_sge){ (uintptr_t)buf[0], sizeof(buf[0]), mr[0]->lkey };
	sw = vt_swr(1, PMR_WR_SEND, &s, 1, PMR_SEND_SIGNALED);
	CHECK_EQ(vt_post_send1(p.qp[0], &sw), 0);
	vt_poll1(p.scq[0], &wc);
	CHECK_WC(wc, PMR_WC_SUCCESS);
	vt_poll1(p.rcq[1], &wc);
	CHECK_WC(wc, PMR_WC_SUCCESS);
	EXPECT_EQ(wc.byte_len, sizeof(buf[1]));
	EXPECT(memcmp(buf[0], buf[1], sizeof(buf[0])) == 0);
	for (int i = 0; i < 2; i++)
		CHECK_EQ(pmr_dereg_mr(mr[i]), 0);
	vt_pair_destroy(&p);
}

int vt_events_after(struct vt *v, int ms, struct pmr_async_event *last)
{
	uint64_t t0 = vt_now_ms();
	struct pmr_async_event ev;
	int n = 0;

	while (vt_now_ms() - t0 < (uint64_t)ms)
		CHECK(pmr_progress(v->ctx, 32) >= 0);
	while (vt_async(v, &ev) == 0) {
		*last = ev;
		n++;
	}
	return n;
}

void vt_port_event(struct vt *v, enum pmr_event_type t, int ms,
		   const char *when)
{
	struct pmr_async_event ev;
	uint64_t t0 = vt_now_ms();
	int n = 0;

	memset(&ev, 0, sizeof(ev));
	while (n == 0 && vt_now_ms() - t0 < (uint64_t)ms)
		n = vt_events_after(v, 10, &ev);
	EXPECT_EQ_MSG(n, 1, "events %s", when);
	if (n > 0) {
		EXPECT_EQ_MSG(ev.event_type, t, "the event %s (%s)", when,
			      pmr_event_type_str(ev.event_type));
		EXPECT_EQ_MSG(ev.element.port_num, 1, "its port %s", when);
	}
	EXPECT_EQ_MSG(vt_events_after(v, 100, &ev), 0, "events later %s",
		      when);
}
