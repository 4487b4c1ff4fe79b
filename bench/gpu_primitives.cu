/*
 * gpu_primitives.cu
 *	  Standalone benchmark of the GPU primitives' device-resident cores.
 *
 * Usage: gpu_primitives [rows [mean_run_length [reps]]]
 * (defaults 100000000, 16, 10).  Fills the columns on the device (int32 runs
 * of random lengths, a random keep mask with about half the rows kept,
 * int64 and uint32 scan inputs), warms up, then times each operation with
 * CUDA events and prints the median of reps runs as a markdown table:
 *   - a device-to-device cudaMemcpy of the int32 column (read + write bytes),
 *   - run-length encoding of the int32 column (values, starts, lengths),
 *   - compaction of the mask (index map), and counting alone,
 *   - scans: int64 (exact, overflow-checked; inclusive, exclusive and
 *     segmented), int32 (exact), uint32, float64 (plain and segmented),
 *   - and, for context, the host API gpo_rle_gpu on a host vector of four
 *     chunks (uploads and downloads included), from pageable and from
 *     pinned host memory.
 * GB/s counts the input bytes read unless the row says otherwise.
 */
#include <algorithm>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>

#include <cuda_runtime.h>

#include "gpo.h"
#include "../kernels/gpo_kernels.cuh"
#include "bench_cuda.cuh"

/* Rows each thread of the run filler writes. */
#define BENCH_RUN_BLOCK 1024

/* Fills int32 runs: lengths uniform in [1, 2 * mean - 1], random values. */
__global__ void
bench_fill_runs(int32_t *d_out, int64_t n, int mean)
{
	int64_t		nblocks = (n + BENCH_RUN_BLOCK - 1) / BENCH_RUN_BLOCK;
	int64_t		stride = (int64_t) gridDim.x * blockDim.x;

	for (int64_t b = (int64_t) blockIdx.x * blockDim.x + threadIdx.x;
		 b < nblocks; b += stride)
	{
		int64_t		lo = b * BENCH_RUN_BLOCK;
		int64_t		hi = lo + BENCH_RUN_BLOCK < n ? lo + BENCH_RUN_BLOCK : n;
		uint64_t	state = bench_hash((uint64_t) b);
		int32_t		value = 0;
		int64_t		left = 0;

		for (int64_t i = lo; i < hi; i++)
		{
			if (left == 0)
			{
				state = bench_hash(state);
				left = 1 + (int64_t) (state % (uint64_t) (2 * mean - 1));
				value = (int32_t) (state >> 32);
			}
			d_out[i] = value;
			left--;
		}
	}
}

/* Fills a keep mask (about half set), the scan inputs and segment heads (1 in 1024). */
__global__ void
bench_fill_rows(uint8_t *d_mask, int64_t *d_i64, int32_t *d_i32, uint32_t *d_u32,
				double *d_f64, uint8_t *d_heads, int64_t n)
{
	int64_t		stride = (int64_t) gridDim.x * blockDim.x;

	for (int64_t i = (int64_t) blockIdx.x * blockDim.x + threadIdx.x;
		 i < n; i += stride)
	{
		uint64_t	h = bench_hash((uint64_t) i ^ 0x5bd1e995ull);

		d_mask[i] = (uint8_t) (h & 1);
		d_i64[i] = (int64_t) ((h >> 8) % 2001) - 1000;
		d_i32[i] = (int32_t) ((h >> 20) % 2001) - 1000;
		d_u32[i] = (uint32_t) (h >> 32);
		d_f64[i] = (double) ((h >> 12) % 1000003) * 1e-3;
		d_heads[i] = ((h >> 40) & 1023) == 0 ? 1 : 0;
	}
}

/* Prints one table row: bytes counted for GB/s, rows for rows/s. */
static void
bench_row(const char *what, double ms, double bytes, double rows,
		  const char *note)
{
	printf("| %s | %.3f | %.1f | %.2f | %s |\n", what, ms,
		   bytes / (ms * 1e-3) / 1e9, rows / (ms * 1e-3) / 1e9, note);
}

/* Allocates device memory or exits. */
static void *
bench_alloc(size_t bytes)
{
	void	   *p = NULL;

	BENCH_CHECK(cudaMalloc(&p, bytes > 0 ? bytes : 1));
	return p;
}

/* Grows *d_temp to at least bytes. */
static void
bench_temp(void **d_temp, size_t *have, size_t bytes)
{
	if (bytes <= *have)
		return;
	if (*d_temp)
		BENCH_CHECK(cudaFree(*d_temp));
	*d_temp = bench_alloc(bytes);
	*have = bytes;
}

/* Runs gpo_rle_gpu on a 4-chunk host copy of the column; returns the median ms. */
static double
bench_host_rle(const int32_t *h_in, int64_t n, int64_t runs, bool pinned,
			   int reps)
{
	gpo_chunk	chunks[4];
	gpo_vector	in;
	gpo_chunk	vc, sc, lc;
	gpo_vector	values, starts, lengths;
	int32_t    *h_copy;
	int32_t    *h_values;
	int64_t    *h_starts;
	int64_t    *h_lengths;
	int64_t		cap = runs + 16;
	int64_t		off = 0;
	double		ms;

	if (pinned)
	{
		BENCH_CHECK(cudaMallocHost((void **) &h_copy, (size_t) n * 4));
		BENCH_CHECK(cudaMallocHost((void **) &h_values, (size_t) cap * 4));
		BENCH_CHECK(cudaMallocHost((void **) &h_starts, (size_t) cap * 8));
		BENCH_CHECK(cudaMallocHost((void **) &h_lengths, (size_t) cap * 8));
	}
	else
	{
		h_copy = (int32_t *) malloc((size_t) n * 4);
		h_values = (int32_t *) malloc((size_t) cap * 4);
		h_starts = (int64_t *) malloc((size_t) cap * 8);
		h_lengths = (int64_t *) malloc((size_t) cap * 8);
		if (!h_copy || !h_values || !h_starts || !h_lengths)
		{
			fprintf(stderr, "out of host memory\n");
			exit(1);
		}
	}
	memcpy(h_copy, h_in, (size_t) n * 4);
	memset(h_values, 0, (size_t) cap * 4);
	memset(h_starts, 0, (size_t) cap * 8);
	memset(h_lengths, 0, (size_t) cap * 8);
	for (int c = 0; c < 4; c++)
	{
		int64_t		len = (c < 3) ? n / 4 : n - off;

		chunks[c].data = h_copy + off;
		chunks[c].validity = NULL;
		chunks[c].n = len;
		off += len;
	}
	in.type = GPO_INT32;
	in.nchunks = 4;
	in.chunks = chunks;
	vc.data = h_values;
	vc.validity = NULL;
	vc.n = cap;
	sc.data = h_starts;
	sc.validity = NULL;
	sc.n = cap;
	lc.data = h_lengths;
	lc.validity = NULL;
	lc.n = cap;
	values.type = GPO_INT32;
	values.nchunks = 1;
	values.chunks = &vc;
	starts.type = GPO_INT64;
	starts.nchunks = 1;
	starts.chunks = &sc;
	lengths.type = GPO_INT64;
	lengths.nchunks = 1;
	lengths.chunks = &lc;

	ms = bench_time(reps, [&]() {
		gpo_ctx		ctx;
		int64_t		count = -1;
		gpo_status	st;

		memset(&ctx, 0, sizeof(ctx));
		ctx.device = GPO_DEVICE_GPU;
		st = gpo_rle_gpu(&ctx, &in, &values, &starts, &lengths, &count);
		if (st != GPO_OK || count != runs)
		{
			fprintf(stderr, "gpo_rle_gpu: status %d count %lld (want %lld): %s\n",
					(int) st, (long long) count, (long long) runs, ctx.detail);
			exit(1);
		}
	});

	if (pinned)
	{
		cudaFreeHost(h_copy);
		cudaFreeHost(h_values);
		cudaFreeHost(h_starts);
		cudaFreeHost(h_lengths);
	}
	else
	{
		free(h_copy);
		free(h_values);
		free(h_starts);
		free(h_lengths);
	}
	return ms;
}

/* The benchmark. */
int
main(int argc, char **argv)
{
	int64_t		n = argc > 1 ? atoll(argv[1]) : 100000000;
	int			mean = argc > 2 ? atoi(argv[2]) : 16;
	int			reps = argc > 3 ? atoi(argv[3]) : 10;
	gpo_device_info info;
	int32_t    *d_runs;
	uint8_t    *d_mask;
	int64_t    *d_i64;
	int32_t    *d_i32;
	uint32_t   *d_u32;
	double	   *d_f64;
	uint8_t    *d_heads;
	int32_t    *d_copy;
	int32_t    *d_values;
	int64_t    *d_starts;
	int64_t    *d_lengths;
	int64_t    *d_map;
	int64_t    *d_count;
	void	   *d_scan_out;
	uint32_t   *d_overflow;
	void	   *d_temp = NULL;
	size_t		have = 0;
	size_t		need = 0;
	int64_t		runs = 0;
	int64_t		kept = 0;
	uint32_t	overflow = 0;
	int32_t    *h_runs;
	double		ms;
	double		nb = (double) n;

	if (n <= 0 || mean < 1 || reps < 1)
	{
		fprintf(stderr, "usage: %s [rows [mean_run_length [reps]]]\n", argv[0]);
		return 2;
	}
	gpo_gpu_info(&info);
	if (!info.usable)
	{
		fprintf(stderr, "no usable GPU: %s\n", info.error);
		return 1;
	}
	printf("device: %s (cc %d.%d), %.1f GiB, runtime %d, driver %d\n",
		   info.name, info.cc_major, info.cc_minor,
		   (double) info.total_mem / (1 << 30), info.runtime_version,
		   info.driver_version);

	d_runs = (int32_t *) bench_alloc((size_t) n * 4);
	d_copy = (int32_t *) bench_alloc((size_t) n * 4);
	d_mask = (uint8_t *) bench_alloc((size_t) n);
	d_i64 = (int64_t *) bench_alloc((size_t) n * 8);
	d_i32 = (int32_t *) bench_alloc((size_t) n * 4);
	d_u32 = (uint32_t *) bench_alloc((size_t) n * 4);
	d_f64 = (double *) bench_alloc((size_t) n * 8);
	d_heads = (uint8_t *) bench_alloc((size_t) n);
	d_values = (int32_t *) bench_alloc((size_t) n * 4);
	d_starts = (int64_t *) bench_alloc((size_t) n * 8);
	d_lengths = (int64_t *) bench_alloc((size_t) n * 8);
	d_map = (int64_t *) bench_alloc((size_t) n * 8);
	d_scan_out = bench_alloc((size_t) n * 8);
	d_count = (int64_t *) bench_alloc(sizeof(int64_t));
	d_overflow = (uint32_t *) bench_alloc(sizeof(uint32_t));

	bench_fill_runs<<<2048, 256>>>(d_runs, n, mean);
	BENCH_CHECK(cudaPeekAtLastError());
	bench_fill_rows<<<2048, 256>>>(d_mask, d_i64, d_i32, d_u32, d_f64, d_heads, n);
	BENCH_CHECK(cudaPeekAtLastError());
	BENCH_CHECK(cudaDeviceSynchronize());

	/* temporary memory: the largest any timed call needs */
	BENCH_CHECK(gpo_cuda_rle(GPO_INT32, d_runs, NULL, n, d_values, NULL, d_starts,
							 d_lengths, d_count, NULL, &need, 0));
	bench_temp(&d_temp, &have, need);
	BENCH_CHECK(gpo_cuda_compact(d_mask, NULL, n, false, d_map, d_count, NULL, &need, 0));
	bench_temp(&d_temp, &have, need);
	BENCH_CHECK(gpo_cuda_scan(GPO_INT64, d_i64, NULL, NULL, n, true, d_scan_out,
							  d_overflow, NULL, &need, 0));
	bench_temp(&d_temp, &have, need);
	BENCH_CHECK(gpo_cuda_scan(GPO_INT32, d_i32, NULL, NULL, n, true, d_scan_out,
							  d_overflow, NULL, &need, 0));
	bench_temp(&d_temp, &have, need);
	BENCH_CHECK(gpo_cuda_scan(GPO_UINT32, d_u32, NULL, NULL, n, true, d_scan_out,
							  d_overflow, NULL, &need, 0));
	bench_temp(&d_temp, &have, need);
	BENCH_CHECK(gpo_cuda_scan(GPO_INT64, d_i64, NULL, d_heads, n, true, d_scan_out,
							  d_overflow, NULL, &need, 0));
	bench_temp(&d_temp, &have, need);
	BENCH_CHECK(gpo_cuda_scan(GPO_FLOAT64, d_f64, NULL, NULL, n, true, d_scan_out,
							  d_overflow, NULL, &need, 0));
	bench_temp(&d_temp, &have, need);
	BENCH_CHECK(gpo_cuda_scan(GPO_FLOAT64, d_f64, NULL, d_heads, n, true, d_scan_out,
							  d_overflow, NULL, &need, 0));
	bench_temp(&d_temp, &have, need);

	printf("rows: %lld, mean run length %d, reps %d (median)\n\n",
		   (long long) n, mean, reps);
	printf("| operation | ms | GB/s | Grows/s | note |\n");
	printf("| --- | ---: | ---: | ---: | --- |\n");

	ms = bench_time(reps, [&]() {
		BENCH_CHECK(cudaMemcpyAsync(d_copy, d_runs, (size_t) n * 4,
									cudaMemcpyDeviceToDevice, 0));
	});
	bench_row("device-to-device copy, int32", ms, 8.0 * nb, nb, "GB/s counts read + write");

	ms = bench_time(reps, [&]() {
		BENCH_CHECK(gpo_cuda_rle(GPO_INT32, d_runs, NULL, n, d_values, NULL,
								 d_starts, d_lengths, d_count, d_temp, &have, 0));
	});
	BENCH_CHECK(cudaMemcpy(&runs, d_count, sizeof(int64_t), cudaMemcpyDeviceToHost));
	{
		char		note[128];

		snprintf(note, sizeof(note), "%lld runs; values, starts, lengths", (long long) runs);
		bench_row("RLE int32 (device)", ms, 4.0 * nb, nb, note);
	}
	ms = bench_time(reps, [&]() {
		BENCH_CHECK(gpo_cuda_rle_heads(GPO_INT32, d_runs, NULL, n, (uint8_t *) d_temp,
									   d_count, 0));
	});
	bench_row("RLE int32, boundary flags + count only", ms, 4.0 * nb, nb, "step 1 of 3");

	ms = bench_time(reps, [&]() {
		BENCH_CHECK(gpo_cuda_compact(d_mask, NULL, n, false, d_map, d_count, d_temp,
									 &have, 0));
	});
	BENCH_CHECK(cudaMemcpy(&kept, d_count, sizeof(int64_t), cudaMemcpyDeviceToHost));
	{
		char		note[128];

		snprintf(note, sizeof(note), "%lld kept; int64 index map", (long long) kept);
		bench_row("compaction, uint8 mask (device)", ms, nb, nb, note);
	}
	ms = bench_time(reps, [&]() {
		BENCH_CHECK(gpo_cuda_count_kept(d_mask, NULL, n, false, d_count, 0));
	});
	bench_row("compaction, count only", ms, nb, nb, "");

	ms = bench_time(reps, [&]() {
		BENCH_CHECK(gpo_cuda_scan(GPO_INT64, d_i64, NULL, NULL, n, true, d_scan_out,
								  d_overflow, d_temp, &have, 0));
	});
	BENCH_CHECK(cudaMemcpy(&overflow, d_overflow, sizeof(uint32_t), cudaMemcpyDeviceToHost));
	bench_row("inclusive scan int64, exact", ms, 8.0 * nb, nb,
			  overflow ? "overflow flagged (unexpected)" : "overflow-checked");
	ms = bench_time(reps, [&]() {
		BENCH_CHECK(gpo_cuda_scan(GPO_INT64, d_i64, NULL, NULL, n, false, d_scan_out,
								  d_overflow, d_temp, &have, 0));
	});
	bench_row("exclusive scan int64, exact", ms, 8.0 * nb, nb, "overflow-checked");
	ms = bench_time(reps, [&]() {
		BENCH_CHECK(gpo_cuda_scan(GPO_INT64, d_i64, NULL, d_heads, n, true, d_scan_out,
								  d_overflow, d_temp, &have, 0));
	});
	bench_row("segmented inclusive scan int64, exact", ms, 9.0 * nb, nb,
			  "1 head in 1024 rows; GB/s counts values + heads");
	ms = bench_time(reps, [&]() {
		BENCH_CHECK(gpo_cuda_scan(GPO_FLOAT64, d_f64, NULL, NULL, n, true, d_scan_out,
								  d_overflow, d_temp, &have, 0));
	});
	bench_row("inclusive scan float64", ms, 8.0 * nb, nb, "");
	ms = bench_time(reps, [&]() {
		BENCH_CHECK(gpo_cuda_scan(GPO_FLOAT64, d_f64, NULL, d_heads, n, true, d_scan_out,
								  d_overflow, d_temp, &have, 0));
	});
	bench_row("segmented inclusive scan float64", ms, 9.0 * nb, nb,
			  "1 head in 1024 rows; GB/s counts values + heads");
	ms = bench_time(reps, [&]() {
		BENCH_CHECK(gpo_cuda_scan(GPO_INT32, d_i32, NULL, NULL, n, true, d_scan_out,
								  d_overflow, d_temp, &have, 0));
	});
	BENCH_CHECK(cudaMemcpy(&overflow, d_overflow, sizeof(uint32_t), cudaMemcpyDeviceToHost));
	bench_row("inclusive scan int32, exact", ms, 4.0 * nb, nb,
			  overflow ? "overflow flagged (unexpected)" : "overflow-checked");
	ms = bench_time(reps, [&]() {
		BENCH_CHECK(gpo_cuda_scan(GPO_UINT32, d_u32, NULL, NULL, n, true, d_scan_out,
								  d_overflow, d_temp, &have, 0));
	});
	bench_row("inclusive scan uint32", ms, 4.0 * nb, nb, "wraps mod 2^32");

	/* the host API, transfers included, for context */
	h_runs = (int32_t *) malloc((size_t) n * 4);
	if (h_runs == NULL)
	{
		fprintf(stderr, "out of host memory\n");
		return 1;
	}
	BENCH_CHECK(cudaMemcpy(h_runs, d_runs, (size_t) n * 4, cudaMemcpyDeviceToHost));
	ms = bench_host_rle(h_runs, n, runs, false, reps < 3 ? reps : 3);
	bench_row("gpo_rle_gpu, host int32 in 4 chunks, pageable", ms, 4.0 * nb, nb,
			  "uploads and downloads included");
	ms = bench_host_rle(h_runs, n, runs, true, reps < 3 ? reps : 3);
	bench_row("gpo_rle_gpu, host int32 in 4 chunks, pinned", ms, 4.0 * nb, nb,
			  "uploads and downloads included");
	free(h_runs);

	cudaFree(d_temp);
	cudaFree(d_runs);
	cudaFree(d_copy);
	cudaFree(d_mask);
	cudaFree(d_i64);
	cudaFree(d_i32);
	cudaFree(d_u32);
	cudaFree(d_f64);
	cudaFree(d_heads);
	cudaFree(d_values);
	cudaFree(d_starts);
	cudaFree(d_lengths);
	cudaFree(d_map);
	cudaFree(d_scan_out);
	cudaFree(d_count);
	cudaFree(d_overflow);
	return 0;
}
