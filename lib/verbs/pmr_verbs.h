/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pmrdma public verbs API.
 *
 * Every type, field, enumerator value and rule below matches libibverbs
 * (<infiniband/verbs.h>); only the prefix differs (pmr_ / PMR_ instead of
 * ibv_ / IBV_).  Include <pmr_ibv_compat.h> to build verbs code unchanged.
 *
 * Conventions (as in libibverbs):
 *  - create/alloc/open/reg calls return NULL and set errno on failure;
 *  - other calls return 0 on success and an errno value on failure;
 *  - pmr_post_* return an errno value and set *bad_wr to the first work
 *    request that was not posted (the ones before it are posted);
 *  - pmr_poll_cq returns the number of completions written (>= 0) or a
 *    negative value on failure.
 *
 * Threading: one object is driven by one thread at a time.  A context's
 * device engine ("progress") and the control calls on its objects are
 * serialised internally; post and poll on one QP / CQ must not be called
 * concurrently from several threads (see doc/guides/verbs.rst).
 */
#ifndef PMR_VERBS_H
#define PMR_VERBS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Big-endian integer types, as in libibverbs (documentation only). */
typedef uint16_t pmr_be16;
typedef uint32_t pmr_be32;
typedef uint64_t pmr_be64;

/** Length of a device name, including the terminating NUL. */
#define PMR_SYSFS_NAME_MAX 64
#define PMR_SYSFS_PATH_MAX 256

union pmr_gid {
	uint8_t raw[16];
	struct {
		pmr_be64 subnet_prefix;
		pmr_be64 interface_id;
	} global;
};

enum pmr_node_type {
	PMR_NODE_UNKNOWN = -1,
	PMR_NODE_CA = 1,
	PMR_NODE_SWITCH,
	PMR_NODE_ROUTER,
	PMR_NODE_RNIC,
	PMR_NODE_USNIC,
	PMR_NODE_USNIC_UDP,
	PMR_NODE_UNSPECIFIED,
};

enum pmr_transport_type {
	PMR_TRANSPORT_UNKNOWN = -1,
	PMR_TRANSPORT_IB = 0,
	PMR_TRANSPORT_IWARP,
	PMR_TRANSPORT_USNIC,
	PMR_TRANSPORT_USNIC_UDP,
	PMR_TRANSPORT_UNSPECIFIED,
};

enum pmr_device_cap_flags {
	PMR_DEVICE_RESIZE_MAX_WR = 1,
	PMR_DEVICE_BAD_PKEY_CNTR = 1 << 1,
	PMR_DEVICE_BAD_QKEY_CNTR = 1 << 2,
	PMR_DEVICE_RAW_MULTI = 1 << 3,
	PMR_DEVICE_AUTO_PATH_MIG = 1 << 4,
	PMR_DEVICE_CHANGE_PHY_PORT = 1 << 5,
	PMR_DEVICE_UD_AV_PORT_ENFORCE = 1 << 6,
	PMR_DEVICE_CURR_QP_STATE_MOD = 1 << 7,
	PMR_DEVICE_SHUTDOWN_PORT = 1 << 8,
	PMR_DEVICE_INIT_TYPE = 1 << 9,
	PMR_DEVICE_PORT_ACTIVE_EVENT = 1 << 10,
	PMR_DEVICE_SYS_IMAGE_GUID = 1 << 11,
	PMR_DEVICE_RC_RNR_NAK_GEN = 1 << 12,
	PMR_DEVICE_SRQ_RESIZE = 1 << 13,
	PMR_DEVICE_N_NOTIFY_CQ = 1 << 14,
	PMR_DEVICE_MEM_WINDOW = 1 << 17,
	PMR_DEVICE_UD_IP_CSUM = 1 << 18,
	PMR_DEVICE_XRC = 1 << 20,
	PMR_DEVICE_MEM_MGT_EXTENSIONS = 1 << 21,
	PMR_DEVICE_MEM_WINDOW_TYPE_2A = 1 << 23,
	PMR_DEVICE_MEM_WINDOW_TYPE_2B = 1 << 24,
	PMR_DEVICE_RC_IP_CSUM = 1 << 25,
	PMR_DEVICE_RAW_IP_CSUM = 1 << 26,
	PMR_DEVICE_MANAGED_FLOW_STEERING = 1 << 29,
};

enum pmr_atomic_cap {
	PMR_ATOMIC_NONE,
	PMR_ATOMIC_HCA,
	PMR_ATOMIC_GLOB,
};

struct pmr_device_attr {
	char fw_ver[64];
	pmr_be64 node_guid;
	pmr_be64 sys_image_guid;
	uint64_t max_mr_size;
	uint64_t page_size_cap;
	uint32_t vendor_id;
	uint32_t vendor_part_id;
	uint32_t hw_ver;
	int max_qp;
	int max_qp_wr;
	unsigned int device_cap_flags;
	int max_sge;
	int max_sge_rd;
	int max_cq;
	int max_cqe;
	int max_mr;
	int max_pd;
	int max_qp_rd_atom;
	int max_ee_rd_atom;
	int max_res_rd_atom;
	int max_qp_init_rd_atom;
	int max_ee_init_rd_atom;
	enum pmr_atomic_cap atomic_cap;
	int max_ee;
	int max_rdd;
	int max_mw;
	int max_raw_ipv6_qp;
	int max_raw_ethy_qp;
	int max_mcast_grp;
	int max_mcast_qp_attach;
	int max_total_mcast_qp_attach;
	int max_ah;
	int max_fmr;
	int max_map_per_fmr;
	int max_srq;
	int max_srq_wr;
	int max_srq_sge;
	uint16_t max_pkeys;
	uint8_t local_ca_ack_delay;
	uint8_t phys_port_cnt;
};

enum pmr_mtu {
	PMR_MTU_256 = 1,
	PMR_MTU_512 = 2,
	PMR_MTU_1024 = 3,
	PMR_MTU_2048 = 4,
	PMR_MTU_4096 = 5,
};

enum pmr_port_state {
	PMR_PORT_NOP = 0,
	PMR_PORT_DOWN = 1,
	PMR_PORT_INIT = 2,
	PMR_PORT_ARMED = 3,
	PMR_PORT_ACTIVE = 4,
	PMR_PORT_ACTIVE_DEFER = 5,
};

enum {
	PMR_LINK_LAYER_UNSPECIFIED,
	PMR_LINK_LAYER_INFINIBAND,
	PMR_LINK_LAYER_ETHERNET,
};

enum pmr_port_cap_flags {
	PMR_PORT_SM = 1 << 1,
	PMR_PORT_NOTICE_SUP = 1 << 2,
	PMR_PORT_TRAP_SUP = 1 << 3,
	PMR_PORT_OPT_IPD_SUP = 1 << 4,
	PMR_PORT_AUTO_MIGR_SUP = 1 << 5,
	PMR_PORT_SL_MAP_SUP = 1 << 6,
	PMR_PORT_MKEY_NVRAM = 1 << 7,
	PMR_PORT_PKEY_NVRAM = 1 << 8,
	PMR_PORT_LED_INFO_SUP = 1 << 9,
	PMR_PORT_SYS_IMAGE_GUID_SUP = 1 << 11,
	PMR_PORT_PKEY_SW_EXT_PORT_TRAP_SUP = 1 << 12,
	PMR_PORT_EXTENDED_SPEEDS_SUP = 1 << 14,
	PMR_PORT_CAP_MASK2_SUP = 1 << 15,
	PMR_PORT_CM_SUP = 1 << 16,
	PMR_PORT_SNMP_TUNNEL_SUP = 1 << 17,
	PMR_PORT_REINIT_SUP = 1 << 18,
	PMR_PORT_DEVICE_MGMT_SUP = 1 << 19,
	PMR_PORT_VENDOR_CLASS_SUP = 1 << 20,
	PMR_PORT_DR_NOTICE_SUP = 1 << 21,
	PMR_PORT_CAP_MASK_NOTICE_SUP = 1 << 22,
	PMR_PORT_BOOT_MGMT_SUP = 1 << 23,
	PMR_PORT_LINK_LATENCY_SUP = 1 << 24,
	PMR_PORT_CLIENT_REG_SUP = 1 << 25,
	PMR_PORT_IP_BASED_GIDS = 1 << 26,
};

struct pmr_port_attr {
	enum pmr_port_state state;
	enum pmr_mtu max_mtu;
	enum pmr_mtu active_mtu;
	int gid_tbl_len;
	uint32_t port_cap_flags;
	uint32_t max_msg_sz;
	uint32_t bad_pkey_cntr;
	uint32_t qkey_viol_cntr;
	uint16_t pkey_tbl_len;
	uint16_t lid;
	uint16_t sm_lid;
	uint8_t lmc;
	uint8_t max_vl_num;
	uint8_t sm_sl;
	uint8_t subnet_timeout;
	uint8_t init_type_reply;
	uint8_t active_width;
	uint8_t active_speed;
	uint8_t phys_state;
	uint8_t link_layer;
	uint8_t flags;
	uint16_t port_cap_flags2;
};

enum pmr_event_type {
	PMR_EVENT_CQ_ERR,
	PMR_EVENT_QP_FATAL,
	PMR_EVENT_QP_REQ_ERR,
	PMR_EVENT_QP_ACCESS_ERR,
	PMR_EVENT_COMM_EST,
	PMR_EVENT_SQ_DRAINED,
	PMR_EVENT_PATH_MIG,
	PMR_EVENT_PATH_MIG_ERR,
	PMR_EVENT_DEVICE_FATAL,
	PMR_EVENT_PORT_ACTIVE,
	PMR_EVENT_PORT_ERR,
	PMR_EVENT_LID_CHANGE,
	PMR_EVENT_PKEY_CHANGE,
	PMR_EVENT_SM_CHANGE,
	PMR_EVENT_SRQ_ERR,
	PMR_EVENT_SRQ_LIMIT_REACHED,
	PMR_EVENT_QP_LAST_WQE_REACHED,
	PMR_EVENT_CLIENT_REREGISTER,
	PMR_EVENT_GID_CHANGE,
	PMR_EVENT_WQ_FATAL,
};

struct pmr_cq;
struct pmr_qp;
struct pmr_srq;

struct pmr_async_event {
	union {
		struct pmr_cq *cq;
		struct pmr_qp *qp;
		struct pmr_srq *srq;
		void *wq;
		int port_num;
	} element;
	enum pmr_event_type event_type;
};

enum pmr_wc_status {
	PMR_WC_SUCCESS,
	PMR_WC_LOC_LEN_ERR,
	PMR_WC_LOC_QP_OP_ERR,
	PMR_WC_LOC_EEC_OP_ERR,
	PMR_WC_LOC_PROT_ERR,
	PMR_WC_WR_FLUSH_ERR,
	PMR_WC_MW_BIND_ERR,
	PMR_WC_BAD_RESP_ERR,
	PMR_WC_LOC_ACCESS_ERR,
	PMR_WC_REM_INV_REQ_ERR,
	PMR_WC_REM_ACCESS_ERR,
	PMR_WC_REM_OP_ERR,
	PMR_WC_RETRY_EXC_ERR,
	PMR_WC_RNR_RETRY_EXC_ERR,
	PMR_WC_LOC_RDD_VIOL_ERR,
	PMR_WC_REM_INV_RD_REQ_ERR,
	PMR_WC_REM_ABORT_ERR,
	PMR_WC_INV_EECN_ERR,
	PMR_WC_INV_EEC_STATE_ERR,
	PMR_WC_FATAL_ERR,
	PMR_WC_RESP_TIMEOUT_ERR,
	PMR_WC_GENERAL_ERR,
	PMR_WC_TM_ERR,
	PMR_WC_TM_RNDV_INCOMPLETE,
};

enum pmr_wc_opcode {
	PMR_WC_SEND,
	PMR_WC_RDMA_WRITE,
	PMR_WC_RDMA_READ,
	PMR_WC_COMP_SWAP,
	PMR_WC_FETCH_ADD,
	PMR_WC_BIND_MW,
	PMR_WC_LOCAL_INV,
	PMR_WC_TSO,
	PMR_WC_FLUSH,
	PMR_WC_ATOMIC_WRITE = 9,
	/* opcode & PMR_WC_RECV is true for every receive completion. */
	PMR_WC_RECV = 1 << 7,
	PMR_WC_RECV_RDMA_WITH_IMM,
	PMR_WC_TM_ADD,
	PMR_WC_TM_DEL,
	PMR_WC_TM_SYNC,
	PMR_WC_TM_RECV,
	PMR_WC_TM_NO_TAG,
	PMR_WC_DRIVER1,
	PMR_WC_DRIVER2,
	PMR_WC_DRIVER3,
};

enum {
	PMR_WC_IP_CSUM_OK_SHIFT = 2,
};

enum pmr_wc_flags {
	PMR_WC_GRH = 1 << 0,
	PMR_WC_WITH_IMM = 1 << 1,
	PMR_WC_IP_CSUM_OK = 1 << PMR_WC_IP_CSUM_OK_SHIFT,
	PMR_WC_WITH_INV = 1 << 3,
	PMR_WC_TM_SYNC_REQ = 1 << 4,
	PMR_WC_TM_MATCH = 1 << 5,
	PMR_WC_TM_DATA_VALID = 1 << 6,
};

/** A work completion: exactly the fields of struct ibv_wc. */
struct pmr_wc {
	uint64_t wr_id;
	enum pmr_wc_status status;
	enum pmr_wc_opcode opcode;
	uint32_t vendor_err;
	uint32_t byte_len;
	union {
		pmr_be32 imm_data;        /* network byte order */
		uint32_t invalidated_rkey;
	};
	uint32_t qp_num;
	uint32_t src_qp;
	unsigned int wc_flags;
	uint16_t pkey_index;
	uint16_t slid;
	uint8_t sl;
	uint8_t dlid_path_bits;
};

enum pmr_access_flags {
	PMR_ACCESS_LOCAL_WRITE = 1,
	PMR_ACCESS_REMOTE_WRITE = 1 << 1,
	PMR_ACCESS_REMOTE_READ = 1 << 2,
	PMR_ACCESS_REMOTE_ATOMIC = 1 << 3,
	PMR_ACCESS_MW_BIND = 1 << 4,
	PMR_ACCESS_ZERO_BASED = 1 << 5,
	PMR_ACCESS_ON_DEMAND = 1 << 6,
	PMR_ACCESS_HUGETLB = 1 << 7,
	PMR_ACCESS_FLUSH_GLOBAL = 1 << 8,
	PMR_ACCESS_FLUSH_PERSISTENT = 1 << 9,
	PMR_ACCESS_RELAXED_ORDERING = 1 << 20,
};

struct pmr_device {
	enum pmr_node_type node_type;
	enum pmr_transport_type transport_type;
	/** Name of the device, e.g. "pmr_loop0" or "pmr_roce0". */
	char name[PMR_SYSFS_NAME_MAX];
	/** Name of the underlying port / driver instance. */
	char dev_name[PMR_SYSFS_NAME_MAX];
	char dev_path[PMR_SYSFS_PATH_MAX];
	char ibdev_path[PMR_SYSFS_PATH_MAX];
};

struct pmr_context {
	struct pmr_device *device;
	/** Unused by pmrdma (there is no kernel command channel); -1. */
	int cmd_fd;
	/** Readable when an async event is pending (poll/epoll; O_NONBLOCK). */
	int async_fd;
	int num_comp_vectors;
};

struct pmr_pd {
	struct pmr_context *context;
	uint32_t handle;
};

struct pmr_mr {
	struct pmr_context *context;
	struct pmr_pd *pd;
	void *addr;
	size_t length;
	uint32_t handle;
	uint32_t lkey;
	uint32_t rkey;
};

struct pmr_global_route {
	union pmr_gid dgid;
	uint32_t flow_label;
	uint8_t sgid_index;
	uint8_t hop_limit;
	uint8_t traffic_class;
};

struct pmr_ah_attr {
	struct pmr_global_route grh;
	uint16_t dlid;
	uint8_t sl;
	uint8_t src_path_bits;
	uint8_t static_rate;
	uint8_t is_global;
	uint8_t port_num;
};

struct pmr_ah {
	struct pmr_context *context;
	struct pmr_pd *pd;
	uint32_t handle;
};

enum pmr_srq_attr_mask {
	PMR_SRQ_MAX_WR = 1 << 0,
	PMR_SRQ_LIMIT = 1 << 1,
};

struct pmr_srq_attr {
	uint32_t max_wr;
	uint32_t max_sge;
	uint32_t srq_limit;
};

struct pmr_srq_init_attr {
	void *srq_context;
	struct pmr_srq_attr attr;
};

struct pmr_srq {
	struct pmr_context *context;
	void *srq_context;
	struct pmr_pd *pd;
	uint32_t handle;
	/** Number of async events on this SRQ acknowledged so far. */
	uint32_t events_completed;
};

enum pmr_qp_type {
	PMR_QPT_RC = 2,
	PMR_QPT_UC,
	PMR_QPT_UD,
	PMR_QPT_RAW_PACKET = 8,
	PMR_QPT_XRC_SEND = 9,
	PMR_QPT_XRC_RECV,
	PMR_QPT_DRIVER = 0xff,
};

struct pmr_qp_cap {
	uint32_t max_send_wr;
	uint32_t max_recv_wr;
	uint32_t max_send_sge;
	uint32_t max_recv_sge;
	uint32_t max_inline_data;
};

struct pmr_qp_init_attr {
	void *qp_context;
	struct pmr_cq *send_cq;
	struct pmr_cq *recv_cq;
	struct pmr_srq *srq;
	struct pmr_qp_cap cap;
	enum pmr_qp_type qp_type;
	int sq_sig_all;
};

enum pmr_qp_attr_mask {
	PMR_QP_STATE = 1 << 0,
	PMR_QP_CUR_STATE = 1 << 1,
	PMR_QP_EN_SQD_ASYNC_NOTIFY = 1 << 2,
	PMR_QP_ACCESS_FLAGS = 1 << 3,
	PMR_QP_PKEY_INDEX = 1 << 4,
	PMR_QP_PORT = 1 << 5,
	PMR_QP_QKEY = 1 << 6,
	PMR_QP_AV = 1 << 7,
	PMR_QP_PATH_MTU = 1 << 8,
	PMR_QP_TIMEOUT = 1 << 9,
	PMR_QP_RETRY_CNT = 1 << 10,
	PMR_QP_RNR_RETRY = 1 << 11,
	PMR_QP_RQ_PSN = 1 << 12,
	PMR_QP_MAX_QP_RD_ATOMIC = 1 << 13,
	PMR_QP_ALT_PATH = 1 << 14,
	PMR_QP_MIN_RNR_TIMER = 1 << 15,
	PMR_QP_SQ_PSN = 1 << 16,
	PMR_QP_MAX_DEST_RD_ATOMIC = 1 << 17,
	PMR_QP_PATH_MIG_STATE = 1 << 18,
	PMR_QP_CAP = 1 << 19,
	PMR_QP_DEST_QPN = 1 << 20,
	PMR_QP_RATE_LIMIT = 1 << 25,
};

enum pmr_qp_state {
	PMR_QPS_RESET,
	PMR_QPS_INIT,
	PMR_QPS_RTR,
	PMR_QPS_RTS,
	PMR_QPS_SQD,
	PMR_QPS_SQE,
	PMR_QPS_ERR,
	PMR_QPS_UNKNOWN,
};

enum pmr_mig_state {
	PMR_MIG_MIGRATED,
	PMR_MIG_REARM,
	PMR_MIG_ARMED,
};

struct pmr_qp_attr {
	enum pmr_qp_state qp_state;
	enum pmr_qp_state cur_qp_state;
	enum pmr_mtu path_mtu;
	enum pmr_mig_state path_mig_state;
	uint32_t qkey;
	uint32_t rq_psn;
	uint32_t sq_psn;
	uint32_t dest_qp_num;
	unsigned int qp_access_flags;
	struct pmr_qp_cap cap;
	struct pmr_ah_attr ah_attr;
	struct pmr_ah_attr alt_ah_attr;
	uint16_t pkey_index;
	uint16_t alt_pkey_index;
	uint8_t en_sqd_async_notify;
	uint8_t sq_draining;
	uint8_t max_rd_atomic;
	uint8_t max_dest_rd_atomic;
	uint8_t min_rnr_timer;
	uint8_t port_num;
	uint8_t timeout;
	uint8_t retry_cnt;
	uint8_t rnr_retry;
	uint8_t alt_port_num;
	uint8_t alt_timeout;
	uint32_t rate_limit;
};

enum pmr_wr_opcode {
	PMR_WR_RDMA_WRITE,
	PMR_WR_RDMA_WRITE_WITH_IMM,
	PMR_WR_SEND,
	PMR_WR_SEND_WITH_IMM,
	PMR_WR_RDMA_READ,
	PMR_WR_ATOMIC_CMP_AND_SWP,
	PMR_WR_ATOMIC_FETCH_AND_ADD,
	PMR_WR_LOCAL_INV,
	PMR_WR_BIND_MW,
	PMR_WR_SEND_WITH_INV,
	PMR_WR_TSO,
	PMR_WR_DRIVER1,
	PMR_WR_FLUSH = 14,
	PMR_WR_ATOMIC_WRITE = 15,
};

enum pmr_send_flags {
	PMR_SEND_FENCE = 1 << 0,
	PMR_SEND_SIGNALED = 1 << 1,
	PMR_SEND_SOLICITED = 1 << 2,
	PMR_SEND_INLINE = 1 << 3,
	PMR_SEND_IP_CSUM = 1 << 4,
};

struct pmr_sge {
	uint64_t addr;
	uint32_t length;
	uint32_t lkey;
};

struct pmr_send_wr {
	uint64_t wr_id;
	struct pmr_send_wr *next;
	struct pmr_sge *sg_list;
	int num_sge;
	enum pmr_wr_opcode opcode;
	unsigned int send_flags;
	union {
		pmr_be32 imm_data;        /* network byte order */
		uint32_t invalidate_rkey;
	};
	union {
		struct {
			uint64_t remote_addr;
			uint32_t rkey;
		} rdma;
		struct {
			uint64_t remote_addr;
			uint64_t compare_add;
			uint64_t swap;
			uint32_t rkey;
		} atomic;
		struct {
			struct pmr_ah *ah;
			uint32_t remote_qpn;
			uint32_t remote_qkey;
		} ud;
	} wr;
	union {
		struct {
			uint32_t remote_srqn;
		} xrc;
	} qp_type;
	union {
		struct {
			void *mw;
			uint32_t rkey;
			struct {
				struct pmr_mr *mr;
				uint64_t addr;
				uint64_t length;
				unsigned int mw_access_flags;
			} bind_info;
		} bind_mw;
		struct {
			void *hdr;
			uint16_t hdr_sz;
			uint16_t mss;
		} tso;
	};
};

struct pmr_recv_wr {
	uint64_t wr_id;
	struct pmr_recv_wr *next;
	struct pmr_sge *sg_list;
	int num_sge;
};

struct pmr_comp_channel {
	struct pmr_context *context;
	/** Readable when a completion event is pending (poll/epoll; O_NONBLOCK). */
	int fd;
	int refcnt;
};

struct pmr_cq {
	struct pmr_context *context;
	struct pmr_comp_channel *channel;
	void *cq_context;
	uint32_t handle;
	/** Number of completions the CQ holds (at least what was asked). */
	int cqe;
	/** Completion events acknowledged so far (pmr_ack_cq_events). */
	uint32_t comp_events_completed;
	/** Async events acknowledged so far (pmr_ack_async_event). */
	uint32_t async_events_completed;
};

struct pmr_qp {
	struct pmr_context *context;
	void *qp_context;
	struct pmr_pd *pd;
	struct pmr_cq *send_cq;
	struct pmr_cq *recv_cq;
	struct pmr_srq *srq;
	uint32_t handle;
	uint32_t qp_num;
	enum pmr_qp_state state;
	enum pmr_qp_type qp_type;
	/** Number of async events on this QP acknowledged so far. */
	uint32_t events_completed;
};

/* ------------------------------------------------------------------ */
/* Devices                                                             */
/* ------------------------------------------------------------------ */

/**
 * List the pmrdma devices.
 *
 * On the first call in a process that has not created a device itself,
 * devices are created from the configuration: the file named by
 * PMR_CONFIG, or the variables PMR_DEVICES / PMR_EAL_ARGS (see
 * doc/guides/configuration.rst).  With no configuration at all a single
 * in-process loopback device, "pmr_loop0", is listed.
 *
 * @param num_devices  if not NULL, set to the number of devices.
 * @return a NULL-terminated array to free with pmr_free_device_list(), or
 *         NULL with errno set (ENOMEM; EINVAL for a bad configuration;
 *         the errno of EAL initialisation when it fails; that of
 *         pmr_device_create() when a configured device cannot be made).
 */
struct pmr_device **pmr_get_device_list(int *num_devices);

/** Free an array returned by pmr_get_device_list(); devices stay valid. */
void pmr_free_device_list(struct pmr_device **list);

/** @return the device's name (never NULL for a valid device). */
const char *pmr_get_device_name(struct pmr_device *device);

/** @return the device's node GUID, big endian (derived from its MAC). */
pmr_be64 pmr_get_device_guid(struct pmr_device *device);

/**
 * Create a device from a driver name and its arguments, in a process that
 * already initialised DPDK (or, for the loopback driver, at any time).
 *
 *   pmr_device_create("roce", "port=0,ipv4=10.0.0.1");
 *   pmr_device_create("loop", NULL);
 *
 * The new device is appended to what pmr_get_device_list() returns.
 *
 * @return the device, or NULL with errno set: ENOENT (no such driver),
 *         EINVAL (bad arguments), ENODEV (no such port), ENOSPC (too many
 *         devices), or what the driver reports.
 */
struct pmr_device *pmr_device_create(const char *driver, const char *args);

/**
 * Open a context on a device.  Each context owns its own engine instance
 * (for the RoCE driver: one rx/tx queue pair of the port).
 * @return the context, or NULL with errno set (EBUSY: no free queue).
 */
struct pmr_context *pmr_open_device(struct pmr_device *device);

/** @return 0, or EBUSY while objects created from the context remain. */
int pmr_close_device(struct pmr_context *context);

int pmr_query_device(struct pmr_context *context,
		     struct pmr_device_attr *device_attr);

/** Ports are numbered from 1. @return 0, or EINVAL for a bad port. */
int pmr_query_port(struct pmr_context *context, uint8_t port_num,
		   struct pmr_port_attr *port_attr);

/**
 * Read GID table entry @p index (IPv4-mapped or IPv6 RoCEv2 GIDs).
 * @return 0, or EINVAL for a bad port or index (an unused entry reads as
 *         all zeroes, as in libibverbs).
 */
int pmr_query_gid(struct pmr_context *context, uint8_t port_num, int index,
		  union pmr_gid *gid);

/** @return 0 with *pkey = 0xffff (big endian) for index 0, else EINVAL. */
int pmr_query_pkey(struct pmr_context *context, uint8_t port_num, int index,
		   pmr_be16 *pkey);

/* ------------------------------------------------------------------ */
/* Progress                                                            */
/* ------------------------------------------------------------------ */

enum pmr_progress_mode {
	/** pmr_poll_cq (when the CQ is empty) and pmr_post_send drive the
	 *  engine (the default). */
	PMR_PROGRESS_INLINE = 0,
	/** A DPDK service core drives the engine (RoCE driver). */
	PMR_PROGRESS_SERVICE = 1,
	/** Only pmr_progress() drives the engine. */
	PMR_PROGRESS_MANUAL = 2,
};

/**
 * Choose how the context's engine is driven.  Call before creating QPs,
 * except for PMR_PROGRESS_MANUAL, which may be chosen at any time: from
 * then on only pmr_progress() runs the engine, and with service progress
 * the call returns once the service lcore has left the engine for good.
 * That is how an application stops its traffic (nothing sent, nothing
 * received, no timer fired) before it exits while its peer runs on.  Like
 * the other control calls, it must not run while another thread is in a
 * post or poll call of the context.
 * @return 0, EINVAL (unknown mode), ENOTSUP (the driver cannot run in
 *         that mode), EBUSY (the context already has QPs and the mode is
 *         not PMR_PROGRESS_MANUAL; for PMR_PROGRESS_SERVICE also: the
 *         service lcore runs a function of the application), or the
 *         error DPDK gave when the service was registered or its lcore
 *         started (ENOSPC: no room for another service).
 */
int pmr_set_progress_mode(struct pmr_context *context,
			  enum pmr_progress_mode mode);

/**
 * Run the context's engine once, doing at most @p budget units of work
 * (packets or work requests).
 * @return the work done (0 when idle), or a negative errno.
 */
int pmr_progress(struct pmr_context *context, unsigned int budget);

/* ------------------------------------------------------------------ */
/* Protection domains and memory regions                               */
/* ------------------------------------------------------------------ */

/** @return a PD, or NULL with errno (ENOMEM, ENOSPC). */
struct pmr_pd *pmr_alloc_pd(struct pmr_context *context);

/** @return 0, or EBUSY while MRs, QPs, SRQs or AHs use the PD. */
int pmr_dealloc_pd(struct pmr_pd *pd);

/**
 * Register [addr, addr + length) with the given access flags.  Remote
 * write and remote atomic access require local write (EINVAL otherwise).
 * lkey and rkey are the region's index with random key bits, so keys
 * are not guessable and a stale key is rejected.
 * @return the MR, or NULL with errno: EINVAL (NULL address with a
 *         non-zero length, range wrapping around, unknown access bits),
 *         ENOSPC (too many MRs), ENOMEM.
 */
struct pmr_mr *pmr_reg_mr(struct pmr_pd *pd, void *addr, size_t length,
			  int access);

/** @return 0, or EBUSY while the MR is referenced by outstanding work. */
int pmr_dereg_mr(struct pmr_mr *mr);

/* ------------------------------------------------------------------ */
/* Completion channels and CQs                                         */
/* ------------------------------------------------------------------ */

/** @return a channel whose fd works with poll/epoll, or NULL + errno. */
struct pmr_comp_channel *pmr_create_comp_channel(struct pmr_context *context);

/** @return 0, or EBUSY while CQs are attached to the channel. */
int pmr_destroy_comp_channel(struct pmr_comp_channel *channel);

/**
 * Create a CQ holding at least @p cqe completions (cq->cqe tells how many).
 * @return the CQ, or NULL with errno: EINVAL (cqe < 1 or above
 *         max_cqe, comp_vector out of range, channel of another context).
 */
struct pmr_cq *pmr_create_cq(struct pmr_context *context, int cqe,
			     void *cq_context,
			     struct pmr_comp_channel *channel,
			     int comp_vector);

/**
 * Resize a CQ to hold at least @p cqe completions, keeping those it holds.
 * @return 0, or EINVAL (cqe < 1, above max_cqe, or fewer than the
 *         completions it holds now; a CQ in error).
 */
int pmr_resize_cq(struct pmr_cq *cq, int cqe);

/**
 * @return 0, or EBUSY while QPs use the CQ or completion / async events on
 *         it are not acknowledged.
 */
int pmr_destroy_cq(struct pmr_cq *cq);

/**
 * Wait for a completion event on the channel (blocking unless the
 * channel's fd was made O_NONBLOCK).
 * @return 0 with *cq and *cq_context set; -1 with errno EAGAIN when
 *         non-blocking and none is pending.
 */
int pmr_get_cq_event(struct pmr_comp_channel *channel, struct pmr_cq **cq,
		     void **cq_context);

/** Acknowledge @p nevents completion events of @p cq. */
void pmr_ack_cq_events(struct pmr_cq *cq, unsigned int nevents);

/**
 * Arm the CQ: the next completion added to it (with @p solicited_only,
 * the next solicited or failed one) triggers one event on its channel.
 * @return 0, or EINVAL for a CQ without a channel.
 */
int pmr_req_notify_cq(struct pmr_cq *cq, int solicited_only);

/**
 * Move up to @p num_entries completions into @p wc, oldest first.
 * Never blocks.  With inline progress it runs the engine when the CQ holds
 * no completion.
 * @return the number written (0: the CQ is empty), or -EIO once a CQ that
 *         overflowed has given back every completion it still held.
 */
int pmr_poll_cq(struct pmr_cq *cq, int num_entries, struct pmr_wc *wc);

/* ------------------------------------------------------------------ */
/* Shared receive queues                                               */
/* ------------------------------------------------------------------ */

/**
 * @return the SRQ (attr.max_wr / max_sge updated to what was granted), or
 *         NULL with errno: EINVAL (max_wr or max_sge 0 or above the
 *         device's limits, srq_limit > max_wr).
 */
struct pmr_srq *pmr_create_srq(struct pmr_pd *pd,
			       struct pmr_srq_init_attr *srq_init_attr);

/**
 * PMR_SRQ_LIMIT arms the limit event: when fewer than srq_limit receive
 * WRs remain, PMR_EVENT_SRQ_LIMIT_REACHED is raised once and the limit is
 * disarmed.  PMR_SRQ_MAX_WR is not supported (EINVAL).
 * @return 0 or EINVAL (limit above max_wr, unknown mask bits).
 */
int pmr_modify_srq(struct pmr_srq *srq, struct pmr_srq_attr *srq_attr,
		   int srq_attr_mask);

int pmr_query_srq(struct pmr_srq *srq, struct pmr_srq_attr *srq_attr);

/** @return 0, or EBUSY while QPs are attached or events are unacked. */
int pmr_destroy_srq(struct pmr_srq *srq);

/**
 * Post receive WRs to the SRQ.
 * @return 0; EINVAL (num_sge out of range), ENOMEM (the SRQ is full);
 *         *bad_wr is set to the first WR not posted.
 */
int pmr_post_srq_recv(struct pmr_srq *srq, struct pmr_recv_wr *recv_wr,
		      struct pmr_recv_wr **bad_recv_wr);

/* ------------------------------------------------------------------ */
/* Queue pairs                                                         */
/* ------------------------------------------------------------------ */

/**
 * Create an RC, UC or UD QP in the RESET state.  init_attr->cap is updated
 * to what was granted (at least what was asked).
 * @return the QP, or NULL with errno: EINVAL (missing CQ, CQ or SRQ of
 *         another context, unsupported type, capabilities above the
 *         device's limits), ENOSPC (too many QPs), ENOMEM.
 */
struct pmr_qp *pmr_create_qp(struct pmr_pd *pd,
			     struct pmr_qp_init_attr *qp_init_attr);

/**
 * Modify the QP's attributes / state.  Enforces the QP state machine and
 * the required and allowed attributes of each transition (see
 * doc/guides/verbs.rst); a violation returns EINVAL and changes nothing.
 * Moving to PMR_QPS_ERR completes every outstanding WR with
 * PMR_WC_WR_FLUSH_ERR in posting order.
 */
int pmr_modify_qp(struct pmr_qp *qp, struct pmr_qp_attr *attr, int attr_mask);

/** Fill @p attr (all fields) and @p init_attr. @return 0. */
int pmr_query_qp(struct pmr_qp *qp, struct pmr_qp_attr *attr, int attr_mask,
		 struct pmr_qp_init_attr *init_attr);

/**
 * The memory a QP holds, in bytes asked of the C allocator (each of its
 * three to five allocations also costs the allocator's own header and,
 * for the 64-byte aligned ones, alignment slack).  All of it is allocated by
 * pmr_create_qp() and freed by pmr_destroy_qp(): traffic, retries and
 * state changes allocate nothing per QP, so this is the QP's whole cost
 * for its life (packet buffers come from the device's pool, shared by
 * all its QPs).  The formula is in doc/guides/verbs.rst.
 */
struct pmr_qp_mem {
	size_t total;       /**< object + sq + rq + device */
	size_t object;      /**< the verbs layer's QP object */
	size_t sq;          /**< send queue: sq_slots x sq_slot */
	size_t rq;          /**< receive queue: rq_slots x rq_slot; 0 with
			     *   an SRQ */
	size_t device;      /**< the device's state for the QP */
	uint32_t sq_slots;  /**< max_send_wr granted: a power of two */
	uint32_t sq_slot;   /**< bytes per send WQE slot, a multiple of 64 */
	uint32_t rq_slots;  /**< max_recv_wr granted (0 with an SRQ) */
	uint32_t rq_slot;   /**< bytes per receive WQE slot (0 with an SRQ) */
};

/**
 * Report the memory @p qp holds (see struct pmr_qp_mem).
 * @return 0, or EINVAL if @p qp or @p mem is NULL (then nothing is
 *         written).
 */
int pmr_query_qp_mem(struct pmr_qp *qp, struct pmr_qp_mem *mem);

/** @return 0, or EBUSY while async events on the QP are not acked. */
int pmr_destroy_qp(struct pmr_qp *qp);

/**
 * Post send WRs.  Immediate errors, which post nothing of the failing WR:
 * EINVAL (opcode not valid for the QP type, num_sge out of range, QP in a
 * state that does not accept sends: RESET, INIT, RTR; a UD WR without an
 * AH or with an AH of another PD), ENOMEM (send queue full), EINVAL
 * (inline data longer than max_inline_data).
 * @return 0 or the errno; *bad_wr = first WR not posted.
 */
int pmr_post_send(struct pmr_qp *qp, struct pmr_send_wr *wr,
		  struct pmr_send_wr **bad_wr);

/**
 * Post receive WRs.  EINVAL (QP in RESET, QP attached to an SRQ, num_sge
 * out of range), ENOMEM (receive queue full).
 * @return 0 or the errno; *bad_wr = first WR not posted.
 */
int pmr_post_recv(struct pmr_qp *qp, struct pmr_recv_wr *wr,
		  struct pmr_recv_wr **bad_wr);

/* ------------------------------------------------------------------ */
/* Address handles                                                     */
/* ------------------------------------------------------------------ */

/**
 * @return an AH for the GID in attr->grh.dgid (is_global must be 1 on
 *         RoCE), or NULL with errno EINVAL (not global, bad port or
 *         sgid_index).
 */
struct pmr_ah *pmr_create_ah(struct pmr_pd *pd, struct pmr_ah_attr *attr);

/** @return 0, or EBUSY while posted, uncompleted UD WRs use the AH. */
int pmr_destroy_ah(struct pmr_ah *ah);

/* ------------------------------------------------------------------ */
/* Async events                                                        */
/* ------------------------------------------------------------------ */

/**
 * Take the oldest async event of the context, waiting for one unless the
 * context's async_fd is O_NONBLOCK.
 * @return 0, or -1 with errno EAGAIN when non-blocking and none pending.
 */
int pmr_get_async_event(struct pmr_context *context,
			struct pmr_async_event *event);

/** Acknowledge an event returned by pmr_get_async_event().  NULL, or an
 * event whose CQ, SRQ or QP element is NULL, is ignored. */
void pmr_ack_async_event(struct pmr_async_event *event);

/* ------------------------------------------------------------------ */
/* Helpers                                                             */
/* ------------------------------------------------------------------ */

const char *pmr_wc_status_str(enum pmr_wc_status status);
const char *pmr_event_type_str(enum pmr_event_type event);
const char *pmr_node_type_str(enum pmr_node_type node_type);
const char *pmr_port_state_str(enum pmr_port_state port_state);

/** @return 256..4096 for a valid enum pmr_mtu, else -1. */
static inline int pmr_mtu_to_num(enum pmr_mtu mtu)
{
	/* 256 << (mtu - 1): the enum counts doublings from 256 */
	if ((int)mtu < (int)PMR_MTU_256 || (int)mtu > (int)PMR_MTU_4096)
		return -1;
	return 128 << (int)mtu;
}

/** @return the enum pmr_mtu for 256..4096, else 0 (not a valid MTU). */
static inline enum pmr_mtu pmr_num_to_mtu(int num)
{
	switch (num) {
	case 256: return PMR_MTU_256;
	case 512: return PMR_MTU_512;
	case 1024: return PMR_MTU_1024;
	case 2048: return PMR_MTU_2048;
	case 4096: return PMR_MTU_4096;
	default: return (enum pmr_mtu)0;
	}
}

#ifdef __cplusplus
}
#endif

#endif /* PMR_VERBS_H */
