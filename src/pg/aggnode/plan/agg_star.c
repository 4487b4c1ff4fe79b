/*
 * agg_star.c
 *	  Star joins under GpuOpsAgg: a GROUP BY over one large table joined to
 *	  smaller ones (the dimensions), each on one equality of its column with
 *	  a column of the large one (the fact table): inner joins, and the
 *	  semi-, anti- and left joins agg_star_outer.c takes.
 *
 * The dimensions are read by plans PostgreSQL makes for them (their own
 * quals, indexes, privileges and row-level security), the node's child
 * plans.  Their columns the query needs are gathered into the fact
 * table's batches as extra columns: to the rest of the node they are
 * columns of the fact table numbered after its last attribute (virtual
 * attributes), so that keys, aggregates and FILTER clauses over them are
 * classified and compiled as over any column.  The plan keeps the
 * original expressions for its scan tuple, which the query's target list
 * refers to.
 */
#include "aggnode/plan/agg_plan_int.h"
#include "heapscan/gpuops_scan.h"

#include "catalog/pg_class.h"
#include "catalog/pg_type.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/paths.h"
#include "optimizer/pathnode.h"
#include "parser/parsetree.h"
#include "utils/lsyscache.h"

/* The plain user column of one relation an equivalence member is, or NULL. */
static Var *
gpuops_star_member_var(EquivalenceMember *em)
{
	Expr	   *e = em->em_expr;

	while (e != NULL && IsA(e, RelabelType))
		e = ((RelabelType *) e)->arg;
	if (e == NULL || !IsA(e, Var) || ((Var *) e)->varlevelsup != 0 ||
		((Var *) e)->varattno <= 0)
		return NULL;
	return (Var *) e;
}

/*
 * Takes one equivalence class's members among the join's relations: where
 * they span the fact table and dimensions, each dimension's plain column
 * among them is its join key, equal to the fact table's, or the second
 * column of an inner-joined dimension's composite key (TPC-H Q9's partsupp
 * on partkey and suppkey; gpuops_star_composite_ok checks its types).
 * (Members of one relation are made equal by that relation's own
 * clauses.)  False if the class joins them in a way the node doesn't: a
 * dimension with a third key, dimensions joined only among themselves, a
 * relation whose members are not plain columns of a key type, a member
 * over several relations.
 * A class with a constant needs no join (every member equals it), but its
 * columns serve as join keys where they can.
 */
static bool
gpuops_star_take_class(GpuopsAggStar *star, EquivalenceClass *ec, Relids relids)
{
	Var		   *fact_var = NULL;
	Var		   *dim_vars[GPUOPS_AGG_MAX_DIMS];
	Relids		touched = NULL;
	bool		multi = false;
	ListCell   *lc;
	int			d;

	memset(dim_vars, 0, sizeof(dim_vars));
	foreach(lc, ec->ec_members)
	{
		EquivalenceMember *em = (EquivalenceMember *) lfirst(lc);
		Var		   *v;

		if (em->em_is_child || em->em_is_const ||
			!bms_overlap(em->em_relids, relids))
			continue;
		touched = bms_union(touched, em->em_relids);
		if (bms_membership(em->em_relids) != BMS_SINGLETON)
		{
			multi = true;
			continue;
		}
		v = gpuops_star_member_var(em);
		if (v == NULL || !gpuops_star_key_type(v->vartype))
			continue;
		if ((Index) v->varno == star->fact->relid)
		{
			if (fact_var == NULL)
				fact_var = v;
		}
		else if ((d = gpuops_star_dim_index(star, v->varno)) >= 0 &&
				 dim_vars[d] == NULL)
			dim_vars[d] = v;
	}
	if (bms_membership(touched) != BMS_MULTIPLE ||
		!bms_is_member(star->fact->relid, touched))
		return true;			/* a restriction, or a dimension's own join */
	/* equal to a constant: each relation's own clauses hold it */
	if (ec->ec_has_const && (multi || fact_var == NULL))
		return true;
	if (multi || ec->ec_broken || fact_var == NULL)
		return false;
	for (d = 0; d < star->ndims; d++)
	{
		if (!bms_overlap(star->dim_relids[d], touched))
			continue;
		if (ec->ec_has_const &&
			(dim_vars[d] == NULL || star->dim_keys[d] != NULL ||
			 !gpuops_star_key_types_match(fact_var->vartype, dim_vars[d]->vartype)))
			continue;			/* (a join key too, where it can be one) */
		if (dim_vars[d] == NULL || star->dim_keys2[d] != NULL ||
			!gpuops_star_key_types_match(fact_var->vartype, dim_vars[d]->vartype))
			return false;
		if (star->dim_keys[d] == NULL)
		{
			star->dim_keys[d] = dim_vars[d];
			star->fk_attnos[d] = fact_var->varattno;
		}
		else if (star->kinds[d] == JOIN_INNER)
		{
			star->dim_keys2[d] = dim_vars[d];
			star->fk_attnos2[d] = fact_var->varattno;
		}
		else
			return false;
	}
	return true;
}

/*
 * True unless dimension d has a composite key the engine can't pack into
 * one int64: both keys' columns, the fact's and the dimension's, must be
 * of 32-bit types (int2, int4, date).
 */
static bool
gpuops_star_composite_ok(PlannerInfo *root, GpuopsAggStar *star, int d)
{
	Oid			fk1;
	Oid			fk2;

	if (star->dim_keys2[d] == NULL)
		return true;
	fk1 = get_atttype(planner_rt_fetch(star->fact->relid, root)->relid,
					  star->fk_attnos[d]);
	fk2 = get_atttype(planner_rt_fetch(star->fact->relid, root)->relid,
					  star->fk_attnos2[d]);
	return fk1 != INT8OID && fk2 != INT8OID &&
		star->dim_keys[d]->vartype != INT8OID &&
		star->dim_keys2[d]->vartype != INT8OID;
}

/* The relations of relids that clauses join to x's (x's own included). */
static Relids
gpuops_star_joined(PlannerInfo *root, Relids relids, Relids x)
{
	Relids		out = bms_copy(x);
	ListCell   *lc;
	int			r = -1;

	foreach(lc, root->eq_classes)
	{
		EquivalenceClass *ec = (EquivalenceClass *) lfirst(lc);
		Relids		rels = bms_intersect(ec->ec_relids, relids);

		/* (members equal to a constant need no join) */
		if (!ec->ec_has_const && bms_overlap(rels, x))
			out = bms_add_members(out, rels);
	}
	while ((r = bms_next_member(x, r)) >= 0)
		foreach(lc, find_base_rel(root, r)->joininfo)
		{
			RestrictInfo *ri = lfirst_node(RestrictInfo, lc);

			if (bms_is_subset(ri->required_relids, relids))
				out = bms_add_members(out, ri->required_relids);
		}
	return out;
}

/*
 * Splits the relations of relids other than the fact table into
 * dimensions: the sets that clauses join among themselves (a snowflake's
 * branch, whose join PostgreSQL plans as the dimension's child plan);
 * false if a dimension has no plan of its own.
 */
static bool
gpuops_star_split(PlannerInfo *root, Relids relids, GpuopsAggStar *star)
{
	Index		fact = star->fact->relid;
	Relids		left = bms_del_member(bms_copy(relids), fact);
	int			x;

	while ((x = bms_next_member(left, -1)) >= 0)
	{
		Relids		dim = bms_make_singleton(x);
		Relids		grown;
		RelOptInfo *rel;

		/* the relations joined to it, and to those, leaving the fact out */
		for (;;)
		{
			grown = bms_del_member(gpuops_star_joined(root, relids, dim), fact);
			if (bms_equal(grown, dim))
				break;
			dim = grown;
		}
		if (star->ndims == GPUOPS_AGG_MAX_DIMS)
			return false;
		rel = bms_membership(dim) == BMS_SINGLETON ?
			find_base_rel(root, x) : find_join_rel(root, dim);
		if (rel == NULL || rel->cheapest_total_path == NULL || IS_DUMMY_REL(rel))
			return false;
		star->dims[star->ndims] = rel;
		star->dim_relids[star->ndims++] = dim;
		left = bms_del_members(left, dim);
	}
	return star->ndims > 0;
}

/*
 * The share of fact rows expected to match dimension d: the rows its plan
 * keeps against the rows of its join key's relation (an anti join keeps
 * the others, a left join every row).
 */
static double
gpuops_star_selectivity(GpuopsAggStar *star, int d)
{
	double		sel = Min(1.0, star->dims[d]->rows / Max(star->key_tuples[d], 1.0));

	if (star->kinds[d] == JOIN_ANTI)
		return Max(1.0 - sel, 0.01);
	return star->kinds[d] == JOIN_LEFT ? 1.0 : sel;
}

/*
 * Orders the dimensions by the share of fact rows they keep, fewest first:
 * each batch is joined to them in this order, and every join only probes
 * the rows the ones before it kept.
 */
static void
gpuops_star_order(GpuopsAggStar *star)
{
	int			i;
	int			j;

	for (i = 1; i < star->ndims; i++)
		for (j = i; j > 0 && gpuops_star_selectivity(star, j) <
			 gpuops_star_selectivity(star, j - 1); j--)
		{
			RelOptInfo *r = star->dims[j];
			Relids		rs = star->dim_relids[j];
			Var		   *k = star->dim_keys[j];
			AttrNumber	a = star->fk_attnos[j];
			Var		   *k2 = star->dim_keys2[j];
			AttrNumber	a2 = star->fk_attnos2[j];
			double		t = star->key_tuples[j];
			JoinType	kind = star->kinds[j];

			star->dims[j] = star->dims[j - 1];
			star->dim_relids[j] = star->dim_relids[j - 1];
			star->dim_keys[j] = star->dim_keys[j - 1];
			star->fk_attnos[j] = star->fk_attnos[j - 1];
			star->dim_keys2[j] = star->dim_keys2[j - 1];
			star->fk_attnos2[j] = star->fk_attnos2[j - 1];
			star->key_tuples[j] = star->key_tuples[j - 1];
			star->kinds[j] = star->kinds[j - 1];
			star->dims[j - 1] = r;
			star->dim_relids[j - 1] = rs;
			star->dim_keys[j - 1] = k;
			star->fk_attnos[j - 1] = a;
			star->dim_keys2[j - 1] = k2;
			star->fk_attnos2[j - 1] = a2;
			star->key_tuples[j - 1] = t;
			star->kinds[j - 1] = kind;
		}
}

/*
 * True (with *star filled) if joinrel is a star join the node takes: one
 * plain table (the largest not on the inner side of a semi-, anti- or
 * left join) and 1 to GPUOPS_AGG_MAX_DIMS dimensions (one relation, or
 * relations joined among themselves), each joined to it by one equality
 * of integer or date columns, whose estimated rows fit
 * gpuops.max_join_memory.
 */
bool
gpuops_agg_star_find(PlannerInfo *root, RelOptInfo *joinrel,
					 GpuopsAggStar *star)
{
	RangeTblEntry *rte;
	ListCell   *lc;
	int			x = -1;
	int			d;
	double		bytes = 0;

	memset(star, 0, sizeof(*star));
	if (joinrel->reloptkind != RELOPT_JOINREL ||
		!gpuops_star_specials(root, joinrel->relids, star))
		return false;
	while ((x = bms_next_member(joinrel->relids, x)) >= 0)
	{
		RelOptInfo *rel = find_base_rel(root, x);

		if (rel->reloptkind != RELOPT_BASEREL || rel->rtekind != RTE_RELATION ||
			IS_DUMMY_REL(rel) || rel->cheapest_total_path == NULL)
			return false;
		/* a dimension's plan runs again at a rescan: no parameters */
		foreach(lc, rel->baserestrictinfo)
			if (gpuops_needs_executor_walker((Node *) lfirst_node(RestrictInfo, lc)->clause,
											 NULL))
				return false;
		foreach(lc, rel->joininfo)
			if (gpuops_needs_executor_walker((Node *) lfirst_node(RestrictInfo, lc)->clause,
											 NULL))
				return false;
		if (!gpuops_star_inner_side(star, x) &&
			(star->fact == NULL || rel->tuples > star->fact->tuples))
			star->fact = rel;
	}
	if (star->fact == NULL)
		return false;
	rte = planner_rt_fetch(star->fact->relid, root);
	if (rte->inh || rte->tablesample != NULL ||
		(rte->relkind != RELKIND_RELATION && rte->relkind != RELKIND_MATVIEW) ||
		!gpuops_star_split(root, joinrel->relids, star) ||
		!gpuops_star_classify(star) ||
		!gpuops_star_outer_keys(joinrel->relids, star))
		return false;
	foreach(lc, root->eq_classes)
		if (!gpuops_star_take_class(star, (EquivalenceClass *) lfirst(lc),
									joinrel->relids))
			return false;
	for (d = 0; d < star->ndims; d++)
	{
		RelOptInfo *dim = star->dims[d];

		if (star->dim_keys[d] == NULL)
			return false;		/* a cross join */
		if (!gpuops_star_composite_ok(root, star, d))
			return false;
		star->key_tuples[d] = find_base_rel(root, star->dim_keys[d]->varno)->tuples;
		bytes += dim->rows * (dim->reltarget->width + 24.0);
	}
	if (gpuops_max_join_memory == 0 ||
		bytes > (double) gpuops_max_join_memory * 1024.0)
		return false;
	gpuops_star_order(star);
	star->fact_natts = star->fact->max_attr;
	return true;
}

/*
 * The virtual column (from 0) of e, a dimension's Var or an expression its
 * plan computes (dimension d's): a new one the first time.
 */
static int
gpuops_star_gather(GpuopsAggStar *star, Node *e, int d)
{
	ListCell   *lc;

	foreach(lc, star->gathered)
	{
		Node	   *o = (Node *) lfirst(lc);

		/* (a column is one, whichever join alias names it) */
		if (IsA(e, Var) ? IsA(o, Var) && ((Var *) o)->varno == ((Var *) e)->varno &&
			((Var *) o)->varattno == ((Var *) e)->varattno : equal(o, e))
			return foreach_current_index(lc);
	}
	star->gathered = lappend(star->gathered, copyObject(e));
	star->gathered_dims = lappend_int(star->gathered_dims, d);
	return list_length(star->gathered) - 1;
}

/* The virtual fact column (from 0) g, standing for e. */
static Node *
gpuops_star_virtual_var(GpuopsAggStar *star, Node *e, int g)
{
	Index		fact = star->fact->relid;
	AttrNumber	attno = (AttrNumber) (star->fact_natts + 1 + g);

	return (Node *) makeVar(fact, attno, exprType(e), exprTypmod(e),
							exprCollation(e), 0);
}

/*
 * Mutator: a dimension's Var becomes a virtual attribute of the fact table
 * (a new one the first time), and so does an expression over one
 * dimension's columns that its plan can compute (agg_star_exprs.c); a Var
 * of a type the node can't gather sets star->bad.
 */
static Node *
gpuops_star_to_fact_mutator(Node *node, GpuopsAggStar *star)
{
	int			d;

	if (node == NULL)
		return NULL;
	if (IsA(node, Var) && ((Var *) node)->varlevelsup == 0 &&
		(d = gpuops_star_dim_index(star, ((Var *) node)->varno)) >= 0)
	{
		Var		   *v = (Var *) node;
		gpo_type	phys;

		/*
		 * fixed-width columns, numeric(p, s) as the reader takes it, and
		 * text keys (codes); never of a semi or anti join's inner side
		 * (which SQL doesn't show)
		 */
		if (v->varattno <= 0 ||
			star->kinds[d] == JOIN_SEMI || star->kinds[d] == JOIN_ANTI ||
			(!gpuops_scan_col_type_mod(v->vartype, v->vartypmod, &phys) &&
			 !gpuops_agg_text_key(v->vartype, v->varcollid)))
			star->bad = true;
		return gpuops_star_virtual_var(star, node,
									   gpuops_star_gather(star, node, d));
	}
	/*
	 * outside aggregates only a grouping key itself (the rest is computed
	 * from the keys above the node)
	 */
	if ((star->in_agg > 0 || list_member(star->group_exprs, node)) &&
		(d = gpuops_star_dim_expr(star, node)) >= 0)
		return gpuops_star_virtual_var(star, node,
									   gpuops_star_gather(star, node, d));
	if (IsA(node, Aggref))
	{
		Node	   *out;

		star->in_agg++;
		out = expression_tree_mutator(node, gpuops_star_to_fact_mutator, star);
		star->in_agg--;
		return out;
	}
	return expression_tree_mutator(node, gpuops_star_to_fact_mutator, star);
}

/* A copy of node with the dimensions' Vars as virtual fact columns. */
Node *
gpuops_agg_star_to_fact(GpuopsAggStar *star, Node *node)
{
	return gpuops_star_to_fact_mutator(node, star);
}

/* Mutator: a virtual fact column becomes its dimension's Var again. */
static Node *
gpuops_star_from_fact_mutator(Node *node, GpuopsAggStar *star)
{
	if (node == NULL)
		return NULL;
	if (IsA(node, Var) && ((Var *) node)->varlevelsup == 0 &&
		(Index) ((Var *) node)->varno == star->fact->relid &&
		((Var *) node)->varattno > star->fact_natts)
		return copyObject(list_nth(star->gathered,
								   ((Var *) node)->varattno - star->fact_natts - 1));
	return expression_tree_mutator(node, gpuops_star_from_fact_mutator, star);
}

/* A copy of node with the virtual fact columns as the dimensions' Vars. */
Node *
gpuops_agg_star_from_fact(GpuopsAggStar *star, Node *node)
{
	return gpuops_star_from_fact_mutator(node, star);
}

/* The attribute numbers of the fact table itself among attnos (pull_varattnos offsets). */
Bitmapset *
gpuops_agg_star_real_attnos(GpuopsAggStar *star, Bitmapset *attnos)
{
	Bitmapset  *real = NULL;
	int			x = -1;

	while ((x = bms_next_member(attnos, x)) >= 0)
		if (star == NULL ||
			x + FirstLowInvalidHeapAttributeNumber <= star->fact_natts)
			real = bms_add_member(real, x);
	return real;
}

/*
 * A dimension's plan runs in the backend alone, before the fact table is
 * read, where PostgreSQL's own plan would read its largest table with
 * parallel workers too (and not charge less for the pages they share: the
 * planner does not divide seq_page_cost).  So its cost counts as many
 * times as the processes PostgreSQL would use for that table.  TPC-H Q3 on
 * 16 cores, 6M rows: orders joined to customer (cost 45k) took 225 ms in
 * the backend, against PostgreSQL's whole parallel plan's 245 ms for a cost
 * of 203k.  Small dimensions get no workers and count once.
 */
static double
gpuops_star_serial_factor(PlannerInfo *root, RelOptInfo *dim, int threads)
{
	RelOptInfo *largest = NULL;
	int			x = -1;
	int			workers;

	if (!root->glob->parallelModeOK || max_parallel_workers_per_gather <= 0)
		return 1.0;
	while ((x = bms_next_member(dim->relids, x)) >= 0)
	{
		RelOptInfo *rel = x < root->simple_rel_array_size ?
			root->simple_rel_array[x] : NULL;

		if (rel != NULL && rel->reloptkind == RELOPT_BASEREL &&
			(largest == NULL || rel->pages > largest->pages))
			largest = rel;
	}
	if (largest == NULL || !largest->consider_parallel)
		return 1.0;
	workers = compute_parallel_worker(largest, largest->pages, -1,
									  max_parallel_workers_per_gather);
	return 1.0 + Min(workers, threads - 1);
}

/*
 * Dimension dim's plan before its projection, and how many times its cost
 * counts (*factor): its cheapest path, run in the backend alone
 * (gpuops_star_serial_factor), or a Gather over its cheapest partial path,
 * whose workers read it as PostgreSQL's own plan would, where that costs
 * less.  The Gather's workers are done before the fact table is read.
 */
static Path *
gpuops_star_dim_base(PlannerInfo *root, RelOptInfo *dim, int threads,
					 double *factor)
{
	Path	   *serial = dim->cheapest_total_path;
	Path	   *partial;
	GatherPath *gather;

	*factor = gpuops_star_serial_factor(root, dim, threads);
	if (*factor <= 1.0 || dim->partial_pathlist == NIL ||
		!dim->consider_parallel)
		return serial;
	/* (the list is sorted by total cost) */
	partial = (Path *) linitial(dim->partial_pathlist);
	if (partial->param_info != NULL || partial->parallel_workers < 1)
		return serial;
	gather = create_gather_path(root, dim, partial, dim->reltarget, NULL, NULL);
	if (gather->path.total_cost >= serial->total_cost * *factor)
		return serial;
	*factor = 1.0;
	return &gather->path;
}

/*
 * Adds to path what the star join costs beyond reading the fact table:
 * the dimensions' plans; each dimension's table, built once (by every
 * reading process at once); and per dimension, a probe of each fact row
 * that the fact's own clauses and the joins before kept, shared by the
 * reading processes' engine threads (the processes share the cores), as
 * the decoding is (gpuops_agg_cost).  On 2 cores, 600k SSB rows, a probe with
 * its gathers took 26 ns of 2 threads' time against 12 ns a row read and
 * aggregated, about the same cost units a nanosecond as the read's.
 */
void
gpuops_agg_star_cost(PlannerInfo *root, GpuopsAggStar *star,
					 double fact_rows, int workers, Path *path)
{
	double		rows = fact_rows;
	Cost		extra = 0;
	gpo_ctx		ctx;
	int			threads;
	int			d;

	gpuops_ctx_init(&ctx);
	threads = Max(gpo_threads(&ctx), 1);
	for (d = 0; d < star->ndims; d++)
	{
		double		factor;
		Path	   *base = gpuops_star_dim_base(root, star->dims[d], threads,
												&factor);
		Path	   *child = star->paths[d] = gpuops_star_dim_path(root, star, d,
																  base);

		extra += child->total_cost * factor +
			star->dims[d]->rows * 2.0 * cpu_operator_cost +
			rows * 2.0 * cpu_operator_cost / Max(threads, workers + 1);
		rows *= gpuops_star_selectivity(star, d);
	}
	path->startup_cost += extra;
	path->total_cost += extra;
}
