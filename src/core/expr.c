/*
 * expr.c
 *	  The expression machine's dispatcher and CPU face (gpo_expr.h).
 *
 * The CPU face cuts the rows into pieces that threads take as they come.
 * A thread walks its piece in tiles of TILE rows: it gathers the tile's
 * rows of every column the program reads (and of the mask) into flat
 * buffers of its own, runs the shared interpreter (gpo_expr_eval.h) once
 * per row, or a program without jumps node by node over the whole tile
 * (expr_columns.c), then writes the tile's results into out's chunks.  Columns,
 * mask and output are walked with cursors of their own, so their
 * partitions are independent.  A piece stops at its first erroring row,
 * which is its lowest; the pieces publish the lowest erroring row seen so
 * far, and a piece whose next tile lies past it stops too (those rows
 * can't hold the lowest).  The error reported is the least over pieces,
 * whatever the threads and their timing.
 */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "gpo_expr_columns.h"
#include "gpo_expr_loops.h"
#include "gpo_internal.h"

/* Rows one gather covers. */
#define TILE	1024

/* One thread's buffers for a tile. */
typedef struct expr_tile
{
	gpo_xcol   *cols;			/* ncols: the interpreter's view */
	void	  **dbuf;			/* ncols: TILE values each */
	uint8_t   **vbuf;			/* ncols: TILE validity bytes each */
	gpo_cursor *cur;			/* ncols: where the piece reads each column */
	uint8_t    *mask;			/* TILE mask bytes (0: not evaluated) */
	const uint8_t *maskp;		/* the tile's mask: mask, or in place */
	gpo_xval   *res;			/* TILE results */
	bool	   *res_null;		/* TILE NULL flags */
	gpo_xval  **sv;				/* column-at-a-time: depth slots of TILE */
	bool	  **sn;
} expr_tile;

/* Everything a piece needs. */
typedef struct expr_args
{
	int			ncols;
	const gpo_vector *columns;
	const gpo_xnode *prog;
	int			nnodes;
	int			depth;			/* its stack without jumps, or -1 (row by
								 * row) */
	const gpo_vector *mask;
	gpo_vector *out;
	int64_t		n;				/* rows evaluated */
	int			nb;				/* pieces */
	uint8_t    *need;			/* ncols: read by the program */
	int64_t   **col_starts;		/* per read column: gpo_chunk_starts */
	int64_t    *mask_starts;
	int64_t    *out_starts;
	expr_tile  *tiles;			/* one per team thread */
	int64_t    *err_rows;		/* per piece: its first erroring row, or n */
	int		   *err_codes;
	int64_t		lowest;			/* lowest erroring row seen (atomic) */
} expr_args;

/* Lowers a->lowest to row (atomically). */
static void
lowest_put(expr_args *a, int64_t row)
{
	int64_t		cur = __atomic_load_n(&a->lowest, __ATOMIC_RELAXED);

	while (row < cur &&
		   !__atomic_compare_exchange_n(&a->lowest, &cur, row, true,
										__ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

/*
 * Copies len rows of v from cursor cur into data (elem bytes a row) and
 * their validity into valid (1 = not NULL), moving cur on.  Returns false
 * when none of them is NULL (valid is then all ones).
 */
static bool
gather(gpo_cursor *cur, int64_t len, size_t elem, char *data, uint8_t *valid)
{
	int64_t		done = 0;
	bool		nulls = false;

	while (done < len)
	{
		int64_t		avail = gpo_cursor_avail(cur);
		int64_t		take = avail < len - done ? avail : len - done;
		const gpo_chunk *ch = gpo_cursor_chunk(cur);

		if (take <= 0)
			break;				/* can't happen: the rows were checked */
		memcpy(data + done * elem, (const char *) ch->data + cur->off * elem,
			   (size_t) take * elem);
		if (ch->validity == NULL)
			memset(valid + done, 1, take);
		else
			for (int64_t j = 0; j < take; j++)
			{
				valid[done + j] = gpo_valid(ch, cur->off + j);
				nulls |= !valid[done + j];
			}
		cur->off += take;
		done += take;
	}
	return nulls;
}

/*
 * Writes rows [from, to) of the tile's results, logical rows row + from
 * on, into chunk ch from its row off + from: the values with a loop a
 * type, and the validity a whole byte at a time where its 8 bits are all
 * of this tile's piece (bits of a byte that another piece writes too go
 * one by one, atomically).  (A row a call of gpo_x_store and gpo_bit_put
 * was a fifth of a query's time whose expressions were two products.)
 */
static void
scatter_rows(const expr_args *a, const expr_tile *t, gpo_chunk *ch,
			 int64_t off, int64_t row, int64_t from, int64_t to, int64_t lo,
			 int64_t hi)
{
	const gpo_xval *res = t->res;
	const bool *nul = t->res_null;
	int64_t		j = from;

	if (!gpo_expr_loops_store(a->out->type,
							  (char *) ch->data + gpo_type_size(a->out->type) * (off + from),
							  res + from, nul + from, to - from))
		for (int64_t k = from; k < to; k++)
			gpo_x_store(a->out->type, ch->data, off + k, res[k], nul[k]);
	/* bits before the first whole byte, and those of shared bytes */
	for (; j < to && (((off + j) & 7) != 0 || gpo_edge_row(row + j, lo, hi)); j++)
		gpo_bit_put(ch->validity, off + j, !nul[j], gpo_edge_row(row + j, lo, hi));
	for (; j + 8 <= to && !gpo_edge_row(row + j + 7, lo, hi); j += 8)
	{
		unsigned	b = 0;

		for (int k = 0; k < 8; k++)
			b |= (unsigned) !nul[j + k] << k;
		ch->validity[(off + j) >> 3] = (uint8_t) b;
	}
	for (; j < to; j++)
		gpo_bit_put(ch->validity, off + j, !nul[j], gpo_edge_row(row + j, lo, hi));
}

/* Writes the tile's len results from row into out's chunks at cursor cur. */
static void
scatter(const expr_args *a, const expr_tile *t, gpo_cursor *cur, int64_t row,
		int64_t len, int64_t lo, int64_t hi)
{
	int64_t		done = 0;

	while (done < len)
	{
		int64_t		avail = gpo_cursor_avail(cur);
		int64_t		take = avail < len - done ? avail : len - done;
		gpo_chunk  *ch = gpo_cursor_chunk(cur);

		if (take <= 0)
			break;				/* can't happen: the capacity was checked */
		scatter_rows(a, t, ch, cur->off - done, row, done, done + take, lo, hi);
		cur->off += take;
		done += take;
	}
}

/* Whether bits off .. off + len - 1 of the bitmap bits are all set. */
static bool
bits_all_set(const uint8_t *bits, int64_t off, int64_t len)
{
	int64_t		i = off;
	int64_t		end = off + len;

	for (; i < end && (i & 7) != 0; i++)
		if (((bits[i >> 3] >> (i & 7)) & 1) == 0)
			return false;
	for (; i + 8 <= end; i += 8)
		if (bits[i >> 3] != 0xFF)
			return false;
	for (; i < end; i++)
		if (((bits[i >> 3] >> (i & 7)) & 1) == 0)
			return false;
	return true;
}

/*
 * Points col at len rows of v in place, from cursor cur on (which moves on),
 * where one chunk holds them all and none of them is NULL (the column
 * cache's chunks carry a bitmap, mostly all set); else false.
 */
static bool
gather_in_place(gpo_cursor *cur, int64_t len, size_t elem, gpo_xcol *col)
{
	const gpo_chunk *ch;

	if (gpo_cursor_avail(cur) < len)
		return false;
	ch = gpo_cursor_chunk(cur);
	if (ch->validity != NULL && !bits_all_set(ch->validity, cur->off, len))
		return false;
	col->data = (const char *) ch->data + cur->off * elem;
	col->valid = NULL;
	cur->off += len;
	return true;
}

/* Gathers the tile's columns and mask; cursors move on by len. */
static void
tile_gather(const expr_args *a, expr_tile *t, gpo_cursor *cur, gpo_cursor *cm,
			int64_t len)
{
	gpo_xcol	mcol;

	/* a column without a NULL in the tile has no validity bytes to check */
	for (int c = 0; c < a->ncols; c++)
	{
		size_t		elem = gpo_type_size(a->columns[c].type);

		if (!a->need[c] || gather_in_place(&cur[c], len, elem, &t->cols[c]))
			continue;
		t->cols[c].data = t->dbuf[c];
		t->cols[c].valid = gather(&cur[c], len, elem, (char *) t->dbuf[c],
								  t->vbuf[c]) ? t->vbuf[c] : NULL;
	}
	t->maskp = t->mask;
	if (a->mask == NULL)
	{
		memset(t->mask, 1, len);
		return;
	}
	/* the mask's bytes in place (every reader tests them against 0) */
	if (gather_in_place(cm, len, 1, &mcol))
	{
		t->maskp = (const uint8_t *) mcol.data;
		return;
	}
	/* res_null serves as the mask's validity bytes for a moment */
	gather(cm, len, 1, (char *) t->mask, (uint8_t *) t->res_null);
	for (int64_t j = 0; j < len; j++)
		t->mask[j] = t->mask[j] != 0 && ((uint8_t *) t->res_null)[j] != 0;
}

/*
 * Runs the program over the tile's len gathered rows: node by node where
 * it has no jumps, else row by row.  Returns the first erroring row (len
 * if none), its gpo_xerr in *code.
 */
static int64_t
tile_run(const expr_args *a, expr_tile *t, int64_t len, int *code)
{
	if (a->depth >= 0)
		return gpo_expr_columns(a->prog, a->nnodes, t->cols, t->maskp, len,
								t->sv, t->sn, t->res, t->res_null, code);
	for (int64_t j = 0; j < len; j++)
	{
		t->res_null[j] = true;
		t->res[j].i = 0;
		if (!t->maskp[j])
			continue;
		*code = gpo_expr_row(a->prog, a->nnodes, t->cols, j, &t->res[j],
							 &t->res_null[j]);
		if (*code != GPO_XERR_NONE)
			return j;
	}
	return len;
}

/* Piece b: every tile of its rows, until its first error. */
static void
expr_piece(expr_args *a, int b)
{
	int64_t		lo = gpo_block_lo(a->n, b, a->nb);
	int64_t		hi = gpo_block_lo(a->n, b + 1, a->nb);
	expr_tile  *t = &a->tiles[omp_get_thread_num()];
	gpo_cursor *cur = t->cur;
	gpo_cursor	cm;
	gpo_cursor	co;

	for (int c = 0; c < a->ncols; c++)
		if (a->need[c])
			gpo_cursor_seek(&cur[c], &a->columns[c], a->col_starts[c], lo);
	if (a->mask != NULL)
		gpo_cursor_seek(&cm, a->mask, a->mask_starts, lo);
	gpo_cursor_seek(&co, a->out, a->out_starts, lo);
	for (int64_t row = lo; row < hi;)
	{
		int64_t		len = hi - row < TILE ? hi - row : TILE;
		int64_t		j;
		int			code = GPO_XERR_NONE;

		if (__atomic_load_n(&a->lowest, __ATOMIC_RELAXED) < row)
			return;
		tile_gather(a, t, cur, &cm, len);
		j = tile_run(a, t, len, &code);
		if (j < len)
		{
			a->err_rows[b] = row + j;
			a->err_codes[b] = code;
			lowest_put(a, row + j);
			return;
		}
		scatter(a, t, &co, row, len, lo, hi);
		row += len;
	}
}

/* Takes (or only sizes) the scratch of a call with team threads. */
static size_t
expr_layout(expr_args *a, int team, char *base)
{
	gpo_arena	arena = {base, 0};

	a->need = gpo_arena_take(&arena, a->ncols > 0 ? a->ncols : 1);
	a->col_starts = gpo_arena_take(&arena, sizeof(int64_t *) * (a->ncols + 1));
	for (int c = 0; c < a->ncols; c++)
	{
		int64_t    *s = gpo_arena_take(&arena, sizeof(int64_t) *
									   (a->columns[c].nchunks + 1));

		if (base != NULL)
			a->col_starts[c] = s;
	}
	a->mask_starts = gpo_arena_take(&arena, sizeof(int64_t) *
									(a->mask ? a->mask->nchunks + 1 : 1));
	a->out_starts = gpo_arena_take(&arena, sizeof(int64_t) * (a->out->nchunks + 1));
	a->err_rows = gpo_arena_take(&arena, sizeof(int64_t) * a->nb);
	a->err_codes = gpo_arena_take(&arena, sizeof(int) * a->nb);
	a->tiles = gpo_arena_take(&arena, sizeof(expr_tile) * team);
	for (int k = 0; k < team; k++)
	{
		expr_tile	t;

		t.cols = gpo_arena_take(&arena, sizeof(gpo_xcol) * (a->ncols + 1));
		t.dbuf = gpo_arena_take(&arena, sizeof(void *) * (a->ncols + 1));
		t.vbuf = gpo_arena_take(&arena, sizeof(uint8_t *) * (a->ncols + 1));
		t.cur = gpo_arena_take(&arena, sizeof(gpo_cursor) * (a->ncols + 1));
		t.mask = gpo_arena_take(&arena, TILE);
		t.res = gpo_arena_take(&arena, sizeof(gpo_xval) * TILE);
		t.res_null = gpo_arena_take(&arena, sizeof(bool) * TILE);
		t.sv = gpo_arena_take(&arena, sizeof(gpo_xval *) * (a->depth + 1));
		t.sn = gpo_arena_take(&arena, sizeof(bool *) * (a->depth + 1));
		for (int s = 0; s < a->depth; s++)
		{
			gpo_xval   *v = gpo_arena_take(&arena, sizeof(gpo_xval) * TILE);
			bool	   *n = gpo_arena_take(&arena, sizeof(bool) * TILE);

			if (base != NULL)
			{
				t.sv[s] = v;
				t.sn[s] = n;
			}
		}
		for (int c = 0; c < a->ncols; c++)
		{
			/* every column is sized, so the layout needs no need[] yet */
			void	   *d = gpo_arena_take(&arena, gpo_type_size(a->columns[c].type) * TILE);
			void	   *v = gpo_arena_take(&arena, TILE);

			if (base != NULL)
			{
				t.cols[c].data = d;
				t.cols[c].valid = v;
				t.dbuf[c] = d;
				t.vbuf[c] = v;
				t.cols[c].type = (int32_t) a->columns[c].type;
			}
		}
		if (base != NULL)
			a->tiles[k] = t;
	}
	return arena.used;
}

/* The expression CPU face (see gpo_expr.h). */
gpo_status
gpo_expr_eval_cpu(gpo_ctx *ctx, int ncols, const gpo_vector *columns,
				  const gpo_xnode *prog, int nnodes, bool out_double,
				  const gpo_vector *mask, gpo_vector *out, gpo_expr_error *err)
{
	expr_args	a;
	gpo_status	st;
	char	   *scratch;
	int			team;

	if (ctx == NULL)
		return GPO_ERR_INVALID;
	if ((st = gpo_expr_check_args(ctx, ncols, columns, prog, nnodes, out_double,
								  mask, out, err)) != GPO_OK)
		return st;
	err->code = GPO_XERR_NONE;
	err->row = 0;
	ctx->used = GPO_DEVICE_CPU;
	memset(&a, 0, sizeof(a));
	a.ncols = ncols;
	a.columns = columns;
	a.prog = prog;
	a.nnodes = nnodes;
	a.mask = mask;
	a.out = out;
	a.n = gpo_expr_rows(ncols, columns, mask, out);
	if (a.n == 0)
		return GPO_OK;
	a.depth = gpo_expr_columns_depth(prog, nnodes);
	a.nb = gpo_pieces(ctx, a.n);
	a.lowest = a.n;
	team = gpo_team(ctx, a.nb);
	scratch = malloc(expr_layout(&a, team, NULL));
	if (scratch == NULL)
	{
		gpo_set_detail(ctx, "could not allocate expression scratch");
		return GPO_ERR_NOMEM;
	}
	expr_layout(&a, team, scratch);
	gpo_expr_needs(prog, nnodes, ncols, a.need);
	for (int c = 0; c < ncols; c++)
		gpo_chunk_starts(&columns[c], a.col_starts[c]);
	if (mask != NULL)
		gpo_chunk_starts(mask, a.mask_starts);
	gpo_chunk_starts(out, a.out_starts);
	for (int b = 0; b < a.nb; b++)
		a.err_rows[b] = a.n;

	gpo_omp_prepare(gpo_threads(ctx));
	/* pieces taken as they come, so that a preempted thread holds up one */
#pragma omp parallel for schedule(dynamic, 1) num_threads(team)
	for (int b = 0; b < a.nb; b++)
		expr_piece(&a, b);
	for (int b = 0; b < a.nb; b++)
		if (a.err_rows[b] < a.n && (err->code == GPO_XERR_NONE ||
									a.err_rows[b] < err->row))
		{
			err->code = (gpo_xerr) a.err_codes[b];
			err->row = a.err_rows[b];
		}
	free(scratch);
	return GPO_OK;
}

/* The expression dispatcher (see gpo_expr.h). */
gpo_status
gpo_expr_eval(gpo_ctx *ctx, int ncols, const gpo_vector *columns,
			  const gpo_xnode *prog, int nnodes, bool out_double,
			  const gpo_vector *mask, gpo_vector *out, gpo_expr_error *err)
{
	gpo_status	st;
	gpo_device	face;

	if (!gpo_call_begin(ctx))
		return GPO_ERR_INVALID;
	if ((st = gpo_expr_check_args(ctx, ncols, columns, prog, nnodes, out_double,
								  mask, out, err)) != GPO_OK)
		return st;
	if ((st = gpo_pick_face(ctx, gpo_expr_rows(ncols, columns, mask, out),
							&face)) != GPO_OK)
		return st;
	if (face == GPO_DEVICE_GPU)
	{
		st = gpo_expr_eval_gpu(ctx, ncols, columns, prog, nnodes, out_double,
							   mask, out, err);
		if (!gpo_gpu_fell_back(ctx, st))
		{
			ctx->used = GPO_DEVICE_GPU;
			return st;
		}
	}
	ctx->used = GPO_DEVICE_CPU;
	return gpo_expr_eval_cpu(ctx, ncols, columns, prog, nnodes, out_double,
							 mask, out, err);
}
