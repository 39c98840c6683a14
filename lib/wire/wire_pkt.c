/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RoCEv2 frame parser: Ethernet [802.1Q] / IPv4 or IPv6 / UDP 4791 / BTH /
 * extension headers / payload / pad / ICRC.  See wire_parse() in wire.h for
 * what is checked.  Every read is bounds-checked against the frame length
 * first; lengths are compared by subtraction so nothing can overflow.
 */
#include <string.h>

#include "wire.h"

static const char *const err_names[WIRE_ERR_COUNT] = {
	[0] = "ok",
	[-WIRE_ERR_TRUNCATED] = "frame truncated",
	[-WIRE_ERR_NOT_IP] = "not IPv4/IPv6",
	[-WIRE_ERR_NOT_ROCE] = "not RoCEv2 (UDP port 4791)",
	[-WIRE_ERR_BAD_IP] = "malformed IP header",
	[-WIRE_ERR_BAD_IP_CSUM] = "bad IPv4 header checksum",
	[-WIRE_ERR_BAD_UDP] = "bad UDP length",
	[-WIRE_ERR_BAD_VERSION] = "bad BTH transport version",
	[-WIRE_ERR_BAD_OPCODE] = "unknown BTH opcode",
	[-WIRE_ERR_BAD_LENGTH] = "bad transport length or pad",
	[-WIRE_ERR_BAD_ICRC] = "bad ICRC",
	[-WIRE_ERR_INVAL] = "invalid argument",
	[-WIRE_ERR_NOSPC] = "buffer too small",
};

const char *wire_err_str(int err)
{
	if (err > 0 || err <= -WIRE_ERR_COUNT || !err_names[-err])
		return "unknown error";
	return err_names[-err];
}

/*
 * One's complement sum of the ten 16-bit words of an IPv4 header, folded;
 * with skip_csum, without the checksum word.  Summed as five 32-bit words
 * in host order (the sum of byte-swapped words is the byte-swapped sum),
 * the checksum word taken out again by adding its complement.
 */
static uint16_t ipv4_sum(const uint8_t *h, bool skip_csum)
{
	uint64_t sum;
	uint32_t w[5];
	uint16_t c;

	_Static_assert(sizeof(w) == WIRE_IPV4_LEN, "five 32-bit words");
	memcpy(w, h, sizeof(w));
	sum = (uint64_t)w[0] + w[1] + w[2] + w[3] + w[4];
	if (skip_csum) {
		memcpy(&c, h + 10, sizeof(c));
		sum += (uint16_t)~c;
	}
	sum = (sum & 0xFFFFFFFFu) + (sum >> 32);
	sum = (sum & 0xFFFFu) + (sum >> 16);
	sum = (sum & 0xFFFFu) + (sum >> 16);
	sum = (sum & 0xFFFFu) + (sum >> 16);
	c = (uint16_t)sum;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	c = (uint16_t)(c << 8 | c >> 8);
#endif
	return c;
}

uint16_t wire_ipv4_csum(const void *ip)
{
	return (uint16_t)~ipv4_sum(ip, true);
}

static void gid_from_ipv4(uint8_t gid[16], const uint8_t addr[4])
{
	memset(gid, 0, 10);
	gid[10] = 0xFF;
	gid[11] = 0xFF;
	memcpy(gid + 12, addr, 4);
}

/*
 * IPv4 at frame + off.  On success sets *ip_end (offset of the end of the
 * datagram) and the L3 fields of out.
 */
static int parse_ipv4(const uint8_t *frame, size_t len, size_t off,
		      unsigned flags, struct wire_pkt *out, size_t *ip_end)
{
	const struct wire_ipv4 *ip;
	size_t ihl, tot;
	uint16_t frag;

	if (len - off < WIRE_IPV4_LEN)
		return WIRE_ERR_TRUNCATED;
	ip = (const struct wire_ipv4 *)(const void *)(frame + off);
	if ((ip->ver_ihl >> 4) != 4)
		return WIRE_ERR_BAD_IP;
	ihl = (size_t)(ip->ver_ihl & 0x0F) * 4;
	if (ihl < WIRE_IPV4_LEN)
		return WIRE_ERR_BAD_IP;
	/* Classify first (is it for us at all?), then validate. */
	if (ip->proto != WIRE_IPPROTO_UDP)
		return WIRE_ERR_NOT_ROCE;
	frag = wire_get16(ip->frag);
	if (frag & WIRE_IPV4_OFF)	/* a later fragment: no UDP header */
		return WIRE_ERR_NOT_ROCE;
	if (len - off < ihl + WIRE_UDP_LEN)
		return WIRE_ERR_TRUNCATED;
	if (wire_get16(frame + off + ihl + 2) != WIRE_ROCE_UDP_PORT)
		return WIRE_ERR_NOT_ROCE;
	/* RoCEv2 over IPv4: no options, never fragmented. */
	if (ihl != WIRE_IPV4_LEN || (frag & WIRE_IPV4_MF))
		return WIRE_ERR_BAD_IP;
	tot = wire_get16(ip->tot_len);
	if (tot < WIRE_IPV4_LEN + WIRE_UDP_LEN)
		return WIRE_ERR_BAD_IP;
	if (tot > len - off)
		return WIRE_ERR_TRUNCATED;
	if (!(flags & WIRE_PARSE_NO_IP_CSUM) && ipv4_sum(frame + off, false) != 0xFFFF)
		return WIRE_ERR_BAD_IP_CSUM;

	out->ip_ver = 4;
	out->tclass = ip->tos;
	out->ttl = ip->ttl;
	gid_from_ipv4(out->sgid, ip->saddr);
	gid_from_ipv4(out->dgid, ip->daddr);
	*ip_end = off + tot;
	return 0;
}

static int parse_ipv6(const uint8_t *frame, size_t len, size_t off,
		      struct wire_pkt *out, size_t *ip_end)
{
	const struct wire_ipv6 *ip;
	uint32_t vtcfl;
	size_t plen;

	if (len - off < WIRE_IPV6_LEN)
		return WIRE_ERR_TRUNCATED;
	ip = (const struct wire_ipv6 *)(const void *)(frame + off);
	vtcfl = wire_get32(ip->vtcfl);
	if ((vtcfl >> 28) != 6)
		return WIRE_ERR_BAD_IP;
	/* RoCEv2 uses no IPv6 extension headers. */
	if (ip->nxt != WIRE_IPPROTO_UDP)
		return WIRE_ERR_NOT_ROCE;
	if (len - off < WIRE_IPV6_LEN + WIRE_UDP_LEN)
		return WIRE_ERR_TRUNCATED;
	if (wire_get16(frame + off + WIRE_IPV6_LEN + 2) != WIRE_ROCE_UDP_PORT)
		return WIRE_ERR_NOT_ROCE;
	plen = wire_get16(ip->plen);
	if (plen < WIRE_UDP_LEN)	/* includes 0, a jumbogram */
		return WIRE_ERR_BAD_IP;
	if (plen > len - off - WIRE_IPV6_LEN)
		return WIRE_ERR_TRUNCATED;

	out->ip_ver = 6;
	out->tclass = (uint8_t)(vtcfl >> 20);
	out->flow_label = vtcfl & 0xFFFFF;
	out->ttl = ip->hlim;
	memcpy(out->sgid, ip->saddr, 16);
	memcpy(out->dgid, ip->daddr, 16);
	*ip_end = off + WIRE_IPV6_LEN + plen;
	return 0;
}

int wire_parse(const uint8_t *frame, size_t len, unsigned flags,
	       struct wire_pkt *out)
{
	const struct wire_opcode_info *info;
	const struct wire_bth *bth;
	size_t off, ip_end, udp_off, bth_off, avail, rest;
	uint16_t etype;
	int rc;

	if (!frame || !out)
		return WIRE_ERR_INVAL;
	/* every field is written below on success: no zeroing of the whole
	 * result first (the fields only some frames have are set here) */
	out->has_vlan = false;
	out->vlan_tci = 0;
	out->flow_label = 0;

	/* Ethernet, at most one 802.1Q tag */
	if (len < WIRE_ETH_LEN)
		return WIRE_ERR_TRUNCATED;
	memcpy(out->dmac, frame, 6);
	memcpy(out->smac, frame + 6, 6);
	etype = wire_get16(frame + 12);
	off = WIRE_ETH_LEN;
	if (etype == WIRE_ETHERTYPE_VLAN) {
		if (len < WIRE_ETH_LEN + WIRE_VLAN_LEN)
			return WIRE_ERR_TRUNCATED;
		out->has_vlan = true;
		out->vlan_tci = wire_get16(frame + 14);
		etype = wire_get16(frame + 16);
		off += WIRE_VLAN_LEN;
	}

	/* IP: sets ip_end, the end of the datagram (before any Ethernet pad) */
	if (etype == WIRE_ETHERTYPE_IPV4) {
		rc = parse_ipv4(frame, len, off, flags, out, &ip_end);
		udp_off = off + WIRE_IPV4_LEN;
	} else if (etype == WIRE_ETHERTYPE_IPV6) {
		rc = parse_ipv6(frame, len, off, out, &ip_end);
		udp_off = off + WIRE_IPV6_LEN;
	} else {
		return WIRE_ERR_NOT_IP;
	}
	if (rc)
		return rc;
	out->ip_off = (uint16_t)off;

	/* UDP: the IP layer guaranteed its 8 bytes are inside the datagram */
	if (wire_get16(frame + udp_off + 4) != ip_end - udp_off)
		return WIRE_ERR_BAD_UDP;
	out->udp_off = (uint16_t)udp_off;
	out->sport = wire_get16(frame + udp_off);

	/* ICRC over everything from the IP header on, before trusting the BTH */
	bth_off = udp_off + WIRE_UDP_LEN;
	avail = ip_end - bth_off;	/* BTH ... ICRC */
	if (avail < WIRE_BTH_LEN + WIRE_ICRC_LEN)
		return WIRE_ERR_BAD_LENGTH;
	if (!(flags & WIRE_PARSE_NO_ICRC) &&
	    wire_icrc_check(frame + off, ip_end - WIRE_ICRC_LEN - off) != 0)
		return WIRE_ERR_BAD_ICRC;
	out->frame_len = (uint32_t)ip_end;

	/* BTH */
	bth = (const struct wire_bth *)(const void *)(frame + bth_off);
	out->bth_off = (uint16_t)bth_off;
	if (wire_bth_tver(bth) != 0)
		return WIRE_ERR_BAD_VERSION;
	out->opcode = wire_bth_opcode(bth);
	info = wire_opcode_info(out->opcode);
	if (!info)
		return WIRE_ERR_BAD_OPCODE;
	out->info = info;
	out->se = wire_bth_se(bth);
	out->mig = wire_bth_mig(bth);
	out->pad = (uint8_t)wire_bth_pad(bth);
	out->pkey = wire_bth_pkey(bth);
	out->fecn = wire_bth_fecn(bth);
	out->becn = wire_bth_becn(bth);
	out->dqpn = wire_bth_qpn(bth);
	out->ackreq = wire_bth_ackreq(bth);
	out->psn = wire_bth_psn(bth);

	/* extension headers, payload, pad */
	if (avail - WIRE_ICRC_LEN < info->hdr_len)
		return WIRE_ERR_BAD_LENGTH;
	rest = avail - WIRE_ICRC_LEN - info->hdr_len;	/* payload + pad */
	if (rest & 3)
		return WIRE_ERR_BAD_LENGTH;
	if (rest && !(info->flags & WIRE_OPF_PAYLOAD))
		return WIRE_ERR_BAD_LENGTH;
	if (out->pad > rest)
		return WIRE_ERR_BAD_LENGTH;
	/* most packets carry no extension header or one: zero the table,
	 * then set the ones there are */
	memset(out->hdr_off, 0, sizeof(out->hdr_off));
	for (unsigned m = info->hdrs; m != 0; m &= m - 1) {
		unsigned h = (unsigned)__builtin_ctz(m);

		out->hdr_off[h] = (uint16_t)(bth_off + info->off[h]);
	}
	out->payload_off = (uint16_t)(bth_off + info->hdr_len);
	out->payload_len = (uint32_t)(rest - out->pad);
	return 0;
}
