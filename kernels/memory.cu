/*
 * memory.cu
 *	  Device working memory from a stream-ordered pool, and the pinned host
 *	  staging buffers that uploads and downloads go through.
 *
 * Device memory: the faces run on stream 0, which the build makes each host
 * thread's own default stream (--default-stream per-thread: the GPU
 * service's executor runs several requests at once, one thread each), so
 * working buffers are taken with cudaMallocAsync and given back with
 * cudaFreeAsync on that stream.  A free is ordered after every kernel and
 * copy the thread issued before it, so freeing right after the last use is
 * safe, and the
 * memory can serve the next allocation at once without a device-wide
 * synchronization (cudaFree synchronizes the device, and costs far more).
 * The device's default pool keeps up to gpo_pool_keep freed bytes cached
 * across calls (its release threshold), and each face's end trims the pool
 * back to that bound, so one backend never sits on more idle device memory
 * than that.  Under gpo_gpu_set_memory_limit the pool's bytes, in use and
 * cached, stay within the limit (give or take the pool's granularity): an
 * allocation past it fails as out of memory, after the pending frees have
 * landed and the cached bytes were trimmed (the check and the allocation
 * hold gpo_pool_lock, so that threads allocating at once cannot pass the
 * limit together; another thread's frees that have not landed yet count as
 * used).  Devices without memory pools fall back to cudaMalloc/cudaFree.
 * The pool is set up lazily, on the first allocation of the process (always
 * in the backend, never in the postmaster, which never calls CUDA).
 *
 * Staging: pageable host memory moves at a fraction of pinned bandwidth and
 * costs a synchronous copy per piece, so host data goes through two cached
 * pinned buffers of equal size (cudaHostAlloc, grown on demand up to
 * GPO_STAGE_MAX each, kept for the life of the thread's process; each host
 * thread that transfers has its own pair).  The host side of
 * a large piece is copied by OpenMP threads when the file is built with
 * OpenMP (-fopenmp), by the calling thread otherwise.  A transfer is a
 * list of host spans that form one contiguous device range: small spans are
 * coalesced into one staged copy, large ones are cut into staging-sized
 * pieces, and the two buffers alternate so that the host copies piece i+1
 * while the DMA of piece i runs.  Each buffer has an event recorded after
 * its last DMA; a buffer is written or read by the host only after that
 * event has completed.  If pinned memory cannot be had, transfers fall back
 * to one pageable cudaMemcpy per span.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "gpo_cuda.cuh"

/*
 * Most freed device memory the pool keeps cached between calls: 4 GiB, but
 * never more than a sixteenth of the device (each backend has its own
 * context and pool, so many backends must not starve one another).
 */
#define GPO_POOL_KEEP_MAX		((size_t) 4 << 30)
#define GPO_POOL_KEEP_DIVISOR	16

/*
 * Size bounds of each of the two pinned staging buffers: they start at
 * GPO_STAGE_MIN and double on demand up to GPO_STAGE_MAX (2 x 32 MiB of
 * pinned memory per process at most).
 */
#define GPO_STAGE_MIN			((size_t) 1 << 20)
#define GPO_STAGE_MAX			((size_t) 32 << 20)

/* Host copies of at least this many bytes are split across OpenMP threads. */
#define GPO_STAGE_PAR_MIN		((size_t) 4 << 20)
/* Bytes each thread of such a copy takes at least. */
#define GPO_STAGE_PAR_PART		((size_t) 1 << 20)

/* Pool state: set once by gpo_pool_setup. */
static pthread_once_t gpo_pool_once = PTHREAD_ONCE_INIT;
static bool gpo_pool_on = false;	/* cudaMallocAsync in use */
static cudaMemPool_t gpo_pool;
static size_t gpo_pool_keep = 0;
static bool gpo_pool_used = false;	/* something was allocated from it */
/* gpo_gpu_set_memory_limit's bound on the pool's bytes; 0: none. */
static size_t gpo_pool_limit = 0;
/* Held across a bounded allocation's check and allocation. */
static pthread_mutex_t gpo_pool_lock = PTHREAD_MUTEX_INITIALIZER;

/* Staging state, each host thread's own. */
static thread_local char *gpo_stage_buf[2];
static thread_local size_t gpo_stage_size = 0;	/* bytes of each buffer; 0: none */
static thread_local size_t gpo_stage_cap = GPO_STAGE_MAX;	/* largest size to try */
static thread_local cudaEvent_t gpo_stage_ev[2];
static thread_local bool gpo_stage_ev_made = false;
static thread_local bool gpo_stage_busy[2];	/* a DMA may still use the buffer */
static thread_local bool gpo_stage_off = false;	/* pinned memory failed: pageable path */

/* Sets up the device's default pool for caching, or chooses cudaMalloc. */
static void
gpo_pool_setup(void)
{
	int			dev = 0;
	int			pools = 0;
	size_t		free_b = 0;
	size_t		total_b = 0;
	cudaMemPool_t pool;
	uint64_t	keep;

	if (cudaGetDevice(&dev) != cudaSuccess ||
		cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported,
							   dev) != cudaSuccess || pools == 0 ||
		cudaDeviceGetDefaultMemPool(&pool, dev) != cudaSuccess ||
		cudaMemGetInfo(&free_b, &total_b) != cudaSuccess)
	{
		(void) cudaGetLastError();
		return;
	}
	keep = total_b / GPO_POOL_KEEP_DIVISOR;
	if (keep > GPO_POOL_KEEP_MAX)
		keep = GPO_POOL_KEEP_MAX;
	if (gpo_pool_limit > 0 && keep > gpo_pool_limit)
		keep = gpo_pool_limit;
	if (cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold,
								&keep) != cudaSuccess)
	{
		(void) cudaGetLastError();
		return;
	}
	gpo_pool = pool;
	gpo_pool_keep = (size_t) keep;
	gpo_pool_on = true;
}

/* One of the pool's byte counts (cudaMemPoolAttr...Current); 0 if unknown. */
static size_t
gpo_pool_attr(cudaMemPoolAttr attr)
{
	uint64_t	v = 0;

	if (cudaMemPoolGetAttribute(gpo_pool, attr, &v) != cudaSuccess)
	{
		(void) cudaGetLastError();
		return 0;
	}
	return (size_t) v;
}

/*
 * Whether bytes more fit under gpo_pool_limit: the pool's bytes in use
 * (after the pending frees have landed, if need be) plus bytes; cached
 * bytes are trimmed to make room.
 */
static bool
gpo_pool_fits(size_t bytes)
{
	size_t		used = gpo_pool_attr(cudaMemPoolAttrUsedMemCurrent);

	if (used + bytes > gpo_pool_limit)
	{
		if (cudaStreamSynchronize(0) != cudaSuccess)
			(void) cudaGetLastError();
		used = gpo_pool_attr(cudaMemPoolAttrUsedMemCurrent);
		if (used + bytes > gpo_pool_limit)
			return false;
	}
	if (gpo_pool_attr(cudaMemPoolAttrReservedMemCurrent) + bytes > gpo_pool_limit &&
		cudaMemPoolTrimTo(gpo_pool, gpo_pool_limit - bytes) != cudaSuccess)
		(void) cudaGetLastError();
	return true;
}

/* cudaMallocAsync of bytes into *d_ptr, once more after a trim if need be. */
static cudaError_t
gpo_pool_alloc(void **d_ptr, size_t bytes)
{
	cudaError_t err = cudaMallocAsync(d_ptr, bytes, 0);

	if (err == cudaErrorMemoryAllocation)
	{
		/* let pending frees land, hand every cached byte back, try again */
		(void) cudaGetLastError();
		if (cudaStreamSynchronize(0) == cudaSuccess &&
			cudaMemPoolTrimTo(gpo_pool, 0) == cudaSuccess)
			err = cudaMallocAsync(d_ptr, bytes, 0);
		else
			(void) cudaGetLastError();
	}
	return err;
}

/*
 * Device memory of bytes (at least 1) into *d_ptr, from the pool;
 * cudaErrorMemoryAllocation past gpo_gpu_set_memory_limit's bound.
 */
cudaError_t
gpo_cuda_malloc(void **d_ptr, size_t bytes)
{
	cudaError_t err;

	pthread_once(&gpo_pool_once, gpo_pool_setup);
	*d_ptr = NULL;
	if (bytes == 0)
		bytes = 1;
	if (!gpo_pool_on)
	{
		err = cudaMalloc(d_ptr, bytes);
		if (err != cudaSuccess)
			*d_ptr = NULL;
		return err;
	}
	gpo_pool_used = true;
	if (gpo_pool_limit == 0)
		err = gpo_pool_alloc(d_ptr, bytes);
	else
	{
		pthread_mutex_lock(&gpo_pool_lock);
		err = gpo_pool_fits(bytes) ? gpo_pool_alloc(d_ptr, bytes) :
			cudaErrorMemoryAllocation;
		pthread_mutex_unlock(&gpo_pool_lock);
	}
	if (err != cudaSuccess)
		*d_ptr = NULL;
	return err;
}

/* Frees d_ptr (NULL is ignored) in stream order; errors are dropped. */
void
gpo_cuda_free(void *d_ptr)
{
	cudaError_t err;

	if (d_ptr == NULL)
		return;
	if (gpo_pool_on)
		err = cudaFreeAsync(d_ptr, 0);
	else
		err = cudaFree(d_ptr);
	/* a failed free must not pass for a later launch's error */
	if (err != cudaSuccess)
		(void) cudaGetLastError();
}

/* Trims the pool's idle memory down to its bound (after a face ran). */
void
gpo_cuda_pool_trim(void)
{
	if (!gpo_pool_on || !gpo_pool_used)
		return;
	if (cudaMemPoolTrimTo(gpo_pool, gpo_pool_keep) != cudaSuccess)
		(void) cudaGetLastError();
}

/* Bounds the pool's device memory (see gpo.h). */
extern "C" void
gpo_gpu_set_memory_limit(int64_t bytes)
{
	uint64_t	keep;
	size_t		limit = bytes > 0 ? (size_t) bytes : 0;

	pthread_mutex_lock(&gpo_pool_lock);
	if (limit != gpo_pool_limit)
	{
		gpo_pool_limit = limit;
		keep = gpo_pool_keep;
		if (gpo_pool_limit > 0 && keep > gpo_pool_limit)
			keep = gpo_pool_limit;
		if (gpo_pool_on &&
			cudaMemPoolSetAttribute(gpo_pool, cudaMemPoolAttrReleaseThreshold,
									&keep) != cudaSuccess)
			(void) cudaGetLastError();
	}
	pthread_mutex_unlock(&gpo_pool_lock);
}

/* The pool's device memory held now and at most, in bytes (see gpo.h). */
extern "C" void
gpo_gpu_memory_use(int64_t *held, int64_t *peak)
{
	*held = 0;
	*peak = 0;
	if (!gpo_pool_on)
		return;
	*held = (int64_t) gpo_pool_attr(cudaMemPoolAttrReservedMemCurrent);
	*peak = (int64_t) gpo_pool_attr(cudaMemPoolAttrReservedMemHigh);
}

/* Page-locks bytes of host memory at p for direct copies (see gpo.h). */
bool
gpo_host_register(void *p, size_t bytes)
{
	sigset_t	old;
	bool		ok;

	if (p == NULL || bytes == 0 || gpo_cuda_begin(NULL, &old) != GPO_OK)
		return false;
	ok = cudaHostRegister(p, bytes, cudaHostRegisterDefault) == cudaSuccess;
	if (!ok)
		(void) cudaGetLastError();
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return ok;
}

/* Undoes gpo_host_register (see gpo.h); errors are dropped. */
void
gpo_host_unregister(void *p)
{
	sigset_t	old;

	if (p == NULL || gpo_cuda_begin(NULL, &old) != GPO_OK)
		return;
	if (cudaHostUnregister(p) != cudaSuccess)
		(void) cudaGetLastError();
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/*
 * True when every span lies in page-locked host memory (allocated or
 * registered with CUDA), which the DMA engine reads directly.
 */
static bool
gpo_spans_locked(const gpo_span *spans, int64_t nspans)
{
	for (int64_t i = 0; i < nspans; i++)
	{
		cudaPointerAttributes attr;

		if (cudaPointerGetAttributes(&attr, spans[i].host) != cudaSuccess)
		{
			(void) cudaGetLastError();
			return false;
		}
		if (attr.type != cudaMemoryTypeHost)
			return false;
	}
	return true;
}

/* Pool allocation of bytes (at least 1) into *d_ptr, with the status mapping. */
gpo_status
gpo_cuda_alloc(gpo_ctx *ctx, void **d_ptr, size_t bytes, const char *what)
{
	cudaError_t err = gpo_cuda_malloc(d_ptr, bytes);

	if (err != cudaSuccess)
		return gpo_cuda_fail(ctx, err, what);
	return GPO_OK;
}

/* Waits until no DMA uses staging buffer b. */
static cudaError_t
gpo_stage_wait(int b)
{
	cudaError_t err;

	if (!gpo_stage_busy[b])
		return cudaSuccess;
	err = cudaEventSynchronize(gpo_stage_ev[b]);
	if (err == cudaSuccess)
		gpo_stage_busy[b] = false;
	return err;
}

/*
 * After a failed staged transfer: waits for the stream so that no DMA can
 * still touch a staging buffer (an event may not have been recorded).  If
 * even that fails, the buffers are never used again.
 */
static void
gpo_stage_settle(void)
{
	if (cudaStreamSynchronize(0) == cudaSuccess)
		gpo_stage_busy[0] = gpo_stage_busy[1] = false;
	else
		gpo_stage_off = true;
	(void) cudaGetLastError();
}

/*
 * Makes the staging buffers at least min(want, GPO_STAGE_MAX) bytes each
 * (rounded up to a power of two, at least GPO_STAGE_MIN).  If they cannot
 * grow, the old smaller pair is kept (and no larger one tried again); with
 * no pair at all *ok is false and the caller takes the pageable path.
 * Returns a CUDA error only when waiting for the old buffers failed.
 */
static cudaError_t
gpo_stage_reserve(size_t want, bool *ok)
{
	size_t		size = GPO_STAGE_MIN;
	char	   *fresh[2] = {NULL, NULL};
	cudaError_t err;

	*ok = false;
	if (gpo_stage_off)
		return cudaSuccess;
	while (size < want && size < gpo_stage_cap)
		size <<= 1;
	if (!gpo_stage_ev_made)
	{
		if (cudaEventCreateWithFlags(&gpo_stage_ev[0], cudaEventDisableTiming) != cudaSuccess)
			goto off;
		if (cudaEventCreateWithFlags(&gpo_stage_ev[1], cudaEventDisableTiming) != cudaSuccess)
		{
			(void) cudaEventDestroy(gpo_stage_ev[0]);
			goto off;
		}
		gpo_stage_ev_made = true;
	}
	if (gpo_stage_size >= size)
	{
		*ok = true;
		return cudaSuccess;
	}
	/* the new pair first, so that a failure leaves the old one usable */
	if (cudaHostAlloc((void **) &fresh[0], size, cudaHostAllocDefault) != cudaSuccess ||
		cudaHostAlloc((void **) &fresh[1], size, cudaHostAllocDefault) != cudaSuccess)
	{
		(void) cudaGetLastError();
		if (fresh[0] != NULL)
			(void) cudaFreeHost(fresh[0]);
		if (gpo_stage_size == 0)
			goto off;
		gpo_stage_cap = gpo_stage_size;
		*ok = true;
		return cudaSuccess;
	}
	/* the old buffers must be idle before they go */
	if ((err = gpo_stage_wait(0)) != cudaSuccess ||
		(err = gpo_stage_wait(1)) != cudaSuccess)
	{
		(void) cudaFreeHost(fresh[0]);
		(void) cudaFreeHost(fresh[1]);
		return err;
	}
	for (int b = 0; b < 2; b++)
	{
		if (gpo_stage_buf[b] != NULL)
			(void) cudaFreeHost(gpo_stage_buf[b]);
		gpo_stage_buf[b] = fresh[b];
	}
	gpo_stage_size = size;
	*ok = true;
	return cudaSuccess;

off:
	(void) cudaGetLastError();
	gpo_stage_off = true;
	return cudaSuccess;
}

/* Copies bytes [pos, pos + len) of the spans' concatenation to or from buf. */
static void
gpo_stage_move(char *buf, const gpo_span *spans, int64_t nspans, size_t pos,
			   size_t len, bool to_buf)
{
	int64_t		lo = 0;
	int64_t		hi = nspans - 1;
	size_t		done = 0;

	if (len == 0)
		return;
	/* the last span that starts at or before pos (spans are never empty) */
	while (lo < hi)
	{
		int64_t		mid = lo + (hi - lo + 1) / 2;

		if (spans[mid].off <= pos)
			lo = mid;
		else
			hi = mid - 1;
	}
	for (int64_t i = lo; done < len && i < nspans; i++)
	{
		size_t		in = pos + done - spans[i].off;
		size_t		n = spans[i].len - in;

		if (n > len - done)
			n = len - done;
		if (to_buf)
			memcpy(buf + done, spans[i].host + in, n);
		else
			memcpy(spans[i].host + in, buf + done, n);
		done += n;
	}
}

/* gpo_stage_move, split across OpenMP threads when the piece is large. */
static void
gpo_stage_copy(const gpo_ctx *ctx, char *buf, const gpo_span *spans,
			   int64_t nspans, size_t pos, size_t len, bool to_buf)
{
#ifdef _OPENMP
	if (len >= GPO_STAGE_PAR_MIN)
	{
		int			nt = gpo_threads(ctx);

		if ((size_t) nt > len / GPO_STAGE_PAR_PART)
			nt = (int) (len / GPO_STAGE_PAR_PART);
		if (nt > 1)
		{
			/*
			 * Plain memcpy only: no PostgreSQL or CUDA call in the threads.
			 * Signals are blocked here (gpo_cuda_begin), so threads libgomp
			 * starts now never take the backend's signals.
			 */
#pragma omp parallel for num_threads(nt) schedule(static, 1)
			for (int t = 0; t < nt; t++)
			{
				size_t		a = len / nt * t;
				size_t		e = t == nt - 1 ? len : len / nt * (t + 1);

				gpo_stage_move(buf + a, spans, nspans, pos + a, e - a, to_buf);
			}
			return;
		}
	}
#else
	(void) ctx;
#endif
	gpo_stage_move(buf, spans, nspans, pos, len, to_buf);
}

/* Bytes of the staged piece that starts at pos of total. */
static size_t
gpo_stage_piece(size_t pos, size_t total)
{
	return total - pos < gpo_stage_size ? total - pos : gpo_stage_size;
}

/*
 * Starts the DMA of bytes [pos, pos + len) of the device range between
 * d_dev and staging buffer b, in direction dir, once b's last DMA is done,
 * and records b's event after it.
 */
static cudaError_t
gpo_stage_dma(gpo_dir dir, void *d_dev, int b, size_t pos, size_t len)
{
	cudaError_t err;

	if ((err = gpo_stage_wait(b)) != cudaSuccess)
		return err;
	gpo_stage_busy[b] = true;
	if (dir == GPO_TO_DEVICE)
		err = cudaMemcpyAsync((char *) d_dev + pos, gpo_stage_buf[b], len,
							  cudaMemcpyHostToDevice, 0);
	else
		err = cudaMemcpyAsync(gpo_stage_buf[b], (char *) d_dev + pos, len,
							  cudaMemcpyDeviceToHost, 0);
	if (err == cudaSuccess)
		err = cudaEventRecord(gpo_stage_ev[b], 0);
	return err;
}

/* One plain cudaMemcpy per span between the spans and d_dev, in direction dir. */
static gpo_status
gpo_stage_direct(gpo_ctx *ctx, gpo_dir dir, void *d_dev, const gpo_span *spans,
				 int64_t nspans)
{
	gpo_status	st = GPO_OK;

	for (int64_t i = 0; i < nspans; i++)
	{
		char	   *d_at = (char *) d_dev + spans[i].off;

		if (dir == GPO_TO_DEVICE)
			GPO_CUDA_TRY(cudaMemcpy(d_at, spans[i].host, spans[i].len,
									cudaMemcpyHostToDevice));
		else
			GPO_CUDA_TRY(cudaMemcpy(spans[i].host, d_at, spans[i].len,
									cudaMemcpyDeviceToHost));
	}
cleanup:
	return st;
}

/*
 * Moves total bytes between the spans' concatenation and d_dev through the
 * staging buffers (see gpo_cuda.cuh).  Piece k uses buffer k % 2.  To the
 * device the host fills a buffer, then its DMA starts, and the host fills
 * the other buffer meanwhile; to the host the DMA of the next piece starts
 * before the host empties the current one.
 */
gpo_status
gpo_cuda_stage(gpo_ctx *ctx, gpo_dir dir, void *d_dev, const gpo_span *spans,
			   int64_t nspans, size_t total)
{
	gpo_status	st = GPO_OK;
	bool		staged = false;
	bool		to_dev = dir == GPO_TO_DEVICE;
	size_t		len;
	int			b = 0;

	if (total == 0)
		return GPO_OK;
	/* page-locked sources (pinned column chunks): one DMA each, no host copy */
	if (to_dev && gpo_spans_locked(spans, nspans))
		return gpo_stage_direct(ctx, dir, d_dev, spans, nspans);
	GPO_CUDA_TRY(gpo_stage_reserve(total, &staged));
	if (!staged)
		return gpo_stage_direct(ctx, dir, d_dev, spans, nspans);
	for (size_t pos = 0; pos < total; pos += len, b ^= 1)
	{
		len = gpo_stage_piece(pos, total);
		if (to_dev)
		{
			/* buffer b's previous DMA (two pieces back) must be done */
			GPO_CUDA_TRY(gpo_stage_wait(b));
			gpo_stage_copy(ctx, gpo_stage_buf[b], spans, nspans, pos, len, true);
			GPO_CUDA_TRY(gpo_stage_dma(dir, d_dev, b, pos, len));
			continue;
		}
		/* this piece's DMA started a step ago (the first one's starts now) */
		if (pos == 0)
			GPO_CUDA_TRY(gpo_stage_dma(dir, d_dev, b, pos, len));
		if (pos + len < total)
			GPO_CUDA_TRY(gpo_stage_dma(dir, d_dev, b ^ 1, pos + len,
									   gpo_stage_piece(pos + len, total)));
		GPO_CUDA_TRY(gpo_stage_wait(b));
		gpo_stage_copy(ctx, gpo_stage_buf[b], spans, nspans, pos, len, false);
	}
	/* uploads: the last DMAs may still run; their buffers stay busy, the spans are free */
	return GPO_OK;

cleanup:
	if (staged)
		gpo_stage_settle();
	return st;
}
