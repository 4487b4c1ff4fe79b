/*
 * agg_join_shared.c
 *	  A star join's built tables as worker processes get them
 *	  (agg_parallel.c): the backend copies each dimension's keys and
 *	  gathered columns into shared memory once, and every worker points its
 *	  tables at that copy and builds its join tables over it.
 */
#include "aggnode/exec/gpuops_agg_exec.h"

/* The bytes of a dimension's table's arrays: its keys, then its columns'. */
static Size
gpuops_agg_dim_bytes(const GpuopsAggJoin *j, int d)
{
	const GpuopsAggDim *dim = &j->dims[d];
	Size		n = (Size) dim->nrows;
	Size		bytes = MAXALIGN(gpo_type_size(dim->keyv.type) * n);
	int			g;

	for (g = 0; g < j->ngather; g++)
		if (j->gathers[g].dim == d)
			bytes += MAXALIGN(gpo_type_size(j->gathers[g].type) * n) +
				MAXALIGN((n + 7) / 8);
	return bytes;
}

/* Bytes the built tables take in shared memory (0 without a join). */
Size
gpuops_agg_join_shared_size(const GpuopsAggScanState *s)
{
	const GpuopsAggJoin *j = s->join;
	Size		bytes;
	int			d;

	if (j == NULL)
		return 0;
	bytes = MAXALIGN(sizeof(int64) * j->ndims);
	for (d = 0; d < j->ndims; d++)
		bytes = add_size(bytes, gpuops_agg_dim_bytes(j, d));
	return bytes;
}

/*
 * Copies the built tables to dst (gpuops_agg_join_shared_size bytes), or
 * points s's tables at them (a worker's); each dimension's row count, then
 * its arrays.
 */
static void
gpuops_agg_join_shared(GpuopsAggScanState *s, char *base, bool write)
{
	GpuopsAggJoin *j = s->join;
	int64	   *nrows = (int64 *) base;
	char	   *p = base + MAXALIGN(sizeof(int64) * j->ndims);
	int			d;
	int			g;

	for (d = 0; d < j->ndims; d++)
	{
		GpuopsAggDim *dim = &j->dims[d];
		Size		n;
		Size		w;

		if (write)
			nrows[d] = dim->nrows;
		else
			dim->nrows = nrows[d];
		n = (Size) dim->nrows;
		w = gpo_type_size(dim->keyv.type) * n;
		if (write)
			memcpy(p, dim->keyv.chunks[0].data, w);
		else
			gpuops_one_chunk_vector(&dim->keyv, &dim->keyc, dim->keyv.type, p,
									NULL, dim->nrows);
		p += MAXALIGN(w);
		for (g = 0; g < j->ngather; g++)
		{
			GpuopsAggGather *ga = &j->gathers[g];
			Size		gw = gpo_type_size(ga->type) * n;

			if (ga->dim != d)
				continue;
			if (write)
			{
				memcpy(p, ga->dc.data, gw);
				memcpy(p + MAXALIGN(gw), ga->dc.validity, (n + 7) / 8);
			}
			else
			{
				ga->dc.data = p;
				ga->dc.validity = (uint8 *) (p + MAXALIGN(gw));
				gpuops_one_chunk_vector(&ga->v, &ga->c, ga->type, ga->dc.data,
										ga->dc.validity, dim->nrows);
			}
			p += MAXALIGN(gw) + MAXALIGN((n + 7) / 8);
		}
	}
}

/* Copies the built tables into dst, for the worker processes. */
void
gpuops_agg_join_shared_write(GpuopsAggScanState *s, char *dst)
{
	gpuops_agg_join_shared(s, dst, true);
}

/*
 * A worker's tables: those the backend built, in shared memory at src
 * (read only); the fact's join columns' types as te's.
 */
void
gpuops_agg_join_shared_attach(GpuopsAggScanState *s, GpuopsAggTableExec *te,
							  char *src)
{
	int			d;

	for (d = 0; d < s->join->ndims; d++)
		s->join->dims[d].keyv.type = gpuops_agg_dim_key_type(te, &s->join->dims[d]);
	gpuops_agg_join_shared(s, src, false);
	for (d = 0; d < s->join->ndims; d++)
		gpuops_agg_dim_table(s, &s->join->dims[d]);
	s->join->built = true;
}
