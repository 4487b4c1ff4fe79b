/*
 * agg_star_keys.c
 *	  What a star join's join keys may be (agg_star.c, agg_star_outer.c):
 *	  their types, the columns they are, and the dimension a relation is
 *	  part of.
 */
#include "aggnode/plan/agg_plan_int.h"

#include "catalog/pg_type.h"

/* True if typid is a join key type: int2, int4, int8 (one family) or date. */
bool
gpuops_star_key_type(Oid typid)
{
	return typid == INT2OID || typid == INT4OID || typid == INT8OID ||
		typid == DATEOID;
}

/* True if a and b are join key types the engine compares as numbers alike. */
bool
gpuops_star_key_types_match(Oid a, Oid b)
{
	return (a == DATEOID) == (b == DATEOID);
}

/* The index of the dimension that relation rti is part of, or -1. */
int
gpuops_star_dim_index(GpuopsAggStar *star, Index rti)
{
	int			d;

	for (d = 0; d < star->ndims; d++)
		if (bms_is_member(rti, star->dim_relids[d]))
			return d;
	return -1;
}

/* The plain column an operand of a join clause is, or NULL. */
Var *
gpuops_star_operand_var(Node *e)
{
	while (e != NULL && IsA(e, RelabelType))
		e = (Node *) ((RelabelType *) e)->arg;
	if (e == NULL || !IsA(e, Var) || ((Var *) e)->varlevelsup != 0 ||
		((Var *) e)->varattno <= 0 ||
		!gpuops_star_key_type(((Var *) e)->vartype))
		return NULL;
	return (Var *) e;
}
