/*
 * gpuops_scan.h
 *	  The column reader: fixed-width columns of one table -> column batches.
 *
 * Two paths behind one API.  The fast path (heap tables, no CPU qual, not
 * SERIALIZABLE, an MVCC snapshot) pins a batch of heap pages, decides
 * visibility under each buffer's share lock as heap's page-at-a-time mode
 * does, and then decodes the needed attributes of the visible tuples
 * straight out of the pinned pages with OpenMP threads (decode.c).
 * The slot path reads any table AM through table_scan_getnextslot and
 * evaluates the CPU qual, if any, on each slot.  Both deliver the same rows
 * (in block order on the fast path; the slot path may start a synchronized
 * scan in mid-table).
 */
#ifndef GPUOPS_SCAN_H
#define GPUOPS_SCAN_H

#include "common/gpuops.h"				/* postgres.h + gpo.h */
#include "common/numeric_scaled.h"
#include "gpo_strdict.h"

#include "access/htup_details.h"
#include "access/relscan.h"
#include "nodes/execnodes.h"
#include "utils/rel.h"
#include "utils/snapshot.h"

/* One column the reader extracts. */
/*
 * Maps a column's non-NULL value to an int32 code (a dictionary, for
 * varlena grouping keys); called by the backend, on the slot path only.
 */
typedef int32 (*GpuopsScanEncode) (void *arg, Datum value);

/*
 * Maps n strings (data NULL: no string, code 0) to int32 codes, as
 * GpuopsScanEncode does one value (the same arg); called by the backend on
 * the page-batch path, with up to nthreads OpenMP threads of its own.  The
 * strings lie in pinned pages, valid during the call only.
 */
typedef void (*GpuopsScanEncodeMany) (void *arg, int nthreads, int64 n,
									  const gpo_str *strs, int32 *codes);

typedef struct GpuopsScanCol
{
	AttrNumber	attnum;			/* 1-based column of the relation */
	Oid			typid;			/* its type: int2, int4, date, bool -> INT32;
								 * int8, timestamp, timestamptz -> INT64;
								 * float4 -> FLOAT32; float8 -> FLOAT64; any
								 * type when encode is set */
	gpo_type	type;			/* the physical type the batch holds (set by
								 * the caller with gpuops_scan_col_type;
								 * INT32 when encode is set) */
	GpuopsScanEncode encode;	/* NULL, or the code of each value: the
								 * table is then read through slots */
	void	   *encode_arg;
	GpuopsScanEncodeMany encode_many;	/* NULL, or the codes of many
										 * strings (a text column): the page
										 * batches then read the column */
	bool		presence;		/* only whether each value is NULL: any
								 * type, as INT32 1, NULL where it is */
} GpuopsScanCol;

/*
 * A batch of rows: one array per column, owned by the reader, reused by every
 * call of gpuops_scan_next.
 */
typedef struct GpuopsScanBatch
{
	int			ncols;
	int64		capacity;		/* rows each array can hold */
	int64		nrows;			/* rows filled by the last gpuops_scan_next */
	void	  **data;			/* [ncols] arrays of capacity values of the
								 * column's gpo_type; NULL rows hold 0 */
	uint8	  **validity;		/* [ncols] bitmaps of capacity bits (bit set =
								 * not NULL, LSB first, like
								 * gpo_chunk.validity) */
	bool	   *has_nulls;		/* [ncols] true if some row of this batch is
								 * NULL (validity is valid either way) */
} GpuopsScanBatch;

typedef struct GpuopsScanStats
{
	bool		fast;			/* page batches (true) or slots (false) */
	int64		pages;			/* heap pages read (fast path) */
	int64		tuples;			/* rows delivered */
	int64		cpu_filtered;	/* rows removed by the CPU qual (slot path) */
	double		read_ms;		/* time spent reading/decoding */
	double		pin_ms;			/* of which the backend alone pinned pages
								 * and copied their line pointers */
	int64		source_rows;	/* rows of them a block source served */
	int64		source_blocks;	/* blocks it served */
	int64		prefiltered;	/* rows the prefilter dropped (not delivered) */
} GpuopsScanStats;

typedef struct GpuopsScanReader GpuopsScanReader;

/*
 * A source of rows already decoded for some of the relation's blocks (the
 * column cache): the fast path takes those blocks from it instead of
 * pinning them.  has_block is a hint, asked while the blocks are handed
 * out; serve decides under its own lock, appending to the batch the rows
 * of blocks[0 ..] in order, whole blocks only, while they fit; a block it
 * can no longer serve goes to missed[*nmissed++] (the fast path then reads
 * it from the heap).  serve returns how many blocks it consumed (served or
 * missed) and adds the rows it appended to *rows; NULL rows' validity bits
 * cleared and has_nulls set, as the decoders do.  Both run on the backend's
 * own thread.
 */
typedef struct GpuopsScanSource
{
	bool		(*has_block) (void *arg, BlockNumber blkno);
	int			(*serve) (void *arg, const BlockNumber *blocks, int nblocks,
						  struct GpuopsScanBatch *batch, BlockNumber *missed,
						  int *nmissed, int64 *rows);
	void	   *arg;
} GpuopsScanSource;

/*
 * A test of rows before they are decoded in full (late materialisation):
 * fills keep[0 .. n - 1] (1: the row may pass the caller's WHERE) for batch
 * rows lo .. lo + n - 1, from the early columns (gpuops_scan_set_prefilter)
 * decoded there; the other columns' values there are undefined.  The rows
 * it drops never reach a batch.  Backend only.
 */
typedef void (*GpuopsScanPrefilter) (void *arg, const struct GpuopsScanBatch *batch,
									 int64 lo, int64 n, uint8 *keep);

/* The physical batch type of a column type, or false if the reader can't extract it. */
extern bool gpuops_scan_col_type(Oid typid, gpo_type *type);
/*
 * gpuops_scan_col_type for a column of type typid and typmod: also
 * numeric(p, s) with 0 <= s <= p <= 18, read as scaled int64
 * (numeric_scaled.h).
 */
extern bool gpuops_scan_col_type_mod(Oid typid, int32 typmod, gpo_type *type);

/*
 * Starts reading cols of rel under snapshot in batches of batch_rows;
 * cpu_qual (may be NULL) is evaluated in econtext on the slot path;
 * allow_fast false forces the slot path.  Memory in CurrentMemoryContext.
 */
extern GpuopsScanReader *gpuops_scan_begin(Relation rel, Snapshot snapshot,
										   int ncols, const GpuopsScanCol *cols,
										   int64 batch_rows,
										   ExprState *cpu_qual,
										   ExprContext *econtext,
										   bool allow_fast, int nthreads);
/* Fills the next batch (reader-owned, returned in *batch); false (and nrows 0) when the table is exhausted. */
extern bool gpuops_scan_next(GpuopsScanReader *r, GpuopsScanBatch **batch);
/* Restarts from the first block (for rescans). */
extern void gpuops_scan_rescan(GpuopsScanReader *r);
/* The reader's counters so far. */
extern const GpuopsScanStats *gpuops_scan_stats(const GpuopsScanReader *r);
/* Releases pins, ends the table scan and frees the batch. */
extern void gpuops_scan_end(GpuopsScanReader *r);
/*
 * A second set of batch arrays: each gpuops_scan_next fills the set the call
 * before did not, so a batch's arrays stay untouched until the call after next.
 */
extern void gpuops_scan_double_buffer(GpuopsScanReader *r);
/*
 * Makes the fast path read only the blocks a block-parallel scan shared with
 * other processes hands out; false on the slot path (which reads them all).
 */
extern bool gpuops_scan_set_parallel(GpuopsScanReader *r,
									 ParallelBlockTableScanDesc pscan);
/*
 * Makes the fast path take the blocks src has from it (the reader keeps
 * the pointer); false on the slot path.
 */
extern bool gpuops_scan_set_source(GpuopsScanReader *r,
								   const GpuopsScanSource *src);
/*
 * Decodes every tuple of blocks lo .. hi - 1 into the batch (rows from 0),
 * when each of those pages is all-visible (then every snapshot sees exactly
 * those tuples): row_end[i] gets the rows of blocks lo .. lo + i.  False
 * (nothing usable) if a page is not all-visible, or the batch can't hold
 * the rows, or a value (a numeric) the batch can't hold.  The rows are in
 * *batch.  Fast path only.
 */
extern bool gpuops_scan_read_all_visible(GpuopsScanReader *r, BlockNumber lo,
										 BlockNumber hi, int64 *row_end,
										 GpuopsScanBatch **batch);
/*
 * Makes the page batches decode the nearly batch columns early[] first,
 * test the rows with fn, and decode the rest (and code the text columns)
 * of the rows it keeps only: the batches then hold those rows alone
 * (late materialisation, late.c).  No effect on the slot path, nor where
 * it would not pay: every column read at a fixed offset and no text, or
 * the early columns are all of them, or one is a text column.
 */
extern void gpuops_scan_set_prefilter(GpuopsScanReader *r,
									  GpuopsScanPrefilter fn, void *arg,
									  int nearly, const int *early);
/* Lowers the fast path's decoding threads to at most nthreads. */
extern void gpuops_scan_limit_threads(GpuopsScanReader *r, int nthreads);
/* The buffers this backend remembers for the reader's relation, or NULL. */
extern const Buffer *gpuops_scan_recent_bufs(const GpuopsScanReader *r,
											 BlockNumber *nblocks);
/* Makes the fast path pin through another process's remembered buffers. */
extern void gpuops_scan_use_recent(GpuopsScanReader *r, Buffer *bufs,
								   BlockNumber nblocks);
/* gpuops.pin_ahead: the fast path pins the next page batch during decoding. */
extern bool gpuops_pin_ahead;
/* Defines the reader's settings (gpuops.pin_ahead). */
extern void gpuops_scan_settings_init(void);
/*
 * Page-locks the batch's value arrays (after gpuops_scan_double_buffer, if
 * any) for direct copies to the GPU; unlocked at gpuops_scan_end, or when
 * their memory goes.
 */
extern void gpuops_scan_lock_arrays(GpuopsScanReader *r);

/*
 * ---- internal: shared by reader.c and decode.c ----
 */

/* How a stored value becomes a batch value. */
typedef enum GpuopsScanConv
{
	GPUOPS_CONV_INT16_INT32,	/* int2 -> int32 */
	GPUOPS_CONV_INT32,			/* int4, date -> int32 */
	GPUOPS_CONV_INT64,			/* int8, timestamp, timestamptz -> int64 */
	GPUOPS_CONV_FLOAT32,		/* float4 -> float32 */
	GPUOPS_CONV_FLOAT64,		/* float8 -> float64 */
	GPUOPS_CONV_BOOL_INT32,		/* bool -> int32 (0/1) */
	GPUOPS_CONV_BOOL_UINT8,		/* bool -> uint8 (0/1) */
	GPUOPS_CONV_NUMERIC,		/* numeric(p, s) -> int64 value * 10^s
								 * (numeric_scaled.h) */
	GPUOPS_CONV_SHORT_TEXT,		/* text, varchar, bpchar of at most
								 * GPUOPS_SCAN_SHORT_TEXT_BYTES bytes ->
								 * int64 code (gpuops_scan_short_text_code) */
	GPUOPS_CONV_ENCODE,			/* any type -> int32 through a callback */
	GPUOPS_CONV_TEXT_REF,		/* text, varchar, bpchar -> int32 code: the
								 * decoders note where each string is, and
								 * the backend codes them (encode_many)
								 * while the pages are pinned */
	GPUOPS_CONV_PRESENCE		/* any type -> int32 1 (its NULLs alone
								 * matter: count) */
} GpuopsScanConv;

/* Most bytes of a text value that an int64 code holds. */
#define GPUOPS_SCAN_SHORT_TEXT_BYTES 7

/*
 * The int64 code of a string of len (<= 7) bytes: their big-endian value
 * times 8, plus len.  Equal strings have equal codes and only they (no
 * string holds a zero byte), so the code can stand for a grouping key
 * under a deterministic collation; a char(1) of one byte gets a code below
 * 2048.  No PostgreSQL calls: any thread.
 */
static inline int64
gpuops_scan_short_text_code(const char *data, int len)
{
	uint64		v = 0;
	int			i;

	for (i = 0; i < len; i++)
		v = (v << 8) | (uint8) data[i];
	return (int64) ((v << 3) | (uint64) len);
}

/* The string (text, varchar and bpchar alike) of a short text code. */
extern Datum gpuops_scan_short_text_datum(int64 code);

/* How a value of typid is stored as type (an error if it can't be). */
extern GpuopsScanConv gpuops_scan_conv(Oid typid, gpo_type type);

/* One extracted column, as the decoders see it. */
typedef struct GpuopsDecodeCol
{
	int			attidx;			/* 0-based attribute */
	GpuopsScanConv conv;
	GpuopsScanEncode encode;	/* GPUOPS_CONV_ENCODE */
	void	   *encode_arg;
	GpuopsScanEncodeMany encode_many;	/* GPUOPS_CONV_TEXT_REF */
	gpo_str    *refs;			/* GPUOPS_CONV_TEXT_REF: [capacity] each
								 * row's string (data NULL: NULL; len -1:
								 * data is a compressed or external datum) */
	int			scale;			/* GPUOPS_CONV_NUMERIC: the column's scale */
	bool	   *unfit;			/* NUMERIC, SHORT_TEXT: set when a value
								 * can't be held (the reader's flag) */
	void	   *data;			/* the batch's value array */
	uint8	   *validity;		/* the batch's validity bitmap */
	int			out;			/* index of the batch column */
	bool		miss_null;		/* value of a tuple with fewer attributes */
	Datum		miss_value;		/* (precomputed from constr->missing) */
} GpuopsDecodeCol;

/*
 * One step of the decoder's walk over a tuple without NULLs (walk.c): one
 * attribute (len its attlen), or a run of fixed-width attributes no column
 * needs (len 0), spanning span[off % 8] bytes from offset off.
 */
typedef struct GpuopsWalkStep
{
	int16		len;			/* attlen, or 0 for a run */
	char		align;			/* attalign of one attribute */
	int16		col;			/* first needed column in the plan's cols */
	int16		ncol;			/* needed columns of this attribute */
	int32		span[8];		/* a run's bytes by start offset modulo 8 */
} GpuopsWalkStep;

/*
 * What the page decoder needs of the tuple descriptor, copied out of it
 * before any parallel region: attributes 0 .. natts - 1 (the highest needed
 * one last), and the columns sorted by attribute.
 */
typedef struct GpuopsDecodePlan
{
	int			ncols;
	GpuopsDecodeCol *cols;		/* [ncols], sorted by attidx */
	int			natts;			/* highest needed attidx + 1 */
	int16	   *attlen;			/* [natts] */
	char	   *attalign;		/* [natts] */
	int32	   *fixoff;			/* [natts] offset when every earlier
								 * attribute is fixed-width and not NULL, or
								 * -1 (attcacheoff, computed privately) */
	bool		all_fixed;		/* every needed attribute has a fixoff */
	GpuopsWalkStep *steps;		/* [nsteps] the walk over atts 0 .. natts - 1 */
	int			nsteps;
	int			walk_lines;		/* cache lines past a tuple's header the
								 * walk is expected to read (prefetched) */
	int			nthreads;		/* OpenMP threads for decoding */
	bool	   *seen;			/* [nthreads * seen_stride] NULL-seen flags */
	int			seen_stride;
} GpuopsDecodePlan;

/* Fill plan's walk steps (walk.c). */
extern void gpuops_walk_init(GpuopsDecodePlan *plan);

/* Fill plan for the sorted columns cols of a relation with descriptor desc. */
extern void gpuops_decode_plan_init(GpuopsDecodePlan *plan, TupleDesc desc,
									int ncols, GpuopsDecodeCol *cols,
									int nthreads);
/*
 * Decode ntups visible tuples (headers inside pinned pages) into batch rows
 * out_row .. out_row + ntups - 1; the validity bits of those rows must be set
 * beforehand (only NULLs clear theirs).  The decoding threads only read and
 * write memory; beside (may be NULL) runs on the calling thread inside the
 * parallel region, before it joins them, and must not raise an ERROR.
 */
extern void gpuops_decode_tuples(GpuopsDecodePlan *plan,
								 HeapTupleHeader const *tups, int64 ntups,
								 GpuopsScanBatch *batch, int64 out_row,
								 void (*beside) (void *), void *arg);

/* Which buffer last held each block of one relation (recent.c). */
typedef struct GpuopsRecentBuffers
{
	RelFileNode node;			/* the relation's file (none when unused) */
	BlockNumber nblocks;		/* entries in bufs */
	Buffer	   *bufs;			/* [nblocks] in TopMemoryContext */
	uint64		last_use;
} GpuopsRecentBuffers;

/*
 * The remembered buffers of rel's main fork, covering at least nblocks
 * blocks, or NULL for a relation too large or in local buffers.
 */
extern GpuopsRecentBuffers *gpuops_recent_buffers(Relation rel,
												  BlockNumber nblocks);

/*
 * The share (0 .. 1) of relid's first nblocks blocks in shared buffers now,
 * from a sample (resident.c).
 */
extern double gpuops_resident_share(Oid relid, BlockNumber nblocks);

/*
 * One pinned page of a page batch: its line pointers as they were under the
 * share lock (all of them on an all-visible page, else only those of the
 * visible tuples), copied into the batch's line pointer array.
 */
typedef struct GpuopsPageRef
{
	const char *page;
	int32		lp_start;		/* first of its line pointers in the copy */
	int32		nlp;			/* how many */
} GpuopsPageRef;

/*
 * The tuple headers of the normal line pointers of npages pages, in page
 * and line pointer order, into tups; returns how many.  Pure memory reads
 * in the parallel region.
 */
extern int64 gpuops_decode_record(const GpuopsDecodePlan *plan,
								  const GpuopsPageRef *pages, int npages,
								  const ItemIdData *lps, int64 *page_first,
								  HeapTupleHeader *tups);

/* Store a Datum of a column's type as the batch value of row (no PostgreSQL calls). */
static inline void
gpuops_scan_put_datum(GpuopsScanConv conv, void *data, int64 row, Datum d)
{
	switch (conv)
	{
		case GPUOPS_CONV_INT16_INT32:
			((int32 *) data)[row] = DatumGetInt16(d);
			break;
		case GPUOPS_CONV_INT32:
			((int32 *) data)[row] = DatumGetInt32(d);
			break;
		case GPUOPS_CONV_INT64:
			((int64 *) data)[row] = DatumGetInt64(d);
			break;
		case GPUOPS_CONV_FLOAT32:
			((float4 *) data)[row] = DatumGetFloat4(d);
			break;
		case GPUOPS_CONV_FLOAT64:
			((float8 *) data)[row] = DatumGetFloat8(d);
			break;
		case GPUOPS_CONV_BOOL_INT32:
			((int32 *) data)[row] = DatumGetBool(d) ? 1 : 0;
			break;
		case GPUOPS_CONV_BOOL_UINT8:
			((uint8 *) data)[row] = DatumGetBool(d) ? 1 : 0;
			break;
		case GPUOPS_CONV_PRESENCE:
			((int32 *) data)[row] = 1;
			break;
		case GPUOPS_CONV_NUMERIC:	/* gpuops_scan_put_numeric */
		case GPUOPS_CONV_SHORT_TEXT:	/* gpuops_scan_put_short_text */
		case GPUOPS_CONV_TEXT_REF:	/* gpuops_scan_put_text_ref */
		case GPUOPS_CONV_ENCODE:
			break;				/* the slot path calls the encoder itself */
	}
}

/*
 * Store the string datum at p as its short text code; a compressed or
 * external datum, or one longer than GPUOPS_SCAN_SHORT_TEXT_BYTES, sets
 * *dc->unfit (no PostgreSQL calls: any thread).
 */
static inline void
gpuops_scan_put_short_text(const GpuopsDecodeCol *dc, int64 row, const void *p)
{
	int64		code = 0;

	if (VARATT_IS_EXTERNAL(p) || VARATT_IS_COMPRESSED(p) ||
		VARSIZE_ANY_EXHDR(p) > GPUOPS_SCAN_SHORT_TEXT_BYTES)
		__atomic_store_n(dc->unfit, true, __ATOMIC_RELAXED);
	else
		code = gpuops_scan_short_text_code(VARDATA_ANY(p),
										   (int) VARSIZE_ANY_EXHDR(p));
	((int64 *) dc->data)[row] = code;
}

/*
 * Note where the string datum at p is, for the backend to code it: its
 * bytes, or (len -1) the datum itself when it is compressed or external
 * (no PostgreSQL calls: any thread).
 */
static inline void
gpuops_scan_put_text_ref(const GpuopsDecodeCol *dc, int64 row, const void *p)
{
	gpo_str    *s = &dc->refs[row];

	if (VARATT_IS_EXTERNAL(p) || VARATT_IS_COMPRESSED(p))
	{
		s->data = (const char *) p;
		s->len = -1;
	}
	else
	{
		s->data = VARDATA_ANY(p);
		s->len = (int32) VARSIZE_ANY_EXHDR(p);
	}
}

/*
 * Store the numeric datum at p (not compressed nor external) as the scaled
 * batch value of row; a value the engine can't hold sets *dc->unfit (no
 * PostgreSQL calls: any thread).
 */
static inline void
gpuops_scan_put_numeric(const GpuopsDecodeCol *dc, int64 row, const void *p)
{
	int64		v;

	if (gpuops_numeric_scaled(p, dc->scale, &v) == GPUOPS_NUMERIC_UNFIT)
		__atomic_store_n(dc->unfit, true, __ATOMIC_RELAXED);
	((int64 *) dc->data)[row] = v;
}

/* Store a NULL as the batch value of row: 0, validity bit cleared. */
static inline void
gpuops_scan_put_null(const GpuopsDecodeCol *dc, int64 row)
{
	switch (dc->conv)
	{
		case GPUOPS_CONV_INT16_INT32:
		case GPUOPS_CONV_INT32:
		case GPUOPS_CONV_BOOL_INT32:
		case GPUOPS_CONV_ENCODE:
		case GPUOPS_CONV_PRESENCE:
			((int32 *) dc->data)[row] = 0;
			break;
		case GPUOPS_CONV_TEXT_REF:
			((int32 *) dc->data)[row] = 0;
			dc->refs[row].data = NULL;
			break;
		case GPUOPS_CONV_INT64:
		case GPUOPS_CONV_NUMERIC:
		case GPUOPS_CONV_SHORT_TEXT:
			((int64 *) dc->data)[row] = 0;
			break;
		case GPUOPS_CONV_FLOAT32:
			((float4 *) dc->data)[row] = 0;
			break;
		case GPUOPS_CONV_FLOAT64:
			((float8 *) dc->data)[row] = 0;
			break;
		case GPUOPS_CONV_BOOL_UINT8:
			((uint8 *) dc->data)[row] = 0;
			break;
	}
	dc->validity[row >> 3] &= (uint8) ~(1u << (row & 7));
}

/*
 * Store a deformed value (isnull, or the Datum d) of a column as the batch
 * value of row, with its validity bit; the backend only (it detoasts and
 * encodes).  The slot path's store, and a star join's dimension rows'.
 */
static inline void
gpuops_scan_put_value(const GpuopsDecodeCol *dc, int64 row, Datum d,
					  bool isnull)
{
	if (isnull)
		gpuops_scan_put_null(dc, row);
	else
	{
		dc->validity[row >> 3] |= (uint8) (1u << (row & 7));
		if (dc->conv == GPUOPS_CONV_ENCODE)
			((int32 *) dc->data)[row] = dc->encode(dc->encode_arg, d);
		else if (dc->conv == GPUOPS_CONV_NUMERIC)
			gpuops_scan_put_numeric(dc, row, PG_DETOAST_DATUM_PACKED(d));
		else if (dc->conv == GPUOPS_CONV_SHORT_TEXT)
			gpuops_scan_put_short_text(dc, row, PG_DETOAST_DATUM_PACKED(d));
		else
			gpuops_scan_put_datum(dc->conv, dc->data, row, d);
	}
}

#endif							/* GPUOPS_SCAN_H */
