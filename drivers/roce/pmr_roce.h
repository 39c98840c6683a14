/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pmrdma RoCEv2 device: counters.
 *
 * A RoCE device is created from "roce:port=N,ipv4=A.B.C.D,..." (see
 * doc/guides/roce.rst) either by configuration or with
 * pmr_device_create("roce", args) in a DPDK application.
 */
#ifndef PMR_ROCE_H
#define PMR_ROCE_H

#include <stdint.h>

#include "pmr_verbs.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Port counters of a RoCE device (monotonic since the device was made).
 * New counters are added at the end (tx_bursts was), and
 * pmr_roce_port_stats() writes the whole structure: a program built
 * against an older pmr_roce.h passes a shorter one and must be rebuilt.
 */
struct pmr_roce_port_stats {
	uint64_t rx_pkts, rx_bytes, tx_pkts, tx_bytes;
	uint64_t tx_drops;           /**< frames built, then dropped: the
				      *   transmit ring took none for a second
				      *   (a peer that hangs: as a link that
				      *   is down), headers that cannot be
				      *   built or that do not fit the mbuf
				      *   (cannot happen), frames still
				      *   waiting when the device goes */
	uint64_t rx_drop_not_roce;   /**< not ARP and not RoCEv2 for us */
	uint64_t rx_drop_malformed;  /**< truncated, bad headers, bad lengths */
	uint64_t rx_drop_icrc;       /**< bad ICRC */
	uint64_t rx_drop_unknown_qp; /**< destination QP does not exist */
	uint64_t rx_drop_state;      /**< QP not in a state to receive */
	uint64_t rx_drop_qkey;       /**< UD: Q_Key mismatch */
	uint64_t rx_drop_no_recv;    /**< UD/UC: no receive WR posted */
	uint64_t arp_rx, arp_tx;
	uint64_t retransmits;        /**< go-back-N restarts */
	uint64_t timeouts;           /**< local ACK timeouts */
	uint64_t nak_seq_rx, nak_seq_tx;
	uint64_t nak_rnr_rx, nak_rnr_tx;
	uint64_t nak_inv_rx, nak_inv_tx;
	uint64_t nak_acc_rx, nak_acc_tx;
	uint64_t nak_op_rx, nak_op_tx;
	uint64_t rnr_waits;
	uint64_t dup_requests;       /**< duplicate requests / stale answers */
	uint64_t out_of_seq;         /**< requests beyond the expected PSN */
	uint64_t ack_solicits;       /**< last packets sent again to ask for
				      *   the ACK of an unsignaled tail */
	uint64_t doorbells;          /**< QPs the engine took from the
				      *   doorbell stack: sends posted while
				      *   the engine was busy, in manual or
				      *   service mode, or to a QP in SQE or
				      *   ERR */
	uint64_t qps_active;         /**< not a counter: the QPs with work
				      *   owed, which every engine run visits
				      *   (the others cost it nothing) */
	uint64_t tx_full;            /**< times a frame was put off: the
				      *   transmit ring was full and 64 frames
				      *   already waited for it (it is built
				      *   by a later engine run; an ARP or ND
				      *   one is dropped) */
	uint64_t tx_no_mbuf;         /**< times a frame was put off for want
				      *   of an mbuf (as above) */
	uint64_t tx_bursts;          /**< transmit calls to the port that had
				      *   frames to hand it (tx_pkts /
				      *   tx_bursts: frames a burst) */
};

/** Counters of one QP. */
struct pmr_roce_qp_stats {
	uint64_t tx_pkts, rx_pkts, tx_bytes, rx_bytes;
	uint64_t retransmits, rnr_waits, nak_rx, nak_tx, dup_rx;
	uint64_t timeouts;           /**< local ACK timeouts (as the port's) */
};

/**
 * Read the port counters of a RoCE device.
 * @return 0, or EINVAL if the device is not a RoCE device.
 */
int pmr_roce_port_stats(struct pmr_device *device,
			struct pmr_roce_port_stats *stats);

/**
 * Read the counters of a QP of a RoCE device.
 * @return 0, or EINVAL if the QP is not on a RoCE device.
 */
int pmr_roce_qp_stats(struct pmr_qp *qp, struct pmr_roce_qp_stats *stats);

#ifdef __cplusplus
}
#endif

#endif /* PMR_ROCE_H */
