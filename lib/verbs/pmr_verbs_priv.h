/* SPDX-License-Identifier: BSD-3-Clause */
/* Private helpers of lib/verbs (not for drivers, not installed). */
#ifndef PMR_VERBS_PRIV_H
#define PMR_VERBS_PRIV_H

#include "pmr_driver.h"

/*
 * Event queue: a bounded FIFO of fixed-size entries guarded by a mutex,
 * with an eventfd (semaphore mode) that counts queued entries, so the fd
 * is readable exactly while an entry is pending.  Used for async events
 * and completion channels (slow paths only).
 */
int pmr_equeue_init(struct pmr_async_queue *q, uint32_t cap, size_t esize);
void pmr_equeue_fini(struct pmr_async_queue *q);
/** @return 0, or -ENOSPC when full (the entry is dropped). */
int pmr_equeue_push(struct pmr_async_queue *q, const void *entry,
		    size_t esize);
/** Wait (per the fd's O_NONBLOCK) and pop. @return 0 or -errno. */
int pmr_equeue_pop(struct pmr_async_queue *q, void *entry, size_t esize);
/** Invalidate queued entries whose first pointer-sized word is `match`. */
void pmr_equeue_cancel(struct pmr_async_queue *q, size_t esize,
		       const void *match);

/** Run the context's engine (try-lock; 0 if someone else runs it). */
int pmr_ctx_progress(struct pmr_ctx_obj *ctx, unsigned int budget);

/** Inline progress from post/poll when the context runs that way. */
static inline void pmr_ctx_kick(struct pmr_ctx_obj *ctx)
{
	if (ctx->mode == PMR_PROGRESS_INLINE)
		pmr_ctx_progress(ctx, PMR_DEFAULT_BUDGET);
}

/**
 * Tell the engine that WRs were posted to qp.  With inline progress and a
 * driver post_kick, its lighter doorbell takes qp on directly under the
 * engine lock.  Otherwise (another progress mode, no such driver op, the
 * engine busy on another lcore) the QP's doorbell rings, and with inline
 * progress and no post_kick the engine runs.
 */
static inline void pmr_ctx_post_kick(struct pmr_ctx_obj *ctx,
				     struct pmr_qp_obj *qp)
{
	int (*kick)(struct pmr_ctx_obj *, struct pmr_qp_obj *, unsigned int) =
		ctx->dev->drv->post_kick;

	if (ctx->mode == PMR_PROGRESS_INLINE && kick != NULL &&
	    pmr_trylock(ctx->engine_lock)) {
		kick(ctx, qp, PMR_DEFAULT_BUDGET);
		pmr_unlock(ctx->engine_lock);
		return;
	}
	if (ctx->doorbells)
		pmr_qp_doorbell(qp);
	if (kick == NULL)
		pmr_ctx_kick(ctx);
}

/** Flush every outstanding WR of a QP in ERR (engine lock held). */
void pmr_qp_flush_all(struct pmr_qp_obj *qp);

/** Whether any posted WR of the context references the MR's keys. */
bool pmr_ctx_mr_referenced(struct pmr_ctx_obj *ctx, struct pmr_mr_obj *mr);

/** Whether any posted UD WR of the context uses the AH. */
bool pmr_ctx_ah_referenced(struct pmr_ctx_obj *ctx, struct pmr_ah_obj *ah);

/*
 * Stop every engine of the device (take dev->mutex and each distinct
 * engine lock), so device-wide tables and lists can change safely.
 * Resume releases exactly the locks quiesce took, whatever happened to
 * the context list in between.
 */
#define PMR_MAX_LOCKS 64

struct pmr_quiesce {
	pmr_lock_t *locks[PMR_MAX_LOCKS];
	int n;
};

void pmr_dev_quiesce(struct pmr_dev_obj *dev, struct pmr_quiesce *q);
void pmr_dev_resume(struct pmr_dev_obj *dev, struct pmr_quiesce *q);

#endif /* PMR_VERBS_PRIV_H */
