/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Network side of the RoCE device: ARP and the neighbour table, receive
 * dispatch (RoCEv2 packets to the QPs, the rest dropped cheaply), and the
 * transmit queue.
 */
#include <string.h>
#include <sys/ioctl.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_arp.h>

#include "roce.h"

static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

/* roce_tx_mbuf() found the stash empty: an mbuf from the pool, or NULL
 * (counted). */
struct rte_mbuf *roce_tx_mbuf_alloc(struct roce_dev *d)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(d->pool);

	if (m == NULL)
		d->st.tx_no_mbuf++;
	return m;
}

/* ---- neighbours ---------------------------------------------------- */

static struct roce_neigh *neigh_find(struct roce_dev *d, const uint8_t *gid)
{
	for (int i = 0; i < ROCE_NEIGH_MAX; i++)
		if (d->neigh[i].state != 0 &&
		    memcmp(d->neigh[i].ip, gid, 16) == 0)
			return &d->neigh[i];
	return NULL;
}

static struct roce_neigh *neigh_slot(struct roce_dev *d)
{
	struct roce_neigh *old = NULL;

	for (int i = 0; i < ROCE_NEIGH_MAX; i++) {
		if (d->neigh[i].state == 0)
			return &d->neigh[i];
		if (d->neigh[i].state != 3 &&
		    (old == NULL || d->neigh[i].last_req < old->last_req))
			old = &d->neigh[i];
	}
	return old;
}

int roce_neigh_add(struct roce_dev *d, const uint8_t *gid, const uint8_t *mac,
		   bool stat)
{
	struct roce_neigh *n = neigh_find(d, gid);

	if (n == NULL)
		n = neigh_slot(d);
	if (n == NULL)
		return -ENOSPC;
	if (n->state == 3 && !stat)
		return 0;           /* static entries are never overridden */
	memcpy(n->ip, gid, 16);
	memcpy(n->mac, mac, 6);
	n->state = stat ? 3 : 2;
	return 0;
}

bool roce_gid_is_v4(const uint8_t *gid)
{
	static const uint8_t pfx[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
					 0xff, 0xff };

	return memcmp(gid, pfx, 12) == 0;
}

bool roce_gid_ours(const struct pmr_dev_obj *dev, const uint8_t *gid)
{
	for (int i = 0; i < dev->gid_count; i++)
		if (memcmp(dev->gid[i].raw, gid, 16) == 0)
			return true;
	return false;
}

/* ---- IPv6 neighbour discovery (RFC 4861) ---------------------------- */

#define ND_NS 135
#define ND_NA 136
#define ND_OPT_SLLA 1
#define ND_OPT_TLLA 2

static uint16_t csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

static uint32_t csum_add(uint32_t sum, const uint8_t *p, size_t len)
{
	for (size_t i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)p[i] << 8 | p[i + 1];
	if (len & 1)
		sum += (uint32_t)p[len - 1] << 8;
	return sum;
}

/* ICMPv6 checksum over the pseudo-header and the message. */
static uint16_t icmp6_csum(const uint8_t *ip6, const uint8_t *msg,
			   uint32_t len)
{
	uint32_t sum = csum_add(0, ip6 + 8, 32);    /* source, destination */

	sum += len >> 16;
	sum += len & 0xffff;
	sum += 58;
	return csum_fold(csum_add(sum, msg, len));
}

/* An NS (to the solicited-node group) or an NA (to `dst`). */
static void nd_send(struct roce_dev *d, uint8_t type, const uint8_t *target,
		    const uint8_t *dst_ip, const uint8_t *dst_mac)
{
	struct rte_mbuf *m = roce_tx_mbuf(d);
	uint8_t *f, *ip6, *icmp;
	const uint32_t ilen = 32;     /* header 8, target 16, option 8 */
	uint16_t c;

	if (m == NULL)
		return;
	f = rte_pktmbuf_mtod(m, uint8_t *);
	memset(f, 0, 14 + 40 + ilen);
	memcpy(f, dst_mac, 6);
	memcpy(f + 6, d->mac, 6);
	f[12] = 0x86;
	f[13] = 0xdd;
	ip6 = f + 14;
	ip6[0] = 0x60;
	ip6[5] = (uint8_t)ilen;
	ip6[6] = 58;                  /* ICMPv6 */
	ip6[7] = 255;                 /* hop limit: RFC 4861 requires it */
	memcpy(ip6 + 8, d->gid6, 16);
	memcpy(ip6 + 24, dst_ip, 16);
	icmp = ip6 + 40;
	icmp[0] = type;
	if (type == ND_NA)
		icmp[4] = 0x60;       /* Solicited, Override */
	memcpy(icmp + 8, target, 16);
	icmp[24] = type == ND_NS ? ND_OPT_SLLA : ND_OPT_TLLA;
	icmp[25] = 1;                 /* 8 bytes */
	memcpy(icmp + 26, d->mac, 6);
	c = icmp6_csum(ip6, icmp, ilen);
	icmp[2] = (uint8_t)(c >> 8);
	icmp[3] = (uint8_t)c;
	d->st.arp_tx++;
	roce_tx_commit(d, m, 14 + 40 + (int)ilen);
}

static void nd_solicit(struct roce_dev *d, const uint8_t *target)
{
	uint8_t ip[16] = { 0xff, 0x02, [11] = 0x01, [12] = 0xff };
	uint8_t mac[6] = { 0x33, 0x33, 0xff };

	memcpy(ip + 13, target + 13, 3);
	memcpy(mac + 3, target + 13, 3);
	nd_send(d, ND_NS, target, ip, mac);
}

/* @return true when the frame was ICMPv6 neighbour discovery. */
static bool nd_rx(struct roce_dev *d, const uint8_t *f, uint32_t len)
{
	const uint8_t *ip6 = f + 14, *icmp = f + 54, *opt;
	uint32_t plen, olen;
	uint8_t type;

	if (len < 14 + 40 + 24 || ip6[6] != 58)
		return false;
	plen = (uint32_t)ip6[4] << 8 | ip6[5];
	type = icmp[0];
	if ((type != ND_NS && type != ND_NA) || plen < 24 ||
	    14 + 40 + plen > len)
		return type == ND_NS || type == ND_NA;
	/* RFC 4861 7.1.1/7.1.2: hop limit 255, code 0, valid checksum */
	if (!d->has_ipv6 || ip6[7] != 255 || icmp[1] != 0 ||
	    icmp6_csum(ip6, icmp, plen) != 0)
		return true;
	d->st.arp_rx++;
	/* the link-layer address option, if any */
	opt = NULL;
	for (uint32_t o = 24; o + 8 <= plen; o += olen) {
		olen = icmp[o + 1] * 8u;
		if (olen == 0 || o + olen > plen)
			break;
		if (icmp[o] == (type == ND_NS ? ND_OPT_SLLA : ND_OPT_TLLA))
			opt = icmp + o + 2;
	}
	if (type == ND_NS) {
		static const uint8_t any[16];

		if (memcmp(icmp + 8, d->gid6, 16) != 0)
			return true;
		/* duplicate address detection (source ::) gets no answer
		 * to its unicast address; others are learnt and answered */
		if (memcmp(ip6 + 8, any, 16) == 0)
			return true;
		if (opt != NULL)
			roce_neigh_add(d, ip6 + 8, opt, false);
		nd_send(d, ND_NA, d->gid6, ip6 + 8, opt ? opt : f + 6);
	} else if (opt != NULL && neigh_find(d, icmp + 8) != NULL) {
		roce_neigh_add(d, icmp + 8, opt, false);
	}
	return true;
}

static void arp_send(struct roce_dev *d, uint16_t op, const uint8_t *tha,
		     const uint8_t *tip, const uint8_t *dst)
{
	struct rte_mbuf *m = roce_tx_mbuf(d);
	struct rte_ether_hdr *eh;
	struct rte_arp_hdr *ah;

	if (m == NULL)
		return;
	eh = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	memcpy(&eh->dst_addr, dst, 6);
	memcpy(&eh->src_addr, d->mac, 6);
	eh->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_ARP);
	ah = (struct rte_arp_hdr *)(eh + 1);
	ah->arp_hardware = rte_cpu_to_be_16(RTE_ARP_HRD_ETHER);
	ah->arp_protocol = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	ah->arp_hlen = 6;
	ah->arp_plen = 4;
	ah->arp_opcode = rte_cpu_to_be_16(op);
	memcpy(&ah->arp_data.arp_sha, d->mac, 6);
	memcpy(&ah->arp_data.arp_sip, &d->gid4[12], 4);
	memcpy(&ah->arp_data.arp_tha, tha, 6);
	memcpy(&ah->arp_data.arp_tip, tip, 4);
	/* pad to the Ethernet minimum */
	m->data_len = m->pkt_len = 60;
	memset((uint8_t *)(ah + 1), 0, 60 - sizeof(*eh) - sizeof(*ah));
	d->st.arp_tx++;
	roce_tx_commit(d, m, 60);
}

bool roce_resolve(struct roce_dev *d, const uint8_t *gid, uint8_t *mac)
{
	static const uint8_t zero[6];
	struct roce_neigh *n = neigh_find(d, gid);
	uint64_t now;

	if (n != NULL && n->state >= 2) {
		memcpy(mac, n->mac, 6);
		return true;
	}
	if (roce_gid_is_v4(gid) ? !d->has_ipv4 : !d->has_ipv6)
		return false;        /* no address of that family to ask from */
	now = rte_rdtsc();
	if (n == NULL) {
		n = neigh_slot(d);
		if (n == NULL)
			return false;
		memcpy(n->ip, gid, 16);
		n->state = 1;
		n->last_req = 0;
	}
	if (n->last_req == 0 ||
	    now - n->last_req > d->tsc_hz / 1000 * ROCE_ARP_RETRY_MS) {
		/* a request sent while the link is down is lost (a memif
		 * link comes up a little after the port starts): ask again
		 * at the next run instead of after the retry interval */
		if (!roce_link_up(d))
			return false;
		n->last_req = now;
		if (roce_gid_is_v4(gid))
			arp_send(d, RTE_ARP_OP_REQUEST, zero, &gid[12], bcast);
		else
			nd_solicit(d, gid);
	}
	return false;
}

static void arp_rx(struct roce_dev *d, struct rte_mbuf *m)
{
	struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	struct rte_arp_hdr *ah;
	uint8_t gid[16] = { [10] = 0xff, [11] = 0xff };

	if (m->data_len < sizeof(*eh) + sizeof(*ah) || !d->has_ipv4)
		return;
	ah = (struct rte_arp_hdr *)(eh + 1);
	if (ah->arp_hardware != rte_cpu_to_be_16(RTE_ARP_HRD_ETHER) ||
	    ah->arp_protocol != rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4) ||
	    ah->arp_hlen != 6 || ah->arp_plen != 4)
		return;
	d->st.arp_rx++;
	memcpy(&gid[12], &ah->arp_data.arp_sip, 4);
	if (memcmp(&ah->arp_data.arp_tip, &d->gid4[12], 4) != 0) {
		/* not for us; refresh an entry we already have */
		if (neigh_find(d, gid) != NULL)
			roce_neigh_add(d, gid, ah->arp_data.arp_sha.addr_bytes,
				       false);
		return;
	}
	roce_neigh_add(d, gid, ah->arp_data.arp_sha.addr_bytes, false);
	if (ah->arp_opcode == rte_cpu_to_be_16(RTE_ARP_OP_REQUEST))
		arp_send(d, RTE_ARP_OP_REPLY, ah->arp_data.arp_sha.addr_bytes,
			 (const uint8_t *)&ah->arp_data.arp_sip,
			 ah->arp_data.arp_sha.addr_bytes);
}

/* ---- transmit --------------------------------------------------------- */

/* Before the pool goes: the mbufs the device holds (stash, last burst,
 * frames that never found room in the transmit ring). */
void roce_held_free(struct roce_dev *d)
{
	rte_pktmbuf_free_bulk(d->stash, d->nstash);
	d->nstash = 0;
	rte_pktmbuf_free_bulk(d->rx, d->nrx);
	d->nrx = 0;
	d->st.tx_drops += d->ntx;
	rte_pktmbuf_free_bulk(d->tx, d->ntx);
	d->ntx = 0;
}

/*
 * The port took `sent` of the frames, not all: the rest wait, in order,
 * for the next flush (every engine run ends with one).  A full ring holds
 * the stack back, as a busy link holds an RNIC back, and loses nothing
 * (an RC requester that cannot send keeps its local ACK timer running,
 * and uses retries only while the ring takes nothing: roce_req_timers()).
 * But a ring that has taken nothing for ROCE_TX_STALL_NS (a peer that
 * died or hangs) is treated as a link that is down: the frames waiting
 * are lost, and so is every frame after them until the ring takes one
 * again.  RC requests come again by their timers (and run out of
 * retries); UC and UD ones were complete once built.
 */
static void tx_keep(struct roce_dev *d, uint16_t sent)
{
	if (sent > 0) {
		d->tx_stall_tsc = 0;
	} else if (d->tx_stall_tsc == 0) {
		d->tx_stall_tsc = rte_rdtsc();
	} else if (roce_tx_stalled(d, rte_rdtsc(),
				   roce_ns_to_tsc(d, ROCE_TX_STALL_NS))) {
		d->st.tx_drops += d->ntx;
		rte_pktmbuf_free_bulk(d->tx, d->ntx);
		d->ntx = 0;
		return;
	}
	memmove(d->tx, d->tx + sent,
		(size_t)(d->ntx - sent) * sizeof(d->tx[0]));
	d->ntx -= sent;
}

/*
 * The frames the last receive burst took in, done with: into the stash
 * while it has room, as the next frames to send, when they are plain
 * (one segment of the device's pool, direct, no other reference: what a
 * receive burst gives); the rest back to their pools.  A frame to send
 * then takes an mbuf whose lines this core has just used, and a
 * ping-pong pays neither a free nor a refill per frame.
 */
void roce_rx_release(struct roce_dev *d)
{
	uint16_t k = 0;

	for (uint16_t i = 0; i < d->nrx; i++) {
		struct rte_mbuf *m = d->rx[i];

		if (d->nstash < ROCE_STASH && m->pool == d->pool &&
		    m->nb_segs == 1 && RTE_MBUF_DIRECT(m) &&
		    rte_mbuf_refcnt_read(m) == 1) {
			rte_pktmbuf_reset(m);
			d->stash[d->nstash++] = m;
		} else {
			d->rx[k++] = m;
		}
	}
	if (k > 0)
		rte_pktmbuf_free_bulk(d->rx, k);
	d->nrx = 0;
}

/* Hand the frames built to the port (tx_keep() for those it leaves). */
bool roce_link_up(const struct roce_dev *d)
{
	struct rte_eth_link link;
	struct ifreq ifr;

	if (atomic_load_explicit(&d->removed, memory_order_acquire))
		return false;   /* (its device gone: not asked again) */
	memset(&link, 0, sizeof(link));
	rte_eth_link_get_nowait(d->port_id, &link);
	if (link.link_status != RTE_ETH_LINK_UP)
		return false;
	if (d->kernel_fd < 0)
		return true;
	/* af_packet: the kernel interface up and with a carrier (gone:
	 * down too) */
	memset(&ifr, 0, sizeof(ifr));
	memcpy(ifr.ifr_name, d->ifname, sizeof(d->ifname));
	return ioctl(d->kernel_fd, SIOCGIFFLAGS, &ifr) == 0 &&
	       (ifr.ifr_flags & (IFF_UP | IFF_RUNNING)) ==
	       (IFF_UP | IFF_RUNNING);
}

void roce_tx_flush(struct roce_dev *d)
{
	uint16_t sent;

	d->ntx_bytes = 0;
	if (d->ntx == 0)
		return;
	d->st.tx_bursts++;
	sent = likely(!d->port_down) ?
	       rte_eth_tx_burst(d->port_id, d->queue, d->tx, d->ntx) : 0;
	if (sent > 0)
		d->tx_refused = false;
	if (likely(sent == d->ntx)) {
		d->ntx = 0;
		d->tx_stall_tsc = 0;
	} else {
		tx_keep(d, sent);
	}
	/* half empty: fill it up (all or nothing; an empty pool leaves the
	 * stash as it is and frames take single mbufs) */
	if (d->nstash < ROCE_STASH / 2 &&
	    rte_pktmbuf_alloc_bulk(d->pool, d->stash + d->nstash,
				   ROCE_STASH - d->nstash) == 0)
		d->nstash = ROCE_STASH;
}

/* The slow half of roce_tx_room(): the queue is full; flush it and say
 * whether that made room (a frame put off is counted). */
bool roce_tx_make_room(struct roce_dev *d)
{
	if (!d->tx_refused) {
		roce_tx_flush(d);
		if (d->ntx < ROCE_TX_MAX)
			return true;
		d->tx_refused = true;
	}
	d->st.tx_full++;
	return false;
}

/* The flow's fields of *b: addresses, IP version, UDP source port.  No IP
 * identification: a frame about to be built takes the next one. */
void roce_build_init(struct roce_dev *d, struct roce_qp *rq,
		     struct wire_build *b, const uint8_t *sgid,
		     const uint8_t *dgid)
{
	wire_build_init(b);
	memcpy(b->smac, d->mac, 6);
	memcpy(b->sgid, sgid, 16);
	memcpy(b->dgid, dgid, 16);
	b->ipv6 = !roce_gid_is_v4(dgid);
	b->sport = rq ? rq->sport : wire_udp_sport(1);
}

/* roce_conn_ready() when the MAC or the template is missing. */
bool roce_conn_setup(struct roce_dev *d, struct roce_qp *rq)
{
	const struct pmr_qp_obj *qp = rq->qp;
	const struct pmr_ah_attr *ah = &qp->attr.ah_attr;
	struct wire_build b;

	if (!rq->dmac_valid) {
		if (!roce_resolve(d, ah->grh.dgid.raw, rq->dmac))
			return false;
		rq->dmac_valid = true;
	}
	if (!rq->tmpl_valid) {
		roce_build_init(d, rq, &b,
				qp->ctx->dev->gid[ah->grh.sgid_index].raw,
				ah->grh.dgid.raw);
		memcpy(b.dmac, rq->dmac, 6);
		b.tclass = ah->grh.traffic_class;
		b.dqpn = qp->attr.dest_qp_num;
		wire_tmpl_init(&rq->tmpl, &b);	/* no NULL: cannot fail */
		rq->tmpl_valid = true;
	}
	return true;
}

/*
 * Start a packet of connected QP rq once roce_conn_ready() (callers make
 * sure there is room to send first: roce_tx_room()): *b zeroed but for
 * the IP version, the VLAN tag's presence and the next IP identification;
 * the frame is then written by roce_tx_frame() with rq->tmpl.
 * @return false while the peer's MAC is not known.
 */
bool roce_conn_begin(struct roce_dev *d, struct roce_qp *rq,
		     struct wire_build *b)
{
	if (!roce_conn_ready(d, rq))
		return false;
	wire_tmpl_build_init(b, &rq->tmpl);
	b->ip_id = d->ip_id++;
	return true;
}

/*
 * Allocate an mbuf and write the headers of *b into it, from template t
 * when there is one (roce_conn_begin()).
 * @return the frame start (payload goes at frame + *hdr_len), or NULL:
 * no room to send now (*hdr_len 0; roce_tx_mbuf()), or headers that cannot be
 * built (*hdr_len < 0, logged and counted as dropped: cannot happen).
 */
uint8_t *roce_tx_frame(struct roce_dev *d, struct wire_build *b,
		       const struct wire_tmpl *t, struct rte_mbuf **mp,
		       int *hdr_len)
{
	struct rte_mbuf *m = roce_tx_mbuf(d);
	uint8_t *f;

	*hdr_len = 0;
	if (m == NULL)
		return NULL;
	f = rte_pktmbuf_mtod(m, uint8_t *);
	*hdr_len = t != NULL ? wire_tmpl_hdrs(f, rte_pktmbuf_tailroom(m), t, b) :
		   wire_build_hdrs(f, rte_pktmbuf_tailroom(m), b);
	if (*hdr_len < 0) {
		ROCE_LOG(ERR, "cannot build opcode %u: %s", b->opcode,
			 wire_err_str(*hdr_len));
		d->st.tx_drops++;
		rte_pktmbuf_free(m);
		return NULL;
	}
	*mp = m;
	return f;
}

/* ---- receive ------------------------------------------------------------ */

void roce_rx(struct roce_dev *d, struct pmr_ctx_obj *ctx, struct rte_mbuf *m)
{
	const uint8_t *f;
	struct wire_pkt p;
	struct pmr_qp_obj *qp;
	struct roce_qp *rq;
	int ret;

	d->st.rx_pkts++;
	d->st.rx_bytes += m->pkt_len;
	if (m->nb_segs != 1) {
		/* frames larger than one mbuf are not expected: drop */
		d->st.rx_drop_malformed++;
		return;
	}
	f = rte_pktmbuf_mtod(m, const uint8_t *);
	if (m->data_len >= 14 && f[12] == 0x08 && f[13] == 0x06) {
		arp_rx(d, m);
		return;
	}
	if (m->data_len >= 14 && f[12] == 0x86 && f[13] == 0xdd &&
	    nd_rx(d, f, m->data_len))
		return;
	/* the port is promiscuous: a frame for another host is dropped
	 * before any parsing or ICRC work */
	if (m->data_len < 14 || memcmp(f, d->mac, 6) != 0) {
		d->st.rx_drop_not_roce++;
		return;
	}
	ret = wire_parse(f, m->data_len, 0, &p);
	if (ret != 0) {
		if (ret == WIRE_ERR_NOT_IP || ret == WIRE_ERR_NOT_ROCE)
			d->st.rx_drop_not_roce++;
		else if (ret == WIRE_ERR_BAD_ICRC)
			d->st.rx_drop_icrc++;
		else
			d->st.rx_drop_malformed++;
		return;
	}
	if (!roce_gid_ours(ctx->dev, p.dgid)) {
		d->st.rx_drop_not_roce++;
		return;
	}
	if (p.info->transport == WIRE_TRANSPORT_CNP) {
		return;              /* congestion control: not implemented */
	}
	qp = pmr_dev_qp(ctx->dev, p.dqpn);
	if (qp == NULL || qp->ctx != ctx) {
		d->st.rx_drop_unknown_qp++;
		return;
	}
	rq = roce_qp_of(qp);
	if ((p.info->transport == WIRE_TRANSPORT_RC &&
	     qp->pub.qp_type != PMR_QPT_RC) ||
	    (p.info->transport == WIRE_TRANSPORT_UC &&
	     qp->pub.qp_type != PMR_QPT_UC) ||
	    (p.info->transport == WIRE_TRANSPORT_UD &&
	     qp->pub.qp_type != PMR_QPT_UD)) {
		d->st.rx_drop_malformed++;
		return;
	}
	/* learn the peer's MAC from its traffic (it reached us) */
	if (!rq->dmac_valid &&
	    memcmp(p.sgid, qp->attr.ah_attr.grh.dgid.raw, 16) == 0)
		roce_neigh_add(d, p.sgid, p.smac, false);
	rq->st.rx_pkts++;
	rq->st.rx_bytes += p.payload_len;
	roce_qp_activate(d, rq);     /* replies to send, window to refill */
	if (p.info->flags & WIRE_OPF_REQ)
		roce_resp_rx(d, rq, f, &p);
	else
		roce_comp_rx(d, rq, f, &p);
}
