/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pmrt: helpers shared by the two-process functional tests (test/func/ops
 * rc_ops, test/func/udc udc) and test/interop/perftest_client: data
 * patterns, fatal errors, the Unix control socket (with the engine
 * progressing while it waits), device open and RC / UC / UD QP set-up.
 */
#ifndef PMRT_H
#define PMRT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <pmr_verbs.h>

/* Prefix of pmrt_die() messages ("server", "client", ...). */
extern const char *pmrt_name;
/* The context pmrt_progress() runs (set by pmrt_open_roce()). */
extern struct pmr_context *pmrt_ctx;
/* The control socket (pmrt_ctl_open()). */
extern int pmrt_ctl;
/* Called after each pmrt_progress() while pmrt_ctl_read() waits; or NULL. */
extern void (*pmrt_ctl_idle)(void);

uint64_t pmrt_now_ns(void);

/* The test data pattern: byte i of the stream of seed. */
uint8_t pmrt_pat(uint32_t seed, uint64_t i);
void pmrt_fill_pat(uint8_t *p, uint64_t len, uint32_t seed, uint64_t idx0);
/* @return the first index that differs from the pattern / b, or -1 */
int64_t pmrt_check_pat(const uint8_t *p, uint64_t len, uint32_t seed,
		       uint64_t idx0);
int64_t pmrt_check_byte(const uint8_t *p, uint64_t len, uint8_t b);

/* "<pmrt_name>: FATAL: ..." on stderr, exit(1). */
__attribute__((noreturn, format(printf, 1, 2)))
void pmrt_die(const char *fmt, ...);

/* pmr_progress(pmrt_ctx, 32); dies on an error. */
void pmrt_progress(void);

/* Dies if path does not fit a Unix socket address. */
void pmrt_ctl_check_path(const char *path);
/* Server: listen at path and accept one client; client: connect to it;
 * each within 60 s, progressing the engine.  Sets pmrt_ctl (non-blocking). */
void pmrt_ctl_open(const char *path, bool server);
/* Write all of p, progressing the engine while the socket is full. */
void pmrt_ctl_write(const void *p, size_t len);
/* Read exactly len bytes, progressing the engine meanwhile.
 * @return false on EOF before anything was read. */
bool pmrt_ctl_read(void *p, size_t len);

/* Open the first pmr_roce device (PMR_DEVICES); sets pmrt_ctx.
 * @param devp  gets the device, or NULL */
struct pmr_context *pmrt_open_roce(struct pmr_device **devp);
/* A page-aligned, zeroed buffer of size bytes; NULL on failure. */
uint8_t *pmrt_alloc_buf(size_t size);

/* IPv4 (as an IPv4-mapped GID) or IPv6 address to a GID; dies if bad. */
void pmrt_ip_to_gid(const char *ip, uint8_t gid[16]);

/* Create a QP on cq (send and receive) and take it to INIT on port 1:
 * qkey for UD, else the access flags.  cap gets what was granted. */
struct pmr_qp *pmrt_qp_create(struct pmr_pd *pd, struct pmr_cq *cq,
			      enum pmr_qp_type type, struct pmr_qp_cap *cap,
			      unsigned int access, uint32_t qkey);

/* INIT -> RTR -> RTS.  UD: no path; UC: path, PSNs; RC: also the read /
 * atomic depths, RNR timer, timeout and retry counts. */
struct pmrt_conn {
	enum pmr_qp_type type;
	enum pmr_mtu path_mtu;
	uint32_t sq_psn, dest_qpn, rq_psn;
	uint8_t dgid[16];
	uint8_t sgid_index, hop_limit;
	uint8_t max_dest_rd_atomic, max_rd_atomic, min_rnr_timer;
	uint8_t timeout, retry_cnt, rnr_retry;
};
void pmrt_qp_connect(struct pmr_qp *qp, const struct pmrt_conn *c);

/* @return the QP's state, PMR_QPS_UNKNOWN if the query fails */
enum pmr_qp_state pmrt_qp_state(struct pmr_qp *qp);

/* ---- the command / reply exchange of the control socket ------------- */

/* Send the command c, read the reply r (dies if the peer went away). */
void pmrt_ctl_xchg(const void *c, size_t clen, void *r, size_t rlen);

/* Server: the reply being built (its ok flag and text). */
void pmrt_rep_bind(int32_t *ok, char *text, size_t text_len);
/* ok = 0, text = the message. */
__attribute__((format(printf, 1, 2)))
void pmrt_rep_fail(const char *fmt, ...);
/* Is off+len inside a buffer of size bytes?  Else pmrt_rep_fail(). */
bool pmrt_region_ok(uint64_t size, uint64_t off, uint64_t len);
/* Is i a QP index below n (of n QPs)?  Else pmrt_rep_fail(). */
bool pmrt_qp_index_ok(uint32_t n, int32_t i);
/* Check a receive completion against the expected wr_id and status, then
 * (successful ones) opcode, byte_len and immediate data (imm in host
 * order); pmrt_rep_fail() on a mismatch.
 * @return true when it matched and is successful (check the data next) */
bool pmrt_recv_wc_ok(const struct pmr_wc *wc, uint64_t wr_id, int status,
		     int opcode, uint32_t byte_len, uint32_t has_imm,
		     uint32_t imm);

/* Client: why the last check failed. */
extern char pmrt_failmsg[512];
#define PMRT_FAIL(...) do { \
	snprintf(pmrt_failmsg, sizeof(pmrt_failmsg), __VA_ARGS__); \
	return -1; \
} while (0)
#define PMRT_TRY(x) do { if ((x) != 0) return -1; } while (0)
/* Put "FMT..." in front of pmrt_failmsg. */
__attribute__((format(printf, 1, 2)))
void pmrt_fail_prefix(const char *fmt, ...);
/* 0 if ok, else -1 with pmrt_failmsg "server (command TYPE): TEXT" */
int pmrt_reply_check(int32_t ok, uint32_t type, const char *text);

#endif
