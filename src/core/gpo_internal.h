/*
 * gpo_internal.h
 *	  Helpers shared by the engine's CPU faces and dispatcher: chunk
 *	  addressing, cursors over chunked vectors, validity bit writes, the
 *	  scratch layout and the signal-safe OpenMP thread pool.
 *
 * Plain C11; never includes postgres.h or CUDA headers.
 */
#ifndef GPO_INTERNAL_H
#define GPO_INTERNAL_H

#include "gpo.h"

/*
 * A CPU face splits its rows into at most gpo_threads() blocks of at least
 * this many rows each (a test may lower it to exercise many small blocks).
 */
extern int64_t gpo_rows_per_block;

/* ---- vectors (vector.c) ---- */

/* True if v is a well-formed vector (see gpo_check_vector). */
extern bool gpo_vector_ok(const gpo_vector *v);
/* Checks v as an argument; on failure writes why into ctx->detail. */
extern gpo_status gpo_check_vector(gpo_ctx *ctx, const gpo_vector *v,
								   const char *what);
/* starts[c] = logical row of chunk c's first row; starts[nchunks] = total. */
extern void gpo_chunk_starts(const gpo_vector *v, int64_t *starts);
/* Index of the chunk holding logical row (the last chunk starting at or before it). */
extern int32_t gpo_find_chunk(const gpo_vector *v, const int64_t *starts,
							  int64_t row);
/* Orders two uint64_t key codes, for qsort. */
extern int	gpo_code_cmp(const void *a, const void *b);
/* Writes a formatted message into ctx->detail. */
extern void gpo_set_detail(gpo_ctx *ctx, const char *fmt,...)
			__attribute__((format(printf, 2, 3)));

/* A read or write position in a chunked vector. */
typedef struct gpo_cursor
{
	const gpo_vector *v;
	int32_t		c;				/* current chunk */
	int64_t		off;			/* row within chunk c */
} gpo_cursor;

/* Positions cur at logical row of v (starts from gpo_chunk_starts). */
extern void gpo_cursor_seek(gpo_cursor *cur, const gpo_vector *v,
							const int64_t *starts, int64_t row);

/* Rows left in cur's chunk, stepping over used-up and empty chunks; 0 at the end. */
static inline int64_t
gpo_cursor_avail(gpo_cursor *cur)
{
	const gpo_vector *v = cur->v;

	while (cur->c < v->nchunks && cur->off >= v->chunks[cur->c].n)
	{
		cur->c++;
		cur->off = 0;
	}
	return cur->c < v->nchunks ? v->chunks[cur->c].n - cur->off : 0;
}

/* The chunk cur points into (call gpo_cursor_avail first). */
static inline gpo_chunk *
gpo_cursor_chunk(const gpo_cursor *cur)
{
	return &cur->v->chunks[cur->c];
}

/*
 * Sets or clears bit j of bitmap bm.  shared says another thread may write
 * other bits of the same byte at the same time (the byte is then updated
 * atomically).
 */
static inline void
gpo_bit_put(uint8_t *bm, int64_t j, bool on, bool shared)
{
	uint8_t		mask = (uint8_t) (1u << (j & 7));

	if (shared)
	{
		if (on)
			__atomic_fetch_or(&bm[j >> 3], mask, __ATOMIC_RELAXED);
		else
			__atomic_fetch_and(&bm[j >> 3], (uint8_t) ~mask, __ATOMIC_RELAXED);
	}
	else if (on)
		bm[j >> 3] |= mask;
	else
		bm[j >> 3] &= (uint8_t) ~mask;
}

/*
 * True if output row r may share a validity byte with a row outside the
 * range [lo, hi) that one thread writes: rows of one byte lie within 7 rows
 * of each other.
 */
static inline bool
gpo_edge_row(int64_t r, int64_t lo, int64_t hi)
{
	return r < lo + 8 || r + 8 > hi;
}

/* ---- scratch layout ---- */

/* Carves aligned pieces out of a scratch buffer (or only sizes them). */
typedef struct gpo_arena
{
	char	   *base;			/* NULL: only count bytes */
	size_t		used;
} gpo_arena;

/*
 * Takes bytes from the arena, 16-byte aligned in absolute terms (callers'
 * scratch need only be malloc/palloc-aligned); NULL when only sizing.  Sizing
 * pretends the worst-aligned base, so the size it counts fits any base.
 */
static inline void *
gpo_arena_take(gpo_arena *a, size_t bytes)
{
	uintptr_t	base = a->base ? (uintptr_t) a->base : 1;
	uintptr_t	at = (base + a->used + 15) & ~(uintptr_t) 15;

	a->used = (size_t) (at - base) + bytes;
	return a->base ? (void *) at : NULL;
}

/* ---- OpenMP (omp.c) ---- */

/* Blocks a CPU face splits n rows into under ctx (1 .. gpo_threads). */
extern int	gpo_blocks(const gpo_ctx *ctx, int64_t n);
/*
 * Pieces a loop over n rows is cut into when its threads take them as they
 * come (schedule(dynamic, 1)): up to GPO_PIECES_PER_THREAD a thread, each
 * of at least gpo_rows_per_block rows.  A thread the kernel takes away then
 * holds up at most its current piece, which the others wait for at the end
 * of the loop, instead of a whole thread's share.
 */
#define GPO_PIECES_PER_THREAD 4
extern int	gpo_pieces(const gpo_ctx *ctx, int64_t n);
/* Threads of a team that takes npieces pieces under ctx (1 .. gpo_threads). */
extern int	gpo_team(const gpo_ctx *ctx, int npieces);
/* A loop's body over rows lo .. hi - 1 (gpo_run_pieces). */
typedef void (*gpo_rows_fn) (void *arg, int64_t lo, int64_t hi);
/*
 * Runs fn over rows 0 .. n - 1: in one call without ctx or up to
 * serial_rows rows, else in pieces of at least piece_rows rows (up to
 * GPO_PIECES_PER_THREAD a thread) that ctx's threads take as they come.
 */
extern void gpo_run_pieces(const gpo_ctx *ctx, int64_t n, int64_t serial_rows,
						   int64_t piece_rows, gpo_rows_fn fn, void *arg);
/* First logical row of block b of nb over n rows. */
static inline int64_t
gpo_block_lo(int64_t n, int b, int nb)
{
	return (int64_t) ((__int128) n * b / nb);
}

/* ---- dispatcher steps shared by every primitive (dispatch.c) ---- */

/* Starts a dispatcher call: clears ctx's outputs; false when ctx is NULL. */
extern bool gpo_call_begin(gpo_ctx *ctx);
/* Answers the scratch query or checks the scratch given; true when the call is finished (*st says how). */
extern bool gpo_scratch_phase(gpo_ctx *ctx, void *scratch,
							  size_t *scratch_bytes, size_t need,
							  gpo_status *st);
/* Picks the face for rows input rows, or GPO_ERR_NO_DEVICE when the GPU was demanded and there is none. */
extern gpo_status gpo_pick_face(gpo_ctx *ctx, int64_t rows, gpo_device *face);
/* After the GPU face returned st: true if AUTO should run the CPU face instead. */
extern bool gpo_gpu_fell_back(gpo_ctx *ctx, gpo_status st);

/* ---- per-primitive argument checks and scratch sizes ---- */

extern gpo_status gpo_scan_check(gpo_ctx *ctx, const gpo_vector *in,
								 const gpo_vector *heads,
								 const gpo_vector *out);
extern size_t gpo_scan_scratch_bytes(const gpo_ctx *ctx, const gpo_vector *in,
									 const gpo_vector *heads,
									 const gpo_vector *out);
extern gpo_status gpo_compact_check(gpo_ctx *ctx, const gpo_vector *mask,
									uint32_t flags,
									const gpo_vector *index_map,
									const int64_t *count);
extern size_t gpo_compact_scratch_bytes(const gpo_ctx *ctx,
										const gpo_vector *mask,
										const gpo_vector *index_map);
extern gpo_status gpo_rle_check(gpo_ctx *ctx, const gpo_vector *in,
								const gpo_vector *values,
								const gpo_vector *starts,
								const gpo_vector *lengths,
								const int64_t *count);
extern size_t gpo_rle_scratch_bytes(const gpo_ctx *ctx, const gpo_vector *in,
									const gpo_vector *values,
									const gpo_vector *starts,
									const gpo_vector *lengths);

/*
 * Asks for the first two cache lines of a string that lies cold in a
 * caller's pages (a URL of the wide benchmark's table is 88 bytes): the
 * string dictionary's lookups and the length counts fetch rows ahead.
 */
static inline void
gpo_prefetch_str(const char *data)
{
	if (data != NULL)
	{
		__builtin_prefetch(data);
		__builtin_prefetch(data + 64);
	}
}

#endif							/* GPO_INTERNAL_H */
