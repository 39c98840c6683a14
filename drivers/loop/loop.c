/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The loopback device: an in-process RNIC whose "wire" is memory.  It
 * executes RC, UC and UD work requests between QPs of the same device
 * with the semantics a RoCEv2 peer would give them: receive matching,
 * remote access checks, RNR waits and retries, transport retries when
 * the peer QP does not answer, UD Q_Key checks and GRH placement, and
 * the error -> completion status rules of the transport.
 *
 * All contexts of a loop device share one engine lock: a context's
 * progress runs its own QPs' send queues, and may deliver to QPs of any
 * context of the device (their responder side).  Work requests execute
 * whole, in posting order, so nothing is in flight between progress
 * calls (fences and SQD drain are trivially honoured).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pmr_driver.h"
#include "wire.h"

RTE_LOG_REGISTER(loop_logtype, pmr.loop, NOTICE);
#define LOOP_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, loop_logtype, "pmr_loop: " fmt "\n", \
		##__VA_ARGS__)

#define LOOP_MAX_MSG (1u << 31)
#define LOOP_GRH_LEN 40

struct loop_dev {
	pmr_lock_t lock;             /* the engine lock of every context */
	enum pmr_mtu mtu;
};

/* A QP's own state: the requester's waits and retries of the WQE at the
 * SQ head, and the responder's COMM_EST. */
struct loop_qp {
	uint32_t head;               /* SQ index the counters belong to */
	bool head_valid;
	uint8_t retry_left;
	uint8_t rnr_left;
	bool comm_est;               /* responder: COMM_EST raised since
				      * RESET */
	uint64_t deadline_ns;        /* 0: not waiting */
};

enum exec_result {
	EXEC_DONE,                   /* retire with the status given */
	EXEC_RNR,                    /* receiver not ready: wait, retry */
	EXEC_NO_ANSWER,              /* no ACK would come: timeout, retry */
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ---- scatter/gather ------------------------------------------------- */

struct seg {
	uint8_t *p;
	uint64_t len;
};

struct seglist {
	struct seg s[PMR_MAX_SGE];
	int n;
	uint64_t total;
};

/* Resolve local SGEs through the MR table. @return false: LOC_PROT_ERR. */
static bool sges_resolve(struct pmr_dev_obj *dev, struct pmr_pd *pd,
			 const struct pmr_sge *sge, uint32_t n, int access,
			 struct seglist *out)
{
	out->n = 0;
	out->total = 0;
	for (uint32_t i = 0; i < n; i++) {
		void *p;

		if (sge[i].length == 0)
			continue;
		p = pmr_mr_check(dev, pd, sge[i].lkey, sge[i].addr,
				 sge[i].length, access, false);
		if (p == NULL)
			return false;
		out->s[out->n].p = p;
		out->s[out->n].len = sge[i].length;
		out->n++;
		out->total += sge[i].length;
	}
	return true;
}

/*
 * Copy `len` bytes from src to dst, in address order.  With last_last,
 * the final byte is stored after everything else is visible, so a reader
 * spinning on it sees the whole message (as RDMA WRITE users expect).
 */
static void seg_copy(struct seglist *dst, const struct seglist *src,
		     uint64_t len, bool last_last)
{
	int di = 0, si = 0;
	uint64_t doff = 0, soff = 0;
	uint8_t *last_dst = NULL;
	uint8_t last_val = 0;

	while (len > 0) {
		uint64_t n = dst->s[di].len - doff;

		if (src->s[si].len - soff < n)
			n = src->s[si].len - soff;
		if (n > len)
			n = len;
		if (last_last && n == len) {
			last_dst = dst->s[di].p + doff + n - 1;
			last_val = src->s[si].p[soff + n - 1];
			n--;
			if (n == 0)
				break;
		}
		memcpy(dst->s[di].p + doff, src->s[si].p + soff, n);
		len -= n;
		doff += n;
		soff += n;
		if (doff == dst->s[di].len) {
			di++;
			doff = 0;
		}
		if (soff == src->s[si].len) {
			si++;
			soff = 0;
		}
	}
	if (last_dst != NULL) {
		atomic_thread_fence(memory_order_release);
		*(volatile uint8_t *)last_dst = last_val;
	}
}

static void seg_single(struct seglist *l, void *p, uint64_t len)
{
	l->n = len ? 1 : 0;
	l->s[0].p = p;
	l->s[0].len = len;
	l->total = len;
}

/* ---- the responder side --------------------------------------------- */

static bool resp_ready(const struct pmr_qp_obj *d)
{
	enum pmr_qp_state s = pmr_qp_state(d);

	return s == PMR_QPS_RTR || s == PMR_QPS_RTS || s == PMR_QPS_SQD ||
	       s == PMR_QPS_SQE;
}

/* Responder detects an error on an RC request: its QP goes to ERR. */
static void resp_fatal(struct pmr_qp_obj *d, enum pmr_event_type ev)
{
	pmr_qp_set_error(d, (int)ev);
}

/* Deliver a message into the receive WQE held by `d`. */
static enum pmr_wc_status resp_deliver(struct pmr_qp_obj *d,
				       const struct seglist *src,
				       uint64_t len, const uint8_t *grh)
{
	struct pmr_dev_obj *dev = d->ctx->dev;
	struct seglist dst;
	uint64_t need = len + (grh ? LOOP_GRH_LEN : 0);

	if (!sges_resolve(dev, d->pub.pd, d->recv.sge, d->recv.hdr.num_sge,
			  PMR_ACCESS_LOCAL_WRITE, &dst))
		return PMR_WC_LOC_PROT_ERR;
	if (dst.total < need)
		return PMR_WC_LOC_LEN_ERR;
	if (grh != NULL) {
		struct seglist g;

		seg_single(&g, (void *)(uintptr_t)grh, LOOP_GRH_LEN);
		seg_copy(&dst, &g, LOOP_GRH_LEN, false);
		/* advance dst past the GRH */
		for (uint64_t skip = LOOP_GRH_LEN; skip > 0;) {
			uint64_t n = dst.s[0].len < skip ? dst.s[0].len : skip;

			dst.s[0].p += n;
			dst.s[0].len -= n;
			skip -= n;
			if (dst.s[0].len == 0) {
				memmove(&dst.s[0], &dst.s[1],
					(size_t)(dst.n - 1) * sizeof(dst.s[0]));
				dst.n--;
			}
		}
	}
	seg_copy(&dst, src, len, false);
	return PMR_WC_SUCCESS;
}

/* ---- executing one send WQE ------------------------------------------ */

struct exec {
	struct pmr_qp_obj *qp;       /* requester */
	struct pmr_qp_obj *d;        /* responder, if any */
	struct pmr_swqe *w;
	enum pmr_wc_status status;
	uint32_t byte_len;
};

static bool rc_peer_matches(const struct pmr_qp_obj *qp,
			    const struct pmr_qp_obj *d)
{
	return d != NULL && d->pub.qp_type == qp->pub.qp_type &&
	       resp_ready(d) && d->attr.dest_qp_num == qp->pub.qp_num;
}

/* Receive side of SEND / WRITE_WITH_IMM on RC and UC. */
static enum exec_result exec_recv_side(struct exec *x,
				       const struct seglist *src,
				       uint64_t len, bool write_imm)
{
	struct pmr_qp_obj *d = x->d;
	bool rc = x->qp->pub.qp_type == PMR_QPT_RC;
	struct pmr_wc wc;
	enum pmr_wc_status st;

	if (!pmr_rq_take(d)) {
		if (rc)
			return EXEC_RNR;
		x->status = PMR_WC_SUCCESS;     /* UC: dropped silently */
		return EXEC_DONE;
	}
	memset(&wc, 0, sizeof(wc));
	if (write_imm) {
		st = PMR_WC_SUCCESS;
		wc.opcode = PMR_WC_RECV_RDMA_WITH_IMM;
	} else {
		st = resp_deliver(d, src, len, NULL);
		wc.opcode = PMR_WC_RECV;
	}
	wc.status = st;
	wc.byte_len = (uint32_t)len;
	wc.src_qp = x->qp->pub.qp_num;
	if (x->w->opcode == PMR_WR_SEND_WITH_IMM ||
	    x->w->opcode == PMR_WR_RDMA_WRITE_WITH_IMM) {
		wc.wc_flags |= PMR_WC_WITH_IMM;
		wc.imm_data = x->w->imm_data;
	}
	pmr_rq_complete(d, &wc, (x->w->send_flags & PMR_SEND_SOLICITED) != 0);
	if (st == PMR_WC_LOC_LEN_ERR)
		x->status = rc ? PMR_WC_REM_INV_REQ_ERR : PMR_WC_SUCCESS;
	else if (st != PMR_WC_SUCCESS)
		x->status = rc ? PMR_WC_REM_OP_ERR : PMR_WC_SUCCESS;
	else
		x->status = PMR_WC_SUCCESS;
	return EXEC_DONE;
}

/* A remote access error found by the responder (RC: NAK, QP -> ERR). */
static enum exec_result remote_access_error(struct exec *x)
{
	if (x->qp->pub.qp_type == PMR_QPT_RC) {
		resp_fatal(x->d, PMR_EVENT_QP_ACCESS_ERR);
		x->status = PMR_WC_REM_ACCESS_ERR;
	} else {
		x->status = PMR_WC_SUCCESS;     /* UC: the packet is dropped */
	}
	return EXEC_DONE;
}

static enum exec_result remote_invalid_request(struct exec *x)
{
	resp_fatal(x->d, PMR_EVENT_QP_REQ_ERR);
	x->status = PMR_WC_REM_INV_REQ_ERR;
	return EXEC_DONE;
}

/* The responder QP does not enable the operation (its access flags):
 * RC: an invalid request (IBA 9.7.5.2.2, as soft-RoCE); UC: dropped. */
static enum exec_result op_not_enabled(struct exec *x)
{
	if (x->qp->pub.qp_type == PMR_QPT_RC)
		return remote_invalid_request(x);
	x->status = PMR_WC_SUCCESS;
	return EXEC_DONE;
}

/* A request of its peer reached RC or UC QP d: the first since d entered
 * RTR raises COMM_EST (as the roce device does on the wire). */
static void comm_est(struct pmr_qp_obj *d)
{
	struct loop_qp *dq = d->priv;

	if (pmr_qp_state(d) == PMR_QPS_RTR && !dq->comm_est) {
		dq->comm_est = true;
		pmr_async_raise(d->ctx, PMR_EVENT_COMM_EST, &d->pub, 0);
	}
}

static enum exec_result exec_rc_uc(struct exec *x)
{
	struct pmr_qp_obj *qp = x->qp, *d;
	struct pmr_dev_obj *dev = qp->ctx->dev;
	struct pmr_swqe *w = x->w;
	struct seglist src, local, remote;
	uint8_t *rp;
	int rights;

	d = pmr_dev_qp(dev, qp->attr.dest_qp_num);
	if (!rc_peer_matches(qp, d)) {
		if (qp->pub.qp_type == PMR_QPT_RC)
			return EXEC_NO_ANSWER;
		x->status = PMR_WC_SUCCESS;
		return EXEC_DONE;
	}
	x->d = d;
	x->byte_len = w->length;
	comm_est(d);

	switch (w->opcode) {
	case PMR_WR_SEND:
	case PMR_WR_SEND_WITH_IMM:
		if (w->inl)
			seg_single(&src, pmr_swqe_inline(w), w->length);
		else if (!sges_resolve(dev, qp->pub.pd, pmr_swqe_sge(w),
				       w->num_sge, 0, &src))
			goto loc_prot;
		return exec_recv_side(x, &src, w->length, false);

	case PMR_WR_RDMA_WRITE:
	case PMR_WR_RDMA_WRITE_WITH_IMM:
		if (w->inl)
			seg_single(&src, pmr_swqe_inline(w), w->length);
		else if (!sges_resolve(dev, qp->pub.pd, pmr_swqe_sge(w),
				       w->num_sge, 0, &src))
			goto loc_prot;
		rights = PMR_ACCESS_REMOTE_WRITE;
		if (!(d->attr.qp_access_flags & rights))
			return op_not_enabled(x);
		if (w->opcode == PMR_WR_RDMA_WRITE_WITH_IMM &&
		    qp->pub.qp_type == PMR_QPT_RC && !pmr_rq_take(d))
			return EXEC_RNR;
		rp = pmr_mr_check(dev, d->pub.pd, w->rkey, w->remote_addr,
				  w->length, rights, true);
		if (rp == NULL) {
			if (qp->pub.qp_type == PMR_QPT_RC && d->recv_held &&
			    w->opcode == PMR_WR_RDMA_WRITE_WITH_IMM) {
				/* the receive it consumed fails with the
				 * protection error (VERBS.md LOC_ACCESS_ERR) */
				struct pmr_wc wc = {
					.status = PMR_WC_LOC_ACCESS_ERR,
					.opcode = PMR_WC_RECV_RDMA_WITH_IMM,
				};

				pmr_rq_complete(d, &wc, false);
				pmr_async_raise(d->ctx, PMR_EVENT_QP_ACCESS_ERR,
						&d->pub, 0);
				x->status = PMR_WC_REM_ACCESS_ERR;
				return EXEC_DONE;
			}
			return remote_access_error(x);
		}
		seg_single(&remote, rp, w->length);
		seg_copy(&remote, &src, w->length, true);
		if (w->opcode == PMR_WR_RDMA_WRITE_WITH_IMM)
			return exec_recv_side(x, NULL, w->length, true);
		x->status = PMR_WC_SUCCESS;
		return EXEC_DONE;

	case PMR_WR_RDMA_READ:
		if (!sges_resolve(dev, qp->pub.pd, pmr_swqe_sge(w), w->num_sge,
				  PMR_ACCESS_LOCAL_WRITE, &local))
			goto loc_prot;
		if (d->attr.max_dest_rd_atomic == 0)
			return remote_invalid_request(x);
		rights = PMR_ACCESS_REMOTE_READ;
		if (!(d->attr.qp_access_flags & rights))
			return op_not_enabled(x);
		rp = pmr_mr_check(dev, d->pub.pd, w->rkey, w->remote_addr,
				  w->length, rights, true);
		if (rp == NULL)
			return remote_access_error(x);
		seg_single(&remote, rp, w->length);
		seg_copy(&local, &remote, w->length, false);
		x->status = PMR_WC_SUCCESS;
		return EXEC_DONE;

	case PMR_WR_ATOMIC_CMP_AND_SWP:
	case PMR_WR_ATOMIC_FETCH_AND_ADD: {
		uint64_t *target, orig;

		if (w->num_sge != 1 || w->length != 8) {
			x->status = PMR_WC_LOC_LEN_ERR;
			return EXEC_DONE;
		}
		if (!sges_resolve(dev, qp->pub.pd, pmr_swqe_sge(w), 1,
				  PMR_ACCESS_LOCAL_WRITE, &local))
			goto loc_prot;
		if (d->attr.max_dest_rd_atomic == 0 || (w->remote_addr & 7))
			return remote_invalid_request(x);
		rights = PMR_ACCESS_REMOTE_ATOMIC;
		if (!(d->attr.qp_access_flags & rights))
			return op_not_enabled(x);
		target = pmr_mr_check(dev, d->pub.pd, w->rkey, w->remote_addr,
				      8, rights, true);
		if (target == NULL)
			return remote_access_error(x);
		if (w->opcode == PMR_WR_ATOMIC_FETCH_AND_ADD) {
			orig = __atomic_fetch_add(target, w->compare_add,
						  __ATOMIC_SEQ_CST);
		} else {
			orig = w->compare_add;
			__atomic_compare_exchange_n(target, &orig, w->swap,
						    false, __ATOMIC_SEQ_CST,
						    __ATOMIC_SEQ_CST);
		}
		seg_single(&src, &orig, 8);
		seg_copy(&local, &src, 8, false);
		x->status = PMR_WC_SUCCESS;
		return EXEC_DONE;
	}
	default:
		x->status = PMR_WC_LOC_QP_OP_ERR;
		return EXEC_DONE;
	}

loc_prot:
	x->status = PMR_WC_LOC_PROT_ERR;
	return EXEC_DONE;
}

/* The 40 bytes a UD receive gets in front of the data (IPv4: 20 zero
 * bytes, then the IPv4 header, as RoCEv2 devices place it). */
static void ud_grh(uint8_t grh[LOOP_GRH_LEN], const union pmr_gid *sgid,
		   const union pmr_gid *dgid, uint32_t payload)
{
	uint8_t *ip = grh + 20;
	uint32_t tot = 20 + 8 + 12 + 8 + payload + 4;

	memset(grh, 0, LOOP_GRH_LEN);
	ip[0] = 0x45;
	ip[2] = (uint8_t)(tot >> 8);
	ip[3] = (uint8_t)tot;
	ip[6] = 0x40;           /* DF */
	ip[8] = 64;             /* TTL */
	ip[9] = 17;             /* UDP */
	memcpy(ip + 12, &sgid->raw[12], 4);
	memcpy(ip + 16, &dgid->raw[12], 4);
}

static enum exec_result exec_ud(struct exec *x)
{
	struct pmr_qp_obj *qp = x->qp, *d;
	struct pmr_dev_obj *dev = qp->ctx->dev;
	struct loop_dev *ld = dev->priv;
	struct pmr_swqe *w = x->w;
	struct seglist src;
	uint8_t grh[LOOP_GRH_LEN];
	uint32_t qkey;
	bool ours = false;
	struct pmr_wc wc;

	if ((int)w->length > pmr_mtu_to_num(ld->mtu)) {
		x->status = PMR_WC_LOC_LEN_ERR;
		return EXEC_DONE;
	}
	if (w->inl)
		seg_single(&src, pmr_swqe_inline(w), w->length);
	else if (!sges_resolve(dev, qp->pub.pd, pmr_swqe_sge(w), w->num_sge,
			       0, &src)) {
		x->status = PMR_WC_LOC_PROT_ERR;
		return EXEC_DONE;
	}
	x->status = PMR_WC_SUCCESS;   /* UD: sent, whatever happens next */
	x->byte_len = w->length;
	for (int i = 0; i < dev->gid_count; i++)
		ours |= memcmp(&dev->gid[i], &w->ah->attr.grh.dgid,
			       sizeof(union pmr_gid)) == 0;
	d = pmr_dev_qp(dev, w->remote_qpn);
	if (!ours || d == NULL || d->pub.qp_type != PMR_QPT_UD ||
	    !resp_ready(d))
		return EXEC_DONE;
	qkey = (w->remote_qkey & 0x80000000u) ? qp->attr.qkey : w->remote_qkey;
	if (qkey != d->attr.qkey || !pmr_rq_take(d))
		return EXEC_DONE;     /* dropped, as on the wire */
	ud_grh(grh, &dev->gid[w->ah->attr.grh.sgid_index],
	       &w->ah->attr.grh.dgid, w->length);
	memset(&wc, 0, sizeof(wc));
	wc.status = resp_deliver(d, &src, w->length, grh);
	wc.opcode = PMR_WC_RECV;
	wc.byte_len = w->length + LOOP_GRH_LEN;
	wc.src_qp = qp->pub.qp_num;
	wc.wc_flags = PMR_WC_GRH;
	if (w->opcode == PMR_WR_SEND_WITH_IMM) {
		wc.wc_flags |= PMR_WC_WITH_IMM;
		wc.imm_data = w->imm_data;
	}
	pmr_rq_complete(d, &wc, (w->send_flags & PMR_SEND_SOLICITED) != 0);
	return EXEC_DONE;
}

/* ---- the requester loop ---------------------------------------------- */

static void head_reset(struct pmr_qp_obj *qp, struct loop_qp *lq,
		       uint32_t head)
{
	lq->head = head;
	lq->head_valid = true;
	lq->retry_left = qp->attr.retry_cnt;
	lq->rnr_left = qp->attr.rnr_retry;
	lq->deadline_ns = 0;
}

/* @return WRs finished (0 when idle or waiting). */
static unsigned int qp_run(struct pmr_qp_obj *qp, unsigned int budget,
			   uint64_t *now)
{
	struct loop_qp *lq = qp->priv;
	unsigned int done = 0;

	while (done < budget && pmr_qp_state(qp) == PMR_QPS_RTS) {
		uint32_t head = atomic_load_explicit(&qp->sq.cons,
						     memory_order_relaxed);
		struct exec x = { .qp = qp };
		enum exec_result r;

		if (atomic_load_explicit(&qp->sq.prod,
					 memory_order_acquire) == head)
			break;
		if (!lq->head_valid || lq->head != head)
			head_reset(qp, lq, head);
		if (lq->deadline_ns != 0) {
			if (*now == 0)
				*now = now_ns();
			if (*now < lq->deadline_ns)
				break;
			lq->deadline_ns = 0;
		}
		x.w = pmr_wq_slot(&qp->sq, head);
		if (x.w->length > LOOP_MAX_MSG) {
			x.status = PMR_WC_LOC_LEN_ERR;
			r = EXEC_DONE;
		} else if (qp->pub.qp_type == PMR_QPT_UD) {
			r = exec_ud(&x);
		} else {
			r = exec_rc_uc(&x);
		}
		if (r == EXEC_RNR) {
			const struct pmr_qp_obj *d = x.d;

			if (qp->attr.rnr_retry != 7 && lq->rnr_left-- == 0) {
				pmr_sq_retire(qp, PMR_WC_RNR_RETRY_EXC_ERR, 0, 0);
				done++;
				continue;
			}
			*now = now_ns();
			lq->deadline_ns = *now +
				wire_rnr_timer_ns(d->attr.min_rnr_timer);
			break;
		}
		if (r == EXEC_NO_ANSWER) {
			uint64_t t = wire_ack_timeout_ns(qp->attr.timeout);

			if (t == 0)
				break;  /* timeout 0: never times out */
			if (lq->retry_left-- == 0) {
				pmr_sq_retire(qp, PMR_WC_RETRY_EXC_ERR, 0, 0);
				done++;
				continue;
			}
			*now = now_ns();
			lq->deadline_ns = *now + t;
			break;
		}
		pmr_sq_retire(qp, x.status, x.byte_len, 0);
		lq->head_valid = false;
		done++;
	}
	return done;
}

/*
 * Run the requesters of this context's QPs (a manual context's work runs
 * only when it calls pmr_progress).  Their responders may be QPs of other
 * contexts of the device: the shared engine lock makes that safe.
 */
static int loop_progress(struct pmr_ctx_obj *ctx, unsigned int budget)
{
	struct pmr_list *pos;
	uint64_t now = 0;
	unsigned int done = 0;

	PMR_LIST_FOREACH(pos, &ctx->qps) {
		struct pmr_qp_obj *qp = PMR_CONTAINER_OF(pos,
			struct pmr_qp_obj, link);

		if (done >= budget)
			break;
		done += qp_run(qp, budget - done, &now);
	}
	return (int)done;
}

/* ---- control ------------------------------------------------------------ */

static int loop_qp_create(struct pmr_qp_obj *qp)
{
	qp->priv = calloc(1, sizeof(struct loop_qp));
	return qp->priv ? 0 : -ENOMEM;
}

static size_t loop_qp_mem(const struct pmr_qp_obj *qp)
{
	(void)qp;
	return sizeof(struct loop_qp);
}

static void loop_qp_destroy(struct pmr_qp_obj *qp)
{
	free(qp->priv);
	qp->priv = NULL;
}

static int loop_qp_modify(struct pmr_qp_obj *qp, const struct pmr_qp_attr *a,
			  int mask)
{
	struct loop_qp *lq = qp->priv;

	lq->head_valid = false;      /* a new state restarts the counters */
	if ((mask & PMR_QP_STATE) && a->qp_state == PMR_QPS_RESET)
		lq->comm_est = false;
	return 0;
}

static int loop_ctx_open(struct pmr_ctx_obj *ctx)
{
	struct loop_dev *ld = ctx->dev->priv;

	ctx->engine_lock = &ld->lock;
	return 0;
}

static int loop_set_progress_mode(struct pmr_ctx_obj *ctx,
				  enum pmr_progress_mode mode)
{
	(void)ctx;
	/* no service core: the loop device has no port to serve */
	return mode == PMR_PROGRESS_SERVICE ? -ENOTSUP : 0;
}

static int loop_query_port(struct pmr_dev_obj *dev, uint8_t port,
			   struct pmr_port_attr *a)
{
	struct loop_dev *ld = dev->priv;

	(void)port;
	a->state = PMR_PORT_ACTIVE;
	a->max_mtu = ld->mtu;
	a->active_mtu = ld->mtu;
	a->gid_tbl_len = (int)(sizeof(dev->gid) / sizeof(dev->gid[0]));
	a->port_cap_flags = PMR_PORT_CM_SUP | PMR_PORT_IP_BASED_GIDS;
	a->max_msg_sz = LOOP_MAX_MSG;
	a->pkey_tbl_len = 1;
	a->max_vl_num = 1;
	a->active_width = 1;         /* 1X */
	a->active_speed = 32;        /* 25 Gb/s class, nominal */
	a->phys_state = 5;           /* LinkUp */
	a->link_layer = PMR_LINK_LAYER_ETHERNET;
	return 0;
}

struct loop_args {
	enum pmr_mtu mtu;
};

static int loop_arg(const char *key, const char *value, void *opaque)
{
	struct loop_args *a = opaque;

	if (strcmp(key, "mtu") == 0) {
		a->mtu = pmr_kvarg_mtu(value);
		if (a->mtu == 0) {
			LOOP_LOG(ERR, "mtu must be 256, 512, 1024, 2048 or 4096");
			return -EINVAL;
		}
		return 0;
	}
	LOOP_LOG(ERR, "unknown argument '%s'", key);
	return -EINVAL;
}

static void gid_v4(union pmr_gid *g, uint8_t a, uint8_t b, uint8_t c,
		   uint8_t d)
{
	memset(g, 0, sizeof(*g));
	g->raw[10] = 0xff;
	g->raw[11] = 0xff;
	g->raw[12] = a;
	g->raw[13] = b;
	g->raw[14] = c;
	g->raw[15] = d;
}

static int loop_probe(struct pmr_dev_obj *dev, const char *args)
{
	struct loop_args la = { .mtu = PMR_MTU_4096 };
	struct pmr_device_attr *a = &dev->attr;
	struct loop_dev *ld;
	int ret;

	ret = pmr_kvargs_parse(args, loop_arg, &la);
	if (ret != 0)
		return ret;
	ld = calloc(1, sizeof(*ld));
	if (ld == NULL)
		return -ENOMEM;
	atomic_flag_clear(&ld->lock.flag);
	ld->mtu = la.mtu;
	dev->priv = ld;
	snprintf(dev->pub.dev_path, sizeof(dev->pub.dev_path), "loop:%d",
		 dev->index);
	snprintf(a->fw_ver, sizeof(a->fw_ver), "pmrdma-loop 0.1");
	/* EUI-64 of a locally administered MAC 02:00:00:00:00:<index + 1> */
	a->node_guid = (pmr_be64)__builtin_bswap64(0x020000fffe000000ull |
						   (uint64_t)(dev->index + 1));
	pmr_dev_attr_defaults(a);
	gid_v4(&dev->gid[0], 127, 0, 0, 1);
	dev->gid_count = 1;
	return 0;
}

static void loop_remove(struct pmr_dev_obj *dev)
{
	free(dev->priv);
}

static const struct pmr_driver loop_driver = {
	.name = "loop",
	.needs_eal = false,
	.probe = loop_probe,
	.remove = loop_remove,
	.query_port = loop_query_port,
	.ctx_open = loop_ctx_open,
	.set_progress_mode = loop_set_progress_mode,
	.qp_create = loop_qp_create,
	.qp_modify = loop_qp_modify,
	.qp_destroy = loop_qp_destroy,
	.qp_mem = loop_qp_mem,
	.progress = loop_progress,
};

PMR_DRIVER_REGISTER(loop_driver)
