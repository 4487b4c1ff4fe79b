/*
 * gpo.h
 *	  The gpuops engine: column vectors, primitives and the face dispatcher.
 *
 * Plain C11; never includes postgres.h.  Every primitive has one contract and
 * two faces: gpo_X_cpu (OpenMP) and gpo_X_gpu (CUDA, kernels/).  gpo_X picks
 * the face from the context (gpo_ctx.device) and answers the two-phase scratch
 * query: called with scratch == NULL it only stores the host scratch bytes it
 * needs in *scratch_bytes and returns GPO_OK.
 *
 * Inputs and outputs are gpo_vectors: an ordered list of chunks that forms one
 * logical column.  Chunk lengths are arbitrary, zero included; row i is found
 * by summing earlier chunk lengths.  For an output vector, a chunk's n is its
 * capacity; an operation writes the prefix it publishes (a count) and leaves
 * spare capacity untouched.
 */
#ifndef GPO_H
#define GPO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C"
{
#endif

/* Outcome of every engine call; the PostgreSQL layer maps it to an SQLSTATE. */
typedef enum gpo_status
{
	GPO_OK = 0,
	GPO_ERR_INVALID,			/* bad argument: types, lengths, NULL pointers */
	GPO_ERR_CAPACITY,			/* an output's total capacity is too small */
	GPO_ERR_OVERFLOW,			/* an integer result left its type's range */
	GPO_ERR_NOMEM,				/* host memory could not be allocated */
	GPO_ERR_DEVICE_NOMEM,		/* device or pinned memory could not be allocated */
	GPO_ERR_NO_DEVICE,			/* no usable GPU, or built without CUDA */
	GPO_ERR_DEVICE				/* a CUDA call failed; gpo_ctx.detail says which */
} gpo_status;

/* Physical value types. */
typedef enum gpo_type
{
	GPO_INT32 = 0,
	GPO_UINT32,
	GPO_INT64,
	GPO_FLOAT32,
	GPO_FLOAT64,
	GPO_UINT8					/* masks and flags: nonzero = set */
} gpo_type;

/* Which face runs a primitive. */
typedef enum gpo_device
{
	GPO_DEVICE_AUTO = 0,
	GPO_DEVICE_CPU,
	GPO_DEVICE_GPU
} gpo_device;

/* Compaction flag: a set mask byte drops the row (otherwise it keeps it). */
#define GPO_COMPACT_DROP	1u

/*
 * One chunk of a vector: n values of the vector's type at data, and an
 * optional validity bitmap (bit i of byte i/8 set = row i is not NULL; the
 * same layout as PostgreSQL's array null bitmap).  validity == NULL means
 * every row is valid (inputs) or that validity is not wanted (outputs).
 */
typedef struct gpo_chunk
{
	void	   *data;
	uint8_t    *validity;
	int64_t		n;
} gpo_chunk;

/* One logical column: chunks in row order. */
typedef struct gpo_vector
{
	gpo_type	type;
	int32_t		nchunks;
	gpo_chunk  *chunks;
} gpo_vector;

/* Per-call settings in, and what happened out. */
typedef struct gpo_ctx
{
	gpo_device	device;			/* requested face (AUTO, CPU or GPU) */
	int64_t		gpu_min_rows;	/* AUTO takes the GPU from this many rows */
	int			threads;		/* OpenMP threads for the CPU face; 0 = all */
	gpo_device	used;			/* out: the face that produced the result */
	char		detail[256];	/* out: device error text, or why AUTO fell
								 * back to the CPU; empty if none */
} gpo_ctx;

/* What the GPU side of this build can do (filled by gpo_gpu_info). */
typedef struct gpo_device_info
{
	bool		compiled;		/* built with CUDA */
	bool		usable;			/* a device answered */
	int			runtime_version;	/* CUDA runtime, e.g. 13000; 0 if none */
	int			driver_version; /* CUDA driver; 0 if none */
	int			device_count;
	char		name[128];		/* device 0 */
	int64_t		total_mem;		/* bytes, device 0 */
	int64_t		free_mem;		/* bytes, device 0, at the time of the call */
	int			cc_major;		/* compute capability */
	int			cc_minor;
	char		error[256];		/* why not usable, if so */
} gpo_device_info;

/* ---- vectors (vector.c) ---- */

/* Bytes of one value of a physical type. */
extern size_t gpo_type_size(gpo_type type);
/* Name of a physical type, for messages. */
extern const char *gpo_type_name(gpo_type type);
/* Total rows (or capacity) of a vector. */
extern int64_t gpo_vector_rows(const gpo_vector *v);
/* True if row i of chunk c is valid. */
static inline bool
gpo_valid(const gpo_chunk *c, int64_t i)
{
	return c->validity == NULL || (c->validity[i >> 3] >> (i & 7)) & 1;
}
/* Short text of a status, for messages. */
extern const char *gpo_status_text(gpo_status st);

/* ---- context and dispatch (dispatch.c) ---- */

/* A context with the defaults: AUTO, gpu_min_rows 100000, all threads. */
extern void gpo_ctx_init(gpo_ctx *ctx);
/*
 * Threads the CPU face uses under ctx (resolves 0 to the core count), at
 * most gpo_thread_limit when that is set.
 */
extern int	gpo_threads(const gpo_ctx *ctx);
/*
 * Largest team any CPU face starts, also for calls without a context of
 * their own; 0: no limit.  The host sets it from its core budget, in the
 * thread that calls the engine, while no engine call runs.
 */
extern int	gpo_thread_limit;
/* Cores the process may run on (OpenMP's count). */
extern int	gpo_cores(void);
/*
 * Creates OpenMP's thread pool (at least nthreads) with every signal
 * blocked, for callers that run OpenMP regions of their own.
 */
extern void gpo_omp_prepare(int nthreads);
/* Fills info about the GPU side; never fails (info->usable says). */
extern void gpo_gpu_info(gpo_device_info *info);
/* True when this build has CUDA and a device answers (cached after the first call). */
extern bool gpo_gpu_available(void);
/* True when this build has CUDA (asks no device: safe before any fork). */
extern bool gpo_gpu_compiled(void);
/*
 * Makes this process's GPU faces use device index (of those CUDA sees)
 * instead of device 0; asks no device, and must come before the first CUDA
 * call.  False when that call came already, index < 0, or there is no CUDA.
 */
extern bool gpo_gpu_use_device(int index);
/*
 * Page-locks bytes of host memory at p so that the GPU faces copy it to the
 * device directly instead of through their staging buffers; false (and
 * nothing to undo) without a usable GPU or when the memory can't be locked.
 * The memory must be unregistered before it is freed.
 */
extern bool gpo_host_register(void *p, size_t bytes);
/* Undoes gpo_host_register(p, ...). */
extern void gpo_host_unregister(void *p);
/*
 * Bounds the device memory this process's GPU faces take from their pool,
 * in use and cached together, to bytes (0: no bound but the device's); a
 * call whose working memory does not fit fails with GPO_ERR_DEVICE_NOMEM
 * (GPO_DEVICE_AUTO: runs on the CPU).  The CUDA context's own memory is
 * not counted.  Set it while no engine call runs.
 */
extern void gpo_gpu_set_memory_limit(int64_t bytes);
/*
 * The device memory this process's pool holds now (in use plus cached) and
 * the most it has held, in bytes; 0 without a GPU.
 */
extern void gpo_gpu_memory_use(int64_t *held, int64_t *peak);

/* ---- scan (scan.c) ----
 *
 * out[i] = in[s] + ... + in[i] (inclusive) or in[s] + ... + in[i-1]
 * (exclusive, 0 at a segment's first row), where s is the first row of i's
 * segment.  Types: INT32, UINT32, INT64, FLOAT64; out has in's type.
 * heads (UINT8, may be NULL) marks rows that start a segment; row 0 always
 * does.  An invalid (NULL) row adds nothing; its out row gets the running
 * prefix and, where out has validity, is marked invalid.  INT32 and INT64
 * report GPO_ERR_OVERFLOW when any true prefix leaves the type's range (both
 * faces, exactly); UINT32 wraps modulo 2^32.  Carry crosses chunk seams.
 * in, heads and out may be partitioned independently; out's capacity must
 * cover in's rows.
 */
extern gpo_status gpo_scan(gpo_ctx *ctx, const gpo_vector *in,
						   const gpo_vector *heads, bool inclusive,
						   gpo_vector *out, void *scratch,
						   size_t *scratch_bytes);
extern gpo_status gpo_scan_cpu(gpo_ctx *ctx, const gpo_vector *in,
							   const gpo_vector *heads, bool inclusive,
							   gpo_vector *out, void *scratch);
extern gpo_status gpo_scan_gpu(gpo_ctx *ctx, const gpo_vector *in,
							   const gpo_vector *heads, bool inclusive,
							   gpo_vector *out);

/* ---- compaction (compact.c) ----
 *
 * Stable selection.  mask is UINT8: row i is kept when mask[i] != 0, or when
 * mask[i] == 0 if flags has GPO_COMPACT_DROP.  A NULL (invalid) mask row is
 * never kept, whatever the flag.  index_map (INT64) receives the 0-based
 * logical row numbers of the kept rows in order, and *count their number.
 * If index_map's capacity is smaller than the count, *count is still set and
 * GPO_ERR_CAPACITY is returned.  index_map may be NULL (count only).
 */
extern gpo_status gpo_compact(gpo_ctx *ctx, const gpo_vector *mask,
							  uint32_t flags, gpo_vector *index_map,
							  int64_t *count, void *scratch,
							  size_t *scratch_bytes);
extern gpo_status gpo_compact_cpu(gpo_ctx *ctx, const gpo_vector *mask,
								  uint32_t flags, gpo_vector *index_map,
								  int64_t *count, void *scratch);
extern gpo_status gpo_compact_gpu(gpo_ctx *ctx, const gpo_vector *mask,
								  uint32_t flags, gpo_vector *index_map,
								  int64_t *count);

/* ---- run-length encoding and unique (rle.c) ----
 *
 * Adjacent equal rows form a run.  Types: INT32, UINT32, INT64, FLOAT32,
 * FLOAT64, UINT8.  Equality: two NULLs are equal, NULL never equals a value,
 * floats compare as PostgreSQL compares them (every NaN equals every NaN,
 * -0.0 equals 0.0), other values by their bits.  Runs continue across chunk
 * seams, empty chunks included.  Outputs (each may be NULL):
 *   values  (in's type): the first row of each run, its validity copied
 *           where values has validity bitmaps;
 *   starts  (INT64): 0-based logical row where each run starts;
 *   lengths (INT64): rows in each run.
 * *count receives the number of runs; only that prefix of the outputs is
 * valid.  An output with less capacity gives GPO_ERR_CAPACITY (count set).
 * Empty input writes count = 0.
 */
extern gpo_status gpo_rle(gpo_ctx *ctx, const gpo_vector *in,
						  gpo_vector *values, gpo_vector *starts,
						  gpo_vector *lengths, int64_t *count,
						  void *scratch, size_t *scratch_bytes);
extern gpo_status gpo_rle_cpu(gpo_ctx *ctx, const gpo_vector *in,
							  gpo_vector *values, gpo_vector *starts,
							  gpo_vector *lengths, int64_t *count,
							  void *scratch);
extern gpo_status gpo_rle_gpu(gpo_ctx *ctx, const gpo_vector *in,
							  gpo_vector *values, gpo_vector *starts,
							  gpo_vector *lengths, int64_t *count);

/* Adjacent-unique: gpo_rle with values only (one definition of equality). */
extern gpo_status gpo_unique(gpo_ctx *ctx, const gpo_vector *in,
							 gpo_vector *values, int64_t *count,
							 void *scratch, size_t *scratch_bytes);

#ifdef __cplusplus
}
#endif

#endif							/* GPO_H */
