/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared helpers of the test/verbs/qp tests: assertions, opening the
 * loopback device, creating CQs / QPs and connecting QP pairs through
 * RESET -> INIT -> RTR -> RTS.  Public API only (pmr_verbs.h).
 */
#ifndef VT_H
#define VT_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmr_verbs.h"

extern int vt_failures;

/* Fatal: print file:line and the expression, exit(1). */
#define CHECK(cond) do { \
	if (!(cond)) { \
		fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, \
			__LINE__, #cond); \
		exit(1); \
	} \
} while (0)

#define CHECK_EQ(a, b) do { \
	long long vt_a_ = (long long)(a), vt_b_ = (long long)(b); \
	if (vt_a_ != vt_b_) { \
		fprintf(stderr, "%s:%d: CHECK failed: %s == %s (%lld != %lld)\n", \
			__FILE__, __LINE__, #a, #b, vt_a_, vt_b_); \
		exit(1); \
	} \
} while (0)

/* Non-fatal: print, count, continue (vt_exit() fails at the end). */
#define EXPECT_EQ_MSG(a, b, fmt, ...) do { \
	long long vt_a_ = (long long)(a), vt_b_ = (long long)(b); \
	if (vt_a_ != vt_b_) { \
		fprintf(stderr, "%s:%d: EXPECT failed: %s == %s (%lld != %lld) " \
			fmt "\n", __FILE__, __LINE__, #a, #b, vt_a_, vt_b_, \
			##__VA_ARGS__); \
		vt_failures++; \
	} \
} while (0)
#define EXPECT_EQ(a, b) EXPECT_EQ_MSG(a, b, "%s", "")
#define EXPECT(cond) do { \
	if (!(cond)) { \
		fprintf(stderr, "%s:%d: EXPECT failed: %s\n", __FILE__, \
			__LINE__, #cond); \
		vt_failures++; \
	} \
} while (0)
#define EXPECT_MSG(cond, fmt, ...) do { \
	if (!(cond)) { \
		fprintf(stderr, "%s:%d: EXPECT failed: %s: " fmt "\n", \
			__FILE__, __LINE__, #cond, ##__VA_ARGS__); \
		vt_failures++; \
	} \
} while (0)

/* Check a WC's status with the status names in the message. */
#define CHECK_WC(wc, st) do { \
	if ((wc).status != (st)) { \
		fprintf(stderr, "%s:%d: CHECK failed: wc status %d (%s), " \
			"want %d (%s), wr_id %llu\n", __FILE__, __LINE__, \
			(int)(wc).status, pmr_wc_status_str((wc).status), \
			(int)(st), pmr_wc_status_str(st), \
			(unsigned long long)(wc).wr_id); \
		exit(1); \
	} \
} while (0)

/** exit status: 0 if no EXPECT failed. */
int vt_exit(void);

struct vt {
	struct pmr_device *dev;
	struct pmr_context *ctx;
	struct pmr_pd *pd;
	struct pmr_device_attr dattr;
	struct pmr_port_attr pattr;
	union pmr_gid gid0;
};

/** The number of devices in the list (fails the test if none can be
 *  listed). */
int vt_ndevices(void);

/** Open the first device (async_fd made non-blocking), alloc a PD. */
void vt_open(struct vt *v);
/** vt_open() on a given device (one the program created itself). */
void vt_open_dev(struct vt *v, struct pmr_device *dev);
void vt_close(struct vt *v);

struct pmr_cq *vt_cq(struct vt *v, int cqe);
struct pmr_mr *vt_mr(struct pmr_pd *pd, void *buf, size_t len, int access);

/** The attributes vt_qp() creates with. */
struct pmr_qp_init_attr vt_qp_attr(enum pmr_qp_type type,
				   struct pmr_cq *scq, struct pmr_cq *rcq,
				   uint32_t wr, int sq_sig_all);
/** Create a QP with send/recv queues of `wr` entries, 4 SGEs, 64 inline. */
struct pmr_qp *vt_qp(struct pmr_pd *pd, enum pmr_qp_type type,
		     struct pmr_cq *scq, struct pmr_cq *rcq, uint32_t wr,
		     int sq_sig_all);

struct vt_opts {
	int access;              /* RC/UC qp_access_flags */
	uint32_t qkey;           /* UD */
	uint8_t timeout, retry_cnt, rnr_retry, min_rnr_timer;
	uint8_t max_rd_atomic, max_dest_rd_atomic;
	enum pmr_mtu path_mtu;
	uint32_t rq_psn, sq_psn;
};

/** Defaults: all remote access, qkey 0x11111111, timeout 14, retry 7,
 *  rnr_retry 7, min_rnr_timer 1, rd_atomic 4/4, MTU 1024, PSNs 0. */
struct vt_opts vt_opts_default(void);

void vt_ah_attr(struct vt *v, struct pmr_ah_attr *ah);

/* Individual transitions with exactly the required masks; return errno. */
int vt_to_init(struct pmr_qp *qp, const struct vt_opts *o);
int vt_to_rtr(struct vt *v, struct pmr_qp *qp, uint32_t dest_qpn,
	      const struct vt_opts *o);
int vt_to_rts(struct pmr_qp *qp, const struct vt_opts *o);
/** RESET -> RTS (fatal on error). */
void vt_connect(struct vt *v, struct pmr_qp *qp, uint32_t dest_qpn,
		const struct vt_opts *o);

enum pmr_qp_state vt_state(struct pmr_qp *qp);

struct vt_pair {
	struct pmr_cq *scq[2], *rcq[2];
	struct pmr_qp *qp[2];
	struct pmr_ah *ah;       /* UD: AH for GID 0 */
};

/** Two QPs of `type` connected to each other (UD: just RTS + an AH). */
void vt_pair(struct vt *v, enum pmr_qp_type type, const struct vt_opts *o,
	     int sq_sig_all, struct vt_pair *p);
void vt_pair_destroy(struct vt_pair *p);

/** Poll until `n` WCs are read or `ms` elapse; @return the number read. */
int vt_poll(struct pmr_cq *cq, int n, struct pmr_wc *wc, int ms);
/** Poll exactly one WC (fatal if none within 2 s). */
void vt_poll1(struct pmr_cq *cq, struct pmr_wc *wc);
/** Poll for `ms` and @return how many WCs came (they are discarded). */
int vt_count(struct pmr_cq *cq, int ms);

/** Non-blocking: take one async event (acked), @return 0 or -1. */
int vt_async(struct vt *v, struct pmr_async_event *ev);
/** Drain and ack every pending async event. @return how many. */
int vt_async_drain(struct vt *v);

uint64_t vt_now_ms(void);

struct pmr_send_wr vt_swr(uint64_t wr_id, enum pmr_wr_opcode op,
			  struct pmr_sge *sge, int nsge, unsigned int flags);
struct pmr_recv_wr vt_rwr(uint64_t wr_id, struct pmr_sge *sge, int nsge);
int vt_post_send1(struct pmr_qp *qp, struct pmr_send_wr *wr);
int vt_post_recv1(struct pmr_qp *qp, struct pmr_recv_wr *wr);

/** Runs the engine (pmr_progress) for ms milliseconds, then takes every
 *  async event: @return how many there were, the last in *last. */
int vt_events_after(struct vt *v, int ms, struct pmr_async_event *last);
/** Runs the engine until an async event comes, for ms milliseconds at
 *  most: it must be the only one, of type t, on port 1, and none must
 *  follow in 100 ms more (fails the test otherwise, saying when). */
void vt_port_event(struct vt *v, enum pmr_event_type t, int ms,
		   const char *when);

/** A 64-byte SEND between two RC QPs of v's device passes, its bytes in
 *  place (fails the test otherwise); the QPs and MRs are gone after. */
void vt_send_passes(struct vt *v);

#endif /* VT_H */
