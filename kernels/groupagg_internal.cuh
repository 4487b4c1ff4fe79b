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

#include "agg_cuda.cuh"

/* Dense strategy (groupagg_dense.cu): codes [min_code, min_code + range). */
extern gpo_status gpo_cuda_run_dense(gpo_ctx *ctx, gpo_type kt, const void *d_keys,
									 const uint8_t *d_kvalid, int64_t n, int nreq,
									 const gpo_cuda_req *reqs,
									 unsigned long long min_code, int64_t range,
									 gpo_dmem *mem, gpo_cuda_groups *res);

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
