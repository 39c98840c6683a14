/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Queue pairs and shared receive queues: creation, the QP state machine,
 * posting, and the completion services the engines use (retire, take a
 * receive, flush).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pmr_driver.h"
#include "pmr_verbs_priv.h"

/* ---- protocol as data ----------------------------------------------- */

#define T_RC (1u << 0)
#define T_UC (1u << 1)
#define T_UD (1u << 2)

static unsigned int qpt_bit(enum pmr_qp_type t)
{
	switch (t) {
	case PMR_QPT_RC: return T_RC;
	case PMR_QPT_UC: return T_UC;
	case PMR_QPT_UD: return T_UD;
	default: return 0;
	}
}

/* Which QP types accept each send WR opcode. */
static const uint8_t wr_opcode_qpt[16] = {
	[PMR_WR_RDMA_WRITE] = T_RC | T_UC,
	[PMR_WR_RDMA_WRITE_WITH_IMM] = T_RC | T_UC,
	[PMR_WR_SEND] = T_RC | T_UC | T_UD,
	[PMR_WR_SEND_WITH_IMM] = T_RC | T_UC | T_UD,
	[PMR_WR_RDMA_READ] = T_RC,
	[PMR_WR_ATOMIC_CMP_AND_SWP] = T_RC,
	[PMR_WR_ATOMIC_FETCH_AND_ADD] = T_RC,
};

enum pmr_wc_opcode pmr_wr_to_wc_opcode(unsigned int wr_opcode)
{
	static const uint8_t map[16] = {
		[PMR_WR_RDMA_WRITE] = PMR_WC_RDMA_WRITE,
		[PMR_WR_RDMA_WRITE_WITH_IMM] = PMR_WC_RDMA_WRITE,
		[PMR_WR_SEND] = PMR_WC_SEND,
		[PMR_WR_SEND_WITH_IMM] = PMR_WC_SEND,
		[PMR_WR_RDMA_READ] = PMR_WC_RDMA_READ,
		[PMR_WR_ATOMIC_CMP_AND_SWP] = PMR_WC_COMP_SWAP,
		[PMR_WR_ATOMIC_FETCH_AND_ADD] = PMR_WC_FETCH_ADD,
		[PMR_WR_LOCAL_INV] = PMR_WC_LOCAL_INV,
		[PMR_WR_BIND_MW] = PMR_WC_BIND_MW,
		[PMR_WR_SEND_WITH_INV] = PMR_WC_SEND,
	};

	return (enum pmr_wc_opcode)map[wr_opcode & 15];
}

/*
 * The QP state machine (IBA vol. 1, 10.3.1 and table 91-93): for each
 * (current, next) pair, whether the transition exists and, per QP type,
 * the attributes it requires and the ones it allows besides.
 */
struct qp_transition {
	bool valid;
	uint32_t req[3];   /* RC, UC, UD */
	uint32_t opt[3];
};

#define RC 0
#define UC 1
#define UD 2

static const struct qp_transition qp_sm[PMR_QPS_ERR + 1][PMR_QPS_ERR + 1] = {
	[PMR_QPS_RESET] = {
		[PMR_QPS_RESET] = { .valid = true },
		[PMR_QPS_ERR] = { .valid = true },
		[PMR_QPS_INIT] = {
			.valid = true,
			.req = {
				[RC] = PMR_QP_PKEY_INDEX | PMR_QP_PORT | PMR_QP_ACCESS_FLAGS,
				[UC] = PMR_QP_PKEY_INDEX | PMR_QP_PORT | PMR_QP_ACCESS_FLAGS,
				[UD] = PMR_QP_PKEY_INDEX | PMR_QP_PORT | PMR_QP_QKEY,
			},
		},
	},
	[PMR_QPS_INIT] = {
		[PMR_QPS_RESET] = { .valid = true },
		[PMR_QPS_ERR] = { .valid = true },
		[PMR_QPS_INIT] = {
			.valid = true,
			.opt = {
				[RC] = PMR_QP_PKEY_INDEX | PMR_QP_PORT | PMR_QP_ACCESS_FLAGS,
				[UC] = PMR_QP_PKEY_INDEX | PMR_QP_PORT | PMR_QP_ACCESS_FLAGS,
				[UD] = PMR_QP_PKEY_INDEX | PMR_QP_PORT | PMR_QP_QKEY,
			},
		},
		[PMR_QPS_RTR] = {
			.valid = true,
			.req = {
				[RC] = PMR_QP_AV | PMR_QP_PATH_MTU | PMR_QP_DEST_QPN |
				       PMR_QP_RQ_PSN | PMR_QP_MAX_DEST_RD_ATOMIC |
				       PMR_QP_MIN_RNR_TIMER,
				[UC] = PMR_QP_AV | PMR_QP_PATH_MTU | PMR_QP_DEST_QPN |
				       PMR_QP_RQ_PSN,
			},
			.opt = {
				[RC] = PMR_QP_ALT_PATH | PMR_QP_ACCESS_FLAGS | PMR_QP_PKEY_INDEX,
				[UC] = PMR_QP_ALT_PATH | PMR_QP_ACCESS_FLAGS | PMR_QP_PKEY_INDEX,
				[UD] = PMR_QP_PKEY_INDEX | PMR_QP_QKEY,
			},
		},
	},
	[PMR_QPS_RTR] = {
		[PMR_QPS_RESET] = { .valid = true },
		[PMR_QPS_ERR] = { .valid = true },
		[PMR_QPS_RTS] = {
			.valid = true,
			.req = {
				[RC] = PMR_QP_TIMEOUT | PMR_QP_RETRY_CNT | PMR_QP_RNR_RETRY |
				       PMR_QP_SQ_PSN | PMR_QP_MAX_QP_RD_ATOMIC,
				[UC] = PMR_QP_SQ_PSN,
				[UD] = PMR_QP_SQ_PSN,
			},
			.opt = {
				[RC] = PMR_QP_CUR_STATE | PMR_QP_ALT_PATH | PMR_QP_ACCESS_FLAGS |
				       PMR_QP_MIN_RNR_TIMER | PMR_QP_PATH_MIG_STATE,
				[UC] = PMR_QP_CUR_STATE | PMR_QP_ALT_PATH | PMR_QP_ACCESS_FLAGS |
				       PMR_QP_PATH_MIG_STATE,
				[UD] = PMR_QP_CUR_STATE | PMR_QP_QKEY,
			},
		},
	},
	[PMR_QPS_RTS] = {
		[PMR_QPS_RESET] = { .valid = true },
		[PMR_QPS_ERR] = { .valid = true },
		[PMR_QPS_RTS] = {
			.valid = true,
			.opt = {
				[RC] = PMR_QP_CUR_STATE | PMR_QP_ACCESS_FLAGS | PMR_QP_ALT_PATH |
				       PMR_QP_PATH_MIG_STATE | PMR_QP_MIN_RNR_TIMER,
				[UC] = PMR_QP_CUR_STATE | PMR_QP_ACCESS_FLAGS | PMR_QP_ALT_PATH |
				       PMR_QP_PATH_MIG_STATE,
				[UD] = PMR_QP_CUR_STATE | PMR_QP_QKEY,
			},
		},
		[PMR_QPS_SQD] = {
			.valid = true,
			.opt = {
				[RC] = PMR_QP_EN_SQD_ASYNC_NOTIFY,
				[UC] = PMR_QP_EN_SQD_ASYNC_NOTIFY,
				[UD] = PMR_QP_EN_SQD_ASYNC_NOTIFY,
			},
		},
	},
	[PMR_QPS_SQD] = {
		[PMR_QPS_RESET] = { .valid = true },
		[PMR_QPS_ERR] = { .valid = true },
		[PMR_QPS_RTS] = {
			.valid = true,
			.opt = {
				[RC] = PMR_QP_CUR_STATE | PMR_QP_ALT_PATH | PMR_QP_ACCESS_FLAGS |
				       PMR_QP_MIN_RNR_TIMER | PMR_QP_PATH_MIG_STATE,
				[UC] = PMR_QP_CUR_STATE | PMR_QP_ALT_PATH | PMR_QP_ACCESS_FLAGS |
				       PMR_QP_PATH_MIG_STATE,
				[UD] = PMR_QP_CUR_STATE | PMR_QP_QKEY,
			},
		},
		[PMR_QPS_SQD] = {
			.valid = true,
			.opt = {
				[RC] = PMR_QP_PORT | PMR_QP_AV | PMR_QP_TIMEOUT |
				       PMR_QP_RETRY_CNT | PMR_QP_RNR_RETRY |
				       PMR_QP_MAX_QP_RD_ATOMIC | PMR_QP_MAX_DEST_RD_ATOMIC |
				       PMR_QP_ALT_PATH | PMR_QP_ACCESS_FLAGS |
				       PMR_QP_PKEY_INDEX | PMR_QP_MIN_RNR_TIMER |
				       PMR_QP_PATH_MIG_STATE,
				[UC] = PMR_QP_AV | PMR_QP_ALT_PATH | PMR_QP_ACCESS_FLAGS |
				       PMR_QP_PKEY_INDEX | PMR_QP_PATH_MIG_STATE,
				[UD] = PMR_QP_PKEY_INDEX | PMR_QP_QKEY,
			},
		},
	},
	[PMR_QPS_SQE] = {
		[PMR_QPS_RESET] = { .valid = true },
		[PMR_QPS_ERR] = { .valid = true },
		[PMR_QPS_RTS] = {
			.valid = true,
			.opt = {
				[UC] = PMR_QP_CUR_STATE | PMR_QP_ACCESS_FLAGS,
				[UD] = PMR_QP_CUR_STATE | PMR_QP_QKEY,
			},
		},
	},
	[PMR_QPS_ERR] = {
		[PMR_QPS_RESET] = { .valid = true },
		[PMR_QPS_ERR] = { .valid = true },
	},
};

static int qpt_index(enum pmr_qp_type t)
{
	return t == PMR_QPT_RC ? RC : t == PMR_QPT_UC ? UC : UD;
}

/* ---- rings ---------------------------------------------------------- */

static uint32_t pow2_at_least(uint32_t n)
{
	uint32_t p = 1;

	while (p < n)
		p <<= 1;
	return p;
}

static int wq_init(struct pmr_wq *wq, uint32_t max_wr, uint32_t hdr,
		   uint32_t max_sge, uint32_t max_inline)
{
	uint32_t body = max_sge * (uint32_t)sizeof(struct pmr_sge);

	if (max_inline > body)
		body = max_inline;
	wq->size = pow2_at_least(max_wr ? max_wr : 1);
	wq->mask = wq->size - 1;
	wq->slot_size = (uint32_t)pmr_line_ceil(hdr + body);
	wq->max_wr = wq->size;
	wq->max_sge = (wq->slot_size - hdr) / sizeof(struct pmr_sge);
	if (wq->max_sge > PMR_MAX_SGE)
		wq->max_sge = PMR_MAX_SGE;
	wq->max_inline = wq->slot_size - hdr;
	if (wq->max_inline > PMR_MAX_INLINE)
		wq->max_inline = PMR_MAX_INLINE;
	atomic_init(&wq->prod, 0);
	atomic_init(&wq->cons, 0);
	wq->buf = aligned_alloc(PMR_CACHE_LINE, (size_t)wq->size * wq->slot_size);
	if (wq->buf == NULL)
		return -ENOMEM;
	memset(wq->buf, 0, (size_t)wq->size * wq->slot_size);
	return 0;
}

static void wq_reset(struct pmr_wq *wq)
{
	atomic_store(&wq->prod, 0);
	atomic_store(&wq->cons, 0);
}

/* ---- engine services --------------------------------------------------- */

static void wc_flush(struct pmr_wc *wc, uint64_t wr_id, uint32_t qpn,
		     enum pmr_wc_opcode op)
{
	memset(wc, 0, sizeof(*wc));
	wc->wr_id = wr_id;
	wc->status = PMR_WC_WR_FLUSH_ERR;
	wc->opcode = op;
	wc->qp_num = qpn;
}

static void sq_flush(struct pmr_qp_obj *qp)
{
	struct pmr_cq_obj *cq = pmr_cq_obj(qp->pub.send_cq);
	uint32_t cons = atomic_load_explicit(&qp->sq.cons, memory_order_relaxed);
	uint32_t prod = atomic_load_explicit(&qp->sq.prod, memory_order_acquire);
	struct pmr_wc wc;

	for (; cons != prod; cons++) {
		struct pmr_swqe *w = pmr_wq_slot(&qp->sq, cons);

		wc_flush(&wc, w->wr_id, qp->pub.qp_num,
			 pmr_wr_to_wc_opcode(w->opcode));
		pmr_cq_push(cq, &wc, false);
	}
	atomic_store_explicit(&qp->sq.cons, cons, memory_order_release);
}

static void rq_flush(struct pmr_qp_obj *qp)
{
	struct pmr_cq_obj *cq = pmr_cq_obj(qp->pub.recv_cq);
	struct pmr_wc wc;
	uint32_t cons, prod;

	if (qp->recv_held) {
		wc_flush(&wc, qp->recv.hdr.wr_id, qp->pub.qp_num, PMR_WC_RECV);
		pmr_cq_push(cq, &wc, false);
		qp->recv_held = false;
	}
	if (qp->pub.srq != NULL)
		return;     /* an SRQ's WRs are not the QP's to flush */
	cons = atomic_load_explicit(&qp->rq.cons, memory_order_relaxed);
	prod = atomic_load_explicit(&qp->rq.prod, memory_order_acquire);
	for (; cons != prod; cons++) {
		struct pmr_rwqe *w = pmr_wq_slot(&qp->rq, cons);

		wc_flush(&wc, w->wr_id, qp->pub.qp_num, PMR_WC_RECV);
		pmr_cq_push(cq, &wc, false);
	}
	atomic_store_explicit(&qp->rq.cons, cons, memory_order_release);
}

static void qp_set_state(struct pmr_qp_obj *qp, enum pmr_qp_state s)
{
	atomic_store_explicit(&qp->state, (int)s, memory_order_release);
	qp->pub.state = s;
	qp->attr.qp_state = s;
}

void pmr_qp_flush_all(struct pmr_qp_obj *qp)
{
	rq_flush(qp);
	sq_flush(qp);
	if (qp->pub.srq != NULL && !qp->last_wqe_sent) {
		qp->last_wqe_sent = true;
		pmr_async_raise(qp->ctx, PMR_EVENT_QP_LAST_WQE_REACHED,
				&qp->pub, 0);
	}
}

void pmr_qp_set_error(struct pmr_qp_obj *qp, int event)
{
	if (pmr_qp_state(qp) != PMR_QPS_ERR) {
		qp_set_state(qp, PMR_QPS_ERR);
		if (event >= 0)
			pmr_async_raise(qp->ctx, (enum pmr_event_type)event,
					&qp->pub, 0);
	}
	pmr_qp_flush_all(qp);
}

void pmr_qp_flush_posted(struct pmr_qp_obj *qp)
{
	enum pmr_qp_state s = pmr_qp_state(qp);

	if (s == PMR_QPS_ERR)
		pmr_qp_flush_all(qp);
	else if (s == PMR_QPS_SQE)
		sq_flush(qp);
}

/* The send completion of WQE w. */
static void sq_wc_push(struct pmr_qp_obj *qp, const struct pmr_swqe *w,
		       enum pmr_wc_status status, uint32_t byte_len,
		       uint32_t vendor_err)
{
	struct pmr_wc wc;

	memset(&wc, 0, sizeof(wc));
	wc.wr_id = w->wr_id;
	wc.status = status;
	wc.opcode = pmr_wr_to_wc_opcode(w->opcode);
	wc.vendor_err = vendor_err;
	wc.byte_len = byte_len;
	wc.qp_num = qp->pub.qp_num;
	pmr_cq_push(pmr_cq_obj(qp->pub.send_cq), &wc, false);
}

void pmr_sq_retire_ok(struct pmr_qp_obj *qp, uint32_t n)
{
	uint32_t cons = atomic_load_explicit(&qp->sq.cons, memory_order_relaxed);

	for (uint32_t i = 0; i < n; i++) {
		const struct pmr_swqe *w = pmr_wq_slot(&qp->sq, cons + i);

		if (w->send_flags & PMR_SEND_SIGNALED)
			sq_wc_push(qp, w, PMR_WC_SUCCESS, w->length, 0);
	}
	atomic_store_explicit(&qp->sq.cons, cons + n, memory_order_release);
}

void pmr_sq_retire(struct pmr_qp_obj *qp, enum pmr_wc_status status,
		   uint32_t byte_len, uint32_t vendor_err)
{
	uint32_t cons = atomic_load_explicit(&qp->sq.cons, memory_order_relaxed);
	struct pmr_swqe *w = pmr_wq_slot(&qp->sq, cons);

	if (status != PMR_WC_SUCCESS || (w->send_flags & PMR_SEND_SIGNALED))
		sq_wc_push(qp, w, status, byte_len, vendor_err);
	atomic_store_explicit(&qp->sq.cons, cons + 1, memory_order_release);
	if (status == PMR_WC_SUCCESS)
		return;
	if (qp->pub.qp_type == PMR_QPT_RC) {
		pmr_qp_set_error(qp, -1);
	} else {
		/* UC / UD: a send error stops the send queue only (SQE) */
		if (pmr_qp_state(qp) != PMR_QPS_ERR)
			qp_set_state(qp, PMR_QPS_SQE);
		sq_flush(qp);
	}
}

bool pmr_rq_take(struct pmr_qp_obj *qp)
{
	struct pmr_srq_obj *srq;
	struct pmr_wq *wq;
	struct pmr_rwqe *w;
	uint32_t cons, prod;

	if (qp->recv_held)
		return true;
	srq = qp->pub.srq ? pmr_srq_obj(qp->pub.srq) : NULL;
	wq = srq ? &srq->rq : &qp->rq;
	cons = atomic_load_explicit(&wq->cons, memory_order_relaxed);
	prod = atomic_load_explicit(&wq->prod, memory_order_acquire);
	if (cons == prod)
		return false;
	w = pmr_wq_slot(wq, cons);
	memcpy(&qp->recv, w, sizeof(*w) + w->num_sge * sizeof(struct pmr_sge));
	atomic_store_explicit(&wq->cons, cons + 1, memory_order_release);
	qp->recv_held = true;
	if (srq != NULL && srq->limit != 0 && prod - (cons + 1) < srq->limit) {
		srq->limit = 0;    /* one event, then disarmed */
		pmr_async_raise(qp->ctx, PMR_EVENT_SRQ_LIMIT_REACHED,
				&srq->pub, 0);
	}
	return true;
}

void pmr_rq_complete(struct pmr_qp_obj *qp, struct pmr_wc *wc, bool solicited)
{
	wc->wr_id = qp->recv.hdr.wr_id;
	wc->qp_num = qp->pub.qp_num;
	qp->recv_held = false;
	pmr_cq_push(pmr_cq_obj(qp->pub.recv_cq), wc, solicited);
	/* RC: the responder's QP goes to ERR (the requester gets a NAK).
	 * UC and UD: the receive fails, the QP goes on: a datagram or an
	 * unreliable message from the wire cannot take the QP down. */
	if (wc->status != PMR_WC_SUCCESS && qp->pub.qp_type == PMR_QPT_RC)
		pmr_qp_set_error(qp, -1);
}

static bool rq_references(struct pmr_wq *wq, uint32_t lkey)
{
	uint32_t c = atomic_load(&wq->cons), p = atomic_load(&wq->prod);

	for (; c != p; c++) {
		struct pmr_rwqe *w = pmr_wq_slot(wq, c);

		for (uint32_t i = 0; i < w->num_sge; i++)
			if (pmr_rwqe_sge(w)[i].lkey == lkey)
				return true;
	}
	return false;
}

/* Whether any send WQE posted to qp and not yet completed matches. */
static bool sq_any(struct pmr_qp_obj *qp,
		   bool (*match)(struct pmr_swqe *, const void *),
		   const void *arg)
{
	uint32_t c = atomic_load(&qp->sq.cons), p = atomic_load(&qp->sq.prod);

	for (; c != p; c++)
		if (match(pmr_wq_slot(&qp->sq, c), arg))
			return true;
	return false;
}

static bool swqe_uses_lkey(struct pmr_swqe *w, const void *lkey)
{
	for (uint32_t i = 0; !w->inl && i < w->num_sge; i++)
		if (pmr_swqe_sge(w)[i].lkey == *(const uint32_t *)lkey)
			return true;
	return false;
}

static bool swqe_uses_ah(struct pmr_swqe *w, const void *ah)
{
	return w->ah == ah;
}

bool pmr_ctx_mr_referenced(struct pmr_ctx_obj *ctx, struct pmr_mr_obj *mr)
{
	struct pmr_list *pos;

	PMR_LIST_FOREACH(pos, &ctx->srqs)
		if (rq_references(&PMR_CONTAINER_OF(pos, struct pmr_srq_obj,
						    link)->rq, mr->pub.lkey))
			return true;

	PMR_LIST_FOREACH(pos, &ctx->qps) {
		struct pmr_qp_obj *qp = PMR_CONTAINER_OF(pos,
			struct pmr_qp_obj, link);

		if (sq_any(qp, swqe_uses_lkey, &mr->pub.lkey))
			return true;
		if (qp->pub.srq == NULL && rq_references(&qp->rq, mr->pub.lkey))
			return true;
		for (uint32_t i = 0; qp->recv_held && i < qp->recv.hdr.num_sge; i++)
			if (qp->recv.sge[i].lkey == mr->pub.lkey)
				return true;
	}
	return false;
}

bool pmr_ctx_ah_referenced(struct pmr_ctx_obj *ctx, struct pmr_ah_obj *ah)
{
	struct pmr_list *pos;

	PMR_LIST_FOREACH(pos, &ctx->qps) {
		struct pmr_qp_obj *qp = PMR_CONTAINER_OF(pos,
			struct pmr_qp_obj, link);

		if (qp->pub.qp_type == PMR_QPT_UD &&
		    sq_any(qp, swqe_uses_ah, ah))
			return true;
	}
	return false;
}

/* ---- SRQs -------------------------------------------------------------- */

PMR_EXPORT struct pmr_srq *pmr_create_srq(struct pmr_pd *pd,
					  struct pmr_srq_init_attr *init)
{
	struct pmr_quiesce q;
	struct pmr_srq_obj *srq;
	struct pmr_dev_obj *dev;

	if (pd == NULL || init == NULL) {
		errno = EINVAL;
		return NULL;
	}
	dev = pmr_ctx_obj(pd->context)->dev;
	if (init->attr.max_wr == 0 ||
	    init->attr.max_wr > (uint32_t)dev->attr.max_srq_wr ||
	    init->attr.max_sge == 0 ||
	    init->attr.max_sge > (uint32_t)dev->attr.max_srq_sge ||
	    init->attr.srq_limit > init->attr.max_wr) {
		errno = EINVAL;
		return NULL;
	}
	srq = aligned_alloc(PMR_CACHE_LINE, sizeof(*srq));
	if (srq == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	memset(srq, 0, sizeof(*srq));
	if (wq_init(&srq->rq, init->attr.max_wr, sizeof(struct pmr_rwqe),
		    init->attr.max_sge, 0) != 0) {
		free(srq);
		errno = ENOMEM;
		return NULL;
	}
	srq->ctx = pmr_ctx_obj(pd->context);
	srq->pub.context = pd->context;
	srq->pub.pd = pd;
	srq->pub.srq_context = init->srq_context;
	srq->limit = init->attr.srq_limit;
	init->attr.max_wr = srq->rq.max_wr;
	init->attr.max_sge = srq->rq.max_sge;
	pmr_dev_quiesce(dev, &q);
	srq->pub.handle = ++dev->handle_next;
	pmr_list_add_tail(&srq->ctx->srqs, &srq->link);
	pmr_dev_resume(dev, &q);
	atomic_fetch_add(&pmr_pd_obj(pd)->refs, 1);
	return &srq->pub;
}

PMR_EXPORT int pmr_modify_srq(struct pmr_srq *psrq, struct pmr_srq_attr *attr,
			      int mask)
{
	struct pmr_srq_obj *srq;

	if (psrq == NULL || attr == NULL)
		return EINVAL;
	srq = pmr_srq_obj(psrq);
	if (mask & ~PMR_SRQ_LIMIT)
		return EINVAL;    /* resizing (PMR_SRQ_MAX_WR) is not supported */
	if ((mask & PMR_SRQ_LIMIT) && attr->srq_limit > srq->rq.max_wr)
		return EINVAL;
	if (mask & PMR_SRQ_LIMIT) {
		pmr_lock(srq->ctx->engine_lock);
		srq->limit = attr->srq_limit;
		pmr_unlock(srq->ctx->engine_lock);
	}
	return 0;
}

PMR_EXPORT int pmr_query_srq(struct pmr_srq *psrq, struct pmr_srq_attr *attr)
{
	struct pmr_srq_obj *srq;

	if (psrq == NULL || attr == NULL)
		return EINVAL;
	srq = pmr_srq_obj(psrq);
	attr->max_wr = srq->rq.max_wr;
	attr->max_sge = srq->rq.max_sge;
	attr->srq_limit = srq->limit;
	return 0;
}

PMR_EXPORT int pmr_destroy_srq(struct pmr_srq *psrq)
{
	struct pmr_quiesce q;
	struct pmr_srq_obj *srq;

	if (psrq == NULL)
		return EINVAL;
	srq = pmr_srq_obj(psrq);
	if (atomic_load(&srq->nqp) != 0 ||
	    atomic_load(&srq->async_events_delivered) != psrq->events_completed)
		return EBUSY;
	pmr_dev_quiesce(srq->ctx->dev, &q);
	pmr_list_del(&srq->link);
	pmr_dev_resume(srq->ctx->dev, &q);
	pmr_equeue_cancel(&srq->ctx->async, sizeof(struct pmr_async_event),
			  psrq);
	atomic_fetch_sub(&pmr_pd_obj(psrq->pd)->refs, 1);
	free(srq->rq.buf);
	free(srq);
	return 0;
}

static int rq_post(struct pmr_wq *wq, struct pmr_recv_wr *wr,
		   struct pmr_recv_wr **bad_wr)
{
	uint32_t prod = atomic_load_explicit(&wq->prod, memory_order_relaxed);
	uint32_t cons = atomic_load_explicit(&wq->cons, memory_order_acquire);
	int err = 0;

	for (; wr != NULL; wr = wr->next) {
		struct pmr_rwqe *w;
		uint64_t len = 0;

		if (wr->num_sge < 0 || (uint32_t)wr->num_sge > wq->max_sge) {
			err = EINVAL;
			break;
		}
		if (prod - cons >= wq->size) {
			cons = atomic_load_explicit(&wq->cons,
						    memory_order_acquire);
			if (prod - cons >= wq->size) {
				err = ENOMEM;
				break;
			}
		}
		w = pmr_wq_slot(wq, prod);
		w->wr_id = wr->wr_id;
		w->num_sge = (uint32_t)wr->num_sge;
		for (int i = 0; i < wr->num_sge; i++) {
			pmr_rwqe_sge(w)[i] = wr->sg_list[i];
			len += wr->sg_list[i].length;
		}
		w->length = len > UINT32_MAX ? UINT32_MAX : (uint32_t)len;
		prod++;
	}
	atomic_store_explicit(&wq->prod, prod, memory_order_release);
	if (err)
		*bad_wr = wr;
	return err;
}

PMR_EXPORT int pmr_post_srq_recv(struct pmr_srq *psrq, struct pmr_recv_wr *wr,
				 struct pmr_recv_wr **bad_wr)
{
	/* no engine run: a receive is only taken when a message comes */
	return rq_post(&pmr_srq_obj(psrq)->rq, wr, bad_wr);
}

/* ---- QPs --------------------------------------------------------------- */

static int qp_check_init(struct pmr_pd *pd, struct pmr_qp_init_attr *ia)
{
	struct pmr_context *ctx = pd->context;
	struct pmr_dev_obj *dev = pmr_ctx_obj(ctx)->dev;

	if (qpt_bit(ia->qp_type) == 0 || ia->send_cq == NULL ||
	    ia->recv_cq == NULL || ia->send_cq->context != ctx ||
	    ia->recv_cq->context != ctx ||
	    (ia->srq != NULL && ia->srq->context != ctx) ||
	    ia->cap.max_send_wr > (uint32_t)dev->attr.max_qp_wr ||
	    ia->cap.max_send_sge > (uint32_t)dev->attr.max_sge ||
	    ia->cap.max_inline_data > PMR_MAX_INLINE)
		return EINVAL;
	if (ia->srq == NULL &&
	    (ia->cap.max_recv_wr > (uint32_t)dev->attr.max_qp_wr ||
	     ia->cap.max_recv_sge > (uint32_t)dev->attr.max_sge))
		return EINVAL;
	return 0;
}

static void qp_free(struct pmr_qp_obj *qp)
{
	free(qp->sq.buf);
	free(qp->rq.buf);
	free(qp);
}

PMR_EXPORT struct pmr_qp *pmr_create_qp(struct pmr_pd *pd,
					struct pmr_qp_init_attr *ia)
{
	struct pmr_quiesce q;
	struct pmr_ctx_obj *ctx;
	struct pmr_dev_obj *dev;
	struct pmr_qp_obj *qp;
	uint32_t idx = PMR_MAX_QP;
	size_t size;
	int ret;

	if (pd == NULL || ia == NULL) {
		errno = EINVAL;
		return NULL;
	}
	ret = qp_check_init(pd, ia);
	if (ret != 0) {
		errno = ret;
		return NULL;
	}
	ctx = pmr_ctx_obj(pd->context);
	dev = ctx->dev;
	/* the driver's QP state, when it asks, in the same block, next */
	size = sizeof(*qp) + pmr_line_ceil(dev->drv->qp_priv_size);
	qp = aligned_alloc(PMR_CACHE_LINE, size);
	if (qp == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	memset(qp, 0, size);
	if (wq_init(&qp->sq, ia->cap.max_send_wr, sizeof(struct pmr_swqe),
		    ia->cap.max_send_sge ? ia->cap.max_send_sge : 1,
		    ia->cap.max_inline_data) != 0 ||
	    (ia->srq == NULL &&
	     wq_init(&qp->rq, ia->cap.max_recv_wr, sizeof(struct pmr_rwqe),
		     ia->cap.max_recv_sge ? ia->cap.max_recv_sge : 1, 0) != 0)) {
		qp_free(qp);
		errno = ENOMEM;
		return NULL;
	}
	ia->cap.max_send_wr = qp->sq.max_wr;
	ia->cap.max_send_sge = qp->sq.max_sge;
	ia->cap.max_inline_data = qp->sq.max_inline;
	if (ia->srq == NULL) {
		ia->cap.max_recv_wr = qp->rq.max_wr;
		ia->cap.max_recv_sge = qp->rq.max_sge;
	} else {
		ia->cap.max_recv_wr = 0;
		ia->cap.max_recv_sge = 0;
	}
	qp->ctx = ctx;
	qp->init = *ia;
	qp->pub.context = pd->context;
	qp->pub.qp_context = ia->qp_context;
	qp->pub.pd = pd;
	qp->pub.send_cq = ia->send_cq;
	qp->pub.recv_cq = ia->recv_cq;
	qp->pub.srq = ia->srq;
	qp->pub.qp_type = ia->qp_type;
	qp_set_state(qp, PMR_QPS_RESET);
	qp->attr.path_mtu = PMR_MTU_1024;
	qp->attr.port_num = 1;
	qp->attr.cap = ia->cap;
	pmr_list_init(&qp->link);

	pmr_dev_quiesce(dev, &q);
	for (uint32_t n = 0; n < PMR_MAX_QP; n++) {
		uint32_t i = (dev->qp_next + n) % PMR_MAX_QP;

		if (atomic_load_explicit(&dev->qp_table[i],
					 memory_order_relaxed) == NULL) {
			idx = i;
			break;
		}
	}
	if (idx == PMR_MAX_QP) {
		pmr_dev_resume(dev, &q);
		qp_free(qp);
		errno = ENOSPC;
		return NULL;
	}
	qp->pub.qp_num = PMR_QPN_BASE + idx;
	qp->pub.handle = ++dev->handle_next;
	ret = dev->drv->qp_create ? dev->drv->qp_create(qp) : 0;
	if (ret != 0) {
		pmr_dev_resume(dev, &q);
		qp_free(qp);
		errno = -ret;
		return NULL;
	}
	dev->qp_next = idx + 1;
	atomic_store_explicit(&dev->qp_table[idx], qp, memory_order_release);
	pmr_list_add_tail(&ctx->qps, &qp->link);
	pmr_dev_resume(dev, &q);

	atomic_fetch_add(&pmr_pd_obj(pd)->refs, 1);
	atomic_fetch_add(&pmr_cq_obj(ia->send_cq)->nqp, 1);
	atomic_fetch_add(&pmr_cq_obj(ia->recv_cq)->nqp, 1);
	if (ia->srq != NULL)
		atomic_fetch_add(&pmr_srq_obj(ia->srq)->nqp, 1);
	return &qp->pub;
}

PMR_EXPORT int pmr_destroy_qp(struct pmr_qp *pqp)
{
	struct pmr_quiesce q;
	struct pmr_qp_obj *qp;
	struct pmr_dev_obj *dev;

	if (pqp == NULL)
		return EINVAL;
	qp = pmr_qp_obj(pqp);
	dev = qp->ctx->dev;
	if (atomic_load(&qp->async_events_delivered) != pqp->events_completed)
		return EBUSY;
	pmr_dev_quiesce(dev, &q);
	atomic_store_explicit(&dev->qp_table[pqp->qp_num - PMR_QPN_BASE], NULL,
			      memory_order_release);
	pmr_list_del(&qp->link);
	if (dev->drv->qp_destroy != NULL)
		dev->drv->qp_destroy(qp);
	pmr_dev_resume(dev, &q);
	pmr_equeue_cancel(&qp->ctx->async, sizeof(struct pmr_async_event), pqp);
	atomic_fetch_sub(&pmr_pd_obj(pqp->pd)->refs, 1);
	atomic_fetch_sub(&pmr_cq_obj(pqp->send_cq)->nqp, 1);
	atomic_fetch_sub(&pmr_cq_obj(pqp->recv_cq)->nqp, 1);
	if (pqp->srq != NULL)
		atomic_fetch_sub(&pmr_srq_obj(pqp->srq)->nqp, 1);
	qp_free(qp);
	return 0;
}

#define QP_ATTR_KNOWN (PMR_QP_STATE | PMR_QP_CUR_STATE | \
	PMR_QP_EN_SQD_ASYNC_NOTIFY | PMR_QP_ACCESS_FLAGS | PMR_QP_PKEY_INDEX | \
	PMR_QP_PORT | PMR_QP_QKEY | PMR_QP_AV | PMR_QP_PATH_MTU | \
	PMR_QP_TIMEOUT | PMR_QP_RETRY_CNT | PMR_QP_RNR_RETRY | PMR_QP_RQ_PSN | \
	PMR_QP_MAX_QP_RD_ATOMIC | PMR_QP_ALT_PATH | PMR_QP_MIN_RNR_TIMER | \
	PMR_QP_SQ_PSN | PMR_QP_MAX_DEST_RD_ATOMIC | PMR_QP_PATH_MIG_STATE | \
	PMR_QP_CAP | PMR_QP_DEST_QPN | PMR_QP_RATE_LIMIT)

#define QP_ACCESS_SUPPORTED (PMR_ACCESS_LOCAL_WRITE | \
	PMR_ACCESS_REMOTE_WRITE | PMR_ACCESS_REMOTE_READ | \
	PMR_ACCESS_REMOTE_ATOMIC)

static bool ah_attr_ok(struct pmr_dev_obj *dev, const struct pmr_ah_attr *ah)
{
	return ah->is_global && ah->port_num == 1 &&
	       ah->grh.sgid_index < dev->gid_count;
}

/* The values of the attributes in `mask` (the transition is known valid). */
static bool qp_attr_values_ok(struct pmr_qp_obj *qp,
			      const struct pmr_qp_attr *a, int mask)
{
	struct pmr_dev_obj *dev = qp->ctx->dev;
	struct pmr_port_attr port;

	if ((mask & PMR_QP_PORT) && a->port_num != 1)
		return false;
	if ((mask & PMR_QP_PKEY_INDEX) && a->pkey_index != 0)
		return false;
	if ((mask & PMR_QP_ACCESS_FLAGS) &&
	    (a->qp_access_flags & ~QP_ACCESS_SUPPORTED))
		return false;
	if (mask & PMR_QP_PATH_MTU) {
		memset(&port, 0, sizeof(port));
		if (dev->drv->query_port(dev, 1, &port) != 0 ||
		    a->path_mtu < PMR_MTU_256 || a->path_mtu > port.max_mtu)
			return false;
	}
	if ((mask & PMR_QP_AV) && !ah_attr_ok(dev, &a->ah_attr))
		return false;
	if ((mask & PMR_QP_ALT_PATH) && !ah_attr_ok(dev, &a->alt_ah_attr))
		return false;
	if ((mask & PMR_QP_TIMEOUT) && a->timeout > 31)
		return false;
	if ((mask & PMR_QP_RETRY_CNT) && a->retry_cnt > 7)
		return false;
	if ((mask & PMR_QP_RNR_RETRY) && a->rnr_retry > 7)
		return false;
	if ((mask & PMR_QP_MIN_RNR_TIMER) && a->min_rnr_timer > 31)
		return false;
	if ((mask & PMR_QP_RQ_PSN) && a->rq_psn > 0xffffff)
		return false;
	if ((mask & PMR_QP_SQ_PSN) && a->sq_psn > 0xffffff)
		return false;
	if ((mask & PMR_QP_DEST_QPN) && a->dest_qp_num > 0xffffff)
		return false;
	if ((mask & PMR_QP_MAX_QP_RD_ATOMIC) &&
	    a->max_rd_atomic > dev->attr.max_qp_init_rd_atom)
		return false;
	if ((mask & PMR_QP_MAX_DEST_RD_ATOMIC) &&
	    a->max_dest_rd_atomic > dev->attr.max_qp_rd_atom)
		return false;
	if ((mask & PMR_QP_PATH_MIG_STATE) &&
	    a->path_mig_state > PMR_MIG_ARMED)
		return false;
	return true;
}

static void qp_commit(struct pmr_qp_obj *qp, const struct pmr_qp_attr *a,
		      int mask)
{
	struct pmr_qp_attr *c = &qp->attr;

	if (mask & PMR_QP_EN_SQD_ASYNC_NOTIFY)
		c->en_sqd_async_notify = a->en_sqd_async_notify;
	if (mask & PMR_QP_ACCESS_FLAGS)
		c->qp_access_flags = a->qp_access_flags;
	if (mask & PMR_QP_PKEY_INDEX)
		c->pkey_index = a->pkey_index;
	if (mask & PMR_QP_PORT)
		c->port_num = a->port_num;
	if (mask & PMR_QP_QKEY)
		c->qkey = a->qkey;
	if (mask & PMR_QP_AV)
		c->ah_attr = a->ah_attr;
	if (mask & PMR_QP_PATH_MTU)
		c->path_mtu = a->path_mtu;
	if (mask & PMR_QP_TIMEOUT)
		c->timeout = a->timeout;
	if (mask & PMR_QP_RETRY_CNT)
		c->retry_cnt = a->retry_cnt;
	if (mask & PMR_QP_RNR_RETRY)
		c->rnr_retry = a->rnr_retry;
	if (mask & PMR_QP_RQ_PSN)
		c->rq_psn = a->rq_psn;
	if (mask & PMR_QP_MAX_QP_RD_ATOMIC)
		c->max_rd_atomic = a->max_rd_atomic;
	if (mask & PMR_QP_ALT_PATH) {
		c->alt_ah_attr = a->alt_ah_attr;
		c->alt_pkey_index = a->alt_pkey_index;
		c->alt_port_num = a->alt_port_num;
		c->alt_timeout = a->alt_timeout;
	}
	if (mask & PMR_QP_MIN_RNR_TIMER)
		c->min_rnr_timer = a->min_rnr_timer;
	if (mask & PMR_QP_SQ_PSN)
		c->sq_psn = a->sq_psn;
	if (mask & PMR_QP_MAX_DEST_RD_ATOMIC)
		c->max_dest_rd_atomic = a->max_dest_rd_atomic;
	if (mask & PMR_QP_PATH_MIG_STATE)
		c->path_mig_state = a->path_mig_state;
	if (mask & PMR_QP_DEST_QPN)
		c->dest_qp_num = a->dest_qp_num;
}

PMR_EXPORT int pmr_modify_qp(struct pmr_qp *pqp, struct pmr_qp_attr *attr,
			     int mask)
{
	const struct qp_transition *t;
	struct pmr_qp_obj *qp;
	enum pmr_qp_state cur, next;
	uint32_t req, opt, extra;
	int ti, ret;

	if (pqp == NULL || attr == NULL || (mask & ~QP_ATTR_KNOWN))
		return EINVAL;
	qp = pmr_qp_obj(pqp);
	ti = qpt_index(pqp->qp_type);
	pmr_lock(qp->ctx->engine_lock);
	cur = pmr_qp_state(qp);
	next = (mask & PMR_QP_STATE) ? attr->qp_state : cur;
	ret = EINVAL;
	if ((mask & PMR_QP_CUR_STATE) && attr->cur_qp_state != cur)
		goto out;
	if ((unsigned int)next > PMR_QPS_ERR)
		goto out;
	t = &qp_sm[cur][next];
	if (!t->valid)
		goto out;
	req = t->req[ti];
	opt = t->opt[ti];
	extra = (uint32_t)mask & ~(uint32_t)(PMR_QP_STATE | req | opt);
	/* CUR_STATE is harmless in any transition it matches */
	extra &= ~(uint32_t)PMR_QP_CUR_STATE;
	if ((mask & req) != req || extra != 0)
		goto out;
	if (!qp_attr_values_ok(qp, attr, mask))
		goto out;
	if (qp->ctx->dev->drv->qp_modify != NULL) {
		ret = -qp->ctx->dev->drv->qp_modify(qp, attr, mask);
		if (ret != 0)
			goto out;
	}
	ret = 0;
	qp_commit(qp, attr, mask);
	if (next == cur && next != PMR_QPS_RESET)
		goto out;
	switch (next) {
	case PMR_QPS_RESET:
		wq_reset(&qp->sq);
		if (pqp->srq == NULL)
			wq_reset(&qp->rq);
		qp->recv_held = false;
		qp->last_wqe_sent = false;
		qp_set_state(qp, next);
		break;
	case PMR_QPS_ERR:
		qp_set_state(qp, next);
		pmr_qp_flush_all(qp);
		break;
	case PMR_QPS_SQD:
		qp_set_state(qp, next);
		/* an engine that keeps nothing in flight between progress
		 * calls is drained now; the others tell when they are */
		if (qp->attr.en_sqd_async_notify &&
		    !qp->ctx->dev->drv->sq_drained_async)
			pmr_async_raise(qp->ctx, PMR_EVENT_SQ_DRAINED, pqp, 0);
		break;
	default:
		qp_set_state(qp, next);
		break;
	}
out:
	pmr_unlock(qp->ctx->engine_lock);
	return ret;
}

PMR_EXPORT int pmr_query_qp(struct pmr_qp *pqp, struct pmr_qp_attr *attr,
			    int mask, struct pmr_qp_init_attr *init_attr)
{
	struct pmr_qp_obj *qp;

	(void)mask;    /* every attribute is returned, as providers do */
	if (pqp == NULL || attr == NULL || init_attr == NULL)
		return EINVAL;
	qp = pmr_qp_obj(pqp);
	pmr_lock(qp->ctx->engine_lock);
	*attr = qp->attr;
	attr->qp_state = pmr_qp_state(qp);
	attr->cur_qp_state = attr->qp_state;
	attr->sq_draining = 0;
	*init_attr = qp->init;
	pmr_unlock(qp->ctx->engine_lock);
	pqp->state = attr->qp_state;
	return 0;
}

PMR_EXPORT int pmr_query_qp_mem(struct pmr_qp *pqp, struct pmr_qp_mem *mem)
{
	const struct pmr_driver *drv;
	struct pmr_qp_obj *qp;

	if (pqp == NULL || mem == NULL)
		return EINVAL;
	qp = pmr_qp_obj(pqp);
	drv = qp->ctx->dev->drv;
	memset(mem, 0, sizeof(*mem));
	/* the sizes are fixed at creation: no lock needed */
	mem->object = sizeof(*qp);
	mem->sq_slots = qp->sq.size;
	mem->sq_slot = qp->sq.slot_size;
	mem->sq = (size_t)qp->sq.size * qp->sq.slot_size;
	if (qp->rq.buf != NULL) {
		mem->rq_slots = qp->rq.size;
		mem->rq_slot = qp->rq.slot_size;
		mem->rq = (size_t)qp->rq.size * qp->rq.slot_size;
	}
	mem->device = drv->qp_mem ? drv->qp_mem(qp) : 0;
	mem->total = mem->object + mem->sq + mem->rq + mem->device;
	return 0;
}

/* ---- posting ------------------------------------------------------------ */

static int sq_check(struct pmr_qp_obj *qp, const struct pmr_send_wr *wr)
{
	unsigned int op = (unsigned int)wr->opcode;

	if (op >= 16 || !(wr_opcode_qpt[op] & qpt_bit(qp->pub.qp_type)))
		return EINVAL;
	if (wr->num_sge < 0 || (uint32_t)wr->num_sge > qp->sq.max_sge)
		return EINVAL;
	if (qp->pub.qp_type == PMR_QPT_UD &&
	    (wr->wr.ud.ah == NULL || wr->wr.ud.ah->pd != qp->pub.pd))
		return EINVAL;
	if (wr->send_flags & PMR_SEND_INLINE) {
		uint64_t len = 0;

		if (op == PMR_WR_RDMA_READ || op == PMR_WR_ATOMIC_CMP_AND_SWP ||
		    op == PMR_WR_ATOMIC_FETCH_AND_ADD)
			return EINVAL;
		for (int i = 0; i < wr->num_sge; i++)
			len += wr->sg_list[i].length;
		if (len > qp->sq.max_inline)
			return EINVAL;
	}
	return 0;
}

static void sq_write(struct pmr_qp_obj *qp, struct pmr_swqe *w,
		     const struct pmr_send_wr *wr)
{
	uint64_t len = 0;

	w->wr_id = wr->wr_id;
	w->opcode = (uint8_t)wr->opcode;
	w->send_flags = wr->send_flags;
	if (qp->init.sq_sig_all)
		w->send_flags |= PMR_SEND_SIGNALED;
	w->imm_data = wr->imm_data;
	switch (wr->opcode) {
	case PMR_WR_ATOMIC_CMP_AND_SWP:
	case PMR_WR_ATOMIC_FETCH_AND_ADD:
		w->remote_addr = wr->wr.atomic.remote_addr;
		w->rkey = wr->wr.atomic.rkey;
		w->compare_add = wr->wr.atomic.compare_add;
		w->swap = wr->wr.atomic.swap;
		break;
	default:
		if (qp->pub.qp_type == PMR_QPT_UD) {
			w->ah = pmr_ah_obj(wr->wr.ud.ah);
			w->remote_qpn = wr->wr.ud.remote_qpn;
			w->remote_qkey = wr->wr.ud.remote_qkey;
		} else {
			w->remote_addr = wr->wr.rdma.remote_addr;
			w->rkey = wr->wr.rdma.rkey;
		}
		break;
	}
	if (wr->send_flags & PMR_SEND_INLINE) {
		uint8_t *dst = pmr_swqe_inline(w);

		for (int i = 0; i < wr->num_sge; i++) {
			memcpy(dst + len,
			       (const void *)(uintptr_t)wr->sg_list[i].addr,
			       wr->sg_list[i].length);
			len += wr->sg_list[i].length;
		}
		w->inl = 1;
		w->num_sge = 0;
	} else {
		struct pmr_sge *sge = pmr_swqe_sge(w);

		for (int i = 0; i < wr->num_sge; i++) {
			sge[i] = wr->sg_list[i];
			len += wr->sg_list[i].length;
		}
		w->inl = 0;
		w->num_sge = (uint16_t)wr->num_sge;
	}
	w->length = len > UINT32_MAX ? UINT32_MAX : (uint32_t)len;
}

PMR_EXPORT int pmr_post_send(struct pmr_qp *pqp, struct pmr_send_wr *wr,
			     struct pmr_send_wr **bad_wr)
{
	struct pmr_qp_obj *qp = pmr_qp_obj(pqp);
	struct pmr_wq *sq = &qp->sq;
	enum pmr_qp_state st = pmr_qp_state(qp);
	uint32_t prod, cons;
	int err = 0;

	if (st < PMR_QPS_RTS) {
		*bad_wr = wr;
		return EINVAL;
	}
	prod = atomic_load_explicit(&sq->prod, memory_order_relaxed);
	cons = atomic_load_explicit(&sq->cons, memory_order_acquire);
	for (; wr != NULL; wr = wr->next) {
		err = sq_check(qp, wr);
		if (err != 0)
			break;
		if (prod - cons >= sq->size) {
			cons = atomic_load_explicit(&sq->cons,
						    memory_order_acquire);
			if (prod - cons >= sq->size) {
				err = ENOMEM;
				break;
			}
		}
		sq_write(qp, pmr_wq_slot(sq, prod), wr);
		prod++;
	}
	atomic_store_explicit(&sq->prod, prod, memory_order_release);
	if (err != 0)
		*bad_wr = wr;
	if (st >= PMR_QPS_SQE) {
		if (qp->ctx->doorbells)
			pmr_qp_doorbell(qp);
		pmr_lock(qp->ctx->engine_lock);
		pmr_qp_flush_posted(qp);
		pmr_unlock(qp->ctx->engine_lock);
	} else {
		pmr_ctx_post_kick(qp->ctx, qp);
	}
	return err;
}

PMR_EXPORT int pmr_post_recv(struct pmr_qp *pqp, struct pmr_recv_wr *wr,
			     struct pmr_recv_wr **bad_wr)
{
	struct pmr_qp_obj *qp = pmr_qp_obj(pqp);
	enum pmr_qp_state st = pmr_qp_state(qp);
	int err;

	if (st == PMR_QPS_RESET || pqp->srq != NULL) {
		*bad_wr = wr;
		return EINVAL;
	}
	err = rq_post(&qp->rq, wr, bad_wr);
	/* no engine run otherwise: a receive is taken when a message comes
	 * (a sender waiting on RNR retries on its own timer) */
	if (st == PMR_QPS_ERR) {
		pmr_lock(qp->ctx->engine_lock);
		pmr_qp_flush_posted(qp);
		pmr_unlock(qp->ctx->engine_lock);
	}
	return err;
}
