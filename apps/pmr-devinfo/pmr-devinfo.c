/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pmr-devinfo: list the pmrdma devices and print their attributes, with
 * the layout and field names of rdma-core's ibv_devinfo, so that scripts
 * and eyes used to one read the other.
 *
 *   pmr-devinfo [-d DEV] [-i PORT] [-v]
 *   pmr-devinfo -l
 *
 * Devices come from the pmrdma configuration (PMR_CONFIG, PMR_DEVICES,
 * PMR_EAL_ARGS; with none, the loopback device pmr_loop0): see
 * doc/guides/configuration.rst.  Only the public API is used.
 *
 * Exit status: 0 on success, 1 on any failure (no device, unknown device,
 * bad port, a query that failed).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <pmr_verbs.h>

static int verbose;

static const char *guid_str(pmr_be64 be_guid, char *str, size_t len)
{
	uint64_t guid = be64toh(be_guid);

	snprintf(str, len, "%04x:%04x:%04x:%04x",
		 (unsigned int)(guid >> 48) & 0xffff,
		 (unsigned int)(guid >> 32) & 0xffff,
		 (unsigned int)(guid >> 16) & 0xffff,
		 (unsigned int)guid & 0xffff);
	return str;
}

static const char *transport_str(enum pmr_transport_type t)
{
	switch (t) {
	case PMR_TRANSPORT_IB: return "InfiniBand";
	case PMR_TRANSPORT_IWARP: return "iWARP";
	case PMR_TRANSPORT_USNIC: return "usNIC";
	case PMR_TRANSPORT_USNIC_UDP: return "usNIC UDP";
	default: return "invalid transport";
	}
}

static const char *mtu_str(enum pmr_mtu mtu)
{
	switch (mtu) {
	case PMR_MTU_256: return "256";
	case PMR_MTU_512: return "512";
	case PMR_MTU_1024: return "1024";
	case PMR_MTU_2048: return "2048";
	case PMR_MTU_4096: return "4096";
	default: return "invalid MTU";
	}
}

static const char *atomic_cap_str(enum pmr_atomic_cap cap)
{
	switch (cap) {
	case PMR_ATOMIC_NONE: return "ATOMIC_NONE";
	case PMR_ATOMIC_HCA: return "ATOMIC_HCA";
	case PMR_ATOMIC_GLOB: return "ATOMIC_GLOB";
	default: return "invalid atomic capability";
	}
}

static const char *link_layer_str(uint8_t link_layer)
{
	switch (link_layer) {
	case PMR_LINK_LAYER_UNSPECIFIED:
	case PMR_LINK_LAYER_INFINIBAND:
		return "InfiniBand";
	case PMR_LINK_LAYER_ETHERNET:
		return "Ethernet";
	default:
		return "Unknown";
	}
}

static const char *width_str(uint8_t width)
{
	switch (width) {
	case 1: return "1";
	case 2: return "4";
	case 4: return "8";
	case 8: return "12";
	case 16: return "2";
	default: return "invalid width";
	}
}

static const char *speed_str(uint8_t speed)
{
	switch (speed) {
	case 1: return "2.5 Gbps";
	case 2: return "5.0 Gbps";
	case 4: /* fall through */
	case 8: return "10.0 Gbps";
	case 16: return "14.0 Gbps";
	case 32: return "25.0 Gbps";
	case 64: return "50.0 Gbps";
	case 128: return "100.0 Gbps";
	default: return "invalid speed";
	}
}

static const char *vl_str(uint8_t vl_num)
{
	switch (vl_num) {
	case 1: return "1";
	case 2: return "2";
	case 3: return "4";
	case 4: return "8";
	case 5: return "15";
	default: return "invalid value";
	}
}

static const char *phys_state_str(uint8_t phys_state)
{
	switch (phys_state) {
	case 1: return "SLEEP";
	case 2: return "POLLING";
	case 3: return "DISABLED";
	case 4: return "PORT_CONFIGURATION TRAINNING";
	case 5: return "LINK_UP";
	case 6: return "LINK_ERROR_RECOVERY";
	case 7: return "PHY TEST";
	default: return "invalid physical state";
	}
}

static void print_device_cap_flags(unsigned int flags)
{
	static const struct {
		unsigned int bit;
		const char *name;
	} names[] = {
		{ PMR_DEVICE_RESIZE_MAX_WR, "RESIZE_MAX_WR" },
		{ PMR_DEVICE_BAD_PKEY_CNTR, "BAD_PKEY_CNTR" },
		{ PMR_DEVICE_BAD_QKEY_CNTR, "BAD_QKEY_CNTR" },
		{ PMR_DEVICE_RAW_MULTI, "RAW_MULTI" },
		{ PMR_DEVICE_AUTO_PATH_MIG, "AUTO_PATH_MIG" },
		{ PMR_DEVICE_CHANGE_PHY_PORT, "CHANGE_PHY_PORT" },
		{ PMR_DEVICE_UD_AV_PORT_ENFORCE, "UD_AV_PORT_ENFORCE" },
		{ PMR_DEVICE_CURR_QP_STATE_MOD, "CURR_QP_STATE_MOD" },
		{ PMR_DEVICE_SHUTDOWN_PORT, "SHUTDOWN_PORT" },
		{ PMR_DEVICE_INIT_TYPE, "INIT_TYPE" },
		{ PMR_DEVICE_PORT_ACTIVE_EVENT, "PORT_ACTIVE_EVENT" },
		{ PMR_DEVICE_SYS_IMAGE_GUID, "SYS_IMAGE_GUID" },
		{ PMR_DEVICE_RC_RNR_NAK_GEN, "RC_RNR_NAK_GEN" },
		{ PMR_DEVICE_SRQ_RESIZE, "SRQ_RESIZE" },
		{ PMR_DEVICE_N_NOTIFY_CQ, "N_NOTIFY_CQ" },
		{ PMR_DEVICE_MEM_WINDOW, "MEM_WINDOW" },
		{ PMR_DEVICE_UD_IP_CSUM, "UD_IP_CSUM" },
		{ PMR_DEVICE_XRC, "XRC" },
		{ PMR_DEVICE_MEM_MGT_EXTENSIONS, "MEM_MGT_EXTENSIONS" },
		{ PMR_DEVICE_MEM_WINDOW_TYPE_2A, "MEM_WINDOW_TYPE_2A" },
		{ PMR_DEVICE_MEM_WINDOW_TYPE_2B, "MEM_WINDOW_TYPE_2B" },
		{ PMR_DEVICE_RC_IP_CSUM, "RC_IP_CSUM" },
		{ PMR_DEVICE_RAW_IP_CSUM, "RAW_IP_CSUM" },
		{ PMR_DEVICE_MANAGED_FLOW_STEERING, "MANAGED_FLOW_STEERING" },
	};
	unsigned int known = 0;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		known |= names[i].bit;
		if (flags & names[i].bit)
			printf("\t\t\t\t\t%s\n", names[i].name);
	}
	if (flags & ~known)
		printf("\t\t\t\t\tUnknown flags: 0x%X\n", flags & ~known);
}

/* As ibv_devinfo: an entry whose interface id is zero is unused. */
static int null_gid(const union pmr_gid *gid)
{
	for (int i = 8; i < 16; i++)
		if (gid->raw[i] != 0)
			return 0;
	return 1;
}

/*
 * Every GID of a pmrdma device is a RoCE v2 GID (an IPv4-mapped or an
 * IPv6 address), printed as ibv_devinfo prints RoCE v2 GIDs: IPv6 text
 * and, on an Ethernet port, the GID type.
 */
static int print_port_gids(struct pmr_context *ctx, uint8_t port,
			   const struct pmr_port_attr *pa)
{
	for (int i = 0; i < pa->gid_tbl_len; i++) {
		char text[INET6_ADDRSTRLEN];
		union pmr_gid gid;
		int ret = pmr_query_gid(ctx, port, i, &gid);

		if (ret != 0) {
			fprintf(stderr, "Failed to query gid to port %u, index %d: %s\n",
				port, i, strerror(ret));
			return ret;
		}
		if (null_gid(&gid))
			continue;
		if (inet_ntop(AF_INET6, gid.raw, text, sizeof(text)) == NULL)
			snprintf(text, sizeof(text), "invalid GID");
		printf("\t\t\tGID[%3d]:\t\t%s%s\n", i, text,
		       pa->link_layer == PMR_LINK_LAYER_ETHERNET ?
		       ", RoCE v2" : "");
	}
	return 0;
}

static void print_device_attr_verbose(const struct pmr_device_attr *a)
{
	printf("\tmax_mr_size:\t\t\t0x%llx\n", (unsigned long long)a->max_mr_size);
	printf("\tpage_size_cap:\t\t\t0x%llx\n",
	       (unsigned long long)a->page_size_cap);
	printf("\tmax_qp:\t\t\t\t%d\n", a->max_qp);
	printf("\tmax_qp_wr:\t\t\t%d\n", a->max_qp_wr);
	printf("\tdevice_cap_flags:\t\t0x%08x\n", a->device_cap_flags);
	print_device_cap_flags(a->device_cap_flags);
	printf("\tmax_sge:\t\t\t%d\n", a->max_sge);
	printf("\tmax_sge_rd:\t\t\t%d\n", a->max_sge_rd);
	printf("\tmax_cq:\t\t\t\t%d\n", a->max_cq);
	printf("\tmax_cqe:\t\t\t%d\n", a->max_cqe);
	printf("\tmax_mr:\t\t\t\t%d\n", a->max_mr);
	printf("\tmax_pd:\t\t\t\t%d\n", a->max_pd);
	printf("\tmax_qp_rd_atom:\t\t\t%d\n", a->max_qp_rd_atom);
	printf("\tmax_ee_rd_atom:\t\t\t%d\n", a->max_ee_rd_atom);
	printf("\tmax_res_rd_atom:\t\t%d\n", a->max_res_rd_atom);
	printf("\tmax_qp_init_rd_atom:\t\t%d\n", a->max_qp_init_rd_atom);
	printf("\tmax_ee_init_rd_atom:\t\t%d\n", a->max_ee_init_rd_atom);
	printf("\tatomic_cap:\t\t\t%s (%d)\n", atomic_cap_str(a->atomic_cap),
	       (int)a->atomic_cap);
	printf("\tmax_ee:\t\t\t\t%d\n", a->max_ee);
	printf("\tmax_rdd:\t\t\t%d\n", a->max_rdd);
	printf("\tmax_mw:\t\t\t\t%d\n", a->max_mw);
	printf("\tmax_raw_ipv6_qp:\t\t%d\n", a->max_raw_ipv6_qp);
	printf("\tmax_raw_ethy_qp:\t\t%d\n", a->max_raw_ethy_qp);
	printf("\tmax_mcast_grp:\t\t\t%d\n", a->max_mcast_grp);
	printf("\tmax_mcast_qp_attach:\t\t%d\n", a->max_mcast_qp_attach);
	printf("\tmax_total_mcast_qp_attach:\t%d\n",
	       a->max_total_mcast_qp_attach);
	printf("\tmax_ah:\t\t\t\t%d\n", a->max_ah);
	printf("\tmax_fmr:\t\t\t%d\n", a->max_fmr);
	if (a->max_fmr)
		printf("\tmax_map_per_fmr:\t\t%d\n", a->max_map_per_fmr);
	printf("\tmax_srq:\t\t\t%d\n", a->max_srq);
	if (a->max_srq) {
		printf("\tmax_srq_wr:\t\t\t%d\n", a->max_srq_wr);
		printf("\tmax_srq_sge:\t\t\t%d\n", a->max_srq_sge);
	}
	printf("\tmax_pkeys:\t\t\t%d\n", a->max_pkeys);
	printf("\tlocal_ca_ack_delay:\t\t%d\n", a->local_ca_ack_delay);
}

static void print_port_attr_verbose(const struct pmr_device *dev,
				    const struct pmr_port_attr *pa)
{
	printf("\t\t\tmax_msg_sz:\t\t0x%x\n", pa->max_msg_sz);
	printf("\t\t\tport_cap_flags:\t\t0x%08x\n", pa->port_cap_flags);
	printf("\t\t\tport_cap_flags2:\t0x%04x\n", pa->port_cap_flags2);
	printf("\t\t\tmax_vl_num:\t\t%s (%d)\n", vl_str(pa->max_vl_num),
	       pa->max_vl_num);
	printf("\t\t\tbad_pkey_cntr:\t\t0x%x\n", pa->bad_pkey_cntr);
	printf("\t\t\tqkey_viol_cntr:\t\t0x%x\n", pa->qkey_viol_cntr);
	printf("\t\t\tsm_sl:\t\t\t%d\n", pa->sm_sl);
	printf("\t\t\tpkey_tbl_len:\t\t%d\n", pa->pkey_tbl_len);
	printf("\t\t\tgid_tbl_len:\t\t%d\n", pa->gid_tbl_len);
	printf("\t\t\tsubnet_timeout:\t\t%d\n", pa->subnet_timeout);
	printf("\t\t\tinit_type_reply:\t%d\n", pa->init_type_reply);
	printf("\t\t\tactive_width:\t\t%sX (%d)\n", width_str(pa->active_width),
	       pa->active_width);
	printf("\t\t\tactive_speed:\t\t%s (%d)\n", speed_str(pa->active_speed),
	       pa->active_speed);
	if (dev->transport_type == PMR_TRANSPORT_IB)
		printf("\t\t\tphys_state:\t\t%s (%d)\n",
		       phys_state_str(pa->phys_state), pa->phys_state);
}

/* @return 0, or 1 after printing why on stderr. */
static int print_hca_cap(struct pmr_device *dev, int want_port)
{
	struct pmr_device_attr attr;
	struct pmr_context *ctx;
	char buf[32];
	int ret, rc = 0;

	ctx = pmr_open_device(dev);
	if (ctx == NULL) {
		fprintf(stderr, "Failed to open device %s: %s\n",
			pmr_get_device_name(dev), strerror(errno));
		return 1;
	}
	ret = pmr_query_device(ctx, &attr);
	if (ret != 0) {
		fprintf(stderr, "Failed to query device props: %s\n",
			strerror(ret));
		rc = 1;
		goto out;
	}
	if (want_port > attr.phys_port_cnt) {
		fprintf(stderr, "Invalid port requested for device %s\n",
			pmr_get_device_name(dev));
		rc = 1;
		goto out;
	}

	printf("hca_id:\t%s\n", pmr_get_device_name(dev));
	printf("\ttransport:\t\t\t%s (%d)\n", transport_str(dev->transport_type),
	       (int)dev->transport_type);
	if (attr.fw_ver[0] != '\0')
		printf("\tfw_ver:\t\t\t\t%.*s\n", (int)sizeof(attr.fw_ver),
		       attr.fw_ver);
	printf("\tnode_guid:\t\t\t%s\n",
	       guid_str(attr.node_guid, buf, sizeof(buf)));
	printf("\tsys_image_guid:\t\t\t%s\n",
	       guid_str(attr.sys_image_guid, buf, sizeof(buf)));
	printf("\tvendor_id:\t\t\t0x%04x\n", attr.vendor_id);
	printf("\tvendor_part_id:\t\t\t%u\n", attr.vendor_part_id);
	printf("\thw_ver:\t\t\t\t0x%X\n", attr.hw_ver);
	printf("\tphys_port_cnt:\t\t\t%d\n", attr.phys_port_cnt);
	if (verbose)
		print_device_attr_verbose(&attr);

	for (int port = 1; port <= attr.phys_port_cnt; port++) {
		struct pmr_port_attr pa;

		if (want_port != 0 && port != want_port)
			continue;
		ret = pmr_query_port(ctx, (uint8_t)port, &pa);
		if (ret != 0) {
			fprintf(stderr, "Failed to query port %d props: %s\n",
				port, strerror(ret));
			rc = 1;
			goto out;
		}
		printf("\t\tport:\t%d\n", port);
		printf("\t\t\tstate:\t\t\t%s (%d)\n",
		       pmr_port_state_str(pa.state), (int)pa.state);
		printf("\t\t\tmax_mtu:\t\t%s (%d)\n", mtu_str(pa.max_mtu),
		       (int)pa.max_mtu);
		printf("\t\t\tactive_mtu:\t\t%s (%d)\n", mtu_str(pa.active_mtu),
		       (int)pa.active_mtu);
		printf("\t\t\tsm_lid:\t\t\t%d\n", pa.sm_lid);
		printf("\t\t\tport_lid:\t\t%d\n", pa.lid);
		printf("\t\t\tport_lmc:\t\t0x%02x\n", pa.lmc);
		printf("\t\t\tlink_layer:\t\t%s\n", link_layer_str(pa.link_layer));
		if (verbose) {
			print_port_attr_verbose(dev, &pa);
			if (print_port_gids(ctx, (uint8_t)port, &pa) != 0) {
				rc = 1;
				goto out;
			}
		}
		printf("\n");
	}
out:
	ret = pmr_close_device(ctx);
	if (ret != 0) {
		fprintf(stderr, "Failed to close device: %s\n", strerror(ret));
		rc = 1;
	}
	return rc;
}

static void usage(FILE *f, const char *argv0)
{
	fprintf(f, "Usage: %s             print the ca attributes\n", argv0);
	fprintf(f, "\n");
	fprintf(f, "Options:\n");
	fprintf(f, "  -d, --ib-dev=<dev>     use device <dev> (default all devices)\n");
	fprintf(f, "  -i, --ib-port=<port>   use port <port> of the device (default all ports)\n");
	fprintf(f, "  -l, --list             print only the device names\n");
	fprintf(f, "  -v, --verbose          print all the attributes of the device(s)\n");
	fprintf(f, "  -h, --help             print this help\n");
	fprintf(f, "\n");
	fprintf(f, "Devices come from PMR_CONFIG, PMR_DEVICES and PMR_EAL_ARGS;\n");
	fprintf(f, "with none of them set, the loopback device pmr_loop0.\n");
}

int main(int argc, char *argv[])
{
	static const struct option long_options[] = {
		{ .name = "ib-dev", .has_arg = 1, .val = 'd' },
		{ .name = "ib-port", .has_arg = 1, .val = 'i' },
		{ .name = "list", .has_arg = 0, .val = 'l' },
		{ .name = "verbose", .has_arg = 0, .val = 'v' },
		{ .name = "help", .has_arg = 0, .val = 'h' },
		{ 0 }
	};
	struct pmr_device **list;
	const char *devname = NULL;
	int list_only = 0, port = 0, ndev = 0, rc = 0, found = 0;
	int c;

	while ((c = getopt_long(argc, argv, "d:i:lvh", long_options,
				NULL)) != -1) {
		switch (c) {
		case 'd':
			devname = optarg;
			break;
		case 'i': {
			char *end;
			long v = strtol(optarg, &end, 0);

			if (*optarg == '\0' || *end != '\0' || v <= 0 ||
			    v > 255) {
				fprintf(stderr, "%s: invalid port '%s'\n",
					argv[0], optarg);
				usage(stderr, argv[0]);
				return 1;
			}
			port = (int)v;
			break;
		}
		case 'l':
			list_only = 1;
			break;
		case 'v':
			verbose = 1;
			break;
		case 'h':
			usage(stdout, argv[0]);
			return 0;
		default:
			usage(stderr, argv[0]);
			return 1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "%s: unexpected argument '%s'\n", argv[0],
			argv[optind]);
		usage(stderr, argv[0]);
		return 1;
	}

	list = pmr_get_device_list(&ndev);
	if (list == NULL) {
		fprintf(stderr, "Failed to get the device list: %s\n",
			strerror(errno));
		return 1;
	}

	if (list_only) {
		printf("%d HCA%s found:\n", ndev, ndev != 1 ? "s" : "");
		for (int i = 0; list[i] != NULL; i++)
			printf("\t%s\n", pmr_get_device_name(list[i]));
		printf("\n");
		pmr_free_device_list(list);
		return 0;
	}

	if (ndev == 0) {
		fprintf(stderr, "No devices found\n");
		pmr_free_device_list(list);
		return 1;
	}
	for (int i = 0; list[i] != NULL; i++) {
		if (devname != NULL &&
		    strcmp(pmr_get_device_name(list[i]), devname) != 0)
			continue;
		found = 1;
		rc |= print_hca_cap(list[i], port);
	}
	if (devname != NULL && !found) {
		fprintf(stderr, "Device '%s' wasn't found\n", devname);
		rc = 1;
	}
	pmr_free_device_list(list);
	return rc;
}
