/*
 * test_transfer.c
 *	  Cases aimed at the GPU faces' host<->device transfers and at the stable
 *	  partition of NULL keys in the GPU sort: transfers of several staging
 *	  pieces (a staging buffer holds 32 MiB) both ways over uneven chunks
 *	  with empty ones, inputs in page-locked (registered) chunks, and sorts
 *	  whose NULL keys sit first, last, alone, everywhere or nowhere.  Every
 *	  case checks each face against a naive reference.
 */
#include <stdlib.h>
#include <string.h>

#include "gpo_agg.h"
#include "gpo_join.h"
#include "test_util.h"

/* The faces to run: CPU always, GPU when present (else counted skipped). */
static int
faces(tgroup *g, gpo_device *list)
{
	list[0] = GPO_DEVICE_CPU;
	if (have_gpu)
	{
		list[1] = GPO_DEVICE_GPU;
		return 2;
	}
	gpu_skip(g);
	return 1;
}

/* Where a sort case's NULL keys are. */
typedef enum null_kind
{
	NULLS_NONE,					/* bitmaps present, every row valid */
	NULLS_ALL,
	NULLS_FIRST,				/* row 0 only */
	NULLS_LAST,					/* the last row only */
	NULLS_ALL_BUT_ONE,			/* one valid row in the middle */
	NULLS_ALTERNATE,			/* every other row */
	NULLS_RANDOM,				/* half the rows */
	NULLS_COUNT
} null_kind;

/* Names of the null kinds. */
static const char *const null_names[] = {
	"none", "all", "first", "last", "all-but-one", "alternate", "random"
};

/* Validity byte of row i of n under kind. */
static uint8_t
null_valid(null_kind kind, int64_t i, int64_t n)
{
	switch (kind)
	{
		case NULLS_NONE:
			return 1;
		case NULLS_ALL:
			return 0;
		case NULLS_FIRST:
			return i != 0;
		case NULLS_LAST:
			return i != n - 1;
		case NULLS_ALL_BUT_ONE:
			return i == n / 2;
		case NULLS_ALTERNATE:
			return (i & 1) == 0;
		default:
			return rng_chance(1, 2);
	}
}

/* Rows of a sort reference: sorted by (NULL last, key, row). */
typedef struct sort_row
{
	int32_t		key;
	uint8_t		valid;
	int64_t		row;
} sort_row;

/* Naive stable order: valid keys ascending, then NULL keys, ties by row. */
static int
sort_row_cmp(const void *pa, const void *pb)
{
	const sort_row *a = pa;
	const sort_row *b = pb;

	if (a->valid != b->valid)
		return a->valid ? -1 : 1;
	if (a->valid && a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return (a->row > b->row) - (a->row < b->row);
}

/* Checks one face's sort output against the reference ref. */
static void
sort_check(tcase *c, const sort_row *ref, int64_t n, tvec *tko, tvec *tro)
{
	int32_t    *kout = malloc(sizeof(int32_t) * (tko->rows + 1));
	uint8_t    *kval = malloc(tko->rows + 1);
	int64_t    *rout = malloc(sizeof(int64_t) * (tro->rows + 1));

	tvec_read(tko, kout, kval);
	tvec_read(tro, rout, NULL);
	for (int64_t i = 0; i < n && c->ok; i++)
	{
		expect(c, rout[i] == ref[i].row, "row %lld: row %lld want %lld",
			   (long long) i, (long long) rout[i], (long long) ref[i].row);
		expect(c, kval[i] == ref[i].valid, "row %lld: key validity", (long long) i);
		expect(c, kout[i] == (ref[i].valid ? ref[i].key : 0), "row %lld: key %d want %d",
			   (long long) i, kout[i], ref[i].valid ? ref[i].key : 0);
	}
	expect(c, tvec_spare_untouched(tko, n) && tvec_spare_untouched(tro, n),
		   "spare capacity written");
	free(kout);
	free(kval);
	free(rout);
}

/* Sorts n int32 keys (few distinct, NULLs as kind says) on every face. */
static void
sort_nulls_case(tgroup *tg, int64_t n, null_kind kind, part_kind kp, part_kind op)
{
	int32_t    *keys = malloc(sizeof(int32_t) * (n + 1));
	uint8_t    *valid = malloc(n + 1);
	sort_row   *ref = malloc(sizeof(sort_row) * (n + 1));
	tvec		tk,
				tko,
				tro;
	gpo_device	devs[2];
	int			nf = faces(tg, devs);

	for (int64_t i = 0; i < n; i++)
	{
		keys[i] = (int32_t) rng_below(7) - 3;
		valid[i] = null_valid(kind, i, n);
		ref[i].key = keys[i];
		ref[i].valid = valid[i];
		ref[i].row = i;
	}
	qsort(ref, (size_t) n, sizeof(sort_row), sort_row_cmp);
	tvec_make_kind(&tk, GPO_INT32, kp, n, true);
	tvec_fill(&tk, keys, valid);
	tvec_make_kind(&tko, GPO_INT32, op, n + (int64_t) rng_below(3), true);
	tvec_make_kind(&tro, GPO_INT64, op, n + (int64_t) rng_below(3), false);
	for (int f = 0; f < nf; f++)
	{
		gpo_ctx		ctx;
		tcase		c;
		size_t		bytes = 0;
		void	   *scratch;
		gpo_status	st;

		test_ctx(&ctx, devs[f], 0);
		case_begin(&c, "sort %s n=%lld nulls %s parts %s/%s",
				   devs[f] == GPO_DEVICE_GPU ? "gpu" : "cpu", (long long) n,
				   null_names[kind], part_name(kp), part_name(op));
		tvec_sentinel(&tko);
		tvec_sentinel(&tro);
		st = gpo_sort_pairs(&ctx, &tk.v, &tko.v, &tro.v, NULL, &bytes);
		scratch = malloc(bytes + 1);
		if (st == GPO_OK)
			st = gpo_sort_pairs(&ctx, &tk.v, &tko.v, &tro.v, scratch, &bytes);
		expect(&c, st == GPO_OK, "status %s (%s)", gpo_status_text(st), ctx.detail);
		expect(&c, ctx.used == devs[f], "ran on the wrong face");
		if (c.ok)
			sort_check(&c, ref, n, &tko, &tro);
		case_result(tg, c.ok, c.msg);
		free(scratch);
	}
	tvec_free(&tk);
	tvec_free(&tko);
	tvec_free(&tro);
	free(keys);
	free(valid);
	free(ref);
}

/* Checks a gather's output against in[index[i]] (NULL where either is NULL). */
static void
gather_check(tcase *c, const int64_t *in, const uint8_t *in_valid,
			 const int64_t *index, const uint8_t *ix_valid, int64_t n,
			 tvec *to)
{
	int64_t    *got = malloc(sizeof(int64_t) * (to->rows + 1));
	uint8_t    *gval = malloc(to->rows + 1);

	tvec_read(to, got, gval);
	for (int64_t i = 0; i < n && c->ok; i++)
	{
		bool		v = ix_valid[i] && in_valid[index[i]];

		expect(c, gval[i] == v, "row %lld: validity %d want %d", (long long) i,
			   gval[i], v);
		if (v)
			expect(c, got[i] == in[index[i]], "row %lld: value", (long long) i);
	}
	expect(c, tvec_spare_untouched(to, n), "spare capacity written");
	free(got);
	free(gval);
}

/* Fills n int64 values (or an index into [0, range)) with about 1 in 5 NULL. */
static void
fill_int64(int64_t *vals, uint8_t *valid, int64_t n, int64_t range)
{
	for (int64_t i = 0; i < n; i++)
	{
		vals[i] = range > 0 ? (int64_t) rng_below((uint64_t) range) : (int64_t) rng_next();
		valid[i] = !rng_chance(1, 5);
	}
}

/* A gather case's inputs, their flat copies and its output. */
typedef struct gather_fix
{
	int64_t		n_in;
	int64_t		n;
	int64_t    *in;
	uint8_t    *in_valid;
	int64_t    *index;
	uint8_t    *ix_valid;
	tvec		ti;
	tvec		tx;
	tvec		to;
} gather_fix;

/*
 * Random int64 input of n_in rows and an index of n rows into it (with
 * NULLs where ix_nulls), over the partitions named; output of n + 5 rows.
 */
static void
gather_fix_make(gather_fix *f, int64_t n_in, int64_t n, part_kind ip,
				part_kind xp, part_kind op, bool ix_nulls)
{
	f->n_in = n_in;
	f->n = n;
	f->in = malloc(sizeof(int64_t) * (n_in + 1));
	f->in_valid = malloc(n_in + 1);
	f->index = malloc(sizeof(int64_t) * (n + 1));
	f->ix_valid = malloc(n + 1);
	fill_int64(f->in, f->in_valid, n_in, 0);
	fill_int64(f->index, f->ix_valid, n, n_in);
	if (!ix_nulls)
		memset(f->ix_valid, 1, n);
	tvec_make_kind(&f->ti, GPO_INT64, ip, n_in, true);
	tvec_fill(&f->ti, f->in, f->in_valid);
	tvec_make_kind(&f->tx, GPO_INT64, xp, n, ix_nulls);
	tvec_fill(&f->tx, f->index, f->ix_valid);
	tvec_make_kind(&f->to, GPO_INT64, op, n + 5, true);
}

/* Frees what gather_fix_make made. */
static void
gather_fix_free(gather_fix *f)
{
	tvec_free(&f->ti);
	tvec_free(&f->tx);
	tvec_free(&f->to);
	free(f->in);
	free(f->in_valid);
	free(f->index);
	free(f->ix_valid);
}

/* Runs f's gather on face dev into case c (already begun) and checks it. */
static void
gather_fix_run(tcase *c, gather_fix *f, gpo_device dev)
{
	gpo_ctx		ctx;
	size_t		bytes = 0;
	void	   *scratch;
	gpo_status	st;

	test_ctx(&ctx, dev, 0);
	tvec_sentinel(&f->to);
	st = gpo_gather(&ctx, &f->ti.v, &f->tx.v, &f->to.v, NULL, &bytes);
	scratch = malloc(bytes + 1);
	if (st == GPO_OK)
		st = gpo_gather(&ctx, &f->ti.v, &f->tx.v, &f->to.v, scratch, &bytes);
	expect(c, st == GPO_OK, "status %s (%s)", gpo_status_text(st), ctx.detail);
	expect(c, ctx.used == dev, "ran on the wrong face");
	if (c->ok)
		gather_check(c, f->in, f->in_valid, f->index, f->ix_valid, f->n, &f->to);
	free(scratch);
}

/*
 * Gathers n int64 rows out of n_in: with millions of rows the input, the
 * index and the output each span several staging pieces.
 */
static void
gather_big_case(tgroup *tg, int64_t n_in, int64_t n, part_kind ip, part_kind xp,
				part_kind op)
{
	gather_fix	f;
	gpo_device	devs[2];
	int			nf = faces(tg, devs);

	gather_fix_make(&f, n_in, n, ip, xp, op, true);
	for (int i = 0; i < nf; i++)
	{
		tcase		c;

		case_begin(&c, "gather %s int64 n_in=%lld n=%lld parts %s/%s/%s",
				   devs[i] == GPO_DEVICE_GPU ? "gpu" : "cpu", (long long) n_in,
				   (long long) n, part_name(ip), part_name(xp), part_name(op));
		gather_fix_run(&c, &f, devs[i]);
		case_result(tg, c.ok, c.msg);
	}
	gather_fix_free(&f);
}

/* Moves bytes of a chunk's data to pages of its own; false if out of memory. */
static bool
chunk_own_pages(gpo_chunk *ch, size_t bytes)
{
	void	   *own = aligned_alloc(4096, (bytes + 4095) & ~(size_t) 4095);

	if (own == NULL)
		return false;
	memcpy(own, ch->data, bytes);
	free(ch->data);
	ch->data = own;
	return true;
}

/*
 * Page-locks (or, with lock false, unlocks) the data of t's chunks.  Each
 * chunk's data first moves to pages of its own, so that no two
 * registrations share a page.
 */
static bool
tvec_lock(tvec *t, bool lock)
{
	size_t		w = gpo_type_size(t->v.type);
	bool		ok = true;

	for (int32_t c = 0; c < t->v.nchunks; c++)
	{
		gpo_chunk  *ch = &t->v.chunks[c];
		size_t		bytes = w * (size_t) ch->n;

		if (ch->n == 0)
			continue;
		if (!lock)
		{
			gpo_host_unregister(ch->data);
			continue;
		}
		ok = chunk_own_pages(ch, bytes) && gpo_host_register(ch->data, bytes) && ok;
	}
	return ok;
}

/*
 * Gathers from page-locked input and index chunks (one DMA a chunk, no
 * staging; the index has no bitmaps, so all its bytes are locked) on the
 * GPU face; the output goes through staging as always.
 */
static void
gather_locked_case(tgroup *tg, int64_t n_in, int64_t n, part_kind ip, part_kind xp)
{
	gather_fix	f;
	tcase		c;

	if (!have_gpu)
	{
		gpu_skip(tg);
		return;
	}
	gather_fix_make(&f, n_in, n, ip, xp, random_kind(n), false);
	case_begin(&c, "gather gpu page-locked n_in=%lld n=%lld parts %s/%s",
			   (long long) n_in, (long long) n, part_name(ip), part_name(xp));
	expect(&c, tvec_lock(&f.ti, true) && tvec_lock(&f.tx, true),
		   "gpo_host_register failed");
	gather_fix_run(&c, &f, GPO_DEVICE_GPU);
	case_result(tg, c.ok, c.msg);
	tvec_lock(&f.ti, false);
	tvec_lock(&f.tx, false);
	gather_fix_free(&f);
}

/* All transfer and sort-partition tests. */
void
test_transfer(void)
{
	static const int64_t sizes[] = {1, 2, 3, 1000, 70001};
	tgroup		g;

	group_begin(&g, "sort nulls");
	for (int z = 0; z < 5; z++)
		for (int k = 0; k < NULLS_COUNT; k++)
			sort_nulls_case(&g, sizes[z], (null_kind) k, random_kind(sizes[z]),
							random_kind(sizes[z]));
	/* 9M keys: 2 staging pieces up and down, 3 for the int64 rows */
	sort_nulls_case(&g, 9000001, NULLS_RANDOM, PART_UNEVEN, PART_MIXED);
	sort_nulls_case(&g, 9000001, NULLS_ALTERNATE, PART_MIXED, PART_LEAD_EMPTY);
	group_end(&g);

	group_begin(&g, "transfer");
	/* 32 MiB of int64 is 4194304 rows: one piece exactly, one piece and a row */
	gather_big_case(&g, 4194304, 4194304, PART_ONE, PART_ONE, PART_ONE);
	gather_big_case(&g, 4194305, 4194305, PART_UNEVEN, PART_ONE, PART_MIXED);
	gather_big_case(&g, 9000011, 8000009, PART_MIXED, PART_TRAIL_EMPTY, PART_UNEVEN);
	gather_big_case(&g, 9000011, 8000009, PART_INTERIOR_EMPTY, PART_MIXED, PART_MIXED);
	gather_locked_case(&g, 1000, 777, PART_MIXED, PART_UNEVEN);
	gather_locked_case(&g, 9000011, 5000003, PART_UNEVEN, PART_INTERIOR_EMPTY);
	group_end(&g);
}
