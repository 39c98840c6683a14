/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Decode every frame of every soft-RoCE capture (test vectors in
 * shared/vectors/rxe-captures, see its README): each must parse with a
 * correct ICRC; per-file opcode counts and field values must match the
 * README; every frame must be rebuilt byte for byte by the builder from its
 * decoded fields (wire compatibility); corrupted, truncated, VLAN-tagged and
 * Ethernet-padded variants of captured frames; the pcap reader itself on
 * swapped-byte-order and nanosecond variants.
 *
 * usage: test_wire_captures CAPTURE_DIR
 */
#include <dirent.h>
#include <sys/stat.h>

#include "pcap.h"
#include "test_common.h"
#include "wire.h"

#define MAX_PKTS 4096

struct frame {
	uint8_t *data;
	uint32_t len;
};

struct capture {
	char name[64];
	struct frame *f;
	unsigned n;
};

/* Expected content, from the captures README. */
struct op_count {
	uint8_t op;
	unsigned n;
};

struct file_exp {
	const char *name;
	unsigned pkts;
	struct op_count ops[7];
	unsigned repeats;	/* packets repeating (src, opcode, PSN, dest QP) */
};

static const struct file_exp file_exps[] = {
	{ "rc_pingpong.pcap", 404, { { 4, 202 }, { 17, 202 } }, 4 },
	{ "uc_pingpong.pcap", 200, { { 36, 200 } }, 0 },
	{ "ud_pingpong.pcap", 200, { { 100, 200 } }, 0 },
	{ "srq_pingpong.pcap", 207, { { 4, 104 }, { 17, 103 } }, 0 },
	{ "send_lat.pcap", 804, { { 4, 402 }, { 17, 402 } }, 4 },
	{ "write_lat.pcap", 808, { { 10, 404 }, { 17, 404 } }, 8 },
	{ "read_lat.pcap", 400, { { 12, 200 }, { 16, 200 } }, 0 },
	{ "atomic_lat.pcap", 404, { { 20, 202 }, { 18, 202 } }, 4 },
	{ "write_bw.pcap", 500,
	  { { 6, 100 }, { 7, 200 }, { 8, 100 }, { 17, 100 } }, 0 },
	{ "rping.pcap", 125,
	  { { 100, 5 }, { 4, 40 }, { 10, 10 }, { 12, 10 }, { 16, 10 },
	    { 17, 50 } }, 0 },
};
#define N_FILES (sizeof(file_exps) / sizeof(file_exps[0]))

static const uint8_t gid_g1[16] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF,
				    10, 77, 0, 11 };
static const uint8_t gid_g2[16] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF,
				    10, 77, 0, 12 };
static const uint8_t mac_g1[6] = { 0x52, 0x54, 0x00, 0x77, 0x00, 0x11 };
static const uint8_t mac_g2[6] = { 0x52, 0x54, 0x00, 0x77, 0x00, 0x12 };

static int load_capture(const char *dir, const char *name, struct capture *c)
{
	char path[4096];
	struct pcap_reader r;
	struct pcap_rec rec;
	int rc;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->n = 0;
	c->f = calloc(MAX_PKTS, sizeof(*c->f));
	REQUIRE(c->f);
	if (pcap_open_file(&r, path)) {
		fprintf(stderr, "%s: %s\n", path, r.err);
		return -1;
	}
	while ((rc = pcap_next(&r, &rec)) == 1 && c->n < MAX_PKTS) {
		CHECK_EQ(rec.caplen, rec.origlen);	/* whole frames */
		c->f[c->n].data = malloc(rec.caplen ? rec.caplen : 1);
		REQUIRE(c->f[c->n].data);
		memcpy(c->f[c->n].data, rec.data, rec.caplen);
		c->f[c->n].len = rec.caplen;
		c->n++;
	}
	if (rc < 0)
		fprintf(stderr, "%s: %s\n", path, r.err);
	CHECK(rc == 0);
	pcap_close(&r);
	return rc < 0 ? -1 : 0;
}

static void free_capture(struct capture *c)
{
	for (unsigned i = 0; i < c->n; i++)
		free(c->f[i].data);
	free(c->f);
}

/* ---------------------------------------------------------------------- */
/* Rebuild a frame from its decoded fields with the builder; compare. */
static void check_rebuild(const char *file, unsigned idx, const uint8_t *fr,
			  const struct wire_pkt *p)
{
	const struct wire_opcode_info *info = p->info;
	struct wire_build b;
	uint8_t out[2048];
	int hl, total;

	wire_build_init(&b);
	memcpy(b.dmac, p->dmac, 6);
	memcpy(b.smac, p->smac, 6);
	b.vlan = p->has_vlan;
	b.vlan_tci = p->vlan_tci;
	b.ipv6 = p->ip_ver == 6;
	memcpy(b.sgid, p->sgid, 16);
	memcpy(b.dgid, p->dgid, 16);
	b.tclass = p->tclass;
	b.ttl = p->ttl;
	b.flow_label = p->flow_label;
	if (!b.ipv6)
		b.ip_id = wire_get16(fr + p->ip_off + 4);
	b.sport = p->sport;
	b.opcode = p->opcode;
	b.se = p->se;
	b.mig = p->mig;
	b.fecn = p->fecn;
	b.becn = p->becn;
	b.ackreq = p->ackreq;
	b.pkey = p->pkey;
	b.dqpn = p->dqpn;
	b.psn = p->psn;
	b.payload_len = p->payload_len;
	if (info->hdrs & WIRE_HM_RETH) {
		const struct wire_reth *h = wire_pkt_hdr(fr, p, WIRE_HDR_RETH);

		b.va = wire_reth_va(h);
		b.rkey = wire_reth_rkey(h);
		b.dma_len = wire_reth_len(h);
	}
	if (info->hdrs & WIRE_HM_AETH) {
		const struct wire_aeth *h = wire_pkt_hdr(fr, p, WIRE_HDR_AETH);

		b.syndrome = wire_aeth_syn(h);
		b.msn = wire_aeth_msn(h);
	}
	if (info->hdrs & WIRE_HM_ATMETH) {
		const struct wire_atmeth *h = wire_pkt_hdr(fr, p, WIRE_HDR_ATMETH);

		b.va = wire_atmeth_va(h);
		b.rkey = wire_atmeth_rkey(h);
		b.swap_add = wire_atmeth_swap_add(h);
		b.compare = wire_atmeth_compare(h);
	}
	if (info->hdrs & WIRE_HM_ATMACK)
		b.orig = wire_atmack_orig(wire_pkt_hdr(fr, p, WIRE_HDR_ATMACK));
	if (info->hdrs & WIRE_HM_IMMDT)
		b.imm = wire_immdt_imm(wire_pkt_hdr(fr, p, WIRE_HDR_IMMDT));
	if (info->hdrs & WIRE_HM_IETH)
		b.inv_rkey = wire_ieth_rkey(wire_pkt_hdr(fr, p, WIRE_HDR_IETH));
	if (info->hdrs & WIRE_HM_DETH) {
		const struct wire_deth *h = wire_pkt_hdr(fr, p, WIRE_HDR_DETH);

		b.qkey = wire_deth_qkey(h);
		b.src_qpn = wire_deth_sqp(h);
	}

	hl = wire_build_hdrs(out, sizeof(out), &b);
	CHECK_EQ(hl, p->payload_off);
	if (hl != p->payload_off)
		return;
	memcpy(out + hl, fr + p->payload_off, p->payload_len);
	total = wire_build_finish(out, sizeof(out), (size_t)hl + p->payload_len);
	if (total != (int)p->frame_len || memcmp(out, fr, p->frame_len) != 0) {
		fprintf(stderr, "%s #%u: rebuilt frame differs\n", file, idx);
		CHECK_BYTES(out, total > 0 ? (size_t)total : 0, fr, p->frame_len,
			    "rebuild");
	} else {
		test_checks++;
	}
}

/* ---------------------------------------------------------------------- */
static void check_file(const struct capture *c, const struct file_exp *e)
{
	unsigned counts[256] = { 0 };
	unsigned repeats = 0, bad = 0;
	uint64_t *keys = calloc(c->n + 1, sizeof(uint64_t));
	/* atomic_lat: the original value of every ATOMIC ACK, by PSN */
	uint32_t ack_psn[512];
	uint64_t ack_orig[512];
	unsigned n_ack = 0;

	REQUIRE(keys);
	if (e)
		CHECK_EQ(c->n, e->pkts);
	for (unsigned i = 0; i < c->n; i++) {
		const uint8_t *fr = c->f[i].data;
		struct wire_pkt p;
		int rc = wire_parse(fr, c->f[i].len, 0, &p);
		bool from_g1;
		uint64_t key;

		if (rc != 0) {
			if (bad++ < 5)
				fprintf(stderr, "%s #%u: parse: %s\n", c->name, i,
					wire_err_str(rc));
			CHECK_EQ(rc, 0);
			continue;
		}
		test_checks++;
		counts[p.opcode]++;

		/* common to every file (README "Every file") */
		CHECK_EQ(p.frame_len, c->f[i].len);
		CHECK_EQ(p.ip_off, 14);
		CHECK(!p.has_vlan);
		CHECK_EQ(p.ip_ver, 4);
		CHECK_EQ(p.tclass, 0);
		CHECK_EQ(p.ttl, 64);
		CHECK_EQ(wire_get16(fr + p.ip_off + 6), WIRE_IPV4_DF);
		CHECK_EQ(wire_get16(fr + p.udp_off + 6), 0);	/* UDP csum */
		CHECK_EQ(wire_get16(fr + p.udp_off + 2), 4791);
		CHECK_EQ(p.pkey, 0xFFFF);
		CHECK_EQ(wire_bth_tver(wire_pkt_bth(fr, &p)), 0);
		CHECK(!p.se && !p.mig && !p.fecn && !p.becn);
		CHECK_EQ(p.sport & 0xC000, 0xC000);
		from_g1 = memcmp(p.sgid, gid_g1, 16) == 0;
		CHECK(memcmp(p.sgid, from_g1 ? gid_g1 : gid_g2, 16) == 0);
		CHECK(memcmp(p.dgid, from_g1 ? gid_g2 : gid_g1, 16) == 0);
		CHECK(memcmp(p.smac, from_g1 ? mac_g1 : mac_g2, 6) == 0);
		CHECK(memcmp(p.dmac, from_g1 ? mac_g2 : mac_g1, 6) == 0);
		CHECK_EQ(p.payload_off + p.payload_len + p.pad + 4, p.frame_len);
		if (p.opcode == WIRE_OP_RC_ACKNOWLEDGE ||
		    p.opcode == WIRE_OP_RC_ATOMIC_ACKNOWLEDGE ||
		    (p.info->flags & WIRE_OPF_READ && p.info->hdrs & WIRE_HM_AETH))
			CHECK_EQ(wire_aeth_syn(wire_pkt_hdr(fr, &p, WIRE_HDR_AETH)),
				 0x1F);	/* ACK, "unlimited" credits */
		if (p.info->transport == WIRE_TRANSPORT_UD) {
			const struct wire_deth *d = wire_pkt_hdr(fr, &p, WIRE_HDR_DETH);

			/* soft-RoCE UD: sport = hash of the sending QPN */
			CHECK_EQ(p.sport, wire_udp_sport(wire_deth_sqp(d)));
		} else if (strcmp(c->name, "rping.pcap") != 0) {
			/* connected, both sides have the same QPN: flow-label
			 * port from (lqpn, rqpn) */
			CHECK_EQ(p.sport, wire_udp_sport_flow(p.dqpn, p.dqpn));
		}

		/* duplicates */
		key = (uint64_t)from_g1 << 56 | (uint64_t)p.opcode << 48 |
		      (uint64_t)p.psn << 24 | p.dqpn;
		for (unsigned k = 0; k < i; k++)
			if (keys[k] == key) {
				repeats++;
				break;
			}
		keys[i] = key;

		check_rebuild(c->name, i, fr, &p);

		if (!e)
			continue;
		/* per file */
		if (!strcmp(e->name, "rc_pingpong.pcap") ||
		    !strcmp(e->name, "srq_pingpong.pcap")) {
			if (p.opcode == 4) {
				CHECK_EQ(p.payload_len, 1024);
				CHECK_EQ(c->f[i].len, 1082);
				CHECK(p.ackreq);
			} else {
				CHECK_EQ(c->f[i].len, 62);
			}
			if (!strcmp(e->name, "srq_pingpong.pcap")) {
				static const uint16_t port[4] = { 49593, 49636,
								  49681, 49728 };
				CHECK(p.dqpn >= 0x15 && p.dqpn <= 0x18);
				if (p.dqpn >= 0x15 && p.dqpn <= 0x18)
					CHECK_EQ(p.sport, port[p.dqpn - 0x15]);
			}
		} else if (!strcmp(e->name, "uc_pingpong.pcap")) {
			CHECK_EQ(p.payload_len, 1024);
			CHECK(!p.ackreq);
			CHECK_EQ(c->f[i].len, 1082);
		} else if (!strcmp(e->name, "ud_pingpong.pcap")) {
			const struct wire_deth *d = wire_pkt_hdr(fr, &p, WIRE_HDR_DETH);

			CHECK(d != NULL);
			if (d) {
				CHECK_EQ(wire_deth_qkey(d), 0x11111111u);
				CHECK_EQ(wire_deth_sqp(d), 0x14);
			}
			CHECK_EQ(p.dqpn, 0x14);
			CHECK_EQ(p.payload_len, 1024);
			CHECK(!p.ackreq);
			CHECK_EQ(c->f[i].len, 1090);
		} else if (!strcmp(e->name, "send_lat.pcap")) {
			if (p.opcode == 4) {
				CHECK_EQ(p.pad, 2);
				CHECK_EQ(p.payload_len, 2);
			}
			CHECK_EQ(c->f[i].len, 62);
		} else if (!strcmp(e->name, "write_lat.pcap")) {
			if (p.opcode == 10) {
				const struct wire_reth *r = wire_pkt_hdr(fr, &p, WIRE_HDR_RETH);

				CHECK_EQ(p.pad, 2);
				CHECK_EQ(p.payload_len, 2);
				CHECK_EQ(wire_reth_len(r), 2);
				CHECK_EQ(c->f[i].len, 78);
			}
		} else if (!strcmp(e->name, "read_lat.pcap")) {
			if (p.opcode == 12) {
				const struct wire_reth *r = wire_pkt_hdr(fr, &p, WIRE_HDR_RETH);

				CHECK_EQ(wire_reth_len(r), 2);
				CHECK_EQ(p.payload_len, 0);
				CHECK_EQ(c->f[i].len, 74);
			} else {
				CHECK_EQ(p.pad, 2);
				CHECK_EQ(p.payload_len, 2);
				CHECK_EQ(c->f[i].len, 66);
			}
		} else if (!strcmp(e->name, "atomic_lat.pcap")) {
			if (p.opcode == 20) {
				const struct wire_atmeth *a = wire_pkt_hdr(fr, &p, WIRE_HDR_ATMETH);

				CHECK_EQ(wire_atmeth_va(a) & 7, 0);
				CHECK_EQ(c->f[i].len, 86);
			} else {
				const struct wire_atmack *a = wire_pkt_hdr(fr, &p, WIRE_HDR_ATMACK);
				unsigned k;

				CHECK_EQ(c->f[i].len, 70);
				/* a duplicate is answered with the saved result */
				for (k = 0; k < n_ack; k++)
					if (ack_psn[k] == p.psn)
						break;
				if (k < n_ack)
					CHECK_EQ(wire_atmack_orig(a), ack_orig[k]);
				else if (n_ack < 512) {
					ack_psn[n_ack] = p.psn;
					ack_orig[n_ack++] = wire_atmack_orig(a);
				}
			}
		} else if (!strcmp(e->name, "write_bw.pcap")) {
			if (p.opcode == 6) {
				CHECK_EQ(wire_reth_len(wire_pkt_hdr(fr, &p, WIRE_HDR_RETH)),
					 4096);
				CHECK_EQ(c->f[i].len, 1098);
			}
			if (p.opcode >= 6 && p.opcode <= 8) {
				CHECK_EQ(p.payload_len, 1024);
				CHECK_EQ(p.ackreq, p.opcode == 8);	/* only LAST */
			}
		} else if (!strcmp(e->name, "rping.pcap")) {
			if (p.opcode == 100) {
				const struct wire_deth *d = wire_pkt_hdr(fr, &p, WIRE_HDR_DETH);

				CHECK_EQ(wire_deth_qkey(d), WIRE_GSI_QKEY);
				CHECK_EQ(wire_deth_sqp(d), 1);
				CHECK_EQ(p.dqpn, 1);
				CHECK_EQ(p.sport, 55410);
			} else {
				CHECK_EQ(p.dqpn, 0x1e);
			}
		}
	}
	if (e) {
		unsigned listed = 0;

		for (unsigned k = 0; k < 7 && e->ops[k].n; k++) {
			if (counts[e->ops[k].op] != e->ops[k].n)
				fprintf(stderr, "%s: opcode %u: %u packets, expected %u\n",
					c->name, e->ops[k].op,
					counts[e->ops[k].op], e->ops[k].n);
			CHECK_EQ(counts[e->ops[k].op], e->ops[k].n);
			listed += e->ops[k].n;
		}
		CHECK_EQ(listed, e->pkts);	/* no other opcode */
		CHECK_EQ(repeats, e->repeats);
	}
	free(keys);
}

/* ---------------------------------------------------------------------- */
/* Corruption of one captured frame, byte by byte. */
static void check_corruption(const char *name, const uint8_t *orig, uint32_t len)
{
	static const uint8_t xors[] = { 0x01, 0x80, 0xFF };
	uint8_t *f = malloc(len);
	struct wire_pkt p0, p;

	REQUIRE(f);
	REQUIRE(wire_parse(orig, len, 0, &p0) == 0);
	for (uint32_t i = 0; i < len; i++) {
		for (size_t x = 0; x < sizeof(xors); x++) {
			uint32_t ipo = i - p0.ip_off;	/* offset in the IP header */
			bool in_ip = i >= p0.ip_off && i < p0.udp_off;
			bool masked_ip = in_ip && (ipo == 1 || ipo == 8 ||
						   ipo == 10 || ipo == 11);
			bool udp_csum = i == p0.udp_off + 6u || i == p0.udp_off + 7u;
			bool bth4 = i == p0.bth_off + 4u;
			int rc;

			memcpy(f, orig, len);
			f[i] ^= xors[x];
			rc = wire_parse(f, len, 0, &p);
			if (i < 12 || udp_csum || bth4) {
				/* MACs: not checked; UDP checksum: not checked,
				 * masked in the ICRC; BTH byte 4: masked */
				CHECK_EQ(rc, 0);
				if (bth4 && rc == 0) {
					CHECK_EQ(p.fecn, !!(f[i] & 0x80));
					CHECK_EQ(p.becn, !!(f[i] & 0x40));
				}
			} else if (masked_ip) {
				/* TOS, TTL, header checksum: not in the ICRC,
				 * caught by the IPv4 header checksum */
				CHECK_EQ(wire_icrc_check(f + p0.ip_off,
							 p0.frame_len - p0.ip_off - 4), 0);
				CHECK_EQ(rc, WIRE_ERR_BAD_IP_CSUM);
				CHECK_EQ(wire_parse(f, len, WIRE_PARSE_NO_IP_CSUM, &p), 0);
			} else {
				if (rc == 0)
					fprintf(stderr, "%s: flip of byte %u (^0x%02x) "
						"not detected\n", name, i, xors[x]);
				CHECK(rc != 0);
				if (i >= 14 && rc != WIRE_ERR_NOT_ROCE) {
					uint32_t icrc;

					/* every other byte from the IP header on is
					 * covered by the ICRC */
					if (wire_icrc_calc(f + p0.ip_off,
							   p0.frame_len - p0.ip_off - 4,
							   &icrc) == 0)
						CHECK(icrc != wire_icrc_get(f + p0.frame_len - 4));
				}
			}
		}
	}

	/* what a router does: decrement TTL, mark ECN CE, fix the checksum */
	memcpy(f, orig, len);
	f[p0.ip_off + 8]--;
	f[p0.ip_off + 1] |= 3;
	wire_put16(f + p0.ip_off + 10, wire_ipv4_csum(f + p0.ip_off));
	CHECK_EQ(wire_parse(f, len, 0, &p), 0);
	CHECK_EQ(p.ttl, 63);
	CHECK_EQ(p.tclass & 3, 3);

	/* a congestion-marked BTH (switch sets FECN): still valid */
	memcpy(f, orig, len);
	f[p0.bth_off + 4] |= 0x80;
	CHECK_EQ(wire_parse(f, len, 0, &p), 0);
	CHECK(p.fecn);
	free(f);
}

/* Every truncation: an exact-size heap copy, so ASan sees any overread. */
static void check_truncation(const uint8_t *orig, uint32_t len)
{
	for (uint32_t l = 0; l < len; l++) {
		uint8_t *f = malloc(l ? l : 1);
		struct wire_pkt p;

		REQUIRE(f);
		memcpy(f, orig, l);
		CHECK_EQ(wire_parse(f, l, 0, &p), WIRE_ERR_TRUNCATED);
		CHECK_EQ(wire_parse(f, l, WIRE_PARSE_NO_ICRC | WIRE_PARSE_NO_IP_CSUM,
				    &p), WIRE_ERR_TRUNCATED);
		free(f);
	}
}

/* VLAN tag inserted; Ethernet padding appended. */
static void check_vlan_and_padding(const uint8_t *orig, uint32_t len)
{
	uint8_t *f = malloc(len + 4 + 16);
	struct wire_pkt p0, p;

	REQUIRE(f);
	REQUIRE(wire_parse(orig, len, 0, &p0) == 0);
	memcpy(f, orig, 12);
	wire_put16(f + 12, WIRE_ETHERTYPE_VLAN);
	wire_put16(f + 14, 0x2005);	/* PCP 1, VID 5 */
	memcpy(f + 16, orig + 12, len - 12);
	CHECK_EQ(wire_parse(f, len + 4, 0, &p), 0);
	CHECK(p.has_vlan);
	CHECK_EQ(p.vlan_tci, 0x2005);
	CHECK_EQ(p.ip_off, 18);
	CHECK_EQ(p.bth_off, p0.bth_off + 4);
	CHECK_EQ(p.payload_off, p0.payload_off + 4);
	CHECK_EQ(p.payload_len, p0.payload_len);
	CHECK_EQ(p.psn, p0.psn);
	/* a second tag (QinQ) is not accepted */
	wire_put16(f + 16, WIRE_ETHERTYPE_VLAN);
	CHECK_EQ(wire_parse(f, len + 4, 0, &p), WIRE_ERR_NOT_IP);

	memcpy(f, orig, len);
	memset(f + len, 0xA5, 16);
	CHECK_EQ(wire_parse(f, len + 16, 0, &p), 0);
	CHECK_EQ(p.frame_len, len);
	CHECK_EQ(p.payload_len, p0.payload_len);
	free(f);
}

/* ---------------------------------------------------------------------- */
/* The pcap reader on the other byte order and on nanosecond timestamps. */
static void check_pcap_variants(const char *dir)
{
	char path[4096];
	FILE *fp;
	uint8_t *buf, *sw, *ns;
	long sz;
	struct pcap_reader a, b, c;
	struct pcap_rec ra, rb, rc;
	unsigned n = 0;
	int xa, xb, xc;

	snprintf(path, sizeof(path), "%s/read_lat.pcap", dir);
	fp = fopen(path, "rb");
	REQUIRE(fp);
	REQUIRE(fseek(fp, 0, SEEK_END) == 0);
	sz = ftell(fp);
	REQUIRE(sz > 24);
	rewind(fp);
	buf = malloc((size_t)sz);
	sw = malloc((size_t)sz);
	ns = malloc((size_t)sz);
	REQUIRE(buf && sw && ns);
	REQUIRE(fread(buf, 1, (size_t)sz, fp) == (size_t)sz);
	fclose(fp);

	/* byte-swapped copy: header words/halfwords and record headers */
	memcpy(sw, buf, (size_t)sz);
	memcpy(ns, buf, (size_t)sz);
	{
		uint32_t w;
		uint16_t h;

		for (int k = 0; k < 24; k += 4) {
			if (k == 4) {	/* two 16-bit version fields */
				for (int j = 4; j < 8; j += 2) {
					memcpy(&h, buf + j, 2);
					h = __builtin_bswap16(h);
					memcpy(sw + j, &h, 2);
				}
				continue;
			}
			memcpy(&w, buf + k, 4);
			w = __builtin_bswap32(w);
			memcpy(sw + k, &w, 4);
		}
		w = 0xA1B23C4Du;	/* nanosecond magic, host order */
		memcpy(ns, &w, 4);
		for (size_t off = 24; off + 16 <= (size_t)sz;) {
			uint32_t rec[4];

			memcpy(rec, buf + off, 16);
			for (int k = 0; k < 4; k++) {
				w = __builtin_bswap32(rec[k]);
				memcpy(sw + off + 4 * k, &w, 4);
			}
			w = rec[1] * 1000u;	/* usec -> nsec */
			memcpy(ns + off + 4, &w, 4);
			off += 16 + rec[2];
		}
	}
	REQUIRE(pcap_open_mem(&a, buf, (size_t)sz) == 0);
	REQUIRE(pcap_open_mem(&b, sw, (size_t)sz) == 0);
	REQUIRE(pcap_open_mem(&c, ns, (size_t)sz) == 0);
	CHECK(!a.swapped && b.swapped && !c.swapped);
	CHECK(!a.nsec && !b.nsec && c.nsec);
	for (;;) {
		xa = pcap_next(&a, &ra);
		xb = pcap_next(&b, &rb);
		xc = pcap_next(&c, &rc);
		CHECK(xa == xb && xa == xc);
		if (xa != 1 || xb != 1 || xc != 1)
			break;
		n++;
		CHECK(ra.caplen == rb.caplen && ra.caplen == rc.caplen);
		CHECK(memcmp(ra.data, rb.data, ra.caplen) == 0);
		CHECK_EQ(ra.ts_nsec, rb.ts_nsec);
		CHECK_EQ(ra.ts_nsec, rc.ts_nsec);
		CHECK(ra.ts_nsec % 1000 == 0);
	}
	CHECK_EQ(xa, 0);
	CHECK_EQ(n, 400);
	pcap_close(&a);
	pcap_close(&b);
	pcap_close(&c);

	/* corrupt files are reported, not crashed on */
	CHECK(pcap_open_mem(&a, buf, 10) == -1);
	buf[0] ^= 0xFF;
	CHECK(pcap_open_mem(&a, buf, (size_t)sz) == -1);
	buf[0] ^= 0xFF;
	REQUIRE(pcap_open_mem(&a, buf, 24 + 16 + 10) == 0);	/* cut record */
	CHECK_EQ(pcap_next(&a, &ra), -1);
	pcap_close(&a);
	free(buf);
	free(sw);
	free(ns);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
	struct stat st;
	DIR *d;
	struct dirent *de;
	char *names[64];
	unsigned n_names = 0, n_pkts = 0;
	bool found[N_FILES] = { false };

	if (argc != 2) {
		fprintf(stderr, "usage: %s CAPTURE_DIR\n", argv[0]);
		return 2;
	}
	if (stat(argv[1], &st) != 0 || !S_ISDIR(st.st_mode) ||
	    !(d = opendir(argv[1]))) {
		fprintf(stderr, "FAIL: capture directory %s not found: the soft-RoCE "
			"test vectors (shared/vectors/rxe-captures) are required\n",
			argv[1]);
		return 1;
	}
	while ((de = readdir(d)) != NULL && n_names < 64) {
		size_t l = strlen(de->d_name);

		if (l > 5 && !strcmp(de->d_name + l - 5, ".pcap"))
			names[n_names++] = strdup(de->d_name);
	}
	closedir(d);
	qsort(names, n_names, sizeof(names[0]), cmp_str);

	for (unsigned i = 0; i < n_names; i++) {
		struct capture c;
		const struct file_exp *e = NULL;

		for (unsigned k = 0; k < N_FILES; k++)
			if (!strcmp(names[i], file_exps[k].name)) {
				e = &file_exps[k];
				found[k] = true;
			}
		if (load_capture(argv[1], names[i], &c) == 0) {
			check_file(&c, e);
			n_pkts += c.n;
			/* corruption/truncation/VLAN on the first two frames
			 * (a request and its response) of each known file */
			for (unsigned k = 0; e && k < 2 && k < c.n; k++) {
				check_corruption(c.name, c.f[k].data, c.f[k].len);
				check_truncation(c.f[k].data, c.f[k].len);
				check_vlan_and_padding(c.f[k].data, c.f[k].len);
			}
		}
		free_capture(&c);
		printf("%s: %u frames checked\n", names[i], c.n);
		free(names[i]);
	}
	for (unsigned k = 0; k < N_FILES; k++)
		if (!found[k]) {
			fprintf(stderr, "FAIL: %s/%s missing\n", argv[1],
				file_exps[k].name);
			test_failures++;
		}
	CHECK_EQ(n_pkts, 4052);	/* README: 4052 of 4052 correct ICRCs */
	check_pcap_variants(argv[1]);
	return test_report("test_wire_captures");
}
