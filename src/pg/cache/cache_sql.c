/*
 * cache_sql.c
 *	  The column cache's SQL face: gpuops.cache_table, uncache_table,
 *	  cache_refresh and cache_status; the trigger gpuops.cache_mark that marks
 *	  the ranges of changed tuples stale; and the hook that stops serving a
 *	  table whose triggers are altered or dropped.
 */
#include "cache/cache_int.h"

#include "access/genam.h"
#include "access/stratnum.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/xlog.h"
#include "catalog/dependency.h"
#include "catalog/objectaccess.h"
#include "catalog/pg_class.h"
#include "catalog/pg_database.h"
#include "catalog/indexing.h"
#include "catalog/pg_trigger.h"
#include "catalog/pg_type.h"
#include "commands/trigger.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/syscache.h"

PG_FUNCTION_INFO_V1(gpuops_cache_mark);
PG_FUNCTION_INFO_V1(gpuops_cache_table);
PG_FUNCTION_INFO_V1(gpuops_uncache_table);
PG_FUNCTION_INFO_V1(gpuops_cache_refresh);
PG_FUNCTION_INFO_V1(gpuops_cache_status);

static object_access_hook_type prev_object_access_hook = NULL;

/* Bumps the gen of the range of block blkno of t, or of every range (all). */
static void
gpuops_cache_mark_block(GpuopsCacheTable *t, BlockNumber blkno, bool all)
{
	GpuopsCacheRange *ranges = gpuops_cache_ranges(t);
	int64		i = blkno / t->range_blocks;

	if (ranges == NULL)
		return;
	if (all)
		for (i = 0; i < t->nranges; i++)
			pg_atomic_fetch_add_u32(&ranges[i].gen, 1);
	else if (i < t->nranges)
		pg_atomic_fetch_add_u32(&ranges[i].gen, 1);
	else
		t->grown = true;		/* (a hint: the refresher reads new blocks) */
}

/*
 * The trigger (AFTER each row, and AFTER TRUNCATE): marks the ranges of the
 * old and the new tuple stale before the change commits.
 */
Datum
gpuops_cache_mark(PG_FUNCTION_ARGS)
{
	TriggerData *td = (TriggerData *) fcinfo->context;
	GpuopsCacheTable *t;

	if (!CALLED_AS_TRIGGER(fcinfo))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("gpuops.cache_mark() must be called as a trigger")));
	t = gpuops_cache_find(RelationGetRelid(td->tg_relation));
	if (t == NULL)
		return PointerGetDatum(NULL);
	(void) gpuops_cache_area(); /* (attached before any slot's lock) */
	LWLockAcquire(t->lock, LW_SHARED);
	if (t->in_use && t->relid == RelationGetRelid(td->tg_relation) &&
		t->dbid == MyDatabaseId)
	{
		if (TRIGGER_FIRED_BY_TRUNCATE(td->tg_event))
			gpuops_cache_mark_block(t, 0, true);
		else
		{
			if (td->tg_trigslot != NULL &&
				ItemPointerIsValid(&td->tg_trigslot->tts_tid))
				gpuops_cache_mark_block(t, ItemPointerGetBlockNumber(&td->tg_trigslot->tts_tid),
										false);
			if (TRIGGER_FIRED_BY_UPDATE(td->tg_event) && td->tg_newslot != NULL &&
				ItemPointerIsValid(&td->tg_newslot->tts_tid))
				gpuops_cache_mark_block(t, ItemPointerGetBlockNumber(&td->tg_newslot->tts_tid),
										false);
		}
	}
	LWLockRelease(t->lock);
	return PointerGetDatum(NULL);
}

/* The qualified, quoted name of rel. */
static char *
gpuops_cache_relname(Relation rel)
{
	return quote_qualified_identifier(get_namespace_name(RelationGetNamespace(rel)),
									  RelationGetRelationName(rel));
}

/* Whether rel has a trigger called name. */
static bool
gpuops_cache_has_trigger(Relation rel, const char *name)
{
	int			i;

	for (i = 0; rel->trigdesc != NULL && i < rel->trigdesc->numtriggers; i++)
		if (strcmp(rel->trigdesc->triggers[i].tgname, name) == 0)
			return true;
	return false;
}

/* Runs one utility statement built from fmt and a table's name. */
static void
gpuops_cache_ddl(const char *fmt, const char *name)
{
	char	   *sql = psprintf(fmt, name);

	if (SPI_execute(sql, false, 0) < 0)
		elog(ERROR, "gpuops: could not run \"%s\"", sql);
	pfree(sql);
}

/* Opens relid for the cache, checking that it can be cached and that the caller owns it. */
static Relation
gpuops_cache_open(Oid relid, LOCKMODE mode)
{
	Relation	rel;

	gpuops_cache_check_usable();
	rel = table_open(relid, mode);
	if (rel->rd_rel->relkind != RELKIND_RELATION ||
		rel->rd_tableam != GetHeapamTableAmRoutine() ||
		RelationUsesLocalBuffers(rel))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("\"%s\" cannot be cached", RelationGetRelationName(rel)),
				 errdetail("The column cache keeps plain heap tables that are not temporary.")));
	if (!pg_class_ownercheck(relid, GetUserId()))
		aclcheck_error(ACLCHECK_NOT_OWNER, get_relkind_objtype(rel->rd_rel->relkind),
					   RelationGetRelationName(rel));
	return rel;
}

/*
 * Whether a column of typid and typmod is a short text: a char(n) or
 * varchar(n) of at most GPUOPS_SCAN_SHORT_TEXT_BYTES bytes in the
 * database's encoding (char(1) in UTF8), held as the int64 codes the
 * reader makes of them (a range with a longer value is not cached).
 */
static bool
gpuops_cache_short_text(Oid typid, int32 typmod)
{
	return (typid == BPCHAROID || typid == VARCHAROID) && typmod >= (int32) VARHDRSZ &&
		(int64) (typmod - VARHDRSZ) * pg_database_encoding_max_length() <=
		GPUOPS_SCAN_SHORT_TEXT_BYTES;
}

/* The columns of rel the cache can hold into t; how many. */
static int
gpuops_cache_columns(GpuopsCacheTable *t, Relation rel)
{
	TupleDesc	desc = RelationGetDescr(rel);
	int			i;

	t->ncols = 0;
	for (i = 0; i < desc->natts && t->ncols < GPUOPS_CACHE_MAX_COLS; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);
		gpo_type	type;
		GpuopsScanConv conv;

		if (att->attisdropped)
			continue;
		if (gpuops_cache_short_text(att->atttypid, att->atttypmod))
			type = GPO_INT64;
		else if (!gpuops_scan_col_type_mod(att->atttypid, att->atttypmod, &type))
			continue;
		conv = gpuops_scan_conv(att->atttypid, type);
		if (conv == GPUOPS_CONV_ENCODE || conv == GPUOPS_CONV_PRESENCE)
			continue;
		t->cols[t->ncols].attnum = att->attnum;
		t->cols[t->ncols].typid = att->atttypid;
		t->cols[t->ncols].typmod = att->atttypmod;
		t->cols[t->ncols].type = type;
		t->ncols++;
	}
	return t->ncols;
}

/* Takes (or retakes) the slot of rel, emptied; ERROR when all are in use. */
static GpuopsCacheTable *
gpuops_cache_take_slot(Relation rel, bool auto_refresh)
{
	GpuopsCacheTable *t;
	int			i;

	(void) gpuops_cache_area(); /* (attached before any lock) */
	LWLockAcquire(gpuops_cache->lock, LW_EXCLUSIVE);
	t = gpuops_cache_find(RelationGetRelid(rel));
	for (i = 0; t == NULL && i < GPUOPS_CACHE_MAX_TABLES; i++)
		if (!gpuops_cache->tables[i].in_use)
			t = &gpuops_cache->tables[i];
	if (t == NULL)
	{
		LWLockRelease(gpuops_cache->lock);
		ereport(ERROR,
				(errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
				 errmsg("the gpuops column cache holds %d tables at most",
						GPUOPS_CACHE_MAX_TABLES),
				 errhint("Uncache a table with gpuops.uncache_table.")));
	}
	LWLockAcquire(t->lock, LW_EXCLUSIVE);
	gpuops_cache_free_ranges(t);
	t->in_use = true;
	t->broken = false;
	t->auto_refresh = auto_refresh;
	t->serial = ++gpuops_cache->next_serial;
	t->dbid = MyDatabaseId;
	t->relid = RelationGetRelid(rel);
	t->node = rel->rd_node;
	t->range_blocks = gpuops_cache_range_blocks;
	pg_atomic_write_u64(&t->hits, 0);
	if (gpuops_cache_columns(t, rel) == 0)
		t->in_use = false;
	LWLockRelease(t->lock);
	LWLockRelease(gpuops_cache->lock);
	if (!t->in_use)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("\"%s\" has no column the gpuops column cache can hold",
						RelationGetRelationName(rel)),
				 errdetail("It holds integer, float, date, timestamp, boolean, numeric(p, s) columns with p <= 18, and char(n) and varchar(n) of at most 7 bytes.")));
	return t;
}

/*
 * Frees slot t and its ranges while it holds table relid of database dbid
 * (relid InvalidOid: any of its tables); whether it did.
 */
static bool
gpuops_cache_drop_slot(GpuopsCacheTable *t, Oid dbid, Oid relid)
{
	bool		ours;

	(void) gpuops_cache_area(); /* (attached before any lock) */
	LWLockAcquire(gpuops_cache->lock, LW_EXCLUSIVE);
	LWLockAcquire(t->lock, LW_EXCLUSIVE);
	ours = t->in_use && t->dbid == dbid &&
		(!OidIsValid(relid) || t->relid == relid);
	if (ours)
	{
		gpuops_cache_free_ranges(t);
		t->in_use = false;
	}
	LWLockRelease(t->lock);
	LWLockRelease(gpuops_cache->lock);
	return ours;
}

/*
 * Closes rel (keeping its lock: ALTER TABLE refuses a table this session
 * holds open), connects SPI and drops the cache's triggers rel has; returns
 * rel's qualified name.  The caller calls SPI_finish.
 */
static char *
gpuops_cache_drop_triggers(Relation rel)
{
	char	   *name = gpuops_cache_relname(rel);
	bool		has_mark = gpuops_cache_has_trigger(rel, "gpuops_cache_mark");
	bool		has_truncate = gpuops_cache_has_trigger(rel, "gpuops_cache_truncate");

	table_close(rel, NoLock);
	SPI_connect();
	if (has_mark)
		gpuops_cache_ddl("DROP TRIGGER gpuops_cache_mark ON %s", name);
	if (has_truncate)
		gpuops_cache_ddl("DROP TRIGGER gpuops_cache_truncate ON %s", name);
	return name;
}

/*
 * gpuops.cache_table(regclass, auto_refresh bool): installs the triggers
 * (enabled ALWAYS), takes a slot, and reads every all-visible range;
 * returns the ranges cached.  auto_refresh: the refresher reads its stale
 * ranges again.
 */
Datum
gpuops_cache_table(PG_FUNCTION_ARGS)
{
	Oid			relid = PG_GETARG_OID(0);
	bool		auto_refresh = PG_GETARG_BOOL(1);
	Relation	rel = gpuops_cache_open(relid, ShareRowExclusiveLock);
	GpuopsCacheTable *t;
	int64		skipped = 0;
	int64		full = 0;
	int64		filled;
	char	   *name = gpuops_cache_drop_triggers(rel);

	gpuops_cache_ddl("CREATE TRIGGER gpuops_cache_mark AFTER INSERT OR UPDATE OR DELETE ON %s "
					 "FOR EACH ROW EXECUTE FUNCTION gpuops.cache_mark()", name);
	gpuops_cache_ddl("ALTER TABLE %s ENABLE ALWAYS TRIGGER gpuops_cache_mark", name);
	gpuops_cache_ddl("CREATE TRIGGER gpuops_cache_truncate AFTER TRUNCATE ON %s "
					 "FOR EACH STATEMENT EXECUTE FUNCTION gpuops.cache_mark()", name);
	gpuops_cache_ddl("ALTER TABLE %s ENABLE ALWAYS TRIGGER gpuops_cache_truncate", name);
	SPI_finish();
	rel = table_open(relid, NoLock);
	/* (the trigger changes above break the slot: take it after them) */
	t = gpuops_cache_take_slot(rel, auto_refresh);
	filled = gpuops_cache_fill(rel, t, &skipped, &full);
	if (full > 0)
		ereport(NOTICE,
				(errmsg("%lld ranges of \"%s\" did not fit in gpuops.host_cache_memory",
						(long long) full, RelationGetRelationName(rel))));
	table_close(rel, NoLock);
	PG_RETURN_INT64(filled);
}

/* gpuops.uncache_table(regclass): drops the table from the cache and its triggers. */
Datum
gpuops_uncache_table(PG_FUNCTION_ARGS)
{
	Oid			relid = PG_GETARG_OID(0);
	Relation	rel = gpuops_cache_open(relid, ShareRowExclusiveLock);
	GpuopsCacheTable *t = gpuops_cache_find(relid);

	if (t != NULL)
		(void) gpuops_cache_drop_slot(t, MyDatabaseId, relid);
	/* the GPU service's copies go too (none kept: 0 and InvalidOid) */
	gpuops_service_forget(gpuops_service_for_relation(relid),
						  MyDatabaseId, relid, 0, InvalidOid);
	(void) gpuops_cache_drop_triggers(rel);
	SPI_finish();
	PG_RETURN_BOOL(t != NULL);
}

/*
 * gpuops.cache_refresh(regclass): reads the table's ranges that are not
 * fresh (after VACUUM made changed pages all-visible again); returns how many.
 */
Datum
gpuops_cache_refresh(PG_FUNCTION_ARGS)
{
	Oid			relid = PG_GETARG_OID(0);
	Relation	rel = gpuops_cache_open(relid, AccessShareLock);
	GpuopsCacheTable *t = gpuops_cache_find(relid);
	int64		skipped = 0;
	int64		full = 0;
	int64		filled;

	if (t == NULL || t->broken || !gpuops_cache_triggers_ok(rel))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("\"%s\" is not in the gpuops column cache",
						RelationGetRelationName(rel)),
				 errhint("Cache it with gpuops.cache_table.")));
	filled = gpuops_cache_fill(rel, t, &skipped, &full);
	table_close(rel, NoLock);
	PG_RETURN_INT64(filled);
}

/* gpuops.cache_status(): one row per table cached in this database. */
Datum
gpuops_cache_status(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	int			i;

	InitMaterializedSRF(fcinfo, 0);
	if (gpuops_cache == NULL)
		return (Datum) 0;
	(void) gpuops_cache_area(); /* (attached before any slot's lock) */
	for (i = 0; i < GPUOPS_CACHE_MAX_TABLES; i++)
	{
		GpuopsCacheTable *t = &gpuops_cache->tables[i];
		GpuopsCacheRange *ranges;
		Datum		values[11];
		bool		nulls[11] = {0};
		GpuopsServiceRangeKey *found;
		int64		on_device = 0;
		int64		device_bytes = 0;
		int64		cached = 0;
		int64		fresh = 0;
		int64		rows = 0;
		int64		bytes = 0;
		int64		r;

		LWLockAcquire(t->lock, LW_SHARED);
		if (!t->in_use || t->dbid != MyDatabaseId)
		{
			LWLockRelease(t->lock);
			continue;
		}
		ranges = gpuops_cache_ranges(t);
		for (r = 0; r < t->nranges; r++)
		{
			if (!DsaPointerIsValid(ranges[r].data))
				continue;
			cached++;
			rows += ranges[r].nrows;
			bytes += ranges[r].bytes;
			if (!t->broken && pg_atomic_read_u32(&ranges[r].gen) == ranges[r].filled_gen)
				fresh++;
		}
		values[0] = ObjectIdGetDatum(t->relid);
		values[1] = Int32GetDatum(t->range_blocks);
		values[2] = Int64GetDatum(t->nranges);
		values[3] = Int64GetDatum(cached);
		values[4] = Int64GetDatum(fresh);
		values[5] = Int64GetDatum(rows);
		values[6] = Int64GetDatum(bytes);
		values[7] = Int64GetDatum((int64) pg_atomic_read_u64(&t->hits));
		values[8] = BoolGetDatum(t->auto_refresh);
		/* the ranges the GPU service keeps as they are fresh now */
		found = palloc(sizeof(GpuopsServiceRangeKey) * Max(t->nranges, 1));
		(void) gpuops_service_kept_ranges(gpuops_service_for_relation(t->relid),
										  t->dbid, t->relid, t->serial,
										  t->node.relNode, t->nranges, found,
										  &device_bytes);
		for (r = 0; r < t->nranges; r++)
			on_device += found[r].entry >= 0 && !t->broken &&
				found[r].filled_gen == ranges[r].filled_gen &&
				pg_atomic_read_u32(&ranges[r].gen) == ranges[r].filled_gen;
		pfree(found);
		values[9] = Int64GetDatum(on_device);
		values[10] = Int64GetDatum(device_bytes);
		LWLockRelease(t->lock);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

/* The relation of trigger trigid, or InvalidOid. */
static Oid
gpuops_cache_trigger_relid(Oid trigid)
{
	Relation	tgrel = table_open(TriggerRelationId, AccessShareLock);
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tup;
	Oid			relid = InvalidOid;

	ScanKeyInit(&key, Anum_pg_trigger_oid, BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(trigid));
	scan = systable_beginscan(tgrel, TriggerOidIndexId, true, NULL, 1, &key);
	tup = systable_getnext(scan);
	if (HeapTupleIsValid(tup))
		relid = ((Form_pg_trigger) GETSTRUCT(tup))->tgrelid;
	systable_endscan(scan);
	table_close(tgrel, AccessShareLock);
	return relid;
}

/*
 * Frees the slots of database dbid's cached tables, which DROP DATABASE is
 * removing (no drop of each table is seen then), and the GPU services'
 * copies of their ranges.  Kept, the slots (32 in all) would stay taken
 * until the server stopped, and the refresher would try the database
 * whenever one had a stale range.  A DROP DATABASE that fails after this
 * leaves its tables uncached, as gpuops.uncache_table would.
 */
static void
gpuops_cache_forget_database(Oid dbid)
{
	bool		any = false;
	int			i;

	for (i = 0; i < GPUOPS_CACHE_MAX_TABLES; i++)
		any |= gpuops_cache_drop_slot(&gpuops_cache->tables[i], dbid,
									  InvalidOid);
	if (any)
		gpuops_service_forget_database(dbid);
}

/*
 * Stops serving a cached table whose triggers are altered (enabled or
 * disabled) or dropped, or that is dropped itself: changes may then go
 * unmarked, so only gpuops.cache_table takes it back.  Its ranges are
 * freed, and so are the GPU service's copies of them.
 */
static void
gpuops_cache_object_access(ObjectAccessType access, Oid classId, Oid objectId,
						   int subId, void *arg)
{
	Oid			relid = InvalidOid;

	if (prev_object_access_hook)
		prev_object_access_hook(access, classId, objectId, subId, arg);
	if (gpuops_cache == NULL || (access != OAT_POST_ALTER && access != OAT_DROP))
		return;
	if (classId == DatabaseRelationId && access == OAT_DROP)
	{
		gpuops_cache_forget_database(objectId);
		return;
	}
	if (classId == TriggerRelationId)
		relid = gpuops_cache_trigger_relid(objectId);
	else if (classId == RelationRelationId && access == OAT_DROP && subId == 0)
		relid = objectId;
	if (OidIsValid(relid))
	{
		GpuopsCacheTable *t = gpuops_cache_find(relid);
		bool		ours = false;

		if (t != NULL)
		{
			(void) gpuops_cache_area(); /* (attached before the slot's lock) */
			LWLockAcquire(t->lock, LW_EXCLUSIVE);
			if (t->in_use && t->relid == relid && t->dbid == MyDatabaseId)
			{
				ours = true;
				t->broken = true;
				gpuops_cache_free_ranges(t);
				/* a dropped table leaves the cache (its slot's name is kept) */
				if (classId == RelationRelationId)
					t->in_use = false;
			}
			LWLockRelease(t->lock);
		}
		/* and the GPU service's copies go too */
		if (ours)
			gpuops_service_forget(gpuops_service_for_relation(relid),
								  MyDatabaseId, relid, 0, InvalidOid);
	}
}

/*
 * Defines the cache's settings and, when preloaded, asks for its shared
 * memory, registers the refresher and installs the hook that watches the
 * cached tables' triggers.
 */
void
gpuops_cache_init(void)
{
	gpuops_cache_shmem_init();
	DefineCustomIntVariable("gpuops.cache_refresh_interval",
							"Time between the column cache refresher's rounds; 0 turns it off.",
							"Each round reads again the stale ranges of the cached tables "
							"(those cached with auto_refresh) whose pages VACUUM made all-visible.",
							&gpuops_cache_refresh_interval,
							60,
							0, 86400,
							PGC_SIGHUP,
							GUC_UNIT_S,
							NULL, NULL, NULL);
	if (!process_shared_preload_libraries_in_progress)
		return;
	gpuops_cache_register_refresher();
	prev_object_access_hook = object_access_hook;
	object_access_hook = gpuops_cache_object_access;
}
