/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pmr-perf's record of a bandwidth test's completions (bw_samples.h) on
 * made-up runs: the record's halving when full, and the peak's spans,
 * which end by the end of the steady posting and are at least the window
 * long, and the window itself.  The checks are lib/wire's
 * (test/wire/test_common.h).
 */
#include "test_common.h"

#include "bw_samples.h"

static struct bw_samples fresh(void)
{
	struct bw_samples b = { .every = 1 };

	b.s = calloc(BW_SAMPLES, sizeof(*b.s));
	REQUIRE(b.s != NULL);
	return b;
}

/* 200000 completions, one a tick: the record halves twice, keeps its
 * samples in order, evenly spaced, the last within `every` of the end. */
static void test_halving(void)
{
	struct bw_samples b = fresh();
	const uint64_t total = 200000;
	size_t bad = 0;

	for (uint64_t d = 1; d <= total; d++)
		bw_sample_add(&b, d, d);
	CHECK_EQ(b.every, 4);
	CHECK(b.n > BW_SAMPLES / 2 && b.n <= BW_SAMPLES);
	for (size_t i = 1; i < b.n; i++)
		if (b.s[i].tsc <= b.s[i - 1].tsc ||
		    b.s[i].done <= b.s[i - 1].done ||
		    b.s[i].done - b.s[i - 1].done > 4)
			bad++;
	CHECK_EQ(bad, 0);
	CHECK(total - b.s[b.n - 1].done < b.every);
	free(b.s);
}

/*
 * A run at 1 message a tick (1 MB/s of 1-byte messages at 1e6 ticks a
 * second) with a sample every 100 completions, whose last 1000 complete
 * in 10 ticks after the steady posting ends (tick 10000): the peak is the
 * steady rate, and would be far higher if a span could end in that drain.
 */
static void test_drain(void)
{
	struct bw_samples b = fresh();
	double p;

	for (uint64_t d = 100; d <= 10000; d += 100)
		bw_sample_add(&b, d, d);
	for (uint64_t d = 10100, t = 10001; d <= 11000; d += 100, t++)
		bw_sample_add(&b, t, d);
	p = bw_peak(&b, 500, 10000, 1e6, 1);
	CHECK(p > 0.99 && p < 1.01);
	/* the drain let in: the test would show a wrong end */
	CHECK(bw_peak(&b, 500, UINT64_MAX, 1e6, 1) > 1.5);
	/* no span of the window before the end: 0 */
	CHECK(bw_peak(&b, 20000, 10000, 1e6, 1) == 0);
	free(b.s);
}

/*
 * Completions in bursts: 800 at once every 100 ticks (8 M messages a
 * second at 1e6 ticks a second), two of them one tick apart once.  A
 * span of one burst measures that pair: 800 messages in a tick.  One of
 * twenty bursts smooths it to 5% over the steady rate.
 */
static void test_window(void)
{
	struct bw_samples b = fresh();
	const double steady = 8e6 * 64 / 1e6;    /* MB/s of 64-byte messages */
	uint64_t d = 0, t = 0;
	double p;

	for (int k = 0; k < 101; k++) {
		t += k == 50 ? 1 : 100;
		d += 800;
		bw_sample_add(&b, t, d);
	}
	CHECK(bw_peak(&b, 800, t, 1e6, 64) > 800 * 1e6 * 64 / 1e6 * 0.99);
	p = bw_peak(&b, 16000, t, 1e6, 64);
	CHECK(p >= steady && p < steady * 1.06);
	free(b.s);
}

/* The span: a twentieth of the messages, or every QP's send queue's
 * worth when that is more. */
static void test_window_rule(void)
{
	CHECK_EQ(bw_window(100000, 128, 1), 5000);
	CHECK_EQ(bw_window(100000, 128, 64), 8192);
	CHECK_EQ(bw_window(5000, 128, 1), 250);
	CHECK_EQ(bw_window(2000, 128, 1), 128);
	CHECK_EQ(bw_window(0, 16, 4), 64);
}

int main(void)
{
	test_halving();
	test_drain();
	test_window();
	test_window_rule();
	return test_report("bw_samples");
}
