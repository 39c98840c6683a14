/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pmr-perf-fault: pmr-perf (the same source) linked with this file and
 * -Wl,--wrap for the calls below, so that the failures of system calls
 * and verbs that no run provokes can be tested (test-perf-short.sh).
 * PMR_PERF_FAULT names the one that fails; unset, every call goes
 * through:
 *
 *   sigaction      installing the SIGTERM handler (--run_infinitely)
 *   socket         a TCP socket (the control connection's): -1, errno
 *                  EMFILE
 *   comp_channel   pmr_create_comp_channel (-e): NULL, errno EMFILE
 *   query_qp       pmr_query_qp (the QPs' max_rd_atomic in the result):
 *                  EIO
 *   reg_mr         pmr_reg_mr (the one region, or with --mr_per_qp each
 *                  QP's): NULL, errno ENOMEM
 *   create_srq     pmr_create_srq (--use-srq): NULL, errno ENOMEM
 *   post_srq_recv  pmr_post_srq_recv (--use-srq): ENOMEM
 *   poll_channel   poll() on the completion channel's descriptor (-e):
 *                  -1, errno EINVAL
 *   poll_socket    the first poll() of a socket with a 100 ms timeout
 *                  (a server with --progress service waiting for the
 *                  client's next line): -1, errno EINVAL; the later ones
 *                  go through, the wait for the peer's close among them
 *   trace_qp       nothing fails: each QP that pmr_modify_qp takes to RTS
 *                  prints its local ACK timeout, as pmr_query_qp gives it
 *                  back, on stderr ("pmr-perf-fault: QP N timeout T"), so
 *                  that a server's, which prints no result, can be seen
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <pmr_verbs.h>

int __real_sigaction(int sig, const struct sigaction *act,
		     struct sigaction *old);
int __wrap_sigaction(int sig, const struct sigaction *act,
		     struct sigaction *old);
int __real_socket(int domain, int type, int protocol);
int __wrap_socket(int domain, int type, int protocol);
int __real_poll(struct pollfd *fds, nfds_t n, int timeout);
int __wrap_poll(struct pollfd *fds, nfds_t n, int timeout);
struct pmr_comp_channel *
__real_pmr_create_comp_channel(struct pmr_context *context);
struct pmr_comp_channel *
__wrap_pmr_create_comp_channel(struct pmr_context *context);
int __real_pmr_query_qp(struct pmr_qp *qp, struct pmr_qp_attr *attr,
			int mask, struct pmr_qp_init_attr *init);
int __wrap_pmr_query_qp(struct pmr_qp *qp, struct pmr_qp_attr *attr,
			int mask, struct pmr_qp_init_attr *init);

struct pmr_mr *__real_pmr_reg_mr(struct pmr_pd *pd, void *addr,
				 size_t length, int access);
struct pmr_mr *__wrap_pmr_reg_mr(struct pmr_pd *pd, void *addr,
				 size_t length, int access);
struct pmr_srq *__real_pmr_create_srq(struct pmr_pd *pd,
				      struct pmr_srq_init_attr *init);
struct pmr_srq *__wrap_pmr_create_srq(struct pmr_pd *pd,
				      struct pmr_srq_init_attr *init);
int __real_pmr_post_srq_recv(struct pmr_srq *srq, struct pmr_recv_wr *wr,
			     struct pmr_recv_wr **bad);
int __wrap_pmr_post_srq_recv(struct pmr_srq *srq, struct pmr_recv_wr *wr,
			     struct pmr_recv_wr **bad);

int __real_pmr_modify_qp(struct pmr_qp *qp, struct pmr_qp_attr *attr,
			 int mask);
int __wrap_pmr_modify_qp(struct pmr_qp *qp, struct pmr_qp_attr *attr,
			 int mask);

static int chan_fd = -1;

static bool armed(const char *name)
{
	const char *f = getenv("PMR_PERF_FAULT");

	return f != NULL && strcmp(f, name) == 0;
}

int __wrap_sigaction(int sig, const struct sigaction *act,
		     struct sigaction *old)
{
	if (sig == SIGTERM && armed("sigaction")) {
		errno = EINVAL;
		return -1;
	}
	return __real_sigaction(sig, act, old);
}

int __wrap_socket(int domain, int type, int protocol)
{
	if (domain == AF_INET && type == SOCK_STREAM && armed("socket")) {
		errno = EMFILE;
		return -1;
	}
	return __real_socket(domain, type, protocol);
}

struct pmr_comp_channel *
__wrap_pmr_create_comp_channel(struct pmr_context *context)
{
	struct pmr_comp_channel *ch;

	if (armed("comp_channel")) {
		errno = EMFILE;
		return NULL;
	}
	ch = __real_pmr_create_comp_channel(context);
	if (ch != NULL)
		chan_fd = ch->fd;
	return ch;
}

int __wrap_pmr_query_qp(struct pmr_qp *qp, struct pmr_qp_attr *attr,
			int mask, struct pmr_qp_init_attr *init)
{
	if (armed("query_qp"))
		return EIO;
	return __real_pmr_query_qp(qp, attr, mask, init);
}

struct pmr_mr *__wrap_pmr_reg_mr(struct pmr_pd *pd, void *addr,
				 size_t length, int access)
{
	if (armed("reg_mr")) {
		errno = ENOMEM;
		return NULL;
	}
	return __real_pmr_reg_mr(pd, addr, length, access);
}

struct pmr_srq *__wrap_pmr_create_srq(struct pmr_pd *pd,
				      struct pmr_srq_init_attr *init)
{
	if (armed("create_srq")) {
		errno = ENOMEM;
		return NULL;
	}
	return __real_pmr_create_srq(pd, init);
}

int __wrap_pmr_post_srq_recv(struct pmr_srq *srq, struct pmr_recv_wr *wr,
			     struct pmr_recv_wr **bad)
{
	if (armed("post_srq_recv")) {
		*bad = wr;
		return ENOMEM;
	}
	return __real_pmr_post_srq_recv(srq, wr, bad);
}

int __wrap_pmr_modify_qp(struct pmr_qp *qp, struct pmr_qp_attr *attr,
			 int mask)
{
	int ret = __real_pmr_modify_qp(qp, attr, mask);
	struct pmr_qp_init_attr init;
	struct pmr_qp_attr a;

	if (ret == 0 && armed("trace_qp") && (mask & PMR_QP_STATE) &&
	    attr->qp_state == PMR_QPS_RTS &&
	    __real_pmr_query_qp(qp, &a, PMR_QP_TIMEOUT, &init) == 0)
		fprintf(stderr, "pmr-perf-fault: QP %u timeout %u\n",
			qp->qp_num, a.timeout);
	return ret;
}

int __wrap_poll(struct pollfd *fds, nfds_t n, int timeout)
{
	static bool socket_failed;
	struct stat st;

	if (n == 1 && chan_fd >= 0 && fds[0].fd == chan_fd &&
	    armed("poll_channel")) {
		errno = EINVAL;
		return -1;
	}
	if (n == 1 && timeout == 100 && !socket_failed &&
	    armed("poll_socket") && fstat(fds[0].fd, &st) == 0 &&
	    S_ISSOCK(st.st_mode)) {
		socket_failed = true;
		errno = EINVAL;
		return -1;
	}
	return __real_poll(fds, n, timeout);
}
