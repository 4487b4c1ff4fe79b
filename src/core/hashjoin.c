/*
 * hashjoin.c
 *	  Hash equi-join (build, probe, emit what the join's kind emits): the
 *	  argument check, the dispatcher and the CPU face, which builds a join
 *	  table (jointable.c) in its scratch and probes it once.
 */
#include <stdlib.h>

#include "gpo_histjoin_internal.h"

/* Where the CPU face's table memory ends and its probe scratch begins. */
static size_t
join_table_part(const gpo_vector *build_keys, const gpo_vector *probe_keys)
{
	return (gpo_join_table_bytes(build_keys, gpo_vector_rows(probe_keys)) + 15) &
		~(size_t) 15;
}

/* Host scratch bytes gpo_hash_join_cpu needs for these arguments. */
size_t
gpo_hash_join_scratch_bytes(const gpo_ctx *ctx, const gpo_vector *build_keys,
							const gpo_vector *probe_keys,
							const gpo_vector *build_rows,
							const gpo_vector *probe_rows)
{
	return join_table_part(build_keys, probe_keys) +
		gpo_join_probe_scratch_bytes(ctx, probe_keys, build_rows, probe_rows);
}

/* Checks an optional INT64 output vector of a join. */
static gpo_status
check_rows_out(gpo_ctx *ctx, const gpo_vector *v, const char *what)
{
	gpo_status	st;

	if (v == NULL)
		return GPO_OK;
	if ((st = gpo_check_vector(ctx, v, what)) != GPO_OK)
		return st;
	if (v->type != GPO_INT64)
	{
		gpo_set_detail(ctx, "%s must be int64, not %s", what,
					   gpo_type_name(v->type));
		return GPO_ERR_INVALID;
	}
	return GPO_OK;
}

/* Checks a hash join's arguments (shared by both faces). */
gpo_status
gpo_hash_join_check(gpo_ctx *ctx, gpo_join_kind kind,
					const gpo_vector *build_keys,
					const gpo_vector *probe_keys,
					const gpo_vector *build_rows,
					const gpo_vector *probe_rows, const int64_t *count)
{
	gpo_status	st;

	if (kind != GPO_JOIN_INNER && kind != GPO_JOIN_SEMI &&
		kind != GPO_JOIN_ANTI && kind != GPO_JOIN_LEFT)
	{
		gpo_set_detail(ctx, "unknown join kind %d", (int) kind);
		return GPO_ERR_INVALID;
	}

	if ((st = gpo_check_vector(ctx, build_keys, "join build keys")) != GPO_OK)
		return st;
	if ((st = gpo_check_vector(ctx, probe_keys, "join probe keys")) != GPO_OK)
		return st;
	if (build_keys->type != GPO_INT32 && build_keys->type != GPO_INT64 &&
		build_keys->type != GPO_FLOAT32 && build_keys->type != GPO_FLOAT64)
	{
		gpo_set_detail(ctx, "join keys must be int32, int64, float32 or float64, not %s",
					   gpo_type_name(build_keys->type));
		return GPO_ERR_INVALID;
	}
	if (probe_keys->type != build_keys->type)
	{
		gpo_set_detail(ctx, "join keys differ in type: %s and %s",
					   gpo_type_name(build_keys->type),
					   gpo_type_name(probe_keys->type));
		return GPO_ERR_INVALID;
	}
	if ((st = check_rows_out(ctx, build_rows, "join build rows")) != GPO_OK)
		return st;
	if (build_rows && (kind == GPO_JOIN_ANTI || kind == GPO_JOIN_LEFT))
		for (int c = 0; c < build_rows->nchunks; c++)
			if (build_rows->chunks[c].validity == NULL &&
				build_rows->chunks[c].n > 0)
			{
				gpo_set_detail(ctx, "an anti or left join's build rows need a validity bitmap");
				return GPO_ERR_INVALID;
			}
	if ((st = check_rows_out(ctx, probe_rows, "join probe rows")) != GPO_OK)
		return st;
	if (count == NULL)
	{
		gpo_set_detail(ctx, "join count is NULL");
		return GPO_ERR_INVALID;
	}
	return GPO_OK;
}

/*
 * Each of n probe rows with a NULL build row, into outputs already checked
 * to hold n rows (see gpo_join.h).
 */
void
gpo_join_all_unmatched(gpo_vector *build_rows, gpo_vector *probe_rows,
					   int64_t n)
{
	int64_t		row = 0;

	for (int c = 0; probe_rows && c < probe_rows->nchunks && row < n; c++)
	{
		gpo_chunk  *oc = &probe_rows->chunks[c];

		for (int64_t i = 0; i < oc->n && row < n; i++, row++)
		{
			((int64_t *) oc->data)[i] = row;
			if (oc->validity)
				gpo_bit_put(oc->validity, i, true, true);
		}
	}
	row = 0;
	for (int c = 0; build_rows && c < build_rows->nchunks && row < n; c++)
	{
		gpo_chunk  *oc = &build_rows->chunks[c];

		for (int64_t i = 0; i < oc->n && row < n; i++, row++)
		{
			((int64_t *) oc->data)[i] = 0;
			gpo_bit_put(oc->validity, i, false, true);
		}
	}
}

/* Hash join CPU face (see gpo_join.h); scratch may be NULL (then it is allocated). */
gpo_status
gpo_hash_join_cpu(gpo_ctx *ctx, gpo_join_kind kind,
				  const gpo_vector *build_keys,
				  const gpo_vector *probe_keys, gpo_vector *build_rows,
				  gpo_vector *probe_rows, int64_t *count, void *scratch)
{
	gpo_join_table t;
	gpo_status	st;
	void	   *own = NULL;
	size_t		table_bytes;

	if (ctx == NULL)
		return GPO_ERR_INVALID;
	if ((st = gpo_hash_join_check(ctx, kind, build_keys, probe_keys,
								  build_rows, probe_rows, count)) != GPO_OK)
		return st;
	*count = 0;
	if (gpo_vector_rows(probe_keys) == 0 ||
		(gpo_vector_rows(build_keys) == 0 &&
		 (kind == GPO_JOIN_INNER || kind == GPO_JOIN_SEMI)))
		return GPO_OK;
	table_bytes = join_table_part(build_keys, probe_keys);
	if (scratch == NULL)
	{
		own = scratch = malloc(gpo_hash_join_scratch_bytes(ctx, build_keys,
														   probe_keys,
														   build_rows,
														   probe_rows));
		if (scratch == NULL)
		{
			gpo_set_detail(ctx, "could not allocate hash join scratch");
			return GPO_ERR_NOMEM;
		}
	}
	st = gpo_join_table_build(ctx, build_keys, gpo_vector_rows(probe_keys),
							  scratch, table_bytes, &t);
	if (st == GPO_OK)
		st = gpo_join_table_probe_cpu(ctx, kind, &t, probe_keys, build_rows,
									  probe_rows, count,
									  (char *) scratch + table_bytes);
	free(own);
	return st;
}

/* Hash join dispatcher of any kind (see gpo_join.h). */
gpo_status
gpo_hash_join_kind(gpo_ctx *ctx, gpo_join_kind kind,
				   const gpo_vector *build_keys, const gpo_vector *probe_keys,
				   gpo_vector *build_rows, gpo_vector *probe_rows,
				   int64_t *count, void *scratch, size_t *scratch_bytes)
{
	gpo_status	st;
	gpo_device	face;

	if (!gpo_call_begin(ctx))
		return GPO_ERR_INVALID;
	if ((st = gpo_hash_join_check(ctx, kind, build_keys, probe_keys,
								  build_rows, probe_rows, count)) != GPO_OK)
		return st;
	if (gpo_scratch_phase(ctx, scratch, scratch_bytes,
							 gpo_hash_join_scratch_bytes(ctx, build_keys,
														 probe_keys,
														 build_rows,
														 probe_rows),
							 &st))
		return st;
	if ((st = gpo_pick_face(ctx, gpo_vector_rows(build_keys) +
							   gpo_vector_rows(probe_keys), &face)) != GPO_OK)
		return st;
	if (face == GPO_DEVICE_GPU)
	{
		st = gpo_hash_join_gpu(ctx, kind, build_keys, probe_keys, build_rows,
							   probe_rows, count);
		if (!gpo_gpu_fell_back(ctx, st))
		{
			ctx->used = GPO_DEVICE_GPU;
			return st;
		}
	}
	ctx->used = GPO_DEVICE_CPU;
	return gpo_hash_join_cpu(ctx, kind, build_keys, probe_keys, build_rows,
							 probe_rows, count, scratch);
}

/* Inner hash join dispatcher (see gpo_join.h). */
gpo_status
gpo_hash_join(gpo_ctx *ctx, const gpo_vector *build_keys,
			  const gpo_vector *probe_keys, gpo_vector *build_rows,
			  gpo_vector *probe_rows, int64_t *count, void *scratch,
			  size_t *scratch_bytes)
{
	return gpo_hash_join_kind(ctx, GPO_JOIN_INNER, build_keys, probe_keys,
							  build_rows, probe_rows, count, scratch,
							  scratch_bytes);
}
