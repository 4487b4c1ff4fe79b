/*
 * gpo_agg_kernels.cuh
 *	  Device-resident cores of the aggregation primitives (C++): they take
 *	  device pointers to contiguous columns and leave their results on the
 *	  device.  The host faces (gpo_*_gpu) are built on them; the benchmark
 *	  times them.
 *
 * Conventions as gpo_kernels.cuh: n rows, 64-bit row numbers, validity as
 * NULL (all valid) or n bytes of 0/1.  Row ids and segment ids are 32-bit,
 * so n < 2^31.  Work runs on the legacy default stream and the functions
 * return once it has finished (they read small results back to choose what
 * to do next).  Device memory comes from a gpo_dmem: a caller-made arena
 * (the benchmark: allocate once, reset between runs) or, with no arena,
 * buffers from the stream-ordered pool (gpo_cuda_malloc) that
 * gpo_dmem_release frees.
 */
#ifndef GPO_AGG_KERNELS_CUH
#define GPO_AGG_KERNELS_CUH

#include <stdint.h>

#include <cuda_runtime.h>

#include "gpo_agg.h"
#include "gpo_agg_codes.h"
#include "gpo_cuda.cuh"

/* Where device memory comes from. */
struct gpo_dmem
{
	char	   *d_arena;		/* NULL: take each buffer from the pool */
	size_t		arena_bytes;
	size_t		used;			/* arena bytes handed out */
	void	   *owned[512];		/* pool buffers to free */
	int			nowned;
};

/* Takes bytes (256-aligned) from mem into *d_ptr. */
static inline cudaError_t
gpo_dmem_alloc(gpo_dmem *mem, void **d_ptr, size_t bytes)
{
	cudaError_t err;

	*d_ptr = NULL;
	bytes = (bytes + 255) & ~(size_t) 255;
	if (bytes == 0)
		bytes = 256;
	if (mem->d_arena != NULL)
	{
		if (mem->used + bytes > mem->arena_bytes)
			return cudaErrorMemoryAllocation;
		*d_ptr = mem->d_arena + mem->used;
		mem->used += bytes;
		return cudaSuccess;
	}
	if (mem->nowned == (int) (sizeof(mem->owned) / sizeof(mem->owned[0])))
		return cudaErrorMemoryAllocation;
	err = gpo_cuda_malloc(d_ptr, bytes);
	if (err != cudaSuccess)
		return err;
	mem->owned[mem->nowned++] = *d_ptr;
	return cudaSuccess;
}

/* Frees (stream-ordered) what mem took from the pool and resets its arena. */
static inline void
gpo_dmem_release(gpo_dmem *mem)
{
	for (int i = 0; i < mem->nowned; i++)
		gpo_cuda_free(mem->owned[i]);
	mem->nowned = 0;
	mem->used = 0;
}

/* Accumulator fields (gpo_dacc arrays) a call wants. */
#define GPO_DF_COUNT	0x01u
#define GPO_DF_ISUM		0x02u
#define GPO_DF_FSUM		0x04u
#define GPO_DF_MIN		0x08u
#define GPO_DF_MAX		0x10u
#define GPO_DF_FFLAGS	0x20u		/* float values: GPO_FF_* seen */
#define GPO_DF_M2		0x40u		/* float values: second pass, m2 */

/* Per-slot accumulators on the device: one array per field (NULL = absent). */
struct gpo_dacc
{
	unsigned long long *rows;
	unsigned long long *count;
	unsigned long long *sum_lo;
	long long  *sum_hi;
	double	   *fsum;
	unsigned long long *mn;		/* value order codes */
	unsigned long long *mx;
	double	   *m2;				/* sum of squared deviations (pass 2) */
	unsigned int *fflags;		/* GPO_FF_* (atomicOr) */
};

/* Device results of a group aggregation, in key order, NULL key last. */
struct gpo_cuda_groups
{
	int64_t		ngroups;		/* groups, the NULL-key group included */
	int64_t		nkeyed;			/* groups with a key (the first ones) */
	gpo_agg_strategy used;
	unsigned long long *d_code; /* key code of group g < nkeyed */
	int64_t    *d_slot;			/* slot of group g in acc (NULL: g) */
	gpo_dacc	acc;
};

/*
 * Sorts n keys of kt stably (gpo_sort_pairs' order): d_keys_out (kt,
 * canonical; NULL tail zeroed) and d_ids_out (row ids) receive the order,
 * *nvalid the number of non-NULL keys (they come first).
 */
extern gpo_status gpo_cuda_sort_pairs(gpo_ctx *ctx, gpo_type kt,
									  const void *d_keys,
									  const uint8_t *d_valid, int64_t n,
									  void *d_keys_out, uint32_t *d_ids_out,
									  int64_t *nvalid, gpo_dmem *mem);

/*
 * Groups n rows by key (kt, d_keys, d_kvalid) and aggregates the values
 * (vt < 0: none; d_vals, d_vvalid) into the fields wanted (GPO_DF_*),
 * with strategy want (AUTO: gpo_agg_choose with est_groups).  Results stay
 * on the device in *res (memory from mem).
 */
extern gpo_status gpo_cuda_groupagg(gpo_ctx *ctx, gpo_type kt,
									const void *d_keys,
									const uint8_t *d_kvalid, int vt,
									const void *d_vals,
									const uint8_t *d_vvalid, int64_t n,
									int64_t est_groups,
									gpo_agg_strategy want, unsigned fields,
									gpo_dmem *mem, gpo_cuda_groups *res);

/* One aggregate request's device inputs (gpo_cuda_groupagg_many). */
struct gpo_cuda_req
{
	int			vt;				/* value type, < 0: none */
	const void *d_vals;
	const uint8_t *d_vvalid;
	unsigned	fields;			/* GPO_DF_* wanted */
};

/*
 * gpo_cuda_groupagg with nreq requests over the same keys: the key
 * statistics, the strategy and the groups are found once (dense: the slot
 * range; hash: the table the first request fills, which the others look
 * their keys up in; sort: one sort and one segmentation), each request's
 * accumulators are its own; res[r] (nreq entries) shares the group arrays.
 */
extern gpo_status gpo_cuda_groupagg_many(gpo_ctx *ctx, gpo_type kt,
										 const void *d_keys,
										 const uint8_t *d_kvalid, int64_t n,
										 int nreq, const gpo_cuda_req *reqs,
										 int64_t est_groups,
										 gpo_agg_strategy want, gpo_dmem *mem,
										 gpo_cuda_groups *res);

/*
 * Writes ng = res->ngroups results into device output arrays laid out as
 * gpo_agg_out's (each may be NULL): keys (kt), key_valid, rows, count,
 * isum (gpo_int128), fsum, min, max (vt).
 */
extern gpo_status gpo_cuda_groups_finish(gpo_ctx *ctx,
										 const gpo_cuda_groups *res,
										 gpo_type kt, int vt,
										 const gpo_agg_out *d_out);

#endif							/* GPO_AGG_KERNELS_CUH */
