/*
 * expr_check.c
 *	  Checks of the expression machine (gpo_expr.h): the program alone
 *	  (operators, widths, fields, columns, jumps and the stack depth along
 *	  every path) and all of gpo_expr_eval's arguments, shared by both faces.
 *
 * The depth check walks the program once, forward: a node's depth is known
 * from the node before it (unless that one jumps away for good) or from a
 * jump to it, and every way in must agree.  Jumps go forward only, so one
 * pass sees every way into a node before the node itself.  A node no path
 * reaches is checked for its fields only; it never runs.
 */
#include <stdlib.h>
#include <string.h>

#include "gpo_expr_eval.h"
#include "gpo_internal.h"

/* The fields each date/time operator accepts. */
static bool
field_ok(int op, int field)
{
	if (field < 0 || field >= GPO_XF_COUNT)
		return false;
	switch (op)
	{
		case GPO_X_TS_PART:
			return true;
		case GPO_X_TS_EXTRACT:
			return field != GPO_XF_JULIAN;
		case GPO_X_DATE_EXTRACT:
			/* time fields: "unit ... not supported for type date" */
			return field >= GPO_XF_DAY && field != GPO_XF_JULIAN;
		default:
			return field <= GPO_XF_MILLENNIUM;
	}
}

/* Checks node i's own fields (not the stack); false with ctx->detail set. */
static bool
node_ok(gpo_ctx *ctx, int ncols, const gpo_xnode *p, int i, int nnodes)
{
	int			op = p->op;
	int			w = p->width;
	const char *why = NULL;

	if (op < 0 || op >= GPO_X_OP_COUNT)
		why = "an unknown operator";
	else if (op == GPO_X_COL && (p->arg < 0 || p->arg >= ncols))
		why = "a column out of range";
	else if ((op == GPO_X_CONST || op == GPO_X_NULLIF) && w != 0 && w != 1)
		why = "a slot kind other than 0 or 1";
	else if (((op >= GPO_X_IADD && op <= GPO_X_IABS) || op == GPO_X_I2I ||
			  op == GPO_X_F2I) && w != 2 && w != 4 && w != 8)
		why = "an integer width other than 2, 4 or 8";
	else if (((op >= GPO_X_FADD && op <= GPO_X_FABS) || op == GPO_X_I2F ||
			  op == GPO_X_F2F) && w != 4 && w != 8)
		why = "a float width other than 4 or 8";
	else if (op == GPO_X_NCMP && (p->ival < -18 || p->ival > 18))
		why = "a numeric comparison of scales 19 or more apart";
	else if ((op == GPO_X_ICMP || op == GPO_X_FCMP || op == GPO_X_NCMP) &&
			 (p->arg < GPO_CMP_EQ || p->arg > GPO_CMP_GE))
		why = "an unknown comparison";
	else if (op == GPO_X_NSCALE && (p->arg < 1 || p->arg > 18))
		why = "a numeric rescale other than 10^1 .. 10^18";
	else if (op == GPO_X_ISTRUE && (p->ival < 0 || p->ival > 3))
		why = "an unknown IS TRUE variant";
	else if ((op == GPO_X_AND_STEP || op == GPO_X_OR_STEP ||
			  op == GPO_X_JUMP || op == GPO_X_JUMP_IF_NOT_TRUE ||
			  op == GPO_X_JUMP_IF_NOT_NULL) &&
			 (p->arg <= i || p->arg > nnodes))
		why = "a jump that is not forward within the program";
	else if ((op == GPO_X_TS_PART || op == GPO_X_TS_EXTRACT ||
			  op == GPO_X_DATE_EXTRACT || op == GPO_X_TS_TRUNC) &&
			 !field_ok(op, p->arg))
		why = "a field the operator does not support";
	if (why == NULL)
		return true;
	gpo_set_detail(ctx, "expression node %d (operator %d, arg %d) has %s",
				   i, op, (int) p->arg, why);
	return false;
}

/* Records depth d for a way into node t; false if another way disagrees. */
static bool
merge_depth(gpo_ctx *ctx, int *depth, int t, int d, int from)
{
	if (depth[t] < 0)
		depth[t] = d;
	else if (depth[t] != d)
	{
		gpo_set_detail(ctx, "expression node %d is reached with %d values from node %d but %d before",
					   t, d, from, depth[t]);
		return false;
	}
	return true;
}

/* Follows node i's stack effect into the depths of the nodes it leads to. */
static bool
flow_ok(gpo_ctx *ctx, const gpo_xnode *p, int i, int *depth)
{
	int			d = depth[i];
	int			pops;
	int			pushes;
	int			nd;

	gpo_xop_effect(p->op, &pops, &pushes);
	if (pops > d)
	{
		gpo_set_detail(ctx, "expression node %d pops %d values but the stack holds %d",
					   i, pops, d);
		return false;
	}
	nd = d - pops + pushes;
	if (nd > GPO_EXPR_MAX_DEPTH)
	{
		gpo_set_detail(ctx, "expression program needs a stack deeper than %d",
					   GPO_EXPR_MAX_DEPTH);
		return false;
	}
	switch (p->op)
	{
		case GPO_X_JUMP:
			return merge_depth(ctx, depth, p->arg, d, i);
		case GPO_X_JUMP_IF_NOT_NULL:
			/* the jump keeps the value it tested */
			if (!merge_depth(ctx, depth, p->arg, d, i))
				return false;
			break;
		case GPO_X_JUMP_IF_NOT_TRUE:
		case GPO_X_AND_STEP:
		case GPO_X_OR_STEP:
			if (!merge_depth(ctx, depth, p->arg, nd, i))
				return false;
			break;
	}
	return merge_depth(ctx, depth, i + 1, nd, i);
}

/* Checks a program alone against ncols columns (see gpo_expr.h). */
gpo_status
gpo_expr_check(gpo_ctx *ctx, int ncols, const gpo_xnode *prog, int nnodes)
{
	gpo_ctx		sink;
	int			depth[GPO_EXPR_MAX_NODES + 1];

	if (ctx == NULL)
		ctx = &sink;
	if (prog == NULL || nnodes <= 0 || nnodes > GPO_EXPR_MAX_NODES)
	{
		gpo_set_detail(ctx, "expression program has %d nodes at %p (1 to %d allowed)",
					   nnodes, (const void *) prog, GPO_EXPR_MAX_NODES);
		return GPO_ERR_INVALID;
	}
	for (int i = 0; i <= nnodes; i++)
		depth[i] = -1;
	depth[0] = 0;
	for (int i = 0; i < nnodes; i++)
	{
		if (!node_ok(ctx, ncols, &prog[i], i, nnodes))
			return GPO_ERR_INVALID;
		if (depth[i] >= 0 && !flow_ok(ctx, &prog[i], i, depth))
			return GPO_ERR_INVALID;
	}
	if (depth[nnodes] != 1)
	{
		gpo_set_detail(ctx, "expression program leaves %d values on the stack, not 1",
					   depth[nnodes]);
		return GPO_ERR_INVALID;
	}
	return GPO_OK;
}

/* The decimal scale of TS_EXTRACT / DATE_EXTRACT results (see gpo_expr.h). */
int
gpo_expr_extract_scale(gpo_xop op, gpo_xfield field)
{
	if (op != GPO_X_TS_EXTRACT)
		return 0;
	if (field == GPO_XF_MILLISECONDS)
		return 3;
	if (field == GPO_XF_SECOND || field == GPO_XF_EPOCH)
		return 6;
	return 0;
}

/* need[c] = 1 where the program reads column c, else 0. */
void
gpo_expr_needs(const gpo_xnode *prog, int nnodes, int ncols, uint8_t *need)
{
	memset(need, 0, ncols > 0 ? ncols : 0);
	for (int i = 0; i < nnodes; i++)
		if (prog[i].op == GPO_X_COL && prog[i].arg >= 0 && prog[i].arg < ncols)
			need[prog[i].arg] = 1;
}

/* Rows gpo_expr_eval evaluates for these (checked) arguments. */
int64_t
gpo_expr_rows(int ncols, const gpo_vector *columns, const gpo_vector *mask,
			  const gpo_vector *out)
{
	if (ncols > 0)
		return gpo_vector_rows(&columns[0]);
	return mask != NULL ? gpo_vector_rows(mask) : gpo_vector_rows(out);
}

/* Checks the input columns: well-formed and of equal row counts. */
static gpo_status
check_columns(gpo_ctx *ctx, int ncols, const gpo_vector *columns)
{
	gpo_status	st;

	if (ncols < 0 || (ncols > 0 && columns == NULL))
	{
		gpo_set_detail(ctx, "expression has %d columns at %p", ncols,
					   (const void *) columns);
		return GPO_ERR_INVALID;
	}
	for (int c = 0; c < ncols; c++)
	{
		if ((st = gpo_check_vector(ctx, &columns[c], "expression column")) != GPO_OK)
			return st;
		if (gpo_vector_rows(&columns[c]) != gpo_vector_rows(&columns[0]))
		{
			gpo_set_detail(ctx, "expression column %d has %lld rows, column 0 has %lld",
						   c, (long long) gpo_vector_rows(&columns[c]),
						   (long long) gpo_vector_rows(&columns[0]));
			return GPO_ERR_INVALID;
		}
	}
	return GPO_OK;
}

/* Checks out: its type for the slot kind, capacity and validity bitmaps. */
static gpo_status
check_out(gpo_ctx *ctx, bool out_double, const gpo_vector *out, int64_t rows)
{
	gpo_status	st;
	int64_t		at = 0;
	bool		ok_type;

	if ((st = gpo_check_vector(ctx, out, "expression output")) != GPO_OK)
		return st;
	ok_type = out_double ? (out->type == GPO_FLOAT32 || out->type == GPO_FLOAT64) :
		(out->type == GPO_INT32 || out->type == GPO_INT64);
	if (!ok_type)
	{
		gpo_set_detail(ctx, "expression output of type %s can't hold a %s result",
					   gpo_type_name(out->type), out_double ? "float" : "integer");
		return GPO_ERR_INVALID;
	}
	if (gpo_vector_rows(out) < rows)
	{
		gpo_set_detail(ctx, "expression output holds %lld rows but %lld are evaluated",
					   (long long) gpo_vector_rows(out), (long long) rows);
		return GPO_ERR_INVALID;
	}
	for (int32_t c = 0; c < out->nchunks && at < rows; c++)
	{
		if (out->chunks[c].n > 0 && out->chunks[c].validity == NULL)
		{
			gpo_set_detail(ctx, "expression output chunk %d has no validity bitmap", c);
			return GPO_ERR_INVALID;
		}
		at += out->chunks[c].n;
	}
	return GPO_OK;
}

/* Checks all of gpo_expr_eval's arguments (shared by both faces). */
gpo_status
gpo_expr_check_args(gpo_ctx *ctx, int ncols, const gpo_vector *columns,
					const gpo_xnode *prog, int nnodes, bool out_double,
					const gpo_vector *mask, const gpo_vector *out,
					const gpo_expr_error *err)
{
	gpo_status	st;
	int64_t		rows;

	if ((st = check_columns(ctx, ncols, columns)) != GPO_OK)
		return st;
	if ((st = gpo_expr_check(ctx, ncols, prog, nnodes)) != GPO_OK)
		return st;
	if (err == NULL)
	{
		gpo_set_detail(ctx, "expression error output is NULL");
		return GPO_ERR_INVALID;
	}
	if (mask != NULL)
	{
		if ((st = gpo_check_vector(ctx, mask, "expression mask")) != GPO_OK)
			return st;
		if (mask->type != GPO_UINT8)
		{
			gpo_set_detail(ctx, "expression mask must be uint8, not %s",
						   gpo_type_name(mask->type));
			return GPO_ERR_INVALID;
		}
	}
	if (out == NULL || (ncols == 0 && mask == NULL && !gpo_vector_ok(out)))
		return gpo_check_vector(ctx, out, "expression output");
	rows = gpo_expr_rows(ncols, columns, mask, out);
	if (mask != NULL && gpo_vector_rows(mask) != rows)
	{
		gpo_set_detail(ctx, "expression mask has %lld rows but the columns %lld",
					   (long long) gpo_vector_rows(mask), (long long) rows);
		return GPO_ERR_INVALID;
	}
	return check_out(ctx, out_double, out, rows);
}
