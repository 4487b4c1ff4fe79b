/*
 * gpo_histjoin_internal.h
 *	  Scratch sizes of the histogram, hash join and gather CPU faces (the
 *	  dispatcher steps they share with every primitive are in gpo_internal.h).
 *
 * Plain C11; for the src/core files only.
 */
#ifndef GPO_HISTJOIN_INTERNAL_H
#define GPO_HISTJOIN_INTERNAL_H

#include <stdio.h>
#include <string.h>

#include "gpo_hist.h"
#include "gpo_internal.h"
#include "gpo_join.h"

/* Host scratch bytes of each CPU face (histogram.c, hashjoin.c, gather.c). */
extern size_t gpo_histogram_scratch_bytes(const gpo_ctx *ctx,
										  const gpo_vector *values,
										  const gpo_vector *mask,
										  const gpo_hist_spec *spec);
extern size_t gpo_hash_join_scratch_bytes(const gpo_ctx *ctx,
										  const gpo_vector *build_keys,
										  const gpo_vector *probe_keys,
										  const gpo_vector *build_rows,
										  const gpo_vector *probe_rows);
/* Host scratch bytes of a join table's probe (jointable.c). */
extern size_t gpo_join_probe_scratch_bytes(const gpo_ctx *ctx,
										   const gpo_vector *probe_keys,
										   const gpo_vector *build_rows,
										   const gpo_vector *probe_rows);
/* A join table's probe, CPU face (arguments checked, scratch given). */
extern gpo_status gpo_join_table_probe_cpu(gpo_ctx *ctx, gpo_join_kind kind,
										   const gpo_join_table *t,
										   const gpo_vector *probe_keys,
										   gpo_vector *build_rows,
										   gpo_vector *probe_rows,
										   int64_t *count, void *scratch);
extern size_t gpo_gather_scratch_bytes(const gpo_ctx *ctx,
									   const gpo_vector *in,
									   const gpo_vector *index,
									   const gpo_vector *out);

#endif							/* GPO_HISTJOIN_INTERNAL_H */
