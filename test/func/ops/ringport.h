/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A RoCE device on a port made of two rte_rings the test program holds
 * (rte_eth_from_rings): the program puts frames on the receive ring and
 * takes what the device sends off the transmit ring.  For programs run
 * by ring.sh (its EAL arguments; the device it configures on net_ring0
 * is left unused).
 */
#ifndef RINGPORT_H
#define RINGPORT_H

#include <stdint.h>

#include <rte_mempool.h>
#include <rte_ring.h>

#include <pmr_verbs.h>

struct vt;
struct wire_pkt;

struct ringport {
	struct rte_ring *rx;    /* frames the device receives */
	struct rte_ring *tx;    /* frames the device sent */
	uint16_t port;
	uint8_t mac[6];         /* the device's: 02:00:00:00:NET:01, NET in hex */
};

/* DPDK initialised as the library does it, from the configuration. */
void ringport_eal_init(void);

/*
 * The port ("net_" name, rings of `size` slots) and a RoCE device on it
 * with address 10.NET.0.1, its own neighbour (two of its QPs connected
 * to each other exchange frames the program passes on, or not).
 * Fails the test if it cannot be made.
 */
struct pmr_device *ringport_device(struct ringport *rp, const char *name,
				   unsigned int size, uint8_t net);
/* The same with more device arguments, `extra` (",ipv6=..."). */
struct pmr_device *ringport_device_args(struct ringport *rp,
					const char *name, unsigned int size,
					uint8_t net, const char *extra);

/* A loopback port of one ring (named name, 1024 slots): what it sends it
 * receives.  Fails the test if it cannot be made.  @return its id. */
uint16_t ringport_loop(const char *name);
/* ringport_device_args() on a loopback port: the device's frames come
 * back to it, no program passes them on. */
struct pmr_device *ringport_loop_device(const char *name, uint8_t net,
					const char *extra);

/*
 * What every program on a ring port starts with: DPDK, a pool of `own`
 * mbufs of the program's own ("NAME_own"), the port and its device
 * (ringport_device()), and v opened on the device.  Fails the test if any
 * cannot be made.  @return the program's pool.
 */
struct rte_mempool *ringport_open(struct ringport *rp, struct vt *v,
				  const char *name, unsigned int size,
				  uint8_t net, unsigned int own);

/* Every frame off the transmit ring, each parsed (wire_parse(), ICRC
 * checked) and handed to fn with arg, p NULL for one that does not
 * parse, then freed; fn NULL: only freed.  @return the frames taken. */
unsigned int ringport_take(struct ringport *rp,
			   void (*fn)(const struct wire_pkt *p, void *arg),
			   void *arg);

/* Frames the port took for transmission so far (its own counter). */
uint64_t ringport_sent(const struct ringport *rp);

/* An ACK of everything up to psn (MSN msn) to the device's QP qpn, as its
 * peer (the device's own address) would send it, on the receive ring;
 * the frame from `pool`. */
void ringport_ack(struct ringport *rp, struct rte_mempool *pool,
		  uint32_t qpn, uint32_t psn, uint32_t msn);

#endif
