/*
 * staging.c
 *	  The column reader's batch arrays for the GPU: a second set, so that a
 *	  batch's arrays stay untouched while the next one is read, and
 *	  page-locking, so that the GPU faces copy them to the device directly.
 */
#include "heapscan/reader_int.h"

#include "utils/memutils.h"

/* Exchanges the batch's arrays with the second set, for the decoders too. */
void
gpuops_scan_swap_buffers(GpuopsScanReader *r)
{
	GpuopsScanBatch *b = &r->batch;
	int			i;

	for (i = 0; i < b->ncols; i++)
	{
		void	   *data = b->data[i];
		uint8	   *validity = b->validity[i];

		b->data[i] = r->data2[i];
		b->validity[i] = r->validity2[i];
		r->data2[i] = data;
		r->validity2[i] = validity;
	}
	for (i = 0; i < b->ncols; i++)
	{
		GpuopsDecodeCol *dc = &r->dcols[i];

		dc->data = b->data[dc->out];
		dc->validity = b->validity[dc->out];
	}
	gpuops_scan_late_arrays(r);
}

/*
 * Gives the reader a second set of batch arrays: each gpuops_scan_next then
 * fills the set the call before did not, so the caller may go on reading a
 * batch's arrays (from another thread, say) until the call after next.
 */
void
gpuops_scan_double_buffer(GpuopsScanReader *r)
{
	GpuopsScanBatch *b = &r->batch;
	int			i;

	if (r->data2 != NULL)
		return;
	r->data2 = palloc0(sizeof(void *) * Max(b->ncols, 1));
	r->validity2 = palloc0(sizeof(uint8 *) * Max(b->ncols, 1));
	for (i = 0; i < b->ncols; i++)
	{
		r->data2[i] = palloc_extended(b->capacity * gpo_type_size(r->col_types[i]),
									  MCXT_ALLOC_HUGE);
		r->validity2[i] = palloc_extended((b->capacity + 7) / 8, MCXT_ALLOC_HUGE);
	}
}

/* Unlocks page-locked batch arrays (reset callback, and at the end). */
void
gpuops_scan_unlock_arrays(void *arg)
{
	GpuopsLockedArrays *la = (GpuopsLockedArrays *) arg;
	int			i;

	for (i = 0; i < la->n; i++)
		gpo_host_unregister(la->arrays[i]);
	la->n = 0;
}

/*
 * Page-locks the batch's value arrays (both sets, after
 * gpuops_scan_double_buffer) so that the GPU faces copy them to the device
 * directly, without a host copy into their staging buffers; an array that
 * can't be locked goes through staging as before.  The arrays are unlocked
 * before they are freed, also when an error frees them.
 */
void
gpuops_scan_lock_arrays(GpuopsScanReader *r)
{
	GpuopsScanBatch *b = &r->batch;
	MemoryContext cxt;
	GpuopsLockedArrays *la;
	size_t		bytes;
	int			i;

	if (r->locked != NULL || b->ncols == 0)
		return;
	cxt = GetMemoryChunkContext(b->data[0]);
	la = MemoryContextAllocZero(cxt, offsetof(GpuopsLockedArrays, arrays) +
								sizeof(void *) * 2 * b->ncols);
	la->unlock.func = gpuops_scan_unlock_arrays;
	la->unlock.arg = la;
	MemoryContextRegisterResetCallback(cxt, &la->unlock);
	r->locked = la;
	for (i = 0; i < b->ncols; i++)
	{
		bytes = b->capacity * gpo_type_size(r->col_types[i]);
		if (gpo_host_register(b->data[i], bytes))
			la->arrays[la->n++] = b->data[i];
		if (r->data2 != NULL && gpo_host_register(r->data2[i], bytes))
			la->arrays[la->n++] = r->data2[i];
	}
}
