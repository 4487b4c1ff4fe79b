/*
 * gpu_groupby.cu
 *	  Standalone benchmark of the GROUP BY engine's device-resident cores.
 *
 * Usage: gpu_groupby [rows [reps]]   (defaults 100000000, 5)
 * Fills int32 keys (hash of the row modulo the distinct count) and float64
 * values on the device, then times with CUDA events, as the median of reps
 * runs (after a warm-up run), and prints a markdown table:
 *   - a device-to-device cudaMemcpy of keys and values (the bandwidth
 *     reference: read + write bytes),
 *   - the stable pair sort of the int32 keys with 32-bit row ids,
 *   - group aggregation (count(*), count(v), sum(v)) per strategy (dense,
 *     hash, sort) at 10, 1e3, 1e6 and 1e8 distinct keys, dense only where
 *     the key range allows it; each run includes the key statistics pass,
 *     the strategy and the finishing of the per-group results on the device,
 *   - several aggregates over one GROUP BY: 1, 3 and 6 float64 value
 *     columns (count, sum, min, max each) at 1e3 and 1e6 distinct keys,
 *     per strategy, as one gpo_cuda_groupagg call per column (how a batch
 *     was aggregated before) and as one gpo_cuda_groupagg_many call (the
 *     keys' statistics, grouping and sort done once), with the finishing.
 * All device memory comes from one arena allocated up front, so no run
 * times cudaMalloc.  GB/s counts the bytes an operation must move: the sort
 * reads the keys and writes keys and row ids (12 bytes a row), aggregation
 * reads keys and values (12 bytes a row); % copy compares with the copy.
 */
#include <algorithm>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>

#include <cuda_runtime.h>

#include "gpo_agg.h"
#include "../kernels/gpo_agg_kernels.cuh"
#include "bench_cuda.cuh"

/* Keys hash(i) mod distinct (offset so some are negative), values in [0, 1). */
__global__ void
bench_fill(int32_t *d_keys, double *d_vals, int64_t n, int64_t distinct)
{
	int64_t		stride = (int64_t) gridDim.x * blockDim.x;

	for (int64_t i = (int64_t) blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
	{
		uint64_t	h = bench_hash((uint64_t) i);

		d_keys[i] = (int32_t) ((int64_t) (h % (uint64_t) distinct) - distinct / 2);
		d_vals[i] = (double) (bench_hash(h) >> 11) / 9007199254740992.0;
	}
}

/* Median of a list of times. */
static float
median(std::vector<float> v)
{
	std::sort(v.begin(), v.end());
	return v[v.size() / 2];
}

/* One timed row of the table. */
static void
print_row(const char *op, const char *keys, const char *strategy, int64_t n,
		  double bytes, float ms, double copy_gbs, int64_t groups)
{
	double		gbs = bytes / (ms * 1e-3) / 1e9;

	printf("| %s | %s | %s | %lld | %.3f | %.2f | %.1f | %.1f%% |\n", op, keys,
		   strategy, (long long) groups, ms, (double) n / (ms * 1e-3) / 1e9, gbs,
		   copy_gbs > 0 ? 100.0 * gbs / copy_gbs : 100.0);
	fflush(stdout);
}

/* Finishes res (count, sum, min, max of float64 values) into fresh device arrays. */
static void
finish_groups(gpo_ctx *ctx, const gpo_cuda_groups *res, bool keys, gpo_dmem *mem)
{
	gpo_agg_out d_out;
	size_t		ng = (size_t) res->ngroups + 1;

	memset(&d_out, 0, sizeof(d_out));
	d_out.capacity = res->ngroups;
	if (keys)
	{
		BENCH_CHECK(gpo_dmem_alloc(mem, &d_out.keys, 4 * ng));
		BENCH_CHECK(gpo_dmem_alloc(mem, (void **) &d_out.rows, 8 * ng));
	}
	BENCH_CHECK(gpo_dmem_alloc(mem, (void **) &d_out.count, 8 * ng));
	BENCH_CHECK(gpo_dmem_alloc(mem, (void **) &d_out.fsum, 8 * ng));
	BENCH_CHECK(gpo_dmem_alloc(mem, (void **) &d_out.fflags, ng));
	BENCH_CHECK(gpo_dmem_alloc(mem, &d_out.min, 8 * ng));
	BENCH_CHECK(gpo_dmem_alloc(mem, &d_out.max, 8 * ng));
	BENCH_OK(gpo_cuda_groups_finish(ctx, res, GPO_INT32, GPO_FLOAT64, &d_out), *ctx);
}

/*
 * Several aggregates over one GROUP BY (see the file header): 6 value
 * columns of n float64 values are filled; each row times one call per
 * column against one call for all.
 */
static void
multi_aggregates(int64_t n, int reps, int32_t *d_keys, gpo_dmem *mem,
				 cudaEvent_t ev0, cudaEvent_t ev1)
{
	static const int64_t distincts[] = {1000, 1000000};
	static const int ncols_list[] = {1, 3, 6};
	static const gpo_agg_strategy strategies[] = {GPO_AGG_DENSE, GPO_AGG_HASH, GPO_AGG_SORT};
	const unsigned fields = GPO_DF_COUNT | GPO_DF_FSUM | GPO_DF_FFLAGS | GPO_DF_MIN | GPO_DF_MAX;
	double	   *d_cols[6];
	gpo_ctx		ctx;
	float		ms;

	memset(&ctx, 0, sizeof(ctx));
	printf("\n| aggregates | distinct keys | strategy | groups | one call per column (ms) | one call (ms) | speed-up |\n");
	printf("| --- | --- | --- | --- | --- | --- | --- |\n");
	for (int c = 0; c < 6; c++)
		BENCH_CHECK(cudaMalloc(&d_cols[c], 8 * (size_t) n));
	for (int di = 0; di < 2; di++)
	{
		for (int c = 0; c < 6; c++)
			bench_fill<<<1024, 256>>>(d_keys, d_cols[c], n, distincts[di]);
		BENCH_CHECK(cudaDeviceSynchronize());
		for (int si = 0; si < 3; si++)
			for (int ci = 0; ci < 3; ci++)
			{
				int			ncols = ncols_list[ci];
				std::vector<float> t_sep,
							t_one;
				int64_t		groups = 0;

				for (int r = 0; r <= reps; r++)
				{
					gpo_cuda_groups res[6];
					gpo_cuda_req reqs[6];

					mem->used = 0;
					BENCH_CHECK(cudaEventRecord(ev0));
					for (int c = 0; c < ncols; c++)
					{
						BENCH_OK(gpo_cuda_groupagg(&ctx, GPO_INT32, d_keys, NULL, GPO_FLOAT64,
												   d_cols[c], NULL, n, 0, strategies[si],
												   fields, mem, &res[0]), ctx);
						finish_groups(&ctx, &res[0], c == 0, mem);
					}
					BENCH_CHECK(cudaEventRecord(ev1));
					BENCH_CHECK(cudaEventSynchronize(ev1));
					BENCH_CHECK(cudaEventElapsedTime(&ms, ev0, ev1));
					if (r > 0)
						t_sep.push_back(ms);

					mem->used = 0;
					for (int c = 0; c < ncols; c++)
					{
						reqs[c].vt = GPO_FLOAT64;
						reqs[c].d_vals = d_cols[c];
						reqs[c].d_vvalid = NULL;
						reqs[c].fields = fields;
					}
					BENCH_CHECK(cudaEventRecord(ev0));
					BENCH_OK(gpo_cuda_groupagg_many(&ctx, GPO_INT32, d_keys, NULL, n, ncols,
													reqs, 0, strategies[si], mem, res), ctx);
					for (int c = 0; c < ncols; c++)
						finish_groups(&ctx, &res[c], c == 0, mem);
					BENCH_CHECK(cudaEventRecord(ev1));
					BENCH_CHECK(cudaEventSynchronize(ev1));
					BENCH_CHECK(cudaEventElapsedTime(&ms, ev0, ev1));
					groups = res[0].ngroups;
					if (r > 0)
						t_one.push_back(ms);
				}
				printf("| %d | %lld | %s | %lld | %.3f | %.3f | %.2fx |\n", ncols,
					   (long long) distincts[di], gpo_agg_strategy_name(strategies[si]),
					   (long long) groups, median(t_sep), median(t_one),
					   median(t_sep) / median(t_one));
				fflush(stdout);
			}
	}
	for (int c = 0; c < 6; c++)
		cudaFree(d_cols[c]);
}

/* Runs the benchmark. */
int
main(int argc, char **argv)
{
	int64_t		n = argc > 1 ? atoll(argv[1]) : 100000000;
	int			reps = argc > 2 ? atoi(argv[2]) : 5;
	static const int64_t distincts[] = {10, 1000, 1000000, 100000000};
	static const gpo_agg_strategy strategies[] = {GPO_AGG_DENSE, GPO_AGG_HASH, GPO_AGG_SORT};
	cudaDeviceProp prop;
	int32_t    *d_keys = NULL;
	double	   *d_vals = NULL;
	char	   *d_copy = NULL;
	gpo_dmem	mem = {};
	size_t		free_b = 0,
				total_b = 0;
	cudaEvent_t ev0,
				ev1;
	std::vector<float> t;
	double		copy_gbs;
	gpo_ctx		ctx;
	float		ms;

	memset(&ctx, 0, sizeof(ctx));
	if (n < 1 || n > INT32_MAX || reps < 1)
	{
		fprintf(stderr, "usage: gpu_groupby [rows (1 .. 2^31 - 1) [reps]]\n");
		return 2;
	}
	BENCH_CHECK(cudaGetDeviceProperties(&prop, 0));
	BENCH_CHECK(cudaMalloc(&d_keys, 4 * (size_t) n));
	BENCH_CHECK(cudaMalloc(&d_vals, 8 * (size_t) n));
	BENCH_CHECK(cudaMalloc(&d_copy, 12 * (size_t) n));
	BENCH_CHECK(cudaMemGetInfo(&free_b, &total_b));
	/* GPO_BENCH_ARENA_GB caps it (a profiler saves and restores it per pass) */
	const char *arena_gb = getenv("GPO_BENCH_ARENA_GB");

	mem.arena_bytes = std::min(free_b - ((size_t) 2 << 30),
							   (size_t) (arena_gb ? atoi(arena_gb) : 96) << 30);
	BENCH_CHECK(cudaMalloc(&mem.d_arena, mem.arena_bytes));
	BENCH_CHECK(cudaEventCreate(&ev0));
	BENCH_CHECK(cudaEventCreate(&ev1));

	printf("gpu_groupby: %s, %lld rows, median of %d runs, arena %.1f GiB\n\n",
		   prop.name, (long long) n, reps, mem.arena_bytes / 1073741824.0);
	printf("| operation | distinct keys | strategy | groups | ms | Grows/s | GB/s | %% of copy |\n");
	printf("| --- | --- | --- | --- | --- | --- | --- | --- |\n");

	/* the bandwidth reference */
	bench_fill<<<1024, 256>>>(d_keys, d_vals, n, 1000);
	BENCH_CHECK(cudaDeviceSynchronize());
	t.clear();
	for (int r = 0; r <= reps; r++)
	{
		BENCH_CHECK(cudaEventRecord(ev0));
		BENCH_CHECK(cudaMemcpy(d_copy, d_keys, 4 * (size_t) n, cudaMemcpyDeviceToDevice));
		BENCH_CHECK(cudaMemcpy(d_copy + 4 * (size_t) n, d_vals, 8 * (size_t) n, cudaMemcpyDeviceToDevice));
		BENCH_CHECK(cudaEventRecord(ev1));
		BENCH_CHECK(cudaEventSynchronize(ev1));
		BENCH_CHECK(cudaEventElapsedTime(&ms, ev0, ev1));
		if (r > 0)
			t.push_back(ms);
	}
	ms = median(t);
	copy_gbs = 24.0 * n / (ms * 1e-3) / 1e9;
	print_row("d2d copy (read + write)", "-", "-", n, 24.0 * n, ms, copy_gbs, 0);
	BENCH_CHECK(cudaFree(d_copy));

	for (int di = 0; di < 4; di++)
	{
		int64_t		distinct = distincts[di];
		char		dname[32];

		snprintf(dname, sizeof(dname), "%lld", (long long) distinct);
		bench_fill<<<1024, 256>>>(d_keys, d_vals, n, distinct);
		BENCH_CHECK(cudaDeviceSynchronize());

		/* the pair sort, once per key distribution */
		t.clear();
		for (int r = 0; r <= reps; r++)
		{
			int64_t		nvalid = 0;
			void	   *d_kout = NULL;
			uint32_t   *d_ids = NULL;

			mem.used = 0;
			BENCH_CHECK(gpo_dmem_alloc(&mem, &d_kout, 4 * (size_t) n));
			BENCH_CHECK(gpo_dmem_alloc(&mem, (void **) &d_ids, 4 * (size_t) n));
			BENCH_CHECK(cudaEventRecord(ev0));
			BENCH_OK(gpo_cuda_sort_pairs(&ctx, GPO_INT32, d_keys, NULL, n, d_kout, d_ids,
										 &nvalid, &mem), ctx);
			BENCH_CHECK(cudaEventRecord(ev1));
			BENCH_CHECK(cudaEventSynchronize(ev1));
			BENCH_CHECK(cudaEventElapsedTime(&ms, ev0, ev1));
			if (r > 0)
				t.push_back(ms);
		}
		print_row("pair sort int32 + row id", dname, "-", n, 12.0 * n, median(t), copy_gbs, 0);

		for (int si = 0; si < 3; si++)
		{
			gpo_agg_strategy s = strategies[si];
			int64_t		groups = 0;

			if (s == GPO_AGG_DENSE && distinct > GPO_AGG_DENSE_MAX_RANGE)
				continue;
			t.clear();
			for (int r = 0; r <= reps; r++)
			{
				gpo_cuda_groups res;
				gpo_agg_out d_out;

				mem.used = 0;
				memset(&d_out, 0, sizeof(d_out));
				BENCH_CHECK(cudaEventRecord(ev0));
				BENCH_OK(gpo_cuda_groupagg(&ctx, GPO_INT32, d_keys, NULL, GPO_FLOAT64, d_vals,
										   NULL, n, 0, s, GPO_DF_COUNT | GPO_DF_FSUM, &mem,
										   &res), ctx);
				d_out.capacity = res.ngroups;
				BENCH_CHECK(gpo_dmem_alloc(&mem, &d_out.keys, 4 * (size_t) (res.ngroups + 1)));
				BENCH_CHECK(gpo_dmem_alloc(&mem, (void **) &d_out.rows, 8 * (size_t) (res.ngroups + 1)));
				BENCH_CHECK(gpo_dmem_alloc(&mem, (void **) &d_out.count, 8 * (size_t) (res.ngroups + 1)));
				BENCH_CHECK(gpo_dmem_alloc(&mem, (void **) &d_out.fsum, 8 * (size_t) (res.ngroups + 1)));
				BENCH_OK(gpo_cuda_groups_finish(&ctx, &res, GPO_INT32, GPO_FLOAT64, &d_out), ctx);
				BENCH_CHECK(cudaEventRecord(ev1));
				BENCH_CHECK(cudaEventSynchronize(ev1));
				BENCH_CHECK(cudaEventElapsedTime(&ms, ev0, ev1));
				groups = res.ngroups;
				if (r > 0)
					t.push_back(ms);
			}
			print_row("group by int32, count + sum(float8)", dname,
					  gpo_agg_strategy_name(s), n, 12.0 * n, median(t), copy_gbs, groups);
		}
	}
	multi_aggregates(n, reps, d_keys, &mem, ev0, ev1);
	cudaFree(mem.d_arena);
	cudaFree(d_keys);
	cudaFree(d_vals);
	return 0;
}
