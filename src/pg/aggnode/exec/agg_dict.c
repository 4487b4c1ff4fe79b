/*
 * agg_dict.c
 *	  Dictionary codes for text grouping keys of a GpuOpsAgg scan.
 *
 * The engine groups fixed-width keys, so a text (or varchar) key is replaced
 * by a dense int32 code on the CPU as rows are read: equal strings get equal
 * codes, in first-seen order, through one hash table per key for the whole
 * query (every batch and every partition share it, so codes mean the same
 * everywhere).  Grouping by the code is grouping by the string under a
 * deterministic collation, whose equality is byte equality; the planner
 * keeps keys of nondeterministic collations native.  The strings are copied
 * once into the dictionary's memory, and the group's key is read back from
 * there when the groups come out.
 */
#include "aggnode/gpuops_agg.h"

#include "common/hashfn.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"

/* Most distinct strings one key may have (codes are non-negative int32). */
#define GPUOPS_DICT_MAX		((int64) PG_INT32_MAX)

/* One dictionary entry: a string (the hash key) and its code. */
typedef struct GpuopsDictEntry
{
	text	   *str;			/* first member: the key dynahash hashes */
	int32		code;
} GpuopsDictEntry;

/* A key's dictionary. */
struct GpuopsTextDict
{
	HTAB	   *htab;
	MemoryContext cxt;			/* the strings and the code -> string array */
	text	  **strs;			/* strs[code] */
	int64		n;
	int64		cap;
};

/* Hash of a string key (dynahash passes a pointer to the entry's key). */
static uint32
gpuops_dict_hash(const void *key, Size keysize)
{
	const text *t = *(text *const *) key;

	return DatumGetUInt32(hash_any((const unsigned char *) VARDATA_ANY(t),
								   VARSIZE_ANY_EXHDR(t)));
}

/* 0 when two string keys are byte-equal. */
static int
gpuops_dict_match(const void *a, const void *b, Size keysize)
{
	const text *x = *(text *const *) a;
	const text *y = *(text *const *) b;
	Size		lx = VARSIZE_ANY_EXHDR(x);

	if (lx != VARSIZE_ANY_EXHDR(y))
		return 1;
	return memcmp(VARDATA_ANY(x), VARDATA_ANY(y), lx);
}

/* An empty dictionary in the current memory context. */
GpuopsTextDict *
gpuops_dict_create(void)
{
	GpuopsTextDict *d = palloc0(sizeof(GpuopsTextDict));
	HASHCTL		ctl;

	d->cxt = AllocSetContextCreate(CurrentMemoryContext, "GpuOpsAgg text keys",
								   ALLOCSET_DEFAULT_SIZES);
	memset(&ctl, 0, sizeof(ctl));
	ctl.keysize = sizeof(text *);
	ctl.entrysize = sizeof(GpuopsDictEntry);
	ctl.hash = gpuops_dict_hash;
	ctl.match = gpuops_dict_match;
	ctl.hcxt = d->cxt;
	d->htab = hash_create("GpuOpsAgg text keys", 1024, &ctl,
						  HASH_ELEM | HASH_FUNCTION | HASH_COMPARE |
						  HASH_CONTEXT);
	d->cap = 1024;
	d->strs = MemoryContextAlloc(d->cxt, sizeof(text *) * d->cap);
	return d;
}

/* GpuopsScanEncode: the code of a non-NULL string, added if new. */
int32
gpuops_dict_encode(void *arg, Datum value)
{
	GpuopsTextDict *d = (GpuopsTextDict *) arg;
	text	   *t = DatumGetTextPP(value);
	GpuopsDictEntry *e;
	bool		found;
	int32		code;

	e = (GpuopsDictEntry *) hash_search(d->htab, &t, HASH_ENTER, &found);
	if (!found)
	{
		Size		len = VARSIZE_ANY(t);

		if (d->n >= GPUOPS_DICT_MAX)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("GpuOpsAgg: more than %lld distinct values of a text grouping key",
							(long long) GPUOPS_DICT_MAX),
					 errhint("SET gpuops.enabled = off runs the query natively.")));
		/* the entry's key points at the tuple: give it its own copy */
		e->str = MemoryContextAlloc(d->cxt, len);
		memcpy(e->str, t, len);
		e->code = (int32) d->n;
		if (d->n == d->cap)
		{
			d->cap *= 2;
			d->strs = repalloc_huge(d->strs, sizeof(text *) * d->cap);
		}
		d->strs[d->n++] = e->str;
	}
	code = e->code;
	if ((Pointer) t != DatumGetPointer(value))
		pfree(t);				/* a detoasted copy */
	return code;
}

/* The string of a code, as a text Datum. */
Datum
gpuops_dict_datum(const GpuopsTextDict *d, int32 code)
{
	if (code < 0 || code >= d->n)
		elog(ERROR, "GpuOpsAgg: text key code %d out of range", code);
	return PointerGetDatum(d->strs[code]);
}
