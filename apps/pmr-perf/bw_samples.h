/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A bandwidth test's completions over time, and its peak rate from them:
 * pmr-perf's, kept apart (plain C, no DPDK) so that test_bw_samples.c
 * can check both on made-up runs.
 */
#ifndef PMR_PERF_BW_SAMPLES_H
#define PMR_PERF_BW_SAMPLES_H

#include <stddef.h>
#include <stdint.h>

struct bw_sample {
	uint64_t tsc, done;
};

/*
 * At most BW_SAMPLES samples, in an array the caller makes (and touches)
 * before the run, so that recording them takes no page fault in it.  When
 * it is full, every other sample goes and from then on every other one is
 * taken (the peak's span, a twentieth of the run at least, stays far
 * wider than the samples' spacing).
 */
#define BW_SAMPLES 65536
struct bw_samples {
	struct bw_sample *s;         /* BW_SAMPLES of them */
	size_t n;
	unsigned int every, skipped; /* every: 1 to start with */
};

/* done completions at time tsc. */
static inline void bw_sample_add(struct bw_samples *b, uint64_t tsc,
				 uint64_t done)
{
	if (++b->skipped < b->every)
		return;
	b->skipped = 0;
	if (b->n == BW_SAMPLES) {
		for (size_t i = 0; i < BW_SAMPLES / 2; i++)
			b->s[i] = b->s[2 * i + 1];
		b->n = BW_SAMPLES / 2;
		b->every *= 2;
	}
	b->s[b->n].tsc = tsc;
	b->s[b->n].done = done;
	b->n++;
}

/*
 * The peak, in MB/s (10^6 bytes) of size-byte messages at hz ticks a
 * second: the best rate over a span between two samples of at least win
 * completions that ends by tstop, the end of the steady posting (in the
 * drain after it the sender reaps more and posts less, at a pace it
 * could not keep while posting all the time).  0 when no span fits.
 */
static inline double bw_peak(const struct bw_samples *b, uint64_t win,
			     uint64_t tstop, double hz, double size)
{
	double peak = 0;
	size_t j = 0;

	for (size_t i = 0; i < b->n; i++) {
		const struct bw_sample *x = &b->s[i], *y;
		double bw;

		while (j < b->n && b->s[j].done - x->done < win)
			j++;
		if (j == b->n || b->s[j].tsc > tstop)
			break;
		y = &b->s[j];
		if (y->tsc == x->tsc)
			continue;
		bw = (double)(y->done - x->done) * size /
		     ((double)(y->tsc - x->tsc) / hz) / 1e6;
		if (bw > peak)
			peak = bw;
	}
	return peak;
}

/*
 * The peak's span for a run of `done` messages on nqp QPs of send queues
 * tx_depth deep: a twentieth of the messages, and every QP's send queue's
 * worth at least.  A shorter span holds a few signaled completions and
 * measures how they bunch (-q 8, the defaults: 12.3 M msg/s over 325
 * messages where 1024 gave 10.7).
 */
static inline uint64_t bw_window(uint64_t done, uint64_t tx_depth,
				 uint64_t nqp)
{
	uint64_t win = done / 20;

	return win < tx_depth * nqp ? tx_depth * nqp : win;
}

#endif
