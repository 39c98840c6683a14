/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Built by the install-compat test against the installed headers and
 * library only: verbs code written with the ibv_ / IBV_ names must build
 * unchanged through <pmr_ibv_compat.h> and run on the loopback device.
 *
 * It opens "pmr_loop0", queries it, creates a PD, an MR, a completion
 * channel, a CQ and an RC QP, checks that a send is refused before RTS,
 * posts a receive, moves the QP to ERR and polls the receive back flushed
 * (IBV_WC_WR_FLUSH_ERR), as libibverbs specifies.  Exit status 0 on
 * success.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <pmr_ibv_compat.h>

#define CHECK(cond, ...)                                                  \
	do {                                                              \
		if (!(cond)) {                                            \
			fprintf(stderr, "ibv_names: line %d: ", __LINE__); \
			fprintf(stderr, __VA_ARGS__);                     \
			fputc('\n', stderr);                              \
			return 1;                                         \
		}                                                         \
	} while (0)

static int poll_one(struct ibv_cq *cq, struct ibv_wc *wc)
{
	time_t deadline = time(NULL) + 5;
	int n;

	do {
		n = ibv_poll_cq(cq, 1, wc);
	} while (n == 0 && time(NULL) <= deadline);
	return n;
}

int main(void)
{
	struct ibv_device **list, *dev = NULL;
	struct ibv_context *ctx;
	struct ibv_device_attr dattr;
	struct ibv_port_attr pattr;
	union ibv_gid gid;
	uint16_t pkey;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	struct ibv_comp_channel *ch;
	struct ibv_cq *cq, *ev_cq;
	void *ev_ctx;
	struct ibv_qp *qp;
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr attr;
	struct ibv_sge sge;
	struct ibv_recv_wr rwr, *bad_rwr = NULL;
	struct ibv_send_wr swr, *bad_swr = NULL;
	struct ibv_wc wc;
	static char buf[4096];
	int num = 0, ret, flags;

	list = ibv_get_device_list(&num);
	CHECK(list != NULL, "ibv_get_device_list: %s", strerror(errno));
	for (int i = 0; i < num; i++)
		if (strcmp(ibv_get_device_name(list[i]), "pmr_loop0") == 0)
			dev = list[i];
	CHECK(dev != NULL, "no pmr_loop0 among %d devices", num);
	printf("device %s, node GUID 0x%016" PRIx64 ", node type %s\n",
	       ibv_get_device_name(dev), (uint64_t)ibv_get_device_guid(dev),
	       ibv_node_type_str(dev->node_type));

	ctx = ibv_open_device(dev);
	CHECK(ctx != NULL, "ibv_open_device: %s", strerror(errno));
	CHECK(ibv_query_device(ctx, &dattr) == 0, "ibv_query_device");
	CHECK(dattr.max_qp > 0 && dattr.max_cqe > 0 && dattr.phys_port_cnt >= 1,
	      "device attributes: max_qp %d max_cqe %d ports %u", dattr.max_qp,
	      dattr.max_cqe, dattr.phys_port_cnt);
	CHECK(ibv_query_port(ctx, 1, &pattr) == 0, "ibv_query_port");
	printf("port 1: %s, active MTU enum %d\n",
	       ibv_port_state_str(pattr.state), (int)pattr.active_mtu);
	CHECK(pattr.active_mtu >= IBV_MTU_256 && pattr.active_mtu <= IBV_MTU_4096,
	      "active MTU %d", (int)pattr.active_mtu);
	CHECK(ibv_query_gid(ctx, 1, 0, &gid) == 0, "ibv_query_gid");
	CHECK(ibv_query_pkey(ctx, 1, 0, &pkey) == 0 && pkey == 0xffff,
	      "ibv_query_pkey: 0x%x", pkey);

	pd = ibv_alloc_pd(ctx);
	CHECK(pd != NULL, "ibv_alloc_pd: %s", strerror(errno));
	mr = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	CHECK(mr != NULL, "ibv_reg_mr: %s", strerror(errno));
	ch = ibv_create_comp_channel(ctx);
	CHECK(ch != NULL, "ibv_create_comp_channel: %s", strerror(errno));
	cq = ibv_create_cq(ctx, 16, NULL, ch, 0);
	CHECK(cq != NULL, "ibv_create_cq: %s", strerror(errno));
	CHECK(ibv_req_notify_cq(cq, 0) == 0, "ibv_req_notify_cq");

	memset(&init, 0, sizeof(init));
	init.send_cq = cq;
	init.recv_cq = cq;
	init.cap.max_send_wr = 4;
	init.cap.max_recv_wr = 4;
	init.cap.max_send_sge = 1;
	init.cap.max_recv_sge = 1;
	init.qp_type = IBV_QPT_RC;
	qp = ibv_create_qp(pd, &init);
	CHECK(qp != NULL, "ibv_create_qp: %s", strerror(errno));

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IBV_QPS_INIT;
	attr.pkey_index = 0;
	attr.port_num = 1;
	attr.qp_access_flags = 0;
	ret = ibv_modify_qp(qp, &attr, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			    IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	CHECK(ret == 0, "modify to INIT: %s", strerror(ret));

	sge.addr = (uintptr_t)buf;
	sge.length = sizeof(buf);
	sge.lkey = mr->lkey;

	/* A send before RTS is an immediate error that posts nothing. */
	memset(&swr, 0, sizeof(swr));
	swr.wr_id = 1;
	swr.sg_list = &sge;
	swr.num_sge = 1;
	swr.opcode = IBV_WR_SEND;
	swr.send_flags = IBV_SEND_SIGNALED;
	ret = ibv_post_send(qp, &swr, &bad_swr);
	CHECK(ret == EINVAL && bad_swr == &swr,
	      "send in INIT: ret %d, bad_wr %s", ret,
	      bad_swr == &swr ? "set" : "not set");

	memset(&rwr, 0, sizeof(rwr));
	rwr.wr_id = 42;
	rwr.sg_list = &sge;
	rwr.num_sge = 1;
	ret = ibv_post_recv(qp, &rwr, &bad_rwr);
	CHECK(ret == 0, "ibv_post_recv: %s", strerror(ret));

	/* Moving to ERR flushes the posted receive. */
	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IBV_QPS_ERR;
	ret = ibv_modify_qp(qp, &attr, IBV_QP_STATE);
	CHECK(ret == 0, "modify to ERR: %s", strerror(ret));
	ret = poll_one(cq, &wc);
	CHECK(ret == 1, "ibv_poll_cq returned %d, expected the flushed receive",
	      ret);
	printf("completion: wr_id %" PRIu64 ", status %s\n", wc.wr_id,
	       ibv_wc_status_str(wc.status));
	CHECK(wc.status == IBV_WC_WR_FLUSH_ERR,
	      "status %s (%d), expected %s", ibv_wc_status_str(wc.status),
	      (int)wc.status, ibv_wc_status_str(IBV_WC_WR_FLUSH_ERR));
	CHECK(wc.wr_id == 42 && wc.qp_num == qp->qp_num,
	      "wr_id %" PRIu64 " qp_num 0x%x", wc.wr_id, wc.qp_num);
	CHECK(ibv_poll_cq(cq, 1, &wc) == 0, "a second completion appeared");
	CHECK(ibv_wc_status_str(IBV_WC_SUCCESS) != NULL &&
	      strcmp(ibv_wc_status_str(IBV_WC_SUCCESS),
		     ibv_wc_status_str(IBV_WC_WR_FLUSH_ERR)) != 0,
	      "ibv_wc_status_str does not tell success from a flush");

	memset(&attr, 0, sizeof(attr));
	CHECK(ibv_query_qp(qp, &attr, IBV_QP_STATE, &init) == 0 &&
	      attr.qp_state == IBV_QPS_ERR, "QP state %d, expected ERR",
	      (int)attr.qp_state);

	/* The armed CQ may have raised an event: acknowledge it if so. */
	flags = fcntl(ch->fd, F_GETFL);
	CHECK(flags >= 0 && fcntl(ch->fd, F_SETFL, flags | O_NONBLOCK) == 0,
	      "completion channel fd: %s", strerror(errno));
	if (ibv_get_cq_event(ch, &ev_cq, &ev_ctx) == 0) {
		CHECK(ev_cq == cq, "event for another CQ");
		ibv_ack_cq_events(ev_cq, 1);
	} else {
		CHECK(errno == EAGAIN, "ibv_get_cq_event: %s", strerror(errno));
	}

	CHECK(ibv_destroy_qp(qp) == 0, "ibv_destroy_qp");
	CHECK(ibv_destroy_cq(cq) == 0, "ibv_destroy_cq");
	CHECK(ibv_destroy_comp_channel(ch) == 0, "ibv_destroy_comp_channel");
	CHECK(ibv_dereg_mr(mr) == 0, "ibv_dereg_mr");
	CHECK(ibv_dealloc_pd(pd) == 0, "ibv_dealloc_pd");
	CHECK(ibv_close_device(ctx) == 0, "ibv_close_device");
	ibv_free_device_list(list);
	printf("ibv_names: PASS\n");
	return 0;
}
