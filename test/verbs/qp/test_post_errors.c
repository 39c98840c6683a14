/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Immediate errors of pmr_post_send / pmr_post_recv.  Each case posts a
 * 3-WR chain whose 2nd WR is bad: the call returns the errno, *bad_wr is
 * the 2nd WR, the 1st WR is posted (it completes) and neither the 2nd nor
 * the 3rd produce anything.
 */
#include "vt.h"

static struct vt v;
static uint8_t src[4096], dst[4096];
static struct pmr_mr *smr, *dmr;

struct tcase {
	const char *name;
	int err;
	void (*make_bad)(struct pmr_send_wr *wr, struct pmr_qp *qp);
};

static uint32_t max_send_sge(struct pmr_qp *qp)
{
	struct pmr_qp_attr a;
	struct pmr_qp_init_attr ia;

	CHECK_EQ(pmr_query_qp(qp, &a, PMR_QP_CAP, &ia), 0);
	return ia.cap.max_send_sge;
}

static uint32_t max_inline(struct pmr_qp *qp)
{
	struct pmr_qp_attr a;
	struct pmr_qp_init_attr ia;

	CHECK_EQ(pmr_query_qp(qp, &a, PMR_QP_CAP, &ia), 0);
	return ia.cap.max_inline_data;
}

static struct pmr_sge bigsge[64];
static struct pmr_ah *other_pd_ah;

static void bad_op200(struct pmr_send_wr *w, struct pmr_qp *qp)
{ (void)qp; w->opcode = (enum pmr_wr_opcode)200; }
static void bad_op16(struct pmr_send_wr *w, struct pmr_qp *qp)
{ (void)qp; w->opcode = (enum pmr_wr_opcode)16; }
static void bad_nsge_big(struct pmr_send_wr *w, struct pmr_qp *qp)
{
	uint32_t n = max_send_sge(qp) + 1;

	CHECK(n <= 64);
	for (uint32_t i = 0; i < n; i++)
		bigsge[i] = (struct pmr_sge){ (uintptr_t)src, 1, smr->lkey };
	w->sg_list = bigsge;
	w->num_sge = (int)n;
}
static void bad_nsge_neg(struct pmr_send_wr *w, struct pmr_qp *qp)
{ (void)qp; w->num_sge = -1; }
static void bad_inline_long(struct pmr_send_wr *w, struct pmr_qp *qp)
{
	bigsge[0] = (struct pmr_sge){ (uintptr_t)src, max_inline(qp) + 1, 0 };
	w->sg_list = bigsge;
	w->num_sge = 1;
	w->send_flags |= PMR_SEND_INLINE;
}
static void bad_inline_read(struct pmr_send_wr *w, struct pmr_qp *qp)
{
	(void)qp;
	w->opcode = PMR_WR_RDMA_READ;
	w->send_flags |= PMR_SEND_INLINE;
	w->wr.rdma.remote_addr = (uintptr_t)dst;
	w->wr.rdma.rkey = dmr->rkey;
}
static void bad_inline_atomic(struct pmr_send_wr *w, struct pmr_qp *qp)
{
	(void)qp;
	w->opcode = PMR_WR_ATOMIC_FETCH_AND_ADD;
	w->send_flags |= PMR_SEND_INLINE;
	w->wr.atomic.remote_addr = (uintptr_t)dst;
	w->wr.atomic.rkey = dmr->rkey;
}
static void set_op(struct pmr_send_wr *w, enum pmr_wr_opcode op)
{
	w->opcode = op;
	if (op == PMR_WR_ATOMIC_CMP_AND_SWP || op == PMR_WR_ATOMIC_FETCH_AND_ADD) {
		w->wr.atomic.remote_addr = (uintptr_t)dst;
		w->wr.atomic.rkey = dmr->rkey;
	} else if (op != PMR_WR_SEND) {
		w->wr.rdma.remote_addr = (uintptr_t)dst;
		w->wr.rdma.rkey = dmr->rkey;
	}
}
static void bad_read(struct pmr_send_wr *w, struct pmr_qp *qp)
{ (void)qp; set_op(w, PMR_WR_RDMA_READ); }
static void bad_cas(struct pmr_send_wr *w, struct pmr_qp *qp)
{ (void)qp; set_op(w, PMR_WR_ATOMIC_CMP_AND_SWP); w->sg_list[0].length = 8; }
static void bad_faa(struct pmr_send_wr *w, struct pmr_qp *qp)
{ (void)qp; set_op(w, PMR_WR_ATOMIC_FETCH_AND_ADD); w->sg_list[0].length = 8; }
static void bad_write(struct pmr_send_wr *w, struct pmr_qp *qp)
{ (void)qp; set_op(w, PMR_WR_RDMA_WRITE); }
static void bad_write_imm(struct pmr_send_wr *w, struct pmr_qp *qp)
{ (void)qp; set_op(w, PMR_WR_RDMA_WRITE_WITH_IMM); }
static void bad_no_ah(struct pmr_send_wr *w, struct pmr_qp *qp)
{ (void)qp; w->wr.ud.ah = NULL; }
static void bad_ah_pd(struct pmr_send_wr *w, struct pmr_qp *qp)
{ (void)qp; w->wr.ud.ah = other_pd_ah; }

static const struct tcase common[] = {
	{ "opcode 200", EINVAL, bad_op200 },
	{ "opcode 16", EINVAL, bad_op16 },
	{ "num_sge > max_send_sge", EINVAL, bad_nsge_big },
	{ "num_sge < 0", EINVAL, bad_nsge_neg },
	{ "inline longer than max_inline_data", EINVAL, bad_inline_long },
};
static const struct tcase rc_cases[] = {
	{ "INLINE with READ", EINVAL, bad_inline_read },
	{ "INLINE with FETCH_AND_ADD", EINVAL, bad_inline_atomic },
};
static const struct tcase uc_cases[] = {
	{ "UC READ", EINVAL, bad_read },
	{ "UC CMP_AND_SWP", EINVAL, bad_cas },
	{ "UC FETCH_AND_ADD", EINVAL, bad_faa },
};
static const struct tcase ud_cases[] = {
	{ "UD WRITE", EINVAL, bad_write },
	{ "UD WRITE_WITH_IMM", EINVAL, bad_write_imm },
	{ "UD READ", EINVAL, bad_read },
	{ "UD CMP_AND_SWP", EINVAL, bad_cas },
	{ "UD FETCH_AND_ADD", EINVAL, bad_faa },
	{ "UD without AH", EINVAL, bad_no_ah },
	{ "UD with an AH of another PD", EINVAL, bad_ah_pd },
};

/* A valid signaled SEND from p->qp[0] to p->qp[1]. */
static struct pmr_send_wr good_send(struct vt_pair *p, uint64_t id,
				    struct pmr_sge *sge)
{
	struct pmr_send_wr w;

	*sge = (struct pmr_sge){ (uintptr_t)src, 32, smr->lkey };
	w = vt_swr(id, PMR_WR_SEND, sge, 1, PMR_SEND_SIGNALED);
	if (p->qp[0]->qp_type == PMR_QPT_UD) {
		w.wr.ud.ah = p->ah;
		w.wr.ud.remote_qpn = p->qp[1]->qp_num;
		w.wr.ud.remote_qkey = 0x11111111;
	}
	return w;
}

static void run_case(struct vt_pair *p, const struct tcase *c)
{
	struct pmr_sge s1, s2, s3, rsge[2];
	struct pmr_send_wr w1, w2, w3, *bad = NULL;
	struct pmr_recv_wr r[2], *rbad = NULL;
	struct pmr_wc wc[4];
	int ret, n;

	/* two receives: one for WR 1, one to catch a wrongly posted WR 3 */
	for (int i = 0; i < 2; i++) {
		rsge[i] = (struct pmr_sge){ (uintptr_t)dst + 2048u * (unsigned)i,
					    2048, dmr->lkey };
		r[i] = vt_rwr(100 + (uint64_t)i, &rsge[i], 1);
		r[i].next = i == 0 ? &r[1] : NULL;
	}
	CHECK_EQ(pmr_post_recv(p->qp[1], &r[0], &rbad), 0);

	w1 = good_send(p, 1, &s1);
	w2 = good_send(p, 2, &s2);
	w3 = good_send(p, 3, &s3);
	c->make_bad(&w2, p->qp[0]);
	w1.next = &w2;
	w2.next = &w3;
	ret = pmr_post_send(p->qp[0], &w1, &bad);
	EXPECT_EQ_MSG(ret, c->err, "(%s)", c->name);
	EXPECT_EQ_MSG((uintptr_t)bad, (uintptr_t)&w2, "(%s: bad_wr)", c->name);

	n = vt_poll(p->scq[0], 4, wc, 30);
	EXPECT_EQ_MSG(n, 1, "(%s: send completions)", c->name);
	if (n >= 1) {
		EXPECT_EQ_MSG(wc[0].wr_id, 1, "(%s)", c->name);
		EXPECT_EQ_MSG(wc[0].status, PMR_WC_SUCCESS, "(%s)", c->name);
	}
	n = vt_poll(p->rcq[1], 4, wc, 5);
	EXPECT_EQ_MSG(n, 1, "(%s: receive completions)", c->name);
	if (n >= 1)
		EXPECT_EQ_MSG(wc[0].status, PMR_WC_SUCCESS, "(%s)", c->name);
	EXPECT_EQ_MSG(vt_state(p->qp[0]), PMR_QPS_RTS, "(%s)", c->name);
}

static void per_type(enum pmr_qp_type t, const struct tcase *extra, int nextra)
{
	struct vt_opts o = vt_opts_default();
	struct vt_pair p;

	vt_pair(&v, t, &o, 0, &p);
	for (size_t i = 0; i < sizeof(common) / sizeof(common[0]); i++)
		run_case(&p, &common[i]);
	for (int i = 0; i < nextra; i++)
		run_case(&p, &extra[i]);
	vt_pair_destroy(&p);
}

/* post_send in RESET / INIT / RTR -> EINVAL; post_recv in RESET -> EINVAL,
 * from INIT on it works; post in SQD is queued until RTS. */
static void states(void)
{
	struct vt_opts o = vt_opts_default();
	struct pmr_cq *cq = vt_cq(&v, 64);
	struct pmr_qp *qp = vt_qp(v.pd, PMR_QPT_RC, cq, cq, 8, 0);
	struct pmr_sge sge = { (uintptr_t)src, 8, smr->lkey };
	struct pmr_send_wr w = vt_swr(9, PMR_WR_RDMA_WRITE, &sge, 1,
				      PMR_SEND_SIGNALED), *bad;
	struct pmr_recv_wr rw = vt_rwr(8, &sge, 1), *rbad;
	struct pmr_qp_attr a;
	struct pmr_wc wc;

	w.wr.rdma.remote_addr = (uintptr_t)dst;
	w.wr.rdma.rkey = dmr->rkey;
	sge.lkey = dmr->lkey;    /* used for the receive only */
	rbad = NULL;
	CHECK_EQ(pmr_post_recv(qp, &rw, &rbad), EINVAL);     /* RESET */
	CHECK(rbad == &rw);
	sge.lkey = smr->lkey;
	bad = NULL;
	CHECK_EQ(pmr_post_send(qp, &w, &bad), EINVAL);       /* RESET */
	CHECK(bad == &w);
	CHECK_EQ(vt_to_init(qp, &o), 0);
	bad = NULL;
	CHECK_EQ(pmr_post_send(qp, &w, &bad), EINVAL);       /* INIT */
	CHECK(bad == &w);
	CHECK_EQ(vt_to_rtr(&v, qp, qp->qp_num, &o), 0);
	bad = NULL;
	CHECK_EQ(pmr_post_send(qp, &w, &bad), EINVAL);       /* RTR */
	CHECK(bad == &w);
	CHECK_EQ(vt_count(cq, 10), 0);
	CHECK_EQ(vt_to_rts(qp, &o), 0);
	CHECK_EQ(vt_count(cq, 10), 0);   /* nothing of the refused posts */
	/* SQD: accepted, not executed until back in RTS */
	memset(&a, 0, sizeof(a));
	a.qp_state = PMR_QPS_SQD;
	CHECK_EQ(pmr_modify_qp(qp, &a, PMR_QP_STATE), 0);
	CHECK_EQ(vt_post_send1(qp, &w), 0);
	CHECK_EQ(vt_count(cq, 10), 0);
	a.qp_state = PMR_QPS_RTS;
	CHECK_EQ(pmr_modify_qp(qp, &a, PMR_QP_STATE), 0);
	vt_poll1(cq, &wc);
	CHECK_EQ(wc.wr_id, 9);
	CHECK_WC(wc, PMR_WC_SUCCESS);
	CHECK_EQ(pmr_destroy_qp(qp), 0);

	/* post_recv from INIT works (and completes as flushed on ERR) */
	qp = vt_qp(v.pd, PMR_QPT_UD, cq, cq, 8, 0);
	CHECK_EQ(vt_to_init(qp, &o), 0);
	sge.lkey = dmr->lkey;
	CHECK_EQ(vt_post_recv1(qp, &rw), 0);
	CHECK_EQ(vt_count(cq, 5), 0);
	a.qp_state = PMR_QPS_ERR;
	CHECK_EQ(pmr_modify_qp(qp, &a, PMR_QP_STATE), 0);
	vt_poll1(cq, &wc);
	CHECK_EQ(wc.wr_id, 8);
	CHECK_WC(wc, PMR_WC_WR_FLUSH_ERR);
	CHECK_EQ(pmr_destroy_qp(qp), 0);
	CHECK_EQ(pmr_destroy_cq(cq), 0);
}

/* post_recv chains: num_sge too big / negative, queue full, SRQ. */
static void recv_errors(void)
{
	struct vt_opts o = vt_opts_default();
	struct pmr_cq *cq = vt_cq(&v, 256);
	struct pmr_qp_init_attr ia;
	struct pmr_qp_attr a;
	struct pmr_qp *qp;
	struct pmr_sge sge[32];
	struct pmr_recv_wr r[3], *bad;
	struct pmr_wc wc[64];
	uint32_t maxwr, maxsge;
	int n;

	qp = vt_qp(v.pd, PMR_QPT_RC, cq, cq, 16, 0);
	CHECK_EQ(pmr_query_qp(qp, &a, PMR_QP_CAP, &ia), 0);
	maxwr = ia.cap.max_recv_wr;
	maxsge = ia.cap.max_recv_sge;
	CHECK(maxwr >= 16 && maxsge >= 4 && maxsge < 32);
	CHECK_EQ(vt_to_init(qp, &o), 0);
	for (int i = 0; i < 32; i++)
		sge[i] = (struct pmr_sge){ (uintptr_t)dst, 16, dmr->lkey };

	for (int k = 0; k < 3; k++) {
		for (int i = 0; i < 3; i++) {
			r[i] = vt_rwr(10 * (uint64_t)k + (uint64_t)i, sge, 1);
			r[i].next = i < 2 ? &r[i + 1] : NULL;
		}
		if (k == 0)
			r[1].num_sge = (int)maxsge + 1;
		else if (k == 1)
			r[1].num_sge = -1;
		else
			/* fill so that exactly one more fits */
			for (uint32_t i = 0; i + 1 < maxwr - 2; i++) {
				struct pmr_recv_wr f = vt_rwr(1000 + i, sge, 1);

				CHECK_EQ(vt_post_recv1(qp, &f), 0);
			}
		bad = NULL;
		CHECK_EQ(pmr_post_recv(qp, &r[0], &bad), k == 2 ? ENOMEM : EINVAL);
		CHECK(bad == &r[1]);
	}
	/* ERR flushes exactly what was posted: 1 + 1 + (maxwr - 3) + 1 */
	a.qp_state = PMR_QPS_ERR;
	CHECK_EQ(pmr_modify_qp(qp, &a, PMR_QP_STATE), 0);
	n = vt_poll(cq, 64, wc, 50);
	CHECK_EQ(n, (int)maxwr);
	for (int i = 0; i < n; i++) {
		CHECK_WC(wc[i], PMR_WC_WR_FLUSH_ERR);
		CHECK(wc[i].wr_id % 10 == 0 || wc[i].wr_id >= 1000);
	}
	CHECK_EQ(pmr_destroy_qp(qp), 0);

	/* a QP on an SRQ: post_recv -> EINVAL */
	{
		struct pmr_srq_init_attr si;
		struct pmr_srq *srq;

		memset(&si, 0, sizeof(si));
		si.attr.max_wr = 16;
		si.attr.max_sge = 1;
		srq = pmr_create_srq(v.pd, &si);
		CHECK(srq != NULL);
		memset(&ia, 0, sizeof(ia));
		ia.send_cq = cq;
		ia.recv_cq = cq;
		ia.srq = srq;
		ia.qp_type = PMR_QPT_RC;
		ia.cap.max_send_wr = 4;
		ia.cap.max_send_sge = 1;
		qp = pmr_create_qp(v.pd, &ia);
		CHECK(qp != NULL);
		CHECK_EQ(vt_to_init(qp, &o), 0);
		r[0] = vt_rwr(1, sge, 1);
		bad = NULL;
		CHECK_EQ(pmr_post_recv(qp, &r[0], &bad), EINVAL);
		CHECK(bad == &r[0]);
		CHECK_EQ(pmr_destroy_qp(qp), 0);
		CHECK_EQ(pmr_destroy_srq(srq), 0);
	}
	CHECK_EQ(vt_count(cq, 5), 0);
	CHECK_EQ(pmr_destroy_cq(cq), 0);
}

/* A full send queue -> ENOMEM, with manual progress so nothing drains. */
static void queue_full(void)
{
	struct vt_opts o = vt_opts_default();
	struct pmr_context *ctx = pmr_open_device(v.dev);
	struct pmr_pd *pd;
	struct pmr_cq *cq;
	struct pmr_qp *qp;
	struct pmr_mr *mr;
	struct pmr_qp_init_attr ia;
	struct pmr_qp_attr a;
	struct pmr_sge sge;
	struct pmr_send_wr w[3], f, *bad;
	struct pmr_wc wc[8];
	static uint64_t target[2];
	uint32_t maxwr;
	int n = 0;
	uint64_t end;

	CHECK(ctx != NULL);
	CHECK_EQ(pmr_set_progress_mode(ctx, (enum pmr_progress_mode)7), EINVAL);
	CHECK_EQ(pmr_set_progress_mode(ctx, PMR_PROGRESS_SERVICE), ENOTSUP);
	CHECK_EQ(pmr_set_progress_mode(ctx, PMR_PROGRESS_MANUAL), 0);
	pd = pmr_alloc_pd(ctx);
	CHECK(pd != NULL);
	cq = pmr_create_cq(ctx, 256, NULL, NULL, 0);
	CHECK(cq != NULL);
	mr = vt_mr(pd, target, sizeof(target),
		   PMR_ACCESS_LOCAL_WRITE | PMR_ACCESS_REMOTE_WRITE);
	qp = vt_qp(pd, PMR_QPT_RC, cq, cq, 16, 0);
	CHECK_EQ(pmr_set_progress_mode(ctx, PMR_PROGRESS_INLINE), EBUSY);
	CHECK_EQ(pmr_query_qp(qp, &a, PMR_QP_CAP, &ia), 0);
	maxwr = ia.cap.max_send_wr;
	CHECK(maxwr >= 16 && maxwr < 4096);
	vt_connect(&v, qp, qp->qp_num, &o);     /* loops back to itself */

	sge = (struct pmr_sge){ (uintptr_t)&target[0], 8, mr->lkey };
	for (uint32_t i = 0; i + 1 < maxwr; i++) {
		f = vt_swr(1000 + i, PMR_WR_RDMA_WRITE, &sge, 1, 0);
		f.wr.rdma.remote_addr = (uintptr_t)&target[1];
		f.wr.rdma.rkey = mr->rkey;
		CHECK_EQ(vt_post_send1(qp, &f), 0);
	}
	for (int i = 0; i < 3; i++) {
		w[i] = vt_swr(1 + (uint64_t)i, PMR_WR_RDMA_WRITE, &sge, 1,
			      PMR_SEND_SIGNALED);
		w[i].wr.rdma.remote_addr = (uintptr_t)&target[1];
		w[i].wr.rdma.rkey = mr->rkey;
		w[i].next = i < 2 ? &w[i + 1] : NULL;
	}
	bad = NULL;
	CHECK_EQ(pmr_post_send(qp, &w[0], &bad), ENOMEM);
	CHECK(bad == &w[1]);
	/* manual mode: polling alone runs nothing */
	CHECK_EQ(pmr_poll_cq(cq, 8, wc), 0);
	end = vt_now_ms() + 2000;
	while (vt_now_ms() < end) {
		int r;

		CHECK(pmr_progress(ctx, 64) >= 0);
		r = pmr_poll_cq(cq, 8 - n, wc + n);
		CHECK(r >= 0);
		n += r;
		if (n > 0 && pmr_progress(ctx, 64) == 0)
			break;
	}
	n += pmr_poll_cq(cq, 8 - n, wc + n);
	CHECK_EQ(n, 1);
	CHECK_EQ(wc[0].wr_id, 1);
	CHECK_WC(wc[0], PMR_WC_SUCCESS);
	/* the queue has room again */
	f.send_flags = PMR_SEND_SIGNALED;
	f.wr_id = 5;
	CHECK_EQ(vt_post_send1(qp, &f), 0);
	CHECK_EQ(pmr_poll_cq(cq, 8, wc), 0);
	CHECK_EQ(pmr_progress(ctx, 64), 1);
	CHECK_EQ(pmr_poll_cq(cq, 8, wc), 1);
	CHECK_EQ(wc[0].wr_id, 5);

	CHECK_EQ(pmr_destroy_qp(qp), 0);
	CHECK_EQ(pmr_dereg_mr(mr), 0);
	CHECK_EQ(pmr_destroy_cq(cq), 0);
	CHECK_EQ(pmr_dealloc_pd(pd), 0);
	CHECK_EQ(pmr_close_device(ctx), 0);
}

int main(void)
{
	struct pmr_pd *pd2;
	struct pmr_ah_attr aa;

	vt_open(&v);
	smr = vt_mr(v.pd, src, sizeof(src), PMR_ACCESS_LOCAL_WRITE);
	dmr = vt_mr(v.pd, dst, sizeof(dst), PMR_ACCESS_LOCAL_WRITE |
		    PMR_ACCESS_REMOTE_WRITE | PMR_ACCESS_REMOTE_READ |
		    PMR_ACCESS_REMOTE_ATOMIC);
	pd2 = pmr_alloc_pd(v.ctx);
	CHECK(pd2 != NULL);
	vt_ah_attr(&v, &aa);
	other_pd_ah = pmr_create_ah(pd2, &aa);
	CHECK(other_pd_ah != NULL);

	per_type(PMR_QPT_RC, rc_cases, 2);
	per_type(PMR_QPT_UC, uc_cases, 3);
	per_type(PMR_QPT_UD, ud_cases, 7);
	states();
	recv_errors();
	queue_full();

	CHECK_EQ(pmr_destroy_ah(other_pd_ah), 0);
	CHECK_EQ(pmr_dealloc_pd(pd2), 0);
	CHECK_EQ(pmr_dereg_mr(smr), 0);
	CHECK_EQ(pmr_dereg_mr(dmr), 0);
	vt_close(&v);
	return vt_exit();
}
