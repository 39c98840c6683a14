/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Two RoCE devices talking over a link that loses, duplicates and
 * reorders frames: every operation still completes once, successfully,
 * in order, with the bytes it was given.
 *
 * One process, two RoCE devices, each on a port made of two rte_rings
 * the program holds (ringport.c); the program is the link between them.
 * It moves each frame from one device's transmit ring to the other's
 * receive ring, and, chosen by a pseudo-random sequence of a fixed seed,
 * drops one in `drop` (ACKs, NAKs and READ responses as much as
 * requests), sends one in `dup` twice and holds one in `swap` back
 * behind the next.
 *
 * PAIRS RC QP pairs, half of them sending from the first device, half
 * from the second, the responders of half of them (one each way) taking
 * their receives from an SRQ, the requesters of half of them (one each
 * way) asking for one completion in four and sending small SENDs and
 * WRITEs inline; each requester posts OPS operations, up to DEPTH at a
 * time, in turn: a SEND and an RDMA WRITE with immediate (each taking a
 * receive), an RDMA WRITE, an RDMA READ (sizes of 1 byte to several
 * packets at the path MTU of 1024), a FETCH_ADD and a CMP_SWAP of one
 * counter at the responder.  The QPs' ACK timeout is about 17 ms, 7
 * retries.  Checked:
 *   - every WR completes exactly once, SUCCESS, in the order posted, with
 *     its opcode; every receive likewise, with the byte count, the
 *     immediate value and the payload of its SEND;
 *   - a WRITE's bytes are at the responder when it completes, a READ's
 *     in the requester's buffer;
 *   - each atomic returns the counter's value before it (0, 1, 2, ...:
 *     one executed twice would skip one, a CMP_SWAP would fail its
 *     compare), and the counter ends at the number of atomics;
 *   - frames were dropped, duplicated and reordered, and requesters
 *     retransmitted: the checks above ran against loss.
 *
 *   lossy [DROP DUP SWAP [DEVARGS [MTU [rnr]]]]
 *           run by ring.sh (EAL arguments, the configuration); 23 97 89
 *           unless given; DEVARGS: more of both devices' arguments
 *           (",tx_batch=8"); MTU: the QPs' path MTU, 1024 or 4096;
 *           rnr: the responders keep 2 receives posted and post them
 *           again every third round, the requesters do not wait for
 *           them (RNR NAKs, retried without limit)
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include <pmr_roce.h>
#include <pmr_verbs.h>

#include "ringport.h"
#include "vt.h"

#define PAIRS 4
#define OPS 600           /* per requester */
#define DEPTH 16          /* WRs in flight per requester */
#define NRECV 32          /* receives posted per responder */
#define SLOTS 64          /* buffers per requester, DEPTH of them in use */
#define SLOT 8192         /* the largest message, 8 packets */
/* one frame in `drop` dropped, one in `dup` sent twice, one in `swap`
 * held back behind the next (the program's arguments) */
static uint32_t drop = 23, dup = 97, swap = 89;
static const char *devargs = "";        /* more of the devices' arguments */
static enum pmr_mtu path_mtu = PMR_MTU_1024;
/* "rnr": responders keep RNR_RECVS receives posted and post them again
 * only every few rounds, requesters post regardless: RNR NAKs */
static bool rnr;
#define RNR_RECVS 2
#define RING 1024

enum { K_SEND, K_WRITE_IMM, K_WRITE, K_READ, K_FADD, K_CSWAP, KINDS };

/* one side's memory of a pair, in one MR */
struct mem {
	uint8_t src[SLOTS][SLOT];       /* what SENDs and WRITEs carry */
	uint8_t dst[SLOTS][SLOT];       /* WRITE targets; READ results */
	uint8_t recv[NRECV][SLOT];      /* receive buffers */
	uint8_t rsrc[4 * SLOT];         /* what READs read */
	uint64_t atom[SLOTS];           /* atomic results */
	uint64_t counter;               /* the atomics' target */
};

struct pair {
	struct vt *rv, *sv;             /* requester's and responder's side */
	struct pmr_qp *req, *resp;
	struct pmr_srq *srq;            /* the responder's receives, or NULL */
	struct pmr_cq *scq, *rcq;       /* requester's send, responder's recv */
	struct mem *rm, *sm;            /* requester's and responder's memory */
	struct pmr_mr *rmr, *smr;
	uint32_t posted, done;          /* the requester's WRs */
	uint32_t rx_done;               /* receives completed */
	uint64_t atomics;               /* atomics completed */
	bool unsig;                     /* one WR in 4 signaled, small ones
					 * inline */
	uint32_t nrecv;                 /* receives kept posted */
	uint32_t held[NRECV], nheld;    /* rnr: receives to post again */
	uint32_t rounds;
};

static struct ringport rp[2];
static struct vt v[2];
static struct rte_mempool *own;
static struct pair pairs[PAIRS];
static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t moved, dropped, duped, swapped;

static uint32_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 11);
}

static enum pmr_wr_opcode kind_op(int k)
{
	static const enum pmr_wr_opcode ops[KINDS] = {
		PMR_WR_SEND, PMR_WR_RDMA_WRITE_WITH_IMM, PMR_WR_RDMA_WRITE,
		PMR_WR_RDMA_READ, PMR_WR_ATOMIC_FETCH_AND_ADD,
		PMR_WR_ATOMIC_CMP_AND_SWP,
	};

	return ops[k];
}

static enum pmr_wc_opcode kind_wc(int k)
{
	static const enum pmr_wc_opcode ops[KINDS] = {
		PMR_WC_SEND, PMR_WC_RDMA_WRITE, PMR_WC_RDMA_WRITE,
		PMR_WC_RDMA_READ, PMR_WC_FETCH_ADD, PMR_WC_COMP_SWAP,
	};

	return ops[k];
}

/* Operation n of a requester: its kind and size (atomics: 8). */
static int op_kind(uint32_t n)
{
	return (int)(n % KINDS);
}

static uint32_t op_len(uint32_t n)
{
	static const uint32_t sizes[] = { 1, 64, 1023, 1024, 1025, 3000,
					  4096, 8192, 17, 2048 };

	return op_kind(n) >= K_FADD ? 8 : sizes[(n / KINDS) % 10];
}

/* How many of operations 0..n-1 take a receive. */
static uint32_t recvs_before(uint32_t n)
{
	return n / KINDS * 2 + (n % KINDS > 0) + (n % KINDS > 1);
}

static uint8_t byte_of(int pair, uint32_t n, uint32_t i)
{
	return (uint8_t)(pair * 31 + n * 7 + i * 13 + (i >> 8));
}

/* ---- the link ------------------------------------------------------- */

static void link_move(struct ringport *from, struct ringport *to)
{
	void *held = NULL, *m;

	while (rte_ring_dequeue(from->tx, &m) == 0) {
		moved++;
		if (rnd() % drop == 0) {
			dropped++;
			rte_pktmbuf_free(m);
			continue;
		}
		if (rnd() % dup == 0) {
			struct rte_mbuf *c = rte_pktmbuf_copy(m, own, 0,
							      UINT32_MAX);

			if (c != NULL) {
				duped++;
				CHECK_EQ(rte_ring_enqueue(to->rx, c), 0);
			}
		}
		if (rnd() % swap == 0 && held == NULL) {
			swapped++;
			held = m;
			continue;
		}
		CHECK_EQ(rte_ring_enqueue(to->rx, m), 0);
		if (held != NULL) {
			CHECK_EQ(rte_ring_enqueue(to->rx, held), 0);
			held = NULL;
		}
	}
	if (held != NULL)
		CHECK_EQ(rte_ring_enqueue(to->rx, held), 0);
}

/* One round: each engine runs, then the link moves what they sent. */
static void link_round(void)
{
	CHECK(pmr_progress(v[0].ctx, 64) >= 0);
	CHECK(pmr_progress(v[1].ctx, 64) >= 0);
	link_move(&rp[0], &rp[1]);
	link_move(&rp[1], &rp[0]);
}

/* A receive of SLOT bytes into mem's receive buffer `slot` (wr_id slot),
 * on srq when there is one, else on qp. */
static void recv_slot(struct pmr_qp *qp, struct pmr_srq *srq, struct mem *m,
		      const struct pmr_mr *mr, uint32_t slot)
{
	struct pmr_sge s = { (uintptr_t)m->recv[slot], SLOT, mr->lkey };
	struct pmr_recv_wr w = vt_rwr(slot, &s, 1);
	struct pmr_recv_wr *bad = NULL;

	if (srq != NULL)
		CHECK_EQ(pmr_post_srq_recv(srq, &w, &bad), 0);
	else
		CHECK_EQ(vt_post_recv1(qp, &w), 0);
}

/* ---- the pairs ------------------------------------------------------ */

static void post_recv(struct pair *p, uint32_t slot)
{
	recv_slot(p->resp, p->srq, p->sm, p->smr, slot);
}

/* Whether operation n asks for a completion. */
static bool op_signaled(const struct pair *p, uint32_t n)
{
	return !p->unsig || n % 4 == 3 || n == OPS - 1;
}

static void post_one(int pn)
{
	struct pair *p = &pairs[pn];
	uint32_t n = p->posted, slot = n % SLOTS, len = op_len(n);
	int k = op_kind(n);
	struct pmr_sge s;
	struct pmr_send_wr w;

	if (k == K_READ) {
		s = (struct pmr_sge){ (uintptr_t)p->rm->dst[slot], len,
				      p->rmr->lkey };
	} else if (k >= K_FADD) {
		s = (struct pmr_sge){ (uintptr_t)&p->rm->atom[slot], 8,
				      p->rmr->lkey };
	} else {
		for (uint32_t i = 0; i < len; i++)
			p->rm->src[slot][i] = byte_of(pn, n, i);
		s = (struct pmr_sge){ (uintptr_t)p->rm->src[slot], len,
				      p->rmr->lkey };
	}
	w = vt_swr(n, kind_op(k), &s, 1, op_signaled(p, n) ?
		   PMR_SEND_SIGNALED : 0);
	if (p->unsig && k <= K_WRITE && len <= 64)
		w.send_flags |= PMR_SEND_INLINE;
	switch (k) {
	case K_WRITE_IMM:
		w.imm_data = rte_cpu_to_be_32(n);
		/* fall through */
	case K_WRITE:
		w.wr.rdma.remote_addr = (uintptr_t)p->sm->dst[slot];
		w.wr.rdma.rkey = p->smr->rkey;
		memset(p->sm->dst[slot], 0, len);
		break;
	case K_READ:
		w.wr.rdma.remote_addr =
			(uintptr_t)&p->sm->rsrc[(n * 4099) % (3 * SLOT)];
		w.wr.rdma.rkey = p->smr->rkey;
		memset(p->rm->dst[slot], 0, len);
		break;
	case K_FADD:
	case K_CSWAP:
		/* the counter's value before this atomic is the number of
		 * atomics before it, since they complete in order */
		w.wr.atomic.remote_addr = (uintptr_t)&p->sm->counter;
		w.wr.atomic.rkey = p->smr->rkey;
		w.wr.atomic.compare_add = k == K_FADD ? 1 : n / KINDS * 2 + 1;
		w.wr.atomic.swap = n / KINDS * 2 + 2;
		p->rm->atom[slot] = UINT64_MAX;
		break;
	default:
		break;
	}
	CHECK_EQ(vt_post_send1(p->req, &w), 0);
	p->posted++;
}

/* Operation n, completed: checked against the memory it names. */
static void check_op(struct pair *p, int pn, uint32_t n)
{
	uint32_t slot = n % SLOTS, len = op_len(n);
	int k = op_kind(n);

	switch (k) {
	case K_WRITE:
	case K_WRITE_IMM:
		EXPECT_MSG(memcmp(p->sm->dst[slot], p->rm->src[slot], len) == 0,
			   "pair %d: WRITE %u (%u bytes) not in place", pn, n,
			   len);
		break;
	case K_READ:
		EXPECT_MSG(memcmp(p->rm->dst[slot],
				  &p->sm->rsrc[(n * 4099) % (3 * SLOT)],
				  len) == 0,
			   "pair %d: READ %u (%u bytes) not as read", pn, n,
			   len);
		break;
	case K_FADD:
	case K_CSWAP:
		EXPECT_EQ_MSG(p->rm->atom[slot], n / KINDS * 2 + (k == K_CSWAP),
			      "pair %d: atomic %u's original value", pn, n);
		p->atomics++;
		break;
	default:
		break;
	}
}

/* The requester's completion: the next signaled operation's, which
 * completes the unsignaled ones before it too. */
static void check_send_wc(int pn, const struct pmr_wc *wc)
{
	struct pair *p = &pairs[pn];
	uint32_t n = p->done;

	while (!op_signaled(p, n))
		n++;
	if (wc->status != PMR_WC_SUCCESS) {
		struct pmr_roce_qp_stats qs;

		CHECK_EQ(pmr_roce_qp_stats(p->req, &qs), 0);
		fprintf(stderr, "pair %d, op %u (%u bytes, kind %d): "
			"retransmits %" PRIu64 " timeouts %" PRIu64
			" NAKs %" PRIu64 " RNR waits %" PRIu64 "\n", pn, n,
			op_len(n), op_kind(n), qs.retransmits, qs.timeouts,
			qs.nak_rx, qs.rnr_waits);
	}
	CHECK_WC(*wc, PMR_WC_SUCCESS);
	EXPECT_EQ_MSG(wc->wr_id, n, "pair %d: completions out of order", pn);
	if (wc->wr_id != n)
		exit(1);
	EXPECT_EQ_MSG(wc->opcode, kind_wc(op_kind(n)), "pair %d op %u", pn,
		      n);
	for (; p->done <= n; p->done++)
		check_op(p, pn, p->done);
}

/* The responder's receive completion, the r-th: the SEND or WRITE with
 * immediate that takes it. */
static void check_recv_wc(int pn, const struct pmr_wc *wc)
{
	struct pair *p = &pairs[pn];
	uint32_t r = p->rx_done, n = r / 2 * KINDS + r % 2;
	uint32_t len = op_len(n), slot = (uint32_t)wc->wr_id;

	CHECK_WC(*wc, PMR_WC_SUCCESS);
	CHECK(slot < p->nrecv);
	EXPECT_EQ_MSG(slot, r % p->nrecv, "pair %d: receives out of order",
		      pn);
	if (op_kind(n) == K_SEND) {
		EXPECT_EQ_MSG(wc->opcode, PMR_WC_RECV, "pair %d recv %u", pn,
			      r);
		EXPECT_EQ_MSG(wc->byte_len, len, "pair %d: SEND %u", pn, n);
		for (uint32_t i = 0; i < len; i++)
			if (p->sm->recv[slot][i] != byte_of(pn, n, i)) {
				EXPECT_MSG(0, "pair %d: SEND %u byte %u", pn,
					   n, i);
				break;
			}
	} else {
		EXPECT_EQ_MSG(wc->opcode, PMR_WC_RECV_RDMA_WITH_IMM,
			      "pair %d recv %u", pn, r);
		EXPECT_MSG(wc->wc_flags & PMR_WC_WITH_IMM, "pair %d recv %u",
			   pn, r);
		EXPECT_EQ_MSG(rte_be_to_cpu_32(wc->imm_data), n,
			      "pair %d: immediate", pn);
		EXPECT_EQ_MSG(wc->byte_len, len, "pair %d: WRITE_IMM %u", pn,
			      n);
	}
	p->rx_done++;
	if (rnr)
		p->held[p->nheld++] = slot;
	else
		post_recv(p, slot);
}

static void pair_make(int pn, int from)
{
	struct pair *p = &pairs[pn];
	struct vt_opts o = vt_opts_default();

	p->rv = &v[from];
	p->sv = &v[1 - from];
	p->rm = calloc(1, sizeof(struct mem));
	p->sm = calloc(1, sizeof(struct mem));
	CHECK(p->rm != NULL && p->sm != NULL);
	for (size_t i = 0; i < sizeof(p->sm->rsrc); i++)
		p->sm->rsrc[i] = (uint8_t)(i * 11 + pn + (i >> 10));
	p->rmr = vt_mr(p->rv->pd, p->rm, sizeof(*p->rm),
		       PMR_ACCESS_LOCAL_WRITE);
	p->smr = vt_mr(p->sv->pd, p->sm, sizeof(*p->sm),
		       PMR_ACCESS_LOCAL_WRITE | PMR_ACCESS_REMOTE_WRITE |
		       PMR_ACCESS_REMOTE_READ | PMR_ACCESS_REMOTE_ATOMIC);
	p->scq = vt_cq(p->rv, 2 * DEPTH);
	p->rcq = vt_cq(p->sv, 2 * NRECV);
	p->unsig = pn % 2 == 1;
	p->req = vt_qp(p->rv->pd, PMR_QPT_RC, p->scq, p->scq, DEPTH,
		       !p->unsig);
	if (pn >= PAIRS / 2) {
		/* the later pairs' responders take receives from an SRQ:
		 * a request sent again must not take a second one */
		struct pmr_srq_init_attr si = {
			.attr = { .max_wr = NRECV, .max_sge = 1 } };
		struct pmr_qp_init_attr a = vt_qp_attr(PMR_QPT_RC, p->rcq,
						       p->rcq, NRECV, 1);

		p->srq = pmr_create_srq(p->sv->pd, &si);
		CHECK(p->srq != NULL);
		a.srq = p->srq;
		p->resp = pmr_create_qp(p->sv->pd, &a);
		CHECK(p->resp != NULL);
	} else {
		p->resp = vt_qp(p->sv->pd, PMR_QPT_RC, p->rcq, p->rcq, NRECV,
				1);
	}
	o.timeout = 12;         /* 16.8 ms: beyond a time slice */
	o.path_mtu = path_mtu;
	o.retry_cnt = 7;
	/* each QP's address vector names the other side's GID: connect it
	 * as vt_connect() would through the other side's vt */
	vt_connect(p->sv, p->req, p->resp->qp_num, &o);
	vt_connect(p->rv, p->resp, p->req->qp_num, &o);
	p->nrecv = rnr ? RNR_RECVS : NRECV;
	for (uint32_t i = 0; i < p->nrecv; i++)
		post_recv(p, i);
}

static void pair_destroy(struct pair *p)
{
	CHECK_EQ(pmr_destroy_qp(p->req), 0);
	CHECK_EQ(pmr_destroy_qp(p->resp), 0);
	if (p->srq != NULL)
		CHECK_EQ(pmr_destroy_srq(p->srq), 0);
	CHECK_EQ(pmr_destroy_cq(p->scq), 0);
	CHECK_EQ(pmr_destroy_cq(p->rcq), 0);
	CHECK_EQ(pmr_dereg_mr(p->rmr), 0);
	CHECK_EQ(pmr_dereg_mr(p->smr), 0);
	free(p->rm);
	free(p->sm);
}

static bool pair_step(int pn)
{
	struct pair *p = &pairs[pn];
	struct pmr_wc wc[DEPTH];
	int got;

	while (p->posted < OPS && p->posted - p->done < DEPTH &&
	       (rnr || recvs_before(p->posted + 1) <= p->rx_done + NRECV))
		post_one(pn);
	/* rnr: the receives completed go back every third round */
	if (++p->rounds % 3 == 0) {
		for (uint32_t i = 0; i < p->nheld; i++)
			post_recv(p, p->held[i]);
		p->nheld = 0;
	}
	got = pmr_poll_cq(p->scq, DEPTH, wc);
	CHECK(got >= 0);
	for (int i = 0; i < got; i++)
		check_send_wc(pn, &wc[i]);
	got = pmr_poll_cq(p->rcq, DEPTH, wc);
	CHECK(got >= 0);
	for (int i = 0; i < got; i++)
		check_recv_wc(pn, &wc[i]);
	return p->done == OPS && p->rx_done == recvs_before(OPS);
}

/* ---- UC ------------------------------------------------------------- */

#define UC_MSGS 960     /* per direction, in batches of DEPTH */

static uint32_t uc_len(uint32_t n)
{
	return 8 + (n * 1237) % (SLOT - 7);
}

/* Runs the engines and the link until no frame has moved for a few
 * rounds (what was sent has arrived or is lost). */
static void quiesce(void)
{
	for (int idle = 0; idle < 4;) {
		uint64_t before = moved;

		link_round();
		idle = moved == before ? idle + 1 : 0;
	}
}

/* A UC receive completion: one whole message of those sent from
 * v[from], the last posted of them `posted` - 1. */
static void uc_check(const struct pmr_wc *wc, const struct mem *rm, int from,
		     uint32_t posted)
{
	uint32_t slot = (uint32_t)wc->wr_id, n;
	const uint8_t *m;

	CHECK_WC(*wc, PMR_WC_SUCCESS);
	CHECK(slot < NRECV);
	if (wc->opcode == PMR_WC_RECV) {
		m = rm->recv[slot];
		memcpy(&n, m, 4);
	} else {
		CHECK_EQ(wc->opcode, PMR_WC_RECV_RDMA_WITH_IMM);
		n = rte_be_to_cpu_32(wc->imm_data);
		m = rm->dst[n % SLOTS];
	}
	CHECK(n < posted && n + SLOTS > posted);
	EXPECT_EQ_MSG(wc->opcode == PMR_WC_RECV, n % 2 == 1, "UC %u's kind",
		      n);
	EXPECT_EQ_MSG(wc->byte_len, uc_len(n), "UC message %u", n);
	EXPECT_MSG(memcmp(m, &n, 4) == 0, "UC message %u: another's head", n);
	for (uint32_t j = 4; j < uc_len(n); j++)
		if (m[j] != byte_of(7 + from, n, j)) {
			EXPECT_MSG(0, "UC message %u: byte %u", n, j);
			break;
		}
}

/*
 * UC SENDs and WRITEs with immediate from v[from] to the other side, over
 * the same link: a message whose packets were lost, or came out of order,
 * is not delivered; one sent twice may be delivered twice (UC has no
 * duplicate detection: a FIRST or ONLY packet starts a message whatever
 * its PSN).  Every send completes successfully, in order; every receive
 * that completes does so successfully with one whole message, never
 * pieces of two.  @return the messages delivered.
 */
static uint32_t uc_run(int from)
{
	struct vt *sv = &v[from], *rv = &v[1 - from];
	struct vt_opts o = vt_opts_default();
	struct mem *sm = calloc(1, sizeof(struct mem));
	struct mem *rm = calloc(1, sizeof(struct mem));
	struct pmr_mr *smr, *rmr;
	struct pmr_cq *scq, *rcq;
	struct pmr_qp *sqp, *rqp;
	uint32_t posted = 0, done = 0, delivered = 0;
	struct pmr_wc wc[DEPTH];

	CHECK(sm != NULL && rm != NULL);
	smr = vt_mr(sv->pd, sm, sizeof(*sm), PMR_ACCESS_LOCAL_WRITE);
	rmr = vt_mr(rv->pd, rm, sizeof(*rm), PMR_ACCESS_LOCAL_WRITE |
		    PMR_ACCESS_REMOTE_WRITE);
	scq = vt_cq(sv, 2 * DEPTH);
	rcq = vt_cq(rv, 2 * NRECV);
	sqp = vt_qp(sv->pd, PMR_QPT_UC, scq, scq, DEPTH, 1);
	rqp = vt_qp(rv->pd, PMR_QPT_UC, rcq, rcq, NRECV, 1);
	o.path_mtu = path_mtu;
	vt_connect(rv, sqp, rqp->qp_num, &o);
	vt_connect(sv, rqp, sqp->qp_num, &o);
	for (uint32_t i = 0; i < NRECV; i++)
		recv_slot(rqp, NULL, rm, rmr, i);
	while (posted < UC_MSGS) {
		int got;

		/* a batch: SLOTS is more than DEPTH, so no WRITE target is
		 * written again before its receive is checked */
		for (int b = 0; b < DEPTH; b++, posted++) {
			uint32_t n = posted, len = uc_len(n), slot = n % SLOTS;
			struct pmr_sge g = { (uintptr_t)sm->src[slot], len,
					     smr->lkey };
			struct pmr_send_wr w = vt_swr(n, n % 2 ? PMR_WR_SEND :
				PMR_WR_RDMA_WRITE_WITH_IMM, &g, 1,
				PMR_SEND_SIGNALED);

			memcpy(sm->src[slot], &n, 4);
			for (uint32_t i = 4; i < len; i++)
				sm->src[slot][i] = byte_of(7 + from, n, i);
			w.imm_data = rte_cpu_to_be_32(n);
			w.wr.rdma.remote_addr = (uintptr_t)rm->dst[slot];
			w.wr.rdma.rkey = rmr->rkey;
			CHECK_EQ(vt_post_send1(sqp, &w), 0);
		}
		quiesce();
		while ((got = pmr_poll_cq(scq, DEPTH, wc)) > 0)
			for (int i = 0; i < got; i++, done++) {
				CHECK_WC(wc[i], PMR_WC_SUCCESS);
				CHECK_EQ(wc[i].wr_id, done);
			}
		CHECK_EQ(got, 0);
		while ((got = pmr_poll_cq(rcq, DEPTH, wc)) > 0)
			for (int i = 0; i < got; i++, delivered++) {
				uc_check(&wc[i], rm, from, posted);
				recv_slot(rqp, NULL, rm, rmr,
					  (uint32_t)wc[i].wr_id);
			}
		CHECK_EQ(got, 0);
	}
	EXPECT_EQ_MSG(done, UC_MSGS, "UC sends completed");
	CHECK_EQ(pmr_destroy_qp(sqp), 0);
	CHECK_EQ(pmr_destroy_qp(rqp), 0);
	CHECK_EQ(pmr_destroy_cq(scq), 0);
	CHECK_EQ(pmr_destroy_cq(rcq), 0);
	CHECK_EQ(pmr_dereg_mr(smr), 0);
	CHECK_EQ(pmr_dereg_mr(rmr), 0);
	free(sm);
	free(rm);
	return delivered;
}

int main(int argc, char **argv)
{
	uint64_t end, retransmits = 0, rnr_waits = 0;
	bool all;

	if (argc >= 4) {
		drop = (uint32_t)strtoul(argv[1], NULL, 10);
		dup = (uint32_t)strtoul(argv[2], NULL, 10);
		swap = (uint32_t)strtoul(argv[3], NULL, 10);
	}
	if (argc >= 5)
		devargs = argv[4];
	if (argc >= 6)
		path_mtu = strtoul(argv[5], NULL, 10) == 4096 ? PMR_MTU_4096 :
			   PMR_MTU_1024;
	if (argc >= 7)
		rnr = strcmp(argv[6], "rnr") == 0;
	CHECK(argc == 1 || (argc >= 4 && argc <= 7));
	CHECK(drop >= 2 && dup >= 2 && swap >= 2);
	ringport_eal_init();
	/* the copies of frames sent twice: one mbuf for the longest */
	own = rte_pktmbuf_pool_create("lossy_own", 1023, 0, 0,
				      RTE_PKTMBUF_HEADROOM + 4096 + 256,
				      (int)rte_socket_id());
	CHECK(own != NULL);
	/* 10.81.0.1 and 10.82.0.1, each the other's neighbour */
	for (int i = 0; i < 2; i++) {
		char name[16], extra[192];
		unsigned int other = 0x52 - (unsigned int)i;
		struct pmr_device *dev;

		snprintf(name, sizeof(name), "lossy%d", i);
		snprintf(extra, sizeof(extra),
			 ",neigh=10.%u.0.1/02:00:00:00:%02x:01%s", other, other,
			 devargs);
		dev = ringport_device_args(&rp[i], name, RING,
					   (uint8_t)(0x51 + i), extra);
		CHECK(dev != NULL);
		vt_open_dev(&v[i], dev);
	}
	for (int i = 0; i < PAIRS; i++)
		pair_make(i, i % 2);

	end = vt_now_ms() + 60000;
	do {
		link_round();
		all = true;
		for (int i = 0; i < PAIRS; i++)
			all &= pair_step(i);
	} while (!all && vt_now_ms() < end);

	for (int i = 0; i < PAIRS; i++) {
		struct pair *p = &pairs[i];
		struct pmr_roce_qp_stats qs;

		EXPECT_EQ_MSG(p->done, OPS, "pair %d: WRs completed", i);
		EXPECT_EQ_MSG(p->rx_done, recvs_before(OPS),
			      "pair %d: receives completed", i);
		EXPECT_EQ_MSG(p->sm->counter, p->atomics,
			      "pair %d: the counter", i);
		CHECK_EQ(pmr_roce_qp_stats(p->req, &qs), 0);
		retransmits += qs.retransmits;
		rnr_waits += qs.rnr_waits;
	}
	printf("lossy: %" PRIu64 " frames: %" PRIu64 " dropped, %" PRIu64
	       " sent twice, %" PRIu64 " held back; retransmits %" PRIu64
	       ", RNR waits %" PRIu64 "\n", moved, dropped, duped, swapped,
	       retransmits, rnr_waits);
	EXPECT(dropped > 0 && duped > 0 && swapped > 0);
	EXPECT_MSG(retransmits > 0, "no requester retransmitted");
	EXPECT_MSG(!rnr || rnr_waits > 0, "no RNR NAK");

	for (int i = 0; i < PAIRS; i++)
		pair_destroy(&pairs[i]);
	for (int from = 0; from < 2; from++) {
		uint64_t d0 = dropped;
		uint32_t n = uc_run(from);

		printf("lossy: UC: %u of %u messages delivered, %" PRIu64
		       " frames dropped\n", n, UC_MSGS, dropped - d0);
		/* whole messages get through, and not all of them */
		EXPECT(n > UC_MSGS / 4);
		EXPECT(dropped == d0 || n < UC_MSGS);
	}
	for (int i = 0; i < 2; i++) {
		CHECK(pmr_progress(v[i].ctx, 64) >= 0);
		vt_close(&v[i]);
	}
	ringport_take(&rp[0], NULL, NULL);
	ringport_take(&rp[1], NULL, NULL);
	return vt_exit();
}
