/*
 * groupagg_fused.c
 *	  The CPU face's dense accumulation of several value columns grouped by
 *	  one key column in one pass (gpo_dense_accumulate_many_cpu).
 *
 * gpo_dense_accumulate_cpu reads the keys again for every value column: a
 * query with eight aggregates decodes every key eight times and walks the
 * batch eight times.  Here each thread takes its block of rows a tile at a
 * time: the tile's key codes become group numbers of the thread's own
 * once, and then every value column's tile is added into the thread's
 * accumulators by a loop whose types are constants.  A thread numbers the
 * groups it meets, so its accumulators are as many as its groups, not as
 * the key range: packed keys span sparse ranges (TPC-H Q1's four groups
 * of two char(1) keys span 17,409 codes), whose private slots took longer
 * to set up and fold than the rows to add.  The threads' blocks and their
 * order are those of gpo_dense_accumulate_cpu's private slots, so every
 * sum, float sums included, is the same to the bit.
 */
#include <stdlib.h>
#include <string.h>

#include "groupagg_internal.h"

/* Rows of a tile: its group numbers stay in L1. */
#define FUSED_TILE	2048

/*
 * One thread's groups: its own number for each slot it met (local, range
 * + 2 entries), their slots, and their accumulators, group-major (nvals a
 * group), grown as groups appear.
 */
typedef struct fused_part
{
	uint32_t   *local;			/* [range + 2]: group number, or UINT32_MAX */
	uint32_t   *slot_of;		/* [cap] */
	gpo_acc    *acc;			/* [cap * nvals] */
	int64_t		ngroups;
	int64_t		cap;
	bool		failed;			/* out of memory, or past FUSED_MAX_ACCS */
} fused_part;

/* Most accumulators a thread may hold (nvals a group): 20 MB of them. */
#define FUSED_MAX_ACCS	(INT64_C(1) << 18)

/* A new group for slot s in part fp; false when it can't have one. */
static bool
fused_new_group(fused_part *fp, int nvals, uint32_t s)
{
	if (fp->ngroups == fp->cap)
	{
		int64_t		cap = fp->cap * 2;
		uint32_t   *so;
		gpo_acc    *acc;

		if (cap * nvals > FUSED_MAX_ACCS ||
			(so = realloc(fp->slot_of, sizeof(uint32_t) * cap)) == NULL)
			return false;
		fp->slot_of = so;
		if ((acc = realloc(fp->acc, sizeof(gpo_acc) * cap * nvals)) == NULL)
			return false;
		fp->acc = acc;
		fp->cap = cap;
	}
	for (int v = 0; v < nvals; v++)
		gpo_acc_init(&fp->acc[fp->ngroups * nvals + v]);
	fp->slot_of[fp->ngroups] = s;
	fp->local[s] = (uint32_t) fp->ngroups;
	fp->ngroups++;
	return true;
}

/*
 * The part's group numbers of rows off .. off + n - 1 of key chunk kc into
 * groups: the group of the key's slot (the code's offset from min_code,
 * range for a NULL key, range + 1 for a key outside the range: a sink),
 * numbered as the part first meets it.  False when the part can't have
 * one more group.  Inlined with a constant kt.
 */
static inline __attribute__((always_inline)) bool
fused_groups(const gpo_chunk *kc, gpo_type kt, int64_t off, int64_t n,
			 uint64_t min_code, uint64_t range, fused_part *fp, int nvals,
			 uint32_t *groups)
{
	const uint8_t *kvalid = kc->validity;
	const void *kdata = kc->data;

	for (int64_t i = 0; i < n; i++)
	{
		int64_t		r = off + i;
		bool		kv = kvalid == NULL || ((kvalid[r >> 3] >> (r & 7)) & 1);
		uint64_t	c = gpo_code_of_raw(kt, gpo_raw_at(kt, kdata, r), 1) - min_code;
		uint32_t	s = (uint32_t) (!kv ? range : (c < range ? c : range + 1));

		if (fp->local[s] == UINT32_MAX && !fused_new_group(fp, nvals, s))
			return false;
		groups[i] = fp->local[s];
	}
	return true;
}

/* fused_groups with the common key types as constants. */
static bool
fused_groups_typed(const gpo_chunk *kc, gpo_type kt, int64_t off, int64_t n,
				   uint64_t min_code, uint64_t range, fused_part *fp,
				   int nvals, uint32_t *groups)
{
	if (kt == GPO_INT32)
		return fused_groups(kc, GPO_INT32, off, n, min_code, range, fp, nvals, groups);
	if (kt == GPO_INT64)
		return fused_groups(kc, GPO_INT64, off, n, min_code, range, fp, nvals, groups);
	return fused_groups(kc, kt, off, n, min_code, range, fp, nvals, groups);
}

/*
 * Adds rows off .. off + n - 1 of value chunk vc (NULL: rows only) into
 * the accumulators t[groups[i] * stride] of the rows' groups.  Inlined
 * with a constant vt and m2.
 */
static inline __attribute__((always_inline)) void
fused_add(const gpo_chunk *vc, gpo_type vt, int64_t off, int64_t n,
		  const uint32_t *groups, gpo_acc *t, int stride, bool m2)
{
	const uint8_t *vvalid = vc != NULL ? vc->validity : NULL;
	const void *vdata = vc != NULL ? vc->data : NULL;

	if (vc == NULL)
	{
		for (int64_t i = 0; i < n; i++)
			t[(int64_t) groups[i] * stride].rows++;
		return;
	}
	for (int64_t i = 0; i < n; i++)
	{
		int64_t		r = off + i;
		bool		vv = vvalid == NULL || ((vvalid[r >> 3] >> (r & 7)) & 1);
		uint64_t	vr = vv ? gpo_raw_at(vt, vdata, r) : 0;

		gpo_acc_add(&t[(int64_t) groups[i] * stride], vt, true, vv, vr, m2);
	}
}

/* fused_add with the common value types as constants. */
static void
fused_add_typed(const gpo_chunk *vc, gpo_type vt, int64_t off, int64_t n,
				const uint32_t *groups, gpo_acc *t, int stride, bool m2)
{
	if (vc == NULL)
		fused_add(NULL, GPO_INT64, off, n, groups, t, stride, false);
	else if (vt == GPO_INT64)
		fused_add(vc, GPO_INT64, off, n, groups, t, stride, false);
	else if (vt == GPO_INT32)
		fused_add(vc, GPO_INT32, off, n, groups, t, stride, false);
	else if (vt == GPO_FLOAT64 && m2)
		fused_add(vc, GPO_FLOAT64, off, n, groups, t, stride, true);
	else if (vt == GPO_FLOAT64)
		fused_add(vc, GPO_FLOAT64, off, n, groups, t, stride, false);
	else
		fused_add(vc, vt, off, n, groups, t, stride, m2);
}

/*
 * One thread's rows lo .. hi - 1: tile by tile, cut where any column's
 * chunk ends, into its groups.
 */
static void
fused_block(const gpo_vector *keys, const int64_t *kstarts, int nvals,
			const gpo_vector *const *values, int64_t *const *vstarts,
			const bool *m2, int64_t lo, int64_t hi, uint64_t min_code,
			uint64_t range, fused_part *fp, uint32_t *groups, gpo_cursor *vcur)
{
	gpo_cursor	kcur;

	gpo_cursor_seek(&kcur, keys, kstarts, lo);
	for (int v = 0; v < nvals; v++)
		if (values[v] != NULL)
			gpo_cursor_seek(&vcur[v], values[v], vstarts[v], lo);
	for (int64_t r = lo; r < hi;)
	{
		int64_t		take = hi - r < FUSED_TILE ? hi - r : FUSED_TILE;
		int64_t		avail = gpo_cursor_avail(&kcur);

		take = avail < take ? avail : take;
		for (int v = 0; v < nvals; v++)
			if (values[v] != NULL)
			{
				avail = gpo_cursor_avail(&vcur[v]);
				take = avail < take ? avail : take;
			}
		if (!fused_groups_typed(gpo_cursor_chunk(&kcur), keys->type, kcur.off,
								take, min_code, range, fp, nvals, groups))
		{
			fp->failed = true;
			return;
		}
		kcur.off += take;
		for (int v = 0; v < nvals; v++)
		{
			const gpo_chunk *vc = NULL;
			int64_t		voff = 0;

			if (values[v] != NULL)
			{
				vc = gpo_cursor_chunk(&vcur[v]);
				voff = vcur[v].off;
				vcur[v].off += take;
			}
			fused_add_typed(vc, values[v] != NULL ? values[v]->type : GPO_INT64,
							voff, take, groups, fp->acc + v, nvals, m2[v]);
		}
		r += take;
	}
}

/* Sets up part fp for range slots; false on no memory. */
static bool
fused_part_init(fused_part *fp, int nvals, uint64_t range)
{
	memset(fp, 0, sizeof(*fp));
	fp->cap = 16;
	fp->local = malloc(sizeof(uint32_t) * (range + 2));
	fp->slot_of = malloc(sizeof(uint32_t) * fp->cap);
	fp->acc = malloc(sizeof(gpo_acc) * fp->cap * nvals);
	if (fp->local == NULL || fp->slot_of == NULL || fp->acc == NULL)
		return false;
	memset(fp->local, 0xff, sizeof(uint32_t) * (range + 2));
	return true;
}

/*
 * Folds part fp's groups into tabs (the sink's dropped), a thread a group
 * where they are many: a part's groups have slots of their own.  Slot s
 * goes to entry place[s] of each tabs[v] (place NULL: entry s).
 */
static void
fused_part_merge(const fused_part *fp, int nvals, uint64_t range, int nt,
				 const uint32_t *place, gpo_acc *const *tabs)
{
#pragma omp parallel for num_threads(nt) schedule(static) if (fp->ngroups > 4096)
	for (int64_t g = 0; g < fp->ngroups; g++)
	{
		uint32_t	s = fp->slot_of[g];
		int64_t		e;

		if (s > range)
			continue;
		e = place != NULL ? place[s] : s;
		for (int v = 0; v < nvals; v++)
			gpo_acc_merge(&tabs[v][e], &fp->acc[g * nvals + v]);
	}
}

/* Frees the parts fused_parts_fill made. */
static void
fused_parts_free(fused_part *parts, int nparts)
{
	for (int p = 0; parts != NULL && p < nparts; p++)
	{
		free(parts[p].local);
		free(parts[p].slot_of);
		free(parts[p].acc);
	}
	free(parts);
}

/*
 * Every thread's block of rows into its own groups (gpo_agg_nblocks(n, nt)
 * parts, into *parts; fused_parts_free frees them on every path).
 * GPO_ERR_CAPACITY when a thread met too many groups.
 */
static gpo_status
fused_parts_fill(const gpo_vector *keys, const int64_t *kstarts, int nvals,
				 const gpo_vector *const *values, int nt, uint64_t min_code,
				 uint64_t range, const bool *m2, fused_part **parts, int *nparts)
{
	int64_t		n = gpo_vector_rows(keys);
	int			np = gpo_agg_nblocks(n, nt);
	fused_part *fp = calloc(np, sizeof(fused_part));
	int64_t   **vstarts = calloc(nvals, sizeof(int64_t *));
	uint32_t   *groups = malloc(sizeof(uint32_t) * FUSED_TILE * np);
	gpo_cursor *vcur = malloc(sizeof(gpo_cursor) * nvals * np);
	gpo_status	st = GPO_OK;

	*parts = fp;
	*nparts = fp != NULL ? np : 0;
	if (fp == NULL || vstarts == NULL || groups == NULL || vcur == NULL)
		st = GPO_ERR_NOMEM;
	for (int v = 0; st == GPO_OK && v < nvals; v++)
		if (values[v] != NULL && (vstarts[v] = gpo_starts_of(values[v])) == NULL)
			st = GPO_ERR_NOMEM;
	for (int p = 0; st == GPO_OK && p < np; p++)
		if (!fused_part_init(&fp[p], nvals, range))
			st = GPO_ERR_NOMEM;
	if (st == GPO_OK)
	{
#pragma omp parallel for num_threads(np) schedule(static, 1)
		for (int p = 0; p < np; p++)
			fused_block(keys, kstarts, nvals, values, vstarts, m2,
						gpo_block_lo(n, p, np), gpo_block_lo(n, p + 1, np),
						min_code, range, &fp[p],
						groups + (size_t) FUSED_TILE * p, vcur + (size_t) nvals * p);
		for (int p = 0; p < np; p++)
			if (fp[p].failed)
				st = GPO_ERR_CAPACITY;
	}
	for (int v = 0; vstarts != NULL && v < nvals; v++)
		free(vstarts[v]);
	free(vstarts);
	free(groups);
	free(vcur);
	return st;
}

/* Several value columns' dense accumulation in one pass (see groupagg_internal.h). */
gpo_status
gpo_dense_accumulate_many_cpu(const gpo_vector *keys, const int64_t *kstarts,
							  int nvals, const gpo_vector *const *values,
							  int nt, uint64_t min_code, uint64_t range,
							  const bool *m2, gpo_acc *const *tabs)
{
	fused_part *parts;
	int			nparts;
	gpo_status	st = fused_parts_fill(keys, kstarts, nvals, values, nt, min_code,
									  range, m2, &parts, &nparts);

	/* in part order: each slot's partial sums fold as the threads' blocks lie */
	for (int p = 0; st == GPO_OK && p < nparts; p++)
		fused_part_merge(&parts[p], nvals, range, nt, NULL, tabs);
	fused_parts_free(parts, nparts);
	return st;
}

/* Whether gpo_dense_accumulate_many_cpu may take n rows over range codes. */
bool
gpo_dense_many_fits(int64_t n, int nt, uint64_t range)
{
	/* each thread's group numbers: 4 bytes a slot */
	return (double) (range + 2) * gpo_agg_nblocks(n, nt) <= (double) (INT64_C(1) << 24);
}

/*
 * The slots the parts met, in code order (the NULL key's, slot range,
 * last) into slots (malloc'd), and each one's place among them into
 * place[slot]; their count into *ng.  False on no memory.
 */
static bool
fused_parts_slots(const fused_part *parts, int nparts, uint64_t range,
				  uint32_t *place, uint64_t **slots, int64_t *ng)
{
	int64_t		met = 1;		/* the parts' groups, at least the slots */
	int64_t		k = 0;

	memset(place, 0xff, sizeof(uint32_t) * (range + 1));
	for (int p = 0; p < nparts; p++)
	{
		met += parts[p].ngroups;
		for (int64_t g = 0; g < parts[p].ngroups; g++)
			if (parts[p].slot_of[g] <= range)
				place[parts[p].slot_of[g]] = 0;
	}
	if ((*slots = malloc(sizeof(uint64_t) * met)) == NULL)
		return false;
	for (uint64_t s = 0; s <= range; s++)
		if (place[s] == 0)
		{
			(*slots)[k] = s;
			place[s] = (uint32_t) k++;
		}
	*ng = k;
	return true;
}

/*
 * The parts' groups into outs[v] (nvals requests, value column values[v]
 * or rows only): each slot's partial accumulators folded in part order, as
 * gpo_dense_accumulate_cpu's private slots fold them, then stored in code
 * order with the NULL key last, as gpo_dense_store_cpu stores them.
 */
static gpo_status
fused_parts_store(const fused_part *parts, int nparts, int nvals,
				  const gpo_vector *const *values, gpo_type kt,
				  uint64_t min_code, uint64_t range, int nt, gpo_agg_out *outs,
				  int64_t *ngroups)
{
	uint32_t   *place = malloc(sizeof(uint32_t) * (range + 1));
	uint64_t   *slots = NULL;
	gpo_acc    *acc = NULL;
	gpo_acc    *tabs[GPO_AGG_MAX_REQS];
	int64_t		ng = 0;
	gpo_status	st = GPO_ERR_NOMEM;

	if (place == NULL || !fused_parts_slots(parts, nparts, range, place, &slots, &ng))
		goto done;
	*ngroups = ng;
	st = GPO_ERR_CAPACITY;
	for (int v = 0; v < nvals; v++)
		if (ng > outs[v].capacity)
			goto done;
	st = GPO_ERR_NOMEM;
	if ((acc = gpo_acc_lines((uint64_t) ng * nvals)) == NULL)
		goto done;
#pragma omp parallel for num_threads(nt) schedule(static) if (ng > 4096)
	for (int64_t j = 0; j < ng * nvals; j++)
		gpo_acc_init(&acc[j]);
	for (int v = 0; v < nvals; v++)
		tabs[v] = acc + ng * v;
	for (int p = 0; p < nparts; p++)
		fused_part_merge(&parts[p], nvals, range, nt, place, tabs);
#pragma omp parallel for num_threads(nt) schedule(static) if (ng > 4096)
	for (int64_t j = 0; j < ng; j++)
		for (int v = 0; v < nvals; v++)
		{
			gpo_key_store(&outs[v], j, kt, slots[j] < range, min_code + slots[j]);
			gpo_acc_store(&outs[v], j, &tabs[v][j],
						  values[v] != NULL ? values[v]->type : GPO_INT64,
						  values[v] != NULL);
		}
	st = GPO_OK;
done:
	free(place);
	free(slots);
	free(acc);
	return st;
}

/* The dense strategy of several requests in one pass (see groupagg_internal.h). */
gpo_status
gpo_dense_groups_many_cpu(const gpo_vector *keys, const int64_t *kstarts,
						  int nr, const gpo_agg_req *rq, int nt,
						  uint64_t min_code, uint64_t range, gpo_agg_out *outs,
						  int64_t *ngroups, bool *taken)
{
	const gpo_vector *values[GPO_AGG_MAX_REQS];
	bool		m2[GPO_AGG_MAX_REQS];
	fused_part *parts;
	int			nparts;
	gpo_status	st;

	*taken = false;
	if (!gpo_dense_many_fits(gpo_vector_rows(keys), nt, range))
		return GPO_OK;
	for (int r = 0; r < nr; r++)
	{
		values[r] = rq[r].values;
		m2[r] = outs[r].m2 != NULL;
	}
	st = fused_parts_fill(keys, kstarts, nr, values, nt, min_code, range, m2,
						  &parts, &nparts);
	if (st == GPO_OK)
	{
		*taken = true;
		st = fused_parts_store(parts, nparts, nr, values, keys->type,
							   min_code, range, nt, outs, ngroups);
	}
	else if (st == GPO_ERR_CAPACITY)
		st = GPO_OK;			/* a thread's groups did not fit: not taken */
	fused_parts_free(parts, nparts);
	return st;
}
