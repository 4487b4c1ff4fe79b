/*
 * groupagg_internal.cuh
 *	  The three GROUP BY strategies of the GPU, each in a file of its own,
 *	  as the dispatcher gpo_cuda_groupagg_many (groupagg.cu) runs them.
 *
 * Each fills res[0 .. nreq) for the requests reqs over the same n keys
 * (kt, d_keys, d_kvalid), memory from mem; res[r] share the group arrays.
 */
#ifndef GROUPAGG_INTERNAL_CUH
#define GROUPAGG_INTERNAL_CUH

#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>

#include "agg_cuda.cuh"

/*
 * The slots i of [0, n) with pred(i), in ascending order, into d_out (room
 * for n), and their number into *count: CUB's DeviceSelect::If over the
 * slot numbers, its count and temporary memory in one piece from mem.
 */
template <typename Pred, typename Out>
static cudaError_t
gpo_cuda_select_slots(Pred pred, int64_t n, Out *d_out, int64_t *count,
					  gpo_dmem *mem)
{
	thrust::counting_iterator<int64_t> slots(0);
	int64_t    *d_count = NULL;
	size_t		temp_bytes = 0;
	cudaError_t err;

	err = cub::DeviceSelect::If(NULL, temp_bytes, slots, d_out, d_count, n, pred);
	/* the count sits before the temporary memory, in one allocation */
	if (err == cudaSuccess)
		err = gpo_dmem_alloc(mem, (void **) &d_count, 256 + temp_bytes);
	if (err != cudaSuccess)
		return err;
	err = cub::DeviceSelect::If((char *) d_count + 256, temp_bytes, slots, d_out,
								d_count, n, pred);
	if (err == cudaSuccess)
		err = cudaMemcpy(count, d_count, sizeof(*count), cudaMemcpyDeviceToHost);
	return err;
}

/* Dense strategy (groupagg_dense.cu): codes [min_code, min_code + range). */
extern gpo_status gpo_cuda_run_dense(gpo_ctx *ctx, gpo_type kt, const void *d_keys,
									 const uint8_t *d_kvalid, int64_t n, int nreq,
									 const gpo_cuda_req *reqs,
									 unsigned long long min_code, int64_t range,
									 gpo_dmem *mem, gpo_cuda_groups *res);

/*
 * Whether every request's dense slots for a key range of range codes fit
 * a block's shared memory (groupagg_dense.cu); where they don't, the rows
 * of a few hot slots meet in global atomics.
 */
extern bool gpo_cuda_dense_in_smem(int nreq, const gpo_cuda_req *reqs,
								   int64_t range);

/* Hash strategy (groupagg_hash.cu): at most bound groups with a key. */
extern gpo_status gpo_cuda_run_hash(gpo_ctx *ctx, gpo_type kt, const void *d_keys,
									const uint8_t *d_kvalid, int64_t n, int nreq,
									const gpo_cuda_req *reqs, int64_t bound,
									gpo_dmem *mem, gpo_cuda_groups *res);

/* Sort strategy (groupagg_sort.cu): any key type, any number of groups. */
extern gpo_status gpo_cuda_run_sort(gpo_ctx *ctx, gpo_type kt, const void *d_keys,
									const uint8_t *d_kvalid, int64_t n, int nreq,
									const gpo_cuda_req *reqs, gpo_dmem *mem,
									gpo_cuda_groups *res);

#endif							/* GROUPAGG_INTERNAL_CUH */
