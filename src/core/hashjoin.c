/*
 * hashjoin.c
 *	  Hash equi-join (build, probe, emit every matching row pair): the
 *	  argument check, the dispatcher and the CPU face.
 *
 * Build: every non-NULL build key goes into an open-addressing table of
 * 64-bit join keys (inserted with compare-and-swap, in parallel), which
 * counts the rows of each distinct key; a prefix sum over the slots gives
 * each distinct key a contiguous run, and one ordered pass drops the build
 * rows into their runs, so each run lists its rows ascending.  The key whose
 * bits equal the empty marker has a slot of its own past the table.
 * Probe (size-then-fill): nb blocks of consecutive probe rows each add up
 * the run lengths their keys find; an exclusive prefix over the blocks gives
 * each block its first output pair; after the capacity check each block
 * probes again and writes its pairs there.  Output order is thus probe row,
 * then build row, whatever the partition or the thread count.  The join's
 * kind decides what a probe row emits (gpo_join.h): every pair, the first
 * (semi), itself alone when it has none (anti), or either (left).
 */
#include <stdlib.h>

#include "gpo_histjoin_internal.h"

/* One probe block's pair count and first output pair. */
typedef struct join_part
{
	int64_t		pairs;
	int64_t		base;
} join_part;

/* Everything the build and the probe blocks need. */
typedef struct join_args
{
	const gpo_vector *build;
	const gpo_vector *probe;
	gpo_vector *out_build;
	gpo_vector *out_probe;
	gpo_join_kind kind;
	int64_t		m;				/* build rows */
	int64_t		n;				/* probe rows */
	int			nbb;			/* build blocks */
	int			nb;				/* probe blocks */
	int64_t		cap;			/* table slots (a power of two) */
	int64_t    *build_starts;
	int64_t    *probe_starts;
	int64_t    *ob_starts;
	int64_t    *op_starts;
	uint64_t   *slots;			/* cap keys, GPO_JOIN_EMPTY if free */
	int64_t    *off;			/* cap + 2: counts, then run offsets */
	int64_t    *bslot;			/* slot of each build row, -1 if NULL */
	int64_t    *runs;			/* build rows grouped by slot */
	join_part  *parts;
} join_args;

/* Lays out (or only sizes) the scratch of a hash join. */
static size_t
join_layout(const gpo_ctx *ctx, const gpo_vector *build,
			const gpo_vector *probe, const gpo_vector *out_build,
			const gpo_vector *out_probe, char *base, join_args *a)
{
	gpo_arena	arena = {base, 0};

	a->m = gpo_vector_rows(build);
	a->n = gpo_vector_rows(probe);
	a->nbb = gpo_blocks(ctx, a->m);
	a->nb = gpo_blocks(ctx, a->n);
	a->cap = gpo_join_capacity(a->m);
	a->build_starts = gpo_arena_take(&arena, sizeof(int64_t) * (build->nchunks + 1));
	a->probe_starts = gpo_arena_take(&arena, sizeof(int64_t) * (probe->nchunks + 1));
	a->ob_starts = out_build ?
		gpo_arena_take(&arena, sizeof(int64_t) * (out_build->nchunks + 1)) : NULL;
	a->op_starts = out_probe ?
		gpo_arena_take(&arena, sizeof(int64_t) * (out_probe->nchunks + 1)) : NULL;
	a->slots = gpo_arena_take(&arena, sizeof(uint64_t) * a->cap);
	a->off = gpo_arena_take(&arena, sizeof(int64_t) * (a->cap + 2));
	a->bslot = gpo_arena_take(&arena, sizeof(int64_t) * a->m);
	a->runs = gpo_arena_take(&arena, sizeof(int64_t) * a->m);
	a->parts = gpo_arena_take(&arena, sizeof(join_part) * a->nb);
	return arena.used;
}

/* Host scratch bytes gpo_hash_join_cpu needs for these arguments. */
size_t
gpo_hash_join_scratch_bytes(const gpo_ctx *ctx, const gpo_vector *build_keys,
							const gpo_vector *probe_keys,
							const gpo_vector *build_rows,
							const gpo_vector *probe_rows)
{
	join_args	a;

	return join_layout(ctx, build_keys, probe_keys, build_rows, probe_rows,
					   NULL, &a);
}

/* Checks an optional INT64 output vector of a join. */
static gpo_status
check_rows_out(gpo_ctx *ctx, const gpo_vector *v, const char *what)
{
	gpo_status	st;

	if (v == NULL)
		return GPO_OK;
	if ((st = gpo_check_vector(ctx, v, what)) != GPO_OK)
		return st;
	if (v->type != GPO_INT64)
	{
		gpo_set_detail(ctx, "%s must be int64, not %s", what,
					   gpo_type_name(v->type));
		return GPO_ERR_INVALID;
	}
	return GPO_OK;
}

/* Checks a hash join's arguments (shared by both faces). */
gpo_status
gpo_hash_join_check(gpo_ctx *ctx, gpo_join_kind kind,
					const gpo_vector *build_keys,
					const gpo_vector *probe_keys,
					const gpo_vector *build_rows,
					const gpo_vector *probe_rows, const int64_t *count)
{
	gpo_status	st;

	if (kind != GPO_JOIN_INNER && kind != GPO_JOIN_SEMI &&
		kind != GPO_JOIN_ANTI && kind != GPO_JOIN_LEFT)
	{
		gpo_set_detail(ctx, "unknown join kind %d", (int) kind);
		return GPO_ERR_INVALID;
	}

	if ((st = gpo_check_vector(ctx, build_keys, "join build keys")) != GPO_OK)
		return st;
	if ((st = gpo_check_vector(ctx, probe_keys, "join probe keys")) != GPO_OK)
		return st;
	if (build_keys->type != GPO_INT32 && build_keys->type != GPO_INT64 &&
		build_keys->type != GPO_FLOAT32 && build_keys->type != GPO_FLOAT64)
	{
		gpo_set_detail(ctx, "join keys must be int32, int64, float32 or float64, not %s",
					   gpo_type_name(build_keys->type));
		return GPO_ERR_INVALID;
	}
	if (probe_keys->type != build_keys->type)
	{
		gpo_set_detail(ctx, "join keys differ in type: %s and %s",
					   gpo_type_name(build_keys->type),
					   gpo_type_name(probe_keys->type));
		return GPO_ERR_INVALID;
	}
	if ((st = check_rows_out(ctx, build_rows, "join build rows")) != GPO_OK)
		return st;
	if (build_rows && (kind == GPO_JOIN_ANTI || kind == GPO_JOIN_LEFT))
		for (int c = 0; c < build_rows->nchunks; c++)
			if (build_rows->chunks[c].validity == NULL &&
				build_rows->chunks[c].n > 0)
			{
				gpo_set_detail(ctx, "an anti or left join's build rows need a validity bitmap");
				return GPO_ERR_INVALID;
			}
	if ((st = check_rows_out(ctx, probe_rows, "join probe rows")) != GPO_OK)
		return st;
	if (count == NULL)
	{
		gpo_set_detail(ctx, "join count is NULL");
		return GPO_ERR_INVALID;
	}
	return GPO_OK;
}

/* The join key of row j of chunk c into *k; false if the row is NULL. */
static inline bool
join_key_at(gpo_type type, const gpo_chunk *c, int64_t j, uint64_t *k)
{
	if (!gpo_valid(c, j))
		return false;
	*k = gpo_join_key(type, (const char *) c->data + gpo_type_size(type) * j);
	return true;
}

/* Slot of key k, inserting it when absent (thread-safe). */
static int64_t
join_insert(join_args *a, uint64_t k)
{
	uint64_t	mask = (uint64_t) a->cap - 1;
	uint64_t	h;

	if (k == GPO_JOIN_EMPTY)
		return a->cap;
	h = gpo_join_hash(k) & mask;
	for (;;)
	{
		uint64_t	cur = __atomic_load_n(&a->slots[h], __ATOMIC_RELAXED);

		if (cur == GPO_JOIN_EMPTY)
		{
			uint64_t	expect = GPO_JOIN_EMPTY;

			if (__atomic_compare_exchange_n(&a->slots[h], &expect, k, false,
											__ATOMIC_RELAXED, __ATOMIC_RELAXED))
				return (int64_t) h;
			cur = expect;
		}
		if (cur == k)
			return (int64_t) h;
		h = (h + 1) & mask;
	}
}

/* Slot of key k, or -1 when no build row has it (after the build). */
static inline int64_t
join_lookup(const join_args *a, uint64_t k)
{
	uint64_t	mask = (uint64_t) a->cap - 1;
	uint64_t	h;

	if (k == GPO_JOIN_EMPTY)
		return a->cap;
	h = gpo_join_hash(k) & mask;
	for (;;)
	{
		uint64_t	cur = a->slots[h];

		if (cur == k)
			return (int64_t) h;
		if (cur == GPO_JOIN_EMPTY)
			return -1;
		h = (h + 1) & mask;
	}
}

/* First and end positions in runs of slot s's build rows. */
static inline void
join_run(const join_args *a, int64_t s, int64_t *first, int64_t *end)
{
	*first = s > 0 ? a->off[s - 1] : 0;
	*end = a->off[s];
}

/* Build pass: block b inserts its keys, counts its rows per slot. */
static void
join_build_block(join_args *a, int b)
{
	int64_t		lo = gpo_block_lo(a->m, b, a->nbb);
	int64_t		hi = gpo_block_lo(a->m, b + 1, a->nbb);
	int64_t		row = lo;
	gpo_type	type = a->build->type;
	gpo_cursor	cb;

	gpo_cursor_seek(&cb, a->build, a->build_starts, lo);
	while (row < hi)
	{
		int64_t		len = gpo_cursor_avail(&cb);
		const gpo_chunk *c = gpo_cursor_chunk(&cb);

		len = len < hi - row ? len : hi - row;
		for (int64_t i = 0; i < len; i++)
		{
			uint64_t	k;
			int64_t		s = -1;

			if (join_key_at(type, c, cb.off + i, &k))
			{
				s = join_insert(a, k);
				__atomic_fetch_add(&a->off[s + 1], 1, __ATOMIC_RELAXED);
			}
			a->bslot[row + i] = s;
		}
		cb.off += len;
		row += len;
	}
}

/* Probe pass 1: block b's number of output pairs. */
static void
join_count_block(join_args *a, int b)
{
	int64_t		lo = gpo_block_lo(a->n, b, a->nb);
	int64_t		hi = gpo_block_lo(a->n, b + 1, a->nb);
	int64_t		row = lo;
	int64_t		pairs = 0;
	gpo_type	type = a->probe->type;
	gpo_cursor	cp;

	gpo_cursor_seek(&cp, a->probe, a->probe_starts, lo);
	while (row < hi)
	{
		int64_t		len = gpo_cursor_avail(&cp);
		const gpo_chunk *c = gpo_cursor_chunk(&cp);

		len = len < hi - row ? len : hi - row;
		for (int64_t i = 0; i < len; i++)
		{
			uint64_t	k;
			int64_t		s;
			int64_t		first;
			int64_t		end;

			first = end = 0;
			if (join_key_at(type, c, cp.off + i, &k) &&
				(s = join_lookup(a, k)) >= 0)
				join_run(a, s, &first, &end);
			pairs += gpo_join_emits(a->kind, end - first);
		}
		cp.off += len;
		row += len;
	}
	a->parts[b].pairs = pairs;
}

/* Writes value v (NULL if v < 0) at output cursor co (pair number orow of [olo, ohi)). */
static inline void
join_put(gpo_cursor *co, int64_t v, int64_t orow, int64_t olo, int64_t ohi)
{
	gpo_chunk  *oc;

	gpo_cursor_avail(co);
	oc = gpo_cursor_chunk(co);
	((int64_t *) oc->data)[co->off] = v < 0 ? 0 : v;
	if (oc->validity)
		gpo_bit_put(oc->validity, co->off, v >= 0, gpo_edge_row(orow, olo, ohi));
	co->off++;
}

/* Probe pass 2: block b writes its pairs from its first output pair. */
static void
join_fill_block(join_args *a, int b)
{
	int64_t		lo = gpo_block_lo(a->n, b, a->nb);
	int64_t		hi = gpo_block_lo(a->n, b + 1, a->nb);
	int64_t		olo = a->parts[b].base;
	int64_t		ohi = olo + a->parts[b].pairs;
	int64_t		orow = olo;
	int64_t		row = lo;
	gpo_type	type = a->probe->type;
	gpo_cursor	cp;
	gpo_cursor	cob;
	gpo_cursor	cop;

	if (olo == ohi)
		return;
	gpo_cursor_seek(&cp, a->probe, a->probe_starts, lo);
	if (a->out_build)
		gpo_cursor_seek(&cob, a->out_build, a->ob_starts, olo);
	if (a->out_probe)
		gpo_cursor_seek(&cop, a->out_probe, a->op_starts, olo);
	while (row < hi)
	{
		int64_t		len = gpo_cursor_avail(&cp);
		const gpo_chunk *c = gpo_cursor_chunk(&cp);

		len = len < hi - row ? len : hi - row;
		for (int64_t i = 0; i < len; i++)
		{
			uint64_t	k;
			int64_t		s;
			int64_t		first;
			int64_t		end;

			first = end = 0;
			if (join_key_at(type, c, cp.off + i, &k) &&
				(s = join_lookup(a, k)) >= 0)
				join_run(a, s, &first, &end);
			if (a->kind == GPO_JOIN_SEMI && end > first)
				end = first + 1;
			else if (a->kind == GPO_JOIN_ANTI && end > first)
				continue;
			if (end == first && a->kind != GPO_JOIN_INNER &&
				a->kind != GPO_JOIN_SEMI)
			{
				/* unmatched: the probe row with a NULL build row */
				if (a->out_build)
					join_put(&cob, -1, orow, olo, ohi);
				if (a->out_probe)
					join_put(&cop, row + i, orow, olo, ohi);
				orow++;
				continue;
			}
			for (int64_t r = first; r < end; r++)
			{
				if (a->out_build)
					join_put(&cob, a->runs[r], orow, olo, ohi);
				if (a->out_probe)
					join_put(&cop, row + i, orow, olo, ohi);
				orow++;
			}
		}
		cp.off += len;
		row += len;
	}
}

/*
 * Each of n probe rows with a NULL build row, into outputs already checked
 * to hold n rows (see gpo_join.h).
 */
void
gpo_join_all_unmatched(gpo_vector *build_rows, gpo_vector *probe_rows,
					   int64_t n)
{
	int64_t		row = 0;

	for (int c = 0; probe_rows && c < probe_rows->nchunks && row < n; c++)
	{
		gpo_chunk  *oc = &probe_rows->chunks[c];

		for (int64_t i = 0; i < oc->n && row < n; i++, row++)
		{
			((int64_t *) oc->data)[i] = row;
			if (oc->validity)
				gpo_bit_put(oc->validity, i, true, true);
		}
	}
	row = 0;
	for (int c = 0; build_rows && c < build_rows->nchunks && row < n; c++)
	{
		gpo_chunk  *oc = &build_rows->chunks[c];

		for (int64_t i = 0; i < oc->n && row < n; i++, row++)
		{
			((int64_t *) oc->data)[i] = 0;
			gpo_bit_put(oc->validity, i, false, true);
		}
	}
}

/* Hash join CPU face (see gpo_join.h); scratch may be NULL (then it is allocated). */
gpo_status
gpo_hash_join_cpu(gpo_ctx *ctx, gpo_join_kind kind,
				  const gpo_vector *build_keys,
				  const gpo_vector *probe_keys, gpo_vector *build_rows,
				  gpo_vector *probe_rows, int64_t *count, void *scratch)
{
	join_args	a;
	gpo_status	st;
	void	   *own = NULL;
	int64_t		total = 0;

	if (ctx == NULL)
		return GPO_ERR_INVALID;
	if ((st = gpo_hash_join_check(ctx, kind, build_keys, probe_keys,
								  build_rows, probe_rows, count)) != GPO_OK)
		return st;
	*count = 0;
	if (gpo_vector_rows(probe_keys) == 0 ||
		(gpo_vector_rows(build_keys) == 0 &&
		 (kind == GPO_JOIN_INNER || kind == GPO_JOIN_SEMI)))
		return GPO_OK;
	if (scratch == NULL)
	{
		own = scratch = malloc(join_layout(ctx, build_keys, probe_keys,
										   build_rows, probe_rows, NULL, &a));
		if (scratch == NULL)
		{
			gpo_set_detail(ctx, "could not allocate hash join scratch");
			return GPO_ERR_NOMEM;
		}
	}
	join_layout(ctx, build_keys, probe_keys, build_rows, probe_rows,
				scratch, &a);
	a.build = build_keys;
	a.probe = probe_keys;
	a.out_build = build_rows;
	a.out_probe = probe_rows;
	a.kind = kind;
	gpo_chunk_starts(build_keys, a.build_starts);
	gpo_chunk_starts(probe_keys, a.probe_starts);
	if (build_rows)
		gpo_chunk_starts(build_rows, a.ob_starts);
	if (probe_rows)
		gpo_chunk_starts(probe_rows, a.op_starts);
	memset(a.slots, 0xff, sizeof(uint64_t) * a.cap);
	memset(a.off, 0, sizeof(int64_t) * (a.cap + 2));

	gpo_omp_prepare(gpo_threads(ctx));
	/* build: insert and count, then runs by a prefix sum and an ordered pass */
#pragma omp parallel for schedule(static, 1) num_threads(a.nbb)
	for (int b = 0; b < a.nbb; b++)
		join_build_block(&a, b);
	for (int64_t s = 1; s < a.cap + 2; s++)
		a.off[s] += a.off[s - 1];
	for (int64_t r = 0; r < a.m; r++)
	{
		if (a.bslot[r] >= 0)
			a.runs[a.off[a.bslot[r]]++] = r;
	}

	/* probe: size, prefix over blocks, capacity check, fill */
#pragma omp parallel for schedule(static, 1) num_threads(a.nb)
	for (int b = 0; b < a.nb; b++)
		join_count_block(&a, b);
	for (int b = 0; b < a.nb; b++)
	{
		a.parts[b].base = total;
		total += a.parts[b].pairs;
	}
	*count = total;
	if ((build_rows && gpo_vector_rows(build_rows) < total) ||
		(probe_rows && gpo_vector_rows(probe_rows) < total))
	{
		gpo_set_detail(ctx, "join emits %lld pairs but an output holds %lld",
					   (long long) total,
					   (long long) (build_rows && gpo_vector_rows(build_rows) < total ?
									gpo_vector_rows(build_rows) :
									gpo_vector_rows(probe_rows)));
		free(own);
		return GPO_ERR_CAPACITY;
	}
	if ((build_rows || probe_rows) && total > 0)
	{
#pragma omp parallel for schedule(static, 1) num_threads(a.nb)
		for (int b = 0; b < a.nb; b++)
			join_fill_block(&a, b);
	}
	free(own);
	return GPO_OK;
}

/* Hash join dispatcher of any kind (see gpo_join.h). */
gpo_status
gpo_hash_join_kind(gpo_ctx *ctx, gpo_join_kind kind,
				   const gpo_vector *build_keys, const gpo_vector *probe_keys,
				   gpo_vector *build_rows, gpo_vector *probe_rows,
				   int64_t *count, void *scratch, size_t *scratch_bytes)
{
	gpo_status	st;
	gpo_device	face;

	if (!gpo_call_begin(ctx))
		return GPO_ERR_INVALID;
	if ((st = gpo_hash_join_check(ctx, kind, build_keys, probe_keys,
								  build_rows, probe_rows, count)) != GPO_OK)
		return st;
	if (gpo_scratch_phase(ctx, scratch, scratch_bytes,
							 gpo_hash_join_scratch_bytes(ctx, build_keys,
														 probe_keys,
														 build_rows,
														 probe_rows),
							 &st))
		return st;
	if ((st = gpo_pick_face(ctx, gpo_vector_rows(build_keys) +
							   gpo_vector_rows(probe_keys), &face)) != GPO_OK)
		return st;
	if (face == GPO_DEVICE_GPU)
	{
		st = gpo_hash_join_gpu(ctx, kind, build_keys, probe_keys, build_rows,
							   probe_rows, count);
		if (!gpo_gpu_fell_back(ctx, st))
		{
			ctx->used = GPO_DEVICE_GPU;
			return st;
		}
	}
	ctx->used = GPO_DEVICE_CPU;
	return gpo_hash_join_cpu(ctx, kind, build_keys, probe_keys, build_rows,
							 probe_rows, count, scratch);
}

/* Inner hash join dispatcher (see gpo_join.h). */
gpo_status
gpo_hash_join(gpo_ctx *ctx, const gpo_vector *build_keys,
			  const gpo_vector *probe_keys, gpo_vector *build_rows,
			  gpo_vector *probe_rows, int64_t *count, void *scratch,
			  size_t *scratch_bytes)
{
	return gpo_hash_join_kind(ctx, GPO_JOIN_INNER, build_keys, probe_keys,
							  build_rows, probe_rows, count, scratch,
							  scratch_bytes);
}
