/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Every allocation of the verbs that create objects, made to fail in turn:
 * the verb returns ENOMEM and changes nothing (no memory or descriptor
 * kept, no QP number used up, the PD and CQs free to go), and the next
 * call succeeds.  One process, a RoCE device on a net_ring vdev (ring.sh),
 * so that the RoCE driver's own allocations of a QP are among them.
 *
 * This program defines calloc() and aligned_alloc(), the two the library
 * and the driver allocate objects with; being the executable's, they are
 * the ones libpmrdma's calls reach.  Armed, the n-th call of one of them
 * from the test's thread returns NULL; otherwise they allocate through
 * malloc() and posix_memalign(), which they leave alone.
 */
#include <dirent.h>
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmr_verbs.h>

#include "vt.h"

/* ---- the failing allocator --------------------------------------------- */

enum { FI_CALLOC, FI_ALIGNED, FI_KINDS };
static const char *const fi_names[FI_KINDS] = { "calloc", "aligned_alloc" };

static atomic_bool fi_armed;    /* read first: nothing else before main() */
static pthread_t fi_thread;
static long fi_left[FI_KINDS];  /* calls until the one that fails */
static bool fi_fired;

static bool fi_fail(int kind)
{
	if (!atomic_load_explicit(&fi_armed, memory_order_acquire) ||
	    !pthread_equal(pthread_self(), fi_thread) || fi_left[kind] == 0)
		return false;
	if (--fi_left[kind] != 0)
		return false;
	fi_fired = true;
	return true;
}

void *calloc(size_t n, size_t size)
{
	size_t total;
	void *p;

	if (fi_fail(FI_CALLOC) || (size != 0 && n > SIZE_MAX / size)) {
		errno = ENOMEM;
		return NULL;
	}
	total = n * size;
	p = malloc(total != 0 ? total : 1);
	if (p != NULL)
		memset(p, 0, total);
	return p;
}

void *aligned_alloc(size_t align, size_t size)
{
	void *p = NULL;
	int rc;

	if (fi_fail(FI_ALIGNED)) {
		errno = ENOMEM;
		return NULL;
	}
	rc = posix_memalign(&p, align < sizeof(void *) ? sizeof(void *) :
			    align, size);
	if (rc != 0) {
		errno = rc;
		return NULL;
	}
	return p;
}

/* The n-th call of `kind` from this thread fails. */
static void fi_arm(int kind, long n)
{
	memset(fi_left, 0, sizeof(fi_left));
	fi_left[kind] = n;
	fi_fired = false;
	fi_thread = pthread_self();
	atomic_store_explicit(&fi_armed, true, memory_order_release);
}

/* Disarm; @return whether the failure happened. */
static bool fi_disarm(void)
{
	atomic_store_explicit(&fi_armed, false, memory_order_release);
	return fi_fired;
}

/* ---- what "changes nothing" is checked against ------------------------- */

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	CHECK(d != NULL);
	while (readdir(d) != NULL)
		n++;
	closedir(d);
	return n;
}

/* Bytes of heap in use (glibc's per-thread cache is off: ring.sh); under
 * ASan the heap is its own, and LeakSanitizer checks at exit instead. */
static size_t heap_in_use(void)
{
#if defined(__SANITIZE_ADDRESS__)
	return 0;
#else
	return mallinfo2().uordblks;
#endif
}

/* ---- the verbs ------------------------------------------------------------ */

static struct vt v;
static struct pmr_cq *cq;
static uint8_t buf[4096];
static unsigned int failed_total;
static uint32_t last_qpn;

typedef void *(*make_fn)(void);
typedef void (*unmake_fn)(void *);

static void *make_pd(void) { return pmr_alloc_pd(v.ctx); }
static void unmake_pd(void *o) { CHECK_EQ(pmr_dealloc_pd(o), 0); }

static void *make_mr(void)
{
	return pmr_reg_mr(v.pd, buf, sizeof(buf), PMR_ACCESS_LOCAL_WRITE);
}
static void unmake_mr(void *o) { CHECK_EQ(pmr_dereg_mr(o), 0); }

static void *make_cq(void)
{
	return pmr_create_cq(v.ctx, 64, NULL, NULL, 0);
}
static void unmake_cq(void *o) { CHECK_EQ(pmr_destroy_cq(o), 0); }

static void *make_channel(void) { return pmr_create_comp_channel(v.ctx); }
static void unmake_channel(void *o)
{
	CHECK_EQ(pmr_destroy_comp_channel(o), 0);
}

static void *make_srq(void)
{
	struct pmr_srq_init_attr a;

	memset(&a, 0, sizeof(a));
	a.attr.max_wr = 32;
	a.attr.max_sge = 2;
	return pmr_create_srq(v.pd, &a);
}
static void unmake_srq(void *o) { CHECK_EQ(pmr_destroy_srq(o), 0); }

static void *make_ah(void)
{
	struct pmr_ah_attr ah;

	vt_ah_attr(&v, &ah);
	return pmr_create_ah(v.pd, &ah);
}
static void unmake_ah(void *o) { CHECK_EQ(pmr_destroy_ah(o), 0); }

static void *make_qp(void)
{
	struct pmr_qp_init_attr ia = vt_qp_attr(PMR_QPT_RC, cq, cq, 16, 0);

	return pmr_create_qp(v.pd, &ia);
}
static void unmake_qp(void *o)
{
	/* the QP numbers go in turn: a creation that failed took none */
	struct pmr_qp *qp = o;

	if (last_qpn != 0)
		EXPECT_EQ_MSG(qp->qp_num, last_qpn + 1,
			      "QP number after failed creations");
	last_qpn = qp->qp_num;
	CHECK_EQ(pmr_destroy_qp(qp), 0);
}

/*
 * For each allocator, fail its first call in make(), then its second,
 * and so on until make() succeeds with no failure made: every allocation
 * of the verb fails once.  Each failure: NULL and ENOMEM, no heap or
 * descriptor kept.  @return the failures made.
 */
static unsigned int sweep(const char *what, make_fn make, unmake_fn unmake)
{
	unsigned int made = 0;

	/* a first call does what is done once (lazy set-up) */
	unmake(make());
	for (int k = 0; k < FI_KINDS; k++) {
		for (long n = 1;; n++) {
			size_t heap = heap_in_use();
			int fds = count_fds();
			bool fired;
			void *o;

			/* it must end in a creation with nothing failed */
			CHECK(n < 64);
			errno = 0;
			fi_arm(k, n);
			o = make();
			fired = fi_disarm();
			if (!fired) {
				CHECK(o != NULL);
				unmake(o);
				break;
			}
			made++;
			EXPECT_MSG(o == NULL && errno == ENOMEM,
				   "%s with %s call %ld failing: %p, errno %d",
				   what, fi_names[k], n, o, errno);
			if (o != NULL)
				unmake(o);
			EXPECT_EQ_MSG(heap_in_use(), heap, "%s: heap kept after "
				      "%s call %ld failed", what, fi_names[k],
				      n);
			EXPECT_EQ_MSG(count_fds(), fds, "%s: descriptors kept "
				      "after %s call %ld failed", what,
				      fi_names[k], n);
		}
	}
	/* none at all: these are not the allocators the library calls */
	CHECK(made > 0);
	printf("%s: %u allocation failures, each ENOMEM, nothing kept\n",
	       what, made);
	return made;
}

/* pmr_resize_cq: its new ring fails; the CQ keeps its size and its
 * completions. */
static void resize_fails(void)
{
	struct pmr_cq *c = pmr_create_cq(v.ctx, 16, NULL, NULL, 0);
	int before, rc;
	bool fired;

	CHECK(c != NULL);
	before = c->cqe;
	fi_arm(FI_ALIGNED, 1);
	rc = pmr_resize_cq(c, 256);
	fired = fi_disarm();
	CHECK(fired);
	EXPECT_EQ_MSG(rc, ENOMEM, "pmr_resize_cq with its ring failing");
	EXPECT_EQ_MSG(c->cqe, before, "CQ size after a failed resize");
	CHECK_EQ(pmr_resize_cq(c, 256), 0);
	EXPECT(c->cqe >= 256);
	CHECK_EQ(pmr_destroy_cq(c), 0);
	failed_total++;
}

/* After all that: two QPs connected to each other carry a SEND. */
static void still_works(void)
{
	struct vt_opts o = vt_opts_default();
	struct pmr_sge ss = { (uintptr_t)buf, 32, 0 }, rs;
	struct pmr_send_wr s;
	struct pmr_recv_wr r;
	struct pmr_mr *mr;
	struct pmr_wc wc;
	struct vt_pair p;

	mr = vt_mr(v.pd, buf, sizeof(buf), PMR_ACCESS_LOCAL_WRITE);
	rs = (struct pmr_sge){ (uintptr_t)buf + 64, 32, mr->lkey };
	ss.lkey = mr->lkey;
	memset(buf, 0x5a, 32);
	vt_pair(&v, PMR_QPT_RC, &o, 1, &p);
	r = vt_rwr(2, &rs, 1);
	CHECK_EQ(vt_post_recv1(p.qp[1], &r), 0);
	s = vt_swr(1, PMR_WR_SEND, &ss, 1, 0);
	CHECK_EQ(vt_post_send1(p.qp[0], &s), 0);
	vt_poll1(p.scq[0], &wc);
	CHECK_WC(wc, PMR_WC_SUCCESS);
	vt_poll1(p.rcq[1], &wc);
	CHECK_WC(wc, PMR_WC_SUCCESS);
	EXPECT_EQ(wc.byte_len, 32u);
	EXPECT_EQ(memcmp(buf, buf + 64, 32), 0);
	vt_pair_destroy(&p);
	CHECK_EQ(pmr_dereg_mr(mr), 0);
}

int main(void)
{
	unsigned int n;

	vt_open(&v);
	cq = vt_cq(&v, 64);
	failed_total += sweep("pmr_alloc_pd", make_pd, unmake_pd);
	failed_total += sweep("pmr_reg_mr", make_mr, unmake_mr);
	failed_total += sweep("pmr_create_cq", make_cq, unmake_cq);
	failed_total += sweep("pmr_create_comp_channel", make_channel,
			      unmake_channel);
	failed_total += sweep("pmr_create_srq", make_srq, unmake_srq);
	failed_total += sweep("pmr_create_ah", make_ah, unmake_ah);
	/* the QP object with the RoCE state after it, its two rings, the
	 * RoCE per-WQE table: four at least */
	n = sweep("pmr_create_qp (RC, RoCE)", make_qp, unmake_qp);
	EXPECT_MSG(n >= 4, "pmr_create_qp: %u allocations failed", n);
	failed_total += n;
	resize_fails();
	still_works();
	/* the CQ and PD the QPs used are free to go: no reference left */
	CHECK_EQ(pmr_destroy_cq(cq), 0);
	vt_close(&v);
	printf("%u allocation failures in all\n", failed_total);
	return vt_exit();
}
