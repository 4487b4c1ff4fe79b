/*
 * bench_cuda.cuh
 *	  Helpers shared by the GPU benchmarks (bench/gpu_*.cu): CUDA and engine
 *	  error checks, a well-mixed hash for generating data on the device, and the
 *	  CUDA-event timer that reports the median of repeated runs.
 */
#ifndef BENCH_CUDA_CUH
#define BENCH_CUDA_CUH

#include <algorithm>
#include <stdio.h>
#include <stdlib.h>
#include <vector>

#include <cuda_runtime.h>

/* Exits with a message when a CUDA call fails. */
#define BENCH_CHECK(call) \
	do { \
		cudaError_t bench_err_ = (call); \
		if (bench_err_ != cudaSuccess) \
		{ \
			fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, \
					cudaGetErrorString(bench_err_)); \
			exit(1); \
		} \
	} while (0)

/* Exits with a message when an engine call (a gpo_status, ctx its gpo_ctx) fails. */
#define BENCH_OK(call, ctx) \
	do { \
		gpo_status bench_st_ = (call); \
		if (bench_st_ != GPO_OK) \
		{ \
			fprintf(stderr, "%s:%d: %s: status %d (%s)\n", __FILE__, __LINE__, #call, \
					(int) bench_st_, (ctx).detail); \
			exit(1); \
		} \
	} while (0)

/* A well-mixed 64-bit hash (splitmix64's finalizer). */
__host__ __device__ static inline uint64_t
bench_hash(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/* Times fn reps times (after 2 warm-ups) with CUDA events; the median in ms. */
template <typename F>
static double
bench_time(int reps, F fn)
{
	cudaEvent_t start;
	cudaEvent_t stop;
	std::vector<float> ms;

	BENCH_CHECK(cudaEventCreate(&start));
	BENCH_CHECK(cudaEventCreate(&stop));
	for (int r = 0; r < 2; r++)
		fn();
	BENCH_CHECK(cudaDeviceSynchronize());
	for (int r = 0; r < reps; r++)
	{
		float		t = 0;

		BENCH_CHECK(cudaEventRecord(start, 0));
		fn();
		BENCH_CHECK(cudaEventRecord(stop, 0));
		BENCH_CHECK(cudaEventSynchronize(stop));
		BENCH_CHECK(cudaEventElapsedTime(&t, start, stop));
		ms.push_back(t);
	}
	BENCH_CHECK(cudaEventDestroy(start));
	BENCH_CHECK(cudaEventDestroy(stop));
	std::sort(ms.begin(), ms.end());
	return ms[ms.size() / 2];
}

#endif							/* BENCH_CUDA_CUH */
