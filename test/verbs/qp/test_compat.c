/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The libibverbs compatibility header: a program written only with the
 * ibv_ / IBV_ names (RC pair + SEND), plus compile-time checks that the
 * numeric values and struct ibv_wc's layout are libibverbs' (x86-64).
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmr_ibv_compat.h"

#define CHECK(c) do { if (!(c)) { fprintf(stderr, "%s:%d: CHECK failed: " \
	"%s\n", __FILE__, __LINE__, #c); exit(1); } } while (0)

/* ---- libibverbs numeric values ------------------------------------- */
_Static_assert(IBV_WC_SUCCESS == 0, "");
_Static_assert(IBV_WC_LOC_LEN_ERR == 1, "");
_Static_assert(IBV_WC_LOC_QP_OP_ERR == 2, "");
_Static_assert(IBV_WC_LOC_EEC_OP_ERR == 3, "");
_Static_assert(IBV_WC_LOC_PROT_ERR == 4, "");
_Static_assert(IBV_WC_WR_FLUSH_ERR == 5, "");
_Static_assert(IBV_WC_MW_BIND_ERR == 6, "");
_Static_assert(IBV_WC_BAD_RESP_ERR == 7, "");
_Static_assert(IBV_WC_LOC_ACCESS_ERR == 8, "");
_Static_assert(IBV_WC_REM_INV_REQ_ERR == 9, "");
_Static_assert(IBV_WC_REM_ACCESS_ERR == 10, "");
_Static_assert(IBV_WC_REM_OP_ERR == 11, "");
_Static_assert(IBV_WC_RETRY_EXC_ERR == 12, "");
_Static_assert(IBV_WC_RNR_RETRY_EXC_ERR == 13, "");
_Static_assert(IBV_WC_LOC_RDD_VIOL_ERR == 14, "");
_Static_assert(IBV_WC_REM_INV_RD_REQ_ERR == 15, "");
_Static_assert(IBV_WC_REM_ABORT_ERR == 16, "");
_Static_assert(IBV_WC_INV_EECN_ERR == 17, "");
_Static_assert(IBV_WC_INV_EEC_STATE_ERR == 18, "");
_Static_assert(IBV_WC_FATAL_ERR == 19, "");
_Static_assert(IBV_WC_RESP_TIMEOUT_ERR == 20, "");
_Static_assert(IBV_WC_GENERAL_ERR == 21, "");
_Static_assert(IBV_WC_TM_ERR == 22, "");
_Static_assert(IBV_WC_TM_RNDV_INCOMPLETE == 23, "");

_Static_assert(IBV_WC_SEND == 0 && IBV_WC_RDMA_WRITE == 1 &&
	       IBV_WC_RDMA_READ == 2 && IBV_WC_COMP_SWAP == 3 &&
	       IBV_WC_FETCH_ADD == 4 && IBV_WC_BIND_MW == 5 &&
	       IBV_WC_LOCAL_INV == 6 && IBV_WC_TSO == 7, "");
_Static_assert(IBV_WC_RECV == 128 && IBV_WC_RECV_RDMA_WITH_IMM == 129, "");
_Static_assert(IBV_WC_GRH == 1 && IBV_WC_WITH_IMM == 2 &&
	       IBV_WC_IP_CSUM_OK == 4 && IBV_WC_WITH_INV == 8, "");

_Static_assert(IBV_WR_RDMA_WRITE == 0 && IBV_WR_RDMA_WRITE_WITH_IMM == 1 &&
	       IBV_WR_SEND == 2 && IBV_WR_SEND_WITH_IMM == 3 &&
	       IBV_WR_RDMA_READ == 4 && IBV_WR_ATOMIC_CMP_AND_SWP == 5 &&
	       IBV_WR_ATOMIC_FETCH_AND_ADD == 6 && IBV_WR_LOCAL_INV == 7 &&
	       IBV_WR_BIND_MW == 8 && IBV_WR_SEND_WITH_INV == 9 &&
	       IBV_WR_TSO == 10 && IBV_WR_DRIVER1 == 11, "");
_Static_assert(IBV_SEND_FENCE == 1 && IBV_SEND_SIGNALED == 2 &&
	       IBV_SEND_SOLICITED == 4 && IBV_SEND_INLINE == 8 &&
	       IBV_SEND_IP_CSUM == 16, "");

_Static_assert(IBV_QPT_RC == 2 && IBV_QPT_UC == 3 && IBV_QPT_UD == 4 &&
	       IBV_QPT_RAW_PACKET == 8 && IBV_QPT_XRC_SEND == 9 &&
	       IBV_QPT_XRC_RECV == 10, "");
_Static_assert(IBV_QPS_RESET == 0 && IBV_QPS_INIT == 1 && IBV_QPS_RTR == 2 &&
	       IBV_QPS_RTS == 3 && IBV_QPS_SQD == 4 && IBV_QPS_SQE == 5 &&
	       IBV_QPS_ERR == 6 && IBV_QPS_UNKNOWN == 7, "");
_Static_assert(IBV_QP_STATE == 1 && IBV_QP_CUR_STATE == 2 &&
	       IBV_QP_EN_SQD_ASYNC_NOTIFY == 4 && IBV_QP_ACCESS_FLAGS == 8 &&
	       IBV_QP_PKEY_INDEX == 16 && IBV_QP_PORT == 32 &&
	       IBV_QP_QKEY == 64 && IBV_QP_AV == 128 &&
	       IBV_QP_PATH_MTU == 256 && IBV_QP_TIMEOUT == 512 &&
	       IBV_QP_RETRY_CNT == 1024 && IBV_QP_RNR_RETRY == 2048 &&
	       IBV_QP_RQ_PSN == 4096 && IBV_QP_MAX_QP_RD_ATOMIC == 8192 &&
	       IBV_QP_ALT_PATH == 1 << 14 && IBV_QP_MIN_RNR_TIMER == 1 << 15 &&
	       IBV_QP_SQ_PSN == 1 << 16 && IBV_QP_MAX_DEST_RD_ATOMIC == 1 << 17 &&
	       IBV_QP_PATH_MIG_STATE == 1 << 18 && IBV_QP_CAP == 1 << 19 &&
	       IBV_QP_DEST_QPN == 1 << 20 && IBV_QP_RATE_LIMIT == 1 << 25, "");

_Static_assert(IBV_ACCESS_LOCAL_WRITE == 1 && IBV_ACCESS_REMOTE_WRITE == 2 &&
	       IBV_ACCESS_REMOTE_READ == 4 && IBV_ACCESS_REMOTE_ATOMIC == 8 &&
	       IBV_ACCESS_MW_BIND == 16 && IBV_ACCESS_ZERO_BASED == 32 &&
	       IBV_ACCESS_ON_DEMAND == 64 && IBV_ACCESS_HUGETLB == 128 &&
	       IBV_ACCESS_FLUSH_GLOBAL == 256 &&
	       IBV_ACCESS_FLUSH_PERSISTENT == 512 &&
	       IBV_ACCESS_RELAXED_ORDERING == 1 << 20, "");

_Static_assert(IBV_MTU_256 == 1 && IBV_MTU_512 == 2 && IBV_MTU_1024 == 3 &&
	       IBV_MTU_2048 == 4 && IBV_MTU_4096 == 5, "");
_Static_assert(IBV_PORT_NOP == 0 && IBV_PORT_DOWN == 1 && IBV_PORT_INIT == 2 &&
	       IBV_PORT_ARMED == 3 && IBV_PORT_ACTIVE == 4 &&
	       IBV_PORT_ACTIVE_DEFER == 5, "");
_Static_assert(IBV_LINK_LAYER_UNSPECIFIED == 0 &&
	       IBV_LINK_LAYER_INFINIBAND == 1 &&
	       IBV_LINK_LAYER_ETHERNET == 2, "");
_Static_assert(IBV_EVENT_CQ_ERR == 0 && IBV_EVENT_QP_FATAL == 1 &&
	       IBV_EVENT_QP_REQ_ERR == 2 && IBV_EVENT_QP_ACCESS_ERR == 3 &&
	       IBV_EVENT_COMM_EST == 4 && IBV_EVENT_SQ_DRAINED == 5 &&
	       IBV_EVENT_PATH_MIG == 6 && IBV_EVENT_PATH_MIG_ERR == 7 &&
	       IBV_EVENT_DEVICE_FATAL == 8 && IBV_EVENT_PORT_ACTIVE == 9 &&
	       IBV_EVENT_PORT_ERR == 10 && IBV_EVENT_LID_CHANGE == 11 &&
	       IBV_EVENT_PKEY_CHANGE == 12 && IBV_EVENT_SM_CHANGE == 13 &&
	       IBV_EVENT_SRQ_ERR == 14 && IBV_EVENT_SRQ_LIMIT_REACHED == 15 &&
	       IBV_EVENT_QP_LAST_WQE_REACHED == 16 &&
	       IBV_EVENT_CLIENT_REREGISTER == 17 &&
	       IBV_EVENT_GID_CHANGE == 18 && IBV_EVENT_WQ_FATAL == 19, "");
_Static_assert(IBV_NODE_UNKNOWN == -1 && IBV_NODE_CA == 1 &&
	       IBV_NODE_SWITCH == 2 && IBV_NODE_ROUTER == 3 &&
	       IBV_NODE_RNIC == 4 && IBV_NODE_USNIC == 5 &&
	       IBV_NODE_USNIC_UDP == 6 && IBV_NODE_UNSPECIFIED == 7, "");
_Static_assert(IBV_TRANSPORT_UNKNOWN == -1 && IBV_TRANSPORT_IB == 0 &&
	       IBV_TRANSPORT_IWARP == 1, "");
_Static_assert(IBV_ATOMIC_NONE == 0 && IBV_ATOMIC_HCA == 1 &&
	       IBV_ATOMIC_GLOB == 2, "");
_Static_assert(IBV_MIG_MIGRATED == 0 && IBV_MIG_REARM == 1 &&
	       IBV_MIG_ARMED == 2, "");
_Static_assert(IBV_SRQ_MAX_WR == 1 && IBV_SRQ_LIMIT == 2, "");
_Static_assert(IBV_SYSFS_NAME_MAX == 64 && IBV_SYSFS_PATH_MAX == 256, "");

/* ---- struct layouts (libibverbs, x86-64) --------------------------- */
#if defined(__x86_64__)
_Static_assert(offsetof(struct ibv_wc, wr_id) == 0, "");
_Static_assert(offsetof(struct ibv_wc, status) == 8, "");
_Static_assert(offsetof(struct ibv_wc, opcode) == 12, "");
_Static_assert(offsetof(struct ibv_wc, vendor_err) == 16, "");
_Static_assert(offsetof(struct ibv_wc, byte_len) == 20, "");
_Static_assert(offsetof(struct ibv_wc, imm_data) == 24, "");
_Static_assert(offsetof(struct ibv_wc, invalidated_rkey) == 24, "");
_Static_assert(offsetof(struct ibv_wc, qp_num) == 28, "");
_Static_assert(offsetof(struct ibv_wc, src_qp) == 32, "");
_Static_assert(offsetof(struct ibv_wc, wc_flags) == 36, "");
_Static_assert(offsetof(struct ibv_wc, pkey_index) == 40, "");
_Static_assert(offsetof(struct ibv_wc, slid) == 42, "");
_Static_assert(offsetof(struct ibv_wc, sl) == 44, "");
_Static_assert(offsetof(struct ibv_wc, dlid_path_bits) == 45, "");
_Static_assert(sizeof(struct ibv_wc) == 48, "");
_Static_assert(sizeof(struct ibv_sge) == 16, "");
_Static_assert(sizeof(struct ibv_recv_wr) == 32, "");
_Static_assert(offsetof(struct ibv_send_wr, opcode) == 28, "");
_Static_assert(offsetof(struct ibv_send_wr, imm_data) == 36, "");
_Static_assert(offsetof(struct ibv_send_wr, wr) == 40, "");
_Static_assert(sizeof(struct ibv_send_wr) == 128, "");
_Static_assert(sizeof(union ibv_gid) == 16, "");
#endif

int main(void)
{
	struct ibv_device **list;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	struct ibv_cq *cq;
	struct ibv_qp *qp[2];
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr attr;
	struct ibv_port_attr port;
	union ibv_gid gid;
	struct ibv_sge sge;
	struct ibv_recv_wr rwr, *bad_rwr;
	struct ibv_send_wr swr, *bad_swr;
	struct ibv_wc wc[2];
	static char buf[2][128];
	int num = 0, n = 0;

	list = ibv_get_device_list(&num);
	CHECK(list != NULL && num >= 1);
	CHECK(ibv_get_device_name(list[0]) != NULL);
	ctx = ibv_open_device(list[0]);
	CHECK(ctx != NULL);
	ibv_free_device_list(list);
	CHECK(ibv_query_port(ctx, 1, &port) == 0);
	CHECK(port.state == IBV_PORT_ACTIVE);
	CHECK(ibv_query_gid(ctx, 1, 0, &gid) == 0);
	pd = ibv_alloc_pd(ctx);
	CHECK(pd != NULL);
	mr = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	CHECK(mr != NULL);
	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	CHECK(cq != NULL);

	for (int i = 0; i < 2; i++) {
		memset(&ia, 0, sizeof(ia));
		ia.send_cq = cq;
		ia.recv_cq = cq;
		ia.qp_type = IBV_QPT_RC;
		ia.cap.max_send_wr = 4;
		ia.cap.max_recv_wr = 4;
		ia.cap.max_send_sge = 1;
		ia.cap.max_recv_sge = 1;
		qp[i] = ibv_create_qp(pd, &ia);
		CHECK(qp[i] != NULL);
	}
	for (int i = 0; i < 2; i++) {
		memset(&attr, 0, sizeof(attr));
		attr.qp_state = IBV_QPS_INIT;
		attr.pkey_index = 0;
		attr.port_num = 1;
		attr.qp_access_flags = IBV_ACCESS_LOCAL_WRITE;
		CHECK(ibv_modify_qp(qp[i], &attr, IBV_QP_STATE |
				    IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				    IBV_QP_ACCESS_FLAGS) == 0);
		memset(&attr, 0, sizeof(attr));
		attr.qp_state = IBV_QPS_RTR;
		attr.path_mtu = IBV_MTU_1024;
		attr.dest_qp_num = qp[1 - i]->qp_num;
		attr.rq_psn = 0;
		attr.max_dest_rd_atomic = 1;
		attr.min_rnr_timer = 12;
		attr.ah_attr.is_global = 1;
		attr.ah_attr.grh.dgid = gid;
		attr.ah_attr.grh.sgid_index = 0;
		attr.ah_attr.grh.hop_limit = 1;
		attr.ah_attr.port_num = 1;
		CHECK(ibv_modify_qp(qp[i], &attr, IBV_QP_STATE | IBV_QP_AV |
				    IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
				    IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
				    IBV_QP_MIN_RNR_TIMER) == 0);
		memset(&attr, 0, sizeof(attr));
		attr.qp_state = IBV_QPS_RTS;
		attr.timeout = 14;
		attr.retry_cnt = 7;
		attr.rnr_retry = 7;
		attr.sq_psn = 0;
		attr.max_rd_atomic = 1;
		CHECK(ibv_modify_qp(qp[i], &attr, IBV_QP_STATE | IBV_QP_TIMEOUT |
				    IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
				    IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC) == 0);
	}

	sge.addr = (uintptr_t)buf[1];
	sge.length = sizeof(buf[1]);
	sge.lkey = mr->lkey;
	memset(&rwr, 0, sizeof(rwr));
	rwr.wr_id = 2;
	rwr.sg_list = &sge;
	rwr.num_sge = 1;
	CHECK(ibv_post_recv(qp[1], &rwr, &bad_rwr) == 0);

	strcpy(buf[0], "hello, verbs");
	sge.addr = (uintptr_t)buf[0];
	sge.length = (uint32_t)strlen(buf[0]) + 1;
	memset(&swr, 0, sizeof(swr));
	swr.wr_id = 1;
	swr.sg_list = &sge;
	swr.num_sge = 1;
	swr.opcode = IBV_WR_SEND;
	swr.send_flags = IBV_SEND_SIGNALED;
	CHECK(ibv_post_send(qp[0], &swr, &bad_swr) == 0);

	for (int tries = 0; tries < 1000000 && n < 2; tries++) {
		int r = ibv_poll_cq(cq, 2 - n, wc + n);

		CHECK(r >= 0);
		n += r;
	}
	CHECK(n == 2);
	for (int i = 0; i < 2; i++) {
		if (wc[i].status != IBV_WC_SUCCESS)
			fprintf(stderr, "wc %d: %s\n", i,
				ibv_wc_status_str(wc[i].status));
		CHECK(wc[i].status == IBV_WC_SUCCESS);
		if (wc[i].wr_id == 1) {
			CHECK(wc[i].opcode == IBV_WC_SEND);
		} else {
			CHECK(wc[i].wr_id == 2);
			CHECK(wc[i].opcode == IBV_WC_RECV);
			CHECK(wc[i].byte_len == sizeof("hello, verbs"));
			CHECK(wc[i].qp_num == qp[1]->qp_num);
		}
	}
	CHECK(strcmp(buf[1], "hello, verbs") == 0);

	CHECK(ibv_destroy_qp(qp[0]) == 0);
	CHECK(ibv_destroy_qp(qp[1]) == 0);
	CHECK(ibv_destroy_cq(cq) == 0);
	CHECK(ibv_dereg_mr(mr) == 0);
	CHECK(ibv_dealloc_pd(pd) == 0);
	CHECK(ibv_close_device(ctx) == 0);
	return 0;
}
