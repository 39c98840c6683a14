/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RC data path on the loopback device: SEND / RECV of several sizes with
 * several SGEs, immediates, RDMA WRITE (with immediate), READ, atomics,
 * inline, signaling, and the error paths (receive too small, RNR, retry
 * exhausted).
 */
#include <arpa/inet.h>

#include "vt.h"

#define BUFSZ ((2u << 20) + 65536u)

static struct vt v;
static uint8_t *sbuf, *dbuf;
static struct pmr_mr *smr, *dmr;
static const int all_access = PMR_ACCESS_LOCAL_WRITE |
	PMR_ACCESS_REMOTE_WRITE | PMR_ACCESS_REMOTE_READ |
	PMR_ACCESS_REMOTE_ATOMIC;

static uint8_t pat(size_t i, unsigned seed)
{
	return (uint8_t)(i * 131u + seed * 7u + (i >> 9));
}

static void fresh(struct vt_pair *p, const struct vt_opts *o, int sig_all)
{
	vt_pair(&v, PMR_QPT_RC, o, sig_all, p);
}

static void gone(struct vt_pair *p)
{
	vt_async_drain(&v);
	vt_pair_destroy(p);
}

static void post_recv_ok(struct pmr_qp *qp, uint64_t id, struct pmr_sge *sge,
			 int n)
{
	struct pmr_recv_wr r = vt_rwr(id, sge, n);

	CHECK_EQ(vt_post_recv1(qp, &r), 0);
}

/* SEND `len` bytes as 3 source SGEs into 4 receive SGEs with gaps. */
static void send_recv(struct vt_pair *p, uint32_t len, unsigned seed,
		      bool imm)
{
	struct pmr_sge ss[3], rs[4];
	struct pmr_send_wr w;
	struct pmr_wc wc;
	uint32_t part = len / 3, cap = len / 4 + 64, off = 0;
	size_t k = 0;

	memset(dbuf, 0xee, len + 4 * 64 + 4 * 16 + 64);
	for (int i = 0; i < 4; i++)
		rs[i] = (struct pmr_sge){ (uintptr_t)dbuf + i * (cap + 16), cap,
					  dmr->lkey };
	post_recv_ok(p->qp[1], 500 + seed, rs, 4);

	for (int i = 0; i < 3; i++) {
		uint32_t l = i < 2 ? part : len - 2 * part;

		ss[i] = (struct pmr_sge){ (uintptr_t)sbuf + off, l, smr->lkey };
		for (uint32_t j = 0; j < l; j++)
			sbuf[off + j] = pat(k++, seed);
		off += l + 7;
	}
	w = vt_swr(seed, imm ? PMR_WR_SEND_WITH_IMM : PMR_WR_SEND, ss,
		   len ? 3 : 0, PMR_SEND_SIGNALED);
	w.imm_data = htonl(0x12345678u + seed);
	CHECK_EQ(vt_post_send1(p->qp[0], &w), 0);

	vt_poll1(p->scq[0], &wc);
	CHECK_WC(wc, PMR_WC_SUCCESS);
	CHECK_EQ(wc.wr_id, seed);
	CHECK_EQ(wc.opcode, PMR_WC_SEND);
	CHECK_EQ(wc.qp_num, p->qp[0]->qp_num);

	vt_poll1(p->rcq[1], &wc);
	CHECK_WC(wc, PMR_WC_SUCCESS);
	CHECK_EQ(wc.wr_id, 500 + seed);
	CHECK_EQ(wc.opcode, PMR_WC_RECV);
	CHECK(wc.opcode & PMR_WC_RECV);
	CHECK_EQ(wc.byte_len, len);
	CHECK_EQ(wc.qp_num, p->qp[1]->qp_num);
	CHECK_EQ(wc.src_qp, p->qp[0]->qp_num);
	if (imm) {
		CHECK_EQ(wc.wc_flags, PMR_WC_WITH_IMM);
		CHECK_EQ(wc.imm_data, htonl(0x12345678u + seed));
	} else {
		CHECK_EQ(wc.wc_flags, 0);
	}
	/* contents, scattered over the 4 SGEs; everything else untouched */
	k = 0;
	for (int i = 0; i < 4; i++) {
		uint8_t *b = dbuf + i * (cap + 16);

		for (uint32_t j = 0; j < cap + 16; j++) {
			if (j < cap && k < len) {
				if (b[j] != pat(k, seed)) {
					fprintf(stderr, "len %u: byte %zu wrong\n",
						len, k);
					CHECK(0);
				}
				k++;
			} else if (b[j] != 0xee) {
				fprintf(stderr, "len %u: sge %d byte %u written\n",
					len, i, j);
				CHECK(0);
			}
		}
	}
	CHECK_EQ(k, len);
	CHECK_EQ(vt_count(p->rcq[1], 0), 0);
	CHECK_EQ(vt_count(p->scq[0], 0), 0);
}

static void sends(void)
{
	static const uint32_t sizes[] = { 0, 1, 4095, 4096, 4097, 1u << 20 };
	struct vt_opts o = vt_opts_default();
	struct vt_pair p;

	fresh(&p, &o, 0);
	for (unsigned i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		send_recv(&p, sizes[i], i + 1, false);
	send_recv(&p, 300, 20, true);
	send_recv(&p, 0, 21, true);
	CHECK_EQ(vt_state(p.qp[0]), PMR_QPS_RTS);
	CHECK_EQ(vt_state(p.qp[1]), PMR_QPS_RTS);
	gone(&p);
}

static void rdma(void)
{
	struct vt_opts o = vt_opts_default();
	struct vt_pair p;
	struct pmr_sge s[2], rs;
	struct pmr_send_wr w;
	struct pmr_wc wc;
	uint64_t *loc, *tgt;

	fresh(&p, &o, 0);
	/* WRITE 10000 bytes at dbuf + 100 from 2 SGEs */
	memset(dbuf, 0xee, 20000);
	for (int i = 0; i < 10000; i++)
		sbuf[i] = pat((size_t)i, 3);
	s[0] = (struct pmr_sge){ (uintptr_t)sbuf, 3000, smr->lkey };
	s[1] = (struct pmr_sge){ (uintptr_t)sbuf + 3000, 7000, smr->lkey };
	w = vt_swr(1, PMR_WR_RDMA_WRITE, s, 2, PMR_SEND_SIGNALED);
	w.wr.rdma.remote_addr = (uintptr_t)dbuf + 100;
	w.wr.rdma.rkey = dmr->rkey;
	CHECK_EQ(vt_post_send1(p.qp[0], &w), 0);
	vt_poll1(p.scq[0], &wc);
	CHECK_WC(wc, PMR_WC_SUCCESS);
	CHECK_EQ(wc.opcode, PMR_WC_RDMA_WRITE);
	CHECK_EQ(wc.wr_id, 1);
	for (int i = 0; i < 20000; i++)
		CHECK_EQ(dbuf[i], (i >= 100 && i < 10100) ?
			 pat((size_t)i - 100, 3) : 0xee);
	CHECK_EQ(vt_count(p.rcq[1], 0), 0);   /* a WRITE consumes no receive */

	/* WRITE_WITH_IMM: consumes a receive whose buffer stays untouched */
	memset(dbuf + 30000, 0xab, 256);
	rs = (struct pmr_sge){ (uintptr_t)dbuf + 30000, 256, dmr->lkey };
	post_recv_ok(p.qp[1], 77, &rs, 1);
	s[0] = (struct pmr_sge){ (uintptr_t)sbuf + 5, 100, smr->lkey };
	w = vt_swr(2, PMR_WR_RDMA_WRITE_WITH_IMM, s, 1, PMR_SEND_SIGNALED);
	w.imm_data = htonl(0xdeadbeef);
	w.wr.rdma.remote_addr = (uintptr_t)dbuf + 40000;
	w.wr.rdma.rkey = dmr->rkey;
	CHECK_EQ(vt_post_send1(p.qp[0], &w), 0);
	vt_poll1(p.scq[0], &wc);
	CHECK_WC(wc, PMR_WC_SUCCESS);
	CHECK_EQ(wc.opcode, PMR_WC_RDMA_WRITE);
	vt_poll1(p.rcq[1], &wc);
	CHECK_WC(wc, PMR_WC_SUCCESS);
	CHECK_EQ(wc.wr_id, 77);
	CHECK_EQ(wc.opcode, PMR_WC_RECV_RDMA_WITH_IMM);
	CHECK_EQ(wc.byte_len, 100);
	CHECK_EQ(wc.imm_data, htonl(0xdeadbeef));
	CHECK(wc.wc_flags & PMR_WC_WITH_IMM);
	CHECK_EQ(wc.src_qp, p.qp[0]->qp_num);
	CHECK(memcmp(dbuf + 40000, sbuf + 5, 100) == 0);
	for (int i = 0; i < 256; i++)
		CHECK_EQ(dbuf[30000 + i], 0xab);

	/* READ 5000 bytes into 2 local SGEs */
	for (int i = 0; i < 5000; i++)
		dbuf[50000 + i] = pat((size_t)i, 9);
	memset(sbuf, 0, 8000);
	s[0] = (struct pmr_sge){ (uintptr_t)sbuf, 1000, smr->lkey };
	s[1] = (struct pmr_sge){ (uintptr_t)sbuf + 2000, 4000, smr->lkey };
	w = vt_swr(3, PMR_WR_RDMA_READ, s, 2, PMR_SEND_SIGNALED);
	w.wr.rdma.remote_addr = (uintptr_t)dbuf + 50000;
	w.wr.rdma.rkey = dmr->rkey;
	CHECK_EQ(vt_post_send1(p.qp[0], &w), 0);
	vt_poll1(p.scq[0], &wc);
	CHECK_WC(wc, PMR_WC_SUCCESS);
	CHECK_EQ(wc.opcode, PMR_WC_RDMA_READ);
	CHECK_EQ(wc.byte_len, 5000);
	for (int i = 0; i < 1000; i++)
		CHECK_EQ(sbuf[i], pat((size_t)i, 9));
	for (int i = 1000; i < 2000; i++)
		CHECK_EQ(sbuf[i], 0);
	for (int i = 0; i < 4000; i++)
		CHECK_EQ(sbuf[2000 + i], pat((size_t)i + 1000, 9));
	CHECK_EQ(sbuf[6000], 0);

	/* atomics */
	tgt = (uint64_t *)(void *)(dbuf + 60000);
	loc = (uint64_t *)(void *)(sbuf + 60000);
	*tgt = 5;
	*loc = 0;
	s[0] = (struct pmr_sge){ (uintptr_t)loc, 8, smr->lkey };
	w = vt_swr(4, PMR_WR_ATOMIC_CMP_AND_SWP, s, 1, PMR_SEND_SIGNALED);
	w.wr.atomic.remote_addr = (uintptr_t)tgt;
	w.wr.atomic.rkey = dmr->rkey;
	w.wr.atomic.compare_add = 5;
	w.wr.atomic.swap = 9;
	CHECK_EQ(vt_post_send1(p.qp[0], &w), 0);
	vt_poll1(p.scq[0], &wc);
	CHECK_WC(wc, PMR_WC_SUCCESS);
	CHECK_EQ(wc.opcode, PMR_WC_COMP_SWAP);
	CHECK_EQ(wc.byte_len, 8);
	CHECK_EQ(*loc, 5);
	CHECK_EQ(*tgt, 9);
	w.wr_id = 5;
	w.wr.atomic.compare_add = 1;   /* not equal: no swap */
	w.wr.atomic.swap = 7;
	CHECK_EQ(vt_post_send1(p.qp[0], &w), 0);
	vt_poll1(p.scq[0], &wc);
	CHECK_WC(wc, PMR_WC_SUCCESS);
	CHECK_EQ(*loc, 9);
	CHECK_EQ(*tgt, 9);
	w = vt_swr(6, PMR_WR_ATOMIC_FETCH_AND_ADD, s, 1, PMR_SEND_SIGNALED);
	w.wr.atomic.remote_addr = (uintptr_t)tgt;
	w.wr.atomic.rkey = dmr->rkey;
	w.wr.atomic.compare_add = 10;
	CHECK_EQ(vt_post_send1(p.qp[0], &w), 0);
	vt_poll1(p.scq[0], &wc);
	CHECK_WC(wc, PMR_WC_SUCCESS);
	CHECK_EQ(wc.opcode, PMR_WC_FETCH_ADD);
	CHECK_EQ(wc.byte_len, 8);
	CHECK_EQ(*loc, 9);
	CHECK_EQ(*tgt, 19);
	CHECK_EQ(vt_async_drain(&v), 0);
	gone(&p);
}

/* Atomic errors: length != 8 -> LOC_LEN_ERR; misaligned -> REM_INV_REQ. */
static void atomic_errors(void)
{
	struct vt_opts o = vt_opts_default();
	struct vt_pair p;
	struct pmr_sge s;
	struct pmr_send_wr w;
	struct pmr_wc wc;
	struct pmr_async_event ev;
	uint64_t *tgt = (uint64_t *)(void *)(dbuf + 60000);

	for (int k = 0; k < 2; k++) {
		fresh(&p, &o, 0);
		*tgt = 100;
		s = (struct pmr_sge){ (uintptr_t)sbuf, k == 0 ? 4 : 8, smr->lkey };
		w = vt_swr(1, PMR_WR_ATOMIC_FETCH_AND_ADD, &s, 1,
			   PMR_SEND_SIGNALED);
		w.wr.atomic.remote_addr = (uintptr_t)tgt + (k == 0 ? 0 : 4);
		w.wr.atomic.rkey = dmr->rkey;
		w.wr.atomic.compare_add = 1;
		CHECK_EQ(vt_post_send1(p.qp[0], &w), 0);
		vt_poll1(p.scq[0], &wc);
		CHECK_WC(wc, k == 0 ? PMR_WC_LOC_LEN_ERR : PMR_WC_REM_INV_REQ_ERR);
		CHECK_EQ(wc.wr_id, 1);
		CHECK_EQ(*tgt, 100);
		CHECK_EQ(vt_state(p.qp[0]), PMR_QPS_ERR);
		if (k == 1) {
			CHECK_EQ(vt_state(p.qp[1]), PMR_QPS_ERR);
			CHECK_EQ(vt_async(&v, &ev), 0);
			CHECK_EQ(ev.event_type, PMR_EVENT_QP_REQ_ERR);
			CHECK(ev.element.qp == p.qp[1]);
		} else {
			CHECK_EQ(vt_state(p.qp[1]), PMR_QPS_RTS);
		}
		CHECK_EQ(vt_async_drain(&v), 0);
		gone(&p);
	}
}

/* A context of its own with one CQ, an MR over buf and two RC QPs a and
 * b connected to each other; its progress mode set first unless INLINE
 * (the default). */
struct own_ctx {
	struct pmr_context *ctx;
	struct pmr_pd *pd;
	struct pmr_cq *cq;
	struct pmr_mr *mr;
	struct pmr_qp *a, *b;
};

static void own_ctx_open(struct own_ctx *c, enum pmr_progress_mode mode,
			 void *buf, size_t len)
{
	struct vt_opts o = vt_opts_default();

	c->ctx = pmr_open_device(v.dev);
	CHECK(c->ctx != NULL);
	if (mode != PMR_PROGRESS_INLINE)
		CHECK_EQ(pmr_set_progress_mode(c->ctx, mode), 0);
	c->pd = pmr_alloc_pd(c->ctx);
	CHECK(c->pd != NULL);
	c->cq = pmr_create_cq(c->ctx, 64, NULL, NULL, 0);
	CHECK(c->cq != NULL);
	c->mr = vt_mr(c->pd, buf, len, all_access);
	c->a = vt_qp(c->pd, PMR_QPT_RC, c->cq, c->cq, 8, 0);
	c->b = vt_qp(c->pd, PMR_QPT_RC, c->cq, c->cq, 8, 0);
	vt_connect(&v, c->a, c->b->qp_num, &o);
	vt_connect(&v, c->b, c->a->qp_num, &o);
}

static void own_ctx_close(struct own_ctx *c)
{
	CHECK_EQ(pmr_destroy_qp(c->a), 0);
	CHECK_EQ(pmr_destroy_qp(c->b), 0);
	CHECK_EQ(pmr_dereg_mr(c->mr), 0);
	CHECK_EQ(pmr_destroy_cq(c->cq), 0);
	CHECK_EQ(pmr_dealloc_pd(c->pd), 0);
	CHECK_EQ(pmr_close_device(c->ctx), 0);
}

/* Inline SEND and WRITE: the source may change right after the post; it
 * need not be registered.  Manual progress proves the copy is taken at
 * post time. */
static void inline_data(void)
{
	struct own_ctx c;
	static uint8_t rbuf[256];
	uint8_t msg[48];
	struct pmr_sge s, rs;
	struct pmr_send_wr w;
	struct pmr_recv_wr r;
	struct pmr_wc wc[4];
	int n = 0;

	own_ctx_open(&c, PMR_PROGRESS_MANUAL, rbuf, sizeof(rbuf));
	memset(rbuf, 0, sizeof(rbuf));
	rs = (struct pmr_sge){ (uintptr_t)rbuf, 64, c.mr->lkey };
	r = vt_rwr(9, &rs, 1);
	CHECK_EQ(vt_post_recv1(c.b, &r), 0);

	memset(msg, 'S', sizeof(msg));
	s = (struct pmr_sge){ (uintptr_t)msg, 40, 0 /* not registered */ };
	w = vt_swr(1, PMR_WR_SEND, &s, 1, PMR_SEND_SIGNALED | PMR_SEND_INLINE);
	CHECK_EQ(vt_post_send1(c.a, &w), 0);
	memset(msg, 'W', sizeof(msg));
	w = vt_swr(2, PMR_WR_RDMA_WRITE, &s, 1,
		   PMR_SEND_SIGNALED | PMR_SEND_INLINE);
	w.wr.rdma.remote_addr = (uintptr_t)rbuf + 100;
	w.wr.rdma.rkey = c.mr->rkey;
	CHECK_EQ(vt_post_send1(c.a, &w), 0);
	memset(msg, 'X', sizeof(msg));
	for (int i = 0; i < 100 && n < 3; i++) {
		int k;

		pmr_progress(c.ctx, 32);
		k = pmr_poll_cq(c.cq, 4 - n, wc + n);
		CHECK(k >= 0);
		n += k;
	}
	CHECK_EQ(n, 3);
	for (int i = 0; i < 3; i++)
		CHECK_WC(wc[i], PMR_WC_SUCCESS);
	for (int i = 0; i < 40; i++) {
		CHECK_EQ(rbuf[i], 'S');
		CHECK_EQ(rbuf[100 + i], 'W');
	}
	CHECK_EQ(rbuf[40], 0);
	CHECK_EQ(rbuf[140], 0);
	own_ctx_close(&c);
}

/* Progress stopped with QPs: a context that ran inline goes to manual
 * progress (the only change taken once it has QPs); a WRITE posted then
 * executes at pmr_progress only, however long the CQ is polled. */
static void progress_stopped(void)
{
	struct own_ctx c;
	static uint8_t src[16], dst[16];
	struct pmr_sge s;
	struct pmr_send_wr w;
	struct pmr_wc wc;
	int n = 0;

	own_ctx_open(&c, PMR_PROGRESS_INLINE, dst, sizeof(dst));
	s = (struct pmr_sge){ (uintptr_t)src, sizeof(src), 0 };
	for (int k = 0; k < 2; k++) {
		memset(src, 'A' + k, sizeof(src));
		w = vt_swr((uint64_t)k, PMR_WR_RDMA_WRITE, &s, 1,
			   PMR_SEND_SIGNALED | PMR_SEND_INLINE);
		w.wr.rdma.remote_addr = (uintptr_t)dst;
		w.wr.rdma.rkey = c.mr->rkey;
		CHECK_EQ(vt_post_send1(c.a, &w), 0);
		if (k == 0) {
			/* inline: the post or the poll runs the engine */
			vt_poll1(c.cq, &wc);
			CHECK_WC(wc, PMR_WC_SUCCESS);
			CHECK_EQ(dst[0], 'A');
			CHECK_EQ(pmr_set_progress_mode(c.ctx,
						       PMR_PROGRESS_MANUAL), 0);
			CHECK_EQ(pmr_set_progress_mode(c.ctx,
						       PMR_PROGRESS_INLINE), EBUSY);
		}
	}
	CHECK_EQ(vt_count(c.cq, 50), 0);
	CHECK_EQ(dst[0], 'A');
	for (int i = 0; i < 100 && n == 0; i++) {
		CHECK(pmr_progress(c.ctx, 32) >= 0);
		n = pmr_poll_cq(c.cq, 1, &wc);
		CHECK(n >= 0);
	}
	CHECK_EQ(n, 1);
	CHECK_WC(wc, PMR_WC_SUCCESS);
	CHECK_EQ(wc.wr_id, 1u);
	CHECK_EQ(dst[0], 'B');
	own_ctx_close(&c);
}

static struct pmr_send_wr write_wr(uint64_t id, struct pmr_sge *s,
				   unsigned int flags)
{
	struct pmr_send_wr w;

	*s = (struct pmr_sge){ (uintptr_t)sbuf, 16, smr->lkey };
	w = vt_swr(id, PMR_WR_RDMA_WRITE, s, 1, flags);
	w.wr.rdma.remote_addr = (uintptr_t)dbuf;
	w.wr.rdma.rkey = dmr->rkey;
	return w;
}

/* sq_sig_all 0: unsignaled WRs give nothing; 1: every WR completes. */
static void signaling(void)
{
	struct vt_opts o = vt_opts_default();
	struct vt_pair p;
	struct pmr_sge s[4];
	struct pmr_send_wr w[4], *bad;
	struct pmr_wc wc[8];
	int n;

	for (int all = 0; all < 2; all++) {
		fresh(&p, &o, all);
		for (int i = 0; i < 4; i++) {
			w[i] = write_wr(10 + (uint64_t)i, &s[i],
					i == 3 && !all ? PMR_SEND_SIGNALED : 0);
			w[i].next = i < 3 ? &w[i + 1] : NULL;
		}
		if (all)
			w[3].next = NULL;
		bad = NULL;
		CHECK_EQ(pmr_post_send(p.qp[0], &w[0], &bad), 0);
		/* the completions expected, then nothing more */
		n = vt_poll(p.scq[0], all ? 4 : 1, wc, 2000);
		CHECK_EQ(vt_count(p.scq[0], 20), 0);
		if (all) {
			CHECK_EQ(n, 4);
			for (int i = 0; i < 4; i++) {
				CHECK_EQ(wc[i].wr_id, 10 + (uint64_t)i);
				CHECK_WC(wc[i], PMR_WC_SUCCESS);
			}
		} else {
			CHECK_EQ(n, 1);
			CHECK_EQ(wc[0].wr_id, 13);
			CHECK_WC(wc[0], PMR_WC_SUCCESS);
		}
		gone(&p);
	}
}

/* Receive too small: receiver LOC_LEN_ERR, sender REM_INV_REQ_ERR, both
 * QPs in ERR, everything else flushed. */
static void recv_too_small(void)
{
	struct vt_opts o = vt_opts_default();
	struct vt_pair p;
	struct pmr_sge s, rs[2];
	struct pmr_send_wr w;
	struct pmr_wc wc[4];

	fresh(&p, &o, 0);
	rs[0] = (struct pmr_sge){ (uintptr_t)dbuf, 10, dmr->lkey };
	rs[1] = (struct pmr_sge){ (uintptr_t)dbuf + 100, 1000, dmr->lkey };
	post_recv_ok(p.qp[1], 1, &rs[0], 1);
	post_recv_ok(p.qp[1], 2, &rs[1], 1);
	s = (struct pmr_sge){ (uintptr_t)sbuf, 100, smr->lkey };
	w = vt_swr(7, PMR_WR_SEND, &s, 1, 0);  /* unsignaled: still reported */
	CHECK_EQ(vt_post_send1(p.qp[0], &w), 0);
	CHECK_EQ(vt_poll(p.scq[0], 1, wc, 2000), 1);
	CHECK_WC(wc[0], PMR_WC_REM_INV_REQ_ERR);
	CHECK_EQ(wc[0].wr_id, 7);
	CHECK_EQ(wc[0].qp_num, p.qp[0]->qp_num);
	CHECK_EQ(vt_poll(p.rcq[1], 2, wc, 2000), 2);
	CHECK_WC(wc[0], PMR_WC_LOC_LEN_ERR);
	CHECK_EQ(wc[0].wr_id, 1);
	CHECK_EQ(wc[0].qp_num, p.qp[1]->qp_num);
	CHECK_WC(wc[1], PMR_WC_WR_FLUSH_ERR);
	CHECK_EQ(wc[1].wr_id, 2);
	CHECK_EQ(vt_state(p.qp[0]), PMR_QPS_ERR);
	CHECK_EQ(vt_state(p.qp[1]), PMR_QPS_ERR);
	/* later WRs on either side are flushed */
	w.wr_id = 8;
	CHECK_EQ(vt_post_send1(p.qp[0], &w), 0);
	vt_poll1(p.scq[0], wc);
	CHECK_WC(wc[0], PMR_WC_WR_FLUSH_ERR);
	CHECK_EQ(wc[0].wr_id, 8);
	post_recv_ok(p.qp[1], 3, &rs[1], 1);
	vt_poll1(p.rcq[1], wc);
	CHECK_WC(wc[0], PMR_WC_WR_FLUSH_ERR);
	CHECK_EQ(wc[0].wr_id, 3);
	CHECK_EQ(vt_count(p.rcq[0], 5), 0);
	gone(&p);
}

static void rnr(void)
{
	struct vt_opts o = vt_opts_default();
	struct vt_pair p;
	struct pmr_sge s, rs;
	struct pmr_send_wr w;
	struct pmr_wc wc;
	uint64_t t0;

	/* rnr_retry 0: RNR_RETRY_EXC_ERR quickly, then flushes */
	o.rnr_retry = 0;
	fresh(&p, &o, 0);
	s = (struct pmr_sge){ (uintptr_t)sbuf, 10, smr->lkey };
	w = vt_swr(1, PMR_WR_SEND, &s, 1, PMR_SEND_SIGNALED);
	t0 = vt_now_ms();
	CHECK_EQ(vt_post_send1(p.qp[0], &w), 0);
	w.wr_id = 2;
	CHECK_EQ(vt_post_send1(p.qp[0], &w), 0);
	vt_poll1(p.scq[0], &wc);
	CHECK(vt_now_ms() - t0 < 500);
	CHECK_WC(wc, PMR_WC_RNR_RETRY_EXC_ERR);
	CHECK_EQ(wc.wr_id, 1);
	vt_poll1(p.scq[0], &wc);
	CHECK_WC(wc, PMR_WC_WR_FLUSH_ERR);
	CHECK_EQ(wc.wr_id, 2);
	CHECK_EQ(vt_state(p.qp[0]), PMR_QPS_ERR);
	CHECK_EQ(vt_state(p.qp[1]), PMR_QPS_RTS);
	gone(&p);

	/* rnr_retry 7 (forever), min_rnr_timer 1: waits, then succeeds */
	o = vt_opts_default();
	o.rnr_retry = 7;
	o.min_rnr_timer = 1;
	fresh(&p, &o, 0);
	w.wr_id = 3;
	CHECK_EQ(vt_post_send1(p.qp[0], &w), 0);
	CHECK_EQ(vt_count(p.scq[0], 20), 0);
	CHECK_EQ(vt_count(p.rcq[1], 0), 0);
	memset(dbuf, 0, 16);
	memset(sbuf, 0x5c, 10);
	rs = (struct pmr_sge){ (uintptr_t)dbuf, 64, dmr->lkey };
	post_recv_ok(p.qp[1], 4, &rs, 1);
	vt_poll1(p.scq[0], &wc);
	CHECK_WC(wc, PMR_WC_SUCCESS);
	CHECK_EQ(wc.wr_id, 3);
	vt_poll1(p.rcq[1], &wc);
	CHECK_WC(wc, PMR_WC_SUCCESS);
	CHECK_EQ(wc.byte_len, 10);
	CHECK_EQ(dbuf[9], 0x5c);
	CHECK_EQ(dbuf[10], 0);
	gone(&p);
}

/* Peer QP destroyed / in ERR: timeout 1, retry_cnt 2 -> RETRY_EXC_ERR. */
static void retry(void)
{
	for (int k = 0; k < 2; k++) {
		struct vt_opts o = vt_opts_default();
		struct vt_pair p;
		struct pmr_sge s[3];
		struct pmr_send_wr w[3], *bad;
		struct pmr_wc wc[4];
		uint64_t t0;

		o.timeout = 1;
		o.retry_cnt = 2;
		fresh(&p, &o, 0);
		if (k == 0) {
			CHECK_EQ(pmr_destroy_qp(p.qp[1]), 0);
			p.qp[1] = vt_qp(v.pd, PMR_QPT_RC, p.scq[1], p.rcq[1], 8, 0);
		} else {
			struct pmr_qp_attr a;

			memset(&a, 0, sizeof(a));
			a.qp_state = PMR_QPS_ERR;
			CHECK_EQ(pmr_modify_qp(p.qp[1], &a, PMR_QP_STATE), 0);
		}
		for (int i = 0; i < 3; i++) {
			w[i] = write_wr(20 + (uint64_t)i, &s[i], PMR_SEND_SIGNALED);
			w[i].next = i < 2 ? &w[i + 1] : NULL;
		}
		w[0].send_flags = 0;    /* the failing WR reports anyway */
		t0 = vt_now_ms();
		CHECK_EQ(pmr_post_send(p.qp[0], &w[0], &bad), 0);
		CHECK_EQ(vt_poll(p.scq[0], 3, wc, 2000), 3);
		CHECK(vt_now_ms() - t0 < 1000);
		CHECK_WC(wc[0], PMR_WC_RETRY_EXC_ERR);
		CHECK_EQ(wc[0].wr_id, 20);
		CHECK_WC(wc[1], PMR_WC_WR_FLUSH_ERR);
		CHECK_EQ(wc[1].wr_id, 21);
		CHECK_WC(wc[2], PMR_WC_WR_FLUSH_ERR);
		CHECK_EQ(wc[2].wr_id, 22);
		CHECK_EQ(vt_state(p.qp[0]), PMR_QPS_ERR);
		gone(&p);
	}
}

int main(void)
{
	vt_open(&v);
	sbuf = malloc(BUFSZ);
	dbuf = malloc(BUFSZ);
	CHECK(sbuf != NULL && dbuf != NULL);
	smr = vt_mr(v.pd, sbuf, BUFSZ, PMR_ACCESS_LOCAL_WRITE);
	dmr = vt_mr(v.pd, dbuf, BUFSZ, all_access);

	sends();
	rdma();
	atomic_errors();
	inline_data();
	progress_stopped();
	signaling();
	recv_too_small();
	rnr();
	retry();

	CHECK_EQ(pmr_dereg_mr(smr), 0);
	CHECK_EQ(pmr_dereg_mr(dmr), 0);
	vt_close(&v);
	free(sbuf);
	free(dbuf);
	return vt_exit();
}
