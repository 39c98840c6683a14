/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * main() of a fuzz target built without libFuzzer.
 *
 *   TARGET [-n N] [-s SEED] [-f F | -k K] [FILE|DIR...]
 *   TARGET -w DIR
 *
 * With files (a directory: every regular file in it), runs each.  Without,
 * runs the target's seeds, then N inputs (default 2000), each a seed or
 * the input before it changed by a few random edits from an xorshift
 * sequence started at SEED
 * (default 1), so that input K of a seed is the same on every machine;
 * -f F skips the seeds and the inputs before F (to narrow down a failure
 * that needs inputs before it: the target keeps its device), -k K runs
 * input K alone and writes it to TARGET-K.bin for a closer look
 * (or for the libFuzzer build).  -w DIR writes the seeds into DIR: a
 * first corpus for the libFuzzer build.  A failed check aborts, and the
 * input it failed on is named on stderr.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"

static uint64_t rng;
static char current[96];        /* which input runs: for the crash report */

/* ASan and UBSan report and end the process without a signal: their
 * death callback names the input (weak: absent without sanitizers). */
void __sanitizer_set_death_callback(void (*cb)(void)) __attribute__((weak));

static void say_current(void)
{
	ssize_t r = write(2, current, strlen(current));

	(void)r;
}

static void on_signal(int sig)
{
	say_current();
	signal(sig, SIG_DFL);
	raise(sig);
}

static uint32_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 16);
}

static size_t rnd_below(size_t n)
{
	return n ? rnd() % n : 0;
}

/* One random edit of buf (*len bytes, room for FUZZ_MAX_INPUT). */
static void mutate_once(uint8_t *buf, size_t *len)
{
	static const uint8_t interesting[] = { 0, 1, 0x7F, 0x80, 0xFF, 0x40 };
	size_t n = *len, at = rnd_below(n), k;

	switch (rnd() % 7) {
	case 0:                 /* flip a bit */
		if (n)
			buf[at] ^= (uint8_t)(1u << (rnd() % 8));
		break;
	case 1:                 /* a random byte */
		if (n)
			buf[at] = (uint8_t)rnd();
		break;
	case 2:                 /* an interesting byte */
		if (n)
			buf[at] = interesting[rnd() % sizeof(interesting)];
		break;
	case 3:                 /* insert random bytes */
		k = 1 + rnd_below(8);
		if (n + k > FUZZ_MAX_INPUT)
			break;
		memmove(buf + at + k, buf + at, n - at);
		for (size_t i = 0; i < k; i++)
			buf[at + i] = (uint8_t)rnd();
		*len = n + k;
		break;
	case 4:                 /* delete a range */
		k = 1 + rnd_below(16);
		if (at + k > n)
			k = n - at;
		memmove(buf + at, buf + at + k, n - at - k);
		*len = n - k;
		break;
	case 5:                 /* copy a range over another place */
		if (n > 1) {
			size_t from = rnd_below(n);

			k = 1 + rnd_below(n - (at > from ? at : from));
			memmove(buf + at, buf + from, k);
		}
		break;
	default:                /* duplicate a range (a repeated step) */
		k = 1 + rnd_below(24);
		if (at + k > n)
			k = n - at;
		if (n + k > FUZZ_MAX_INPUT)
			break;
		memmove(buf + at + k, buf + at, n - at);
		*len = n + k;
		break;
	}
}

/* Run the input in file path; *count counts the inputs run. */
static int run_file(const char *path, unsigned long *count)
{
	static uint8_t buf[FUZZ_MAX_INPUT];
	FILE *f = fopen(path, "rb");
	size_t n;

	if (f == NULL) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return 1;
	}
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	snprintf(current, sizeof(current), "failed on %s\n", path);
	LLVMFuzzerTestOneInput(buf, n);
	(*count)++;
	return 0;
}

static int run_path(const char *path, unsigned long *count)
{
	struct stat st;
	struct dirent *e;
	DIR *d;
	int bad = 0;

	if (stat(path, &st) != 0) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return 1;
	}
	if (!S_ISDIR(st.st_mode))
		return run_file(path, count);
	d = opendir(path);
	if (d == NULL) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return 1;
	}
	while ((e = readdir(d)) != NULL) {
		char p[4096];

		snprintf(p, sizeof(p), "%s/%s", path, e->d_name);
		if (stat(p, &st) == 0 && S_ISREG(st.st_mode))
			bad |= run_file(p, count);
	}
	closedir(d);
	return bad;
}

static int write_file(const char *path, const uint8_t *b, size_t n)
{
	FILE *f = fopen(path, "wb");

	if (f == NULL || fwrite(b, 1, n, f) != n || fclose(f) != 0) {
		fprintf(stderr, "%s: cannot write\n", path);
		return 1;
	}
	return 0;
}

static unsigned int count_seeds(void)
{
	static uint8_t b[FUZZ_MAX_INPUT];
	unsigned int n = 0;

	while (fuzz_seed(n, b, sizeof(b)) > 0)
		n++;
	return n;
}

static void usage(const char *me)
{
	fprintf(stderr, "usage: %s [-n N] [-s SEED] [-f F | -k K] [FILE|DIR...]\n"
		"       %s -w DIR\n", me, me);
	exit(2);
}

int main(int argc, char **argv)
{
	static uint8_t buf[FUZZ_MAX_INPUT], prev[FUZZ_MAX_INPUT];
	size_t prev_len = 0;
	unsigned long n = 2000, seed = 1, only = 0, first = 1, count = 0;
	const char *wdir = NULL;
	unsigned int nseeds;
	int opt, bad = 0;

	while ((opt = getopt(argc, argv, "n:s:f:k:w:")) != -1) {
		switch (opt) {
		case 'f': first = strtoul(optarg, NULL, 0); break;
		case 'n': n = strtoul(optarg, NULL, 0); break;
		case 's': seed = strtoul(optarg, NULL, 0); break;
		case 'k': only = strtoul(optarg, NULL, 0); break;
		case 'w': wdir = optarg; break;
		default: usage(argv[0]);
		}
	}
	nseeds = count_seeds();
	if (wdir != NULL) {
		for (unsigned int i = 0; i < nseeds; i++) {
			char p[4096];
			size_t len = fuzz_seed(i, buf, sizeof(buf));

			snprintf(p, sizeof(p), "%s/seed-%03u", wdir, i);
			bad |= write_file(p, buf, len);
		}
		return bad;
	}
	if (__sanitizer_set_death_callback)
		__sanitizer_set_death_callback(say_current);
	signal(SIGABRT, on_signal);
	signal(SIGSEGV, on_signal);
	signal(SIGBUS, on_signal);
	LLVMFuzzerInitialize(&argc, &argv);

	if (optind < argc) {
		for (int i = optind; i < argc; i++)
			bad |= run_path(argv[i], &count);
		printf("%lu inputs from files\n", count);
		return bad;
	}
	if (nseeds == 0)
		return 1;
	if (only != 0)
		first = only;
	for (unsigned int i = 0; i < nseeds && first == 1; i++) {
		size_t len = fuzz_seed(i, buf, sizeof(buf));

		snprintf(current, sizeof(current), "failed on seed %u\n", i);
		LLVMFuzzerTestOneInput(buf, len);
	}
	rng = seed * 0x9E3779B97F4A7C15ull + 1;
	for (unsigned long k = 1; k <= (only ? only : n); k++) {
		size_t len = prev_len;

		/* half of the time the input before changed further (edits
		 * add up), else a seed */
		if (k == 1 || rnd() % 2 == 0)
			len = fuzz_seed((unsigned int)rnd_below(nseeds), buf,
					sizeof(buf));
		else
			memcpy(buf, prev, len);

		for (unsigned int e = 1 + (unsigned int)rnd_below(8); e > 0; e--)
			mutate_once(buf, &len);
		memcpy(prev, buf, len);
		prev_len = len;
		if (k < first)
			continue;
		snprintf(current, sizeof(current),
			 "failed on input %lu of seed %lu (-s %lu -k %lu)\n",
			 k, seed, seed, k);
		if (only != 0) {
			char p[4096];

			snprintf(p, sizeof(p), "%s-%lu.bin",
				 strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 :
				 argv[0], k);
			bad |= write_file(p, buf, len);
		}
		LLVMFuzzerTestOneInput(buf, len);
	}
	printf("%u seeds and %lu mutated inputs (seed %lu): no failure\n",
	       first == 1 ? nseeds : 0, only ? 1 : n + 1 - first, seed);
	return bad;
}
