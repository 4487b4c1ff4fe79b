/*
 * groupagg_internal.h
 *	  Pieces shared by the CPU face's group aggregation strategies.
 *
 * Plain C11; never includes postgres.h or CUDA headers.
 */
#ifndef GROUPAGG_INTERNAL_H
#define GROUPAGG_INTERNAL_H

#include "gpo_agg_internal.h"

/* Walks the rows of a key vector and a value vector (may differ in chunks). */
typedef struct gpo_kv_iter
{
	gpo_cursor	k;
	gpo_cursor	v;
	gpo_type	kt;
	gpo_type	vt;
	bool		has_values;
} gpo_kv_iter;

/* Positions it at logical row of both vectors (values may be NULL). */
extern void gpo_kv_seek(gpo_kv_iter *it, const gpo_vector *keys,
						const int64_t *kstarts, const gpo_vector *values,
						const int64_t *vstarts, int64_t row);

/*
 * Reads the current row and steps on: *kvalid and *kcode (key code), and
 * the value's validity and raw bits.
 */
static inline void
gpo_kv_next(gpo_kv_iter *it, bool *kvalid, uint64_t *kcode, bool *vvalid,
			uint64_t *vraw)
{
	const gpo_chunk *ch;

	gpo_cursor_avail(&it->k);
	ch = gpo_cursor_chunk(&it->k);
	*kvalid = gpo_valid(ch, it->k.off);
	*kcode = *kvalid ?
		gpo_code_of_raw(it->kt, gpo_raw_at(it->kt, ch->data, it->k.off), 1) : 0;
	it->k.off++;
	*vvalid = false;
	*vraw = 0;
	if (it->has_values)
	{
		gpo_cursor_avail(&it->v);
		ch = gpo_cursor_chunk(&it->v);
		*vvalid = gpo_valid(ch, it->v.off);
		if (*vvalid)
			*vraw = gpo_raw_at(it->vt, ch->data, it->v.off);
		it->v.off++;
	}
}

/* Chunk starts of v (malloc'd; a single 0 for NULL), NULL on no memory. */
extern int64_t *gpo_starts_of(const gpo_vector *v);
/* Blocks for n rows under nt threads. */
extern int	gpo_agg_nblocks(int64_t n, int nt);

/* Private per-thread dense slots up to this many in all. */
#define DENSE_PRIVATE_SLOTS		(INT64_C(1) << 20)

/*
 * The threads' private slots and NULL-key accumulators start on cache lines
 * of their own: packed end to end, a few groups' slots of two threads
 * shared a line.  On 2 cores, 6M rows into 4 groups with 6 int8 requests
 * took 122 ms packed, 97 ms apart (1 request: 24 -> 20 ms).
 */
#define ACCS_A_LINE_GROUP	4	/* 4 accumulators = 320 bytes = 5 lines */
#define TYPEALIGN_ACCS(n)	(((n) + ACCS_A_LINE_GROUP - 1) / ACCS_A_LINE_GROUP * ACCS_A_LINE_GROUP)
#define NULLACC_STRIDE		ACCS_A_LINE_GROUP
_Static_assert(sizeof(gpo_acc) * ACCS_A_LINE_GROUP % 64 == 0,
			   "ACCS_A_LINE_GROUP accumulators fill whole cache lines");

/* n accumulators (not set up) from a cache line boundary; NULL on no memory. */
extern gpo_acc *gpo_acc_lines(uint64_t n);

/* Dense strategy: slots for codes [min_code, min_code + range). */
extern gpo_status gpo_groupagg_dense_cpu(const gpo_vector *keys,
										 const int64_t *kstarts,
										 const gpo_vector *values, int nt,
										 uint64_t min_code, uint64_t range,
										 gpo_agg_out *out, int64_t *ngroups);
/*
 * Adds the rows of keys (codes within [min_code, min_code + range)) with
 * values (NULL: rows only) into the range slots of tab and the NULL key's
 * accumulator nullacc, which hold earlier rows or are empty; m2: keep the
 * float values' m2.
 */
extern gpo_status gpo_dense_accumulate_cpu(const gpo_vector *keys,
										   const int64_t *kstarts,
										   const gpo_vector *values, int nt,
										   uint64_t min_code, uint64_t range,
										   bool m2, gpo_acc *tab,
										   gpo_acc *nullacc);
/*
 * gpo_dense_accumulate_cpu of nvals value columns (values[v] NULL: rows
 * only) over the same keys in one pass (groupagg_fused.c): column v's rows
 * go into tabs[v], range slots then the NULL key's, which hold earlier
 * rows or are empty; m2[v]: keep column v's float m2.  Every slot ends as
 * gpo_dense_accumulate_cpu's private slots would leave it.  Only where
 * gpo_dense_many_fits says so; GPO_ERR_CAPACITY (tabs untouched) when a
 * thread meets too many groups for its accumulators.
 */
extern gpo_status gpo_dense_accumulate_many_cpu(const gpo_vector *keys,
												const int64_t *kstarts,
												int nvals,
												const gpo_vector *const *values,
												int nt, uint64_t min_code,
												uint64_t range, const bool *m2,
												gpo_acc *const *tabs);
/*
 * The dense strategy (gpo_groupagg_dense_cpu) of nr requests over the same
 * keys in one pass (groupagg_fused.c): each thread numbers the groups it
 * meets, so the memory is as many accumulators as groups, plus 4 bytes a
 * code a thread, where a pass a request kept 80 bytes a code a thread and
 * one more; outs[r] gets what gpo_groupagg_dense_cpu would store for
 * rq[r]'s values (outs[r].m2 set: keep the float m2).  *taken false (outs
 * untouched) where the threads' group numbers or groups would not fit; the
 * caller then takes the pass a request.
 */
extern gpo_status gpo_dense_groups_many_cpu(const gpo_vector *keys,
											const int64_t *kstarts, int nr,
											const gpo_agg_req *rq, int nt,
											uint64_t min_code, uint64_t range,
											gpo_agg_out *outs, int64_t *ngroups,
											bool *taken);
/* Whether gpo_dense_accumulate_many_cpu may take n rows over range codes. */
extern bool gpo_dense_many_fits(int64_t n, int nt, uint64_t range);
/*
 * Adds rows sel[0 .. n) (sel NULL: rows 0 .. n) of one-chunk key column kc
 * (type kt) and value column vc (type vt; NULL: rows only) into private
 * dense slots t (codes [min_code, min_code + range)) and the NULL key's
 * accumulator na; returns the rows dropped for a key outside the range.
 */
extern int64_t gpo_dense_rows_sel_cpu(const gpo_chunk *kc, gpo_type kt,
									  const gpo_chunk *vc, gpo_type vt,
									  int64_t n, const int32_t *sel,
									  uint64_t min_code, uint64_t range,
									  bool m2, gpo_acc *t, gpo_acc *na);
/*
 * range + 1 empty dense slots (malloc'd; NULL on no memory): one per key
 * code, then the NULL key's.
 */
extern gpo_acc *gpo_dense_slots_new(uint64_t range, int nt);
/*
 * The groups of dense slots into out: nonempty slots in code order, then the
 * NULL key when it has rows (kt key type, vtype value type or -1: none).
 */
extern gpo_status gpo_dense_store_cpu(gpo_type kt, int vtype,
									  const gpo_acc *tab, uint64_t min_code,
									  uint64_t range, const gpo_acc *nullacc,
									  gpo_agg_out *out, int64_t *ngroups);
/* Key statistics: smallest and largest key code, non-NULL keys. */
extern void gpo_key_stats(const gpo_vector *keys, const int64_t *kstarts,
						  int nt, uint64_t *min_code, uint64_t *max_code,
						  int64_t *nvalid);
/*
 * Hash strategy: per-thread tables merged in key order, every request's
 * accumulators in the key's slot (nreq requests into outs).
 */
extern gpo_status gpo_groupagg_hash_cpu(const gpo_vector *keys,
										const int64_t *kstarts, int nreq,
										const gpo_agg_req *reqs, int nt,
										gpo_agg_out *outs, int64_t *ngroups);

#endif							/* GROUPAGG_INTERNAL_H */
