/*
 * errors.c
 *	  The one place where an engine status becomes a PostgreSQL error.
 */
#include "common/gpuops.h"

#include "catalog/pg_type.h"
#include "utils/elog.h"

/* PostgreSQL's own out-of-range message for a result type. */
static const char *
gpuops_overflow_message(Oid result_type)
{
	switch (result_type)
	{
		case INT2OID:
			return "smallint out of range";
		case INT4OID:
			return "integer out of range";
		case INT8OID:
			return "bigint out of range";
		case FLOAT4OID:
		case FLOAT8OID:
			return "value out of range: overflow";
		default:
			return "value out of range";
	}
}

/* The last engine call of this backend, for gpuops.last_run(). */
static char gpuops_last_op[64];
static gpo_device gpuops_last_face = GPO_DEVICE_AUTO;
static char gpuops_last_detail[sizeof(((gpo_ctx *) 0)->detail)];

/* Remembers which face ran an engine call (a scratch query runs none). */
static void
gpuops_note_run(gpo_status st, const gpo_ctx *ctx, const char *op)
{
	if (st == GPO_OK && ctx->used == GPO_DEVICE_AUTO)
		return;
	strlcpy(gpuops_last_op, op, sizeof(gpuops_last_op));
	gpuops_last_face = ctx->used;
	strlcpy(gpuops_last_detail, ctx->detail, sizeof(gpuops_last_detail));
}

/* The last engine call: its operation, its face ("gpu", "cpu" or "none") and detail; false if none yet. */
bool
gpuops_last_run(const char **op, const char **face, const char **detail)
{
	if (gpuops_last_op[0] == '\0')
		return false;
	*op = gpuops_last_op;
	*face = gpuops_last_face == GPO_DEVICE_GPU ? "gpu" :
		gpuops_last_face == GPO_DEVICE_CPU ? "cpu" : "none";
	*detail = gpuops_last_detail[0] != '\0' ? gpuops_last_detail : NULL;
	return true;
}

/* Report a failed engine call; on success, log an AUTO fallback at DEBUG1. */
void
gpuops_check_status(gpo_status st, const gpo_ctx *ctx, const char *op,
					Oid result_type)
{
	gpuops_note_run(st, ctx, op);
	switch (st)
	{
		case GPO_OK:
			if (ctx->detail[0] != '\0')
				ereport(DEBUG1,
						(errmsg_internal("gpuops %s ran on the %s: %s", op,
										 ctx->used == GPO_DEVICE_GPU ? "GPU" : "CPU",
										 ctx->detail)));
			return;

		case GPO_ERR_OVERFLOW:
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("%s", gpuops_overflow_message(result_type))));
			break;

		case GPO_ERR_NOMEM:
			ereport(ERROR,
					(errcode(ERRCODE_OUT_OF_MEMORY),
					 errmsg("out of memory"),
					 errdetail("gpuops %s could not allocate host memory.", op)));
			break;

		case GPO_ERR_DEVICE_NOMEM:
			ereport(ERROR,
					(errcode(ERRCODE_OUT_OF_MEMORY),
					 errmsg("out of GPU memory"),
					 errdetail("gpuops %s could not allocate device or pinned memory%s%s",
							   op,
							   ctx->detail[0] != '\0' ? ": " : ".",
							   ctx->detail),
					 errhint("The GPU face holds the whole input on the device: set gpuops.device to 'cpu' (or 'auto', which falls back) for inputs this large.")));
			break;

		case GPO_ERR_NO_DEVICE:
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("gpuops.device is \"gpu\" but no usable GPU was found"),
					 ctx->detail[0] != '\0' ? errdetail("%s", ctx->detail) : 0,
					 errhint("Set gpuops.device to 'auto' or 'cpu'.")));
			break;

		case GPO_ERR_DEVICE:
			ereport(ERROR,
					(errcode(ERRCODE_INTERNAL_ERROR),
					 errmsg("gpuops %s failed on the GPU", op),
					 ctx->detail[0] != '\0' ? errdetail("%s", ctx->detail) : 0));
			break;

		case GPO_ERR_INVALID:
		case GPO_ERR_CAPACITY:
			/* the glue validates its arguments first: can't happen */
			elog(ERROR, "gpuops %s: engine rejected its arguments: %s%s%s",
				 op, gpo_status_text(st),
				 ctx->detail[0] != '\0' ? ": " : "", ctx->detail);
			break;
	}

	elog(ERROR, "gpuops %s: unknown engine status %d", op, (int) st);
}
