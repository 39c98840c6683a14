/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rc_pingpong: the behaviour of rdma-core's ibv_rc_pingpong, written as
 * plain verbs code (ibv_ names, through <pmr_ibv_compat.h>) for pmrdma.
 *
 * It is interoperable with the original: the same options and defaults,
 * the same TCP exchange of "LID:QPN:PSN:GID" on port 18515, the same QP
 * attributes, the same SEND/RECV ping-pong and the same output lines.
 *
 *   rc_pingpong [options]            server: wait for a client
 *   rc_pingpong [options] HOST       client: connect to the server at HOST
 *
 * On a RoCE device a GID index is needed on both sides (-g; pmrdma's
 * IPv4-mapped GID is index 0, a Linux rxe or mlx5 device's is usually 1).
 *
 * pmrdma-specific behaviour (only where pmrdma differs from a kernel RNIC):
 *  - With inline progress (the default), pmrdma's engine (ARP replies,
 *    retransmissions, incoming packets) only runs inside verbs calls.  A
 *    peer resolves our MAC during the TCP exchange, so every TCP wait here
 *    is a poll() of at most 1 ms followed by pmr_progress().  In -e mode the
 *    completion channel's fd is likewise polled while pmr_progress() runs.
 *    Built against libibverbs (-DRC_PINGPONG_LIBIBVERBS) none of this is
 *    compiled in and every wait blocks, as in the original.
 *  - -o/-O/-P (on-demand paging), -t (completion timestamps), -j (device
 *    memory) and -N (the ibv_qp_ex send API) are accepted but refused, as
 *    the original refuses them on a device without those capabilities.
 *  - With -c, a server that finds invalid data also exits with status 1
 *    (the original only prints "invalid data in page N").
 *
 * Exit status: 0 only when every iteration completed successfully.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <netdb.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#ifdef RC_PINGPONG_LIBIBVERBS
#include <infiniband/verbs.h>
#else
#include <pmr_ibv_compat.h>
#endif

/* pmrdma's engine needs to be driven while this program waits on TCP. */
#ifdef PMR_VERBS_H
#define PP_PROGRESS_BUDGET 32
#define PP_POLL_MS 1
#else
#define PP_POLL_MS -1
#endif

enum {
	PP_RECV_WRID = 1,
	PP_SEND_WRID = 2,
};

/* "LLLL:QQQQQQ:PPPPPP:" + 32 hex digits + NUL = 52 bytes. */
#define PP_MSG_LEN 52
#define PP_DONE "done"

static long page_size;

struct pp_ctx {
	struct ibv_context *context;
	struct ibv_comp_channel *channel;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	unsigned char *buf;
	unsigned int size;
	unsigned int send_flags;
	int rx_depth;
	int pending;
	struct ibv_port_attr portinfo;
};

struct pp_dest {
	int lid;
	int qpn;
	int psn;
	union ibv_gid gid;
};

struct pp_opts {
	const char *ib_devname;
	const char *servername;
	unsigned int port;
	int ib_port;
	unsigned int size;
	enum ibv_mtu mtu;
	unsigned int rx_depth;
	unsigned int iters;
	int sl;
	int use_event;
	int gidx;
	int use_odp;
	int implicit_odp;
	int prefetch_mr;
	int use_ts;
	int validate_buf;
	int use_dm;
	int use_new_send;
};

/* ------------------------------------------------------------------ */
/* Waiting without starving the RDMA engine                            */
/* ------------------------------------------------------------------ */

static void pp_engine_run(struct ibv_context *context)
{
#ifdef PMR_VERBS_H
	if (context != NULL)
		(void)pmr_progress(context, PP_PROGRESS_BUDGET);
#else
	(void)context;
#endif
}

/* Wait until @p fd has one of @p events (or an error / hang-up). */
static int pp_wait_fd(struct ibv_context *context, int fd, short events)
{
	struct pollfd p = { .fd = fd, .events = events };

	for (;;) {
		int n = poll(&p, 1, PP_POLL_MS);

		if (n > 0)
			return 0;
		if (n < 0 && errno != EINTR)
			return -1;
		pp_engine_run(context);
	}
}

/* Read exactly @p len bytes unless EOF or an error comes first. */
static ssize_t pp_read_all(struct ibv_context *context, int fd, void *buf,
			   size_t len)
{
	size_t got = 0;

	errno = 0;      /* a perror() after an early EOF says "Success" */
	while (got < len) {
		ssize_t n = read(fd, (char *)buf + got, len - got);

		if (n > 0) {
			got += (size_t)n;
		} else if (n == 0) {
			break;
		} else if (errno == EAGAIN || errno == EWOULDBLOCK) {
			if (pp_wait_fd(context, fd, POLLIN) != 0)
				return -1;
		} else if (errno != EINTR) {
			return got ? (ssize_t)got : -1;
		}
	}
	return (ssize_t)got;
}

static ssize_t pp_write_all(struct ibv_context *context, int fd,
			    const void *buf, size_t len)
{
	size_t put = 0;

	while (put < len) {
		ssize_t n = send(fd, (const char *)buf + put, len - put,
				 MSG_NOSIGNAL);

		if (n >= 0) {
			put += (size_t)n;
		} else if (errno == EAGAIN || errno == EWOULDBLOCK) {
			if (pp_wait_fd(context, fd, POLLOUT) != 0)
				return -1;
		} else if (errno != EINTR) {
			return put ? (ssize_t)put : -1;
		}
	}
	return (ssize_t)put;
}

static int pp_connect(struct ibv_context *context, const struct addrinfo *ai)
{
	int fd, err = 0;
	socklen_t len = sizeof(err);

	fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK,
		    ai->ai_protocol);
	if (fd < 0)
		return -1;
	if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
		return fd;
	if (errno != EINPROGRESS && errno != EINTR)
		goto fail;
	if (pp_wait_fd(context, fd, POLLOUT) != 0 ||
	    getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0 || err != 0)
		goto fail;
	return fd;
fail:
	close(fd);
	return -1;
}

static int pp_accept(struct ibv_context *context, int lfd)
{
	for (;;) {
		int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (fd >= 0)
			return fd;
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR &&
		    errno != ECONNABORTED)
			return -1;
		if (pp_wait_fd(context, lfd, POLLIN) != 0)
			return -1;
	}
}

/* ------------------------------------------------------------------ */
/* The connection message                                              */
/* ------------------------------------------------------------------ */

/* The 16 GID bytes as 32 hex digits, in wire (network) order. */
static void pp_gid_to_wire(const union ibv_gid *gid, char wire[33])
{
	for (int i = 0; i < 16; i++)
		snprintf(&wire[2 * i], 3, "%02x", gid->raw[i]);
}

static void pp_wire_to_gid(const char *wire, union ibv_gid *gid)
{
	memset(gid, 0, sizeof(*gid));
	for (int i = 0; i < 16 && wire[2 * i] && wire[2 * i + 1]; i++) {
		char byte[3] = { wire[2 * i], wire[2 * i + 1], '\0' };

		gid->raw[i] = (uint8_t)strtoul(byte, NULL, 16);
	}
}

static void pp_format_dest(const struct pp_dest *d, char msg[PP_MSG_LEN])
{
	char wgid[33];

	pp_gid_to_wire(&d->gid, wgid);
	memset(msg, 0, PP_MSG_LEN);
	snprintf(msg, PP_MSG_LEN, "%04x:%06x:%06x:%s", (unsigned int)d->lid,
		 (unsigned int)d->qpn, (unsigned int)d->psn, wgid);
}

static struct pp_dest *pp_parse_dest(const char msg[PP_MSG_LEN])
{
	struct pp_dest *d = calloc(1, sizeof(*d));
	char wgid[33] = "";
	char copy[PP_MSG_LEN + 1];
	unsigned int lid, qpn, psn;

	if (d == NULL)
		return NULL;
	memcpy(copy, msg, PP_MSG_LEN);
	copy[PP_MSG_LEN] = '\0';
	if (sscanf(copy, "%x:%x:%x:%32s", &lid, &qpn, &psn, wgid) < 3) {
		fprintf(stderr, "Couldn't parse remote address '%s'\n", copy);
		free(d);
		return NULL;
	}
	d->lid = (int)lid;
	d->qpn = (int)qpn;
	d->psn = (int)psn;
	pp_wire_to_gid(wgid, &d->gid);
	return d;
}

static void pp_print_dest(const char *what, const struct pp_dest *d)
{
	char gid[INET6_ADDRSTRLEN];

	inet_ntop(AF_INET6, d->gid.raw, gid, sizeof(gid));
	printf("  %s LID 0x%04x, QPN 0x%06x, PSN 0x%06x, GID %s\n", what,
	       (unsigned int)d->lid, (unsigned int)d->qpn,
	       (unsigned int)d->psn, gid);
}

/* ------------------------------------------------------------------ */
/* QP connection                                                       */
/* ------------------------------------------------------------------ */

static int pp_connect_ctx(struct pp_ctx *ctx, int port, int my_psn,
			  enum ibv_mtu mtu, int sl, const struct pp_dest *dest,
			  int sgid_idx)
{
	struct ibv_qp_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IBV_QPS_RTR;
	attr.path_mtu = mtu;
	attr.dest_qp_num = (uint32_t)dest->qpn;
	attr.rq_psn = (uint32_t)dest->psn;
	attr.max_dest_rd_atomic = 1;
	attr.min_rnr_timer = 12;
	attr.ah_attr.is_global = 0;
	attr.ah_attr.dlid = (uint16_t)dest->lid;
	attr.ah_attr.sl = (uint8_t)sl;
	attr.ah_attr.src_path_bits = 0;
	attr.ah_attr.port_num = (uint8_t)port;
	/* A GID that is not all zero in its interface id: route globally. */
	if (dest->gid.global.interface_id != 0) {
		attr.ah_attr.is_global = 1;
		attr.ah_attr.grh.hop_limit = 1;
		attr.ah_attr.grh.dgid = dest->gid;
		attr.ah_attr.grh.sgid_index = (uint8_t)sgid_idx;
	}
	if (ibv_modify_qp(ctx->qp, &attr,
			  IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER)) {
		fprintf(stderr, "Failed to modify QP to RTR\n");
		return 1;
	}

	attr.qp_state = IBV_QPS_RTS;
	attr.timeout = 14;
	attr.retry_cnt = 7;
	attr.rnr_retry = 7;
	attr.sq_psn = (uint32_t)my_psn;
	attr.max_rd_atomic = 1;
	if (ibv_modify_qp(ctx->qp, &attr,
			  IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			  IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
			  IBV_QP_MAX_QP_RD_ATOMIC)) {
		fprintf(stderr, "Failed to modify QP to RTS\n");
		return 1;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* TCP exchange                                                        */
/* ------------------------------------------------------------------ */

static struct pp_dest *pp_client_exch_dest(struct pp_ctx *ctx,
					   const char *servername,
					   unsigned int port,
					   const struct pp_dest *my_dest)
{
	struct addrinfo hints = {
		.ai_family = AF_UNSPEC,
		.ai_socktype = SOCK_STREAM,
	};
	struct addrinfo *res = NULL, *t;
	struct pp_dest *rem_dest = NULL;
	char service[16], msg[PP_MSG_LEN];
	int n, fd = -1;

	snprintf(service, sizeof(service), "%u", port);
	n = getaddrinfo(servername, service, &hints, &res);
	if (n != 0) {
		fprintf(stderr, "%s for %s:%u\n", gai_strerror(n), servername,
			port);
		return NULL;
	}
	for (t = res; t != NULL && fd < 0; t = t->ai_next)
		fd = pp_connect(ctx->context, t);
	freeaddrinfo(res);
	if (fd < 0) {
		fprintf(stderr, "Couldn't connect to %s:%u\n", servername, port);
		return NULL;
	}

	pp_format_dest(my_dest, msg);
	if (pp_write_all(ctx->context, fd, msg, sizeof(msg)) !=
	    (ssize_t)sizeof(msg)) {
		perror("client write");
		fprintf(stderr, "Couldn't send local address\n");
		goto out;
	}
	if (pp_read_all(ctx->context, fd, msg, sizeof(msg)) !=
	    (ssize_t)sizeof(msg) ||
	    pp_write_all(ctx->context, fd, PP_DONE, sizeof(PP_DONE)) !=
	    (ssize_t)sizeof(PP_DONE)) {
		perror("client read/write");
		fprintf(stderr, "Couldn't read/write remote address\n");
		goto out;
	}
	rem_dest = pp_parse_dest(msg);
out:
	close(fd);
	return rem_dest;
}

static struct pp_dest *pp_server_exch_dest(struct pp_ctx *ctx, int ib_port,
					   enum ibv_mtu mtu, unsigned int port,
					   int sl,
					   const struct pp_dest *my_dest,
					   int sgid_idx)
{
	struct addrinfo hints = {
		.ai_flags = AI_PASSIVE,
		.ai_family = AF_UNSPEC,
		.ai_socktype = SOCK_STREAM,
	};
	struct addrinfo *res = NULL, *t;
	struct pp_dest *rem_dest = NULL;
	char service[16], msg[PP_MSG_LEN];
	int n, lfd = -1, fd;
	ssize_t got;

	snprintf(service, sizeof(service), "%u", port);
	n = getaddrinfo(NULL, service, &hints, &res);
	if (n != 0) {
		fprintf(stderr, "%s for port %u\n", gai_strerror(n), port);
		return NULL;
	}
	for (t = res; t != NULL; t = t->ai_next) {
		int one = 1;

		lfd = socket(t->ai_family,
			     t->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
			     t->ai_protocol);
		if (lfd < 0)
			continue;
		setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(lfd, t->ai_addr, t->ai_addrlen) == 0)
			break;
		close(lfd);
		lfd = -1;
	}
	freeaddrinfo(res);
	if (lfd < 0 || listen(lfd, 1) != 0) {
		fprintf(stderr, "Couldn't listen to port %u\n", port);
		if (lfd >= 0)
			close(lfd);
		return NULL;
	}
	fd = pp_accept(ctx->context, lfd);
	close(lfd);
	if (fd < 0) {
		fprintf(stderr, "accept() failed\n");
		return NULL;
	}

	got = pp_read_all(ctx->context, fd, msg, sizeof(msg));
	if (got != (ssize_t)sizeof(msg)) {
		perror("server read");
		fprintf(stderr, "%d/%d: Couldn't read remote address\n",
			(int)got, (int)sizeof(msg));
		goto out;
	}
	rem_dest = pp_parse_dest(msg);
	if (rem_dest == NULL)
		goto out;

	if (pp_connect_ctx(ctx, ib_port, my_dest->psn, mtu, sl, rem_dest,
			   sgid_idx)) {
		fprintf(stderr, "Couldn't connect to remote QP\n");
		free(rem_dest);
		rem_dest = NULL;
		goto out;
	}

	pp_format_dest(my_dest, msg);
	if (pp_write_all(ctx->context, fd, msg, sizeof(msg)) !=
	    (ssize_t)sizeof(msg) ||
	    pp_read_all(ctx->context, fd, msg, sizeof(PP_DONE)) !=
	    (ssize_t)sizeof(PP_DONE)) {
		fprintf(stderr, "Couldn't send/recv local address\n");
		free(rem_dest);
		rem_dest = NULL;
		goto out;
	}
out:
	close(fd);
	return rem_dest;
}

/* ------------------------------------------------------------------ */
/* Resources                                                           */
/* ------------------------------------------------------------------ */

/* Refuse the features pmrdma does not offer, the way the original refuses
 * them on a device without the capability. */
static int pp_check_features(const struct pp_opts *o)
{
	if (o->use_odp) {
		fprintf(stderr, "The device isn't ODP capable or does not "
			"support RC send and receive with ODP\n");
		return 1;
	}
	if (o->use_ts) {
		fprintf(stderr, "The device isn't completion timestamp "
			"capable\n");
		return 1;
	}
	if (o->use_dm) {
		fprintf(stderr, "Device doesn't support dm allocation\n");
		return 1;
	}
	if (o->use_new_send) {
		fprintf(stderr, "The device doesn't support the new send "
			"API (ibv_qp_ex)\n");
		return 1;
	}
	return 0;
}

static int pp_close_ctx(struct pp_ctx *ctx);

static struct pp_ctx *pp_init_ctx(struct ibv_device *ib_dev,
				  const struct pp_opts *o)
{
	struct pp_ctx *ctx = calloc(1, sizeof(*ctx));
	struct ibv_qp_init_attr init_attr;
	struct ibv_qp_attr attr;
	void *buf = NULL;

	if (ctx == NULL)
		return NULL;
	ctx->size = o->size;
	ctx->send_flags = IBV_SEND_SIGNALED;
	ctx->rx_depth = (int)o->rx_depth;

	if (posix_memalign(&buf, (size_t)page_size,
			   o->size ? o->size : 1) != 0) {
		fprintf(stderr, "Couldn't allocate work buf.\n");
		free(ctx);
		return NULL;
	}
	ctx->buf = buf;
	/* The original leaves the buffer filled with 0x7b. */
	memset(ctx->buf, 0x7b, o->size);

	ctx->context = ibv_open_device(ib_dev);
	if (ctx->context == NULL) {
		fprintf(stderr, "Couldn't get context for %s\n",
			ibv_get_device_name(ib_dev));
		goto fail;
	}
	if (pp_check_features(o))
		goto fail;

	if (o->use_event) {
		ctx->channel = ibv_create_comp_channel(ctx->context);
		if (ctx->channel == NULL) {
			fprintf(stderr, "Couldn't create completion channel\n");
			goto fail;
		}
	}

	ctx->pd = ibv_alloc_pd(ctx->context);
	if (ctx->pd == NULL) {
		fprintf(stderr, "Couldn't allocate PD\n");
		goto fail;
	}

	ctx->mr = ibv_reg_mr(ctx->pd, ctx->buf, o->size,
			     IBV_ACCESS_LOCAL_WRITE);
	if (ctx->mr == NULL) {
		fprintf(stderr, "Couldn't register MR\n");
		goto fail;
	}

	ctx->cq = ibv_create_cq(ctx->context, (int)o->rx_depth + 1, NULL,
				ctx->channel, 0);
	if (ctx->cq == NULL) {
		fprintf(stderr, "Couldn't create CQ\n");
		goto fail;
	}

	memset(&init_attr, 0, sizeof(init_attr));
	init_attr.send_cq = ctx->cq;
	init_attr.recv_cq = ctx->cq;
	init_attr.cap.max_send_wr = 1;
	init_attr.cap.max_recv_wr = o->rx_depth;
	init_attr.cap.max_send_sge = 1;
	init_attr.cap.max_recv_sge = 1;
	init_attr.qp_type = IBV_QPT_RC;
	ctx->qp = ibv_create_qp(ctx->pd, &init_attr);
	if (ctx->qp == NULL) {
		fprintf(stderr, "Couldn't create QP\n");
		goto fail;
	}
	/* Send inline when the QP can carry the whole message inline. */
	memset(&attr, 0, sizeof(attr));
	memset(&init_attr, 0, sizeof(init_attr));
	if (ibv_query_qp(ctx->qp, &attr, IBV_QP_CAP, &init_attr) == 0 &&
	    init_attr.cap.max_inline_data >= o->size)
		ctx->send_flags |= IBV_SEND_INLINE;

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IBV_QPS_INIT;
	attr.pkey_index = 0;
	attr.port_num = (uint8_t)o->ib_port;
	attr.qp_access_flags = 0;
	if (ibv_modify_qp(ctx->qp, &attr, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS)) {
		fprintf(stderr, "Failed to modify QP to INIT\n");
		goto fail;
	}
	return ctx;

fail:
	pp_close_ctx(ctx);
	return NULL;
}

static int pp_close_ctx(struct pp_ctx *ctx)
{
	int ret = 0;

	if (ctx->qp != NULL && ibv_destroy_qp(ctx->qp)) {
		fprintf(stderr, "Couldn't destroy QP\n");
		ret = 1;
	}
	if (ctx->cq != NULL && ibv_destroy_cq(ctx->cq)) {
		fprintf(stderr, "Couldn't destroy CQ\n");
		ret = 1;
	}
	if (ctx->mr != NULL && ibv_dereg_mr(ctx->mr)) {
		fprintf(stderr, "Couldn't deregister MR\n");
		ret = 1;
	}
	if (ctx->pd != NULL && ibv_dealloc_pd(ctx->pd)) {
		fprintf(stderr, "Couldn't deallocate PD\n");
		ret = 1;
	}
	if (ctx->channel != NULL && ibv_destroy_comp_channel(ctx->channel)) {
		fprintf(stderr, "Couldn't destroy completion channel\n");
		ret = 1;
	}
	if (ctx->context != NULL && ibv_close_device(ctx->context)) {
		fprintf(stderr, "Couldn't release context\n");
		ret = 1;
	}
	free(ctx->buf);
	free(ctx);
	return ret;
}

/* Post up to @p n receives of the whole buffer; return how many went. */
static int pp_post_recv(struct pp_ctx *ctx, int n)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)ctx->buf,
		.length = ctx->size,
		.lkey = ctx->mr->lkey,
	};
	struct ibv_recv_wr wr = {
		.wr_id = PP_RECV_WRID,
		.sg_list = &sge,
		.num_sge = 1,
	};
	struct ibv_recv_wr *bad_wr;
	int i;

	for (i = 0; i < n; i++)
		if (ibv_post_recv(ctx->qp, &wr, &bad_wr))
			break;
	return i;
}

static int pp_post_send(struct pp_ctx *ctx)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)ctx->buf,
		.length = ctx->size,
		.lkey = ctx->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = PP_SEND_WRID,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_SEND,
		.send_flags = ctx->send_flags,
	};
	struct ibv_send_wr *bad_wr;

	return ibv_post_send(ctx->qp, &wr, &bad_wr);
}

/* Wait for a completion event; with pmrdma, run the engine meanwhile. */
static int pp_get_cq_event(struct pp_ctx *ctx, struct ibv_cq **cq,
			   void **cq_ctx)
{
#ifdef PMR_VERBS_H
	struct pollfd p = { .fd = ctx->channel->fd, .events = POLLIN };

	for (;;) {
		int n = poll(&p, 1, 0);

		if (n > 0 || (n < 0 && errno != EINTR))
			break;
		pp_engine_run(ctx->context);
	}
#endif
	return ibv_get_cq_event(ctx->channel, cq, cq_ctx);
}

/* ------------------------------------------------------------------ */
/* Main                                                                */
/* ------------------------------------------------------------------ */

struct pp_counts {
	unsigned int scnt;
	unsigned int rcnt;
	int routs;
};

static int pp_handle_wc(struct pp_ctx *ctx, const struct ibv_wc *wc,
			struct pp_counts *c, unsigned int iters)
{
	if (wc->status != IBV_WC_SUCCESS) {
		fprintf(stderr, "Failed status %s (%d) for wr_id %d\n",
			ibv_wc_status_str(wc->status), (int)wc->status,
			(int)wc->wr_id);
		return 1;
	}

	switch ((int)wc->wr_id) {
	case PP_SEND_WRID:
		c->scnt++;
		break;
	case PP_RECV_WRID:
		/* Replenish when the receive queue is nearly empty. */
		if (--c->routs <= 1) {
			c->routs += pp_post_recv(ctx, ctx->rx_depth - c->routs);
			if (c->routs < ctx->rx_depth) {
				fprintf(stderr, "Couldn't post receive (%d)\n",
					c->routs);
				return 1;
			}
		}
		c->rcnt++;
		break;
	default:
		fprintf(stderr, "Completion for unknown wr_id %d\n",
			(int)wc->wr_id);
		return 1;
	}

	/* The next SEND goes once the last one completed and a message came. */
	ctx->pending &= ~(int)wc->wr_id;
	if (c->scnt < iters && ctx->pending == 0) {
		if (pp_post_send(ctx)) {
			fprintf(stderr, "Couldn't post send\n");
			return 1;
		}
		ctx->pending = PP_RECV_WRID | PP_SEND_WRID;
	}
	return 0;
}

static void usage(const char *argv0)
{
	printf("Usage:\n");
	printf("  %s            start a server and wait for connection\n",
	       argv0);
	printf("  %s <host>     connect to server at <host>\n", argv0);
	printf("\n");
	printf("Options:\n");
	printf("  -p, --port=<port>      listen on/connect to port <port> "
	       "(default 18515)\n");
	printf("  -d, --ib-dev=<dev>     use IB device <dev> (default first "
	       "device found)\n");
	printf("  -i, --ib-port=<port>   use port <port> of IB device "
	       "(default 1)\n");
	printf("  -s, --size=<size>      size of message to exchange "
	       "(default 4096)\n");
	printf("  -m, --mtu=<size>       path MTU (default 1024)\n");
	printf("  -r, --rx-depth=<dep>   number of receives to post at a time "
	       "(default 500)\n");
	printf("  -n, --iters=<iters>    number of exchanges (default 1000)\n");
	printf("  -l, --sl=<sl>          service level value\n");
	printf("  -e, --events           sleep on CQ events (default poll)\n");
	printf("  -g, --gid-idx=<gid index> local port gid index\n");
	printf("  -o, --odp              use on demand paging "
	       "(not supported)\n");
	printf("  -O, --iodp             use implicit on demand paging "
	       "(not supported)\n");
	printf("  -P, --prefetch         prefetch an ODP MR (not supported)\n");
	printf("  -t, --ts               get CQE with timestamp "
	       "(not supported)\n");
	printf("  -c, --chk              validate received buffer\n");
	printf("  -j, --dm               use device memory (not supported)\n");
	printf("  -N, --new_send         use new post send WR API "
	       "(not supported)\n");
}

static enum ibv_mtu pp_mtu_to_enum(long mtu)
{
	switch (mtu) {
	case 256: return IBV_MTU_256;
	case 512: return IBV_MTU_512;
	case 1024: return IBV_MTU_1024;
	case 2048: return IBV_MTU_2048;
	case 4096: return IBV_MTU_4096;
	default: return (enum ibv_mtu)0;
	}
}

/* @return 0 to go on, 1 to exit with status 1. */
static int pp_parse_args(int argc, char **argv, struct pp_opts *o)
{
	static const struct option long_options[] = {
		{ .name = "port", .has_arg = 1, .val = 'p' },
		{ .name = "ib-dev", .has_arg = 1, .val = 'd' },
		{ .name = "ib-port", .has_arg = 1, .val = 'i' },
		{ .name = "size", .has_arg = 1, .val = 's' },
		{ .name = "mtu", .has_arg = 1, .val = 'm' },
		{ .name = "rx-depth", .has_arg = 1, .val = 'r' },
		{ .name = "iters", .has_arg = 1, .val = 'n' },
		{ .name = "sl", .has_arg = 1, .val = 'l' },
		{ .name = "events", .has_arg = 0, .val = 'e' },
		{ .name = "gid-idx", .has_arg = 1, .val = 'g' },
		{ .name = "odp", .has_arg = 0, .val = 'o' },
		{ .name = "iodp", .has_arg = 0, .val = 'O' },
		{ .name = "prefetch", .has_arg = 0, .val = 'P' },
		{ .name = "ts", .has_arg = 0, .val = 't' },
		{ .name = "chk", .has_arg = 0, .val = 'c' },
		{ .name = "dm", .has_arg = 0, .val = 'j' },
		{ .name = "new_send", .has_arg = 0, .val = 'N' },
		{ 0 }
	};

	for (;;) {
		int c = getopt_long(argc, argv, "p:d:i:s:m:r:n:l:eg:oOPtcjN",
				    long_options, NULL);

		if (c == -1)
			break;
		switch (c) {
		case 'p':
			o->port = (unsigned int)strtoul(optarg, NULL, 0);
			if (o->port > 65535) {
				usage(argv[0]);
				return 1;
			}
			break;
		case 'd':
			o->ib_devname = optarg;
			break;
		case 'i':
			o->ib_port = (int)strtol(optarg, NULL, 0);
			if (o->ib_port < 1) {
				usage(argv[0]);
				return 1;
			}
			break;
		case 's':
			o->size = (unsigned int)strtoul(optarg, NULL, 0);
			break;
		case 'm':
			o->mtu = pp_mtu_to_enum(strtol(optarg, NULL, 0));
			if (o->mtu == 0) {
				usage(argv[0]);
				return 1;
			}
			break;
		case 'r':
			o->rx_depth = (unsigned int)strtoul(optarg, NULL, 0);
			break;
		case 'n':
			o->iters = (unsigned int)strtoul(optarg, NULL, 0);
			break;
		case 'l':
			o->sl = (int)strtol(optarg, NULL, 0);
			break;
		case 'e':
			o->use_event++;
			break;
		case 'g':
			o->gidx = (int)strtol(optarg, NULL, 0);
			break;
		case 'o':
			o->use_odp = 1;
			break;
		case 'O':
			o->use_odp = 1;
			o->implicit_odp = 1;
			break;
		case 'P':
			o->prefetch_mr = 1;
			break;
		case 't':
			o->use_ts = 1;
			break;
		case 'c':
			o->validate_buf = 1;
			break;
		case 'j':
			o->use_dm = 1;
			break;
		case 'N':
			o->use_new_send = 1;
			break;
		default:
			usage(argv[0]);
			return 1;
		}
	}

	if (optind == argc - 1) {
		o->servername = argv[optind];
	} else if (optind < argc) {
		usage(argv[0]);
		return 1;
	}
	if (o->use_odp && o->use_dm) {
		fprintf(stderr, "DM memory region can't be on demand\n");
		return 1;
	}
	if (!o->use_odp && o->prefetch_mr) {
		fprintf(stderr, "prefetch is valid only with on-demand memory "
			"region\n");
		return 1;
	}
	return 0;
}

int main(int argc, char *argv[])
{
	struct pp_opts o = {
		.port = 18515,
		.ib_port = 1,
		.size = 4096,
		.mtu = IBV_MTU_1024,
		.rx_depth = 500,
		.iters = 1000,
		.sl = 0,
		.gidx = -1,
	};
	struct ibv_device **dev_list;
	struct ibv_device *ib_dev;
	struct pp_ctx *ctx;
	struct pp_dest my_dest, *rem_dest;
	struct pp_counts cnt = { 0 };
	struct timeval start, end;
	unsigned int num_cq_events = 0;
	int bad_pages = 0;

	srand48((long)getpid() * (long)time(NULL));
	page_size = sysconf(_SC_PAGESIZE);

	if (pp_parse_args(argc, argv, &o))
		return 1;

	dev_list = ibv_get_device_list(NULL);
	if (dev_list == NULL) {
		perror("Failed to get IB devices list");
		return 1;
	}
	if (o.ib_devname == NULL) {
		ib_dev = *dev_list;
		if (ib_dev == NULL) {
			fprintf(stderr, "No IB devices found\n");
			return 1;
		}
	} else {
		int i;

		for (i = 0; dev_list[i] != NULL; i++)
			if (strcmp(ibv_get_device_name(dev_list[i]),
				   o.ib_devname) == 0)
				break;
		ib_dev = dev_list[i];
		if (ib_dev == NULL) {
			fprintf(stderr, "IB device %s not found\n",
				o.ib_devname);
			return 1;
		}
	}

	ctx = pp_init_ctx(ib_dev, &o);
	if (ctx == NULL)
		return 1;

	cnt.routs = pp_post_recv(ctx, ctx->rx_depth);
	if (cnt.routs < ctx->rx_depth) {
		fprintf(stderr, "Couldn't post receive (%d)\n", cnt.routs);
		return 1;
	}

	if (o.use_event && ibv_req_notify_cq(ctx->cq, 0)) {
		fprintf(stderr, "Couldn't request CQ notification\n");
		return 1;
	}

	if (ibv_query_port(ctx->context, (uint8_t)o.ib_port, &ctx->portinfo)) {
		fprintf(stderr, "Couldn't get port info\n");
		return 1;
	}

	memset(&my_dest, 0, sizeof(my_dest));
	my_dest.lid = ctx->portinfo.lid;
	if (ctx->portinfo.link_layer != IBV_LINK_LAYER_ETHERNET &&
	    my_dest.lid == 0) {
		fprintf(stderr, "Couldn't get local LID\n");
		return 1;
	}
	if (o.gidx >= 0 &&
	    ibv_query_gid(ctx->context, (uint8_t)o.ib_port, o.gidx,
			  &my_dest.gid)) {
		fprintf(stderr, "can't read sgid of index %d\n", o.gidx);
		return 1;
	}
	my_dest.qpn = (int)ctx->qp->qp_num;
	my_dest.psn = (int)(lrand48() & 0xffffff);
	pp_print_dest("local address: ", &my_dest);

	if (o.servername != NULL)
		rem_dest = pp_client_exch_dest(ctx, o.servername, o.port,
					       &my_dest);
	else
		rem_dest = pp_server_exch_dest(ctx, o.ib_port, o.mtu, o.port,
					       o.sl, &my_dest, o.gidx);
	if (rem_dest == NULL)
		return 1;
	pp_print_dest("remote address:", rem_dest);
	fflush(stdout);

	if (o.servername != NULL &&
	    pp_connect_ctx(ctx, o.ib_port, my_dest.psn, o.mtu, o.sl, rem_dest,
			   o.gidx))
		return 1;

	ctx->pending = PP_RECV_WRID;

	if (o.servername != NULL) {
		/* -c: the client zeroes the first byte of every page. */
		if (o.validate_buf)
			for (unsigned int i = 0; i < o.size;
			     i += (unsigned int)page_size)
				ctx->buf[i] = 0;
		if (pp_post_send(ctx)) {
			fprintf(stderr, "Couldn't post send\n");
			return 1;
		}
		ctx->pending |= PP_SEND_WRID;
	}

	if (gettimeofday(&start, NULL)) {
		perror("gettimeofday");
		return 1;
	}

	while (cnt.rcnt < o.iters || cnt.scnt < o.iters) {
		struct ibv_wc wc[2];
		int ne;

		if (o.use_event) {
			struct ibv_cq *ev_cq;
			void *ev_ctx;

			if (pp_get_cq_event(ctx, &ev_cq, &ev_ctx)) {
				fprintf(stderr, "Failed to get cq_event\n");
				return 1;
			}
			num_cq_events++;
			if (ev_cq != ctx->cq) {
				fprintf(stderr, "CQ event for unknown CQ %p\n",
					(void *)ev_cq);
				return 1;
			}
			if (ibv_req_notify_cq(ctx->cq, 0)) {
				fprintf(stderr,
					"Couldn't request CQ notification\n");
				return 1;
			}
		}

		do {
			ne = ibv_poll_cq(ctx->cq, 2, wc);
			if (ne < 0) {
				fprintf(stderr, "poll CQ failed %d\n", ne);
				return 1;
			}
		} while (!o.use_event && ne < 1);

		for (int i = 0; i < ne; i++) {
			if (pp_handle_wc(ctx, &wc[i], &cnt, o.iters)) {
				fprintf(stderr, "parse WC failed %d\n", ne);
				return 1;
			}
		}
	}

	if (gettimeofday(&end, NULL)) {
		perror("gettimeofday");
		return 1;
	}

	{
		double usec = (double)(end.tv_sec - start.tv_sec) * 1000000. +
			      (double)(end.tv_usec - start.tv_usec);
		long long bytes = (long long)o.size * o.iters * 2;

		printf("%lld bytes in %.2f seconds = %.2f Mbit/sec\n", bytes,
		       usec / 1000000., (double)bytes * 8. / usec);
		printf("%u iters in %.2f seconds = %.2f usec/iter\n", o.iters,
		       usec / 1000000., usec / o.iters);

		/* -c: the server checks the bytes the client zeroed. */
		if (o.servername == NULL && o.validate_buf) {
			for (unsigned int i = 0; i < o.size;
			     i += (unsigned int)page_size) {
				if (ctx->buf[i] != 0) {
					printf("invalid data in page %u\n",
					       i / (unsigned int)page_size);
					bad_pages++;
				}
			}
		}
	}

	ibv_ack_cq_events(ctx->cq, num_cq_events);

	if (pp_close_ctx(ctx))
		return 1;

	ibv_free_device_list(dev_list);
	free(rem_dest);

	return bad_pages ? 1 : 0;
}
