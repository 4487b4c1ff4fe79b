-- Custom Scan (GpuOpsAgg): running dense groups kept by the engine from
-- batch to batch, the group memory limit and the default costs (needs
-- agg_node's tables).
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/sql/include/agg_check.psql

-- running groups (gpuops.running_groups): batches whose keys suit dense go
-- into the engine's running aggregation, which keeps its groups from batch
-- to batch; a batch whose keys leave its range, or are packed another way,
-- is merged on its own and the next batch starts anew.  Small batches here.
CREATE FUNCTION pg_temp.running(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
	line text;
	seen boolean := false;
	used boolean := false;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
		seen := seen OR line LIKE '%Running Groups:%';
		used := used OR line LIKE '%GpuOpsAgg%';
	END LOOP;
	RETURN NEXT CASE WHEN NOT used THEN 'NODE NOT USED'
		WHEN seen THEN 'running groups' ELSE 'merged batches' END;
END
$$;
CREATE TABLE agg_runs AS SELECT i, i / 1000 AS g, (i % 7)::int2 AS h,
	CASE WHEN i % 13 = 0 THEN NULL ELSE i % 11 END AS k,
	CASE WHEN i % 17 = 0 THEN NULL ELSE (i % 100)::float8 / 4 END AS v
	FROM generate_series(1, 60000) i;
ANALYZE agg_runs;
SET gpuops.debug_chunk_size = 8192;
SET gpuops.cpu_setup_cost = 0;
SELECT pg_temp.running('SELECT h, count(*), sum(v) FROM agg_runs GROUP BY h');
SELECT pg_temp.check('SELECT h, count(*) AS n, sum(v) AS s, min(v) AS lo, max(i) AS hi, avg(i) AS a FROM agg_runs GROUP BY h');
SELECT pg_temp.check('SELECT k, count(*) AS n, count(v) AS nv, sum(v) AS s FROM agg_runs GROUP BY k');
-- keys that climb batch after batch: each batch leaves the runs' range
SELECT pg_temp.check('SELECT g, count(*) AS n, sum(v) AS s, min(v) AS lo, max(v) AS hi FROM agg_runs GROUP BY g');
SELECT pg_temp.check('SELECT g, count(*) AS n, sum(i) AS s FROM agg_runs WHERE i > 30000 OR i < 5 GROUP BY g');
-- several keys: packed alike in every batch (h, k), or not (g, h)
SELECT pg_temp.check('SELECT h, k, count(*) AS n, sum(i) AS s FROM agg_runs GROUP BY h, k');
SELECT pg_temp.check('SELECT g, h, count(*) AS n, sum(v) AS s FROM agg_runs GROUP BY g, h');
SELECT pg_temp.check('SELECT k, h, count(*) FILTER (WHERE v > 10) AS n, max(v) AS hi FROM agg_runs WHERE h <> 3 GROUP BY k, h');
-- a WHERE that most rows pass gives the failing rows NULL keys (where the
-- batch has no NULL key) and the runs take the batch: their NULL group then
-- holds only failing rows, which are dropped; batches with real NULL keys
-- (rows 20001-30000 here, then 50001-60000) start new runs, and back
CREATE TABLE agg_runs_nk AS SELECT i, i % 10 AS w,
	CASE WHEN (i BETWEEN 20001 AND 30000 OR i > 50000) AND i % 5 = 0 THEN NULL ELSE i % 11 END AS k,
	(i % 100)::float8 / 4 AS v
	FROM generate_series(1, 60000) i;
ANALYZE agg_runs_nk;
SELECT pg_temp.running('SELECT k, count(*), sum(v) FROM agg_runs_nk WHERE w < 7 GROUP BY k');
SELECT pg_temp.check('SELECT k, count(*) AS n, sum(v) AS s, max(i) AS hi FROM agg_runs_nk WHERE w < 7 GROUP BY k');
SELECT pg_temp.check('SELECT k, count(*) AS n, min(v) AS lo FROM agg_runs_nk WHERE w <> 3 GROUP BY k');
-- no NULL key at all: no NULL group
SELECT pg_temp.check('SELECT k, count(*) AS n, sum(i) AS s FROM agg_runs_nk WHERE w < 7 AND i <= 20000 GROUP BY k');
SELECT pg_temp.check('SELECT k, count(*) AS n FROM agg_runs_nk WHERE w < 7 AND k IS NOT NULL GROUP BY k');
-- only the NULL-key stretches' rows, and a filter few rows pass
SELECT pg_temp.check('SELECT k, count(*) AS n, sum(v) AS s FROM agg_runs_nk WHERE w < 8 AND i > 15000 GROUP BY k');
SELECT pg_temp.check('SELECT k, count(*) AS n, sum(v) AS s FROM agg_runs_nk WHERE w = 2 GROUP BY k');
-- several keys: the failing rows kept, their packed key NULL (k has real
-- NULLs, packed apart from them); expression keys and arguments are
-- evaluated only on the passing rows, so a row the WHERE removes never
-- raises an error (w = 8 divides by zero), and one that passes does
SELECT pg_temp.check('SELECT k, w, count(*) AS n, sum(v) AS s FROM agg_runs_nk WHERE w < 7 GROUP BY k, w');
SELECT pg_temp.check('SELECT k, w % 3 AS w3, count(*) AS n, sum(100 / (w - 8)) AS s FROM agg_runs_nk WHERE w <> 8 GROUP BY 1, 2');
SELECT pg_temp.check('SELECT w, count(*) AS n, sum(100 / (w - 8)) AS s, max(v) AS hi FROM agg_runs_nk WHERE w <> 8 GROUP BY w');
SELECT pg_temp.check('SELECT k % 4 AS k4, 1000 / (w - 8) AS q, count(*) AS n FROM agg_runs_nk WHERE w <> 8 GROUP BY 1, 2');
SELECT pg_temp.check('SELECT k, count(*) FILTER (WHERE 10 / (w - 8) > 1) AS n, sum(v) AS s FROM agg_runs_nk WHERE w <> 8 GROUP BY k');
SELECT pg_temp.check('SELECT k, count(DISTINCT w) AS d, count(*) AS n FROM agg_runs_nk WHERE i % 3 <> 0 GROUP BY k');
SELECT count(*) AS node FROM pg_temp.plan('SELECT k, w, sum(100 / (w - 9)) FROM agg_runs_nk WHERE w <> 8 GROUP BY k, w') p WHERE p LIKE '%GpuOpsAgg%';
SELECT pg_temp.try('SELECT k, w, sum(100 / (w - 9)) FROM agg_runs_nk WHERE w <> 8 GROUP BY k, w');
SELECT pg_temp.try('SELECT w, count(*) FILTER (WHERE 10 / (w - 9) > 1) FROM agg_runs_nk WHERE w <> 8 GROUP BY w');
SET gpuops.enabled = off;
SELECT pg_temp.try('SELECT k, w, sum(100 / (w - 9)) FROM agg_runs_nk WHERE w <> 8 GROUP BY k, w');
SELECT pg_temp.try('SELECT w, count(*) FILTER (WHERE 10 / (w - 9) > 1) FROM agg_runs_nk WHERE w <> 8 GROUP BY w');
RESET gpuops.enabled;
DROP TABLE agg_runs_nk;
-- an error while the runs hold groups leaves the session usable
SELECT pg_temp.try('SELECT h, count(*) FROM agg_runs WHERE 1 / (i - 50000) > -1 GROUP BY h');
SELECT pg_temp.check('SELECT h, count(*) AS n, sum(v) AS s FROM agg_runs GROUP BY h');
-- off: every batch's groups are merged
SET gpuops.running_groups = off;
SELECT pg_temp.running('SELECT h, count(*), sum(v) FROM agg_runs GROUP BY h');
SELECT pg_temp.check('SELECT h, k, count(*) AS n, sum(v) AS s FROM agg_runs GROUP BY h, k');
RESET gpuops.running_groups;
-- the hash and sort strategies merge every batch
SET gpuops.agg_strategy = hash;
SELECT pg_temp.running('SELECT h, count(*), sum(v) FROM agg_runs GROUP BY h');
RESET gpuops.agg_strategy;
RESET gpuops.debug_chunk_size;
RESET gpuops.cpu_setup_cost;
DROP TABLE agg_runs;

-- groups whose estimated size passes gpuops.max_group_memory stay native
SET gpuops.max_group_memory = '64kB';
SELECT pg_temp.plan('SELECT k2, count(*) FROM agg_t GROUP BY k2');
SELECT pg_temp.plan('SELECT k, count(*) FROM agg_t GROUP BY k');
RESET gpuops.max_group_memory;

-- default costs of the CPU faces (the GPU's setup costs more): a small
-- table keeps the native plan, a larger one does not
SET gpuops.device = cpu;
RESET gpuops.cpu_setup_cost;
RESET gpuops.gpu_setup_cost;
SELECT pg_temp.plan('SELECT k, count(*), sum(v) FROM agg_old GROUP BY k');
SELECT pg_temp.plan('SELECT k, count(*), sum(v) FROM agg_t GROUP BY k');
RESET gpuops.device;
