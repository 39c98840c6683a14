/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IPv6 neighbour solicitations the RoCE device receives, at the edges of
 * the RFC 4861 checks: one that passes is answered with one
 * advertisement, its sender learnt; one whose ICMPv6 length is below 24
 * octets, one that claims more bytes than the frame has, and one with a
 * wrong checksum get no answer and count nothing; one of an odd length
 * (a byte after its option) with the right checksum, computed over the
 * odd byte, is answered.
 *
 * One process, a RoCE device with an IPv6 address on a port made of two
 * rte_rings the program holds (ringport.c): the program puts the
 * solicitations on the receive ring and reads the transmit ring.
 *
 *   nd_rx           run by ring.sh (EAL arguments, the configuration)
 */
#include <stdio.h>
#include <string.h>

#include <rte_mbuf.h>
#include <rte_ring.h>

#include <pmr_roce.h>
#include <pmr_verbs.h>

#include "ringport.h"
#include "vt.h"

#define NET 0x61

static struct ringport rp;
static struct vt v;
static struct rte_mempool *own;

/* fd00::61, the device's; fd00::2, the soliciting host's */
static const uint8_t dev_ip[16] = { 0xfd, [15] = NET };
static const uint8_t host_ip[16] = { 0xfd, [15] = 2 };
static const uint8_t host_mac[6] = { 0x02, 0, 0, 0, 0x61, 0x02 };

static uint32_t sum16(uint32_t s, const uint8_t *p, uint32_t len)
{
	for (uint32_t i = 0; i < len; i++)
		s += i % 2 ? p[i] : (uint32_t)p[i] << 8;
	return s;
}

/*
 * A solicitation for the device's address with a source link-layer
 * address option: `extra` bytes after the option, its IPv6 payload
 * length `plen` (0: the true one), the checksum broken when `bad`, the
 * frame cut to `cut` bytes (0: whole).
 */
static void ns(uint32_t extra, uint32_t plen, bool bad, uint32_t cut)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(own);
	uint32_t ilen = 32 + extra, flen = 14 + 40 + ilen, s;
	uint8_t *f, *ip6, *icmp;

	CHECK(m != NULL);
	f = rte_pktmbuf_mtod(m, uint8_t *);
	memset(f, 0, flen);
	memcpy(f, rp.mac, 6);
	memcpy(f + 6, host_mac, 6);
	f[12] = 0x86;
	f[13] = 0xdd;
	ip6 = f + 14;
	ip6[0] = 0x60;
	ip6[4] = (uint8_t)((plen ? plen : ilen) >> 8);
	ip6[5] = (uint8_t)(plen ? plen : ilen);
	ip6[6] = 58;
	ip6[7] = 255;
	memcpy(ip6 + 8, host_ip, 16);
	memcpy(ip6 + 24, dev_ip, 16);
	icmp = ip6 + 40;
	icmp[0] = 135;
	memcpy(icmp + 8, dev_ip, 16);
	icmp[24] = 1;           /* source link-layer address, 8 bytes */
	icmp[25] = 1;
	memcpy(icmp + 26, host_mac, 6);
	for (uint32_t i = 32; i < ilen; i++)
		icmp[i] = 0xA5;
	s = sum16(0, ip6 + 8, 32) + (ilen >> 16) + (ilen & 0xffff) + 58;
	s = sum16(s, icmp, ilen);
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	s = ~s & 0xffff;
	if (bad)
		s ^= 0x0101;
	icmp[2] = (uint8_t)(s >> 8);
	icmp[3] = (uint8_t)s;
	m->data_len = (uint16_t)(cut ? cut : flen);
	m->pkt_len = m->data_len;
	CHECK_EQ(rte_ring_enqueue(rp.rx, m), 0);
}

/* Runs the engine: @return the advertisements for the device's address
 * it sent to the host (every frame it sent taken off the ring). */
static unsigned int answers(void)
{
	void *o;
	unsigned int n = 0;

	CHECK(pmr_progress(v.ctx, 64) >= 0);
	while (rte_ring_dequeue(rp.tx, &o) == 0) {
		struct rte_mbuf *m = o;
		const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *);

		if (m->data_len >= 14 + 40 + 24 && f[12] == 0x86 &&
		    f[13] == 0xdd && f[14 + 6] == 58 && f[54] == 136 &&
		    memcmp(f, host_mac, 6) == 0 &&
		    memcmp(f + 14 + 24, host_ip, 16) == 0 &&
		    memcmp(f + 54 + 8, dev_ip, 16) == 0)
			n++;
		rte_pktmbuf_free(m);
	}
	return n;
}

static uint64_t nd_rx_count(void)
{
	struct pmr_roce_port_stats ps;

	CHECK_EQ(pmr_roce_port_stats(v.dev, &ps), 0);
	return ps.arp_rx;
}

int main(void)
{
	static const struct {
		const char *what;
		uint32_t extra, plen;
		bool bad;
		uint32_t cut;
		unsigned int answered;
	} cases[] = {
		{ "a solicitation", 0, 0, false, 0, 1 },
		{ "ICMPv6 length 22", 0, 22, false, 0, 0 },
		{ "longer than its frame", 0, 0, false, 14 + 40 + 28, 0 },
		{ "a wrong checksum", 0, 0, true, 0, 0 },
		{ "odd length, its checksum right", 1, 0, false, 0, 1 },
		{ "odd length, its checksum wrong", 1, 0, true, 0, 0 },
		{ "a solicitation again", 0, 0, false, 0, 1 },
	};
	struct pmr_device *dev;

	ringport_eal_init();
	own = rte_pktmbuf_pool_create("nd_own", 63, 0, 0,
				      RTE_MBUF_DEFAULT_BUF_SIZE,
				      (int)rte_socket_id());
	CHECK(own != NULL);
	dev = ringport_device_args(&rp, "nd", 64, NET, ",ipv6=fd00::61");
	CHECK(dev != NULL);
	vt_open_dev(&v, dev);
	answers();

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t before = nd_rx_count();
		unsigned int n;

		ns(cases[i].extra, cases[i].plen, cases[i].bad, cases[i].cut);
		n = answers();
		EXPECT_EQ_MSG(n, cases[i].answered, "%s: advertisements",
			      cases[i].what);
		EXPECT_EQ_MSG(nd_rx_count() - before, cases[i].answered,
			      "%s: counted in arp_rx", cases[i].what);
	}
	vt_close(&v);
	return vt_exit();
}
