/*
 * resident_dims.c
 *	  The star join of a gpo_resident_groupagg call on the CPU face
 *	  (gpo_resident.h): each dimension's row map drops the rows its join
 *	  does not keep from a set's mask, and a dimension column's values are
 *	  read at the passing rows' dimension rows.
 *
 * A row map is a direct-indexed array over the dimension's key range, so
 * a probe is one subtraction, one compare and one load; the keys of a
 * dimension are unique (the caller's promise), so a row joins at most one
 * dimension row and the rows' counts stay as they are.
 */
#include "gpo_internal.h"
#include "gpo_resident_internal.h"

/* Row r's key of dimension dim over set: its value, and whether it is valid. */
static inline int64_t
dim_key(const gpo_resident_col *rc, int64_t r, bool *valid)
{
	*valid = rc->valid == NULL || ((rc->valid[r >> 3] >> (r & 7)) & 1);
	return rc->type == GPO_INT32 ? ((const int32_t *) rc->data)[r] :
		((const int64_t *) rc->data)[r];
}

/* Whether a row whose dimension row is row passes a join of kind. */
static inline bool
dim_keeps(gpo_resident_join kind, int64_t row)
{
	if (kind == GPO_RESIDENT_LEFT)
		return true;
	return kind == GPO_RESIDENT_ANTI ? row < 0 : row >= 0;
}

/* Whether row r of set passes every dimension's join of q. */
static inline bool
dims_keep_row(const gpo_resident *set, const gpo_resident_query *q, int64_t r)
{
	for (int d = 0; d < q->ndims; d++)
	{
		const gpo_resident_dim *dim = &q->dims[d];
		bool		valid;
		int64_t		key = dim_key(&set->cols[dim->key_col], r, &valid);

		if (!dim_keeps(dim->kind, gpo_resident_dim_row(dim, valid, key)))
			return false;
	}
	return true;
}

/*
 * Clears mask[i] (rows lo + i of set, i < n) where a dimension's join of q
 * drops the row, with ctx's threads; returns how many stay set.
 */
int64_t
gpo_resident_dims_mask(gpo_ctx *ctx, const gpo_resident *set,
					   const gpo_resident_query *q, int64_t lo, int64_t n,
					   uint8_t *mask)
{
	int			nb = gpo_pieces(ctx, n);
	int64_t		kept = 0;

	gpo_omp_prepare(gpo_threads(ctx));
#pragma omp parallel for schedule(dynamic, 1) num_threads(gpo_team(ctx, nb)) reduction(+:kept)
	for (int b = 0; b < nb; b++)
	{
		int64_t		hi = gpo_block_lo(n, b + 1, nb);

		for (int64_t i = gpo_block_lo(n, b, nb); i < hi; i++)
		{
			if (mask[i] && !dims_keep_row(set, q, lo + i))
				mask[i] = 0;
			kept += mask[i] != 0;
		}
	}
	return kept;
}

/* Value of dimension column dc at dimension row row (>= 0) into out[j] (w bytes). */
static inline void
dimcol_put(const gpo_resident_dimcol *dc, size_t w, int64_t row, void *out,
		   int64_t j)
{
	if (w == 8)
		((uint64_t *) out)[j] = ((const uint64_t *) dc->data)[row];
	else
		((uint32_t *) out)[j] = ((const uint32_t *) dc->data)[row];
}

/*
 * The dimension rows of dim that set's rows map[0 .. kept) (map NULL: rows
 * 0 .. kept) match into rows[j] (-1: none), by ctx's threads.
 */
void
gpo_resident_dims_rows(gpo_ctx *ctx, const gpo_resident *set,
					   const gpo_resident_dim *dim, const int64_t *map,
					   int64_t kept, int32_t *rows)
{
	const gpo_resident_col *rc = &set->cols[dim->key_col];
	int			nb = gpo_pieces(ctx, kept);

	gpo_omp_prepare(gpo_threads(ctx));
#pragma omp parallel for schedule(dynamic, 1) num_threads(gpo_team(ctx, nb))
	for (int b = 0; b < nb; b++)
	{
		int64_t		hi = gpo_block_lo(kept, b + 1, nb);

		for (int64_t j = gpo_block_lo(kept, b, nb); j < hi; j++)
		{
			bool		valid;
			int64_t		key = dim_key(rc, map != NULL ? map[j] : j, &valid);

			rows[j] = (int32_t) gpo_resident_dim_row(dim, valid, key);
		}
	}
}

/*
 * Dimension column dc at dimension rows rows[0 .. kept) (-1: none): out[j]
 * its value (0 where NULL), bit j of bits (a bitmap of whole bytes) its
 * validity; by ctx's threads.
 */
void
gpo_resident_dims_gather(gpo_ctx *ctx, const gpo_resident_dimcol *dc,
						 const int32_t *rows, int64_t kept, void *out,
						 uint8_t *bits)
{
	size_t		w = gpo_type_size(dc->type);
	int64_t		nbytes = (kept + 7) / 8;
	int			nb = gpo_pieces(ctx, kept);

	gpo_omp_prepare(gpo_threads(ctx));
	/* blocks of whole bitmap bytes, so that no two share one */
#pragma omp parallel for schedule(dynamic, 1) num_threads(gpo_team(ctx, nb))
	for (int b = 0; b < nb; b++)
	{
		int64_t		hi = gpo_block_lo(nbytes, b + 1, nb) * 8;

		for (int64_t y = gpo_block_lo(nbytes, b, nb); y * 8 < hi && y * 8 < kept; y++)
		{
			unsigned	v = 0;

			for (int k = 0; k < 8 && y * 8 + k < kept; k++)
			{
				int64_t		j = y * 8 + k;
				int64_t		row = rows[j];

				if (row >= 0 && (dc->valid == NULL || dc->valid[row]))
				{
					dimcol_put(dc, w, row, out, j);
					v |= 1u << k;
				}
				else if (w == 8)
					((uint64_t *) out)[j] = 0;
				else
					((uint32_t *) out)[j] = 0;
			}
			bits[y] = (uint8_t) v;
		}
	}
}
