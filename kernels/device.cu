/*
 * device.cu
 *	  The GPU side's description of itself (gpo_gpu_info), the signal-safe
 *	  start of the CUDA runtime, CUDA error mapping and launch geometry.
 *
 * The CUDA runtime and driver start helper threads when they initialize.
 * Threads inherit the creating thread's signal mask, so the first CUDA call
 * of the process is made with every signal blocked: PostgreSQL's signals
 * (SIGINT, SIGTERM, SIGUSR1, SIGALRM, ...) must only ever reach the backend's
 * own thread, whose handlers set latches and flags that other threads must
 * not touch.  The faces also keep signals blocked while they run (a pending
 * signal is delivered when they return), so any thread the runtime starts
 * later is masked as well.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "gpo_cuda.cuh"

/* One-time start of the CUDA runtime and its outcome. */
static pthread_once_t gpo_cuda_once = PTHREAD_ONCE_INIT;
static cudaError_t gpo_cuda_init_err = cudaSuccess;

/* Multiprocessors of the device in use (0 until first asked). */
static int	gpo_cuda_sms = 0;

/* The device this process uses, of those CUDA sees (gpo_gpu_use_device). */
static int	gpo_cuda_device = 0;
/* Whether gpo_cuda_init_once ran (the device is chosen for good). */
static bool gpo_cuda_started = false;

/* A kernel that does nothing: probes that this build's code runs on the device. */
__global__ void
gpo_k_probe(int *d_unused)
{
	(void) d_unused;
}

/* Starts the runtime and creates the primary context of the device in use. */
static void
gpo_cuda_init_once(void)
{
	cudaError_t err;
	int			count = 0;

	gpo_cuda_started = true;
	err = cudaGetDeviceCount(&count);
	if (err == cudaSuccess && count <= 0)
		err = cudaErrorNoDevice;
	if (err == cudaSuccess && gpo_cuda_device >= count)
		err = cudaErrorInvalidDevice;
	if (err == cudaSuccess)
		err = cudaSetDevice(gpo_cuda_device);
	if (err == cudaSuccess)
		err = cudaFree(0);		/* forces context creation now */
	if (err != cudaSuccess)
		(void) cudaGetLastError();
	gpo_cuda_init_err = err;
}

/* Blocks every signal in this thread, saving the old mask in *old. */
static void
gpo_block_signals(sigset_t *old)
{
	sigset_t	all;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, old);
}

/* Maps a failed CUDA call to a status and writes its text to ctx->detail. */
gpo_status
gpo_cuda_fail(gpo_ctx *ctx, cudaError_t err, const char *what)
{
	gpo_status	st;

	switch (err)
	{
		case cudaSuccess:
			return GPO_OK;
		case cudaErrorMemoryAllocation:
			st = GPO_ERR_DEVICE_NOMEM;
			break;
		case cudaErrorNoDevice:
		case cudaErrorInsufficientDriver:
		case cudaErrorStubLibrary:
		case cudaErrorDevicesUnavailable:
		case cudaErrorSystemDriverMismatch:
		case cudaErrorCompatNotSupportedOnDevice:
			st = GPO_ERR_NO_DEVICE;
			break;
		default:
			st = GPO_ERR_DEVICE;
			break;
	}
	if (ctx != NULL)
		snprintf(ctx->detail, sizeof(ctx->detail), "CUDA error %s: %s (in %s)",
				 cudaGetErrorName(err), cudaGetErrorString(err),
				 what ? what : "?");
	/* clear the thread's last error; sticky errors stay with the context */
	(void) cudaGetLastError();
	return st;
}

/* Blocks signals, starts CUDA once, and checks that a device answered (see gpo_cuda.cuh). */
gpo_status
gpo_cuda_begin(gpo_ctx *ctx, sigset_t *old)
{
	gpo_block_signals(old);
	pthread_once(&gpo_cuda_once, gpo_cuda_init_once);
	if (gpo_cuda_init_err != cudaSuccess)
	{
		if (ctx != NULL)
			snprintf(ctx->detail, sizeof(ctx->detail),
					 "no usable CUDA device: %s",
					 cudaGetErrorString(gpo_cuda_init_err));
		/* restore now; a later gpo_cuda_end(old) sets the same mask again */
		pthread_sigmask(SIG_SETMASK, old, NULL);
		return GPO_ERR_NO_DEVICE;
	}
	/* a thread other than the one that started CUDA would use device 0 */
	if (gpo_cuda_device != 0)
		(void) cudaSetDevice(gpo_cuda_device);
	return GPO_OK;
}

/* Trims the device memory pool, then restores the signal mask saved by gpo_cuda_begin. */
void
gpo_cuda_end(const sigset_t *old)
{
	gpo_cuda_pool_trim();
	pthread_sigmask(SIG_SETMASK, old, NULL);
}

/* Blocks for a grid-stride kernel over items work items (at least 1). */
unsigned int
gpo_cuda_blocks(int64_t items)
{
	int64_t		want;
	int64_t		cap;

	if (gpo_cuda_sms <= 0)
	{
		int			dev = 0;
		int			sms = 0;

		if (cudaGetDevice(&dev) != cudaSuccess ||
			cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount,
								   dev) != cudaSuccess || sms <= 0)
		{
			(void) cudaGetLastError();
			sms = 132;
		}
		gpo_cuda_sms = sms;
	}
	want = (items + GPO_CUDA_THREADS - 1) / GPO_CUDA_THREADS;
	cap = (int64_t) gpo_cuda_sms * 16;
	if (want > cap)
		want = cap;
	return want < 1 ? 1u : (unsigned int) want;
}

/* Copies text into a fixed-size field, always terminated. */
static void
gpo_copy_text(char *dst, size_t size, const char *src)
{
	size_t		len = src ? strnlen(src, size - 1) : 0;

	if (len > 0)
		memcpy(dst, src, len);
	dst[len] = '\0';
}

/*
 * Makes this process use device index (of those CUDA sees) instead of
 * device 0: no CUDA call, so it must come before the first one (which
 * selects the device once); false when it came too late or index < 0.
 */
extern "C" bool
gpo_gpu_use_device(int index)
{
	if (index < 0 || gpo_cuda_started)
		return false;
	gpo_cuda_device = index;
	return true;
}

/* This build has CUDA (no CUDA call: safe in the postmaster). */
extern "C" bool
gpo_gpu_compiled(void)
{
	return true;
}

/* Fills info about the GPU side; never fails (info->usable says). */
extern "C" void
gpo_gpu_info(gpo_device_info *info)
{
	sigset_t	old;
	cudaError_t err;
	cudaDeviceProp prop;
	cudaFuncAttributes attr;
	int			count = 0;
	size_t		free_b = 0;
	size_t		total_b = 0;

	if (info == NULL)
		return;
	memset(info, 0, sizeof(*info));
	info->compiled = true;

	gpo_block_signals(&old);
	pthread_once(&gpo_cuda_once, gpo_cuda_init_once);

	if (cudaRuntimeGetVersion(&info->runtime_version) != cudaSuccess)
		info->runtime_version = 0;
	if (cudaDriverGetVersion(&info->driver_version) != cudaSuccess)
		info->driver_version = 0;

	err = cudaGetDeviceCount(&count);
	if (err != cudaSuccess)
		goto fail;
	info->device_count = count;
	if (count <= 0)
	{
		err = cudaErrorNoDevice;
		goto fail;
	}
	err = cudaGetDeviceProperties(&prop, gpo_cuda_device);
	if (err != cudaSuccess)
		goto fail;
	gpo_copy_text(info->name, sizeof(info->name), prop.name);
	info->total_mem = (int64_t) prop.totalGlobalMem;
	info->cc_major = prop.major;
	info->cc_minor = prop.minor;

	err = gpo_cuda_init_err;
	if (err != cudaSuccess)
		goto fail;
	err = cudaMemGetInfo(&free_b, &total_b);
	if (err != cudaSuccess)
		goto fail;
	info->free_mem = (int64_t) free_b;
	info->total_mem = (int64_t) total_b;

	/* the device must be able to run this build's code (its architecture) */
	err = cudaFuncGetAttributes(&attr, gpo_k_probe);
	if (err != cudaSuccess)
		goto fail;

	info->usable = true;
	gpo_cuda_end(&old);
	return;

fail:
	info->usable = false;
	snprintf(info->error, sizeof(info->error), "%s (%s)",
			 cudaGetErrorString(err), cudaGetErrorName(err));
	(void) cudaGetLastError();
	gpo_cuda_end(&old);
}
