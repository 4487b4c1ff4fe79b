/*
 * text.c
 *	  The column reader's text columns on the page-batch path: the decoding
 *	  threads note where each row's string lies in its pinned page
 *	  (GPUOPS_CONV_TEXT_REF), and before the pages are released the backend
 *	  codes them through the column's encode_many, which may use threads.
 *
 * Late materialisation: a prefilter, if the caller set one, first tells
 * which rows can pass its WHERE clause (from the columns it reads, decoded
 * first: a text column among them, such as a length or a LIKE match, is
 * coded then for every row, late.c); the strings of the rows it drops are
 * neither detoasted nor coded.  A compressed or
 * external string is detoasted here, on the backend's thread, into memory
 * that lives until the next page batch is coded.
 */
#include "heapscan/reader_int.h"

#include "access/detoast.h"
#include "utils/memutils.h"

/* Detoasts the compressed or external strings among n refs (backend only). */
static void
gpuops_scan_detoast_refs(gpo_str *refs, int64 n)
{
	int64		i;

	for (i = 0; i < n; i++)
	{
		struct varlena *v;

		if (refs[i].data == NULL || refs[i].len >= 0)
			continue;
		v = detoast_attr((struct varlena *) refs[i].data);
		refs[i].data = VARDATA_ANY(v);
		refs[i].len = (int32) VARSIZE_ANY_EXHDR(v);
	}
}

/*
 * Codes the text columns among cols[0 .. ncols - 1] over batch rows lo ..
 * lo + n - 1, detoasting into r->text_cxt (reset first).
 */
void
gpuops_scan_code_cols(GpuopsScanReader *r, GpuopsDecodeCol *cols, int ncols,
					  int64 lo, int64 n)
{
	MemoryContext old;
	int			c;

	if (n <= 0 || !r->text)
		return;					/* (no text column, no text_cxt) */
	MemoryContextReset(r->text_cxt);
	old = MemoryContextSwitchTo(r->text_cxt);
	for (c = 0; c < ncols; c++)
	{
		GpuopsDecodeCol *dc = &cols[c];

		if (dc->conv != GPUOPS_CONV_TEXT_REF)
			continue;
		gpuops_scan_detoast_refs(dc->refs + lo, n);
		dc->encode_many(dc->encode_arg, r->plan.nthreads, n, dc->refs + lo,
						(int32 *) dc->data + lo);
	}
	MemoryContextSwitchTo(old);
}

/* Codes the text columns of batch rows lo .. lo + n - 1 (see reader_int.h). */
void
gpuops_scan_code_text(GpuopsScanReader *r, int64 lo, int64 n)
{
	gpuops_scan_code_cols(r, r->dcols, r->batch.ncols, lo, n);
}
