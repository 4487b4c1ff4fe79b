/*
 * agg_expr_funcs.c
 *	  Which built-in functions the device evaluates, and as which operator:
 *	  the operators' and casts' C functions (int4pl, float48mul, dtoi4,
 *	  date_pli, timestamp_pl_interval, ...) by name, with the classes of
 *	  their arguments and result, and the fields of date_part and
 *	  date_trunc.  agg_expr.c compiles the calls.
 */
#include "aggnode/plan/agg_expr_int.h"

#include "catalog/pg_language.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "parser/scansup.h"
#include "utils/builtins.h"
#include "utils/datetime.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

/* Integer type prefixes of the arithmetic functions, by argument widths. */
static const char *const int_prefixes[] = {
	"int2", "int4", "int8", "int24", "int42", "int28", "int82", "int48",
	"int84", NULL
};

/* Float type prefixes. */
static const char *const float_prefixes[] = {
	"float4", "float8", "float48", "float84", NULL
};

/* Suffixes and the operator each names. */
typedef struct GpuopsXSuffix
{
	const char *suffix;
	int			op;				/* a gpo_xop */
	int			cmp;			/* a gpo_cmp_op for comparisons, else -1 */
	int			nargs;
} GpuopsXSuffix;

static const GpuopsXSuffix int_suffixes[] = {
	{"pl", GPO_X_IADD, -1, 2}, {"mi", GPO_X_ISUB, -1, 2},
	{"mul", GPO_X_IMUL, -1, 2}, {"div", GPO_X_IDIV, -1, 2},
	{"mod", GPO_X_IMOD, -1, 2}, {"um", GPO_X_INEG, -1, 1},
	{"abs", GPO_X_IABS, -1, 1},
	{"eq", GPO_X_ICMP, GPO_CMP_EQ, 2}, {"ne", GPO_X_ICMP, GPO_CMP_NE, 2},
	{"lt", GPO_X_ICMP, GPO_CMP_LT, 2}, {"le", GPO_X_ICMP, GPO_CMP_LE, 2},
	{"gt", GPO_X_ICMP, GPO_CMP_GT, 2}, {"ge", GPO_X_ICMP, GPO_CMP_GE, 2},
	{NULL, 0, 0, 0}
};

static const GpuopsXSuffix float_suffixes[] = {
	{"pl", GPO_X_FADD, -1, 2}, {"mi", GPO_X_FSUB, -1, 2},
	{"mul", GPO_X_FMUL, -1, 2}, {"div", GPO_X_FDIV, -1, 2},
	{"um", GPO_X_FNEG, -1, 1}, {"abs", GPO_X_FABS, -1, 1},
	{"eq", GPO_X_FCMP, GPO_CMP_EQ, 2}, {"ne", GPO_X_FCMP, GPO_CMP_NE, 2},
	{"lt", GPO_X_FCMP, GPO_CMP_LT, 2}, {"le", GPO_X_FCMP, GPO_CMP_LE, 2},
	{"gt", GPO_X_FCMP, GPO_CMP_GT, 2}, {"ge", GPO_X_FCMP, GPO_CMP_GE, 2},
	{NULL, 0, 0, 0}
};

/* Functions of fixed names: casts, dates, timestamps, bool comparisons. */
typedef struct GpuopsXNamed
{
	const char *name;
	int			op;				/* a gpo_xop, or -1: the argument itself */
	int			cmp;
	int			nargs;
} GpuopsXNamed;

static const GpuopsXNamed named_funcs[] = {
	{"i2toi4", GPO_X_I2I, -1, 1}, {"i4toi2", GPO_X_I2I, -1, 1},
	{"int48", GPO_X_I2I, -1, 1}, {"int84", GPO_X_I2I, -1, 1},
	{"int28", GPO_X_I2I, -1, 1}, {"int82", GPO_X_I2I, -1, 1},
	{"i2tod", GPO_X_I2F, -1, 1}, {"i4tod", GPO_X_I2F, -1, 1},
	{"i8tod", GPO_X_I2F, -1, 1}, {"i2tof", GPO_X_I2F, -1, 1},
	{"i4tof", GPO_X_I2F, -1, 1}, {"i8tof", GPO_X_I2F, -1, 1},
	{"dtoi2", GPO_X_F2I, -1, 1}, {"dtoi4", GPO_X_F2I, -1, 1},
	{"dtoi8", GPO_X_F2I, -1, 1}, {"ftoi2", GPO_X_F2I, -1, 1},
	{"ftoi4", GPO_X_F2I, -1, 1}, {"ftoi8", GPO_X_F2I, -1, 1},
	{"ftod", GPO_X_F2F, -1, 1}, {"dtof", GPO_X_F2F, -1, 1},
	{"bool_int4", GPO_X_BOOL2I, -1, 1},
	{"int2up", -1, -1, 1}, {"int4up", -1, -1, 1}, {"int8up", -1, -1, 1},
	{"float4up", -1, -1, 1}, {"float8up", -1, -1, 1},
	{"booleq", GPO_X_ICMP, GPO_CMP_EQ, 2}, {"boolne", GPO_X_ICMP, GPO_CMP_NE, 2},
	{"boollt", GPO_X_ICMP, GPO_CMP_LT, 2}, {"boolle", GPO_X_ICMP, GPO_CMP_LE, 2},
	{"boolgt", GPO_X_ICMP, GPO_CMP_GT, 2}, {"boolge", GPO_X_ICMP, GPO_CMP_GE, 2},
	{"date_eq", GPO_X_ICMP, GPO_CMP_EQ, 2}, {"date_ne", GPO_X_ICMP, GPO_CMP_NE, 2},
	{"date_lt", GPO_X_ICMP, GPO_CMP_LT, 2}, {"date_le", GPO_X_ICMP, GPO_CMP_LE, 2},
	{"date_gt", GPO_X_ICMP, GPO_CMP_GT, 2}, {"date_ge", GPO_X_ICMP, GPO_CMP_GE, 2},
	{"timestamp_eq", GPO_X_ICMP, GPO_CMP_EQ, 2},
	{"timestamp_ne", GPO_X_ICMP, GPO_CMP_NE, 2},
	{"timestamp_lt", GPO_X_ICMP, GPO_CMP_LT, 2},
	{"timestamp_le", GPO_X_ICMP, GPO_CMP_LE, 2},
	{"timestamp_gt", GPO_X_ICMP, GPO_CMP_GT, 2},
	{"timestamp_ge", GPO_X_ICMP, GPO_CMP_GE, 2},
	{"date_pli", GPO_X_DATE_PLI, -1, 2}, {"date_mii", GPO_X_DATE_MII, -1, 2},
	{"date_mi", GPO_X_DATE_MI, -1, 2},
	{"date_timestamp", GPO_X_DATE2TS, -1, 1},
	{"timestamp_date", GPO_X_TS2DATE, -1, 1},
	{"timestamp_pl_interval", GPO_X_TS_PL_INTERVAL, -1, 2},
	{"timestamp_mi_interval", GPO_X_TS_MI_INTERVAL, -1, 2},
	{"date_pl_interval", GPO_X_TS_PL_INTERVAL, -1, 2},
	{"date_mi_interval", GPO_X_TS_MI_INTERVAL, -1, 2},
	{"timestamp_part", GPO_X_TS_PART, -1, 2},
	{"extract_timestamp", GPO_X_TS_EXTRACT, -1, 2},
	{"extract_date", GPO_X_DATE_EXTRACT, -1, 2},
	{"timestamp_trunc", GPO_X_TS_TRUNC, -1, 2},
	{"numeric_add", GPO_X_NADD, -1, 2}, {"numeric_sub", GPO_X_NSUB, -1, 2},
	{"numeric_mul", GPO_X_NMUL, -1, 2}, {"numeric_uminus", GPO_X_NNEG, -1, 1},
	{"numeric_abs", GPO_X_NABS, -1, 1}, {"numeric_uplus", -1, -1, 1},
	{"numeric_eq", GPO_X_ICMP, GPO_CMP_EQ, 2},
	{"numeric_ne", GPO_X_ICMP, GPO_CMP_NE, 2},
	{"numeric_lt", GPO_X_ICMP, GPO_CMP_LT, 2},
	{"numeric_le", GPO_X_ICMP, GPO_CMP_LE, 2},
	{"numeric_gt", GPO_X_ICMP, GPO_CMP_GT, 2},
	{"numeric_ge", GPO_X_ICMP, GPO_CMP_GE, 2},
	{"int2_numeric", GPUOPS_XF_INT_TO_NUMERIC, -1, 1},
	{"int4_numeric", GPUOPS_XF_INT_TO_NUMERIC, -1, 1},
	{NULL, 0, 0, 0}
};

/* The C name of a built-in internal function, or NULL. */
static char *
gpuops_xfunc_prosrc(Oid funcid)
{
	HeapTuple	tup;
	Form_pg_proc proc;
	char	   *src = NULL;

	tup = SearchSysCache1(PROCOID, ObjectIdGetDatum(funcid));
	if (!HeapTupleIsValid(tup))
		return NULL;
	proc = (Form_pg_proc) GETSTRUCT(tup);
	if (proc->prolang == INTERNALlanguageId &&
		proc->pronamespace == PG_CATALOG_NAMESPACE && !proc->proretset &&
		proc->provolatile == PROVOLATILE_IMMUTABLE)
	{
		Datum		d;
		bool		isnull;

		d = SysCacheGetAttr(PROCOID, tup, Anum_pg_proc_prosrc, &isnull);
		if (!isnull)
			src = TextDatumGetCString(d);
	}
	ReleaseSysCache(tup);
	return src;
}

/* Finds src among prefix + suffix names. */
static bool
gpuops_xfunc_family(const char *src, const char *const *prefixes,
					const GpuopsXSuffix *suffixes, GpuopsXFunc *f)
{
	int			p;
	int			s;

	for (p = 0; prefixes[p] != NULL; p++)
	{
		size_t		len = strlen(prefixes[p]);

		if (strncmp(src, prefixes[p], len) != 0)
			continue;
		for (s = 0; suffixes[s].suffix != NULL; s++)
			if (strcmp(src + len, suffixes[s].suffix) == 0)
			{
				f->op = suffixes[s].op;
				f->cmp = suffixes[s].cmp;
				f->nargs = suffixes[s].nargs;
				return true;
			}
	}
	return false;
}

/*
 * The operator the device evaluates for a call of funcid with nargs
 * arguments; false if there is none.  The caller checks the classes of the
 * arguments and the result.
 */
bool
gpuops_xfunc_lookup(Oid funcid, int nargs, GpuopsXFunc *f)
{
	char	   *src = gpuops_xfunc_prosrc(funcid);
	int			i;
	bool		found = false;

	if (src == NULL)
		return false;
	if (gpuops_xfunc_family(src, int_prefixes, int_suffixes, f) ||
		gpuops_xfunc_family(src, float_prefixes, float_suffixes, f))
		found = true;
	for (i = 0; !found && named_funcs[i].name != NULL; i++)
		if (strcmp(src, named_funcs[i].name) == 0)
		{
			f->op = named_funcs[i].op;
			f->cmp = named_funcs[i].cmp;
			f->nargs = named_funcs[i].nargs;
			found = true;
		}
	/* the float and int families have no modulo of floats */
	if (found && f->op == GPO_X_IMOD && strncmp(src, "int", 3) != 0)
		found = false;
	f->date_arg = found && strncmp(src, "date_", 5) == 0 &&
		(f->op == GPO_X_TS_PL_INTERVAL || f->op == GPO_X_TS_MI_INTERVAL);
	pfree(src);
	return found && f->nargs == nargs;
}

/*
 * The field of date/time operator op (TS_PART, TS_TRUNC, TS_EXTRACT,
 * DATE_EXTRACT) that units, a constant, names; false for another unit or
 * one the operator does not take on the device (extract's julian, and the
 * time fields of a date, which PostgreSQL rejects).
 */
bool
gpuops_x_datetime_unit(int op, Node *units, int *field)
{
	Const	   *c = (Const *) units;

	if (!IsA(c, Const) || c->constisnull || c->consttype != TEXTOID ||
		!gpuops_xfunc_field(DatumGetTextPP(c->constvalue),
							op == GPO_X_TS_TRUNC, field))
		return false;
	if (op == GPO_X_TS_EXTRACT)
		return *field != GPO_XF_JULIAN;
	if (op == GPO_X_DATE_EXTRACT)
		return *field >= GPO_XF_DAY && *field != GPO_XF_JULIAN;
	return true;
}

/*
 * The field a date_part / date_trunc unit names, as timestamp_part and
 * timestamp_trunc decode it; false for a unit the device doesn't take
 * (PostgreSQL then raises its own error, or computes it).
 */
bool
gpuops_xfunc_field(text *units, bool trunc, int *field)
{
	char	   *lowunits;
	int			type;
	int			val;

	lowunits = downcase_truncate_identifier(VARDATA_ANY(units),
											VARSIZE_ANY_EXHDR(units), false);
	type = DecodeUnits(0, lowunits, &val);
	if (type == UNKNOWN_FIELD)
		type = DecodeSpecial(0, lowunits, &val);
	if (type == RESERV && val == DTK_EPOCH && !trunc)
	{
		*field = GPO_XF_EPOCH;
		return true;
	}
	if (type != UNITS)
		return false;
	switch (val)
	{
		case DTK_MICROSEC:
			*field = GPO_XF_MICROSECONDS;
			return true;
		case DTK_MILLISEC:
			*field = GPO_XF_MILLISECONDS;
			return true;
		case DTK_SECOND:
			*field = GPO_XF_SECOND;
			return true;
		case DTK_MINUTE:
			*field = GPO_XF_MINUTE;
			return true;
		case DTK_HOUR:
			*field = GPO_XF_HOUR;
			return true;
		case DTK_DAY:
			*field = GPO_XF_DAY;
			return true;
		case DTK_WEEK:
			*field = GPO_XF_WEEK;
			return true;
		case DTK_MONTH:
			*field = GPO_XF_MONTH;
			return true;
		case DTK_QUARTER:
			*field = GPO_XF_QUARTER;
			return true;
		case DTK_YEAR:
			*field = GPO_XF_YEAR;
			return true;
		case DTK_DECADE:
			*field = GPO_XF_DECADE;
			return true;
		case DTK_CENTURY:
			*field = GPO_XF_CENTURY;
			return true;
		case DTK_MILLENNIUM:
			*field = GPO_XF_MILLENNIUM;
			return true;
	}
	if (trunc)
		return false;
	switch (val)
	{
		case DTK_DOW:
			*field = GPO_XF_DOW;
			return true;
		case DTK_ISODOW:
			*field = GPO_XF_ISODOW;
			return true;
		case DTK_DOY:
			*field = GPO_XF_DOY;
			return true;
		case DTK_ISOYEAR:
			*field = GPO_XF_ISOYEAR;
			return true;
		case DTK_JULIAN:
			*field = GPO_XF_JULIAN;
			return true;
	}
	return false;
}
