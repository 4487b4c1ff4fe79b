/*
 * agg_parallel_msg.c
 *	  A piece of a worker's groups as one shared memory queue message: the
 *	  worker writes it from its arrays in place (shm_mq_sendv), the backend
 *	  copies it once and reads the arrays from that copy.
 *
 * The message is the header (GpuopsParallelHeader), then each key's codes
 * and validity bytes (and, for a key of the worker's own text codes, the
 * size of its strings message and that message, agg_parallel_text.c), the
 * row counts, and per value column its counts, integer sums, float sums,
 * minimums, maximums, non-finite flags and m2 (gpo_agg_out's arrays), each
 * part starting at a multiple of 16 bytes.  A piece past a message's bytes
 * of groups (gpuops_parallel_send_piece) goes as several, each merged on
 * its own.  One message a piece lets the backend take pieces from all its
 * workers as they come (agg_parallel.c): with a series of messages a
 * piece, worker after worker, each worker waited for the ones before it,
 * and GROUP BY url over 10M rows spent 192 of its 685 ms with 8 workers
 * passing their pieces through the queues (H100 machine, 16 cores).
 */
#include "aggnode/exec/agg_parallel.h"

#include "storage/shm_mq.h"

/* Bytes of groups a message takes at most. */
#define GPUOPS_MSG_MOST ((Size) 64 * 1024 * 1024)

/* Parts start at multiples of this (the int128 sums). */
#define GPUOPS_MSG_ALIGN 16

/* The parts of one message, each padded to GPUOPS_MSG_ALIGN. */
typedef struct GpuopsMsgParts
{
	shm_mq_iovec *iov;			/* [2 * most]: each part and its padding */
	int			n;
	int			most;
} GpuopsMsgParts;

/* Zeros for padding. */
static const char gpuops_msg_pad[GPUOPS_MSG_ALIGN];

/* Adds bytes at p as a part of the message, then its padding. */
static void
gpuops_msg_add(GpuopsMsgParts *m, const void *p, Size bytes)
{
	Size		pad = TYPEALIGN(GPUOPS_MSG_ALIGN, bytes) - bytes;

	if (m->n + 2 > 2 * m->most)
		elog(ERROR, "GpuOpsAgg worker's groups have too many parts to send");
	if (bytes > 0)
	{
		m->iov[m->n].data = p;
		m->iov[m->n++].len = bytes;
	}
	if (pad > 0)
	{
		m->iov[m->n].data = gpuops_msg_pad;
		m->iov[m->n++].len = pad;
	}
}

/*
 * Sends groups from .. from + n - 1 of st as one message (see the file
 * header), with s's counts when first; last: none follow.
 */
static void
gpuops_parallel_send_slice(shm_mq_handle *mqh, GpuopsAggScanState *s,
						   const GpuopsAggState *st, int64 from, Size n,
						   bool first, bool last)
{
	GpuopsParallelHeader h;
	GpuopsMsgParts m;
	Size		sbytes[GPUOPS_AGG_MAX_KEYS];
	char	   *strings[GPUOPS_AGG_MAX_KEYS];
	shm_mq_result res;
	int			k;
	int			v;

	memset(&h, 0, sizeof(h));
	h.ngroups = (int64) n;
	h.nkeys = st->nkeys;
	h.nvals = st->nvals;
	h.last = last;
	if (first)
	{
		h.rows_in = s->rows_in;
		h.cached_rows = s->cached_rows;
		h.rows_passed = s->rows_passed;
		h.early_filtered = s->early_filtered;
		h.batches = s->batches;
		h.bytes_in = s->bytes_in;
		h.cpu_calls = s->cpu_calls;
		h.fast_read = s->fast_read;
		h.slot_read = s->slot_read;
		for (k = 0; s->join && k < s->join->ndims; k++)
			h.join_matched[k] = s->join->dims[k].matched;
	}
	if (last)
	{
		h.spill_runs = s->groups.spill_runs;
		h.spill_bytes = s->groups.spill_bytes;
		h.spill_passes = s->groups.spill_passes;
	}
	m.n = 0;
	m.most = 2 + 4 * st->nkeys + 7 * st->nvals;
	m.iov = palloc(sizeof(shm_mq_iovec) * 2 * m.most);
	memset(strings, 0, sizeof(strings));
	gpuops_msg_add(&m, &h, sizeof(h));
	for (k = 0; n > 0 && k < st->nkeys; k++)
	{
		gpuops_msg_add(&m, st->key_codes[k] + from, sizeof(uint64) * n);
		gpuops_msg_add(&m, st->key_valid[k] + from, n);
		if (gpuops_agg_key_own_codes(s, &s->tables[0], k))
		{
			/* the codes are this process's own: its new strings */
			strings[k] = gpuops_parallel_strings_pack(s->spec.key_dicts[k],
													  &s->dict_sent[k],
													  &sbytes[k]);
			gpuops_msg_add(&m, &sbytes[k], sizeof(Size));
			gpuops_msg_add(&m, strings[k], sbytes[k]);
		}
	}
	if (n > 0)
		gpuops_msg_add(&m, st->rows + from, sizeof(int64) * n);
	for (v = 0; n > 0 && v < st->nvals; v++)
	{
		const gpo_agg_out *o = &st->vals[v];
		size_t		w = gpo_type_size(st->val_types[v]);

		gpuops_msg_add(&m, o->count + from, sizeof(int64) * n);
		gpuops_msg_add(&m, o->isum + from, sizeof(gpo_int128) * n);
		gpuops_msg_add(&m, o->fsum + from, sizeof(double) * n);
		gpuops_msg_add(&m, (char *) o->min + w * from, w * n);
		gpuops_msg_add(&m, (char *) o->max + w * from, w * n);
		gpuops_msg_add(&m, o->fflags + from, n);
		gpuops_msg_add(&m, o->m2 + from, sizeof(double) * n);
	}
	res = shm_mq_sendv(mqh, m.iov, m.n, false, true);
	if (res != SHM_MQ_SUCCESS)
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("GpuOpsAgg worker could not send its groups to the backend")));
	for (k = 0; k < st->nkeys; k++)
		if (strings[k] != NULL)
			pfree(strings[k]);
	pfree(m.iov);
}

/*
 * Sends the groups of st (sorted by key) as one message, or as several of
 * at most most bytes of groups, at most gpuops.chunk_size and at most
 * GPUOPS_MSG_MOST (a queue takes no message past 1 GB, and the backend
 * holds a message twice while it copies it; gpuops.debug_chunk_size makes
 * the tests send many), with s's counts in the first; last: no groups
 * follow the last.  Each message past the first is merged on its own, at
 * the cost of a pass over the backend's groups.
 */
void
gpuops_parallel_send_piece(shm_mq_handle *mqh, GpuopsAggScanState *s,
						   const GpuopsAggState *st, Size most, bool first,
						   bool last)
{
	Size		per = gpuops_aggstate_group_bytes(st);
	int64		slice;
	int64		from = 0;

	most = Min(most, Min(GPUOPS_MSG_MOST, (Size) Max(gpuops_chunk_size, 1)));
	slice = Max((int64) (most / Max(per, 1)), 1);

	do
	{
		int64		n = Min(slice, st->ngroups - from);

		gpuops_parallel_send_slice(mqh, s, st, from, (Size) n, first,
								   last && from + n >= st->ngroups);
		first = false;
		from += n;
	} while (from < st->ngroups);
}

/* Reads the message's next part of bytes bytes, at *at of total. */
static char *
gpuops_msg_take(char *base, Size total, Size *at, Size bytes)
{
	char	   *p = base + *at;

	if (bytes > total - *at)
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("GpuOpsAgg worker sent a short piece of groups")));
	*at += Min(TYPEALIGN(GPUOPS_MSG_ALIGN, bytes), total - *at);
	return p;
}

/*
 * Reads a piece from a message of bytes bytes at data, whose arrays p
 * points to; nkeys, nvals and val_types are the backend's.  own[k]: key k
 * holds the worker's own text codes, a strings message follows its
 * validity.  in_place: data is the backend's own memory, kept until the
 * piece is merged (a message larger than its queue, which shm_mq
 * assembles in the receiver's buffer; copying 15 workers' URL pieces
 * again cost the backend some 225 MB of copies, NVIDIA H100 machine); else
 * (the queue may reuse it) a copy in the current memory context.
 */
void
gpuops_parallel_read_piece(void *data, Size bytes, bool in_place, int nkeys,
						   int nvals, const gpo_type *val_types,
						   const bool *own, GpuopsParallelPiece *p)
{
	char	   *base = (char *) data;
	Size		at = 0;
	Size		n;
	int			k;
	int			v;

	memset(p, 0, sizeof(*p));
	/* the parts are aligned to GPUOPS_MSG_ALIGN within the message */
	if (!in_place || (uintptr_t) base % MAXIMUM_ALIGNOF != 0)
	{
		base = palloc_extended(bytes + GPUOPS_MSG_ALIGN, MCXT_ALLOC_HUGE);
		base = (char *) TYPEALIGN(GPUOPS_MSG_ALIGN, base);
		memcpy(base, data, bytes);
	}
	memcpy(&p->h, gpuops_msg_take(base, bytes, &at, sizeof(p->h)), sizeof(p->h));
	if (p->h.nkeys != nkeys || p->h.nvals != nvals || p->h.ngroups < 0)
		elog(ERROR, "GpuOpsAgg worker sent groups of another shape");
	n = (Size) p->h.ngroups;
	if (n == 0)
		return;
	for (k = 0; k < nkeys; k++)
	{
		p->codes[k] = (uint64 *) gpuops_msg_take(base, bytes, &at, sizeof(uint64) * n);
		p->valid[k] = (uint8 *) gpuops_msg_take(base, bytes, &at, n);
		if (own[k])
		{
			memcpy(&p->strings_bytes[k],
				   gpuops_msg_take(base, bytes, &at, sizeof(Size)), sizeof(Size));
			p->strings[k] = gpuops_msg_take(base, bytes, &at, p->strings_bytes[k]);
		}
	}
	p->rows = (int64 *) gpuops_msg_take(base, bytes, &at, sizeof(int64) * n);
	p->vals = palloc0(sizeof(gpo_agg_out) * Max(nvals, 1));
	for (v = 0; v < nvals; v++)
	{
		gpo_agg_out *o = &p->vals[v];
		size_t		w = gpo_type_size(val_types[v]);

		o->capacity = p->h.ngroups;
		o->count = (int64_t *) gpuops_msg_take(base, bytes, &at, sizeof(int64) * n);
		o->isum = (gpo_int128 *) gpuops_msg_take(base, bytes, &at, sizeof(gpo_int128) * n);
		o->fsum = (double *) gpuops_msg_take(base, bytes, &at, sizeof(double) * n);
		o->min = gpuops_msg_take(base, bytes, &at, w * n);
		o->max = gpuops_msg_take(base, bytes, &at, w * n);
		o->fflags = (uint8_t *) gpuops_msg_take(base, bytes, &at, n);
		o->m2 = (double *) gpuops_msg_take(base, bytes, &at, sizeof(double) * n);
	}
	if (at != bytes)
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("GpuOpsAgg worker sent a piece of groups of the wrong size")));
}
