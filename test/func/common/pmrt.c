/* SPDX-License-Identifier: BSD-3-Clause */
/* pmrt: helpers shared by the two-process tests (see pmrt.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>

#include "pmrt.h"

const char *pmrt_name = "client";
struct pmr_context *pmrt_ctx;
int pmrt_ctl = -1;
void (*pmrt_ctl_idle)(void);

uint64_t pmrt_now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

uint8_t pmrt_pat(uint32_t seed, uint64_t i)
{
	uint64_t x = i * 0x9E3779B1u + seed * 0x85EBCA6Bu;

	return (uint8_t)(x ^ (x >> 13) ^ (i >> 8) ^ (i >> 16));
}

void pmrt_fill_pat(uint8_t *p, uint64_t len, uint32_t seed, uint64_t idx0)
{
	for (uint64_t i = 0; i < len; i++)
		p[i] = pmrt_pat(seed, idx0 + i);
}

int64_t pmrt_check_pat(const uint8_t *p, uint64_t len, uint32_t seed,
		       uint64_t idx0)
{
	for (uint64_t i = 0; i < len; i++)
		if (p[i] != pmrt_pat(seed, idx0 + i))
			return (int64_t)i;
	return -1;
}

int64_t pmrt_check_byte(const uint8_t *p, uint64_t len, uint8_t b)
{
	for (uint64_t i = 0; i < len; i++)
		if (p[i] != b)
			return (int64_t)i;
	return -1;
}

void pmrt_die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: FATAL: ", pmrt_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

void pmrt_progress(void)
{
	int r = pmr_progress(pmrt_ctx, 32);

	if (r < 0)
		pmrt_die("pmr_progress: %s", strerror(-r));
}

/* ---- control socket ------------------------------------------------------ */

void pmrt_ctl_check_path(const char *path)
{
	struct sockaddr_un sa;

	if (strlen(path) >= sizeof(sa.sun_path))
		pmrt_die("control path too long");
}

void pmrt_ctl_open(const char *path, bool server)
{
	struct sockaddr_un sa;
	uint64_t end = pmrt_now_ns() + 60000000000ull;

	pmrt_ctl_check_path(path);
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	strcpy(sa.sun_path, path);
	if (server) {
		int ls = socket(AF_UNIX, SOCK_STREAM, 0);

		unlink(path);
		if (ls < 0 || bind(ls, (struct sockaddr *)&sa, sizeof(sa)) ||
		    listen(ls, 1))
			pmrt_die("control socket %s: %s", path, strerror(errno));
		fcntl(ls, F_SETFL, O_NONBLOCK);
		while ((pmrt_ctl = accept(ls, NULL, NULL)) < 0) {
			if (errno != EAGAIN && errno != EINTR)
				pmrt_die("accept: %s", strerror(errno));
			if (pmrt_now_ns() > end)
				pmrt_die("no client within 60 s");
			pmrt_progress();
		}
		close(ls);
		unlink(path);
	} else {
		for (;;) {
			pmrt_ctl = socket(AF_UNIX, SOCK_STREAM, 0);
			if (pmrt_ctl < 0)
				pmrt_die("socket: %s", strerror(errno));
			if (connect(pmrt_ctl, (struct sockaddr *)&sa,
				    sizeof(sa)) == 0)
				break;
			close(pmrt_ctl);
			if (pmrt_now_ns() > end)
				pmrt_die("cannot connect to %s: %s", path,
					 strerror(errno));
			pmrt_progress();
			usleep(10000);
		}
	}
	fcntl(pmrt_ctl, F_SETFL, O_NONBLOCK);
}

void pmrt_ctl_write(const void *p, size_t len)
{
	const uint8_t *b = p;

	while (len > 0) {
		ssize_t n = write(pmrt_ctl, b, len);

		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN) {
				pmrt_progress();
				continue;
			}
			pmrt_die("control write: %s", strerror(errno));
		}
		b += n;
		len -= (size_t)n;
	}
}

bool pmrt_ctl_read(void *p, size_t len)
{
	uint8_t *b = p;
	size_t got = 0;

	while (got < len) {
		ssize_t n = read(pmrt_ctl, b + got, len - got);

		if (n > 0) {
			got += (size_t)n;
			continue;
		}
		if (n == 0) {
			if (got == 0)
				return false;
			pmrt_die("control socket closed mid-message");
		}
		if (errno != EAGAIN && errno != EINTR)
			pmrt_die("control read: %s", strerror(errno));
		pmrt_progress();
		if (pmrt_ctl_idle != NULL)
			pmrt_ctl_idle();
	}
	return true;
}

void pmrt_ctl_xchg(const void *c, size_t clen, void *r, size_t rlen)
{
	pmrt_ctl_write(c, clen);
	if (!pmrt_ctl_read(r, rlen))
		pmrt_die("server closed the control socket");
}

static int32_t *rep_ok;
static char *rep_text;
static size_t rep_text_len;

void pmrt_rep_bind(int32_t *ok, char *text, size_t text_len)
{
	rep_ok = ok;
	rep_text = text;
	rep_text_len = text_len;
}

void pmrt_rep_fail(const char *fmt, ...)
{
	va_list ap;

	*rep_ok = 0;
	va_start(ap, fmt);
	vsnprintf(rep_text, rep_text_len, fmt, ap);
	va_end(ap);
}

bool pmrt_region_ok(uint64_t size, uint64_t off, uint64_t len)
{
	if (off > size || len > size - off) {
		pmrt_rep_fail("region %" PRIu64 "+%" PRIu64 " out of the buffer",
			      off, len);
		return false;
	}
	return true;
}

bool pmrt_qp_index_ok(uint32_t n, int32_t i)
{
	if (i < 0 || (uint32_t)i >= n) {
		pmrt_rep_fail("no QP index %d", i);
		return false;
	}
	return true;
}

bool pmrt_recv_wc_ok(const struct pmr_wc *wc, uint64_t wr_id, int status,
		     int opcode, uint32_t byte_len, uint32_t has_imm,
		     uint32_t imm)
{
	if (wc->wr_id != wr_id || (int)wc->status != status) {
		pmrt_rep_fail("recv wc: wr_id %" PRIu64 " status %s, expected "
			      "wr_id %" PRIu64 " status %s", wc->wr_id,
			      pmr_wc_status_str(wc->status), wr_id,
			      pmr_wc_status_str((enum pmr_wc_status)status));
		return false;
	}
	if (wc->status != PMR_WC_SUCCESS)
		return false;
	if ((int)wc->opcode != opcode || wc->byte_len != byte_len) {
		pmrt_rep_fail("recv wc: opcode %d byte_len %u, expected %d / %u",
			      wc->opcode, wc->byte_len, opcode, byte_len);
		return false;
	}
	if (has_imm != !!(wc->wc_flags & PMR_WC_WITH_IMM) ||
	    (has_imm && ntohl(wc->imm_data) != imm)) {
		pmrt_rep_fail("recv wc: wc_flags %#x imm %#x, expected imm %s %#x",
			      wc->wc_flags, ntohl(wc->imm_data),
			      has_imm ? "yes" : "no", imm);
		return false;
	}
	return true;
}

char pmrt_failmsg[512];

void pmrt_fail_prefix(const char *fmt, ...)
{
	char pfx[200];
	va_list ap;
	size_t n, m = strlen(pmrt_failmsg);

	va_start(ap, fmt);
	vsnprintf(pfx, sizeof(pfx), fmt, ap);
	va_end(ap);
	n = strlen(pfx);
	if (n + m + 1 > sizeof(pmrt_failmsg))
		m = sizeof(pmrt_failmsg) - n - 1;
	memmove(pmrt_failmsg + n, pmrt_failmsg, m);
	memcpy(pmrt_failmsg, pfx, n);
	pmrt_failmsg[n + m] = '\0';
}

int pmrt_reply_check(int32_t ok, uint32_t type, const char *text)
{
	if (!ok)
		PMRT_FAIL("server (command %u): %s", type, text);
	return 0;
}

/* ---- verbs set-up -------------------------------------------------------- */

/*
 * PMRT_DEVICE_DELAY_MS=N: rte_eal_init() of PMR_EAL_ARGS first (its
 * ports probed: a memif server's socket exists), the device of
 * PMR_DEVICES (one "roce:ARGS") created N ms later, as by an application
 * that sets DPDK up itself and creates its pmrdma device some time after.
 */
static void late_device(void)
{
	static char eal[1024];
	const char *ms = getenv("PMRT_DEVICE_DELAY_MS");
	const char *spec = getenv("PMR_DEVICES");
	const char *eal_args = getenv("PMR_EAL_ARGS");
	char *argv[64], *save = NULL;
	int argc = 0;

	if (ms == NULL)
		return;
	if (spec == NULL || strncmp(spec, "roce:", 5) != 0 ||
	    eal_args == NULL || strlen(eal_args) >= sizeof(eal))
		pmrt_die("PMRT_DEVICE_DELAY_MS wants PMR_EAL_ARGS and one "
			 "roce: device in PMR_DEVICES");
	snprintf(eal, sizeof(eal), "%s", eal_args);
	argv[argc++] = (char *)pmrt_name;
	for (char *t = strtok_r(eal, " ", &save); t != NULL && argc < 63;
	     t = strtok_r(NULL, " ", &save))
		argv[argc++] = t;
	argv[argc] = NULL;
	if (rte_eal_init(argc, argv) < 0)
		pmrt_die("rte_eal_init: %s", rte_strerror(rte_errno));
	usleep((useconds_t)atoi(ms) * 1000);
	if (pmr_device_create("roce", spec + 5) == NULL)
		pmrt_die("device created %s ms late: %s", ms, strerror(errno));
	unsetenv("PMR_DEVICES");        /* made: the list has it */
}

struct pmr_context *pmrt_open_roce(struct pmr_device **devp)
{
	struct pmr_device **l, *dev = NULL;
	int n;

	late_device();
	l = pmr_get_device_list(&n);

	if (l == NULL || n < 1)
		pmrt_die("no pmrdma device (errno %d)", errno);
	for (int i = 0; i < n && dev == NULL; i++)
		if (strncmp(pmr_get_device_name(l[i]), "pmr_roce", 8) == 0)
			dev = l[i];
	pmr_free_device_list(l);
	if (dev == NULL)
		pmrt_die("no pmr_roce device (is PMR_DEVICES set?)");
	pmrt_ctx = pmr_open_device(dev);
	if (pmrt_ctx == NULL)
		pmrt_die("open_device: %s", strerror(errno));
	if (devp != NULL)
		*devp = dev;
	return pmrt_ctx;
}

uint8_t *pmrt_alloc_buf(size_t size)
{
	uint8_t *p = aligned_alloc(4096, size);

	if (p != NULL)
		memset(p, 0, size);
	return p;
}

void pmrt_ip_to_gid(const char *ip, uint8_t gid[16])
{
	memset(gid, 0, 16);
	if (strchr(ip, ':') != NULL) {
		if (inet_pton(AF_INET6, ip, gid) != 1)
			pmrt_die("bad IPv6 address %s", ip);
	} else {
		gid[10] = gid[11] = 0xff;
		if (inet_pton(AF_INET, ip, gid + 12) != 1)
			pmrt_die("bad IPv4 address %s", ip);
	}
}

struct pmr_qp *pmrt_qp_create(struct pmr_pd *pd, struct pmr_cq *cq,
			      enum pmr_qp_type type, struct pmr_qp_cap *cap,
			      unsigned int access, uint32_t qkey)
{
	struct pmr_qp_init_attr ia;
	struct pmr_qp_attr a;
	struct pmr_qp *qp;
	int mask = PMR_QP_STATE | PMR_QP_PKEY_INDEX | PMR_QP_PORT;

	memset(&ia, 0, sizeof(ia));
	ia.send_cq = cq;
	ia.recv_cq = cq;
	ia.qp_type = type;
	ia.cap = *cap;
	qp = pmr_create_qp(pd, &ia);
	if (qp == NULL)
		pmrt_die("create_qp: %s", strerror(errno));
	*cap = ia.cap;
	memset(&a, 0, sizeof(a));
	a.qp_state = PMR_QPS_INIT;
	a.port_num = 1;
	if (type == PMR_QPT_UD) {
		a.qkey = qkey;
		mask |= PMR_QP_QKEY;
	} else {
		a.qp_access_flags = access;
		mask |= PMR_QP_ACCESS_FLAGS;
	}
	if (pmr_modify_qp(qp, &a, mask))
		pmrt_die("modify_qp INIT");
	return qp;
}

void pmrt_qp_connect(struct pmr_qp *qp, const struct pmrt_conn *c)
{
	struct pmr_qp_attr a;
	int r, mask;

	memset(&a, 0, sizeof(a));
	a.qp_state = PMR_QPS_RTR;
	mask = PMR_QP_STATE;
	if (c->type != PMR_QPT_UD) {
		a.path_mtu = c->path_mtu;
		a.dest_qp_num = c->dest_qpn;
		a.rq_psn = c->rq_psn;
		a.ah_attr.is_global = 1;
		a.ah_attr.port_num = 1;
		a.ah_attr.grh.hop_limit = c->hop_limit;
		a.ah_attr.grh.sgid_index = c->sgid_index;
		memcpy(a.ah_attr.grh.dgid.raw, c->dgid, 16);
		mask |= PMR_QP_AV | PMR_QP_PATH_MTU | PMR_QP_DEST_QPN |
			PMR_QP_RQ_PSN;
		if (c->type == PMR_QPT_RC) {
			a.max_dest_rd_atomic = c->max_dest_rd_atomic;
			a.min_rnr_timer = c->min_rnr_timer;
			mask |= PMR_QP_MAX_DEST_RD_ATOMIC | PMR_QP_MIN_RNR_TIMER;
		}
	}
	r = pmr_modify_qp(qp, &a, mask);
	if (r)
		pmrt_die("modify_qp RTR: %s", strerror(r));
	memset(&a, 0, sizeof(a));
	a.qp_state = PMR_QPS_RTS;
	a.sq_psn = c->sq_psn;
	mask = PMR_QP_STATE | PMR_QP_SQ_PSN;
	if (c->type == PMR_QPT_RC) {
		a.timeout = c->timeout;
		a.retry_cnt = c->retry_cnt;
		a.rnr_retry = c->rnr_retry;
		a.max_rd_atomic = c->max_rd_atomic;
		mask |= PMR_QP_TIMEOUT | PMR_QP_RETRY_CNT | PMR_QP_RNR_RETRY |
			PMR_QP_MAX_QP_RD_ATOMIC;
	}
	r = pmr_modify_qp(qp, &a, mask);
	if (r)
		pmrt_die("modify_qp RTS: %s", strerror(r));
}

enum pmr_qp_state pmrt_qp_state(struct pmr_qp *qp)
{
	struct pmr_qp_attr a;
	struct pmr_qp_init_attr ia;

	if (pmr_query_qp(qp, &a, PMR_QP_STATE, &ia))
		return PMR_QPS_UNKNOWN;
	return a.qp_state;
}
