/*
 * gpuops_agg.h
 *	  The GpuOpsAgg custom scan: GROUP BY and plain aggregates over one table,
 *	  planned by plan/ (agg_plan.c, agg_eligible.c, agg_cost.c,
 *	  agg_plan_create.c), run by exec/ (agg_exec.c), with its WHERE quals
 *	  translated by agg_quals.c and its groups kept by agg_state.c.
 *
 * The plan carries everything as copyable nodes in custom_private (the
 * PRIV_ and TAB_ positions below); the executor decodes it into a
 * GpuopsAggSpec (agg_spec.c).
 */
#ifndef GPUOPS_AGG_H
#define GPUOPS_AGG_H

#include "common/gpuops.h"
#include "budget/gpuops_budget.h"

#include "nodes/extensible.h"
#include "nodes/pathnodes.h"
#include "optimizer/planner.h"

#include "gpo_expr.h"
#include "gpo_filter.h"
#include "gpo_strdict.h"

/* The argument "attno" of an aggregate over an expression (PRIV_AGG_CLASSES). */
#define GPUOPS_AGG_ARG_EXPR		(-1)

/* Most grouping keys the node takes. */
#define GPUOPS_AGG_MAX_KEYS		8

/* Most dimensions of a star join the node takes (agg_star.c). */
#define GPUOPS_AGG_MAX_DIMS		8

/* The aggregates the node computes. */
typedef enum GpuopsAggKind
{
	GPUOPS_AGG_COUNT_STAR = 0,
	GPUOPS_AGG_COUNT,
	GPUOPS_AGG_SUM,
	GPUOPS_AGG_AVG,
	GPUOPS_AGG_MIN,
	GPUOPS_AGG_MAX,
	GPUOPS_AGG_VAR_POP,			/* var_pop */
	GPUOPS_AGG_VAR_SAMP,		/* var_samp, variance */
	GPUOPS_AGG_STDDEV_POP,		/* stddev_pop */
	GPUOPS_AGG_STDDEV_SAMP,		/* stddev_samp, stddev */
	GPUOPS_AGG_COUNT_DISTINCT,	/* count(DISTINCT x): x is an extra key */
	GPUOPS_AGG_MIN_KEY,			/* min(x) of a text x: x is an extra key */
	GPUOPS_AGG_MAX_KEY,			/* max(x) of a text x: x is an extra key */
	GPUOPS_AGG_FLOAT_STATE		/* Citus's worker_partial_agg of an
								 * aggregate with float8_accum's state
								 * {N, Sx, Sxx}: that state's text */
} GpuopsAggKind;

/* True for the kinds whose argument is an extra key of the engine's (agg_distinct.c). */
#define GPUOPS_AGG_IS_FOLDED(kind) \
	((kind) == GPUOPS_AGG_COUNT_DISTINCT || (kind) == GPUOPS_AGG_MIN_KEY || \
	 (kind) == GPUOPS_AGG_MAX_KEY)

/* True for the variance and standard deviation kinds. */
#define GPUOPS_AGG_IS_VARIANCE(kind) \
	((kind) >= GPUOPS_AGG_VAR_POP && (kind) <= GPUOPS_AGG_STDDEV_SAMP)

/* One aggregate of the node's output (an entry of custom_scan_tlist). */
typedef struct GpuopsAggCol
{
	GpuopsAggKind kind;
	int			valcol;			/* index of its argument among the value
								 * columns; -1 for count(*) (count(*)
								 * FILTER is a count of a value column of
								 * no argument, attno 0) */
	int			sqcol;			/* variance of an integer: the value column
								 * of the argument's squares (int8); else -1 */
	Oid			argtype;		/* SQL type of the argument */
	int32		argtypmod;		/* its typmod (a numeric's scale) */
	Oid			restype;		/* SQL type of the result */
	Oid			collation;		/* min or max of text: the collation */
	int			xkey;			/* count(DISTINCT x), min(x), max(x) of text:
								 * x's engine key (gpuops_agg_fold_args'
								 * order, after the query's keys); else -1 */
} GpuopsAggCol;

/* A text key's dictionary (agg_dict.c). */
typedef struct GpuopsTextDict GpuopsTextDict;

/* One table the node reads: the table itself, or one partition. */
typedef struct GpuopsAggTable
{
	Oid			relid;			/* pg_class OID */
	Index		rti;			/* range-table index at planning time */
	AttrNumber	key_attnos[GPUOPS_AGG_MAX_KEYS];	/* 0: an expression */
	Expr	   *key_exprs[GPUOPS_AGG_MAX_KEYS]; /* the device evaluates, or
												 * NULL for a column */
	AttrNumber *val_attnos;		/* [nvals]; 0: an expression or none */
	Expr	  **val_exprs;		/* [nvals]: the device evaluates, or NULL */
	List	   *device_quals;	/* implicit-AND clauses run as a device mask */
	List	   *cpu_quals;		/* implicit-AND clauses run by PostgreSQL */
	List	  **filter_quals;	/* [nfilters]: FILTER clauses (one-element lists) */
	List	   *checks;			/* derived keys each row evaluates for its
								 * errors alone (agg_derived.c) */
} GpuopsAggTable;

/* What the executor needs, decoded from the plan. */
typedef struct GpuopsAggSpec
{
	int			nkeys;			/* the engine's keys */
	int			nkeys_out;		/* the scan tuple's: the query's keys, before
								 * the extra keys of count(DISTINCT x), min(x)
								 * and max(x) of text (GpuopsAggCol.xkey) */
	Oid			key_types[GPUOPS_AGG_MAX_KEYS];
	Oid			key_collations[GPUOPS_AGG_MAX_KEYS];
	int32		key_typmods[GPUOPS_AGG_MAX_KEYS];	/* (a numeric's scale) */
	int			naggs;
	GpuopsAggCol *aggs;
	int			nvals;			/* distinct (argument, FILTER) pairs */
	Oid		   *val_types;
	int		   *val_filters;	/* [nvals]: FILTER index, or -1 */
	int			nfilters;		/* distinct FILTER clauses */
	int			ntables;		/* 1, or the partitions left after pruning */
	GpuopsAggTable *tables;
	bool		partitioned;	/* the input is an inheritance tree */
	GpuopsTextDict *key_dicts[GPUOPS_AGG_MAX_KEYS]; /* text keys (executor) */
	List	   *key_labels[GPUOPS_AGG_MAX_KEYS];	/* a label key's labels
													 * (String nodes), in code
													 * order; else NIL */
	double		est_groups;
	int			planned_device; /* a gpo_device: gpuops.device at plan time */
	int			planned_strategy;	/* expected gpo_agg_strategy; -1: no keys */
	int			parallel_workers;	/* worker processes to read with (0: none) */
} GpuopsAggSpec;

/* Shared extension state: custom scan method tables (agg_plan.c / agg_exec.c). */
extern CustomScanMethods gpuops_agg_scan_methods;

/* GUCs of the node (agg_settings.c) */
extern bool gpuops_enabled;
/* gpuops.overlap: when a helper thread aggregates a batch during the next read */
typedef enum GpuopsOverlap
{
	GPUOPS_OVERLAP_AUTO,		/* on the GPU face */
	GPUOPS_OVERLAP_ON,			/* on either face */
	GPUOPS_OVERLAP_OFF
} GpuopsOverlap;
extern int	gpuops_overlap;		/* a GpuopsOverlap */
extern int	gpuops_parallel_workers;
extern bool gpuops_debug_worker_sweep;
extern bool gpuops_running_groups;
extern bool gpuops_pinned_batches;
extern double gpuops_gpu_setup_cost;
extern double gpuops_gpu_row_cost;
extern double gpuops_cpu_setup_cost;
extern double gpuops_cpu_row_cost;
extern int	gpuops_max_group_memory;	/* kB */
extern int	gpuops_max_join_memory; /* kB */
/* Defines the node's settings. */
extern void gpuops_agg_settings_init(void);

/* ---- the plan's custom_private (agg_plan_create.c writes it, agg_spec.c reads it) ---- */

/* Positions in the path's and the plan's custom_private. */
enum
{
	PRIV_KEYS = 0,				/* List of key Vars */
	PRIV_AGGREFS,				/* List of Aggrefs, in scan-tuple order */
	PRIV_TABLES,				/* List of table entries (TAB_*) */
	PRIV_INH,					/* Integer: the input is an inheritance tree */
	PRIV_HAVING,				/* implicit-AND HAVING quals (path only) */
	PRIV_EST_GROUPS,			/* Float: estimated groups */
	PRIV_DEVICE,				/* Integer: gpuops.device at plan time */
	PRIV_RELID,					/* Integer: the input's range-table index */
	PRIV_STRATEGY,				/* Integer: expected gpo_agg_strategy, -1 for
								 * no GROUP BY */
	PRIV_WORKERS,				/* Integer: worker processes */
	PRIV_AGG_CLASSES,			/* per Aggref an IntList (kind, argument
								 * attno, argument type) (plan only) */
	PRIV_JOIN,					/* a star join's (JOIN_*), or NIL */
	PRIV_SPLITS,				/* sums split by scale (agg_sum_split.c): in
								 * the path a List (the sum, its parts) each,
								 * in the plan an IntList of its parts'
								 * positions among the aggregates; the sums
								 * follow the aggregates in the scan tuple */
	PRIV_DERIVED,				/* keys other keys determine (agg_derived.c):
								 * in the path as the query writes them, in
								 * the plan over the scan tuple's keys; they
								 * follow the split sums in the scan tuple */
	PRIV_MAPPED,				/* functions of one text column as keys
								 * (agg_mapped.c): in the path (Integer
								 * position, key, column) each, in the plan
								 * the position, the key over its column's
								 * value and the column's type, typmod and
								 * collation */
	PRIV_BOUND,					/* a top-N by a count (agg_bound.c): IntList
								 * (rows, aggregate position, descending),
								 * or NIL */
	PRIV_COUNT
};

/*
 * Positions in PRIV_JOIN.  The dimensions' columns are virtual columns of
 * the fact table (PRIV_KEYS, PRIV_AGGREFS and the table entry refer to
 * them), numbered from its attribute count + 1 in JOIN_GATHER's order.
 */
enum
{
	JOIN_SCAN_KEYS = 0,			/* the keys as the query writes them */
	JOIN_SCAN_AGGREFS,			/* the aggregates as the query writes them */
	JOIN_FACT_NATTS,			/* Integer: the fact table's attributes */
	JOIN_DIMS,					/* per dimension an IntList (rti, fact's
								 * join column, dimension's join column, the
								 * JoinType, and for a second key rti, fact's
								 * and dimension's column (rti 0: none); in
								 * the plan the keys' resnos in the child
								 * plan's output) */
	JOIN_GATHER,				/* per virtual column an IntList (dimension,
								 * attno (0 for an expression), type,
								 * typmod, collation, rti, and in the plan
								 * its resno in the child plan) */
	JOIN_GATHER_EXPRS,			/* per virtual column the Var or expression
								 * its child plan outputs (path only) */
};

/* Positions in a table entry of PRIV_TABLES: one per table read. */
enum
{
	TAB_RTI = 0,				/* Integer: range-table index */
	TAB_OID,					/* Integer: pg_class OID */
	TAB_KEYS,					/* List of key Vars of this table */
	TAB_AGGREFS,				/* List of Aggrefs over this table's columns */
	TAB_DEVICE_QUALS,			/* List of clauses run as a device mask */
	TAB_CPU_QUALS,				/* List of clauses run by PostgreSQL */
	TAB_CHECKS					/* List of derived keys each row evaluates
								 * for its errors alone (agg_derived.c) */
};

/* ---- plan/ (agg_eligible.c, agg_plan.c) ---- */

/*
 * Classify an Aggref: true (with *kind, *argattno, *argtype) if the node
 * computes it over a plain column of relid exactly as PostgreSQL does.
 */
extern bool gpuops_agg_supported(Aggref *aggref, Index relid,
								 GpuopsAggKind *kind, AttrNumber *argattno,
								 Oid *argtype);

/* Install the planner hook (from _PG_init). */
extern void gpuops_agg_register(void);
/* True if a grouping key of type typid and collation collid is a text key (dictionary codes). */
extern bool gpuops_agg_text_key(Oid typid, Oid collid);
/*
 * True if a text key is a short one (char(n) or varchar(n) of at most 7
 * bytes), read as int64 codes of its bytes instead of dictionary codes.
 */
extern bool gpuops_agg_short_text_key(Oid typid, int32 typmod, Oid collid);
/*
 * True if a column of type typid, typmod and collation collid is read as
 * dictionary codes when a clause compares it with a text constant: a text
 * key (char(n) only with a length), not a short one.
 */
extern bool gpuops_agg_text_codes_col(Oid typid, int32 typmod, Oid collid);

/* ---- agg_label.c ---- */

/*
 * True if e is a CASE or COALESCE of text or varchar whose results are
 * constants and at most one text column; *labels gets the constants,
 * *source the column.
 */
extern bool gpuops_label_case(Node *e, List **labels, Var **source);
/* Label key e as the same expression over int4 codes. */
extern Node *gpuops_label_codes(Node *e);
/* The column a label key's codes expression takes as a result, or 0. */
extern AttrNumber gpuops_label_source(Node *codes);
/* True if label key e can be a star join's (constants over the fact's columns). */
extern bool gpuops_label_star_ok(Node *e, AttrNumber max_attr);
/* keys with each label key as its expression over codes (a new list). */
extern List *gpuops_label_keys_codes(List *keys);
/* True if no label key's column is another key's or an argument of args. */
extern bool gpuops_label_sources_ok(List *keys, List *args);
/* The groups of keys over rows rows, label keys counted by their labels. */
extern double gpuops_label_groups(PlannerInfo *root, List *keys, double rows);

/* ---- agg_spec.c ---- */

/* A copy of node whose Vars of range-table index from refer to to. */
extern Node *gpuops_agg_set_varno(Node *node, Index from, Index to);
/* Decode a plan's custom_private into spec. */
extern void gpuops_agg_spec_from_plan(CustomScan *cscan, GpuopsAggSpec *spec);

/* ---- agg_dict.c ---- */

/* An empty dictionary in the current memory context, room made for expect strings. */
extern GpuopsTextDict *gpuops_dict_create(double expect);
/* A dictionary for each text key of spec not read as short text codes. */
extern void gpuops_dict_create_keys(GpuopsAggSpec *spec);
/* The code of a non-NULL string, added if new (a GpuopsScanEncode). */
extern int32 gpuops_dict_encode(void *arg, Datum value);
/* The codes of many strings (a GpuopsScanEncodeMany). */
extern void gpuops_dict_encode_many(void *arg, int nthreads, int64 n,
									const gpo_str *strs, int32 *codes);
/* The string of a code, as a text Datum in the current memory context. */
extern Datum gpuops_dict_datum(const GpuopsTextDict *d, int32 code);
/* The string of a code (valid until the dictionary codes more). */
extern gpo_str gpuops_dict_string(const GpuopsTextDict *d, int32 code);
/* Distinct strings the dictionary holds. */
extern int64 gpuops_dict_count(const GpuopsTextDict *d);

/* ---- agg_text.c ---- */

/*
 * The dictionary code, in the column's dictionary, of a text constant that
 * a clause compares text column attno with (added if new).
 */
typedef int32 (*GpuopsQualTextCode) (void *arg, AttrNumber attno, Datum value);

/* The code of a text constant that no value of the column has. */
#define GPUOPS_QUAL_TEXT_NO_CODE	(-1)

/*
 * True if op is "text column of relid = / <> text constant" compared as
 * codes: *var, *c and *cmp get its parts.
 */
extern bool gpuops_qual_text_cmp(OpExpr *op, Index relid, Var **var,
								 Const **c, gpo_cmp_op *cmp);
/*
 * True if sa is a text column of relid against a list of at most max_list
 * text constants (IN, NOT IN), compared as codes: *var, *arr, *cmp its parts.
 */
extern bool gpuops_qual_text_list(ScalarArrayOpExpr *sa, Index relid,
								  int max_list, Var **var, Const **arr,
								  gpo_cmp_op *cmp);
/* The code of a text constant in text column var (GPUOPS_QUAL_TEXT_NO_CODE: none). */
extern int64 gpuops_qual_text_code(Var *var, Datum value,
								   GpuopsQualTextCode text_code,
								   void *text_arg);
/* True if clause holds a text column of relid that it compares as dictionary codes. */
extern bool gpuops_qual_reads_text(Node *clause, Index relid);

/* ---- agg_like.c ---- */

/* The pieces between the '%'s of a LIKE pattern; false if it has '_' or ends in an escape. */
extern bool gpuops_like_pieces(Datum pattern, gpo_like *like);
/* True if op is "column LIKE / NOT LIKE constant" that the engine matches. */
extern bool gpuops_qual_text_like(OpExpr *op, Index relid, Var **var,
								  Const **pat, bool *negated);
/* True if node holds such a LIKE over a column of relid past max_attr. */
extern bool gpuops_like_past(Node *node, Index relid, AttrNumber max_attr);

/* ---- agg_quals.c ---- */

/* True if a WHERE clause can run as a device mask over plain columns of relid. */
extern bool gpuops_qual_on_device(Expr *clause, Index relid);


/*
 * Translate device clauses (implicit AND) into a postfix predicate program
 * over columns; attno_col maps an attribute number to its column index;
 * text_code gives the codes of text constants (text columns are read as
 * dictionary codes).  Returns the node count; *prog is palloc'd.
 */
extern int	gpuops_quals_program(List *clauses, Index relid,
								 const int *attno_col, int max_attno,
								 const gpo_type *col_types,
								 GpuopsQualTextCode text_code, void *text_arg,
								 gpo_pred **prog);
/* Attribute numbers used by clauses, added to *attnos (as a Bitmapset). */
extern Bitmapset *gpuops_quals_attnos(List *clauses, Bitmapset *attnos);

/* ---- agg_expr.c ---- */

/* An expression compiled for the device. */
typedef struct GpuopsExprProgram
{
	gpo_xnode  *nodes;
	int			n;
	bool		out_double;		/* the result is a double slot */
	gpo_type	out_type;		/* the column the result fills */
	Oid			restype;		/* its SQL type */
	int			out_scale;		/* numeric: the result is value *
								 * 10^out_scale; else -1 */
} GpuopsExprProgram;

/*
 * Compiles e, an expression over plain columns of relid, into *prog; false
 * if the device can't evaluate it.  attno_col maps attribute numbers (up to
 * max_attno) to the ncols columns the program reads; NULL when planning.
 */
extern bool gpuops_expr_compile(Expr *e, Index relid, const int *attno_col,
								int max_attno, int ncols,
								GpuopsExprProgram *prog);
/*
 * What a length call over a text column counts: length() and char_length()
 * of text and varchar count characters, of char(n) characters without the
 * trailing spaces; octet_length() counts bytes.  The reader computes them
 * as int4 columns of their own (exec/agg_length.c), so the device reads
 * them as plain columns.
 */
typedef enum GpuopsTextLen
{
	GPUOPS_LEN_NONE = 0,
	GPUOPS_LEN_CHARS,
	GPUOPS_LEN_CHARS_TRIM,
	GPUOPS_LEN_OCTETS,
	GPUOPS_LEN_LIKE				/* not a length: 1 where the value matches
								 * a LIKE pattern, else 0 (agg_like.c) */
} GpuopsTextLen;
/*
 * What e counts if it is such a call over a plain text, varchar or char(n)
 * column of relid (*var the column, if var is not NULL), else GPUOPS_LEN_NONE.
 */
extern GpuopsTextLen gpuops_text_length_kind(Node *e, Index relid, Var **var);
/* An expression a batch computed before, which a later program reads as column col. */
typedef struct GpuopsExprShared
{
	Expr	   *expr;
	int			col;
} GpuopsExprShared;
/*
 * gpuops_expr_compile, reading each subexpression of e that equals one of
 * shared's from its column (below ncols) instead of computing it again.
 */
extern bool gpuops_expr_compile_shared(Expr *e, Index relid,
									   const int *attno_col, int max_attno,
									   int ncols,
									   const GpuopsExprShared *shared,
									   int nshared, GpuopsExprProgram *prog);
/* True if the device can evaluate e over plain columns of relid. */
extern bool gpuops_expr_on_device(Expr *e, Index relid);
/*
 * The typmod of e's values for the node: exprTypmod, but numeric(18, s) for
 * a numeric expression the device holds at scale s.
 */
extern int32 gpuops_expr_typmod(Expr *e, Index relid);

/*
 * The engine's extra key x of aggregate a (agg_eligible.c): the argument of
 * count(DISTINCT x), the text column of min(x) or max(x); else NULL.
 */
extern Node *gpuops_agg_fold_arg(Aggref *a);
/* The aggregates' extra keys, count(DISTINCT x)'s first; NIL if none. */
extern List *gpuops_agg_fold_args(List *aggrefs);
/* The index of aggregate a's extra key among gpuops_agg_fold_args(aggrefs). */
extern int	gpuops_agg_fold_index(List *aggrefs, Aggref *a);

/* ---- agg_state.c ---- */

/* Running groups, sorted by key, merged chunk by chunk. */
typedef struct GpuopsAggState
{
	MemoryContext cxt;			/* where the groups live (not a batch's) */
	int			nkeys;
	gpo_type	key_types[GPUOPS_AGG_MAX_KEYS];
	int			nvals;
	gpo_type   *val_types;
	int64		ngroups;
	int64		capacity;
	uint64	   *key_codes[GPUOPS_AGG_MAX_KEYS]; /* gpo_key_code of each key */
	uint8	   *key_valid[GPUOPS_AGG_MAX_KEYS];
	int64	   *rows;			/* count(*) */
	gpo_agg_out *vals;			/* [nvals]: per value column, keys unused */
	/* the arrays a merge left (its source), the next merge's destination */
	uint64	   *spare_codes[GPUOPS_AGG_MAX_KEYS];
	uint8	   *spare_valid[GPUOPS_AGG_MAX_KEYS];
	int64	   *spare_rows;		/* NULL: no spare arrays */
	gpo_agg_out *spare_vals;	/* [nvals] */
	int64		spare_capacity;
	/* spilling (agg_spill.c) */
	Size		limit_bytes;	/* groups spill past it; 0: never */
	struct GpuopsAggSpill *spill;	/* the runs on disk, or NULL */
	int64		spill_runs;		/* runs written from the input */
	int64		spill_bytes;	/* bytes written to temporary files */
	int64		spill_passes;	/* merge passes before the last */
	int64		groups_out;		/* groups the spilled state gave out */
} GpuopsAggState;

/* Appends n groups after st's (st is then in no order). */
extern void gpuops_aggstate_append(GpuopsAggState *st, int64 n,
								   uint64 *const *key_codes,
								   uint8 *const *key_valid,
								   const int64 *rows,
								   const gpo_agg_out *vals);
/* Combines the neighbours with equal keys of a sorted piece; the groups left. */
extern int64 gpuops_aggstate_fold_equal(GpuopsAggState *p, int64 n);
/* Empty running state for nkeys keys and nvals value columns. */
extern void gpuops_aggstate_init(GpuopsAggState *st, int nkeys,
								 const gpo_type *key_types, int nvals,
								 const gpo_type *val_types);
/*
 * Merge one chunk's groups (sorted by key; n entries): key codes and
 * validity per key, rows, and per value column the engine's results; in
 * memory, whatever gpuops.max_group_memory says (gpuops_aggspill_merge
 * heeds it).
 */
extern void gpuops_aggstate_merge(GpuopsAggState *st, int64 n,
								  uint64 *const *key_codes,
								  uint8 *const *key_valid,
								  const int64 *rows,
								  const gpo_agg_out *vals);
/*
 * Whether value column v needs the engine's m2: a float8 column with an
 * avg, whose sum of squares PostgreSQL checks for overflow, or a float
 * column with a variance.
 */
extern bool gpuops_agg_val_m2(const GpuopsAggSpec *spec, int v);
/* Whether value column v is read for its NULLs alone (counts only). */
extern bool gpuops_agg_val_presence(const GpuopsAggSpec *spec, int v);
/* Bytes one group takes in the running state's arrays. */
extern Size gpuops_aggstate_group_bytes(const GpuopsAggState *st);
/* Arrays for capacity groups in an empty state (a buffer of groups). */
extern void gpuops_aggstate_reserve(GpuopsAggState *st, int64 capacity);
/*
 * Makes one chunk's groups (sorted by key; n entries) an empty state's own
 * arrays, without a copy; false (nothing taken) when the state holds groups
 * or arrays.  The arrays must be in st->cxt, vals of the state's value
 * types, and are the state's afterwards.
 */
extern bool gpuops_aggstate_take(GpuopsAggState *st, int64 n,
								 uint64 *const *key_codes,
								 uint8 *const *key_valid, int64 *rows,
								 const gpo_agg_out *vals);
/* Frees the state's arrays: no groups, no capacity. */
extern void gpuops_aggstate_clear(GpuopsAggState *st);
/* Frees the arrays the merges keep for the next one (none merges after). */
extern void gpuops_aggstate_drop_spare(GpuopsAggState *st);
/* Compares group i of a with group j of b in the engine's key order. */
extern int	gpuops_aggstate_cmp_groups(const GpuopsAggState *a, int64 i,
									   const GpuopsAggState *b, int64 j);
/* Adds group i of src to dst, whose groups precede it in key order. */
extern void gpuops_aggstate_put(GpuopsAggState *dst, const GpuopsAggState *src,
								int64 i);

/* ---- agg_spill.c ---- */

/*
 * gpuops_aggstate_merge within the state's limit: when the merge would
 * hold more than limit_bytes, the groups held go to disk as a sorted run
 * first, and so do the incoming ones when they alone are too many.
 */
extern void gpuops_aggspill_merge(GpuopsAggState *st, int64 n,
								  uint64 *const *key_codes,
								  uint8 *const *key_valid, const int64 *rows,
								  const gpo_agg_out *vals);
/* gpuops_aggstate_take where the groups fit the state's limit. */
extern bool gpuops_aggspill_take(GpuopsAggState *st, int64 n,
								 uint64 *const *key_codes,
								 uint8 *const *key_valid, int64 *rows,
								 const gpo_agg_out *vals);
/*
 * Writes n groups (sorted by key) to the state's temporary file as one
 * sorted run.
 */
extern void gpuops_aggspill_write(GpuopsAggState *st, int64 n,
								  uint64 *const *key_codes,
								  uint8 *const *key_valid, const int64 *rows,
								  const gpo_agg_out *vals);
/* Whether some of the state's groups are on disk. */
static inline bool
gpuops_aggstate_spilled(const GpuopsAggState *st)
{
	return st->spill != NULL;
}
/*
 * After the input of a spilled state: the groups held go to disk too, the
 * runs are merged down to a few, and the last merge is opened.
 */
extern void gpuops_aggstate_finish(GpuopsAggState *st);
/*
 * The next groups of a finished spilled state, in key order, in *piece
 * (the spill's buffer); returns their number, 0 at the end.
 */
extern int64 gpuops_aggstate_next_piece(GpuopsAggState *st,
										GpuopsAggState **piece);
/* Closes the state's temporary files and frees the spill (idempotent). */
extern void gpuops_aggstate_spill_end(GpuopsAggState *st);

/* ---- agg_variance.c ---- */

/*
 * float8_accum's state {N, Sx, Sxx} of a group as the text (a cstring)
 * that Citus's worker_partial_agg gives for it.
 */
extern Datum gpuops_float_state_text(int64 n, float8 fsum, uint8 fflags,
									 float8 m2);
/* The variance or standard deviation agg of group g (some value counted). */
extern Datum gpuops_aggstate_variance(const GpuopsAggState *st,
									  const GpuopsAggCol *agg, int64 g,
									  bool *isnull);

/* Key k's decoded value buf (of engine type type) as a Datum. */
extern Datum gpuops_aggstate_key_value(const GpuopsAggSpec *spec, int k,
									   gpo_type type, const int64 *buf);
/* Fill values/isnull of the scan tuple of group g. */
extern void gpuops_aggstate_tuple(const GpuopsAggState *st,
								  const GpuopsAggSpec *spec, int64 g,
								  Datum *values, bool *isnull);

#endif							/* GPUOPS_AGG_H */
