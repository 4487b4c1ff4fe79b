/*
 * compact.c
 *	  Stable compaction (keep/drop mask -> index map and count): the CPU face.
 *
 * Two passes over nb blocks of consecutive rows (up to GPO_PIECES_PER_THREAD
 * a thread, taken as they come): count the kept rows of each block, take the
 * exclusive prefix of the counts (each block's first output row), check the
 * capacity, then each block writes its kept row numbers from there.  The
 * mask and the index map may be partitioned independently; the index map's
 * validity bitmaps, if any, are left alone (as on the GPU face).
 */
#include <stdlib.h>
#include <string.h>

#include "gpo_internal.h"

/* One block's kept-row count and first output row. */
typedef struct compact_part
{
	int64_t		kept;
	int64_t		base;
} compact_part;

/* Everything a block needs. */
typedef struct compact_args
{
	const gpo_vector *mask;
	gpo_vector *index_map;
	bool		drop;
	int64_t		n;
	int			nb;
	int64_t    *mask_starts;
	int64_t    *map_starts;
	compact_part *parts;
} compact_args;

/* Lays out (or only sizes) the scratch of a compaction. */
static size_t
compact_layout(const gpo_ctx *ctx, const gpo_vector *mask,
			   const gpo_vector *index_map, char *base, compact_args *a)
{
	gpo_arena	arena = {base, 0};
	int			nb = gpo_pieces(ctx, gpo_vector_rows(mask));

	a->nb = nb;
	a->mask_starts = gpo_arena_take(&arena,
									sizeof(int64_t) * (mask->nchunks + 1));
	a->map_starts = index_map ?
		gpo_arena_take(&arena, sizeof(int64_t) * (index_map->nchunks + 1)) :
		NULL;
	a->parts = gpo_arena_take(&arena, sizeof(compact_part) * nb);
	return arena.used;
}

/* Host scratch bytes gpo_compact_cpu needs for these arguments. */
size_t
gpo_compact_scratch_bytes(const gpo_ctx *ctx, const gpo_vector *mask,
						  const gpo_vector *index_map)
{
	compact_args a;

	return compact_layout(ctx, mask, index_map, NULL, &a);
}

/* Checks a compaction's arguments (shared by both faces). */
gpo_status
gpo_compact_check(gpo_ctx *ctx, const gpo_vector *mask, uint32_t flags,
				  const gpo_vector *index_map, const int64_t *count)
{
	gpo_status	st;

	if ((st = gpo_check_vector(ctx, mask, "compaction mask")) != GPO_OK)
		return st;
	if (mask->type != GPO_UINT8)
	{
		gpo_set_detail(ctx, "compaction mask must be uint8, not %s",
					   gpo_type_name(mask->type));
		return GPO_ERR_INVALID;
	}
	if ((flags & ~GPO_COMPACT_DROP) != 0)
	{
		gpo_set_detail(ctx, "unknown compaction flags 0x%x", flags);
		return GPO_ERR_INVALID;
	}
	if (index_map != NULL)
	{
		if ((st = gpo_check_vector(ctx, index_map, "compaction index map")) != GPO_OK)
			return st;
		if (index_map->type != GPO_INT64)
		{
			gpo_set_detail(ctx, "compaction index map must be int64, not %s",
						   gpo_type_name(index_map->type));
			return GPO_ERR_INVALID;
		}
	}
	if (count == NULL)
	{
		gpo_set_detail(ctx, "compaction count is NULL");
		return GPO_ERR_INVALID;
	}
	return GPO_OK;
}

/* Rows a block classifies at a time before copying the kept ones out. */
#define WRITE_TILE	256

/* True if mask row j of chunk c is kept. */
static inline bool
kept(const gpo_chunk *c, const uint8_t *m, int64_t j, bool drop)
{
	return gpo_valid(c, j) && ((m[j] != 0) != drop);
}

/* Pass 1: the kept rows of block b. */
static void
compact_count(compact_args *a, int b)
{
	int64_t		lo = gpo_block_lo(a->n, b, a->nb);
	int64_t		hi = gpo_block_lo(a->n, b + 1, a->nb);
	int64_t		row = lo;
	int64_t		total = 0;
	gpo_cursor	cm;

	gpo_cursor_seek(&cm, a->mask, a->mask_starts, lo);
	while (row < hi)
	{
		int64_t		len = gpo_cursor_avail(&cm);
		const gpo_chunk *c = gpo_cursor_chunk(&cm);
		const uint8_t *m = (const uint8_t *) c->data;

		len = len < hi - row ? len : hi - row;
		if (c->validity == NULL && !a->drop)
		{
			for (int64_t j = cm.off; j < cm.off + len; j++)
				total += m[j] != 0;
		}
		else
		{
			for (int64_t j = cm.off; j < cm.off + len; j++)
				total += kept(c, m, j, a->drop);
		}
		cm.off += len;
		row += len;
	}
	a->parts[b].kept = total;
}

/* Pass 2: block b writes its kept row numbers from its first output row. */
static void
compact_write(compact_args *a, int b)
{
	int64_t		lo = gpo_block_lo(a->n, b, a->nb);
	int64_t		hi = gpo_block_lo(a->n, b + 1, a->nb);
	int64_t		olo = a->parts[b].base;
	int64_t		row = lo;
	gpo_cursor	cm;
	gpo_cursor	co;

	if (a->parts[b].kept == 0)
		return;
	gpo_cursor_seek(&cm, a->mask, a->mask_starts, lo);
	gpo_cursor_seek(&co, a->index_map, a->map_starts, olo);
	while (row < hi)
	{
		int64_t		len = gpo_cursor_avail(&cm);
		const gpo_chunk *c = gpo_cursor_chunk(&cm);
		const uint8_t *m = (const uint8_t *) c->data;
		int64_t		first = row - cm.off;	/* logical row of the chunk's row 0 */

		int64_t		end;

		len = len < hi - row ? len : hi - row;
		end = cm.off + len;
		for (int64_t j = cm.off; j < end;)
		{
			int64_t		tile[WRITE_TILE + 1];
			int64_t		stop = end - j < WRITE_TILE ? end : j + WRITE_TILE;
			int64_t		k = 0;

			/* branch-free into the tile: write every row, advance past kept ones */
			if (c->validity == NULL)
				for (; j < stop; j++)
				{
					tile[k] = first + j;
					k += (m[j] != 0) != a->drop;
				}
			else
				for (; j < stop; j++)
				{
					tile[k] = first + j;
					k += kept(c, m, j, a->drop);
				}
			/* then the kept prefix into the output chunks (they have room) */
			for (int64_t t = 0; t < k;)
			{
				int64_t		room = gpo_cursor_avail(&co);
				int64_t		take = room < k - t ? room : k - t;

				memcpy((int64_t *) gpo_cursor_chunk(&co)->data + co.off,
					   tile + t, sizeof(int64_t) * take);
				co.off += take;
				t += take;
			}
		}
		cm.off += len;
		row += len;
	}
}

/* Compaction CPU face (see gpo.h); scratch may be NULL (then it is allocated). */
gpo_status
gpo_compact_cpu(gpo_ctx *ctx, const gpo_vector *mask, uint32_t flags,
				gpo_vector *index_map, int64_t *count, void *scratch)
{
	compact_args a;
	gpo_status	st;
	void	   *own = NULL;
	int64_t		total = 0;

	if (ctx == NULL)
		return GPO_ERR_INVALID;
	if ((st = gpo_compact_check(ctx, mask, flags, index_map, count)) != GPO_OK)
		return st;
	a.mask = mask;
	a.index_map = index_map;
	a.drop = (flags & GPO_COMPACT_DROP) != 0;
	a.n = gpo_vector_rows(mask);
	if (a.n == 0)
	{
		*count = 0;
		return GPO_OK;
	}
	if (scratch == NULL)
	{
		own = scratch = malloc(compact_layout(ctx, mask, index_map, NULL, &a));
		if (scratch == NULL)
		{
			gpo_set_detail(ctx, "could not allocate compaction scratch");
			return GPO_ERR_NOMEM;
		}
	}
	compact_layout(ctx, mask, index_map, scratch, &a);
	gpo_chunk_starts(mask, a.mask_starts);
	if (index_map)
		gpo_chunk_starts(index_map, a.map_starts);

	gpo_omp_prepare(gpo_threads(ctx));
#pragma omp parallel for schedule(dynamic, 1) num_threads(gpo_team(ctx, a.nb))
	for (int b = 0; b < a.nb; b++)
		compact_count(&a, b);
	for (int b = 0; b < a.nb; b++)
	{
		a.parts[b].base = total;
		total += a.parts[b].kept;
	}
	*count = total;
	if (index_map != NULL && gpo_vector_rows(index_map) < total)
	{
		gpo_set_detail(ctx, "compaction keeps %lld rows but the index map holds %lld",
					   (long long) total,
					   (long long) gpo_vector_rows(index_map));
		free(own);
		return GPO_ERR_CAPACITY;
	}
	if (index_map != NULL && total > 0)
	{
#pragma omp parallel for schedule(dynamic, 1) num_threads(gpo_team(ctx, a.nb))
		for (int b = 0; b < a.nb; b++)
			compact_write(&a, b);
	}
	free(own);
	return GPO_OK;
}
