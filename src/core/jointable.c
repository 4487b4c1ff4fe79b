/*
 * jointable.c
 *	  A hash join's build side as a table built once and probed many times
 *	  (the CPU face; gpo_hash_join_cpu builds one in its scratch for each
 *	  call).
 *
 * Build: every non-NULL build key gets a slot.  Integer keys whose range is
 * small against the rows (surrogate keys) are direct-indexed: the slot of
 * key v is v - base.  Any other key goes into an open-addressing table of
 * 64-bit join keys (inserted with compare-and-swap, in parallel); the key
 * whose bits equal the empty marker has a slot of its own past the table.
 * Each slot counts its rows, a prefix sum over the slots gives each one a
 * contiguous run, and one ordered pass drops the build rows into their
 * runs, so each run lists its rows ascending.
 * Probe (size-then-fill): nb blocks of consecutive probe rows each add up
 * what their rows emit (gpo_join_emits of the run lengths their keys find);
 * an exclusive prefix over the blocks gives each block its first output
 * row; after the capacity check each block probes again and writes its rows
 * there.  Output order is thus probe row, then build row, whatever the
 * partition, the thread count or the table's kind.
 */
#include <stdlib.h>

#include "gpo_histjoin_internal.h"

/* A dense table may have up to this many slots per build row, plus GPO_JOIN_DENSE_SLACK. */
#define GPO_JOIN_DENSE_RATIO 4
#define GPO_JOIN_DENSE_SLACK 131072

/* One probe block's output rows and first output row. */
typedef struct join_part
{
	int64_t		pairs;
	int64_t		base;
} join_part;

/* Everything the probe blocks need. */
typedef struct probe_args
{
	const gpo_join_table *t;
	gpo_join_kind kind;
	const gpo_vector *probe;
	gpo_vector *out_build;
	gpo_vector *out_probe;
	int64_t		n;				/* probe rows */
	int			nb;				/* probe blocks */
	int64_t    *probe_starts;
	int64_t    *ob_starts;
	int64_t    *op_starts;
	join_part  *parts;
} probe_args;

/* The signed integer value of an INT32 or INT64 key at p. */
static inline int64_t
join_int_value(gpo_type type, const void *p)
{
	return type == GPO_INT32 ? (int64_t) *(const int32_t *) p : *(const int64_t *) p;
}

/* The join key of row j of chunk c into *k; false if the row is NULL. */
static inline bool
join_key_at(gpo_type type, const gpo_chunk *c, int64_t j, uint64_t *k)
{
	/* (the size inline: a call a row was 5% of an SSB query's profile) */
	const char *p = (const char *) c->data +
		(type == GPO_INT32 || type == GPO_FLOAT32 ? 4 : 8) * j;

	if (!gpo_valid(c, j))
		return false;
	/* a dense table's key is the signed value itself */
	*k = type == GPO_INT32 || type == GPO_INT64 ?
		(uint64_t) join_int_value(type, p) : gpo_join_key(type, p);
	return true;
}

/*
 * Decides a table's kind and size for build_keys: dense (cap = the keys'
 * range) when they are integers in a range of at most RATIO x rows + SLACK
 * values, or of at most GPO_JOIN_DENSE_PROBED values and a quarter of the
 * probe_rows to come, else hashed.  A dense table's slots cost its build a
 * pass, paid back where each is probed a few times: SSB's Q2.1 on 2 cores,
 * 3M lineorder rows probing the 7,991 parts of one category among 200,000
 * keys, probed in 55.9 ms hashed and 20.9 ms dense (the query 91 -> 57 ms).
 */
static void
join_table_shape(const gpo_vector *keys, int64_t probe_rows, gpo_join_table *t)
{
	int64_t		lo = INT64_MAX;
	int64_t		hi = INT64_MIN;

	t->type = keys->type;
	t->rows = gpo_vector_rows(keys);
	t->dense = false;
	t->base = 0;
	t->cap = gpo_join_capacity(t->rows);
	if (keys->type != GPO_INT32 && keys->type != GPO_INT64)
		return;
	for (int c = 0; c < keys->nchunks; c++)
	{
		const gpo_chunk *ch = &keys->chunks[c];

		for (int64_t j = 0; j < ch->n; j++)
		{
			uint64_t	k;

			if (join_key_at(keys->type, ch, j, &k))
			{
				lo = (int64_t) k < lo ? (int64_t) k : lo;
				hi = (int64_t) k > hi ? (int64_t) k : hi;
			}
		}
	}
	if (lo > hi)
		return;					/* every key NULL */
	/* (the range in unsigned arithmetic: hi - lo may pass INT64_MAX) */
	if ((uint64_t) hi - (uint64_t) lo <
		(uint64_t) (GPO_JOIN_DENSE_RATIO * t->rows + GPO_JOIN_DENSE_SLACK) ||
		((uint64_t) hi - (uint64_t) lo < (uint64_t) GPO_JOIN_DENSE_PROBED &&
		 (uint64_t) hi - (uint64_t) lo < (uint64_t) (probe_rows > 0 ? probe_rows : 0) / 4))
	{
		t->dense = true;
		t->base = lo;
		t->cap = (int64_t) ((uint64_t) hi - (uint64_t) lo) + 1;
	}
}

/* Lays out (or only sizes) a table's arrays and its build's own (bslot, starts). */
static size_t
join_table_layout(const gpo_vector *keys, char *base, gpo_join_table *t,
				  int64_t **bslot, int64_t **starts)
{
	gpo_arena	arena = {base, 0};

	t->slots = t->dense ? NULL :
		gpo_arena_take(&arena, sizeof(uint64_t) * t->cap);
	t->off = gpo_arena_take(&arena, sizeof(int64_t) * (t->cap + 2));
	t->runs = gpo_arena_take(&arena, sizeof(int64_t) * (t->rows + 1));
	*bslot = gpo_arena_take(&arena, sizeof(int64_t) * (t->rows + 1));
	*starts = gpo_arena_take(&arena, sizeof(int64_t) * (keys->nchunks + 1));
	return arena.used;
}

/* Bytes of memory a table of build_keys takes (see gpo_join.h). */
size_t
gpo_join_table_bytes(const gpo_vector *build_keys, int64_t probe_rows)
{
	gpo_join_table t;
	int64_t    *bslot;
	int64_t    *starts;

	join_table_shape(build_keys, probe_rows, &t);
	return join_table_layout(build_keys, NULL, &t, &bslot, &starts);
}

/* Slot of key k in a hashed table, inserting it when absent (thread-safe). */
static int64_t
join_insert(const gpo_join_table *t, uint64_t k)
{
	uint64_t	mask = (uint64_t) t->cap - 1;
	uint64_t	h;

	if (k == GPO_JOIN_EMPTY)
		return t->cap;
	h = gpo_join_hash(k) & mask;
	for (;;)
	{
		uint64_t	cur = __atomic_load_n(&t->slots[h], __ATOMIC_RELAXED);

		if (cur == GPO_JOIN_EMPTY)
		{
			uint64_t	expect = GPO_JOIN_EMPTY;

			if (__atomic_compare_exchange_n(&t->slots[h], &expect, k, false,
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
join_lookup(const gpo_join_table *t, uint64_t k)
{
	uint64_t	mask;
	uint64_t	h;

	if (t->dense)
	{
		uint64_t	s = k - (uint64_t) t->base;

		return s < (uint64_t) t->cap ? (int64_t) s : -1;
	}
	if (k == GPO_JOIN_EMPTY)
		return t->cap;
	mask = (uint64_t) t->cap - 1;
	h = gpo_join_hash(k) & mask;
	for (;;)
	{
		uint64_t	cur = t->slots[h];

		if (cur == k)
			return (int64_t) h;
		if (cur == GPO_JOIN_EMPTY)
			return -1;
		h = (h + 1) & mask;
	}
}

/* Build pass: block b of nbb gives its rows slots and counts them per slot. */
static void
join_build_block(const gpo_join_table *t, const gpo_vector *keys,
				 const int64_t *starts, int64_t *bslot, int b, int nbb)
{
	int64_t		lo = gpo_block_lo(t->rows, b, nbb);
	int64_t		hi = gpo_block_lo(t->rows, b + 1, nbb);
	int64_t		row = lo;
	gpo_cursor	cb;

	gpo_cursor_seek(&cb, keys, starts, lo);
	while (row < hi)
	{
		int64_t		len = gpo_cursor_avail(&cb);
		const gpo_chunk *c = gpo_cursor_chunk(&cb);

		len = len < hi - row ? len : hi - row;
		for (int64_t i = 0; i < len; i++)
		{
			uint64_t	k;
			int64_t		s = -1;

			if (join_key_at(t->type, c, cb.off + i, &k))
			{
				s = t->dense ? (int64_t) (k - (uint64_t) t->base) : join_insert(t, k);
				__atomic_fetch_add(&t->off[s + 1], 1, __ATOMIC_RELAXED);
			}
			bslot[row + i] = s;
		}
		cb.off += len;
		row += len;
	}
}

/* Builds the table of build_keys in mem (see gpo_join.h). */
gpo_status
gpo_join_table_build(gpo_ctx *ctx, const gpo_vector *build_keys,
					 int64_t probe_rows, void *mem, size_t bytes,
					 gpo_join_table *t)
{
	gpo_status	st;
	int64_t    *bslot;
	int64_t    *starts;
	int			nbb;

	if (ctx == NULL || t == NULL)
		return GPO_ERR_INVALID;
	if ((st = gpo_check_vector(ctx, build_keys, "join build keys")) != GPO_OK)
		return st;
	if (build_keys->type != GPO_INT32 && build_keys->type != GPO_INT64 &&
		build_keys->type != GPO_FLOAT32 && build_keys->type != GPO_FLOAT64)
	{
		gpo_set_detail(ctx, "join keys must be int32, int64, float32 or float64, not %s",
					   gpo_type_name(build_keys->type));
		return GPO_ERR_INVALID;
	}
	join_table_shape(build_keys, probe_rows, t);
	if (mem == NULL || bytes < join_table_layout(build_keys, NULL, t, &bslot, &starts))
	{
		gpo_set_detail(ctx, "join table memory of %zu bytes is too small", bytes);
		return GPO_ERR_INVALID;
	}
	join_table_layout(build_keys, mem, t, &bslot, &starts);
	gpo_chunk_starts(build_keys, starts);
	if (t->slots)
		memset(t->slots, 0xff, sizeof(uint64_t) * t->cap);
	memset(t->off, 0, sizeof(int64_t) * (t->cap + 2));
	nbb = gpo_blocks(ctx, t->rows);
	gpo_omp_prepare(gpo_threads(ctx));
#pragma omp parallel for schedule(static, 1) num_threads(nbb)
	for (int b = 0; b < nbb; b++)
		join_build_block(t, build_keys, starts, bslot, b, nbb);
	for (int64_t s = 1; s < t->cap + 2; s++)
		t->off[s] += t->off[s - 1];
	for (int64_t r = 0; r < t->rows; r++)
	{
		if (bslot[r] >= 0)
			t->runs[t->off[bslot[r]]++] = r;
	}
	ctx->used = GPO_DEVICE_CPU;
	return GPO_OK;
}

/* Probe blocks' scratch: chunk starts and the blocks' parts. */
static size_t
probe_layout(const gpo_ctx *ctx, const gpo_vector *probe,
			 const gpo_vector *out_build, const gpo_vector *out_probe,
			 char *base, probe_args *a)
{
	gpo_arena	arena = {base, 0};

	a->n = gpo_vector_rows(probe);
	a->nb = gpo_blocks(ctx, a->n);
	a->probe_starts = gpo_arena_take(&arena, sizeof(int64_t) * (probe->nchunks + 1));
	a->ob_starts = out_build ?
		gpo_arena_take(&arena, sizeof(int64_t) * (out_build->nchunks + 1)) : NULL;
	a->op_starts = out_probe ?
		gpo_arena_take(&arena, sizeof(int64_t) * (out_probe->nchunks + 1)) : NULL;
	a->parts = gpo_arena_take(&arena, sizeof(join_part) * a->nb);
	return arena.used;
}

/* Host scratch bytes gpo_join_table_probe needs for these arguments. */
size_t
gpo_join_probe_scratch_bytes(const gpo_ctx *ctx, const gpo_vector *probe_keys,
							 const gpo_vector *build_rows,
							 const gpo_vector *probe_rows)
{
	probe_args	a;

	return probe_layout(ctx, probe_keys, build_rows, probe_rows, NULL, &a);
}

/* First and end positions in runs of slot s's build rows. */
static inline void
join_run(const gpo_join_table *t, int64_t s, int64_t *first, int64_t *end)
{
	*first = s > 0 ? t->off[s - 1] : 0;
	*end = t->off[s];
}

/* The run of probe key row j of chunk c (first == end: no match, or NULL). */
static inline void
join_find(const probe_args *a, const gpo_chunk *c, int64_t j, int64_t *first,
		  int64_t *end)
{
	uint64_t	k;
	int64_t		s;

	*first = *end = 0;
	if (join_key_at(a->probe->type, c, j, &k) && (s = join_lookup(a->t, k)) >= 0)
		join_run(a->t, s, first, end);
}

/* Probe pass 1: block b's number of output rows. */
static void
join_count_block(probe_args *a, int b)
{
	int64_t		lo = gpo_block_lo(a->n, b, a->nb);
	int64_t		hi = gpo_block_lo(a->n, b + 1, a->nb);
	int64_t		row = lo;
	int64_t		pairs = 0;
	gpo_cursor	cp;

	gpo_cursor_seek(&cp, a->probe, a->probe_starts, lo);
	while (row < hi)
	{
		int64_t		len = gpo_cursor_avail(&cp);
		const gpo_chunk *c = gpo_cursor_chunk(&cp);

		len = len < hi - row ? len : hi - row;
		for (int64_t i = 0; i < len; i++)
		{
			int64_t		first;
			int64_t		end;

			join_find(a, c, cp.off + i, &first, &end);
			pairs += gpo_join_emits(a->kind, end - first);
		}
		cp.off += len;
		row += len;
	}
	a->parts[b].pairs = pairs;
}

/* Writes value v (NULL if v < 0) at output cursor co (row orow of [olo, ohi)). */
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

/* Probe pass 2: block b writes its rows from its first output row. */
static void
join_fill_block(probe_args *a, int b)
{
	int64_t		lo = gpo_block_lo(a->n, b, a->nb);
	int64_t		hi = gpo_block_lo(a->n, b + 1, a->nb);
	int64_t		olo = a->parts[b].base;
	int64_t		ohi = olo + a->parts[b].pairs;
	int64_t		orow = olo;
	int64_t		row = lo;
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
			int64_t		first;
			int64_t		end;

			join_find(a, c, cp.off + i, &first, &end);
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
					join_put(&cob, a->t->runs[r], orow, olo, ohi);
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
 * Probes table t with probe_keys (CPU face, arguments checked, scratch of
 * gpo_join_probe_scratch_bytes): what a join of kind emits, in the
 * outputs; GPO_ERR_CAPACITY when an output holds fewer rows.
 */
gpo_status
gpo_join_table_probe_cpu(gpo_ctx *ctx, gpo_join_kind kind,
						 const gpo_join_table *t, const gpo_vector *probe_keys,
						 gpo_vector *build_rows, gpo_vector *probe_rows,
						 int64_t *count, void *scratch)
{
	probe_args	a;
	int64_t		total = 0;

	*count = 0;
	if (gpo_vector_rows(probe_keys) == 0)
		return GPO_OK;
	probe_layout(ctx, probe_keys, build_rows, probe_rows, scratch, &a);
	a.t = t;
	a.kind = kind;
	a.probe = probe_keys;
	a.out_build = build_rows;
	a.out_probe = probe_rows;
	gpo_chunk_starts(probe_keys, a.probe_starts);
	if (build_rows)
		gpo_chunk_starts(build_rows, a.ob_starts);
	if (probe_rows)
		gpo_chunk_starts(probe_rows, a.op_starts);
	gpo_omp_prepare(gpo_threads(ctx));
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
		gpo_set_detail(ctx, "join emits %lld rows but an output holds fewer",
					   (long long) total);
		return GPO_ERR_CAPACITY;
	}
	if ((build_rows || probe_rows) && total > 0)
	{
#pragma omp parallel for schedule(static, 1) num_threads(a.nb)
		for (int b = 0; b < a.nb; b++)
			join_fill_block(&a, b);
	}
	ctx->used = GPO_DEVICE_CPU;
	return GPO_OK;
}

/* Probes a built table (see gpo_join.h): the CPU face, the table being host memory. */
gpo_status
gpo_join_table_probe(gpo_ctx *ctx, gpo_join_kind kind, const gpo_join_table *t,
					 const gpo_vector *probe_keys, gpo_vector *build_rows,
					 gpo_vector *probe_rows, int64_t *count, void *scratch,
					 size_t *scratch_bytes)
{
	gpo_status	st;
	gpo_vector	none = {t ? t->type : GPO_INT32, 0, NULL};

	if (!gpo_call_begin(ctx) || t == NULL)
		return GPO_ERR_INVALID;
	/* the build keys' checks were the build's; an empty vector of their type stands in */
	if ((st = gpo_hash_join_check(ctx, kind, &none, probe_keys, build_rows,
								  probe_rows, count)) != GPO_OK)
		return st;
	if (gpo_scratch_phase(ctx, scratch, scratch_bytes,
						  gpo_join_probe_scratch_bytes(ctx, probe_keys,
													   build_rows, probe_rows),
						  &st))
		return st;
	return gpo_join_table_probe_cpu(ctx, kind, t, probe_keys, build_rows,
									probe_rows, count, scratch);
}
