/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RoCEv2 frame builder: the header stack for one packet, then the trailer
 * (pad, lengths, IPv4 checksum, ICRC) once the payload is in place.
 */
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "wire.h"

/* Zeroed with vector stores where there are some: compilers turn a memset
 * (or a copy of a mostly zero template) of this size into "rep stos",
 * slow to start, and this runs once per transmitted frame. */
void wire_build_init(struct wire_build *b)
{
#if defined(__SSE2__)
	_Static_assert(sizeof(*b) % 8 == 0, "whole 8-byte words");
	uint8_t *p = (uint8_t *)b;
	size_t i;

	for (i = 0; i + 16 <= sizeof(*b); i += 16) {
		_mm_storeu_si128((__m128i *)(void *)(p + i), _mm_setzero_si128());
		__asm__ volatile("" ::: "memory");  /* stays a loop of stores */
	}
	if (i < sizeof(*b))
		_mm_storel_epi64((__m128i *)(void *)(p + i), _mm_setzero_si128());
#else
	memset(b, 0, sizeof(*b));
#endif
	b->ttl = WIRE_TTL_DEFAULT;
	b->pkey = WIRE_PKEY_DEFAULT;
}

static void put_ext_hdrs(uint8_t *bth, const struct wire_opcode_info *info,
			 const struct wire_build *b)
{
	/* Every field below is written whole; the reserved bytes (DETH's,
	 * a CNP's 16) are zeroed where they are.  No memset of the variable
	 * length: it becomes "rep stos", slow to start, once per frame. */
	if (info->hdrs == 0 && !(info->flags & WIRE_OPF_CNP))
		return;                 /* the BTH alone: most packets */
	if (info->flags & WIRE_OPF_CNP)
		memset(bth + WIRE_BTH_LEN, 0, WIRE_CNP_RSVD_LEN);

	if (info->hdrs & WIRE_HM_RETH) {
		struct wire_reth *h = (void *)(bth + info->off[WIRE_HDR_RETH]);

		wire_reth_set_va(h, b->va);
		wire_reth_set_rkey(h, b->rkey);
		wire_reth_set_len(h, b->dma_len);
	}
	if (info->hdrs & WIRE_HM_AETH) {
		struct wire_aeth *h = (void *)(bth + info->off[WIRE_HDR_AETH]);

		wire_aeth_set_syn(h, b->syndrome);
		wire_aeth_set_msn(h, b->msn);
	}
	if (info->hdrs & WIRE_HM_ATMETH) {
		struct wire_atmeth *h = (void *)(bth + info->off[WIRE_HDR_ATMETH]);

		wire_atmeth_set_va(h, b->va);
		wire_atmeth_set_rkey(h, b->rkey);
		wire_atmeth_set_swap_add(h, b->swap_add);
		wire_atmeth_set_compare(h, b->compare);
	}
	if (info->hdrs & WIRE_HM_ATMACK) {
		struct wire_atmack *h = (void *)(bth + info->off[WIRE_HDR_ATMACK]);

		wire_atmack_set_orig(h, b->orig);
	}
	if (info->hdrs & WIRE_HM_IMMDT) {
		struct wire_immdt *h = (void *)(bth + info->off[WIRE_HDR_IMMDT]);

		wire_immdt_set_imm(h, b->imm);
	}
	if (info->hdrs & WIRE_HM_IETH) {
		struct wire_ieth *h = (void *)(bth + info->off[WIRE_HDR_IETH]);

		wire_ieth_set_rkey(h, b->inv_rkey);
	}
	if (info->hdrs & WIRE_HM_DETH) {
		struct wire_deth *h = (void *)(bth + info->off[WIRE_HDR_DETH]);

		wire_deth_set_qkey(h, b->qkey);
		h->rsvd = 0;
		wire_deth_set_sqp(h, b->src_qpn);
	}
}

/*
 * The IPv4 header checksum of the header wire_build_hdrs() writes, from the
 * values rather than from the bytes just stored (reading those back would
 * wait for the stores): the words fixed for a flow here, then total length
 * and identification added and the sum folded by csum_fold().
 */
static uint32_t ipv4_csum_base(const struct wire_build *b)
{
	return (0x45u << 8 | b->tclass) + WIRE_IPV4_DF +
	       ((uint32_t)b->ttl << 8 | WIRE_IPPROTO_UDP) +
	       wire_get16(b->sgid + 12) + wire_get16(b->sgid + 14) +
	       wire_get16(b->dgid + 12) + wire_get16(b->dgid + 14);
}

static uint16_t csum_fold(uint32_t sum)
{
	sum = (sum & 0xFFFF) + (sum >> 16);
	sum = (sum & 0xFFFF) + (sum >> 16);
	return (uint16_t)~sum;
}

/*
 * The checks both builders make, for headers whose IP header starts at
 * ip_off.  @return the header length, or a WIRE_ERR_*; *udp_len the UDP
 * length of the frame.
 */
static inline int hdr_lengths(const struct wire_build *b, bool ipv6,
			      size_t ip_off, size_t cap,
			      const struct wire_opcode_info **info,
			      size_t *udp_len)
{
	size_t hdr_len;

	*info = wire_opcode_info(b->opcode);
	if (!*info)
		return WIRE_ERR_BAD_OPCODE;
	if (b->payload_len && !((*info)->flags & WIRE_OPF_PAYLOAD))
		return WIRE_ERR_INVAL;
	/* the IP datagram must fit its 16-bit length field */
	if (b->payload_len > 0xFFFF)
		return WIRE_ERR_INVAL;
	*udp_len = WIRE_UDP_LEN + (*info)->hdr_len + b->payload_len +
		   wire_pad_len(b->payload_len) + WIRE_ICRC_LEN;
	if (*udp_len > 0xFFFF - (ipv6 ? 0 : WIRE_IPV4_LEN))
		return WIRE_ERR_INVAL;
	hdr_len = ip_off + (ipv6 ? WIRE_IPV6_LEN : WIRE_IPV4_LEN) +
		  WIRE_UDP_LEN + (*info)->hdr_len;
	if (cap < hdr_len)
		return WIRE_ERR_NOSPC;
	return (int)hdr_len;
}

/* The BTH fields that change from packet to packet. */
static void put_bth(struct wire_bth *bth, uint8_t opcode, bool se,
		    bool ackreq, uint32_t psn, uint32_t payload_len,
		    uint8_t mig)
{
	bth->opcode = opcode;
	bth->flags = (uint8_t)((se ? WIRE_BTH_SE : 0) | mig |
			       wire_pad_len(payload_len) << 4); /* TVer 0 */
	bth->ack = ackreq ? WIRE_BTH_ACKREQ : 0;
	wire_put24(bth->psn, psn);
}

static void put_bth_var(struct wire_bth *bth, const struct wire_build *b,
			uint8_t mig)
{
	put_bth(bth, b->opcode, b->se, b->ackreq, b->psn, b->payload_len,
		mig);
}

int wire_build_hdrs(uint8_t *buf, size_t cap, const struct wire_build *b)
{
	const struct wire_opcode_info *info;
	size_t l2, l3, udp_len;
	int hdr_len;
	uint8_t *p;

	if (!buf || !b)
		return WIRE_ERR_INVAL;
	l2 = WIRE_ETH_LEN + (b->vlan ? WIRE_VLAN_LEN : 0);
	l3 = b->ipv6 ? WIRE_IPV6_LEN : WIRE_IPV4_LEN;
	hdr_len = hdr_lengths(b, b->ipv6, l2, cap, &info, &udp_len);
	if (hdr_len < 0)
		return hdr_len;

	/* Ethernet [+ 802.1Q] */
	p = buf;
	memcpy(p, b->dmac, 6);
	memcpy(p + 6, b->smac, 6);
	if (b->vlan) {
		wire_put16(p + 12, WIRE_ETHERTYPE_VLAN);
		wire_put16(p + 14, b->vlan_tci);
		p += WIRE_VLAN_LEN;
	}
	wire_put16(p + 12, b->ipv6 ? WIRE_ETHERTYPE_IPV6 : WIRE_ETHERTYPE_IPV4);
	p += WIRE_ETH_LEN;

	/* IP */
	if (b->ipv6) {
		struct wire_ipv6 *ip = (void *)p;

		wire_put32(ip->vtcfl, 6u << 28 | (uint32_t)b->tclass << 20 |
				      (b->flow_label & 0xFFFFF));
		wire_put16(ip->plen, (uint16_t)udp_len);
		ip->nxt = WIRE_IPPROTO_UDP;
		ip->hlim = b->ttl;
		memcpy(ip->saddr, b->sgid, 16);
		memcpy(ip->daddr, b->dgid, 16);
	} else {
		struct wire_ipv4 *ip = (void *)p;
		uint16_t tot = (uint16_t)(WIRE_IPV4_LEN + udp_len);

		ip->ver_ihl = 0x45;
		ip->tos = b->tclass;
		wire_put16(ip->tot_len, tot);
		wire_put16(ip->id, b->ip_id);
		wire_put16(ip->frag, WIRE_IPV4_DF);
		ip->ttl = b->ttl;
		ip->proto = WIRE_IPPROTO_UDP;
		memcpy(ip->saddr, b->sgid + 12, 4);
		memcpy(ip->daddr, b->dgid + 12, 4);
		wire_put16(ip->csum, csum_fold(ipv4_csum_base(b) + tot +
					       b->ip_id));
	}
	p += l3;

	/* UDP: checksum 0, as soft-RoCE (the ICRC protects the payload) */
	{
		struct wire_udp *udp = (void *)p;

		wire_put16(udp->sport, b->sport);
		wire_put16(udp->dport, WIRE_ROCE_UDP_PORT);
		wire_put16(udp->len, (uint16_t)udp_len);
		wire_put16(udp->csum, 0);
	}
	p += WIRE_UDP_LEN;

	/* BTH */
	{
		struct wire_bth *bth = (void *)p;

		put_bth_var(bth, b, b->mig ? WIRE_BTH_MIG : 0);
		wire_put16(bth->pkey, b->pkey);
		bth->fbr = (uint8_t)((b->fecn ? WIRE_BTH_FECN : 0) |
				     (b->becn ? WIRE_BTH_BECN : 0));
		wire_put24(bth->qpn, b->dqpn);
		put_ext_hdrs(p, info, b);
	}
	return hdr_len;
}

int wire_tmpl_init(struct wire_tmpl *t, const struct wire_build *b)
{
	struct wire_build f;
	int rc;

	if (!t || !b)
		return WIRE_ERR_INVAL;
	memset(t, 0, sizeof(*t));
	f = *b;
	f.opcode = WIRE_OP_RC_SEND_ONLY;	/* BTH only */
	f.payload_len = 0;
	rc = wire_build_hdrs(t->hdr, sizeof(t->hdr), &f);
	if (rc < 0)
		return rc;
	t->ip_off = (uint8_t)(WIRE_ETH_LEN + (b->vlan ? WIRE_VLAN_LEN : 0));
	t->ipv6 = b->ipv6;
	t->bth_off = (uint8_t)(t->ip_off + (b->ipv6 ? WIRE_IPV6_LEN :
					    WIRE_IPV4_LEN) + WIRE_UDP_LEN);
	t->csum_base = ipv4_csum_base(b);
	return 0;
}

/* The fields of a frame copied from template t that depend on its UDP
 * length and IP identification: IP and UDP lengths, IPv4 checksum. */
static inline void tmpl_lengths(uint8_t *buf, const struct wire_tmpl *t,
				size_t udp_len, uint16_t ip_id)
{
	uint8_t *ip = buf + t->ip_off;

	if (t->ipv6) {
		wire_put16(((struct wire_ipv6 *)(void *)ip)->plen,
			   (uint16_t)udp_len);
	} else {
		struct wire_ipv4 *ip4 = (void *)ip;
		uint16_t tot = (uint16_t)(WIRE_IPV4_LEN + udp_len);

		wire_put16(ip4->tot_len, tot);
		wire_put16(ip4->id, ip_id);
		wire_put16(ip4->csum, csum_fold(t->csum_base + tot + ip_id));
	}
	wire_put16(buf + t->bth_off - WIRE_UDP_LEN + 4, (uint16_t)udp_len);
}

/* The template's headers at buf: a copy of constant size where it fits (a
 * few vector moves; what it writes past the headers is payload space,
 * written after), else up to the BTH. */
static void tmpl_copy(uint8_t *buf, size_t cap, const struct wire_tmpl *t)
{
	if (cap >= sizeof(t->hdr))
		memcpy(buf, t->hdr, sizeof(t->hdr));
	else
		memcpy(buf, t->hdr, (size_t)t->bth_off + WIRE_BTH_LEN);
}

int wire_tmpl_hdrs(uint8_t *buf, size_t cap, const struct wire_tmpl *t,
		   const struct wire_build *b)
{
	const struct wire_opcode_info *info;
	size_t udp_len;
	uint8_t *bth;
	int hdr_len;

	if (!buf || !t || !b)
		return WIRE_ERR_INVAL;
	hdr_len = hdr_lengths(b, t->ipv6, t->ip_off, cap, &info, &udp_len);
	if (hdr_len < 0)
		return hdr_len;
	tmpl_copy(buf, cap, t);
	tmpl_lengths(buf, t, udp_len, b->ip_id);
	bth = buf + t->bth_off;
	put_bth_var((struct wire_bth *)(void *)bth, b,
		    t->hdr[t->bth_off + 1] & WIRE_BTH_MIG);
	put_ext_hdrs(bth, info, b);
	return hdr_len;
}

void wire_tmpl_build_init(struct wire_build *b, const struct wire_tmpl *t)
{
	wire_build_init(b);
	b->ipv6 = t->ipv6;
	b->vlan = t->ip_off != WIRE_ETH_LEN;
}

/* The end of a frame whose len bytes are written: zero pad, then the ICRC
 * over the IP datagram.  Callers have checked that pad and ICRC fit, so
 * the pad (at most 3 bytes) is zeroed with one 4-byte store into room the
 * ICRC then takes.  @return the frame length. */
static int pad_and_icrc(uint8_t *buf, size_t ip_off, size_t len,
			unsigned int pad)
{
	memset(buf + len, 0, WIRE_ICRC_LEN);
	wire_icrc_write(buf + ip_off, len + pad - ip_off);
	return (int)(len + pad + WIRE_ICRC_LEN);
}

/*
 * The layout of the len bytes at buf up to the BTH: *ip_off, *udp_off and
 * whether the IP header is IPv4.  @return false unless buf holds Ethernet
 * [+ 802.1Q] + IPv4 without options or IPv6 + UDP + a BTH.
 */
static bool frame_layout(const uint8_t *buf, size_t len, size_t *ip_off,
			 size_t *udp_off, bool *v4)
{
	uint16_t etype;

	if (!buf || len < WIRE_ETH_LEN)
		return false;
	*ip_off = WIRE_ETH_LEN;
	etype = wire_get16(buf + 12);
	if (etype == WIRE_ETHERTYPE_VLAN) {
		if (len < WIRE_ETH_LEN + WIRE_VLAN_LEN)
			return false;
		etype = wire_get16(buf + 16);
		*ip_off += WIRE_VLAN_LEN;
	}
	*v4 = etype == WIRE_ETHERTYPE_IPV4;
	if (!*v4 && etype != WIRE_ETHERTYPE_IPV6)
		return false;
	*udp_off = *ip_off + (*v4 ? WIRE_IPV4_LEN : WIRE_IPV6_LEN);
	if (len < *udp_off + WIRE_UDP_LEN + WIRE_BTH_LEN)
		return false;
	return *v4 ? buf[*ip_off] == 0x45 : (buf[*ip_off] >> 4) == 6;
}

/* The IP and UDP lengths of a frame of total bytes (through the ICRC),
 * the IPv4 header checksum, UDP checksum 0. */
static void set_lengths(uint8_t *buf, size_t ip_off, size_t udp_off,
			bool v4, size_t total)
{
	if (v4) {
		struct wire_ipv4 *ip4 = (void *)(buf + ip_off);

		wire_put16(ip4->tot_len, (uint16_t)(total - ip_off));
		wire_put16(ip4->csum, wire_ipv4_csum(ip4));
	} else {
		struct wire_ipv6 *ip6 = (void *)(buf + ip_off);

		wire_put16(ip6->plen, (uint16_t)(total - udp_off));
	}
	wire_put16(buf + udp_off + 4, (uint16_t)(total - udp_off));
	wire_put16(buf + udp_off + 6, 0);
}

int wire_build_finish(uint8_t *buf, size_t cap, size_t len)
{
	const struct wire_opcode_info *info;
	size_t ip_off, udp_off, bth_off, payload, total;
	unsigned pad;
	bool v4;

	if (!frame_layout(buf, len, &ip_off, &udp_off, &v4))
		return WIRE_ERR_INVAL;
	bth_off = udp_off + WIRE_UDP_LEN;
	info = wire_opcode_info(buf[bth_off]);
	if (!info)
		return WIRE_ERR_BAD_OPCODE;
	if (len < bth_off + info->hdr_len)
		return WIRE_ERR_INVAL;
	payload = len - bth_off - info->hdr_len;
	if (payload && !(info->flags & WIRE_OPF_PAYLOAD))
		return WIRE_ERR_INVAL;
	pad = wire_pad_len((uint32_t)payload);
	total = len + pad + WIRE_ICRC_LEN;
	if (total - udp_off > 0xFFFF || (v4 && total - ip_off > 0xFFFF))
		return WIRE_ERR_INVAL;
	if (cap < total)
		return WIRE_ERR_NOSPC;

	wire_bth_set_pad((struct wire_bth *)(void *)(buf + bth_off), pad);
	set_lengths(buf, ip_off, udp_off, v4, total);
	return pad_and_icrc(buf, ip_off, len, pad);
}

int wire_build_seal(uint8_t *buf, size_t cap, const struct wire_build *b,
		    size_t hdr_len)
{
	size_t ip_off, len;
	unsigned int pad;

	if (!buf || !b)
		return WIRE_ERR_INVAL;
	ip_off = WIRE_ETH_LEN + (b->vlan ? WIRE_VLAN_LEN : 0);
	if (hdr_len < ip_off + (b->ipv6 ? WIRE_IPV6_LEN : WIRE_IPV4_LEN) +
		      WIRE_UDP_LEN + WIRE_BTH_LEN)
		return WIRE_ERR_INVAL;
	len = hdr_len + b->payload_len;
	pad = wire_pad_len(b->payload_len);
	if (len + pad + WIRE_ICRC_LEN > cap)
		return WIRE_ERR_NOSPC;
	return pad_and_icrc(buf, ip_off, len, pad);
}

int wire_reseal(uint8_t *buf, size_t len)
{
	size_t ip_off, udp_off;
	bool v4;

	if (!frame_layout(buf, len, &ip_off, &udp_off, &v4) ||
	    len < udp_off + WIRE_UDP_LEN + WIRE_BTH_LEN + WIRE_ICRC_LEN ||
	    len - ip_off > 0xFFFF)
		return WIRE_ERR_INVAL;
	set_lengths(buf, ip_off, udp_off, v4, len);
	return wire_icrc_write(buf + ip_off, len - ip_off - WIRE_ICRC_LEN);
}

/* The table entry of a wire_tmpl_one() opcode, NULL for any other: of RC
 * or UC, no IETH, and the whole message in one packet (a request) or an
 * answer (ACKs and every READ response). */
static const struct wire_opcode_info *one_info(uint8_t opcode)
{
	const struct wire_opcode_info *info = wire_opcode_info(opcode);

	if (info == NULL || (info->transport != WIRE_TRANSPORT_RC &&
			     info->transport != WIRE_TRANSPORT_UC) ||
	    (info->hdrs & WIRE_HM_IETH) ||
	    !(info->flags & (WIRE_OPF_ONLY | WIRE_OPF_RESP)))
		return NULL;
	return info;
}

int wire_tmpl_one(uint8_t *buf, size_t cap, const struct wire_tmpl *t,
		  const struct wire_one *o)
{
	const struct wire_opcode_info *info;
	unsigned int pad, h;
	size_t hdr_len, udp_len, total;
	uint8_t *bth;

	if (!buf || !t || !o || (o->len && !o->data))
		return WIRE_ERR_INVAL;
	info = one_info(o->opcode);
	if (info == NULL)
		return WIRE_ERR_BAD_OPCODE;
	if (o->len > (info->flags & WIRE_OPF_PAYLOAD ? 0xFFFFu : 0))
		return WIRE_ERR_INVAL;
	h = info->hdrs;
	pad = wire_pad_len(o->len);
	hdr_len = (size_t)t->bth_off + info->hdr_len;
	udp_len = hdr_len - t->bth_off + WIRE_UDP_LEN + o->len + pad +
		  WIRE_ICRC_LEN;
	if (udp_len > 0xFFFFu - (t->ipv6 ? 0 : WIRE_IPV4_LEN))
		return WIRE_ERR_INVAL;
	total = hdr_len + o->len + pad + WIRE_ICRC_LEN;
	if (cap < total)
		return WIRE_ERR_NOSPC;

	tmpl_copy(buf, cap, t);
	tmpl_lengths(buf, t, udp_len, o->ip_id);
	bth = buf + t->bth_off;
	put_bth((struct wire_bth *)(void *)bth, o->opcode, o->se, o->ackreq,
		o->psn, o->len, t->hdr[t->bth_off + 1] & WIRE_BTH_MIG);
	/* the fields of struct wire_one, where the table puts each header
	 * (put_ext_hdrs() does the same from a struct wire_build) */
	if (h & WIRE_HM_RETH) {
		struct wire_reth *r = (void *)(bth + info->off[WIRE_HDR_RETH]);

		wire_reth_set_va(r, o->va);
		wire_reth_set_rkey(r, o->rkey);
		wire_reth_set_len(r, info->flags & WIRE_OPF_WRITE ? o->len :
				  o->dma_len);
	}
	if (h & WIRE_HM_ATMETH) {
		struct wire_atmeth *a = (void *)(bth + info->off[WIRE_HDR_ATMETH]);

		wire_atmeth_set_va(a, o->va);
		wire_atmeth_set_rkey(a, o->rkey);
		wire_atmeth_set_swap_add(a, o->swap_add);
		wire_atmeth_set_compare(a, o->compare);
	}
	if (h & WIRE_HM_AETH) {
		struct wire_aeth *a = (void *)(bth + info->off[WIRE_HDR_AETH]);

		wire_aeth_set_syn(a, o->syndrome);
		wire_aeth_set_msn(a, o->msn);
	}
	if (h & WIRE_HM_ATMACK)
		wire_atmack_set_orig((struct wire_atmack *)(void *)
				     (bth + info->off[WIRE_HDR_ATMACK]),
				     o->orig);
	if (h & WIRE_HM_IMMDT)
		wire_immdt_set_imm((struct wire_immdt *)(void *)
				   (bth + info->off[WIRE_HDR_IMMDT]), o->imm);
	if (o->len)
		memcpy(buf + hdr_len, o->data, o->len);
	return pad_and_icrc(buf, t->ip_off, hdr_len + o->len, pad);
}

uint16_t wire_udp_sport(uint32_t qpn)
{
	/* Linux hash_32(qpn, 14): golden-ratio multiplicative hash */
	uint32_t h = (qpn * 0x61C88647u) >> (32 - 14);

	return (uint16_t)(0xC000 | (h & 0x3FFF));
}

uint16_t wire_udp_sport_fl(uint32_t flow_label)
{
	uint32_t lo = flow_label & 0x3FFF;
	uint32_t hi = flow_label & 0xFC000;

	lo ^= hi >> 14;
	return (uint16_t)(0xC000 | lo);
}

uint16_t wire_udp_sport_flow(uint32_t lqpn, uint32_t rqpn)
{
	uint64_t v = (uint64_t)lqpn * rqpn;

	v ^= v >> 20;
	v ^= v >> 40;
	return wire_udp_sport_fl((uint32_t)(v & 0xFFFFF));
}
