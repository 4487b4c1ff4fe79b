/*
 * resident_dense.c
 *	  The CPU face's one-pass dense aggregation of kept sets: where the keys
 *	  of all sets span a small range, each thread takes a run of sets, filters
 *	  them a tile at a time and adds the passing rows of every request into
 *	  its own dense slots.  Nothing is copied: no row numbers,
 *	  no gathered columns.  The threads' slots are then merged slot-parallel,
 *	  in thread order, so that a result does not depend on timing.
 *
 * Measured on 2 cores, 10M kept rows of 1,000 keys, a WHERE passing half of
 * them: the filter -> compaction -> gather -> groupagg route (resident_cpu.c)
 * took 40 ms, 39% of it in the copies and the key range of the passing
 * rows; this one 26 ms, and 15 ms with the sets' key bounds known
 * (resident_bounds.c).  On the H200 machine's 16 cores, 1e8 rows: 37 ms
 * (native PostgreSQL: 1795 ms).
 */
#include <stdlib.h>
#include <string.h>

#include "groupagg_internal.h"
#include "gpo_resident_internal.h"

#define Min64(a, b)	((a) < (b) ? (a) : (b))
#define Max64(a, b)	((a) > (b) ? (a) : (b))

/* Rows filtered and added at a time (a multiple of 8: validity bytes). */
#define TILE_ROWS	32768

/* Private slots of all threads and requests, at most (80 bytes each). */
#define MAX_SLOTS	(INT64_C(1) << 18)

/* What the threads share: the query's columns and every thread's slots. */
typedef struct dense_job
{
	int			nsets;
	gpo_resident *const *sets;
	const gpo_resident_query *q;
	int			key;			/* set column of the key; -1: the zero key */
	gpo_type	kt;
	int			nr;				/* requests (1 with none: rows only) */
	int			vcol[GPO_AGG_MAX_REQS];	/* set column of each's values; -1 */
	bool		m2[GPO_AGG_MAX_REQS];
	uint64_t	min_code;
	uint64_t	range;			/* key codes; slot range is the NULL key's */
	int			nparts;
	gpo_acc   **tabs;			/* [nparts]: nr * (range + 1) slots each */
	int64_t    *passed;			/* [nparts] */
	int64_t    *dropped;		/* [nparts]: keys outside the range (none
								 * unless a set's bounds were wrong) */
	const int32_t *zeros;		/* TILE_ROWS zeros: the zero key */
	gpo_expr_error *xerr;		/* [nparts]: a part's first computed
								 * column error (rows from its first) */
} dense_job;

/* The type of request r's values (INT64 for none). */
static gpo_type
dense_vtype(const dense_job *j, int r)
{
	int			c = j->vcol[r];

	if (c >= GPO_RESIDENT_MAX_COLS)
		return j->q->exprs[c - GPO_RESIDENT_MAX_COLS].type;
	return c >= 0 ? j->sets[0]->cols[c].type : GPO_INT64;
}

/*
 * Rows [lo, lo + n) of set into part p's slots: filtered into mask by one
 * thread, the computed columns over the passing rows into x, the passing
 * rows' numbers into sel, then added request by request.
 */
static gpo_status
dense_tile(gpo_ctx *ctx, dense_job *j, int p, const gpo_resident *set,
		   int64_t lo, int64_t n, uint8_t *mask, int32_t *sel,
		   gpo_resident_xtile *x)
{
	const int32_t *chosen = NULL;
	int64_t		take = n;
	gpo_chunk	kc;

	if (j->q->nnodes > 0)
	{
		int64_t		kept = 0;
		gpo_status	st;

		st = gpo_resident_filter_cpu(ctx, set, lo, n, j->q, mask, &kept);
		if (st != GPO_OK || kept == 0)
			return st;
		if (kept < n)
		{
			/* the passing rows' numbers, without a branch a row */
			int64_t		k = 0;

			for (int64_t i = 0; i < n; i++)
			{
				sel[k] = (int32_t) i;
				k += mask[i];
			}
			chosen = sel;
			take = kept;
		}
	}
	if (x != NULL)
	{
		gpo_status	st = gpo_resident_xtile_eval(ctx, x, set, lo, n, mask,
												 chosen, take, &j->xerr[p]);

		if (st != GPO_OK || j->xerr[p].code != GPO_XERR_NONE)
			return st;			/* (an error: the part stops) */
	}
	j->passed[p] += take;
	if (j->key >= GPO_RESIDENT_MAX_COLS)
		kc = gpo_resident_xtile_chunk(x, j->key - GPO_RESIDENT_MAX_COLS, n);
	else if (j->key >= 0)
		kc = gpo_resident_chunk(&set->cols[j->key], lo, n);
	else
	{
		kc.data = (void *) j->zeros;
		kc.validity = NULL;
		kc.n = n;
	}
	for (int r = 0; r < j->nr; r++)
	{
		gpo_acc    *t = j->tabs[p] + (size_t) r * (j->range + 1);
		int			c = j->vcol[r];
		gpo_chunk	vc;

		if (c >= GPO_RESIDENT_MAX_COLS)
			vc = gpo_resident_xtile_chunk(x, c - GPO_RESIDENT_MAX_COLS, n);
		else if (c >= 0)
			vc = gpo_resident_chunk(&set->cols[c], lo, n);
		j->dropped[p] += gpo_dense_rows_sel_cpu(&kc, j->kt, c >= 0 ? &vc : NULL,
												dense_vtype(j, r),
												take, chosen, j->min_code, j->range,
												j->m2[r], t, &t[j->range]);
	}
	return GPO_OK;
}

/* Part p: its run of sets into its own slots (set up here). */
static gpo_status
dense_part(gpo_ctx *ctx, dense_job *j, int p)
{
	size_t		nslots = (size_t) j->nr * (j->range + 1);
	int			s0 = (int) gpo_block_lo(j->nsets, p, j->nparts);
	int			s1 = (int) gpo_block_lo(j->nsets, p + 1, j->nparts);
	uint8_t    *mask = malloc(TILE_ROWS);
	int32_t    *sel = malloc(sizeof(int32_t) * TILE_ROWS);
	gpo_resident_xtile *x = j->q->nexprs > 0 ?
		gpo_resident_xtile_new(j->q, j->sets[0], TILE_ROWS) : NULL;
	int64_t		at = 0;			/* the part's rows before set s */
	gpo_status	st = GPO_OK;

	j->tabs[p] = malloc(sizeof(gpo_acc) * nslots);
	if (mask == NULL || sel == NULL || j->tabs[p] == NULL ||
		(j->q->nexprs > 0 && x == NULL))
	{
		free(mask);
		free(sel);
		gpo_resident_xtile_free(x);
		gpo_set_detail(ctx, "could not allocate dense slots for %d kept sets",
					   j->nsets);
		return GPO_ERR_NOMEM;
	}
	for (size_t i = 0; i < nslots; i++)
		gpo_acc_init(&j->tabs[p][i]);
	for (int s = s0; s < s1 && st == GPO_OK && j->xerr[p].code == GPO_XERR_NONE; s++)
	{
		for (int64_t lo = 0; lo < j->sets[s]->rows && st == GPO_OK; lo += TILE_ROWS)
		{
			int64_t		n = j->sets[s]->rows - lo;

			st = dense_tile(ctx, j, p, j->sets[s], lo,
							n < TILE_ROWS ? n : TILE_ROWS, mask, sel, x);
			if (j->xerr[p].code != GPO_XERR_NONE)
			{
				j->xerr[p].row += at + lo;
				break;
			}
		}
		at += j->sets[s]->rows;
	}
	free(mask);
	free(sel);
	gpo_resident_xtile_free(x);
	return st;
}

/*
 * The key codes' extremes from the sets' bounds of the key column, and at
 * most how many keys are valid (their rows); false unless every set that
 * has rows was told its bounds.
 */
static bool
key_bounds(const dense_job *j, uint64_t *mn, uint64_t *mx, int64_t *nvalid)
{
	*mn = UINT64_MAX;
	*mx = 0;
	*nvalid = 0;
	for (int i = 0; i < j->nsets; i++)
	{
		const gpo_resident_col *rc = &j->sets[i]->cols[j->key];

		if (j->sets[i]->rows == 0)
			continue;
		if (!rc->bounded)
			return false;
		if (rc->lo > rc->hi)
			continue;			/* every key NULL */
		*mn = Min64(*mn, gpo_code_of_raw(j->kt, (uint64_t) rc->lo, 1));
		*mx = Max64(*mx, gpo_code_of_raw(j->kt, (uint64_t) rc->hi, 1));
		*nvalid += j->sets[i]->rows;
	}
	return true;
}

/*
 * The key range of all sets' rows into j (min_code, range), and *strategy
 * dense (from AUTO: gpo_agg_choose's pick for all rows); false where that
 * pick is not dense, or where the private slots would be too many.
 */
static bool
dense_range(gpo_ctx *ctx, dense_job *j, gpo_agg_strategy *strategy)
{
	gpo_agg_strategy s = *strategy;
	uint64_t	mn = 0,
				mx = 0;
	int64_t		nvalid = 0;

	if (s != GPO_AGG_AUTO && s != GPO_AGG_DENSE)
		return false;
	if (!gpo_type_is_int(j->kt))
		return false;
	if (j->key >= GPO_RESIDENT_MAX_COLS)
	{
		/* a computed key of known span (packed keys), never NULL */
		mn = gpo_code_of_raw(j->kt, 0, 1);
		mx = gpo_code_of_raw(j->kt, (uint64_t) (j->q->key_span - 1), 1);
		for (int i = 0; i < j->nsets; i++)
			nvalid += j->sets[i]->rows;
	}
	else if (j->key >= 0 && key_bounds(j, &mn, &mx, &nvalid))
		;						/* known where the sets were kept */
	else if (j->key >= 0)
	{
		gpo_chunk  *chs = malloc(sizeof(gpo_chunk) * (size_t) j->nsets);
		gpo_vector	keys = {j->kt, j->nsets, chs};
		int64_t    *starts;

		if (chs == NULL)
			return false;
		for (int i = 0; i < j->nsets; i++)
			chs[i] = gpo_resident_chunk(&j->sets[i]->cols[j->key], 0, j->sets[i]->rows);
		if ((starts = gpo_starts_of(&keys)) != NULL)
			gpo_key_stats(&keys, starts, gpo_threads(ctx), &mn, &mx, &nvalid);
		free(starts);
		free(chs);
		if (starts == NULL)
			return false;
	}
	else
	{
		mn = mx = gpo_code_of_raw(j->kt, 0, 1);
		for (int i = 0; i < j->nsets; i++)
			nvalid += j->sets[i]->rows;
	}
	if (s == GPO_AGG_AUTO)
		s = gpo_agg_choose(j->kt, nvalid, mn, mx, j->q->est_groups);
	j->min_code = nvalid > 0 ? mn : 0;
	j->range = nvalid > 0 ? mx - mn + 1 : 0;
	if (s != GPO_AGG_DENSE || (nvalid > 0 && mx - mn >= (uint64_t) MAX_SLOTS) ||
		(int64_t) ((j->range + 1) * j->nr) * j->nparts > MAX_SLOTS)
		return false;
	*strategy = s;
	return true;
}

/* Merges every part's slots into part 0's, slot-parallel, in part order. */
static void
dense_merge(gpo_ctx *ctx, dense_job *j)
{
	int64_t		nslots = (int64_t) j->nr * (int64_t) (j->range + 1);

#pragma omp parallel for num_threads(gpo_team(ctx, gpo_pieces(ctx, nslots))) schedule(static)
	for (int64_t i = 0; i < nslots; i++)
		for (int p = 1; p < j->nparts; p++)
			gpo_acc_merge(&j->tabs[0][i], &j->tabs[p][i]);
}

/* Stores part 0's slots of every request into outs (see gpo_resident_dense_cpu). */
static gpo_status
dense_store(gpo_ctx *ctx, dense_job *j, gpo_agg_out *outs, int64_t *ngroups)
{
	for (int r = 0; r < j->nr; r++)
	{
		gpo_acc    *t = j->tabs[0] + (size_t) r * (j->range + 1);
		gpo_agg_out o = outs[r];
		gpo_status	st;

		if (!j->m2[r])
			o.m2 = NULL;
		st = gpo_dense_store_cpu(j->kt, j->vcol[r] >= 0 ? (int) dense_vtype(j, r) : -1,
								 t, j->min_code, j->range, &t[j->range], &o,
								 ngroups);
		if (st == GPO_ERR_CAPACITY)
			gpo_set_detail(ctx, "output holds %lld groups, %lld found",
						   (long long) outs[0].capacity, (long long) *ngroups);
		if (st != GPO_OK)
			return st;
	}
	return GPO_OK;
}

/*
 * The filled job's parts, run, merged and stored; *strategy becomes chosen,
 * or, where no row passes, what gpo_resident_no_rows says.
 */
static gpo_status
dense_run(gpo_ctx *ctx, dense_job *j, gpo_agg_strategy chosen,
		  gpo_agg_strategy *strategy, gpo_agg_out *outs, int64_t *ngroups)
{
	gpo_status	st = GPO_OK;
	int64_t		passed = 0;

	gpo_omp_prepare(j->nparts);
#pragma omp parallel for num_threads(j->nparts) schedule(static, 1)
	for (int p = 0; p < j->nparts; p++)
	{
		gpo_ctx		mine = *ctx;
		gpo_status	my_st;

		mine.threads = 1;
		my_st = dense_part(&mine, j, p);
		if (my_st != GPO_OK)
#pragma omp critical(gpo_resident_dense)
		{
			if (st == GPO_OK)
			{
				st = my_st;
				memcpy(ctx->detail, mine.detail, sizeof(ctx->detail));
			}
		}
	}
	if (st != GPO_OK)
		return st;
	/* a computed column's error: the first part's that has one */
	for (int p = 0, s = 0; p < j->nparts && j->q->nexprs > 0; p++)
	{
		int64_t		before = 0;

		for (; s < (int) gpo_block_lo(j->nsets, p, j->nparts); s++)
			before += j->sets[s]->rows;
		if (j->xerr[p].code != GPO_XERR_NONE)
		{
			*j->q->xerr = j->xerr[p];
			j->q->xerr->row += before;
			return GPO_OK;
		}
	}
	for (int p = 0; p < j->nparts; p++)
	{
		passed += j->passed[p];
		if (j->dropped[p] > 0)
		{
			gpo_set_detail(ctx, "%lld kept keys lie outside their sets' bounds",
						   (long long) j->dropped[p]);
			return GPO_ERR_INVALID;
		}
	}
	if (passed == 0)
	{
		gpo_resident_no_rows(j->kt, strategy, ngroups);
		return GPO_OK;
	}
	*strategy = chosen;
	dense_merge(ctx, j);
	return dense_store(ctx, j, outs, ngroups);
}

/* The one-pass dense aggregation (see gpo_resident_internal.h). */
gpo_status
gpo_resident_dense_cpu(gpo_ctx *ctx, int nsets, gpo_resident *const *sets,
					   const gpo_resident_query *q, gpo_agg_strategy *strategy,
					   gpo_agg_out *outs, int64_t *ngroups, bool *taken)
{
	dense_job	j;
	gpo_agg_strategy s = *strategy;
	gpo_status	st;

	memset(&j, 0, sizeof(j));
	*taken = false;
	if (q->key_col >= GPO_RESIDENT_MAX_COLS && q->key_span <= 0)
		return GPO_OK;			/* a computed key of unknown range: resident_cpu.c */
	if (q->ndims > 0)
		return GPO_OK;			/* a star join: resident_cpu.c */
	j.nsets = nsets;
	j.sets = sets;
	j.q = q;
	j.key = q->key_col;
	j.kt = gpo_resident_key_type(sets[0], q);
	j.nr = q->nreqs > 0 ? q->nreqs : 1;
	for (int r = 0; r < j.nr; r++)
	{
		j.vcol[r] = q->nreqs > 0 ? q->val_cols[r] : -1;
		j.m2[r] = q->nreqs > 0 && j.vcol[r] >= 0 && outs[r].m2 != NULL &&
			(q->aggs[r] & GPO_AGG_WANT_M2);
	}
	j.nparts = gpo_threads(ctx) < nsets ? gpo_threads(ctx) : nsets;
	if (!dense_range(ctx, &j, &s))
		return GPO_OK;
	*taken = true;
	j.tabs = calloc((size_t) j.nparts, sizeof(gpo_acc *));
	j.passed = calloc((size_t) j.nparts, sizeof(int64_t));
	j.dropped = calloc((size_t) j.nparts, sizeof(int64_t));
	j.zeros = j.key < 0 ? calloc(TILE_ROWS, sizeof(int32_t)) : NULL;
	j.xerr = calloc((size_t) j.nparts, sizeof(gpo_expr_error));
	if (j.tabs == NULL || j.passed == NULL || j.dropped == NULL ||
		(j.key < 0 && j.zeros == NULL) || j.xerr == NULL)
	{
		gpo_set_detail(ctx, "could not allocate the parts of %d kept sets", nsets);
		st = GPO_ERR_NOMEM;
	}
	else
	{
		st = dense_run(ctx, &j, s, strategy, outs, ngroups);
	}
	for (int p = 0; j.tabs != NULL && p < j.nparts; p++)
		free(j.tabs[p]);
	free(j.tabs);
	free(j.passed);
	free(j.dropped);
	free((void *) j.zeros);
	free(j.xerr);
	return st;
}
