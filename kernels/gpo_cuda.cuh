/*
 * gpo_cuda.cuh
 *	  Internal plumbing shared by the GPU faces: CUDA error mapping, the
 *	  signal-safe CUDA start, launch geometry, and moving chunked host
 *	  vectors to and from contiguous device buffers.
 *
 * Every host face follows one shape: declare everything at the top, begin
 * with gpo_cuda_begin (signals blocked, device checked), wrap each CUDA call
 * in GPO_CUDA_TRY (which jumps to "cleanup" with st set), take device memory
 * with gpo_cuda_alloc (input columns with their validity by
 * gpo_cuda_column_up) and give all of it back with gpo_cuda_free at
 * cleanup, and end with gpo_cuda_end.  Device pointers are d_*.  All work runs on the
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

/* Which way a transfer goes. */
typedef enum gpo_dir
{
	GPO_TO_DEVICE,
	GPO_TO_HOST
} gpo_dir;

/* Host bytes [off, off + len) of a transfer's contiguous device range. */
typedef struct gpo_span
{
	char	   *host;
	size_t		off;
	size_t		len;			/* never 0 */
} gpo_span;

/*
 * Moves total bytes between the concatenation of nspans spans (in offset
 * order) and the device range at d_dev, in direction dir, through the
 * pinned staging buffers (memory.cu).  To the device it may return while
 * its last DMAs still run, and the spans are free to change at once; to
 * the host it returns with the spans written.
 */
extern gpo_status gpo_cuda_stage(gpo_ctx *ctx, gpo_dir dir, void *d_dev,
								 const gpo_span *spans, int64_t nspans,
								 size_t total);

/*
 * Moves the first rows rows of v (elem bytes each) between its chunks and
 * the contiguous device buffer d_dev (every chunk at its row offset), as one
 * staged transfer.  Fewer rows in v: GPO_ERR_INVALID to the device (a
 * malformed input), GPO_ERR_CAPACITY to the host (a short output); to the
 * host, capacity past rows is left untouched.
 */
extern gpo_status gpo_cuda_transfer(gpo_ctx *ctx, gpo_dir dir,
									const gpo_vector *v, size_t elem,
									void *d_dev, int64_t rows);

/* Copies the first rows rows of v (elem bytes each) into d_dst. */
static inline gpo_status
gpo_cuda_upload(gpo_ctx *ctx, const gpo_vector *v, size_t elem, void *d_dst,
				int64_t rows)
{
	return gpo_cuda_transfer(ctx, GPO_TO_DEVICE, v, elem, d_dst, rows);
}

/* Copies rows rows of elem bytes from d_src into the chunks of out, in order. */
static inline gpo_status
gpo_cuda_download(gpo_ctx *ctx, gpo_vector *out, size_t elem,
				  const void *d_src, int64_t rows)
{
	return gpo_cuda_transfer(ctx, GPO_TO_HOST, out, elem, (void *) d_src, rows);
}

/*
 * Expands the validity of the first rows rows of v into a new device byte
 * array *d_valid (1 = valid, 0 = NULL).  When no chunk has a bitmap every
 * row is valid and *d_valid is left NULL (nothing allocated).  The caller
 * frees *d_valid with gpo_cuda_free.
 */
extern gpo_status gpo_cuda_upload_valid(gpo_ctx *ctx, const gpo_vector *v,
										int64_t rows, uint8_t **d_valid);

/*
 * Writes the validity of rows rows (device bytes d_valid, or all valid when
 * d_valid is NULL) into the bitmaps of out's chunks that have one; bits past
 * rows are left untouched.
 */
extern gpo_status gpo_cuda_download_valid(gpo_ctx *ctx, gpo_vector *out,
										  const uint8_t *d_valid,
										  int64_t rows);

/*
 * One input column onto the device, into a buffer the caller took (an
 * arena's, say): the first rows rows of v into d_data (gpo_type_size bytes
 * a row; NULL: the data are not wanted) and, when d_valid is not NULL,
 * their validity as gpo_cuda_upload_valid leaves it.
 */
extern gpo_status gpo_cuda_column_to(gpo_ctx *ctx, const gpo_vector *v,
									 int64_t rows, void *d_data,
									 uint8_t **d_valid);

/*
 * The face prologue of one input column: gpo_cuda_column_to into a new
 * pool buffer *d_data (what names it in errors; d_data NULL: the data are
 * not wanted).  On failure nothing stays allocated and *d_data and
 * *d_valid are NULL; otherwise the caller frees both with gpo_cuda_free.
 */
extern gpo_status gpo_cuda_column_up(gpo_ctx *ctx, const gpo_vector *v,
									 int64_t rows, const char *what,
									 void **d_data, uint8_t **d_valid);

#endif							/* GPO_CUDA_CUH */
