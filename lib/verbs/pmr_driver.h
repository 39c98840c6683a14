/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Driver-facing side of the verbs layer: the objects behind the public
 * handles, the rings between the verbs layer and a device, and the ops a
 * driver implements.  Not installed.
 *
 * Ownership of the rings (one rule each):
 *  - SQ / RQ / SRQ: the application produces (writes a slot, then publishes
 *    `prod` with release); the device consumes (reads `prod` with acquire,
 *    publishes `cons` with release when a WQE is retired).
 *  - CQ: the device produces (writes the CQE, then its owner bit with
 *    release); the application consumes (reads the owner bit with acquire,
 *    publishes `cons` with release so the device can detect overflow).
 *  - Everything the device does for a context runs under that context's
 *    engine lock: `progress` takes it with a try-lock, control calls
 *    (modify, destroy, resize ...) take it outright.  post and poll never
 *    take it on their fast path.
 */
#ifndef PMR_DRIVER_H
#define PMR_DRIVER_H

#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <pthread.h>
#include <sched.h>

#include <rte_log.h>

#include "pmr_verbs.h"

#define PMR_EXPORT __attribute__((visibility("default")))

#define PMR_CACHE_LINE 64
#define PMR_MAX_DEVICES 16

/* n bytes rounded up to whole cache lines (aligned_alloc(PMR_CACHE_LINE,
 * ...) wants a multiple of the alignment). */
static inline size_t pmr_line_ceil(size_t n)
{
	return (n + PMR_CACHE_LINE - 1) & ~(size_t)(PMR_CACHE_LINE - 1);
}
#define PMR_MAX_QP 16384          /* per device */
#define PMR_QPN_BASE 0x11         /* first QP number, as soft-RoCE */
#define PMR_MAX_MR 65536          /* per device */
#define PMR_MAX_QP_WR 16384
#define PMR_MAX_SGE 16
#define PMR_MAX_INLINE 512
#define PMR_MAX_CQE (1 << 20)
#define PMR_MAX_SRQ_WR 16384
#define PMR_MAX_RD_ATOMIC 16
#define PMR_MAX_ASYNC_EVENTS 1024
#define PMR_DEFAULT_BUDGET 32

extern int pmr_logtype_verbs;
#define PMR_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, pmr_logtype_verbs, "pmr_verbs: " fmt "\n", \
		##__VA_ARGS__)

#define PMR_CONTAINER_OF(ptr, type, member) \
	((type *)(void *)((char *)(ptr) - offsetof(type, member)))

/* ------------------------------------------------------------------ */
/* Engine lock: a test-and-set lock taken by progress with trylock.    */
/* ------------------------------------------------------------------ */

typedef struct {
	atomic_flag flag;
} pmr_lock_t;

#define PMR_LOCK_INIT { ATOMIC_FLAG_INIT }

static inline bool pmr_trylock(pmr_lock_t *l)
{
	return !atomic_flag_test_and_set_explicit(&l->flag, memory_order_acquire);
}

static inline void pmr_lock(pmr_lock_t *l)
{
	unsigned int spins = 0;

	while (!pmr_trylock(l)) {
		if (++spins > 64) {
			sched_yield();
			spins = 0;
		}
	}
}

static inline void pmr_unlock(pmr_lock_t *l)
{
	atomic_flag_clear_explicit(&l->flag, memory_order_release);
}

/* ------------------------------------------------------------------ */
/* Work queue entries                                                  */
/* ------------------------------------------------------------------ */

struct pmr_ah_obj;

/** Send WQE header; SGEs or inline data follow it in the slot. */
struct pmr_swqe {
	uint64_t wr_id;
	uint8_t opcode;           /* enum pmr_wr_opcode */
	uint8_t inl;              /* 1: `length` bytes of inline data follow */
	uint16_t num_sge;
	uint32_t send_flags;      /* PMR_SEND_SIGNALED set when sq_sig_all */
	uint32_t length;          /* total bytes of the message */
	pmr_be32 imm_data;        /* also invalidate_rkey */
	uint64_t remote_addr;
	uint64_t compare_add;
	uint64_t swap;
	uint32_t rkey;
	uint32_t remote_qpn;
	uint32_t remote_qkey;
	uint32_t reserved;
	struct pmr_ah_obj *ah;
	/* 72 bytes: SGEs (struct pmr_sge) or inline bytes follow */
};
_Static_assert(sizeof(struct pmr_swqe) == 72, "send WQE header size");

/** Receive WQE header; SGEs follow it in the slot. */
struct pmr_rwqe {
	uint64_t wr_id;
	uint32_t num_sge;
	uint32_t length;          /* sum of the SGE lengths */
	/* 16 bytes: struct pmr_sge sge[num_sge] follow */
};
_Static_assert(sizeof(struct pmr_rwqe) == 16, "receive WQE header size");

static inline struct pmr_sge *pmr_swqe_sge(struct pmr_swqe *w)
{
	return (struct pmr_sge *)(void *)(w + 1);
}

static inline uint8_t *pmr_swqe_inline(struct pmr_swqe *w)
{
	return (uint8_t *)(w + 1);
}

static inline struct pmr_sge *pmr_rwqe_sge(struct pmr_rwqe *w)
{
	return (struct pmr_sge *)(void *)(w + 1);
}

/** A receive WQE taken off an RQ/SRQ by the device, held until completed. */
struct pmr_recv_hold {
	struct pmr_rwqe hdr;
	struct pmr_sge sge[PMR_MAX_SGE];
};

/* ------------------------------------------------------------------ */
/* Work queue ring (SQ, RQ, SRQ)                                       */
/* ------------------------------------------------------------------ */

/*
 * One cache line: both indices and the ring's geometry.  Every post and
 * every retirement reads the indices and the geometry together, so with
 * many QPs served by one core a WQE costs one line of ring state, not
 * three (doc/guides/performance.rst, 1024 QPs).  Across cores (service
 * progress) each side reads the index the other writes anyway.
 */
struct pmr_wq {
	alignas(PMR_CACHE_LINE) _Atomic uint32_t prod;   /* app: doorbell */
	_Atomic uint32_t cons;                           /* device: retired */
	uint32_t size;                                   /* slots, power of 2 */
	uint32_t mask;
	uint32_t slot_size;                              /* bytes, 64 multiple */
	uint32_t max_wr;                                 /* granted */
	uint32_t max_sge;
	uint32_t max_inline;
	uint8_t *buf;
};
_Static_assert(sizeof(struct pmr_wq) == PMR_CACHE_LINE, "a ring is one line");

static inline void *pmr_wq_slot(const struct pmr_wq *wq, uint32_t idx)
{
	return wq->buf + (size_t)(idx & wq->mask) * wq->slot_size;
}

/** WQEs posted and not yet retired by the device (device side). */
static inline uint32_t pmr_wq_pending(struct pmr_wq *wq)
{
	return atomic_load_explicit(&wq->prod, memory_order_acquire) -
	       atomic_load_explicit(&wq->cons, memory_order_relaxed);
}

/* ------------------------------------------------------------------ */
/* Objects                                                             */
/* ------------------------------------------------------------------ */

struct pmr_driver;
struct pmr_dev_obj;
struct pmr_ctx_obj;
struct pmr_qp_obj;

/** An intrusive doubly linked list (slow-path object lists). */
struct pmr_list {
	struct pmr_list *prev, *next;
};

static inline void pmr_list_init(struct pmr_list *l)
{
	l->prev = l->next = l;
}

static inline void pmr_list_add_tail(struct pmr_list *head, struct pmr_list *n)
{
	n->prev = head->prev;
	n->next = head;
	head->prev->next = n;
	head->prev = n;
}

static inline void pmr_list_del(struct pmr_list *n)
{
	n->prev->next = n->next;
	n->next->prev = n->prev;
	n->prev = n->next = n;
}

static inline bool pmr_list_empty(const struct pmr_list *l)
{
	return l->next == l;
}

#define PMR_LIST_FOREACH(pos, head) \
	for ((pos) = (head)->next; (pos) != (head); (pos) = (pos)->next)

struct pmr_dev_obj {
	struct pmr_device pub;
	const struct pmr_driver *drv;
	void *priv;                       /* driver's device state */
	struct pmr_device_attr attr;      /* filled by the driver's probe */
	union pmr_gid gid[16];            /* GID table, port 1 */
	int gid_count;
	pthread_mutex_t mutex;            /* object tables */
	/* QP number -> QP.  Readers are engines (under their engine lock);
	 * writers hold `mutex` and every engine lock of the device. */
	struct pmr_qp_obj *_Atomic qp_table[PMR_MAX_QP];
	uint32_t qp_next;
	/* MR index -> MR, same rule as the QP table. */
	struct pmr_mr_obj *_Atomic mr_table[PMR_MAX_MR];
	uint32_t mr_next;
	uint32_t handle_next;
	struct pmr_list contexts;
	int index;
};

struct pmr_async_queue {
	pthread_mutex_t mutex;
	int fd;                           /* eventfd, one count per event */
	uint32_t head, tail;              /* ring of events */
	uint32_t cap;
	void *entries;
};

struct pmr_ctx_obj {
	struct pmr_context pub;
	struct pmr_dev_obj *dev;
	pmr_lock_t *engine_lock;          /* the lock progress takes */
	pmr_lock_t own_lock;
	enum pmr_progress_mode mode;
	void *priv;                       /* driver's context state */
	struct pmr_list link;             /* in dev->contexts */
	struct pmr_list qps;              /* QPs of this context */
	struct pmr_list srqs;             /* SRQs of this context */
	struct pmr_async_queue async;
	uint64_t async_dropped;
	/* doorbells: QPs with newly posted send WRs (a lock-free stack that
	 * any thread pushes to and the engine empties), when the driver
	 * asks for them */
	bool doorbells;
	struct pmr_qp_obj *_Atomic db_head;
	_Atomic int nobjs;                /* PDs, CQs, channels */
};

struct pmr_pd_obj {
	struct pmr_pd pub;
	_Atomic int refs;                 /* MRs, QPs, SRQs, AHs */
};

struct pmr_mr_obj {
	struct pmr_mr pub;
	int access;
	uint32_t index;
};

struct pmr_channel_obj {
	struct pmr_comp_channel pub;
	struct pmr_async_queue q;         /* queue of struct pmr_cq_obj * */
	_Atomic int ncq;
};

/** A completion queue entry: a WC and its owner (phase) bit. */
struct pmr_cqe {
	struct pmr_wc wc;
	uint8_t pad[15];
	_Atomic uint8_t owner;
};
_Static_assert(sizeof(struct pmr_cqe) == PMR_CACHE_LINE,
	       "a CQE is one cache line");

enum {
	PMR_CQ_UNARMED = 0,
	PMR_CQ_ARMED_NEXT = 1,
	PMR_CQ_ARMED_SOLICITED = 2,
};

struct pmr_cq_obj {
	struct pmr_cq pub;
	struct pmr_ctx_obj *ctx;
	struct pmr_cqe *ring;
	uint32_t size;                    /* entries, power of 2 */
	uint32_t mask;
	uint32_t shift;                   /* log2(size) */
	/* consumer (application) */
	alignas(PMR_CACHE_LINE) _Atomic uint32_t cons;
	/* producer (device, under the engine lock) */
	alignas(PMR_CACHE_LINE) uint32_t prod;
	uint32_t cons_cache;
	_Atomic int armed;
	_Atomic bool overflowed;
	uint64_t dropped;                 /* completions lost to overflow */
	_Atomic int nqp;                  /* QPs using this CQ */
	_Atomic uint32_t comp_events_delivered;
	_Atomic uint32_t async_events_delivered;
};

struct pmr_srq_obj {
	struct pmr_srq pub;
	struct pmr_ctx_obj *ctx;
	struct pmr_wq rq;
	uint32_t limit;                   /* armed when non-zero */
	struct pmr_list link;             /* in ctx->srqs */
	_Atomic int nqp;
	_Atomic uint32_t async_events_delivered;
};

struct pmr_ah_obj {
	struct pmr_ah pub;
	struct pmr_ah_attr attr;
	void *priv;
};

/*
 * Ordered by use: what every message reads comes first, in as few cache
 * lines as the public part allows (pub, then ctx, priv, state and the
 * attributes a message reads, in the line pub ends in; then the two
 * rings and the held receive), the rest after.  With many QPs served by
 * one core each line a message touches is a cache miss
 * (doc/guides/performance.rst, 1024 QPs).
 */
struct pmr_qp_obj {
	struct pmr_qp pub;
	struct pmr_ctx_obj *ctx;
	void *priv;                       /* driver's QP state (unless the
					   * driver has qp_priv_size) */
	_Atomic int state;                /* enum pmr_qp_state */
	bool recv_held;
	bool last_wqe_sent;               /* QP_LAST_WQE_REACHED raised */
	struct pmr_qp_attr attr;          /* current attributes: path_mtu
					   * and dest_qp_num in this line */
	struct pmr_qp_init_attr init;
	struct pmr_wq sq;
	struct pmr_wq rq;                 /* unused with an SRQ */
	/* receive WQE held by the engine (multi-packet SEND in progress) */
	struct pmr_recv_hold recv;
	struct pmr_list link;             /* in ctx->qps */
	_Atomic uint32_t async_events_delivered;
	_Atomic bool db_armed;            /* on the doorbell stack */
	struct pmr_qp_obj *db_next;
};

static inline struct pmr_qp_obj *pmr_qp_obj(struct pmr_qp *qp)
{
	return PMR_CONTAINER_OF(qp, struct pmr_qp_obj, pub);
}

static inline struct pmr_cq_obj *pmr_cq_obj(struct pmr_cq *cq)
{
	return PMR_CONTAINER_OF(cq, struct pmr_cq_obj, pub);
}

static inline struct pmr_ctx_obj *pmr_ctx_obj(struct pmr_context *c)
{
	return PMR_CONTAINER_OF(c, struct pmr_ctx_obj, pub);
}

static inline struct pmr_dev_obj *pmr_dev_obj(struct pmr_device *d)
{
	return PMR_CONTAINER_OF(d, struct pmr_dev_obj, pub);
}

static inline struct pmr_srq_obj *pmr_srq_obj(struct pmr_srq *s)
{
	return PMR_CONTAINER_OF(s, struct pmr_srq_obj, pub);
}

static inline struct pmr_mr_obj *pmr_mr_obj(struct pmr_mr *m)
{
	return PMR_CONTAINER_OF(m, struct pmr_mr_obj, pub);
}

static inline struct pmr_pd_obj *pmr_pd_obj(struct pmr_pd *p)
{
	return PMR_CONTAINER_OF(p, struct pmr_pd_obj, pub);
}

static inline struct pmr_ah_obj *pmr_ah_obj(struct pmr_ah *a)
{
	return PMR_CONTAINER_OF(a, struct pmr_ah_obj, pub);
}

static inline enum pmr_qp_state pmr_qp_state(const struct pmr_qp_obj *qp)
{
	return (enum pmr_qp_state)atomic_load_explicit(
		(_Atomic int *)&qp->state, memory_order_acquire);
}

/* ------------------------------------------------------------------ */
/* Driver ops                                                          */
/* ------------------------------------------------------------------ */

/**
 * What a device kind implements.  Every op is optional except probe and
 * progress.  Ops that act on a context's objects are called with that
 * context's engine lock held, so they never race with progress.
 */
struct pmr_driver {
	const char *name;
	/** The device needs DPDK's EAL initialised before probe. */
	bool needs_eal;
	/** Create the device from "key=value,..." arguments: fill dev->pub
	 *  names, dev->attr, dev->gid[]; set dev->priv. -errno on failure. */
	int (*probe)(struct pmr_dev_obj *dev, const char *args);
	void (*remove)(struct pmr_dev_obj *dev);
	int (*query_port)(struct pmr_dev_obj *dev, uint8_t port,
			  struct pmr_port_attr *attr);
	/** Open the engine of a context (queues, per-context state). */
	int (*ctx_open)(struct pmr_ctx_obj *ctx);
	void (*ctx_close)(struct pmr_ctx_obj *ctx);
	/** Accept or refuse a progress mode (-ENOTSUP). */
	int (*set_progress_mode)(struct pmr_ctx_obj *ctx,
				 enum pmr_progress_mode mode);
	/** Optional: bytes of QP state the verbs layer allocates for the
	 *  driver right after the QP object, in the same block (zeroed,
	 *  cache-line aligned), so that the state's address follows from
	 *  the object's without a load: pmr_qp_priv_inline(qp).  qp->priv
	 *  stays NULL; the driver frees none of it. */
	size_t qp_priv_size;
	int (*qp_create)(struct pmr_qp_obj *qp);
	/** Called after validation, before the attributes are committed;
	 *  a non-zero return (-errno) leaves the QP unchanged. */
	int (*qp_modify)(struct pmr_qp_obj *qp, const struct pmr_qp_attr *attr,
			 int mask);
	void (*qp_destroy)(struct pmr_qp_obj *qp);
	/** Check an address handle, start resolving its destination. */
	int (*ah_create)(struct pmr_ah_obj *ah);
	void (*ah_destroy)(struct pmr_ah_obj *ah);
	/** Run the engine with the engine lock held; return work done. */
	int (*progress)(struct pmr_ctx_obj *ctx, unsigned int budget);
	/** Optional, the doorbell of inline progress: send what was just
	 *  posted to qp (engine lock held; no doorbell was rung for it, so
	 *  the driver takes qp on directly).  Without it post_send rings
	 *  the doorbell and runs progress. */
	int (*post_kick)(struct pmr_ctx_obj *ctx, struct pmr_qp_obj *qp,
			 unsigned int budget);
	/** Optional: the bytes the device allocated for qp in qp_create
	 *  (its share of struct pmr_qp_mem); without it the device counts
	 *  0.  Called without a lock: read only what creation fixed. */
	size_t (*qp_mem)(const struct pmr_qp_obj *qp);
	/** Optional: true when the engine still references the MR. */
	bool (*mr_busy)(struct pmr_ctx_obj *ctx, struct pmr_mr_obj *mr);
	/** Ring doorbells: post_send pushes the QP on ctx->db_head, and the
	 *  engine takes them with pmr_ctx_doorbells(). */
	bool doorbells;
	/** The engine may hold WRs in flight across progress calls: it
	 *  raises PMR_EVENT_SQ_DRAINED itself once an SQD QP is drained. */
	bool sq_drained_async;
};

/*
 * Doorbells.  post_send publishes its WQEs, then arms the QP's doorbell:
 * the first arming pushes the QP on the context's stack.  The engine
 * takes the whole stack and disarms each QP before looking at its SQ, so
 * a WQE is either seen now or rings the doorbell again (the exchange and
 * the seq_cst store order the ring index against the armed flag).
 */
static inline void pmr_qp_doorbell(struct pmr_qp_obj *qp)
{
	struct pmr_ctx_obj *ctx = qp->ctx;
	struct pmr_qp_obj *old;

	if (atomic_exchange_explicit(&qp->db_armed, true, memory_order_seq_cst))
		return;
	old = atomic_load_explicit(&ctx->db_head, memory_order_relaxed);
	do {
		qp->db_next = old;
	} while (!atomic_compare_exchange_weak_explicit(&ctx->db_head, &old, qp,
			memory_order_release, memory_order_relaxed));
}

/**
 * Take the QPs whose doorbell rang (engine lock held) and call fn on each,
 * disarmed.  @return how many.
 */
static inline unsigned int pmr_ctx_doorbells(struct pmr_ctx_obj *ctx,
	void (*fn)(struct pmr_qp_obj *qp, void *arg), void *arg)
{
	struct pmr_qp_obj *qp;
	unsigned int n = 0;

	/* a plain load first: the exchange is a full barrier, and right
	 * after a receive burst it would wait for the port's stores to
	 * another core's cache lines; a doorbell rung just after the load
	 * is taken by the next call, as one rung just after the exchange */
	if (atomic_load_explicit(&ctx->db_head, memory_order_relaxed) == NULL)
		return 0;
	qp = atomic_exchange_explicit(&ctx->db_head, NULL,
				      memory_order_acquire);

	while (qp != NULL) {
		struct pmr_qp_obj *next = qp->db_next;

		atomic_store_explicit(&qp->db_armed, false,
				      memory_order_seq_cst);
		fn(qp, arg);
		qp = next;
		n++;
	}
	return n;
}

/**
 * Fill the device attributes every pmrdma device shares (the limits of
 * the verbs layer: QPs, WRs, SGEs, CQEs, MRs ...), after node_guid, with
 * sys_image_guid = node_guid.  A driver sets fw_ver and node_guid first
 * and may lower a limit afterwards.
 */
void pmr_dev_attr_defaults(struct pmr_device_attr *a);

/** Make a driver known by name (call from a constructor). */
void pmr_driver_register(const struct pmr_driver *drv);

#define PMR_DRIVER_REGISTER(drv) \
	__attribute__((constructor)) static void pmr_driver_ctor_ ## drv(void) \
	{ pmr_driver_register(&(drv)); }

/* ------------------------------------------------------------------ */
/* Services the verbs layer offers drivers                             */
/* ------------------------------------------------------------------ */

/* The driver's QP state the verbs layer allocated with the object (a
 * driver with qp_priv_size): computed, not loaded, so that a QP just
 * looked up brings in both at once. */
_Static_assert(sizeof(struct pmr_qp_obj) % PMR_CACHE_LINE == 0,
	       "the driver's state after the object starts a line");
static inline void *pmr_qp_priv_inline(struct pmr_qp_obj *qp)
{
	return qp + 1;
}

/** QP by number, or NULL.  Call from an engine of the same device. */
static inline struct pmr_qp_obj *pmr_dev_qp(struct pmr_dev_obj *dev,
					     uint32_t qpn)
{
	uint32_t idx = qpn - PMR_QPN_BASE;

	if (idx >= PMR_MAX_QP)
		return NULL;
	return atomic_load_explicit(&dev->qp_table[idx], memory_order_acquire);
}

/** MR by lkey/rkey, or NULL (unknown index or stale key). */
static inline struct pmr_mr_obj *pmr_dev_mr(struct pmr_dev_obj *dev,
					    uint32_t key)
{
	uint32_t idx = key >> 8;
	struct pmr_mr_obj *mr;

	if (idx >= PMR_MAX_MR)
		return NULL;
	mr = atomic_load_explicit(&dev->mr_table[idx], memory_order_acquire);
	if (mr == NULL || (mr->pub.lkey != key && mr->pub.rkey != key))
		return NULL;
	return mr;
}

/**
 * Check an access to [addr, addr + len) through @p key: the MR exists, is
 * in @p pd, grants every bit of @p access, and covers the range (no
 * overflow).  For remote access the key must be the rkey, for local
 * access the lkey.  A zero-length access only needs a valid key.
 * @return the host pointer for addr, or NULL.
 */
void *pmr_mr_check(struct pmr_dev_obj *dev, struct pmr_pd *pd, uint32_t key,
		   uint64_t addr, uint64_t len, int access, bool remote);

/**
 * Retire the oldest WQE of the SQ: write its completion if it was
 * signaled or failed, advance `cons`.  With an error status the QP moves
 * to ERR and every other WR is flushed.
 */
void pmr_sq_retire(struct pmr_qp_obj *qp, enum pmr_wc_status status,
		   uint32_t byte_len, uint32_t vendor_err);

/**
 * Retire the n oldest WQEs of the SQ, each successful with its length as
 * the byte count, as n calls of pmr_sq_retire() would: a completion for
 * each signaled one, in order; then `cons` advanced once, by n.
 */
void pmr_sq_retire_ok(struct pmr_qp_obj *qp, uint32_t n);

/** The WC opcode of a send WR opcode. */
enum pmr_wc_opcode pmr_wr_to_wc_opcode(unsigned int wr_opcode);

/**
 * Take the next receive WQE of the QP (its RQ or SRQ) into qp->recv.
 * @return true if one was taken (or is already held), false if none.
 * Raises SRQ_LIMIT_REACHED when an armed SRQ drops below its limit.
 */
bool pmr_rq_take(struct pmr_qp_obj *qp);

/**
 * Complete the held receive WQE with @p wc (wr_id and qp_num are filled
 * in here).  An error status moves an RC QP to ERR and flushes; a UC or
 * UD QP goes on.
 */
void pmr_rq_complete(struct pmr_qp_obj *qp, struct pmr_wc *wc,
		     bool solicited);

/**
 * Move the QP to ERR from the engine and flush every outstanding WR;
 * raise @p event (an enum pmr_event_type, or -1 for none).
 */
void pmr_qp_set_error(struct pmr_qp_obj *qp, int event);

/** Flush SQ WRs still queued when the QP is in ERR or SQE (engine side). */
void pmr_qp_flush_posted(struct pmr_qp_obj *qp);

/**
 * Add a WC to the CQ (engine side).  On overflow the WC is dropped, the
 * CQ goes to error and PMR_EVENT_CQ_ERR is raised once.
 * @return 0 or -ENOSPC.
 */
int pmr_cq_push(struct pmr_cq_obj *cq, const struct pmr_wc *wc,
		bool solicited);

/** Queue an async event on the context (any thread). */
void pmr_async_raise(struct pmr_ctx_obj *ctx, enum pmr_event_type type,
		     void *element, int port_num);

/** Parse "key=value,key=value" arguments: calls cb for each pair. */
int pmr_kvargs_parse(const char *args,
		     int (*cb)(const char *key, const char *value, void *opaque),
		     void *opaque);

/** An argument's decimal value: the whole of it, in [min, max].
 *  @return false for an empty value, other characters, out of range. */
bool pmr_kvarg_long(const char *value, long min, long max, long *out);

/** A path MTU argument: 256, 512, 1024, 2048 or 4096.  @return its enum
 *  pmr_mtu, 0 for anything else. */
enum pmr_mtu pmr_kvarg_mtu(const char *value);

#endif /* PMR_DRIVER_H */
