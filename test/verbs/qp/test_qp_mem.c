/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pmr_query_qp_mem: the memory a QP holds.
 *  - NULL arguments: EINVAL, nothing written;
 *  - every field equals the formula of doc/guides/verbs.rst ("Memory of a
 *    QP"), whose constants are repeated here: a change to a structure's
 *    size fails this test until the guide gives the new figure;
 *  - the report is true: creating QPs grows the C heap by at least what
 *    they report and by at most the allocator's overhead more (48 bytes
 *    an allocation), and destroying them gives all of it back;
 *  - traffic allocates nothing: the heap is the same before and after
 *    rounds of SEND, WRITE and READ between two QPs of the device, and
 *    around SENDs to a peer that does not exist (timeouts, retries, the
 *    retry error, a flush, ERR, back to RESET).
 * Runs on the first device: the loopback device in the fast suite, a RoCE
 * device on a net_ring port that receives its own frames in the func
 * suite (test qp_mem_roce, run by ring.sh).  glibc's per-thread cache
 * must be off (GLIBC_TUNABLES=glibc.malloc.tcache_count=0, as meson and
 * the script set it): mallinfo2 counts the chunks it holds as in use.
 * Under ASan the sanitizer's own count of allocated bytes is read
 * instead.
 */
#include <malloc.h>

#include <pmr_roce.h>

#include "vt.h"

/* The formula's constants (doc/guides/verbs.rst): the structure sizes
 * on x86-64.  Elsewhere the test is skipped (exit 77). */
#define QP_OBJECT 768u        /* the verbs QP object */
#define SWQE_HDR 72u          /* send slot header */
#define RWQE_HDR 16u          /* receive slot header */
#define SGE_BYTES 16u         /* one scatter/gather entry */
#define ROCE_QP 1152u         /* RoCE: the QP's state */
#define ROCE_PER_SWQE 24u     /* RoCE: per send slot */
#define LOOP_QP 16u           /* loopback: the QP's state */
/* The allocator's cost per allocation at most: glibc's chunk header and
 * rounding, and for 64-byte aligned blocks the alignment slack (about 20
 * bytes an allocation measured). */
#define ALLOC_SLACK 48u
/* Allocations a QP makes: the object and its two rings (one with an SRQ),
 * and the driver's: RoCE two (its state and its send slots), loopback
 * one. */
#define QP_ALLOCS 3u
#define ROCE_ALLOCS 2u
#define LOOP_ALLOCS 1u

/* ASan's allocator bypasses glibc's, so mallinfo2 does not see it: ask
 * the sanitizer instead (the bytes asked for, without overhead). */
#if defined(__SANITIZE_ADDRESS__)
#define HEAP_BY_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HEAP_BY_ASAN 1
#endif
#endif
#ifdef HEAP_BY_ASAN
size_t __sanitizer_get_current_allocated_bytes(void);
#endif

static struct vt v;
static bool roce;

static uint32_t pow2_at_least(uint32_t n)
{
	uint32_t p = 1;

	while (p < n)
		p <<= 1;
	return p;
}

static uint32_t line_up(uint32_t n)
{
	return (n + 63u) & ~63u;
}

struct shape {
	enum pmr_qp_type type;
	uint32_t swr, rwr, ssge, rsge, inl;
	bool srq;
	size_t roce_total;    /* the guide's example on RoCE; 0: none */
};

/* The guide's formula for shape s on a RoCE device (on_roce) or loopback. */
static struct pmr_qp_mem formula(const struct shape *s, bool on_roce)
{
	struct pmr_qp_mem m;
	uint32_t sbody = SGE_BYTES * (s->ssge ? s->ssge : 1);

	memset(&m, 0, sizeof(m));
	if (s->inl > sbody)
		sbody = s->inl;
	m.object = QP_OBJECT;
	m.sq_slots = pow2_at_least(s->swr);
	m.sq_slot = line_up(SWQE_HDR + sbody);
	m.sq = (size_t)m.sq_slots * m.sq_slot;
	if (!s->srq) {
		m.rq_slots = pow2_at_least(s->rwr);
		m.rq_slot = line_up(RWQE_HDR +
				    SGE_BYTES * (s->rsge ? s->rsge : 1));
		m.rq = (size_t)m.rq_slots * m.rq_slot;
	}
	m.device = on_roce ? ROCE_QP + (size_t)ROCE_PER_SWQE * m.sq_slots :
			     LOOP_QP;
	m.total = m.object + m.sq + m.rq + m.device;
	return m;
}

static struct pmr_qp *create(const struct shape *s, struct pmr_cq *cq,
			     struct pmr_srq *srq)
{
	struct pmr_qp_init_attr ia;
	struct pmr_qp *qp;

	memset(&ia, 0, sizeof(ia));
	ia.send_cq = cq;
	ia.recv_cq = cq;
	ia.qp_type = s->type;
	ia.srq = s->srq ? srq : NULL;
	ia.cap.max_send_wr = s->swr;
	ia.cap.max_recv_wr = s->srq ? 0 : s->rwr;
	ia.cap.max_send_sge = s->ssge;
	ia.cap.max_recv_sge = s->srq ? 0 : s->rsge;
	ia.cap.max_inline_data = s->inl;
	qp = pmr_create_qp(v.pd, &ia);
	CHECK(qp != NULL);
	CHECK_EQ(ia.cap.max_send_wr, pow2_at_least(s->swr));
	return qp;
}

static void check_shape(const struct shape *s, struct pmr_cq *cq,
			struct pmr_srq *srq)
{
	struct pmr_qp_mem want = formula(s, roce), got;
	struct pmr_qp *qp = create(s, cq, srq);

	CHECK_EQ(pmr_query_qp_mem(qp, &got), 0);
	EXPECT_EQ_MSG(got.object, want.object, "wr %u/%u", s->swr, s->rwr);
	EXPECT_EQ_MSG(got.sq_slots, want.sq_slots, "send wr %u", s->swr);
	EXPECT_EQ_MSG(got.sq_slot, want.sq_slot, "sge %u inline %u", s->ssge,
		      s->inl);
	EXPECT_EQ_MSG(got.sq, want.sq, "send wr %u", s->swr);
	EXPECT_EQ_MSG(got.rq_slots, want.rq_slots, "recv wr %u srq %d", s->rwr,
		      s->srq);
	EXPECT_EQ_MSG(got.rq_slot, want.rq_slot, "recv sge %u srq %d", s->rsge,
		      s->srq);
	EXPECT_EQ_MSG(got.rq, want.rq, "recv wr %u srq %d", s->rwr, s->srq);
	EXPECT_EQ_MSG(got.device, want.device, "%s", roce ? "roce" : "loop");
	EXPECT_EQ(got.total, want.total);
	/* the guide's worked examples (RoCE figures), on any device */
	if (s->roce_total != 0)
		EXPECT_EQ(formula(s, true).total, s->roce_total);
	CHECK_EQ(pmr_destroy_qp(qp), 0);
}

static void check_errors(struct pmr_cq *cq)
{
	static const struct shape s = { PMR_QPT_RC, 4, 4, 1, 1, 0, false, 0 };
	struct pmr_qp *qp = create(&s, cq, NULL);
	struct pmr_qp_mem m, before;

	memset(&m, 0xab, sizeof(m));
	before = m;
	EXPECT_EQ(pmr_query_qp_mem(NULL, &m), EINVAL);
	EXPECT(memcmp(&m, &before, sizeof(m)) == 0);
	EXPECT_EQ(pmr_query_qp_mem(qp, NULL), EINVAL);
	CHECK_EQ(pmr_destroy_qp(qp), 0);
}

static size_t heap_in_use(void)
{
#ifdef HEAP_BY_ASAN
	return __sanitizer_get_current_allocated_bytes();
#else
	struct mallinfo2 mi = mallinfo2();

	return mi.uordblks + mi.hblkhd;     /* in the arenas and mmapped */
#endif
}

/* K QPs grow the heap by what they report, plus the allocator's slack at
 * most; destroying them gives it all back. */
static void check_heap(struct pmr_cq *cq)
{
	static const struct shape s = {
		PMR_QPT_RC, 64, 32, 2, 1, 128, false, 0
	};
	enum { K = 64 };
	struct pmr_qp *qps[K];
	struct pmr_qp_mem m;
	size_t before, grown, after, reported = 0;

	/* warm the allocator and the device's lazy state up first */
	CHECK_EQ(pmr_destroy_qp(create(&s, cq, NULL)), 0);
	before = heap_in_use();
	for (int i = 0; i < K; i++)
		qps[i] = create(&s, cq, NULL);
	grown = heap_in_use() - before;
	for (int i = 0; i < K; i++) {
		CHECK_EQ(pmr_query_qp_mem(qps[i], &m), 0);
		reported += m.total;
	}
	for (int i = 0; i < K; i++)
		CHECK_EQ(pmr_destroy_qp(qps[i]), 0);
	after = heap_in_use();
	printf("%d QPs: %zu bytes reported, the heap grew by %zu\n", K,
	       reported, grown);
	EXPECT(grown >= reported);
#ifdef HEAP_BY_ASAN
	EXPECT_EQ(grown, reported);     /* ASan counts the bytes asked for */
#endif
	EXPECT(grown <= reported + (size_t)K * ALLOC_SLACK *
	       (QP_ALLOCS + (roce ? ROCE_ALLOCS : LOOP_ALLOCS)));
	EXPECT_EQ(after, before);
}

/* A connected pair exchanges SENDs, WRITEs and READs; the heap stays
 * as it was. */
static void check_traffic(void)
{
	enum { ROUNDS = 50, LEN = 2048 };
	struct vt_opts o = vt_opts_default();
	struct vt_pair p;
	uint8_t *buf = calloc(1, 4 * LEN);
	struct pmr_mr *mr;
	struct pmr_wc wc;
	size_t before, after;
	struct pmr_roce_port_stats st0, st1;

	CHECK(buf != NULL);
	vt_pair(&v, PMR_QPT_RC, &o, 1, &p);
	mr = vt_mr(v.pd, buf, 4 * LEN, PMR_ACCESS_LOCAL_WRITE |
		   PMR_ACCESS_REMOTE_WRITE | PMR_ACCESS_REMOTE_READ);
	before = heap_in_use();
	if (roce)
		CHECK_EQ(pmr_roce_port_stats(v.dev, &st0), 0);
	for (int r = 0; r < ROUNDS; r++) {
		struct pmr_sge rs = { (uintptr_t)buf, LEN, mr->lkey };
		struct pmr_sge ss = { (uintptr_t)buf + LEN, LEN, mr->lkey };
		struct pmr_sge ws = { (uintptr_t)buf + 2 * LEN, LEN, mr->lkey };
		struct pmr_recv_wr rwr = vt_rwr(1, &rs, 1);
		struct pmr_send_wr w[3] = {
			vt_swr(10, PMR_WR_SEND, &ss, 1, 0),
			vt_swr(11, PMR_WR_RDMA_WRITE, &ws, 1, 0),
			vt_swr(12, PMR_WR_RDMA_READ, &ws, 1, 0),
		};

		w[1].wr.rdma.remote_addr = (uintptr_t)buf + 3 * LEN;
		w[1].wr.rdma.rkey = mr->rkey;
		w[2].wr.rdma.remote_addr = (uintptr_t)buf + 3 * LEN;
		w[2].wr.rdma.rkey = mr->rkey;
		CHECK_EQ(vt_post_recv1(p.qp[1], &rwr), 0);
		for (int i = 0; i < 3; i++) {
			CHECK_EQ(vt_post_send1(p.qp[0], &w[i]), 0);
			vt_poll1(p.scq[0], &wc);
			CHECK_EQ(wc.wr_id, 10u + (unsigned)i);
			CHECK_WC(wc, PMR_WC_SUCCESS);
		}
		vt_poll1(p.rcq[1], &wc);
		CHECK_WC(wc, PMR_WC_SUCCESS);
		CHECK_EQ(wc.byte_len, LEN);
	}
	after = heap_in_use();
	printf("traffic: %d rounds; heap in use %zu before, %zu after\n",
	       ROUNDS, before, after);
	EXPECT_EQ(after, before);
	if (roce) {
		/* the frames went through the port: SEND, WRITE, READ request
		 * and two READ responses a round, at least, each way */
		CHECK_EQ(pmr_roce_port_stats(v.dev, &st1), 0);
		printf("port: %lu frames sent, %lu received\n",
		       st1.tx_pkts - st0.tx_pkts, st1.rx_pkts - st0.rx_pkts);
		EXPECT(st1.tx_pkts - st0.tx_pkts >= 5u * ROUNDS);
		EXPECT(st1.rx_pkts - st0.rx_pkts >= 5u * ROUNDS);
	}
	CHECK_EQ(pmr_dereg_mr(mr), 0);
	vt_pair_destroy(&p);
	free(buf);
}

/* A QP whose peer does not exist: its SENDs time out, are sent again,
 * end in RETRY_EXC_ERR and flush the rest, and the QP moves to ERR and
 * back to RESET; the heap stays as it was. */
static void check_unanswered(struct pmr_cq *cq)
{
	struct vt_opts o = vt_opts_default();
	uint8_t buf[64] = { 0 };
	struct pmr_mr *mr = vt_mr(v.pd, buf, sizeof(buf), 0);
	struct pmr_qp *qp = vt_qp(v.pd, PMR_QPT_RC, cq, cq, 4, 1);
	struct pmr_sge sg = { (uintptr_t)buf, sizeof(buf), mr->lkey };
	struct pmr_send_wr w[2] = {
		vt_swr(20, PMR_WR_SEND, &sg, 1, 0),
		vt_swr(21, PMR_WR_SEND, &sg, 1, 0),
	};
	struct pmr_roce_port_stats st0, st1;
	struct pmr_qp_attr a;
	struct pmr_wc wc;
	size_t before, after;

	o.timeout = 8;          /* about 1 ms */
	o.retry_cnt = 2;
	/* the QP number after the last one made: nobody has it */
	vt_connect(&v, qp, qp->qp_num + 1, &o);
	before = heap_in_use();
	if (roce)
		CHECK_EQ(pmr_roce_port_stats(v.dev, &st0), 0);
	CHECK_EQ(vt_post_send1(qp, &w[0]), 0);
	CHECK_EQ(vt_post_send1(qp, &w[1]), 0);
	vt_poll1(cq, &wc);
	CHECK_EQ(wc.wr_id, 20);
	CHECK_WC(wc, PMR_WC_RETRY_EXC_ERR);
	vt_poll1(cq, &wc);
	CHECK_EQ(wc.wr_id, 21);
	CHECK_WC(wc, PMR_WC_WR_FLUSH_ERR);
	CHECK_EQ(vt_state(qp), PMR_QPS_ERR);
	memset(&a, 0, sizeof(a));
	a.qp_state = PMR_QPS_RESET;
	CHECK_EQ(pmr_modify_qp(qp, &a, PMR_QP_STATE), 0);
	after = heap_in_use();
	printf("unanswered: retries, error, flush, reset; heap in use %zu "
	       "before, %zu after\n", before, after);
	EXPECT_EQ(after, before);
	if (roce) {
		/* three tries, each dropped by this device for its unknown
		 * QP and timed out */
		CHECK_EQ(pmr_roce_port_stats(v.dev, &st1), 0);
		EXPECT_EQ(st1.timeouts - st0.timeouts, 3);
		EXPECT(st1.rx_drop_unknown_qp - st0.rx_drop_unknown_qp >= 3);
	}
	vt_async_drain(&v);
	CHECK_EQ(pmr_destroy_qp(qp), 0);
	CHECK_EQ(pmr_dereg_mr(mr), 0);
}

int main(void)
{
#if !defined(__x86_64__)
	puts("skipped: the formula's constants are x86-64's structure sizes");
	return 77;
#endif
	static const struct shape shapes[] = {
		{ PMR_QPT_RC, 1, 1, 1, 1, 0, false, 0 },
		{ PMR_QPT_RC, 0, 0, 0, 0, 0, false, 0 },     /* zeros: 1 */
		{ PMR_QPT_RC, 100, 30, 3, 2, 100, false, 0 },
		{ PMR_QPT_RC, 128, 512, 1, 1, 220, false, 0 },
		/* the guide's examples: plain, pmr-perf's latency QP, the
		 * largest */
		{ PMR_QPT_RC, 128, 512, 1, 1, 0, false, 54144 },
		{ PMR_QPT_RC, 16, 16, 1, 1, 236, false, 8448 },
		{ PMR_QPT_RC, 16384, 16384, 16, 16, 512, false, 16123776 },
		{ PMR_QPT_RC, 8, 0, 4, 0, 0, true, 0 },
		{ PMR_QPT_UC, 33, 7, 5, 3, 60, false, 0 },
		{ PMR_QPT_UD, 9, 17, 2, 2, 40, false, 0 },
		{ PMR_QPT_UD, 64, 0, 1, 0, 0, true, 0 },
	};
	struct pmr_srq_init_attr sa;
	struct pmr_srq *srq;
	struct pmr_cq *cq;

	vt_open(&v);
	roce = strncmp(pmr_get_device_name(v.dev), "pmr_roce", 8) == 0;
	printf("device %s\n", pmr_get_device_name(v.dev));
	cq = vt_cq(&v, 64);
	memset(&sa, 0, sizeof(sa));
	sa.attr.max_wr = 16;
	sa.attr.max_sge = 1;
	srq = pmr_create_srq(v.pd, &sa);
	CHECK(srq != NULL);
	check_errors(cq);
	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++)
		check_shape(&shapes[i], cq, srq);
	check_heap(cq);
	check_traffic();
	check_unanswered(cq);
	CHECK_EQ(pmr_destroy_srq(srq), 0);
	CHECK_EQ(pmr_destroy_cq(cq), 0);
	vt_close(&v);
	return vt_exit();
}
