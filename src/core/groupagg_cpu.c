/*
 * groupagg_cpu.c
 *	  The CPU face's dense and hash group aggregation strategies.
 *
 * dense: one accumulator slot per key code in [min, min + range).  Small
 * ranges get a private slot array per thread (merged slot-parallel after);
 * larger ones split the key range between the threads, each reading every
 * row and keeping only its own keys (no merge, no sharing).
 * hash: each thread aggregates its rows into its own open-addressing table
 * (linear probing, grown at half load); the tables' entries are then radix
 * sorted by key code, which both orders the groups and brings each key's
 * partial states together (stable, so they merge in row-block order).
 */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "groupagg_internal.h"

/* n accumulators (not set up) from a cache line boundary (see groupagg_internal.h). */
gpo_acc *
gpo_acc_lines(uint64_t n)
{
	void	   *p = NULL;

	if (posix_memalign(&p, 64, sizeof(gpo_acc) * (n > 0 ? n : 1)) != 0)
		return NULL;
	return (gpo_acc *) p;
}

/* Dense groups of a slot array (see groupagg_internal.h). */
gpo_status
gpo_dense_store_cpu(gpo_type kt, int vtype, const gpo_acc *tab,
					uint64_t min_code, uint64_t range, const gpo_acc *nullacc,
					gpo_agg_out *out, int64_t *ngroups)
{
	int64_t		ng = 0;
	gpo_type	vt = vtype >= 0 ? (gpo_type) vtype : GPO_INT64;
	bool		has_values = vtype >= 0;

	for (uint64_t s = 0; s < range; s++)
		ng += tab[s].rows > 0;
	*ngroups = ng + (nullacc->rows > 0);
	if (*ngroups > out->capacity)
		return GPO_ERR_CAPACITY;
	ng = 0;
	for (uint64_t s = 0; s < range; s++)
	{
		if (tab[s].rows == 0)
			continue;
		gpo_key_store(out, ng, kt, true, min_code + s);
		gpo_acc_store(out, ng, &tab[s], vt, has_values);
		ng++;
	}
	if (nullacc->rows > 0)
	{
		gpo_key_store(out, ng, kt, false, 0);
		gpo_acc_store(out, ng, nullacc, vt, has_values);
	}
	return GPO_OK;
}

/*
 * Rows lo .. hi - 1 (or sel[lo .. hi) where sel is given) of a one-chunk
 * key column kc (and value column vc, when has_values) into the dense slots
 * t (codes klo .. khi - 1 after min_code) and the NULL key's accumulator
 * na; with private slots (klo 0, take_null), *dropped (where given) gains
 * the rows whose key lay past khi.  Always inlined with constant types by
 * dense_rows_dispatch, so the type tests fold away.
 */
static inline __attribute__((always_inline)) void
dense_rows(const gpo_chunk *kc, const gpo_chunk *vc, gpo_type kt, gpo_type vt,
		   bool has_values, int64_t lo, int64_t hi, uint64_t min_code,
		   uint64_t klo, uint64_t khi, gpo_acc *t, gpo_acc *na,
		   bool take_null, bool m2, const int32_t *sel, int64_t *dropped)
{
	if (klo == 0 && take_null)
	{
		/*
		 * Every key of the batch is this part's (private slots): the row's
		 * accumulator is chosen without a branch, since a batch filtered
		 * into NULL keys has them at random and a branch on the key's bit
		 * mispredicts half the time.  A key past khi (none where the range
		 * came from the batch) goes to a sink.
		 */
		gpo_acc		sink;

		/* (the chunks' fields in locals: the stores to the slots might alias them) */
		const uint8_t *kvalid = kc->validity;
		const void *kdata = kc->data;
		const uint8_t *vvalid = has_values ? vc->validity : NULL;
		const void *vdata = has_values ? vc->data : NULL;

		gpo_acc_init(&sink);
		for (int64_t i = lo; i < hi; i++)
		{
			int64_t		r = sel != NULL ? sel[i] : i;
			bool		vv = false;
			uint64_t	vr = 0;
			bool		kv = kvalid == NULL || ((kvalid[r >> 3] >> (r & 7)) & 1);
			uint64_t	c = gpo_code_of_raw(kt, gpo_raw_at(kt, kdata, r), 1) - min_code;
			bool		in = kv && c < khi;
			gpo_acc    *dst = in ? t + (in ? c : 0) : (kv ? &sink : na);

			if (has_values)
			{
				vv = vvalid == NULL || ((vvalid[r >> 3] >> (r & 7)) & 1);
				vr = vv ? gpo_raw_at(vt, vdata, r) : 0;
			}
			gpo_acc_add(dst, vt, has_values, vv, vr, m2);
		}
		if (dropped != NULL)
			*dropped += sink.rows;
		return;
	}
	for (int64_t r = lo; r < hi; r++)
	{
		bool		vv = false;
		uint64_t	vr = 0;
		uint64_t	c;

		if (has_values)
		{
			vv = gpo_valid(vc, r);
			vr = vv ? gpo_raw_at(vt, vc->data, r) : 0;
		}
		if (!gpo_valid(kc, r))
		{
			if (take_null)
				gpo_acc_add(na, vt, has_values, vv, vr, m2);
			continue;
		}
		c = gpo_code_of_raw(kt, gpo_raw_at(kt, kc->data, r), 1) - min_code;
		if (c >= klo && c < khi)
			gpo_acc_add(&t[c], vt, has_values, vv, vr, m2);
	}
}

/*
 * dense_rows with the common key and value types as constants; sel (NULL:
 * every row) as given, so that a constant NULL folds away too.
 */
static inline __attribute__((always_inline)) void
dense_rows_dispatch(const gpo_chunk *kc, const gpo_chunk *vc, gpo_type kt,
					gpo_type vt, bool has_values, int64_t lo, int64_t hi,
					uint64_t min_code, uint64_t klo, uint64_t khi, gpo_acc *t,
					gpo_acc *na, bool take_null, bool m2, const int32_t *sel,
					int64_t *dropped)
{
#define DENSE_ROWS_M(K, V, HV, M) \
	dense_rows(kc, vc, K, V, HV, lo, hi, min_code, klo, khi, t, na, take_null, M, \
			   sel, dropped)
#define DENSE_ROWS(K, V, HV) DENSE_ROWS_M(K, V, HV, false)
#define DENSE_ROWS_V(K) \
	do { \
		if (!has_values) DENSE_ROWS(K, GPO_INT64, false); \
		else if (vt == GPO_FLOAT64 && m2) DENSE_ROWS_M(K, GPO_FLOAT64, true, true); \
		else if (vt == GPO_FLOAT64) DENSE_ROWS(K, GPO_FLOAT64, true); \
		else if (vt == GPO_INT64) DENSE_ROWS(K, GPO_INT64, true); \
		else if (vt == GPO_INT32) DENSE_ROWS(K, GPO_INT32, true); \
		else DENSE_ROWS_M(K, vt, true, m2); \
	} while (0)

	if (kt == GPO_INT32)
		DENSE_ROWS_V(GPO_INT32);
	else if (kt == GPO_INT64)
		DENSE_ROWS_V(GPO_INT64);
	else
		DENSE_ROWS_M(kt, vt, has_values, m2);
#undef DENSE_ROWS_V
#undef DENSE_ROWS
#undef DENSE_ROWS_M
}

/* dense_rows_dispatch of every row. */
static void
dense_rows_typed(const gpo_chunk *kc, const gpo_chunk *vc, gpo_type kt,
				 gpo_type vt, bool has_values, int64_t lo, int64_t hi,
				 uint64_t min_code, uint64_t klo, uint64_t khi, gpo_acc *t,
				 gpo_acc *na, bool take_null, bool m2)
{
	dense_rows_dispatch(kc, vc, kt, vt, has_values, lo, hi, min_code, klo, khi,
						t, na, take_null, m2, NULL, NULL);
}

/* Adds the chosen rows of a tile into private dense slots (see groupagg_internal.h). */
int64_t
gpo_dense_rows_sel_cpu(const gpo_chunk *kc, gpo_type kt, const gpo_chunk *vc,
					   gpo_type vt, int64_t n, const int32_t *sel,
					   uint64_t min_code, uint64_t range, bool m2, gpo_acc *t,
					   gpo_acc *na)
{
	int64_t		dropped = 0;

	if (sel == NULL)
		dense_rows_dispatch(kc, vc, kt, vt, vc != NULL, 0, n, min_code, 0,
							range, t, na, true, m2, NULL, &dropped);
	else
		dense_rows_dispatch(kc, vc, kt, vt, vc != NULL, 0, n, min_code, 0,
							range, t, na, true, m2, sel, &dropped);
	return dropped;
}

/* Adds rows into dense slots (see groupagg_internal.h). */
gpo_status
gpo_dense_accumulate_cpu(const gpo_vector *keys, const int64_t *kstarts,
						 const gpo_vector *values, int nt, uint64_t min_code,
						 uint64_t range, bool m2, gpo_acc *tab,
						 gpo_acc *nullacc_out)
{
	int64_t		n = gpo_vector_rows(keys);
	int			nb = gpo_agg_nblocks(n, nt);
	bool		private_slots = (int64_t) range * nb <= DENSE_PRIVATE_SLOTS;
	int			nparts = private_slots ? nb : nt;
	uint64_t	per = TYPEALIGN_ACCS(range);	/* a part's slots, padded */
	int64_t    *vstarts = gpo_starts_of(values);
	bool		one_chunk = keys->nchunks == 1 &&
		(values == NULL || values->nchunks == 1);
	/* private: one table per part, folded into tab after */
	gpo_acc    *ptab = private_slots ? gpo_acc_lines(per * nparts + 1) : NULL;
	gpo_acc    *nullacc = gpo_acc_lines((uint64_t) nparts * NULLACC_STRIDE);

	if (vstarts == NULL || nullacc == NULL || (private_slots && ptab == NULL))
	{
		free(vstarts);
		free(ptab);
		free(nullacc);
		return GPO_ERR_NOMEM;
	}
	if (private_slots)
	{
#pragma omp parallel for num_threads(nt) schedule(static)
		for (int64_t s = 0; s < (int64_t) (per * nparts); s++)
			gpo_acc_init(&ptab[s]);
	}

#pragma omp parallel for num_threads(nparts) schedule(static, 1)
	for (int p = 0; p < nparts; p++)
	{
		/* private: p's rows, all keys; shared: all rows, p's keys */
		int64_t		lo = private_slots ? gpo_block_lo(n, p, nparts) : 0;
		int64_t		hi = private_slots ? gpo_block_lo(n, p + 1, nparts) : n;
		uint64_t	klo = private_slots ? 0 : (uint64_t) gpo_block_lo((int64_t) range, p, nparts);
		uint64_t	khi = private_slots ? range : (uint64_t) gpo_block_lo((int64_t) range, p + 1, nparts);
		gpo_acc    *t = private_slots ? ptab + per * p : tab;
		gpo_acc    *na = &nullacc[(size_t) p * NULLACC_STRIDE];
		bool		take_null = private_slots || p == 0;
		gpo_kv_iter it;

		gpo_acc_init(na);
		if (one_chunk)
		{
			dense_rows_typed(&keys->chunks[0],
							 values != NULL ? &values->chunks[0] : NULL,
							 keys->type, values != NULL ? values->type : GPO_INT64,
							 values != NULL, lo, hi, min_code, klo, khi, t, na,
							 take_null, m2);
			continue;
		}
		gpo_kv_seek(&it, keys, kstarts, values, vstarts, lo);
		for (int64_t r = lo; r < hi; r++)
		{
			bool		kv,
						vv;
			uint64_t	kc,
						vr;

			gpo_kv_next(&it, &kv, &kc, &vv, &vr);
			if (!kv)
			{
				if (take_null)
					gpo_acc_add(na, it.vt, it.has_values, vv, vr, m2);
				continue;
			}
			kc -= min_code;
			if (kc >= klo && kc < khi)
				gpo_acc_add(&t[kc], it.vt, it.has_values, vv, vr, m2);
		}
	}
	if (private_slots)
	{
#pragma omp parallel for num_threads(nt) schedule(static)
		for (int64_t s = 0; s < (int64_t) range; s++)
			for (int p = 0; p < nparts; p++)
				gpo_acc_merge(&tab[s], &ptab[per * p + s]);
	}
	for (int p = 0; p < nparts; p++)
		gpo_acc_merge(nullacc_out, &nullacc[(size_t) p * NULLACC_STRIDE]);
	free(vstarts);
	free(ptab);
	free(nullacc);
	return GPO_OK;
}

/* Empty dense slots (see groupagg_internal.h). */
gpo_acc *
gpo_dense_slots_new(uint64_t range, int nt)
{
	gpo_acc    *tab = malloc(sizeof(gpo_acc) * (range + 1));

	if (tab == NULL)
		return NULL;
#pragma omp parallel for num_threads(nt) schedule(static)
	for (int64_t s = 0; s <= (int64_t) range; s++)
		gpo_acc_init(&tab[s]);
	return tab;
}

/* Dense strategy (see groupagg_internal.h). */
gpo_status
gpo_groupagg_dense_cpu(const gpo_vector *keys, const int64_t *kstarts,
					   const gpo_vector *values, int nt, uint64_t min_code,
					   uint64_t range, gpo_agg_out *out, int64_t *ngroups)
{
	gpo_acc    *tab = gpo_dense_slots_new(range, nt);
	gpo_status	st;

	if (tab == NULL)
		return GPO_ERR_NOMEM;
	st = gpo_dense_accumulate_cpu(keys, kstarts, values, nt, min_code, range,
								  out->m2 != NULL, tab, &tab[range]);
	if (st == GPO_OK)
		st = gpo_dense_store_cpu(keys->type, values ? (int) values->type : -1,
								 tab, min_code, range, &tab[range], out, ngroups);
	free(tab);
	return st;
}

/* A slot of a thread's hash table: a key and its entry (0: empty). */
typedef struct hslot
{
	uint64_t	key;
	int64_t		ent;			/* entry + 1; 0: empty slot */
} hslot;

/*
 * One thread's hash table.  The slots hold only keys and entry numbers;
 * the entries' accumulators (nreq each, one a request) lie dense, in the
 * order the keys came, and are set up only when a key comes.  Measured on
 * 2 cores, 100K rows into 94K groups of 3 requests: a table whose slots held
 * the accumulators themselves spent more time setting up and moving empty
 * slots (80 bytes a request) than on the rows.
 */
typedef struct htab
{
	hslot	   *slots;			/* [cap], cap a power of two */
	uint64_t   *ekeys;			/* [cap / 2]: each entry's key */
	gpo_acc    *accs;			/* [cap / 2 * nreq] (at most half the slots
								 * are used) */
	int64_t		cap;
	int64_t		used;			/* entries */
	int			nreq;
	bool		failed;
} htab;

/* Mixes a key code into a well-spread hash (murmur3's finalizer). */
static inline uint64_t
hmix(uint64_t x)
{
	x ^= x >> 33;
	x *= UINT64_C(0xff51afd7ed558ccd);
	x ^= x >> 33;
	x *= UINT64_C(0xc4ceb9fe1a85ec53);
	x ^= x >> 33;
	return x;
}

/* Frees h's arrays. */
static void
htab_free(htab *h)
{
	free(h->slots);
	free(h->ekeys);
	free(h->accs);
	h->slots = NULL;
	h->ekeys = NULL;
	h->accs = NULL;
}

/* Sets up an empty table of cap slots for nreq requests. */
static bool
htab_alloc(htab *h, int64_t cap, int nreq)
{
	h->cap = cap;
	h->used = 0;
	h->nreq = nreq;
	h->slots = calloc(cap, sizeof(hslot));
	h->ekeys = malloc(sizeof(uint64_t) * (cap / 2));
	h->accs = malloc(sizeof(gpo_acc) * (cap / 2) * nreq);
	if (h->slots == NULL || h->ekeys == NULL || h->accs == NULL)
	{
		htab_free(h);
		return false;
	}
	return true;
}

/* Doubles h's slots (and its entries' room, which a half-full table fills). */
static bool
htab_grow(htab *h)
{
	int64_t		cap = h->cap * 2;
	hslot	   *slots = calloc(cap, sizeof(hslot));
	uint64_t   *ekeys = realloc(h->ekeys, sizeof(uint64_t) * (cap / 2));
	gpo_acc    *accs;

	/* (a block that moved is kept, so h stays whole if a later one fails) */
	if (ekeys != NULL)
		h->ekeys = ekeys;
	accs = ekeys ? realloc(h->accs, sizeof(gpo_acc) * (cap / 2) * h->nreq) : NULL;
	if (accs != NULL)
		h->accs = accs;
	if (slots == NULL || accs == NULL)
	{
		free(slots);
		return false;
	}
	for (int64_t e = 0; e < h->used; e++)
	{
		int64_t		i = (int64_t) (hmix(h->ekeys[e]) & (uint64_t) (cap - 1));

		while (slots[i].ent != 0)
			i = (i + 1) & (cap - 1);
		slots[i].key = h->ekeys[e];
		slots[i].ent = e + 1;
	}
	free(h->slots);
	h->slots = slots;
	h->cap = cap;
	return true;
}

/* First accumulator of code's entry in h (made if new), NULL when growing failed. */
static gpo_acc *
htab_slot(htab *h, uint64_t code)
{
	int64_t		i;
	int64_t		e;
	int			nq = h->nreq;

	if ((h->used + 1) * 2 > h->cap && !htab_grow(h))
		return NULL;
	i = (int64_t) (hmix(code) & (uint64_t) (h->cap - 1));
	while (h->slots[i].ent != 0 && h->slots[i].key != code)
		i = (i + 1) & (h->cap - 1);
	if (h->slots[i].ent != 0)
		return &h->accs[(h->slots[i].ent - 1) * nq];
	e = h->used++;
	h->slots[i].key = code;
	h->slots[i].ent = e + 1;
	h->ekeys[e] = code;
	for (int q = 0; q < nq; q++)
		gpo_acc_init(&h->accs[e * nq + q]);
	return &h->accs[e * nq];
}

/*
 * The value of request q at the current row of its cursor (stepped on):
 * validity and raw bits; no value vector: not valid.
 */
static inline void
hash_value_next(gpo_cursor *cur, const gpo_vector *v, bool *valid,
				uint64_t *raw)
{
	const gpo_chunk *ch;

	*valid = false;
	*raw = 0;
	if (v == NULL)
		return;
	gpo_cursor_avail(cur);
	ch = gpo_cursor_chunk(cur);
	*valid = gpo_valid(ch, cur->off);
	if (*valid)
		*raw = gpo_raw_at(v->type, ch->data, cur->off);
	cur->off++;
}

/*
 * Rows lo .. hi - 1 into one thread's table h and NULL-key accumulators
 * na (nreq): the key's slot is found once, then every request's value goes
 * into its accumulator.
 */
static void
hash_rows(const gpo_vector *keys, const int64_t *kstarts, int nreq,
		  const gpo_agg_req *reqs, int64_t *const *vstarts, const bool *m2,
		  int64_t lo, int64_t hi, htab *h, gpo_acc *na)
{
	gpo_kv_iter it;
	gpo_cursor	vc[GPO_AGG_MAX_REQS];

	gpo_kv_seek(&it, keys, kstarts, reqs[0].values, vstarts[0], lo);
	for (int q = 1; q < nreq; q++)
		if (reqs[q].values != NULL)
			gpo_cursor_seek(&vc[q], reqs[q].values, vstarts[q], lo);
	for (int64_t r = lo; r < hi; r++)
	{
		bool		kv,
					vv;
		uint64_t	kc,
					vr;
		gpo_acc    *a;

		gpo_kv_next(&it, &kv, &kc, &vv, &vr);
		a = kv ? htab_slot(h, kc) : na;
		if (a == NULL)
		{
			h->failed = true;
			return;
		}
		gpo_acc_add(&a[0], it.vt, it.has_values, vv, vr, m2[0]);
		for (int q = 1; q < nreq; q++)
		{
			const gpo_vector *v = reqs[q].values;

			hash_value_next(&vc[q], v, &vv, &vr);
			gpo_acc_add(&a[q], v ? v->type : GPO_INT64, v != NULL, vv, vr, m2[q]);
		}
	}
}

/* Hash strategy (see groupagg_internal.h). */
gpo_status
gpo_groupagg_hash_cpu(const gpo_vector *keys, const int64_t *kstarts,
					  int nreq, const gpo_agg_req *reqs, int nt,
					  gpo_agg_out *outs, int64_t *ngroups)
{
	int64_t		n = gpo_vector_rows(keys);
	int			nb = gpo_agg_nblocks(n, nt);
	int64_t    *vstarts[GPO_AGG_MAX_REQS];
	bool		m2[GPO_AGG_MAX_REQS];
	htab	   *tabs = calloc(nb, sizeof(htab));
	gpo_acc    *nullacc = malloc(sizeof(gpo_acc) * nb * nreq);
	uint64_t   *codes = NULL,
			   *tc = NULL;
	int64_t    *idx = NULL,
			   *ti = NULL,
			   *hist = NULL;
	gpo_acc    *all = NULL;
	gpo_acc    *acc = malloc(sizeof(gpo_acc) * nreq);
	int64_t		m = 0,
				ng = 0;
	gpo_status	st = GPO_OK;

	if (nreq > GPO_AGG_MAX_REQS)
		return GPO_ERR_INVALID;
	for (int q = 0; q < nreq; q++)
	{
		vstarts[q] = gpo_starts_of(reqs[q].values);
		m2[q] = outs[q].m2 != NULL;
		if (vstarts[q] == NULL)
			st = GPO_ERR_NOMEM;
	}
	if (st != GPO_OK || tabs == NULL || nullacc == NULL || acc == NULL)
	{
		st = GPO_ERR_NOMEM;
		goto done;
	}
#pragma omp parallel for num_threads(nb) schedule(static, 1)
	for (int b = 0; b < nb; b++)
	{
		for (int q = 0; q < nreq; q++)
			gpo_acc_init(&nullacc[b * nreq + q]);
		if (!htab_alloc(&tabs[b], 1024, nreq))
		{
			tabs[b].failed = true;
			continue;
		}
		hash_rows(keys, kstarts, nreq, reqs, vstarts, m2,
				  gpo_block_lo(n, b, nb), gpo_block_lo(n, b + 1, nb),
				  &tabs[b], &nullacc[b * nreq]);
	}
	for (int b = 0; b < nb; b++)
	{
		if (tabs[b].failed)
			st = GPO_ERR_NOMEM;
		m += tabs[b].used;
		if (b > 0)
			for (int q = 0; q < nreq; q++)
				gpo_acc_merge(&nullacc[q], &nullacc[b * nreq + q]);
	}
	if (st != GPO_OK)
		goto done;

	/* gather every table's entries, in block order, and sort them by key */
	codes = malloc(sizeof(uint64_t) * (m + 1));
	tc = malloc(sizeof(uint64_t) * (m + 1));
	idx = malloc(sizeof(int64_t) * (m + 1));
	ti = malloc(sizeof(int64_t) * (m + 1));
	all = malloc(sizeof(gpo_acc) * (m + 1) * nreq);
	hist = malloc(sizeof(int64_t) * 256 * nt);
	if (!codes || !tc || !idx || !ti || !all || !hist)
	{
		st = GPO_ERR_NOMEM;
		goto done;
	}
	m = 0;
	for (int b = 0; b < nb; b++)
	{
		memcpy(&codes[m], tabs[b].ekeys, sizeof(uint64_t) * tabs[b].used);
		memcpy(&all[m * nreq], tabs[b].accs, sizeof(gpo_acc) * tabs[b].used * nreq);
		for (int64_t e = 0; e < tabs[b].used; e++)
			idx[m + e] = m + e;
		m += tabs[b].used;
	}
	gpo_radix_sort_varying(codes, idx, tc, ti, m, nt, hist);
	for (int64_t i = 0; i < m; i++)
		ng += (i == 0 || codes[i] != codes[i - 1]);
	*ngroups = ng + (nullacc[0].rows > 0);
	for (int q = 0; q < nreq; q++)
		if (*ngroups > outs[q].capacity)
		{
			st = GPO_ERR_CAPACITY;
			goto done;
		}
	ng = 0;
	for (int64_t i = 0; i < m;)
	{
		int64_t		j = i + 1;

		memcpy(acc, &all[idx[i] * nreq], sizeof(gpo_acc) * nreq);
		for (; j < m && codes[j] == codes[i]; j++)
			for (int q = 0; q < nreq; q++)
				gpo_acc_merge(&acc[q], &all[idx[j] * nreq + q]);
		for (int q = 0; q < nreq; q++)
		{
			const gpo_vector *v = reqs[q].values;

			gpo_key_store(&outs[q], ng, keys->type, true, codes[i]);
			gpo_acc_store(&outs[q], ng, &acc[q], v ? v->type : GPO_INT64, v != NULL);
		}
		ng++;
		i = j;
	}
	if (nullacc[0].rows > 0)
		for (int q = 0; q < nreq; q++)
		{
			const gpo_vector *v = reqs[q].values;

			gpo_key_store(&outs[q], ng, keys->type, false, 0);
			gpo_acc_store(&outs[q], ng, &nullacc[q], v ? v->type : GPO_INT64, v != NULL);
		}

done:
	if (tabs != NULL)
		for (int b = 0; b < nb; b++)
			htab_free(&tabs[b]);
	free(tabs);
	free(nullacc);
	for (int q = 0; q < nreq && q < GPO_AGG_MAX_REQS; q++)
		free(vstarts[q]);
	free(codes);
	free(tc);
	free(idx);
	free(ti);
	free(all);
	free(hist);
	free(acc);
	return st;
}
