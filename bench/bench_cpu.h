/*
 * bench_cpu.h
 *	  Helpers the CPU benchmarks share (bench/cpu_primitives.c,
 *	  bench/cpu_strdict.c): a seeded generator, the clock, an ordering of
 *	  doubles for medians, and allocation that exits when memory is short.
 */
#ifndef BENCH_CPU_H
#define BENCH_CPU_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The next value of the xorshift64 generator at *s. */
static inline uint64_t
xorshift64(uint64_t *s)
{
	uint64_t	x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*s = x;
	return x;
}

/* Seconds on the monotonic clock. */
static inline double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double) ts.tv_sec + (double) ts.tv_nsec * 1e-9;
}

/* Orders doubles for qsort. */
static inline int
cmp_double(const void *a, const void *b)
{
	double		x = *(const double *) a;
	double		y = *(const double *) b;

	return (x > y) - (x < y);
}

/* Allocates bytes (at least 1) and touches every page, or exits. */
static inline void *
xalloc(size_t bytes)
{
	void	   *p = malloc(bytes > 0 ? bytes : 1);

	if (p == NULL)
	{
		fprintf(stderr, "out of memory (%zu bytes)\n", bytes);
		exit(1);
	}
	memset(p, 0, bytes > 0 ? bytes : 1);
	return p;
}

#endif							/* BENCH_CPU_H */
