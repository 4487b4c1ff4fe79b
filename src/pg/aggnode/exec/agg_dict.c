/*
 * agg_dict.c
 *	  Dictionary codes for text grouping keys of a GpuOpsAgg scan.
 *
 * The engine groups fixed-width keys, so a text (or varchar) key is replaced
 * by a dense int32 code on the CPU as rows are read: equal strings get equal
 * codes, in first-seen order, through one dictionary per key and process
 * for the whole query (every batch and every partition share it, so codes
 * mean the same everywhere in the process).  Grouping by the code is
 * grouping by the string under a deterministic collation, whose equality
 * is byte equality; the planner keeps keys of nondeterministic collations
 * native.  The dictionary is the engine's gpo_strdict (it keeps its own
 * copy of the strings): the slot path codes one value at a time, the page
 * batches many at once with the decoding threads.  A worker process's codes
 * are its own: its groups go to the backend with their strings, which the
 * backend codes in its own dictionary (agg_parallel_text.c).
 */
#include "aggnode/gpuops_agg.h"

#include "utils/builtins.h"
#include "utils/memutils.h"

/*
 * Most strings a new dictionary makes room for at once: a 4 MB table that
 * is zeroed at once and 4 MB of entries, so that an estimate far above
 * the strings that come (several keys' groups, a worker's share) costs
 * little; a dictionary that outgrows it doubles as before.
 */
#define GPUOPS_DICT_EXPECT_MAX	((double) (1 << 18))

/* A key's dictionary. */
struct GpuopsTextDict
{
	gpo_strdict *sd;			/* malloc'd: freed with the memory context */
	MemoryContextCallback free_sd;
};

/* Frees the engine's dictionary when the node's memory goes. */
static void
gpuops_dict_free(void *arg)
{
	GpuopsTextDict *d = (GpuopsTextDict *) arg;

	gpo_strdict_free(d->sd);
	d->sd = NULL;
}

/*
 * An empty dictionary in the current memory context, with room made for
 * expect distinct strings (the planner's estimate, 0: none; at most
 * GPUOPS_DICT_EXPECT_MAX), so that it is not doubled on the way.
 */
GpuopsTextDict *
gpuops_dict_create(double expect)
{
	GpuopsTextDict *d = palloc0(sizeof(GpuopsTextDict));

	d->sd = gpo_strdict_create();
	if (d->sd == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory"),
				 errdetail("GpuOpsAgg could not allocate a text key dictionary.")));
	/* only a hint: a dictionary short of memory grows as it comes */
	if (expect >= 1)
		(void) gpo_strdict_expect(d->sd, (int64) Min(expect, GPUOPS_DICT_EXPECT_MAX));
	d->free_sd.func = gpuops_dict_free;
	d->free_sd.arg = d;
	MemoryContextRegisterResetCallback(CurrentMemoryContext, &d->free_sd);
	return d;
}

/*
 * A dictionary, in the current memory context, for each text key of spec
 * that is not read as short text codes, with room for the query's
 * estimated groups (a key has at most that many strings).
 */
void
gpuops_dict_create_keys(GpuopsAggSpec *spec)
{
	int			k;

	for (k = 0; k < spec->nkeys; k++)
	{
		ListCell   *lc;
		int32		code = 0;
		int			j;

		if (!gpuops_agg_text_key(spec->key_types[k], spec->key_collations[k]) ||
			gpuops_agg_short_text_key(spec->key_types[k], spec->key_typmods[k],
									  spec->key_collations[k]))
			continue;
		/* keys of one column share its codes (the reader reads it once) */
		for (j = 0; j < k && spec->ntables > 0; j++)
			if (spec->key_dicts[j] != NULL &&
				spec->tables[0].key_exprs[j] == NULL &&
				spec->tables[0].key_exprs[k] == NULL &&
				spec->tables[0].key_attnos[j] == spec->tables[0].key_attnos[k])
				break;
		if (j < k && spec->ntables > 0)
		{
			spec->key_dicts[k] = spec->key_dicts[j];
			continue;
		}
		spec->key_dicts[k] = gpuops_dict_create(spec->est_groups);
		/* a label key's labels, coded in the planner's order (agg_label.c) */
		foreach(lc, spec->key_labels[k])
			if (gpuops_dict_encode(spec->key_dicts[k],
								   CStringGetTextDatum(strVal(lfirst(lc)))) != code++)
				elog(ERROR, "GpuOpsAgg: a label key's codes differ from the plan's");
	}
}

/* Raises the error of a dictionary call that failed with st. */
static void
gpuops_dict_error(gpo_status st)
{
	if (st == GPO_ERR_CAPACITY)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("GpuOpsAgg: more than %d distinct values of a text grouping key",
						PG_INT32_MAX),
				 errhint("SET gpuops.enabled = off runs the query natively.")));
	if (st == GPO_ERR_NOMEM)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory"),
				 errdetail("GpuOpsAgg could not grow a text key dictionary.")));
	elog(ERROR, "GpuOpsAgg: text key dictionary call failed (%d)", (int) st);
}

/* GpuopsScanEncode: the code of a non-NULL string, added if new. */
int32
gpuops_dict_encode(void *arg, Datum value)
{
	GpuopsTextDict *d = (GpuopsTextDict *) arg;
	text	   *t = DatumGetTextPP(value);
	gpo_str		s;
	int32		code;
	gpo_status	st;

	s.data = VARDATA_ANY(t);
	s.len = (int32) VARSIZE_ANY_EXHDR(t);
	st = gpo_strdict_encode(NULL, d->sd, 1, &s, &code);
	if (st != GPO_OK)
		gpuops_dict_error(st);
	if ((Pointer) t != DatumGetPointer(value))
		pfree(t);				/* a detoasted copy */
	return code;
}

/* GpuopsScanEncodeMany: the codes of n strings, with up to nthreads threads. */
void
gpuops_dict_encode_many(void *arg, int nthreads, int64 n, const gpo_str *strs,
						int32 *codes)
{
	GpuopsTextDict *d = (GpuopsTextDict *) arg;
	gpo_ctx		ctx;
	gpo_status	st;

	gpuops_ctx_init(&ctx);
	ctx.device = GPO_DEVICE_CPU;
	ctx.threads = Max(nthreads, 1);
	st = gpo_strdict_encode(&ctx, d->sd, n, strs, codes);
	if (st != GPO_OK)
		gpuops_dict_error(st);
}

/* The string of a code, as a text Datum in the current memory context. */
Datum
gpuops_dict_datum(const GpuopsTextDict *d, int32 code)
{
	gpo_str		s = gpuops_dict_string(d, code);

	return PointerGetDatum(cstring_to_text_with_len(s.data, s.len));
}

/* The string of a code (valid until the dictionary codes more). */
gpo_str
gpuops_dict_string(const GpuopsTextDict *d, int32 code)
{
	gpo_str		s = gpo_strdict_get(d->sd, code);

	if (s.data == NULL)
		elog(ERROR, "GpuOpsAgg: text key code %d out of range", code);
	return s;
}

/* Distinct strings the dictionary holds. */
int64
gpuops_dict_count(const GpuopsTextDict *d)
{
	return gpo_strdict_count(d->sd);
}
