/*
 * gpu_histjoin.cu
 *	  Standalone benchmark of the histogram, hash join and gather device
 *	  cores.
 *
 * Usage: gpu_histjoin [rows [build_rows [reps]]]
 * (defaults 100000000, 1000000, 10).  Fills the columns on the device, warms
 * up, then times each operation with CUDA events and prints the median of
 * reps runs as a markdown table:
 *   - a device-to-device copy of the float64 column (the bandwidth reference:
 *     bytes read + written),
 *   - histogram of rows float64 values in [0, 1), 100 bins, given domain and
 *     automatic domain,
 *   - hash join: build on build_rows distinct int32 keys, probe with rows
 *     int32 keys that each match exactly one build row (size pass, fill
 *     pass, both),
 *   - gather of rows float64 values by a random index map.
 * GB/s is the bytes the operation must move (stated per row) over the time;
 * "% copy" compares that with the copy's GB/s.
 */
#include <algorithm>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>

#include <cuda_runtime.h>

#include "gpo.h"
#include "../kernels/gpo_histjoin.cuh"
#include "bench_cuda.cuh"

/* Build key of build row i: distinct for every i < 2^32. */
__host__ __device__ static inline int32_t
bench_build_key(uint64_t i)
{
	return (int32_t) (uint32_t) (i * 0x9E3779B1u);
}

/* Fills float64 values uniform in [0, 1). */
__global__ void
bench_fill_f64(double *d_out, int64_t n)
{
	for (int64_t i = (int64_t) blockIdx.x * blockDim.x + threadIdx.x; i < n;
		 i += (int64_t) gridDim.x * blockDim.x)
		d_out[i] = (bench_hash((uint64_t) i) >> 11) * 0x1p-53;
}

/* Fills the build keys and probe keys (each probe key is one build key). */
__global__ void
bench_fill_keys(int32_t *d_build, int64_t m, int32_t *d_probe, int64_t n)
{
	for (int64_t i = (int64_t) blockIdx.x * blockDim.x + threadIdx.x;
		 i < (m > n ? m : n); i += (int64_t) gridDim.x * blockDim.x)
	{
		if (i < m)
			d_build[i] = bench_build_key((uint64_t) i);
		if (i < n)
			d_probe[i] = bench_build_key(bench_hash((uint64_t) i ^ 0x5555ull) %
										 (uint64_t) m);
	}
}

/* Fills a random index map into [0, n_in). */
__global__ void
bench_fill_index(int64_t *d_index, int64_t n, int64_t n_in)
{
	for (int64_t i = (int64_t) blockIdx.x * blockDim.x + threadIdx.x; i < n;
		 i += (int64_t) gridDim.x * blockDim.x)
		d_index[i] = (int64_t) (bench_hash((uint64_t) i * 7 + 1) % (uint64_t) n_in);
}

/* Prints one table row: rows/s over rows, GB/s over bytes, % of copy. */
static void
row(const char *what, double ms, double rows, double bytes, double copy_gbs,
	const char *note)
{
	double		gbs = bytes / (ms * 1e-3) / 1e9;

	printf("| %s | %.3f | %.2f | %.1f | %.0f%% | %s |\n", what, ms,
		   rows / (ms * 1e-3) / 1e9, gbs, copy_gbs > 0 ? 100.0 * gbs / copy_gbs : 100.0,
		   note);
}

/* Runs the benchmark. */
int
main(int argc, char **argv)
{
	int64_t		n = argc > 1 ? atoll(argv[1]) : 100000000;
	int64_t		m = argc > 2 ? atoll(argv[2]) : 1000000;
	int			reps = argc > 3 ? atoi(argv[3]) : 10;
	double		nb = (double) n;
	double		mb = (double) m;
	double		ms;
	double		copy_gbs;
	double	   *d_f64;
	double	   *d_copy;
	int64_t    *d_minmax;
	unsigned long long *d_counts;
	int32_t    *d_build;
	int32_t    *d_probe;
	long long  *d_pos;
	long long  *d_ob;
	long long  *d_op;
	int64_t    *d_index;
	unsigned int *d_bad;
	void	   *d_temp;
	size_t		build_bytes = 0;
	size_t		scan_bytes = 0;
	long long	total = 0;
	unsigned long long h_counts[102];
	gpo_cuda_join_table t;
	gpo_hist_spec given = {100, false, 0.0, 1.0};
	gpo_hist_spec autod = {100, true, 0.0, 0.0};
	cudaDeviceProp prop;

	BENCH_CHECK(cudaGetDeviceProperties(&prop, 0));
	BENCH_CHECK(cudaMalloc(&d_f64, sizeof(double) * n));
	BENCH_CHECK(cudaMalloc(&d_copy, sizeof(double) * n));
	BENCH_CHECK(cudaMalloc(&d_minmax, 2 * sizeof(int64_t)));
	BENCH_CHECK(cudaMalloc(&d_counts, sizeof(h_counts)));
	BENCH_CHECK(cudaMalloc(&d_build, sizeof(int32_t) * m));
	BENCH_CHECK(cudaMalloc(&d_probe, sizeof(int32_t) * n));
	BENCH_CHECK(cudaMalloc(&d_pos, sizeof(long long) * (n + 1)));
	BENCH_CHECK(cudaMalloc(&d_ob, sizeof(long long) * n));
	BENCH_CHECK(cudaMalloc(&d_op, sizeof(long long) * n));
	BENCH_CHECK(cudaMalloc(&d_index, sizeof(int64_t) * n));
	BENCH_CHECK(cudaMalloc(&d_bad, sizeof(unsigned int)));
	t.cap = gpo_join_capacity(m);
	BENCH_CHECK(cudaMalloc(&t.d_slots, sizeof(unsigned long long) * t.cap));
	BENCH_CHECK(cudaMalloc(&t.d_off, sizeof(long long) * (t.cap + 2)));
	BENCH_CHECK(cudaMalloc(&t.d_rows, sizeof(long long) * m));
	BENCH_CHECK(gpo_cuda_join_build(GPO_INT32, d_build, NULL, m, &t, NULL,
									&build_bytes, 0));
	BENCH_CHECK(gpo_cuda_join_count(GPO_INT32, d_probe, NULL, n, &t,
									GPO_JOIN_INNER, d_pos,
									NULL, &scan_bytes, 0));
	BENCH_CHECK(cudaMalloc(&d_temp, std::max(build_bytes, scan_bytes)));

	bench_fill_f64<<<1024, 256>>>(d_f64, n);
	bench_fill_keys<<<1024, 256>>>(d_build, m, d_probe, n);
	bench_fill_index<<<1024, 256>>>(d_index, n, n);
	BENCH_CHECK(cudaGetLastError());
	BENCH_CHECK(cudaDeviceSynchronize());

	printf("device: %s; rows %lld, build rows %lld, reps %d (median)\n\n",
		   prop.name, (long long) n, (long long) m, reps);
	printf("| operation | ms | Grows/s | GB/s | %% copy | bytes counted |\n");
	printf("| --- | ---: | ---: | ---: | ---: | --- |\n");

	ms = bench_time(reps, [&]() {
		BENCH_CHECK(cudaMemcpyAsync(d_copy, d_f64, sizeof(double) * n,
									cudaMemcpyDeviceToDevice, 0));
	});
	copy_gbs = 16.0 * nb / (ms * 1e-3) / 1e9;
	row("device copy, float64", ms, nb, 16.0 * nb, copy_gbs, "8 read + 8 written a row");

	ms = bench_time(reps, [&]() {
		BENCH_CHECK(gpo_cuda_histogram(GPO_FLOAT64, d_f64, NULL, NULL, NULL, n,
									   &given, d_minmax, d_counts, 0));
	});
	row("histogram float64, 100 bins, given [0,1)", ms, nb, 8.0 * nb, copy_gbs,
		"8 read a row");
	BENCH_CHECK(cudaMemcpy(h_counts, d_counts, sizeof(h_counts), cudaMemcpyDeviceToHost));
	{
		unsigned long long sum = 0;

		for (int k = 0; k < 102; k++)
			sum += h_counts[k];
		if (sum != (unsigned long long) n || h_counts[0] != 0 || h_counts[101] != 0)
			printf("| (check failed: histogram counts %llu of %lld rows) | | | | | |\n",
				   sum, (long long) n);
	}

	ms = bench_time(reps, [&]() {
		BENCH_CHECK(gpo_cuda_histogram(GPO_FLOAT64, d_f64, NULL, NULL, NULL, n,
									   &autod, d_minmax, d_counts, 0));
	});
	row("histogram float64, 100 bins, automatic domain", ms, nb, 8.0 * nb, copy_gbs,
		"8 a row (the data is read twice)");

	ms = bench_time(reps, [&]() {
		BENCH_CHECK(gpo_cuda_join_build(GPO_INT32, d_build, NULL, m, &t, d_temp,
										&build_bytes, 0));
	});
	row("join build, int32 keys (build rows)", ms, mb, 4.0 * mb, copy_gbs,
		"4 a build row");

	ms = bench_time(reps, [&]() {
		BENCH_CHECK(gpo_cuda_join_count(GPO_INT32, d_probe, NULL, n, &t,
									GPO_JOIN_INNER, d_pos,
										d_temp, &scan_bytes, 0));
	});
	row("join probe size pass (count + scan)", ms, nb, 4.0 * nb + 16.0 * nb, copy_gbs,
		"4 key + 8 count written + 8 scan read");
	BENCH_CHECK(cudaMemcpy(&total, d_pos + n, sizeof(total), cudaMemcpyDeviceToHost));
	if (total != n)
		printf("| (check failed: %lld pairs, want %lld) | | | | | |\n",
			   total, (long long) n);

	ms = bench_time(reps, [&]() {
		BENCH_CHECK(gpo_cuda_join_fill(GPO_INT32, d_probe, NULL, n, &t, GPO_JOIN_INNER,
									   d_pos, d_ob, NULL, d_op, 0));
	});
	row("join probe fill pass (pairs)", ms, nb, 4.0 * nb + 8.0 * nb + 16.0 * nb,
		copy_gbs, "4 key + 8 position read + 16 pair written");

	ms = bench_time(reps, [&]() {
		BENCH_CHECK(gpo_cuda_join_build(GPO_INT32, d_build, NULL, m, &t, d_temp,
										&build_bytes, 0));
		BENCH_CHECK(gpo_cuda_join_count(GPO_INT32, d_probe, NULL, n, &t,
									GPO_JOIN_INNER, d_pos,
										d_temp, &scan_bytes, 0));
		BENCH_CHECK(gpo_cuda_join_fill(GPO_INT32, d_probe, NULL, n, &t, GPO_JOIN_INNER,
									   d_pos, d_ob, NULL, d_op, 0));
	});
	row("hash join, build + probe (probe rows)", ms, nb, 4.0 * nb + 16.0 * nb,
		copy_gbs, "4 key read + 16 pair written a probe row");

	ms = bench_time(reps, [&]() {
		BENCH_CHECK(gpo_cuda_gather(sizeof(double), d_f64, NULL, n, d_index, NULL,
									n, d_copy, NULL, d_bad, 0));
	});
	row("gather float64, random index", ms, nb, 24.0 * nb, copy_gbs,
		"8 index + 8 random value read + 8 written");

	cudaFree(d_temp);
	cudaFree(t.d_rows);
	cudaFree(t.d_off);
	cudaFree(t.d_slots);
	cudaFree(d_bad);
	cudaFree(d_index);
	cudaFree(d_op);
	cudaFree(d_ob);
	cudaFree(d_pos);
	cudaFree(d_probe);
	cudaFree(d_build);
	cudaFree(d_counts);
	cudaFree(d_minmax);
	cudaFree(d_copy);
	cudaFree(d_f64);
	return 0;
}
