/*
 * filter.c
 *	  WHERE-clause predicate evaluation into a keep mask: argument checks,
 *	  the dispatcher and the CPU face.
 *
 * The CPU face splits the rows into nb blocks of consecutive rows, one per
 * thread, and walks each block in tiles of TILE rows.  For one tile it runs
 * the program once, node by node, over whole tiles of truth values: a value
 * is two byte arrays, t (1 where TRUE) and f (1 where FALSE); a NULL row has
 * neither.  Then AND is t &= t', f |= f'; OR is t |= t', f &= f'; NOT swaps
 * t and f; a comparison is one tight loop per column chunk piece.  So every
 * inner loop is branch-free over bytes, and the program is interpreted once
 * per tile, not once per row.  The columns and the mask are walked with
 * their own cursors, so their partitions are independent.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpo_filter.h"
#include "gpo_internal.h"

/* Rows one program pass covers. */
#define TILE	1024

/* Everything a block needs. */
typedef struct filter_args
{
	int			ncols;
	const gpo_vector *columns;
	const gpo_pred *prog;
	int			nnodes;
	gpo_vector *mask;
	int64_t		n;				/* rows evaluated */
	int			nb;				/* blocks */
	int			depth;			/* deepest stack of the program */
	int64_t   **col_starts;		/* per column: gpo_chunk_starts */
	int64_t    *mask_starts;
	gpo_cursor *cursors;		/* nb * ncols column cursors */
	uint8_t    *stacks;			/* nb * depth * 2 * TILE truth bytes */
	int64_t    *counts;			/* per block: 1s written */
} filter_args;

/*
 * Checks prog against ncols columns; writes why into ctx->detail (when ctx
 * is not NULL) and stores the deepest stack in *depth (when not NULL).
 */
gpo_status
gpo_filter_check_program(gpo_ctx *ctx, int ncols, const gpo_pred *prog,
						 int nnodes, int *depth)
{
	gpo_ctx		sink;
	int			sp = 0;
	int			deepest = 0;

	if (ctx == NULL)
		ctx = &sink;
	if (prog == NULL || nnodes <= 0)
	{
		gpo_set_detail(ctx, "filter program is empty");
		return GPO_ERR_INVALID;
	}
	for (int i = 0; i < nnodes; i++)
	{
		const gpo_pred *p = &prog[i];
		int			pops = 0;

		switch (p->kind)
		{
			case GPO_PRED_CMP:
				if ((int) p->op < (int) GPO_CMP_EQ || (int) p->op > (int) GPO_CMP_GE)
				{
					gpo_set_detail(ctx, "filter node %d has unknown operator %d",
								   i, (int) p->op);
					return GPO_ERR_INVALID;
				}
				/* FALLTHROUGH */
			case GPO_PRED_NULLTEST:
				if (p->column < 0 || p->column >= ncols)
				{
					gpo_set_detail(ctx, "filter node %d reads column %d of %d",
								   i, (int) p->column, ncols);
					return GPO_ERR_INVALID;
				}
				break;
			case GPO_PRED_AND:
			case GPO_PRED_OR:
				if (p->nargs < 2)
				{
					gpo_set_detail(ctx, "filter node %d: AND/OR needs at least 2 arguments, not %d",
								   i, (int) p->nargs);
					return GPO_ERR_INVALID;
				}
				pops = p->nargs;
				break;
			case GPO_PRED_NOT:
				pops = 1;
				break;
			case GPO_PRED_CONST:
				break;
			default:
				gpo_set_detail(ctx, "filter node %d has unknown kind %d",
							   i, (int) p->kind);
				return GPO_ERR_INVALID;
		}
		if (pops > sp)
		{
			gpo_set_detail(ctx, "filter node %d pops %d values but the stack holds %d",
						   i, pops, sp);
			return GPO_ERR_INVALID;
		}
		sp = sp - pops + 1;
		if (sp > GPO_FILTER_MAX_DEPTH)
		{
			gpo_set_detail(ctx, "filter program needs a stack deeper than %d",
						   GPO_FILTER_MAX_DEPTH);
			return GPO_ERR_INVALID;
		}
		deepest = sp > deepest ? sp : deepest;
	}
	if (sp != 1)
	{
		gpo_set_detail(ctx, "filter program leaves %d values on the stack, not 1",
					   sp);
		return GPO_ERR_INVALID;
	}
	if (depth != NULL)
		*depth = deepest;
	return GPO_OK;
}

/* Rows gpo_filter evaluates for these (checked) arguments. */
int64_t
gpo_filter_rows(int ncols, const gpo_vector *columns, const gpo_vector *mask)
{
	return ncols > 0 ? gpo_vector_rows(&columns[0]) : gpo_vector_rows(mask);
}

/* Checks all of gpo_filter's arguments (shared by both faces). */
gpo_status
gpo_filter_check(gpo_ctx *ctx, int ncols, const gpo_vector *columns,
				 const gpo_pred *prog, int nnodes, const gpo_vector *mask)
{
	gpo_status	st;
	int64_t		rows;

	if (ncols < 0 || (ncols > 0 && columns == NULL))
	{
		gpo_set_detail(ctx, "filter has %d columns at %p", ncols,
					   (const void *) columns);
		return GPO_ERR_INVALID;
	}
	for (int c = 0; c < ncols; c++)
	{
		if ((st = gpo_check_vector(ctx, &columns[c], "filter column")) != GPO_OK)
			return st;
		if (gpo_vector_rows(&columns[c]) != gpo_vector_rows(&columns[0]))
		{
			gpo_set_detail(ctx, "filter column %d has %lld rows, column 0 has %lld",
						   c, (long long) gpo_vector_rows(&columns[c]),
						   (long long) gpo_vector_rows(&columns[0]));
			return GPO_ERR_INVALID;
		}
	}
	if ((st = gpo_filter_check_program(ctx, ncols, prog, nnodes, NULL)) != GPO_OK)
		return st;
	if ((st = gpo_check_vector(ctx, mask, "filter mask")) != GPO_OK)
		return st;
	if (mask->type != GPO_UINT8)
	{
		gpo_set_detail(ctx, "filter mask must be uint8, not %s",
					   gpo_type_name(mask->type));
		return GPO_ERR_INVALID;
	}
	rows = gpo_filter_rows(ncols, columns, mask);
	if (gpo_vector_rows(mask) < rows)
	{
		gpo_set_detail(ctx, "filter mask holds %lld rows but the columns have %lld",
					   (long long) gpo_vector_rows(mask), (long long) rows);
		return GPO_ERR_INVALID;
	}
	return GPO_OK;
}

/* Lays out (or only sizes) the scratch of a filter. */
static size_t
filter_layout(const gpo_ctx *ctx, int ncols, const gpo_vector *columns,
			  const gpo_vector *mask, int depth, char *base, filter_args *a)
{
	gpo_arena	arena = {base, 0};
	int			nb = gpo_pieces(ctx, gpo_filter_rows(ncols, columns, mask));

	a->nb = nb;
	a->depth = depth;
	a->col_starts = gpo_arena_take(&arena, sizeof(int64_t *) * (ncols + 1));
	for (int c = 0; c < ncols; c++)
	{
		int64_t    *s = gpo_arena_take(&arena,
									   sizeof(int64_t) * (columns[c].nchunks + 1));

		if (base != NULL)
			a->col_starts[c] = s;
	}
	a->mask_starts = gpo_arena_take(&arena, sizeof(int64_t) * (mask->nchunks + 1));
	a->cursors = gpo_arena_take(&arena, sizeof(gpo_cursor) * nb * (ncols + 1));
	a->stacks = gpo_arena_take(&arena, (size_t) nb * depth * 2 * TILE);
	a->counts = gpo_arena_take(&arena, sizeof(int64_t) * nb);
	return arena.used;
}

/* Host scratch bytes gpo_filter_cpu needs for these (checked) arguments. */
static size_t
filter_scratch_bytes(const gpo_ctx *ctx, int ncols, const gpo_vector *columns,
					 const gpo_pred *prog, int nnodes, const gpo_vector *mask)
{
	filter_args a;
	int			depth = 1;

	gpo_filter_check_program(NULL, ncols, prog, nnodes, &depth);
	return filter_layout(ctx, ncols, columns, mask, depth, NULL, &a);
}

/* Moves cur len rows on. */
static void
cursor_skip(gpo_cursor *cur, int64_t len)
{
	while (len > 0)
	{
		int64_t		avail = gpo_cursor_avail(cur);
		int64_t		take = avail < len ? avail : len;

		if (take <= 0)
			return;
		cur->off += take;
		len -= take;
	}
}

/* t[j] = expr for every row j of a piece. */
#define OP_LOOP(expr) \
	_Pragma("omp simd") \
	for (int64_t j = 0; j < len; j++) \
		t[j] = (uint8_t) (expr)

/* The comparison of an integer column piece of C type T, into t. */
#define INT_CMP(T) \
	do { \
		const T    *x = (const T *) ch->data + off; \
		int64_t		k = p->ival; \
		switch (p->op) \
		{ \
			case GPO_CMP_EQ: OP_LOOP((int64_t) x[j] == k); break; \
			case GPO_CMP_NE: OP_LOOP((int64_t) x[j] != k); break; \
			case GPO_CMP_LT: OP_LOOP((int64_t) x[j] < k); break; \
			case GPO_CMP_LE: OP_LOOP((int64_t) x[j] <= k); break; \
			case GPO_CMP_GT: OP_LOOP((int64_t) x[j] > k); break; \
			case GPO_CMP_GE: OP_LOOP((int64_t) x[j] >= k); break; \
		} \
	} while (0)

/*
 * The comparison of a float column piece of C type T, into t, in
 * PostgreSQL's float order (NaN = NaN, NaN above all else; IEEE otherwise,
 * so -0.0 = 0.0).  IEEE comparisons with NaN are false, which gives the
 * non-NaN constant's cases; a NaN constant is equal to NaN rows only and
 * greater than every other row.
 */
#define FLT_CMP(T) \
	do { \
		const T    *x = (const T *) ch->data + off; \
		double		k = p->fval; \
		if (isnan(k)) \
			switch (p->op) \
			{ \
				case GPO_CMP_EQ: case GPO_CMP_GE: OP_LOOP(x[j] != x[j]); break; \
				case GPO_CMP_NE: case GPO_CMP_LT: OP_LOOP(x[j] == x[j]); break; \
				case GPO_CMP_LE: memset(t, 1, len); break; \
				case GPO_CMP_GT: memset(t, 0, len); break; \
			} \
		else \
			switch (p->op) \
			{ \
				case GPO_CMP_EQ: OP_LOOP((double) x[j] == k); break; \
				case GPO_CMP_NE: OP_LOOP(!((double) x[j] == k)); break; \
				case GPO_CMP_LT: OP_LOOP((double) x[j] < k); break; \
				case GPO_CMP_LE: OP_LOOP((double) x[j] <= k); break; \
				case GPO_CMP_GT: OP_LOOP(!((double) x[j] <= k)); break; \
				case GPO_CMP_GE: OP_LOOP(!((double) x[j] < k)); break; \
			} \
	} while (0)

/* CMP node over len rows of chunk ch from row off: truth bytes t and f. */
static void
cmp_piece(const gpo_pred *p, gpo_type type, const gpo_chunk *ch, int64_t off,
		  int64_t len, uint8_t *restrict t, uint8_t *restrict f)
{
	const uint8_t *vb = ch->validity;

	switch (type)
	{
		case GPO_INT32:
			INT_CMP(int32_t);
			break;
		case GPO_UINT32:
			INT_CMP(uint32_t);
			break;
		case GPO_INT64:
			INT_CMP(int64_t);
			break;
		case GPO_UINT8:
			INT_CMP(uint8_t);
			break;
		case GPO_FLOAT32:
			FLT_CMP(float);
			break;
		case GPO_FLOAT64:
			FLT_CMP(double);
			break;
	}
	if (vb == NULL)
	{
#pragma omp simd
		for (int64_t j = 0; j < len; j++)
			f[j] = t[j] ^ 1;
		return;
	}
#pragma omp simd
	for (int64_t j = 0; j < len; j++)
	{
		uint8_t		v = (vb[(off + j) >> 3] >> ((off + j) & 7)) & 1;

		f[j] = v & (t[j] ^ 1);
		t[j] &= v;
	}
}

/* NULLTEST node over len rows of chunk ch from row off. */
static void
nulltest_piece(bool is_not, const gpo_chunk *ch, int64_t off, int64_t len,
			   uint8_t *restrict t, uint8_t *restrict f)
{
	const uint8_t *vb = ch->validity;
	uint8_t		flip = is_not ? 0 : 1;	/* IS NULL is TRUE where not valid */

	if (vb == NULL)
	{
		memset(t, flip ^ 1, len);
		memset(f, flip, len);
		return;
	}
#pragma omp simd
	for (int64_t j = 0; j < len; j++)
	{
		uint8_t		v = (vb[(off + j) >> 3] >> ((off + j) & 7)) & 1;

		t[j] = v ^ flip;
		f[j] = v ^ flip ^ 1;
	}
}

/* Runs a column leaf over the len rows of a tile starting at cursor at. */
static void
leaf_tile(const gpo_pred *p, const gpo_vector *col, gpo_cursor at,
		  int64_t len, uint8_t *t, uint8_t *f)
{
	int64_t		done = 0;

	while (done < len)
	{
		int64_t		avail = gpo_cursor_avail(&at);
		int64_t		take = avail < len - done ? avail : len - done;
		const gpo_chunk *ch = gpo_cursor_chunk(&at);

		if (take <= 0)
			break;				/* can't happen: the rows were checked */
		if (p->kind == GPO_PRED_CMP)
			cmp_piece(p, col->type, ch, at.off, take, t + done, f + done);
		else
			nulltest_piece(p->is_not, ch, at.off, take, t + done, f + done);
		at.off += take;
		done += take;
	}
}

/* Folds value (tk, fk) into (t0, f0) over len rows: AND, or OR. */
static void
combine(bool is_and, int64_t len, uint8_t *restrict t0, uint8_t *restrict f0,
		const uint8_t *restrict tk, const uint8_t *restrict fk)
{
	if (is_and)
	{
#pragma omp simd
		for (int64_t j = 0; j < len; j++)
		{
			t0[j] &= tk[j];
			f0[j] |= fk[j];
		}
		return;
	}
#pragma omp simd
	for (int64_t j = 0; j < len; j++)
	{
		t0[j] |= tk[j];
		f0[j] &= fk[j];
	}
}

/* Runs the program over one tile; the result is in t[0] and f[0]. */
static void
program_tile(const filter_args *a, const gpo_cursor *cur, int64_t len,
			 uint8_t **t, uint8_t **f)
{
	int			sp = 0;

	for (int i = 0; i < a->nnodes; i++)
	{
		const gpo_pred *p = &a->prog[i];

		switch (p->kind)
		{
			case GPO_PRED_CMP:
			case GPO_PRED_NULLTEST:
				if (p->kind == GPO_PRED_CMP && p->const_null)
				{
					memset(t[sp], 0, len);
					memset(f[sp], 0, len);
				}
				else
					leaf_tile(p, &a->columns[p->column], cur[p->column], len,
							  t[sp], f[sp]);
				sp++;
				break;
			case GPO_PRED_CONST:
				memset(t[sp], !p->const_null && p->const_bool, len);
				memset(f[sp], !p->const_null && !p->const_bool, len);
				sp++;
				break;
			case GPO_PRED_AND:
			case GPO_PRED_OR:
				{
					int			base = sp - p->nargs;

					for (int k = base + 1; k < sp; k++)
						combine(p->kind == GPO_PRED_AND, len, t[base], f[base],
								t[k], f[k]);
					sp = base + 1;
				}
				break;
			case GPO_PRED_NOT:
				{
					uint8_t    *tmp = t[sp - 1];

					t[sp - 1] = f[sp - 1];
					f[sp - 1] = tmp;
				}
				break;
		}
	}
}

/* Block b: every tile of its rows, written to the mask and counted. */
static void
filter_block(filter_args *a, int b)
{
	int64_t		lo = gpo_block_lo(a->n, b, a->nb);
	int64_t		hi = gpo_block_lo(a->n, b + 1, a->nb);
	gpo_cursor *cur = a->cursors + (size_t) b * (a->ncols + 1);
	gpo_cursor	cm;
	uint8_t    *base = a->stacks + (size_t) b * a->depth * 2 * TILE;
	uint8_t    *t[GPO_FILTER_MAX_DEPTH];
	uint8_t    *f[GPO_FILTER_MAX_DEPTH];
	int64_t		total = 0;

	for (int k = 0; k < a->depth; k++)
	{
		t[k] = base + (size_t) 2 * k * TILE;
		f[k] = t[k] + TILE;
	}
	for (int c = 0; c < a->ncols; c++)
		gpo_cursor_seek(&cur[c], &a->columns[c], a->col_starts[c], lo);
	gpo_cursor_seek(&cm, a->mask, a->mask_starts, lo);
	for (int64_t row = lo; row < hi;)
	{
		int64_t		len = hi - row < TILE ? hi - row : TILE;
		const uint8_t *res;

		program_tile(a, cur, len, t, f);
		res = t[0];
#pragma omp simd reduction(+:total)
		for (int64_t j = 0; j < len; j++)
			total += res[j];
		/* the result bytes into the mask's chunks, marking them valid */
		for (int64_t done = 0; done < len;)
		{
			int64_t		avail = gpo_cursor_avail(&cm);
			int64_t		take = avail < len - done ? avail : len - done;
			gpo_chunk  *ch = gpo_cursor_chunk(&cm);

			if (take <= 0)
				break;			/* can't happen: the capacity was checked */
			memcpy((uint8_t *) ch->data + cm.off, res + done, take);
			if (ch->validity != NULL)
				for (int64_t j = 0; j < take; j++)
				{
					int64_t		r = row + done + j;

					gpo_bit_put(ch->validity, cm.off + j, true,
								gpo_edge_row(r, lo, hi));
				}
			cm.off += take;
			done += take;
		}
		for (int c = 0; c < a->ncols; c++)
			cursor_skip(&cur[c], len);
		row += len;
	}
	a->counts[b] = total;
}

/* Filter CPU face (see gpo_filter.h); scratch may be NULL (then it is allocated). */
gpo_status
gpo_filter_cpu(gpo_ctx *ctx, int ncols, const gpo_vector *columns,
			   const gpo_pred *prog, int nnodes, gpo_vector *mask,
			   int64_t *count, void *scratch)
{
	filter_args a;
	gpo_status	st;
	void	   *own = NULL;
	int64_t		total = 0;
	int			depth = 1;

	if (ctx == NULL)
		return GPO_ERR_INVALID;
	if ((st = gpo_filter_check(ctx, ncols, columns, prog, nnodes, mask)) != GPO_OK)
		return st;
	gpo_filter_check_program(ctx, ncols, prog, nnodes, &depth);
	a.ncols = ncols;
	a.columns = columns;
	a.prog = prog;
	a.nnodes = nnodes;
	a.mask = mask;
	a.n = gpo_filter_rows(ncols, columns, mask);
	if (a.n == 0)
	{
		if (count != NULL)
			*count = 0;
		return GPO_OK;
	}
	if (scratch == NULL)
	{
		own = scratch = malloc(filter_layout(ctx, ncols, columns, mask, depth,
											 NULL, &a));
		if (scratch == NULL)
		{
			gpo_set_detail(ctx, "could not allocate filter scratch");
			return GPO_ERR_NOMEM;
		}
	}
	filter_layout(ctx, ncols, columns, mask, depth, scratch, &a);
	for (int c = 0; c < ncols; c++)
		gpo_chunk_starts(&columns[c], a.col_starts[c]);
	gpo_chunk_starts(mask, a.mask_starts);

	gpo_omp_prepare(gpo_threads(ctx));
	/* pieces taken as they come, so that a preempted thread holds up one */
#pragma omp parallel for schedule(dynamic, 1) num_threads(gpo_team(ctx, a.nb))
	for (int b = 0; b < a.nb; b++)
		filter_block(&a, b);
	for (int b = 0; b < a.nb; b++)
		total += a.counts[b];
	if (count != NULL)
		*count = total;
	free(own);
	return GPO_OK;
}

/* Filter dispatcher (see gpo_filter.h). */
gpo_status
gpo_filter(gpo_ctx *ctx, int ncols, const gpo_vector *columns,
		   const gpo_pred *prog, int nnodes, gpo_vector *mask, int64_t *count,
		   void *scratch, size_t *scratch_bytes)
{
	gpo_status	st;
	gpo_device	face;

	if (!gpo_call_begin(ctx))
		return GPO_ERR_INVALID;
	if ((st = gpo_filter_check(ctx, ncols, columns, prog, nnodes, mask)) != GPO_OK)
		return st;
	if (gpo_scratch_phase(ctx, scratch, scratch_bytes,
						  filter_scratch_bytes(ctx, ncols, columns, prog,
											   nnodes, mask),
						  &st))
		return st;
	if ((st = gpo_pick_face(ctx, gpo_filter_rows(ncols, columns, mask),
							&face)) != GPO_OK)
		return st;
	if (face == GPO_DEVICE_GPU)
	{
		st = gpo_filter_gpu(ctx, ncols, columns, prog, nnodes, mask, count);
		if (!gpo_gpu_fell_back(ctx, st))
		{
			ctx->used = GPO_DEVICE_GPU;
			return st;
		}
	}
	ctx->used = GPO_DEVICE_CPU;
	return gpo_filter_cpu(ctx, ncols, columns, prog, nnodes, mask, count,
						  scratch);
}
