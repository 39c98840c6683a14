/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A memif client device whose server leaves and comes back: the client
 * of memif_restart.sh.  Its RoCE device (PMR_DEVICES) is its own
 * neighbour, so that two of its QPs exchange frames through the server,
 * memif_echo, which sends back what it receives.
 *
 * - with the server up, a SEND passes;
 * - the program writes DIR/ready and the script kills the server: one
 *   PORT_ERR within 10 s; the program writes DIR/down, and the script
 *   starts another server 1.5 s later (meanwhile the device's starts of
 *   its port fail: no server);
 * - one PORT_ACTIVE within 10 s: the device connected to the new server
 *   (memif itself does not try again), and a SEND passes.
 *
 *   memif_restart DIR      run by memif_restart.sh
 */
#include <stdio.h>
#include <string.h>

#include <pmr_verbs.h>

#include "vt.h"

static void mark(const char *dir, const char *name)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	CHECK(f != NULL);
	fclose(f);
}

int main(int argc, char **argv)
{
	struct vt v;

	if (argc != 2) {
		fprintf(stderr, "usage: memif_restart DIR\n");
		return 2;
	}
	vt_open(&v);
	vt_send_passes(&v);
	mark(argv[1], "ready");
	vt_port_event(&v, PMR_EVENT_PORT_ERR, 10000, "the server gone");
	mark(argv[1], "down");
	vt_port_event(&v, PMR_EVENT_PORT_ACTIVE, 10000, "another server");
	vt_send_passes(&v);
	vt_close(&v);
	return vt_exit();
}
