/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A fuzz target: libFuzzer's entry points and the target's own seeds.
 * Built two ways (test/fuzz/meson.build): with replay.c, a main() that
 * runs files, or the seeds and inputs mutated from them by a fixed
 * random sequence (the fast and func suites, any compiler); and, with
 * -Dfuzz=true and clang, linked with libFuzzer for coverage-guided runs.
 */
#ifndef PMR_FUZZ_H
#define PMR_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* Run one input.  A failed check aborts (the input is the finding). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Once, before the first input. */
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* Seed i written into buf (cap bytes): its length, 0 past the last. */
size_t fuzz_seed(unsigned int i, uint8_t *buf, size_t cap);

/* A target's check: a failure aborts, so that both builds report the
 * input (libFuzzer writes it out, replay.c names it). */
#define FZ_CHECK(c) do { \
	if (!(c)) { \
		fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, \
			__LINE__, #c); \
		abort(); \
	} \
} while (0)

/* Inputs longer than this are cut (both builds). */
#define FUZZ_MAX_INPUT 4096

#endif
