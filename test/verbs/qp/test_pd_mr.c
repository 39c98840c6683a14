/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * PDs and MRs: allocation, EBUSY rules, keys, argument checks (AH and
 * SRQ creation's too), dereg of an MR referenced by posted work, and MR
 * bounds / rights / PD checks on the RC data path (remote and local),
 * with guard bytes around the MR.
 */
#include "vt.h"

static struct vt v;
static const int all_access = PMR_ACCESS_LOCAL_WRITE |
	PMR_ACCESS_REMOTE_WRITE | PMR_ACCESS_REMOTE_READ |
	PMR_ACCESS_REMOTE_ATOMIC;

static void pd_busy(void)
{
	struct pmr_pd *pd = pmr_alloc_pd(v.ctx);
	struct pmr_pd *pd2 = pmr_alloc_pd(v.ctx);
	struct pmr_cq *cq = vt_cq(&v, 16);
	static uint8_t buf[64];
	struct pmr_mr *mr;
	struct pmr_qp *qp;
	struct pmr_ah *ah;
	struct pmr_ah_attr aa;
	struct pmr_srq *srq;
	struct pmr_srq_init_attr si;

	CHECK(pd != NULL && pd2 != NULL && pd != pd2);
	CHECK(pd->context == v.ctx);
	CHECK(pd->handle != pd2->handle);
	CHECK_EQ(pmr_dealloc_pd(pd2), 0);

	mr = vt_mr(pd, buf, sizeof(buf), PMR_ACCESS_LOCAL_WRITE);
	CHECK_EQ(pmr_dealloc_pd(pd), EBUSY);
	CHECK_EQ(pmr_dereg_mr(mr), 0);
	qp = vt_qp(pd, PMR_QPT_RC, cq, cq, 4, 0);
	CHECK_EQ(pmr_dealloc_pd(pd), EBUSY);
	CHECK_EQ(pmr_destroy_qp(qp), 0);
	vt_ah_attr(&v, &aa);
	ah = pmr_create_ah(pd, &aa);
	CHECK(ah != NULL);
	CHECK_EQ(pmr_dealloc_pd(pd), EBUSY);
	CHECK_EQ(pmr_destroy_ah(ah), 0);
	memset(&si, 0, sizeof(si));
	si.attr.max_wr = 4;
	si.attr.max_sge = 1;
	srq = pmr_create_srq(pd, &si);
	CHECK(srq != NULL);
	CHECK_EQ(pmr_dealloc_pd(pd), EBUSY);
	CHECK_EQ(pmr_destroy_srq(srq), 0);
	CHECK_EQ(pmr_dealloc_pd(pd), 0);
	CHECK_EQ(pmr_destroy_cq(cq), 0);
}

/*
 * Argument checks of PD, AH and SRQ creation: EINVAL, nothing made (the
 * PD they were tried on is still free to go).  An AH needs a GRH
 * (RoCEv2), port 1 (the device has one) and a source GID the table has
 * (the loopback device has one).
 */
/* expr, a pointer, is NULL with errno EINVAL */
#define CHECK_EINVAL(expr) do {			\
		errno = 0;			\
		CHECK((expr) == NULL);		\
		CHECK_EQ(errno, EINVAL);	\
	} while (0)

static void obj_args(void)
{
	struct pmr_pd *pd = pmr_alloc_pd(v.ctx);
	struct pmr_ah_attr aa, bad[4];
	struct pmr_srq_init_attr si;

	CHECK(pd != NULL);
	CHECK_EINVAL(pmr_alloc_pd(NULL));
	vt_ah_attr(&v, &aa);
	for (int i = 0; i < 4; i++)
		bad[i] = aa;
	bad[0].is_global = 0;
	bad[1].port_num = 0;
	bad[2].port_num = 2;
	bad[3].grh.sgid_index = 1;
	for (int i = 0; i < 4; i++)
		CHECK_EINVAL(pmr_create_ah(pd, &bad[i]));
	CHECK_EINVAL(pmr_create_ah(NULL, &aa));
	CHECK_EINVAL(pmr_create_ah(pd, NULL));
	memset(&si, 0, sizeof(si));
	si.attr.max_wr = 4;
	si.attr.max_sge = 1;
	CHECK_EINVAL(pmr_create_srq(NULL, &si));
	CHECK_EINVAL(pmr_create_srq(pd, NULL));
	CHECK_EQ(pmr_dealloc_pd(pd), 0);
}

static void reg_args(void)
{
	static uint8_t buf[4096];
	struct pmr_mr *mr[100];
	static const int bad_access[] = {
		PMR_ACCESS_ZERO_BASED, PMR_ACCESS_FLUSH_GLOBAL,
		PMR_ACCESS_FLUSH_PERSISTENT, 1 << 12, 1 << 30,
		PMR_ACCESS_REMOTE_WRITE,
		PMR_ACCESS_REMOTE_ATOMIC,
		PMR_ACCESS_REMOTE_WRITE | PMR_ACCESS_REMOTE_READ,
		PMR_ACCESS_REMOTE_ATOMIC | PMR_ACCESS_REMOTE_READ,
	};

	/* keys: lkey != rkey, same index in the upper bits, all distinct */
	for (int i = 0; i < 100; i++) {
		mr[i] = vt_mr(v.pd, buf + i, 100, all_access);
		CHECK(mr[i]->lkey != mr[i]->rkey);
		CHECK_EQ(mr[i]->lkey >> 8, mr[i]->rkey >> 8);
		CHECK(mr[i]->lkey >> 8 != 0);
		CHECK(mr[i]->addr == buf + i);
		CHECK_EQ(mr[i]->length, 100);
		CHECK(mr[i]->pd == v.pd);
		CHECK(mr[i]->context == v.ctx);
		for (int j = 0; j < i; j++) {
			CHECK(mr[i]->lkey != mr[j]->lkey);
			CHECK(mr[i]->rkey != mr[j]->rkey);
			CHECK(mr[i]->lkey != mr[j]->rkey);
			CHECK(mr[i]->rkey != mr[j]->lkey);
			CHECK(mr[i]->lkey >> 8 != mr[j]->lkey >> 8);
		}
	}
	for (int i = 0; i < 100; i++)
		CHECK_EQ(pmr_dereg_mr(mr[i]), 0);

	for (size_t i = 0; i < sizeof(bad_access) / sizeof(bad_access[0]); i++)
		CHECK_EINVAL(pmr_reg_mr(v.pd, buf, 64, bad_access[i]));
	/* REMOTE_READ alone is fine (no local write needed) */
	mr[0] = vt_mr(v.pd, buf, 64, PMR_ACCESS_REMOTE_READ);
	CHECK_EQ(pmr_dereg_mr(mr[0]), 0);
	CHECK_EINVAL(pmr_reg_mr(v.pd, NULL, 64, PMR_ACCESS_LOCAL_WRITE));
	CHECK_EINVAL(pmr_reg_mr(v.pd, (void *)(UINTPTR_MAX - 10), 100,
				PMR_ACCESS_LOCAL_WRITE));
	CHECK_EINVAL(pmr_reg_mr(NULL, buf, 64, PMR_ACCESS_LOCAL_WRITE));
}

/*
 * A re-registration that lands on the index of an earlier MR must not
 * hand out that MR's keys again (else a stale key is accepted).  The
 * allocator walks the whole table before reusing an index, so cycle
 * reg/dereg around it twice.
 */
#define NIDX 65536
static void key_reuse(void)
{
	static uint32_t last_l[NIDX], last_r[NIDX];
	static uint8_t buf[64];
	int collisions = 0, reused = 0;

	for (int i = 0; i < 2 * NIDX + 100; i++) {
		struct pmr_mr *mr = vt_mr(v.pd, buf, sizeof(buf),
					  PMR_ACCESS_LOCAL_WRITE);
		uint32_t idx = mr->lkey >> 8;

		CHECK(idx < NIDX);
		if (last_l[idx] != 0 || last_r[idx] != 0) {
			reused++;
			if (mr->lkey == last_l[idx] || mr->lkey == last_r[idx] ||
			    mr->rkey == last_l[idx] || mr->rkey == last_r[idx]) {
				if (collisions < 3)
					fprintf(stderr, "index %u: old keys %#x/%#x,"
						" new keys %#x/%#x\n", idx,
						last_l[idx], last_r[idx],
						mr->lkey, mr->rkey);
				collisions++;
			}
		}
		last_l[idx] = mr->lkey;
		last_r[idx] = mr->rkey;
		CHECK_EQ(pmr_dereg_mr(mr), 0);
	}
	CHECK(reused > NIDX / 2);
	EXPECT_EQ_MSG(collisions, 0, "(of %d re-registrations at a used index, "
		      "these got a key of the previous MR at that index)",
		      reused);
}

/*
 * A full MR table: max_mr registrations succeed, the next fails with
 * ENOSPC and changes nothing (the registered MRs keep working: a WRITE
 * between two of them), and one dereg makes room for exactly one more.
 */
static void mr_table_full(void)
{
	static uint8_t buf[64], src[64], dst[64];
	const int acc = PMR_ACCESS_LOCAL_WRITE | PMR_ACCESS_REMOTE_WRITE;
	struct vt_opts o = vt_opts_default();
	int max = v.dattr.max_mr;
	struct pmr_mr **mrs = calloc((size_t)max + 1, sizeof(*mrs));
	struct pmr_mr *extra;
	struct vt_pair p;
	struct pmr_sge s;
	struct pmr_send_wr w;
	struct pmr_wc wc;
	int n;

	CHECK(mrs != NULL);
	vt_pair(&v, PMR_QPT_RC, &o, 0, &p);
	for (n = 0; n <= max; n++) {
		mrs[n] = pmr_reg_mr(v.pd, n == 0 ? src : n == 1 ? dst : buf,
				    64, acc);
		if (mrs[n] == NULL)
			break;
	}
	EXPECT_EQ(n, max);
	CHECK(n > 2 && n <= max);
	errno = 0;
	extra = pmr_reg_mr(v.pd, buf, sizeof(buf), acc);
	CHECK(extra == NULL);
	EXPECT_EQ(errno, ENOSPC);
	/* the MRs already there still work */
	memset(src, 0x5a, sizeof(src));
	memset(dst, 0, sizeof(dst));
	s = (struct pmr_sge){ (uintptr_t)src, 64, mrs[0]->lkey };
	w = vt_swr(1, PMR_WR_RDMA_WRITE, &s, 1, PMR_SEND_SIGNALED);
	w.wr.rdma.remote_addr = (uintptr_t)dst;
	w.wr.rdma.rkey = mrs[1]->rkey;
	CHECK_EQ(vt_post_send1(p.qp[0], &w), 0);
	vt_poll1(p.scq[0], &wc);
	CHECK_WC(wc, PMR_WC_SUCCESS);
	EXPECT(memcmp(src, dst, sizeof(dst)) == 0);
	/* one freed index, one more MR */
	CHECK_EQ(pmr_dereg_mr(mrs[n / 2]), 0);
	mrs[n / 2] = pmr_reg_mr(v.pd, buf, sizeof(buf), acc);
	CHECK(mrs[n / 2] != NULL);
	errno = 0;
	CHECK(pmr_reg_mr(v.pd, buf, sizeof(buf), acc) == NULL);
	EXPECT_EQ(errno, ENOSPC);
	for (int i = 0; i < n; i++)
		CHECK_EQ(pmr_dereg_mr(mrs[i]), 0);
	free(mrs);
	vt_pair_destroy(&p);
	/* and all of them free again */
	extra = vt_mr(v.pd, buf, sizeof(buf), acc);
	CHECK_EQ(pmr_dereg_mr(extra), 0);
}

/* dereg while posted WRs reference the MR -> EBUSY; after -> 0. */
static void dereg_busy(void)
{
	struct vt_opts o = vt_opts_default();
	static uint8_t buf[256];
	struct pmr_cq *cq = vt_cq(&v, 64);
	struct pmr_qp *qp = vt_qp(v.pd, PMR_QPT_RC, cq, cq, 8, 0);
	struct pmr_mr *mr = vt_mr(v.pd, buf, sizeof(buf), all_access);
	struct pmr_sge s = { (uintptr_t)buf, 64, mr->lkey };
	struct pmr_recv_wr r = vt_rwr(1, &s, 1);
	struct pmr_qp_attr a;
	struct pmr_wc wc;

	CHECK_EQ(vt_to_init(qp, &o), 0);
	CHECK_EQ(vt_post_recv1(qp, &r), 0);
	CHECK_EQ(pmr_dereg_mr(mr), EBUSY);
	memset(&a, 0, sizeof(a));
	a.qp_state = PMR_QPS_ERR;
	CHECK_EQ(pmr_modify_qp(qp, &a, PMR_QP_STATE), 0);
	vt_poll1(cq, &wc);
	CHECK_WC(wc, PMR_WC_WR_FLUSH_ERR);
	CHECK_EQ(pmr_dereg_mr(mr), 0);
	CHECK_EQ(pmr_destroy_qp(qp), 0);

	/* a send WR not yet executed (manual progress) */
	{
		struct pmr_context *ctx = pmr_open_device(v.dev);
		struct pmr_pd *pd;
		struct pmr_cq *mcq;
		struct pmr_qp *mqp;
		struct pmr_send_wr w;

		CHECK(ctx != NULL);
		CHECK_EQ(pmr_set_progress_mode(ctx, PMR_PROGRESS_MANUAL), 0);
		pd = pmr_alloc_pd(ctx);
		CHECK(pd != NULL);
		mcq = pmr_create_cq(ctx, 16, NULL, NULL, 0);
		CHECK(mcq != NULL);
		mqp = vt_qp(pd, PMR_QPT_RC, mcq, mcq, 4, 0);
		vt_connect(&v, mqp, mqp->qp_num, &o);
		mr = vt_mr(pd, buf, sizeof(buf), all_access);
		s = (struct pmr_sge){ (uintptr_t)buf, 8, mr->lkey };
		w = vt_swr(2, PMR_WR_RDMA_WRITE, &s, 1, PMR_SEND_SIGNALED);
		w.wr.rdma.remote_addr = (uintptr_t)buf + 64;
		w.wr.rdma.rkey = mr->rkey;
		CHECK_EQ(vt_post_send1(mqp, &w), 0);
		CHECK_EQ(pmr_dereg_mr(mr), EBUSY);
		CHECK_EQ(pmr_progress(ctx, 16), 1);
		CHECK_EQ(pmr_poll_cq(mcq, 1, &wc), 1);
		CHECK_WC(wc, PMR_WC_SUCCESS);
		CHECK_EQ(pmr_dereg_mr(mr), 0);
		CHECK_EQ(pmr_destroy_qp(mqp), 0);
		CHECK_EQ(pmr_destroy_cq(mcq), 0);
		CHECK_EQ(pmr_dealloc_pd(pd), 0);
		CHECK_EQ(pmr_close_device(ctx), 0);
	}

	/* a receive posted to an SRQ references the MR too */
	{
		struct pmr_srq_init_attr si;
		struct pmr_srq *srq;
		int ret;

		memset(&si, 0, sizeof(si));
		si.attr.max_wr = 4;
		si.attr.max_sge = 1;
		srq = pmr_create_srq(v.pd, &si);
		CHECK(srq != NULL);
		mr = vt_mr(v.pd, buf, sizeof(buf), all_access);
		s = (struct pmr_sge){ (uintptr_t)buf, 64, mr->lkey };
		r = vt_rwr(3, &s, 1);
		{
			struct pmr_recv_wr *bad = NULL;

			CHECK_EQ(pmr_post_srq_recv(srq, &r, &bad), 0);
		}
		ret = pmr_dereg_mr(mr);
		EXPECT_EQ_MSG(ret, EBUSY, "(dereg of an MR used by a receive "
			      "posted to an SRQ)");
		CHECK_EQ(pmr_destroy_srq(srq), 0);
		if (ret != 0)
			CHECK_EQ(pmr_dereg_mr(mr), 0);
	}
	CHECK_EQ(pmr_destroy_cq(cq), 0);
}

/* ---- data path ------------------------------------------------------ */

#define GUARD 64
#define MRLEN 4096
static uint8_t region[GUARD + MRLEN + GUARD] __attribute__((aligned(64)));
static uint8_t local[GUARD + 256 + GUARD] __attribute__((aligned(64)));
static uint8_t *mrbase = region + GUARD;
static uint8_t *lbase = local + GUARD;

static void fill(void)
{
	memset(region, 0xcc, sizeof(region));
	for (int i = 0; i < MRLEN; i++)
		mrbase[i] = (uint8_t)(i * 7 + 1);
	memset(local, 0xcc, sizeof(local));
	for (int i = 0; i < 256; i++)
		lbase[i] = (uint8_t)(i ^ 0x3c);
}

static void check_untouched(const char *what)
{
	for (int i = 0; i < (int)sizeof(region); i++) {
		int off = i - GUARD;
		uint8_t want = (off >= 0 && off < MRLEN) ?
			(uint8_t)(off * 7 + 1) : 0xcc;

		if (region[i] != want) {
			fprintf(stderr, "%s: remote byte at offset %d changed\n",
				what, off);
			CHECK(0);
		}
	}
	for (int i = 0; i < (int)sizeof(local); i++) {
		int off = i - GUARD;
		uint8_t want = (off >= 0 && off < 256) ?
			(uint8_t)(off ^ 0x3c) : 0xcc;

		if (local[i] != want) {
			fprintf(stderr, "%s: local byte at offset %d changed\n",
				what, off);
			CHECK(0);
		}
	}
}

enum op { OP_WRITE, OP_READ, OP_ATOMIC, NOPS };
static const char *const opname[NOPS] = { "WRITE", "READ", "ATOMIC" };
static const int op_right[NOPS] = { PMR_ACCESS_REMOTE_WRITE,
	PMR_ACCESS_REMOTE_READ, PMR_ACCESS_REMOTE_ATOMIC };

enum rcase { C_BEFORE, C_PAST_END, C_ZERO_AT_END, C_WRAP, C_STALE,
	     C_LKEY, C_OTHER_PD, C_NO_MR_RIGHT, C_NO_QP_RIGHT, C_OK, NCASES };
static const char *const cname[NCASES] = {
	"addr one byte before the MR", "range one byte past the end",
	"length 0 at the end", "addr + len wraps 2^64", "stale rkey",
	"lkey as rkey", "MR of another PD", "MR without the right",
	"responder QP without the right", "in bounds",
};

/* Run one remote access; @return the requester's status. */
static void remote_case(enum op op, enum rcase c)
{
	struct vt_opts o = vt_opts_default();
	struct vt_pair p;
	struct pmr_mr *mr, *lmr, *tmp = NULL;
	struct pmr_pd *pd2 = NULL;
	struct pmr_sge s;
	struct pmr_send_wr w;
	struct pmr_wc wc;
	struct pmr_async_event ev;
	uint64_t start = (uintptr_t)mrbase, end = start + MRLEN, addr;
	uint32_t len = op == OP_ATOMIC ? 8 : 16, rkey;
	bool expect_ok = (c == C_ZERO_AT_END || c == C_OK);
	char what[128];

	snprintf(what, sizeof(what), "%s, %s", opname[op], cname[c]);
	if (c == C_NO_QP_RIGHT)
		o.access = all_access & ~op_right[op];
	fill();
	vt_pair(&v, PMR_QPT_RC, &o, 0, &p);
	mr = vt_mr(v.pd, mrbase, MRLEN, c == C_NO_MR_RIGHT ?
		   (all_access & ~op_right[op]) : all_access);
	lmr = vt_mr(v.pd, lbase, 256, PMR_ACCESS_LOCAL_WRITE);
	rkey = mr->rkey;
	addr = start + 64;
	switch (c) {
	case C_BEFORE: addr = start - (op == OP_ATOMIC ? 8 : 1); break;
	case C_PAST_END: addr = end - len + (op == OP_ATOMIC ? 8 : 1); break;
	case C_ZERO_AT_END: addr = end; len = 0; break;
	case C_WRAP: addr = UINT64_MAX - 7; break;
	case C_STALE:
		tmp = vt_mr(v.pd, mrbase, MRLEN, all_access);
		rkey = tmp->rkey;
		CHECK_EQ(pmr_dereg_mr(tmp), 0);
		break;
	case C_LKEY: rkey = mr->lkey; break;
	case C_OTHER_PD:
		pd2 = pmr_alloc_pd(v.ctx);
		CHECK(pd2 != NULL);
		tmp = vt_mr(pd2, mrbase, MRLEN, all_access);
		rkey = tmp->rkey;
		break;
	default: break;
	}
	if (op == OP_ATOMIC && len == 0)
		goto out;   /* atomics are always 8 bytes */
	s = (struct pmr_sge){ (uintptr_t)lbase, len, lmr->lkey };
	if (op == OP_ATOMIC) {
		w = vt_swr(1, PMR_WR_ATOMIC_FETCH_AND_ADD, &s, 1,
			   PMR_SEND_SIGNALED);
		w.wr.atomic.remote_addr = addr;
		w.wr.atomic.rkey = rkey;
		w.wr.atomic.compare_add = 1;
	} else {
		w = vt_swr(1, op == OP_WRITE ? PMR_WR_RDMA_WRITE :
			   PMR_WR_RDMA_READ, &s, len ? 1 : 0,
			   PMR_SEND_SIGNALED);
		w.wr.rdma.remote_addr = addr;
		w.wr.rdma.rkey = rkey;
	}
	CHECK_EQ(vt_post_send1(p.qp[0], &w), 0);
	vt_poll1(p.scq[0], &wc);
	if (expect_ok) {
		if (wc.status != PMR_WC_SUCCESS)
			fprintf(stderr, "%s\n", what);
		CHECK_WC(wc, PMR_WC_SUCCESS);
		CHECK_EQ(vt_state(p.qp[1]), PMR_QPS_RTS);
		CHECK_EQ(vt_async(&v, &ev), -1);
		if (len == 0)
			check_untouched(what);
		goto out;
	}
	/* an operation the responder QP does not enable is an invalid
	 * request (VERBS.md REM_INV_REQ_ERR, as soft-RoCE answers it); a
	 * protection failure on the MR is a remote access error */
	if (wc.status != (c == C_NO_QP_RIGHT ? PMR_WC_REM_INV_REQ_ERR :
			  PMR_WC_REM_ACCESS_ERR))
		fprintf(stderr, "case: %s\n", what);
	CHECK_WC(wc, c == C_NO_QP_RIGHT ? PMR_WC_REM_INV_REQ_ERR :
		 PMR_WC_REM_ACCESS_ERR);
	CHECK_EQ(wc.wr_id, 1);
	CHECK_EQ(vt_state(p.qp[0]), PMR_QPS_ERR);
	if (vt_state(p.qp[1]) != PMR_QPS_ERR)
		fprintf(stderr, "case: %s\n", what);
	CHECK_EQ(vt_state(p.qp[1]), PMR_QPS_ERR);
	CHECK_EQ(p.qp[1]->state, PMR_QPS_ERR);
	CHECK_EQ(vt_async(&v, &ev), 0);
	CHECK_EQ(ev.event_type, c == C_NO_QP_RIGHT ? PMR_EVENT_QP_REQ_ERR :
		 PMR_EVENT_QP_ACCESS_ERR);
	CHECK(ev.element.qp == p.qp[1]);
	CHECK_EQ(vt_async(&v, &ev), -1);
	check_untouched(what);
out:
	vt_async_drain(&v);
	vt_pair_destroy(&p);
	if (c == C_OTHER_PD) {
		CHECK_EQ(pmr_dereg_mr(tmp), 0);
		CHECK_EQ(pmr_dealloc_pd(pd2), 0);
	}
	CHECK_EQ(pmr_dereg_mr(mr), 0);
	CHECK_EQ(pmr_dereg_mr(lmr), 0);
}

/* Local protection: bad lkey, SGE out of bounds, rkey as lkey, READ into
 * an MR without LOCAL_WRITE, bad receive SGE. */
static void local_cases(void)
{
	for (int k = 0; k < 6; k++) {
		struct vt_opts o = vt_opts_default();
		struct vt_pair p;
		struct pmr_mr *mr, *lmr;
		struct pmr_sge s;
		struct pmr_send_wr w;
		struct pmr_wc wc;

		fill();
		vt_pair(&v, PMR_QPT_RC, &o, 0, &p);
		mr = vt_mr(v.pd, mrbase, MRLEN, all_access);
		lmr = vt_mr(v.pd, lbase, 256, k == 3 ? PMR_ACCESS_REMOTE_READ :
			    PMR_ACCESS_LOCAL_WRITE);
		s = (struct pmr_sge){ (uintptr_t)lbase, 16, lmr->lkey };
		w = vt_swr(1, PMR_WR_RDMA_WRITE, &s, 1, PMR_SEND_SIGNALED);
		w.wr.rdma.remote_addr = (uintptr_t)mrbase;
		w.wr.rdma.rkey = mr->rkey;
		switch (k) {
		case 0: s.lkey ^= 0x55; break;                       /* bad lkey */
		case 1: s.addr = (uintptr_t)lbase + 250; break;     /* past end */
		case 2: s.lkey = lmr->rkey; break;                   /* rkey */
		case 3: w.opcode = PMR_WR_RDMA_READ; break;     /* no LOCAL_WRITE */
		case 4: w.opcode = PMR_WR_SEND; s.lkey = 0x12345600; break;
		case 5: {                              /* receiver's SGE is bad */
			struct pmr_sge rs = { (uintptr_t)mrbase, 64,
					      mr->lkey ^ 0x80 };
			struct pmr_recv_wr r = vt_rwr(9, &rs, 1);

			CHECK_EQ(vt_post_recv1(p.qp[1], &r), 0);
			w.opcode = PMR_WR_SEND;
			break;
		}
		}
		CHECK_EQ(vt_post_send1(p.qp[0], &w), 0);
		vt_poll1(p.scq[0], &wc);
		if (k == 5) {
			CHECK_WC(wc, PMR_WC_REM_OP_ERR);
			vt_poll1(p.rcq[1], &wc);
			CHECK_WC(wc, PMR_WC_LOC_PROT_ERR);
			CHECK_EQ(wc.wr_id, 9);
			CHECK_EQ(vt_state(p.qp[1]), PMR_QPS_ERR);
		} else {
			CHECK_WC(wc, PMR_WC_LOC_PROT_ERR);
			CHECK_EQ(vt_state(p.qp[1]), PMR_QPS_RTS);
		}
		CHECK_EQ(wc.status == PMR_WC_LOC_PROT_ERR || k == 5, 1);
		CHECK_EQ(vt_state(p.qp[0]), PMR_QPS_ERR);
		check_untouched("local protection");
		vt_async_drain(&v);
		vt_pair_destroy(&p);
		CHECK_EQ(pmr_dereg_mr(mr), 0);
		CHECK_EQ(pmr_dereg_mr(lmr), 0);
	}
}

/* RC WRITE_WITH_IMM with a bad rkey: requester REM_ACCESS_ERR, the
 * receive it consumed LOC_ACCESS_ERR; READ / atomic to a responder with
 * max_dest_rd_atomic 0: REM_INV_REQ_ERR, responder QP_REQ_ERR. */
static void responder_errors(void)
{
	for (int k = 0; k < 3; k++) {
		struct vt_opts o = vt_opts_default();
		struct vt_pair p;
		struct pmr_mr *mr, *lmr;
		struct pmr_sge s, rs;
		struct pmr_recv_wr r;
		struct pmr_send_wr w;
		struct pmr_wc wc;
		struct pmr_async_event ev;

		if (k > 0)
			o.max_dest_rd_atomic = 0;
		fill();
		vt_pair(&v, PMR_QPT_RC, &o, 0, &p);
		mr = vt_mr(v.pd, mrbase, MRLEN, all_access);
		lmr = vt_mr(v.pd, lbase, 256, PMR_ACCESS_LOCAL_WRITE);
		s = (struct pmr_sge){ (uintptr_t)lbase, 8, lmr->lkey };
		if (k == 0) {
			rs = (struct pmr_sge){ (uintptr_t)mrbase + 256, 64,
					       mr->lkey };
			r = vt_rwr(9, &rs, 1);
			CHECK_EQ(vt_post_recv1(p.qp[1], &r), 0);
			w = vt_swr(1, PMR_WR_RDMA_WRITE_WITH_IMM, &s, 1,
				   PMR_SEND_SIGNALED);
			w.wr.rdma.remote_addr = (uintptr_t)mrbase;
			w.wr.rdma.rkey = mr->rkey ^ 0x11;
		} else if (k == 1) {
			w = vt_swr(1, PMR_WR_RDMA_READ, &s, 1, PMR_SEND_SIGNALED);
			w.wr.rdma.remote_addr = (uintptr_t)mrbase;
			w.wr.rdma.rkey = mr->rkey;
		} else {
			w = vt_swr(1, PMR_WR_ATOMIC_FETCH_AND_ADD, &s, 1,
				   PMR_SEND_SIGNALED);
			w.wr.atomic.remote_addr = (uintptr_t)mrbase;
			w.wr.atomic.rkey = mr->rkey;
			w.wr.atomic.compare_add = 1;
		}
		CHECK_EQ(vt_post_send1(p.qp[0], &w), 0);
		vt_poll1(p.scq[0], &wc);
		CHECK_WC(wc, k == 0 ? PMR_WC_REM_ACCESS_ERR :
			 PMR_WC_REM_INV_REQ_ERR);
		if (k == 0) {
			vt_poll1(p.rcq[1], &wc);
			CHECK_WC(wc, PMR_WC_LOC_ACCESS_ERR);
			CHECK_EQ(wc.wr_id, 9);
			CHECK_EQ(wc.qp_num, p.qp[1]->qp_num);
		}
		CHECK_EQ(vt_count(p.rcq[1], 0), 0);
		CHECK_EQ(vt_state(p.qp[0]), PMR_QPS_ERR);
		CHECK_EQ(vt_state(p.qp[1]), PMR_QPS_ERR);
		CHECK_EQ(vt_async(&v, &ev), 0);
		CHECK_EQ(ev.event_type, k == 0 ? PMR_EVENT_QP_ACCESS_ERR :
			 PMR_EVENT_QP_REQ_ERR);
		CHECK(ev.element.qp == p.qp[1]);
		CHECK_EQ(vt_async(&v, &ev), -1);
		check_untouched("responder error");
		vt_pair_destroy(&p);
		CHECK_EQ(pmr_dereg_mr(mr), 0);
		CHECK_EQ(pmr_dereg_mr(lmr), 0);
	}
}

int main(void)
{
	vt_open(&v);
	pd_busy();
	obj_args();
	reg_args();
	dereg_busy();
	for (int op = 0; op < NOPS; op++)
		for (int c = 0; c < NCASES; c++)
			remote_case((enum op)op, (enum rcase)c);
	local_cases();
	responder_errors();
	key_reuse();
	mr_table_full();
	vt_close(&v);
	return vt_exit();
}
