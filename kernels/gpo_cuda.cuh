/*
 * gpo_cuda.cuh
 *	  Internal plumbing shared by the GPU faces: CUDA error mapping, the
 *	  signal-safe CUDA start, launch geometry, and moving chunked host
 *	  vectors to and from contiguous device buffers.
 *
 * Every host face follows one shape: declare everything at the top, begin
 * with gpo_cuda_begin (signals blocked, device checked), wrap each CUDA call
 * in GPO_CUDA_TRY (which jumps to "cleanup" with st set), take device memory
 * with gpo_cuda_alloc and give all of it back with gpo_cuda_free at cleanup,
 * and end with gpo_cuda_end.  Device pointers are d_*.  All work runs on the
 * legacy default stream, which orders the pool's frees after every earlier
 * kernel and copy (memory.cu).
 */
#ifndef GPO_CUDA_CUH
#define GPO_CUDA_CUH

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cuda_runtime.h>

#include "gpo.h"

/* Threads per block of the plain (non-CUB) kernels. */
#define GPO_CUDA_THREADS 256

/* Adds each thread's local count into *d_count, one atomic per block. */
__device__ __forceinline__ void
gpo_block_count_add(unsigned long long local, unsigned long long *d_count)
{
	__shared__ unsigned long long warp_sums[GPO_CUDA_THREADS / 32];
	int			lane = threadIdx.x & 31;
	int			warp = threadIdx.x >> 5;

	for (int off = 16; off > 0; off >>= 1)
		local += __shfl_down_sync(0xffffffffu, local, off);
	if (lane == 0)
		warp_sums[warp] = local;
	__syncthreads();
	if (warp == 0)
	{
		local = lane < (int) (blockDim.x / 32) ? warp_sums[lane] : 0;
		for (int off = 16; off > 0; off >>= 1)
			local += __shfl_down_sync(0xffffffffu, local, off);
		if (lane == 0 && local != 0)
			atomicAdd(d_count, local);
	}
}

/*
 * Runs a CUDA call; on failure records it in ctx->detail, sets st and jumps
 * to the enclosing function's cleanup label.
 */
#define GPO_CUDA_TRY(call) \
	do { \
		cudaError_t gpo_err_ = (call); \
		if (gpo_err_ != cudaSuccess) \
		{ \
			st = gpo_cuda_fail(ctx, gpo_err_, #call); \
			goto cleanup; \
		} \
	} while (0)

/* Runs a gpo_status expression; on failure jumps to cleanup with st set. */
#define GPO_TRY(expr) \
	do { \
		st = (expr); \
		if (st != GPO_OK) \
			goto cleanup; \
	} while (0)

/* Returns the launch error of the kernel just launched, if any. */
#define GPO_LAUNCHED() cudaPeekAtLastError()

/* Maps a failed CUDA call to a status and writes its text to ctx->detail. */
extern gpo_status gpo_cuda_fail(gpo_ctx *ctx, cudaError_t err, const char *what);

/*
 * Blocks every signal in the calling thread (saving the old mask in *old)
 * and makes sure the CUDA runtime has started (the first CUDA call of the
 * process happens here or in gpo_gpu_info, always with signals blocked, so
 * the runtime's own threads never take PostgreSQL's signals).  Returns
 * GPO_ERR_NO_DEVICE with ctx->detail set when no device answers; the old
 * mask is then already restored, and calling gpo_cuda_end(old) anyway (as
 * a cleanup path does) is harmless.  On GPO_OK call gpo_cuda_end(old) on
 * every path.
 */
extern gpo_status gpo_cuda_begin(gpo_ctx *ctx, sigset_t *old);
/*
 * Trims the device memory pool to its bound and restores the signal mask
 * saved by gpo_cuda_begin.
 */
extern void gpo_cuda_end(const sigset_t *old);

/* Blocks for a grid-stride kernel over items work items (at least 1). */
extern unsigned int gpo_cuda_blocks(int64_t items);

/* True if some chunk of v has a validity bitmap. */
extern bool gpo_cuda_has_validity(const gpo_vector *v);
/* Checks that every chunk with rows has data; sets detail if not. */
extern gpo_status gpo_cuda_check_vector(gpo_ctx *ctx, const gpo_vector *v,
										const char *what);

/*
 * Device memory of bytes (at least 1) into *d_ptr from the process's
 * stream-ordered pool (set up on first use); *d_ptr is NULL on failure.
 */
extern cudaError_t gpo_cuda_malloc(void **d_ptr, size_t bytes);
/* gpo_cuda_malloc with the status mapping and ctx->detail set on failure. */
extern gpo_status gpo_cuda_alloc(gpo_ctx *ctx, void **d_ptr, size_t bytes,
								 const char *what);
/*
 * Frees memory from gpo_cuda_malloc (NULL is ignored) in stream order: work
 * issued before the free may still use it, nothing issued after may.
 */
extern void gpo_cuda_free(void *d_ptr);
/* Trims the pool's idle cached memory down to its bound. */
extern void gpo_cuda_pool_trim(void);

/* Host bytes [off, off + len) of a transfer's contiguous device range. */
typedef struct gpo_span
{
	char	   *host;
	size_t		off;
	size_t		len;			/* never 0 */
} gpo_span;

/*
 * Copies the concatenation of nspans spans (in offset order, total bytes)
 * to d_dst through the pinned staging buffers.  It may return while its
 * last DMAs still run; the spans are free to change at once.
 */
extern gpo_status gpo_cuda_stage_upload(gpo_ctx *ctx, void *d_dst,
										const gpo_span *spans, int64_t nspans,
										size_t total);
/* Copies total bytes from d_src into the spans through staging; returns with them written. */
extern gpo_status gpo_cuda_stage_download(gpo_ctx *ctx, const void *d_src,
										  const gpo_span *spans,
										  int64_t nspans, size_t total);

/*
 * Copies the first rows rows of v (elem bytes each) into d_dst, every chunk
 * at its row offset, as one staged transfer.
 */
extern gpo_status gpo_cuda_upload(gpo_ctx *ctx, const gpo_vector *v,
								  size_t elem, void *d_dst, int64_t rows);

/*
 * Expands the validity of the first rows rows of v into a new device byte
 * array *d_valid (1 = valid, 0 = NULL).  When no chunk has a bitmap every
 * row is valid and *d_valid is left NULL (nothing allocated).  The caller
 * frees *d_valid with gpo_cuda_free.
 */
extern gpo_status gpo_cuda_upload_valid(gpo_ctx *ctx, const gpo_vector *v,
										int64_t rows, uint8_t **d_valid);

/*
 * Copies rows rows of elem bytes from d_src into the chunks of out, in
 * order; capacity past rows is left untouched.
 */
extern gpo_status gpo_cuda_download(gpo_ctx *ctx, gpo_vector *out,
									size_t elem, const void *d_src,
									int64_t rows);

/*
 * Writes the validity of rows rows (device bytes d_valid, or all valid when
 * d_valid is NULL) into the bitmaps of out's chunks that have one; bits past
 * rows are left untouched.
 */
extern gpo_status gpo_cuda_download_valid(gpo_ctx *ctx, gpo_vector *out,
										  const uint8_t *d_valid,
										  int64_t rows);

#endif							/* GPO_CUDA_CUH */
