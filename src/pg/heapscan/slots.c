/*
 * slots.c
 *	  The column reader's slot path: any table AM through
 *	  table_scan_getnextslot, the CPU qual on each slot, the needed
 *	  attributes (or their dictionary codes) into the batch.
 */
#include "heapscan/reader_int.h"

#include "access/tableam.h"
#include "executor/executor.h"
#include "executor/tuptable.h"
#include "fmgr.h"
#include "miscadmin.h"

/* Fill the batch from slots; true if the table is exhausted. */
bool
gpuops_scan_next_slot(GpuopsScanReader *r)
{
	GpuopsScanBatch *b = &r->batch;
	TupleTableSlot *slot = r->slot;
	int			ncols = b->ncols;
	int64		since_cfi = 0;

	while (b->nrows < b->capacity)
	{
		int64		row = b->nrows;
		int			c;

		if (++since_cfi >= GPUOPS_SCAN_CFI_ROWS)
		{
			CHECK_FOR_INTERRUPTS();
			since_cfi = 0;
		}
		if (!table_scan_getnextslot(r->scan, ForwardScanDirection, slot))
			return true;
		if (r->qual != NULL)
		{
			bool		keep;

			ResetExprContext(r->econtext);
			r->econtext->ecxt_scantuple = slot;
			keep = ExecQual(r->qual, r->econtext);
			if (!keep)
			{
				r->stats.cpu_filtered++;
				continue;
			}
		}
		slot_getsomeattrs(slot, r->maxatt);
		for (c = 0; c < ncols; c++)
		{
			const GpuopsDecodeCol *dc = &r->dcols[c];

			gpuops_scan_put_value(dc, row, slot->tts_values[dc->attidx],
								  slot->tts_isnull[dc->attidx]);
			if (slot->tts_isnull[dc->attidx])
				b->has_nulls[dc->out] = true;
		}
		b->nrows++;
	}
	return false;
}
