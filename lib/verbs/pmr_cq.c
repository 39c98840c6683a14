/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Completion queues, completion channels and async events.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "pmr_driver.h"
#include "pmr_verbs_priv.h"

/* ---- event queues ---------------------------------------------------- */

int pmr_equeue_init(struct pmr_async_queue *q, uint32_t cap, size_t esize)
{
	memset(q, 0, sizeof(*q));
	q->entries = calloc(cap, esize);
	if (q->entries == NULL)
		return -ENOMEM;
	q->fd = eventfd(0, EFD_CLOEXEC | EFD_SEMAPHORE);
	if (q->fd < 0) {
		int err = errno;

		free(q->entries);
		return -err;
	}
	q->cap = cap;
	pthread_mutex_init(&q->mutex, NULL);
	return 0;
}

void pmr_equeue_fini(struct pmr_async_queue *q)
{
	close(q->fd);
	pthread_mutex_destroy(&q->mutex);
	free(q->entries);
}

int pmr_equeue_push(struct pmr_async_queue *q, const void *entry,
		    size_t esize)
{
	uint64_t one = 1;
	ssize_t n;

	pthread_mutex_lock(&q->mutex);
	if (q->tail - q->head == q->cap) {
		pthread_mutex_unlock(&q->mutex);
		return -ENOSPC;
	}
	memcpy((char *)q->entries + (size_t)(q->tail % q->cap) * esize, entry,
	       esize);
	q->tail++;
	pthread_mutex_unlock(&q->mutex);
	n = write(q->fd, &one, sizeof(one));
	(void)n;    /* cannot fail: the count stays far below the limit */
	return 0;
}

/* What a cancelled entry's first word is set to (never a real element). */
static const char cancelled;

static bool entry_dead(const void *e)
{
	const void *first;

	memcpy(&first, e, sizeof(first));
	return first == &cancelled;
}

int pmr_equeue_pop(struct pmr_async_queue *q, void *entry, size_t esize)
{
	for (;;) {
		uint64_t cnt;
		bool got = false;

		if (read(q->fd, &cnt, sizeof(cnt)) != sizeof(cnt))
			return -(errno ? errno : EIO);
		pthread_mutex_lock(&q->mutex);
		if (q->head != q->tail) {
			memcpy(entry, (char *)q->entries +
			       (size_t)(q->head % q->cap) * esize, esize);
			q->head++;
			got = !entry_dead(entry);
		}
		pthread_mutex_unlock(&q->mutex);
		if (got)
			return 0;
		/* a cancelled entry: its count is consumed, look again */
	}
}

void pmr_equeue_cancel(struct pmr_async_queue *q, size_t esize,
		       const void *match)
{
	pthread_mutex_lock(&q->mutex);
	for (uint32_t i = q->head; i != q->tail; i++) {
		char *e = (char *)q->entries + (size_t)(i % q->cap) * esize;
		void *first;

		memcpy(&first, e, sizeof(first));
		if (first == match) {
			const void *mark = &cancelled;

			memcpy(e, &mark, sizeof(mark));
		}
	}
	pthread_mutex_unlock(&q->mutex);
}

/* ---- async events ---------------------------------------------------- */

void pmr_async_raise(struct pmr_ctx_obj *ctx, enum pmr_event_type type,
		     void *element, int port_num)
{
	struct pmr_async_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.event_type = type;
	switch (type) {
	case PMR_EVENT_CQ_ERR:
		ev.element.cq = element;
		break;
	case PMR_EVENT_SRQ_ERR:
	case PMR_EVENT_SRQ_LIMIT_REACHED:
		ev.element.srq = element;
		break;
	case PMR_EVENT_DEVICE_FATAL:
	case PMR_EVENT_PORT_ACTIVE:
	case PMR_EVENT_PORT_ERR:
	case PMR_EVENT_LID_CHANGE:
	case PMR_EVENT_PKEY_CHANGE:
	case PMR_EVENT_SM_CHANGE:
	case PMR_EVENT_CLIENT_REREGISTER:
	case PMR_EVENT_GID_CHANGE:
		ev.element.port_num = port_num;
		break;
	default:
		ev.element.qp = element;
		break;
	}
	if (pmr_equeue_push(&ctx->async, &ev, sizeof(ev)) != 0) {
		ctx->async_dropped++;
		PMR_LOG(WARNING, "async event queue full: %s dropped",
			pmr_event_type_str(type));
	}
}

static bool event_on_qp(enum pmr_event_type t)
{
	switch (t) {
	case PMR_EVENT_QP_FATAL:
	case PMR_EVENT_QP_REQ_ERR:
	case PMR_EVENT_QP_ACCESS_ERR:
	case PMR_EVENT_COMM_EST:
	case PMR_EVENT_SQ_DRAINED:
	case PMR_EVENT_PATH_MIG:
	case PMR_EVENT_PATH_MIG_ERR:
	case PMR_EVENT_QP_LAST_WQE_REACHED:
		return true;
	default:
		return false;
	}
}

PMR_EXPORT int pmr_get_async_event(struct pmr_context *context,
				   struct pmr_async_event *event)
{
	struct pmr_async_event ev;
	int ret;

	if (context == NULL || event == NULL) {
		errno = EINVAL;
		return -1;
	}
	ret = pmr_equeue_pop(&pmr_ctx_obj(context)->async, &ev, sizeof(ev));
	if (ret != 0) {
		errno = -ret;
		return -1;
	}
	if (ev.event_type == PMR_EVENT_CQ_ERR)
		atomic_fetch_add(&pmr_cq_obj(ev.element.cq)->async_events_delivered, 1);
	else if (ev.event_type == PMR_EVENT_SRQ_ERR ||
		 ev.event_type == PMR_EVENT_SRQ_LIMIT_REACHED)
		atomic_fetch_add(&pmr_srq_obj(ev.element.srq)->async_events_delivered, 1);
	else if (event_on_qp(ev.event_type))
		atomic_fetch_add(&pmr_qp_obj(ev.element.qp)->async_events_delivered, 1);
	*event = ev;
	return 0;
}

PMR_EXPORT void pmr_ack_async_event(struct pmr_async_event *event)
{
	if (event == NULL)
		return;
	if (event->event_type == PMR_EVENT_CQ_ERR) {
		if (event->element.cq != NULL)
			event->element.cq->async_events_completed++;
	} else if (event->event_type == PMR_EVENT_SRQ_ERR ||
		   event->event_type == PMR_EVENT_SRQ_LIMIT_REACHED) {
		if (event->element.srq != NULL)
			event->element.srq->events_completed++;
	} else if (event_on_qp(event->event_type)) {
		if (event->element.qp != NULL)
			event->element.qp->events_completed++;
	}
}

/* ---- completion channels ------------------------------------------- */

struct chan_entry {
	struct pmr_cq_obj *cq;
};

PMR_EXPORT struct pmr_comp_channel *
pmr_create_comp_channel(struct pmr_context *context)
{
	struct pmr_channel_obj *ch;
	int ret;

	if (context == NULL) {
		errno = EINVAL;
		return NULL;
	}
	ch = calloc(1, sizeof(*ch));
	if (ch == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	ret = pmr_equeue_init(&ch->q, PMR_MAX_CQE / 16,
			      sizeof(struct chan_entry));
	if (ret != 0) {
		free(ch);
		errno = -ret;
		return NULL;
	}
	ch->pub.context = context;
	ch->pub.fd = ch->q.fd;
	atomic_fetch_add(&pmr_ctx_obj(context)->nobjs, 1);
	return &ch->pub;
}

PMR_EXPORT int pmr_destroy_comp_channel(struct pmr_comp_channel *channel)
{
	struct pmr_channel_obj *ch;

	if (channel == NULL)
		return EINVAL;
	ch = PMR_CONTAINER_OF(channel, struct pmr_channel_obj, pub);
	if (atomic_load(&ch->ncq) != 0)
		return EBUSY;
	atomic_fetch_sub(&pmr_ctx_obj(channel->context)->nobjs, 1);
	pmr_equeue_fini(&ch->q);
	free(ch);
	return 0;
}

PMR_EXPORT int pmr_get_cq_event(struct pmr_comp_channel *channel,
				struct pmr_cq **cq, void **cq_context)
{
	struct pmr_channel_obj *ch;
	struct chan_entry e;
	int ret;

	if (channel == NULL || cq == NULL || cq_context == NULL) {
		errno = EINVAL;
		return -1;
	}
	ch = PMR_CONTAINER_OF(channel, struct pmr_channel_obj, pub);
	ret = pmr_equeue_pop(&ch->q, &e, sizeof(e));
	if (ret != 0) {
		errno = -ret;
		return -1;
	}
	atomic_fetch_add(&e.cq->comp_events_delivered, 1);
	*cq = &e.cq->pub;
	*cq_context = e.cq->pub.cq_context;
	return 0;
}

PMR_EXPORT void pmr_ack_cq_events(struct pmr_cq *cq, unsigned int nevents)
{
	if (cq != NULL)
		cq->comp_events_completed += nevents;
}

/* ---- CQs ------------------------------------------------------------- */

static uint32_t pow2_at_least(uint32_t n)
{
	uint32_t p = 1;

	while (p < n)
		p <<= 1;
	return p;
}

static struct pmr_cqe *cq_ring_alloc(uint32_t size)
{
	return aligned_alloc(PMR_CACHE_LINE,
			     pmr_line_ceil(size * sizeof(struct pmr_cqe)));
}

static inline uint8_t cq_owner(uint32_t idx, uint32_t shift)
{
	return ((idx >> shift) & 1) ^ 1;
}

PMR_EXPORT struct pmr_cq *pmr_create_cq(struct pmr_context *context, int cqe,
					void *cq_context,
					struct pmr_comp_channel *channel,
					int comp_vector)
{
	struct pmr_cq_obj *cq;
	uint32_t size;

	if (context == NULL || cqe < 1 || cqe > PMR_MAX_CQE ||
	    comp_vector < 0 || comp_vector >= context->num_comp_vectors ||
	    (channel != NULL && channel->context != context)) {
		errno = EINVAL;
		return NULL;
	}
	size = pow2_at_least((uint32_t)cqe);
	cq = aligned_alloc(PMR_CACHE_LINE, sizeof(*cq));
	if (cq == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	memset(cq, 0, sizeof(*cq));
	cq->ring = cq_ring_alloc(size);
	if (cq->ring == NULL) {
		free(cq);
		errno = ENOMEM;
		return NULL;
	}
	memset(cq->ring, 0, size * sizeof(struct pmr_cqe));
	cq->size = size;
	cq->mask = size - 1;
	cq->shift = (uint32_t)__builtin_ctz(size);
	cq->ctx = pmr_ctx_obj(context);
	cq->pub.context = context;
	cq->pub.channel = channel;
	cq->pub.cq_context = cq_context;
	cq->pub.cqe = (int)size;
	if (channel != NULL)
		channel->refcnt = atomic_fetch_add(&PMR_CONTAINER_OF(channel,
			struct pmr_channel_obj, pub)->ncq, 1) + 1;
	atomic_fetch_add(&cq->ctx->nobjs, 1);
	return &cq->pub;
}

PMR_EXPORT int pmr_resize_cq(struct pmr_cq *pcq, int cqe)
{
	struct pmr_cq_obj *cq;
	struct pmr_cqe *ring;
	uint32_t size, count, cons;

	if (pcq == NULL || cqe < 1 || cqe > PMR_MAX_CQE)
		return EINVAL;
	cq = pmr_cq_obj(pcq);
	if (atomic_load(&cq->overflowed))
		return EINVAL;
	size = pow2_at_least((uint32_t)cqe);
	ring = cq_ring_alloc(size);
	if (ring == NULL)
		return ENOMEM;
	memset(ring, 0, size * sizeof(struct pmr_cqe));
	pmr_lock(cq->ctx->engine_lock);
	cons = atomic_load_explicit(&cq->cons, memory_order_relaxed);
	count = cq->prod - cons;
	if (count > size) {
		pmr_unlock(cq->ctx->engine_lock);
		free(ring);
		return EINVAL;
	}
	/* the held entries become 0..count-1, written in pass 0 */
	for (uint32_t i = 0; i < count; i++) {
		ring[i].wc = cq->ring[(cons + i) & cq->mask].wc;
		atomic_store_explicit(&ring[i].owner, 1, memory_order_relaxed);
	}
	free(cq->ring);
	cq->ring = ring;
	cq->size = size;
	cq->mask = size - 1;
	cq->shift = (uint32_t)__builtin_ctz(size);
	cq->prod = count;
	cq->cons_cache = 0;
	atomic_store_explicit(&cq->cons, 0, memory_order_release);
	cq->pub.cqe = (int)size;
	pmr_unlock(cq->ctx->engine_lock);
	return 0;
}

PMR_EXPORT int pmr_destroy_cq(struct pmr_cq *pcq)
{
	struct pmr_cq_obj *cq;

	if (pcq == NULL)
		return EINVAL;
	cq = pmr_cq_obj(pcq);
	if (atomic_load(&cq->nqp) != 0 ||
	    atomic_load(&cq->comp_events_delivered) != pcq->comp_events_completed ||
	    atomic_load(&cq->async_events_delivered) != pcq->async_events_completed)
		return EBUSY;
	if (pcq->channel != NULL) {
		struct pmr_channel_obj *ch = PMR_CONTAINER_OF(pcq->channel,
			struct pmr_channel_obj, pub);

		pmr_equeue_cancel(&ch->q, sizeof(struct chan_entry), cq);
		pcq->channel->refcnt = atomic_fetch_sub(&ch->ncq, 1) - 1;
	}
	pmr_equeue_cancel(&cq->ctx->async, sizeof(struct pmr_async_event),
			  pcq);
	atomic_fetch_sub(&cq->ctx->nobjs, 1);
	free(cq->ring);
	free(cq);
	return 0;
}

PMR_EXPORT int pmr_req_notify_cq(struct pmr_cq *pcq, int solicited_only)
{
	struct pmr_cq_obj *cq;

	if (pcq == NULL || pcq->channel == NULL)
		return EINVAL;
	cq = pmr_cq_obj(pcq);
	atomic_store_explicit(&cq->armed, solicited_only ?
			      PMR_CQ_ARMED_SOLICITED : PMR_CQ_ARMED_NEXT,
			      memory_order_release);
	return 0;
}

static int cq_take(struct pmr_cq_obj *cq, int num_entries, struct pmr_wc *wc)
{
	uint32_t cons = atomic_load_explicit(&cq->cons, memory_order_relaxed);
	int n;

	for (n = 0; n < num_entries; n++) {
		struct pmr_cqe *e = &cq->ring[cons & cq->mask];

		if (atomic_load_explicit(&e->owner, memory_order_acquire) !=
		    cq_owner(cons, cq->shift))
			break;
		wc[n] = e->wc;
		cons++;
	}
	if (n > 0)
		atomic_store_explicit(&cq->cons, cons, memory_order_release);
	return n;
}

PMR_EXPORT int pmr_poll_cq(struct pmr_cq *pcq, int num_entries,
			   struct pmr_wc *wc)
{
	struct pmr_cq_obj *cq = pmr_cq_obj(pcq);
	int n;

	/* completions already there are returned at once; the engine
	 * (inline progress) runs when the CQ is empty */
	n = cq_take(cq, num_entries, wc);
	if (n == 0) {
		pmr_ctx_kick(cq->ctx);
		n = cq_take(cq, num_entries, wc);
	}
	if (n == 0 && atomic_load_explicit(&cq->overflowed,
					   memory_order_relaxed))
		return -EIO;
	return n;
}

static void cq_notify(struct pmr_cq_obj *cq)
{
	struct pmr_channel_obj *ch = PMR_CONTAINER_OF(cq->pub.channel,
		struct pmr_channel_obj, pub);
	struct chan_entry e = { .cq = cq };

	if (pmr_equeue_push(&ch->q, &e, sizeof(e)) != 0)
		PMR_LOG(WARNING, "completion channel full: event dropped");
}

int pmr_cq_push(struct pmr_cq_obj *cq, const struct pmr_wc *wc,
		bool solicited)
{
	struct pmr_cqe *e;
	int armed;

	if (atomic_load_explicit(&cq->overflowed, memory_order_relaxed)) {
		cq->dropped++;
		return -ENOSPC;
	}
	if (cq->prod - cq->cons_cache >= cq->size) {
		cq->cons_cache = atomic_load_explicit(&cq->cons,
						      memory_order_acquire);
		if (cq->prod - cq->cons_cache >= cq->size) {
			atomic_store(&cq->overflowed, true);
			cq->dropped++;
			PMR_LOG(ERR, "CQ %p overflowed: put in error", (void *)cq);
			pmr_async_raise(cq->ctx, PMR_EVENT_CQ_ERR, &cq->pub, 0);
			return -ENOSPC;
		}
	}
	e = &cq->ring[cq->prod & cq->mask];
	e->wc = *wc;
	atomic_store_explicit(&e->owner, cq_owner(cq->prod, cq->shift),
			      memory_order_release);
	cq->prod++;

	armed = atomic_load_explicit(&cq->armed, memory_order_acquire);
	if (armed != PMR_CQ_UNARMED &&
	    (armed == PMR_CQ_ARMED_NEXT || solicited ||
	     wc->status != PMR_WC_SUCCESS) &&
	    atomic_compare_exchange_strong(&cq->armed, &armed, PMR_CQ_UNARMED))
		cq_notify(cq);
	return 0;
}
