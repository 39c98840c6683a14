/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The software RoCEv2 device: internal state shared by its parts.
 *
 *   roce_dev.c   port set-up, arguments, contexts, progress, service core
 *   roce_net.c   Ethernet/ARP, neighbour table, rx dispatch, tx queue
 *   roce_req.c   requester: WQEs -> request packets, retransmission
 *   roce_comp.c  completer: ACK/NAK/read responses/atomic ACKs -> CQEs
 *   roce_resp.c  responder: request packets -> memory, receives, replies
 */
#ifndef ROCE_H
#define ROCE_H

#include <net/if.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "pmr_driver.h"
#include "pmr_roce.h"
#include "wire.h"

extern int roce_logtype;
#define ROCE_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, roce_logtype, "pmr_roce: " fmt "\n", \
		##__VA_ARGS__)

#define ROCE_RX_BURST 32
#define ROCE_TX_MAX 64                  /* frames built, not yet sent */
#define ROCE_TX_STALL_NS 1000000000ull  /* a ring that takes nothing for
					 * this long: frames are dropped */
#define ROCE_TX_FLUSH_AUTO 8192         /* tx_flush=auto on memif: bytes */
#define ROCE_TX_FLUSH_MAX (1 << 20)     /* tx_flush=N: at most */
#define ROCE_STASH 32                   /* mbufs kept for the next frames */
#define ROCE_NEIGH_MAX 64
#define ROCE_MBUF_DATA 8192
#define ROCE_WINDOW 1024                /* unacknowledged PSNs at most */
#define ROCE_ACKREQ_EVERY 64            /* AckReq within long messages */
#define ROCE_ACKREQ_DEFAULT 16          /* ackreq=: packets per AckReq */
#define ROCE_SOLICIT_US 16384           /* an unasked-for tail waits this long
					 * when the ACK timeout is infinite */
#define ROCE_ARP_RETRY_MS 200
#define ROCE_TIMER_EVERY 16             /* progress calls per timer check */
#define ROCE_LINK_CHECK_MS 10           /* the link looked at (port events) */
#define ROCE_WHEEL_SLOTS 1024           /* timer wheel: slots (a power of 2) */
#define ROCE_WHEEL_SLOT_NS 16000        /* and the time a slot covers, at
					 * least (a power of 2 TSC cycles) */

/* ack=: where an ACK owed goes when the application posts (roce.rst) */
enum { ROCE_ACK_AUTO, ROCE_ACK_SEPARATE, ROCE_ACK_WITH_REPLY };

struct roce_neigh {
	uint8_t ip[16];                   /* GID form */
	uint8_t mac[6];
	uint8_t state;                    /* 0 free, 1 incomplete, 2 valid, 3 static */
	uint64_t last_req;                /* TSC of the last ARP request */
};

struct roce_dev {
	uint16_t port_id;
	uint16_t queue;
	uint8_t mac[6];
	uint8_t gid4[16];                 /* ::ffff:a.b.c.d */
	bool has_ipv4;
	uint8_t gid6[16];                 /* an IPv6 address */
	bool has_ipv6;
	enum pmr_mtu max_mtu;
	enum pmr_progress_mode default_mode;
	uint8_t ack_mode;                 /* ROCE_ACK_*: the ack= argument */
	bool ack_with_reply;              /* an ACK owed leaves in post_send's
					   * burst, behind what was posted */
	bool port_down;                   /* no burst touches the port: its
					   * link was down at the last look,
					   * or it is stopped */
	uint32_t ackreq_every;            /* ackreq=: unsignaled messages ask
					   * for an ACK every this many packets */
	uint32_t tx_batch;                /* tx_batch=: post_send's pass
					   * builds and sends once this many
					   * WRs wait (1: always) */
	int32_t tx_flush_arg;             /* tx_flush=: bytes, or -1: auto */
	uint32_t tx_flush;                /* a pass hands its frames to the
					   * port each time this many bytes
					   * are queued (UINT32_MAX: only at
					   * its end, or when ROCE_TX_MAX
					   * wait) */
	uint32_t held_posts;              /* tx_batch above 1: posts since
					   * the last pass that built
					   * (post_kick's or an engine run) */
	int service_lcore;                /* -1: none */
	uint32_t service_id;
	bool service_registered;
	struct rte_mempool *pool;
	uint64_t tsc_hz;
	uint16_t ip_id;
	bool port_started;
	bool memif_client;                /* the port: a memif client */
	bool afpacket;                    /* the port: af_packet's, its
					   * interface ifname ("" if its
					   * iface= was not read) */
	bool port_stopped;                /* a memif client's start failed
					   * (memif_reconnect()) */
	int kernel_fd;                    /* af_packet: a socket to read
					   * ifname's flags; -1: none */
	char ifname[IFNAMSIZ];
	struct pmr_ctx_obj *ctx;          /* the one context (first version) */
	struct pmr_list active;           /* QPs with work: progress visits
					   * these only (doorbells, packets) */
	unsigned int wheel_shift;         /* TSC cycles a slot: 2^wheel_shift */
	uint64_t wheel_tick;              /* the slot time checked last
					   * (deadline >> wheel_shift) */
	uint32_t ntimed;                  /* QPs on the wheel */
	uint64_t next_deadline;           /* TSC: when the wheel is next due
					   * (or earlier); UINT64_MAX: empty */
	uint64_t now;                     /* this progress call's TSC, read
					   * when first needed (roce_now());
					   * 0: not yet */
	uint64_t gen;                     /* progress calls so far: the ACK
					   * timing and the timer cadence
					   * (post_kick does not count) */
	struct roce_neigh neigh[ROCE_NEIGH_MAX];
	struct rte_mbuf *tx[ROCE_TX_MAX];
	uint16_t ntx;
	uint32_t ntx_bytes;               /* queued since the last flush */
	uint64_t tx_stall_tsc;            /* TSC: the ring took nothing since;
					   * 0 when it last took something */
	bool tx_refused;                  /* a flush to make room found the
					   * ring full: later frames are put
					   * off without trying again until a
					   * flush sends something */
	struct rte_mbuf *stash[ROCE_STASH];   /* mbufs for the next frames:
					       * received ones done with, and
					       * from the pool in bulk */
	uint16_t nstash;
	struct rte_mbuf *rx[ROCE_RX_BURST];   /* the last receive burst, let go
					       * at the start of the next run
					       * (roce_rx_release()) */
	uint16_t nrx;
	uint64_t link_check_tsc;          /* ROCE_LINK_CHECK_MS in TSC */
	uint64_t link_checked;            /* TSC: the link last looked at */
	bool link_up;                     /* as it was then */
	atomic_bool removed;              /* the PMD said the port's device
					   * is removed (RTE_ETH_EVENT_INTR_RMV,
					   * in its interrupt thread) */
	bool fatal;                       /* and the context was told
					   * (DEVICE_FATAL, its QPs in ERR) */
	uint64_t reconnect_tsc;           /* memif client, link down: TSC of
					   * the next restart of the port */
	uint32_t reconnect_ms;            /* the wait after it (0: link up) */
	struct pmr_roce_port_stats st;
	/* QPs waiting only for a timer, on a wheel: slot (deadline >>
	 * wheel_shift) % ROCE_WHEEL_SLOTS, so that a check visits the QPs
	 * due about then, not every QP waiting (roce_dev.c, timed_add()):
	 * each slot a list linked by roce_qp.wheel_next.  Last: 8 KiB that
	 * would set the fields above apart. */
	struct roce_qp *wheel[ROCE_WHEEL_SLOTS];
};

/* Per send WQE bookkeeping, indexed like the SQ slots. */
struct roce_swqe_st {
	uint32_t first_psn;
	uint32_t npkts;                   /* PSNs the WQE uses */
	enum pmr_wc_status local_err;     /* set: fails when it reaches the head */
	uint8_t *dst;                     /* READ / atomic with one SGE: where
					   * its answer lands, mapped by the
					   * MR check of its first packet
					   * (pmr_dereg_mr returns EBUSY while
					   * the WQE is posted); else NULL */
};

/* What a responder slot holds (roce_res.kind). */
enum { ROCE_RES_FREE, ROCE_RES_READ, ROCE_RES_ATOMIC };

/* A READ or atomic the responder executed (kept for duplicates). */
struct roce_res {
	uint8_t kind;                     /* ROCE_RES_* */
	uint32_t psn;                     /* first PSN */
	uint32_t npkts;
	const uint8_t *src;               /* READ: the data, mapped by the MR
					   * check at setup (pmr_dereg_mr
					   * says EBUSY while the slot answers:
					   * roce_resp_mr_busy()) */
	uint32_t rkey;
	uint32_t len;
	uint64_t orig;                    /* atomic: the original value */
	/* READ response generation (answering: its bit in res_mask) */
	uint32_t sent;                    /* bytes sent */
	uint32_t next_psn;
};

/*
 * Ordered by use: the fields a one-packet message reads on either side
 * come first, in the first five cache lines (the struct starts a line,
 * right after the QP object: roce_qp_of()), the fifth shared by the
 * list link, the retry and NAK counts and the counters of st that every
 * packet moves; the PSNs of retries and NAKs and the offset of a
 * multi-packet READ come after, and the READ/atomic slots last.  With
 * many QPs served by one core each line a message touches is a cache
 * miss (doc/guides/performance.rst, 1024 QPs).
 */
struct roce_qp {
	alignas(64) struct pmr_qp_obj *qp;
	struct roce_swqe_st *wst;         /* sq.size entries */
	uint16_t sport;
	uint8_t dmac[6];
	bool dmac_valid;
	bool tmpl_valid;                  /* tmpl is up to date (RC, UC) */
	bool active;                      /* active_link is in roce_dev.active */
	bool timed;                       /* on roce_dev.wheel */
	uint16_t wheel_pos;               /* its slot there */
	bool need_req_reset;              /* applied by the next progress */
	bool need_resp_reset;
	struct wire_tmpl tmpl;            /* the headers every packet of this
					   * connected QP shares */

	/* requester */
	uint32_t req_idx;                 /* next WQE to send (SQ index) */
	uint32_t req_off;                 /* bytes of it already sent */
	uint32_t started_idx;             /* WQEs before it have begun: a
					   * packet sent, or retired with a
					   * local error (SQD finishes those) */
	uint32_t req_psn;                 /* next PSN */
	uint32_t una_psn;                 /* oldest unacknowledged PSN */
	uint32_t pkts_since_ackreq;
	uint32_t ackreq_every;            /* the device's, at most sq.size / 2 */
	uint32_t wr_len;                  /* (responder: the WRITE's length) */
	uint64_t ack_deadline;            /* TSC; 0 when nothing in flight */
	uint64_t ack_timeout_tsc;         /* the local ACK timeout in TSC
					   * ticks; 0: infinite (timeout 0) */
	uint64_t solicit_tsc;             /* how long an unasked-for tail
					   * waits (roce_qp_set_timeout) */
	uint64_t rnr_deadline;            /* TSC; 0 when not waiting */
	uint64_t solicit_deadline;        /* TSC: ask again for the tail; 0 off */
	bool ackreq_next;                 /* the next packet asks (a solicit) */
	bool unsolicited;                 /* the last packet sent did not ask */
	bool arm_ack;                     /* start the ACK timer and the */
	bool arm_solicit;                 /* solicit one at roce_req_arm() */
	bool resolving;                   /* waiting for ARP / ND */
	bool tx_blocked;                  /* the last packet could not be
					   * built (no room to send): the ACK
					   * timer runs, and uses a retry
					   * once the ring has stopped for a
					   * whole timeout */

	/* responder */
	bool in_send;                     /* inside a multi-packet SEND */
	bool in_write;                    /* inside a multi-packet WRITE */
	bool nak_seq_sent;
	bool nak_owed;                    /* a NAK waits for the READ
					   * responses / atomic ACKs before it,
					   * or for room to send */
	bool oos_seen;                    /* oos_psn holds: the furthest
					   * PSN dropped out of sequence, not
					   * yet passed by epsn */
	bool ack_pending;
	bool uc_drop;                     /* UC: drop until FIRST/ONLY */
	uint32_t epsn;                    /* expected PSN */
	uint32_t msn;
	uint32_t recv_off;
	uint32_t ack_psn;
	uint32_t res_mask;                /* bit i: res[i] still to answer
					   * (READ responses, an atomic ACK) */
	uint32_t res_next;                /* the slot the next one takes */
	uint64_t ack_gen;                 /* progress call that owed it */
	uint8_t *wr_ptr;
	uint32_t wr_rkey;
	uint32_t wr_left;
	struct roce_qp *wheel_next;       /* in roce_dev.wheel[wheel_pos]
					   * (roce_dev.c, timed_add()) */

	struct pmr_list active_link;      /* in roce_dev.active */
	uint8_t nak_syn;
	uint8_t retry_left;
	uint8_t rnr_left;
	bool asked_again;                 /* (roce_req_retransmit()), no
					   * progress since */
	bool sqd_notify;                  /* raise SQ_DRAINED when drained */
	bool comm_est;                    /* COMM_EST raised since RTR */
	/* its first 32 bytes, the packet and byte counts, end the fifth
	 * line (asserted below) */
	struct pmr_roce_qp_stats st;

	/* the rest: retries, NAKs, READs of several packets */
	uint32_t read_off;                /* bytes of the head READ received */
	uint32_t asked_psn;               /* requests sent again from here */
	uint32_t nak_psn;
	uint32_t oos_psn;
	/* last: 768 bytes that only READs and atomics touch */
	struct roce_res res[PMR_MAX_RD_ATOMIC];
};
_Static_assert(offsetof(struct roce_qp, st) + 32 == 5 * 64,
	       "a one-packet message reads the first five lines");

/* A QP's RoCE state: right after its object (qp_priv_size), so found
 * without waiting for the object's line. */
static inline struct roce_qp *roce_qp_of(struct pmr_qp_obj *qp)
{
	return pmr_qp_priv_inline(qp);
}

/* The SQ index after the last WQE the requester began (the one it is
 * in the middle of included). */
static inline uint32_t roce_sq_started(const struct roce_qp *rq)
{
	return rq->req_idx + (rq->req_off ? 1 : 0);
}

static inline struct roce_dev *roce_dev_of(struct pmr_qp_obj *qp)
{
	return qp->ctx->dev->priv;
}

/* Put a QP on the list progress visits (engine lock held). */
static inline void roce_qp_activate(struct roce_dev *d, struct roce_qp *rq)
{
	if (!rq->active) {
		rq->active = true;
		d->st.qps_active++;
		pmr_list_add_tail(&d->active, &rq->active_link);
	}
}

/* In SQD: the next packet belongs to a message already started. */
static inline bool roce_sqd_may_send(const struct roce_qp *rq)
{
	return rq->req_off != 0 || rq->req_idx != rq->started_idx;
}

/* The TSC, read once per progress call and only when a timer needs it. */
static inline uint64_t roce_now(uint64_t *now)
{
	if (*now == 0)
		*now = rte_rdtsc();
	return *now;
}

/* Packets of len bytes at a path MTU (a power of two: a shift, not a
 * division, on the way to the port). */
static inline uint32_t roce_mtu_pkts(uint64_t len, uint32_t mtu)
{
	return (uint32_t)((len + mtu - 1) >> __builtin_ctz(mtu));
}

/* Whole MTUs in off. */
static inline uint32_t roce_mtu_whole(uint32_t off, uint32_t mtu)
{
	return off >> __builtin_ctz(mtu);
}

static inline uint64_t roce_ns_to_tsc(struct roce_dev *d, uint64_t ns)
{
	return wire_ns_to_ticks(ns, d->tsc_hz);
}

/* The transmit ring has taken no frame for at least `span` TSC ticks, up
 * to t (a read of the clock that may be older than the stall's start). */
static inline bool roce_tx_stalled(const struct roce_dev *d, uint64_t t,
				   uint64_t span)
{
	return d->tx_stall_tsc != 0 && t > d->tx_stall_tsc &&
	       t - d->tx_stall_tsc >= span;
}

/* roce_net.c */
bool roce_tx_make_room(struct roce_dev *d);

/*
 * Whether a frame can be queued now: the transmit queue has room, or a
 * flush to the ring made some (roce_tx_make_room(), which counts tx_full
 * when it did not; once a flush found the ring full, no other is tried
 * for a frame until one of the flushes every engine run and kick ends
 * with sends something).  Callers ask before they set a frame up, so a
 * QP that cannot send does none of that work on every run.
 */
static inline bool roce_tx_room(struct roce_dev *d)
{
	return likely(d->ntx < ROCE_TX_MAX) || roce_tx_make_room(d);
}

void roce_rx(struct roce_dev *d, struct pmr_ctx_obj *ctx, struct rte_mbuf *m);
void roce_tx_flush(struct roce_dev *d);
/* Whether the port's link is up now: its ethdev link, and on af_packet
 * its kernel interface up and running (kernel_fd). */
bool roce_link_up(const struct roce_dev *d);
void roce_held_free(struct roce_dev *d);
void roce_rx_release(struct roce_dev *d);
uint8_t *roce_tx_frame(struct roce_dev *d, struct wire_build *b,
		       const struct wire_tmpl *t, struct rte_mbuf **mp,
		       int *hdr_len);
struct rte_mbuf *roce_tx_mbuf_alloc(struct roce_dev *d);

/*
 * An mbuf for a frame to send: from the stash, which received frames
 * refill as they are let go (roce_rx_release()) and a transmit burst in
 * bulk once the frames are on their way; from the pool when that is
 * empty.  NULL (counted) when ROCE_TX_MAX frames still wait for room in
 * a full transmit ring, or the pool is empty: the frame is then not
 * built (requests, READ responses, atomic ACKs, ACKs and NAKs stay owed
 * and are built by a later run; ARP and ND frames are dropped, asked
 * again).  Inline, as the next two: every packet sent takes all three.
 */
static inline struct rte_mbuf *roce_tx_mbuf(struct roce_dev *d)
{
	if (!roce_tx_room(d))
		return NULL;
	if (likely(d->nstash > 0))
		return d->stash[--d->nstash];
	return roce_tx_mbuf_alloc(d);
}

/*
 * Frame m, len bytes, is queued for the next flush (roce_tx_mbuf() made
 * room for it).  Once tx_flush bytes are queued they go at once, so that
 * the peer takes in a long message's first frames while the rest are
 * built (not while the ring refuses frames: the flush at the end of the
 * pass tries again).
 */
static inline void roce_tx_commit(struct roce_dev *d, struct rte_mbuf *m,
				  int len)
{
	m->data_len = (uint16_t)len;
	m->pkt_len = (uint32_t)len;
	d->st.tx_pkts++;
	d->st.tx_bytes += (uint64_t)len;
	d->tx[d->ntx++] = m;
	d->ntx_bytes += (uint32_t)len;
	if (unlikely(d->ntx_bytes >= d->tx_flush) && !d->tx_refused)
		roce_tx_flush(d);
}
void roce_build_init(struct roce_dev *d, struct roce_qp *rq,
		     struct wire_build *b, const uint8_t *sgid,
		     const uint8_t *dgid);
bool roce_conn_setup(struct roce_dev *d, struct roce_qp *rq);

/*
 * What every packet of connected QP rq (RC, UC) needs before it is built:
 * the peer's MAC, looked up (and asked for) until known, by the requester
 * or the responder, whichever sends first; and rq->tmpl, the flow's
 * headers (addresses, ports, traffic class, destination QP), made again
 * after a modify_qp or a reset (roce_conn_setup()).  @return false while
 * the MAC is not known (the requester then waits for it, rq->resolving;
 * an answer is dropped).
 */
static inline bool roce_conn_ready(struct roce_dev *d, struct roce_qp *rq)
{
	return likely(rq->dmac_valid && rq->tmpl_valid) ||
	       roce_conn_setup(d, rq);
}
bool roce_conn_begin(struct roce_dev *d, struct roce_qp *rq,
		     struct wire_build *b);
bool roce_gid_is_v4(const uint8_t *gid);
bool roce_gid_ours(const struct pmr_dev_obj *dev, const uint8_t *gid);
bool roce_resolve(struct roce_dev *d, const uint8_t *gid, uint8_t *mac);
int roce_neigh_add(struct roce_dev *d, const uint8_t *gid, const uint8_t *mac,
		   bool stat);

/* roce_req.c */
void roce_qp_set_timeout(struct roce_dev *d, struct roce_qp *rq,
			 uint8_t timeout);
/* now: the TSC read once per engine run (roce_now()); NULL: the timers a
 * run starts wait for roce_req_arm(), off the path to the port. */
unsigned int roce_req_run(struct roce_dev *d, struct roce_qp *rq,
			  unsigned int budget, uint64_t *now);
void roce_req_arm(struct roce_qp *rq, uint64_t now);
void roce_req_retransmit(struct roce_qp *rq, uint32_t psn);
void roce_req_timers(struct roce_dev *d, struct roce_qp *rq, uint64_t *now);
void roce_req_reset(struct roce_qp *rq);
/* The requester starts again at the SQ's consumer index: no WQE begun. */
void roce_req_restart(struct roce_qp *rq);

/* roce_comp.c */
void roce_comp_rx(struct roce_dev *d, struct roce_qp *rq,
		  const uint8_t *frame, const struct wire_pkt *p);

/* roce_resp.c */
void roce_resp_rx(struct roce_dev *d, struct roce_qp *rq,
		  const uint8_t *frame, const struct wire_pkt *p);
unsigned int roce_resp_run(struct roce_dev *d, struct roce_qp *rq,
			   unsigned int budget, bool ack_now);
void roce_resp_reset(struct roce_qp *rq);
/* Send the ACK and the NAK the responder owes now (transmit burst
 * included), READ responses still to go or not: the QP is about to be
 * reset or destroyed.  In ERR only a fatal NAK of its own is still owed
 * (the rest is dropped): the error the peer made. */
void roce_resp_send_owed(struct roce_dev *d, struct roce_qp *rq);
bool roce_resp_mr_busy(struct roce_qp *rq, struct pmr_mr_obj *mr);

/* Copy bytes [off, off + len) of a send WQE's data to dst. */
bool roce_wqe_gather(struct pmr_qp_obj *qp, struct pmr_swqe *w, uint32_t off,
		     uint32_t len, uint8_t *dst);
/* Copy len bytes to a list of local SGEs at offset off (LOCAL_WRITE). */
bool roce_sge_scatter(struct pmr_qp_obj *qp, const struct pmr_sge *sge,
		      uint32_t nsge, uint32_t off, const uint8_t *src,
		      uint32_t len);

#endif /* ROCE_H */
