/*
 * agg_star_outer.c
 *	  The semi-, anti- and left joins of a star join (agg_star.c).
 *
 * A dimension may be the inner side of a semi join (EXISTS, IN (SELECT
 * ...)), an anti join (NOT EXISTS, or a LEFT JOIN kept only where it found
 * nothing) or a LEFT JOIN, when the outer side is the fact table alone.  A
 * semi join's equality is in an equivalence class, as an inner join's; an
 * anti or left join's is the join's own clause, which must be the one
 * equality of a fact column with a dimension column.  Any other outer,
 * semi or anti join must lie inside one dimension, whose child plan then
 * does it.
 */
#include "aggnode/plan/agg_plan_int.h"

#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"

/*
 * Takes the query's special joins (outer, semi and anti) into star; false
 * with a placeholder or a lateral reference, which the node doesn't keep.
 */
bool
gpuops_star_specials(PlannerInfo *root, Relids relids, GpuopsAggStar *star)
{
	ListCell   *lc;

	if (root->placeholder_list != NIL || root->hasLateralRTEs)
		return false;
	foreach(lc, root->join_info_list)
	{
		SpecialJoinInfo *sj = (SpecialJoinInfo *) lfirst(lc);

		if (!bms_is_subset(sj->syn_lefthand, relids) ||
			!bms_is_subset(sj->syn_righthand, relids))
			return false;
		star->specials = lappend(star->specials, sj);
	}
	return true;
}

/* True if relation rti is on the inner side of a special join (never the fact). */
bool
gpuops_star_inner_side(GpuopsAggStar *star, Index rti)
{
	ListCell   *lc;

	foreach(lc, star->specials)
	{
		SpecialJoinInfo *sj = (SpecialJoinInfo *) lfirst(lc);

		if (bms_is_member(rti, sj->syn_righthand) ||
			(sj->jointype == JOIN_FULL && bms_is_member(rti, sj->syn_lefthand)))
			return true;
	}
	return false;
}

/* The dimension whose relations are exactly relids, or -1. */
static int
gpuops_star_dim_of(GpuopsAggStar *star, Relids relids)
{
	int			d;

	for (d = 0; d < star->ndims; d++)
		if (bms_equal(star->dim_relids[d], relids))
			return d;
	return -1;
}

/*
 * Sets each dimension's join kind from the special joins (inner where
 * none): a semi, anti or left join of the fact table alone with exactly
 * one dimension gives that dimension its kind; any other must lie inside
 * one dimension.  False otherwise.
 */
bool
gpuops_star_classify(GpuopsAggStar *star)
{
	Index		fact = star->fact->relid;
	ListCell   *lc;
	int			d;

	for (d = 0; d < star->ndims; d++)
		star->kinds[d] = JOIN_INNER;
	foreach(lc, star->specials)
	{
		SpecialJoinInfo *sj = (SpecialJoinInfo *) lfirst(lc);
		Relids		all = bms_union(bms_union(sj->min_lefthand, sj->min_righthand),
									sj->syn_righthand);

		if (bms_is_member(fact, sj->min_lefthand))
		{
			if (sj->jointype != JOIN_SEMI && sj->jointype != JOIN_ANTI &&
				sj->jointype != JOIN_LEFT)
				return false;
			if (bms_membership(sj->min_lefthand) != BMS_SINGLETON ||
				(d = gpuops_star_dim_of(star, sj->syn_righthand)) < 0 ||
				star->kinds[d] != JOIN_INNER)
				return false;
			star->kinds[d] = sj->jointype;
			continue;
		}
		if (bms_is_member(fact, all))
			return false;
		/* inside one dimension: its child plan does it */
		for (d = 0; d < star->ndims; d++)
			if (bms_is_subset(all, star->dim_relids[d]))
				break;
		if (d == star->ndims)
			return false;
	}
	return true;
}

/*
 * Takes a join clause of the fact table as the key of the anti or left
 * join it belongs to: the join's own (not pushed down) equality of a fact
 * column with a column of the dimension, its only one.  False for any
 * other clause.
 */
static bool
gpuops_star_outer_key(GpuopsAggStar *star, RestrictInfo *ri)
{
	Index		fact = star->fact->relid;
	OpExpr	   *op = (OpExpr *) ri->clause;
	Var		   *a;
	Var		   *b;
	int			d;

	if (ri->is_pushed_down || ri->mergeopfamilies == NIL ||
		!IsA(op, OpExpr) || list_length(op->args) != 2)
		return false;
	a = gpuops_star_operand_var(linitial(op->args));
	b = gpuops_star_operand_var(lsecond(op->args));
	if (a == NULL || b == NULL)
		return false;
	if ((Index) b->varno == fact)
	{
		Var		   *t = a;

		a = b;
		b = t;
	}
	if ((Index) a->varno != fact || (d = gpuops_star_dim_index(star, b->varno)) < 0 ||
		(star->kinds[d] != JOIN_ANTI && star->kinds[d] != JOIN_LEFT) ||
		star->dim_keys[d] != NULL ||
		!gpuops_star_key_types_match(a->vartype, b->vartype))
		return false;
	star->dim_keys[d] = b;
	star->fk_attnos[d] = a->varattno;
	return true;
}

/*
 * Takes the anti and left joins' keys from the fact table's join clauses;
 * false if any other clause joins the fact table to a dimension (inner and
 * semi joins' equalities are equivalence classes, agg_star.c's).
 */
bool
gpuops_star_outer_keys(Relids relids, GpuopsAggStar *star)
{
	ListCell   *lc;

	foreach(lc, star->fact->joininfo)
	{
		RestrictInfo *ri = lfirst_node(RestrictInfo, lc);

		if (bms_is_subset(ri->required_relids, relids) &&
			!gpuops_star_outer_key(star, ri))
			return false;
	}
	return true;
}
