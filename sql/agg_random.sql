-- Custom Scan (GpuOpsAgg): random GROUP BY queries over agg_node's table agg_t,
-- each checked against PostgreSQL's own answer (needs agg_node's tables).
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/sql/include/agg_check.psql
\i :abs_srcdir/sql/include/agg_fuzz.psql

CREATE TEMP TABLE fz AS SELECT * FROM pg_temp.fuzz(150, 0.25);
-- every query used the node and gave PostgreSQL's answer
SELECT res, count(*) FROM fz GROUP BY res ORDER BY res;
-- the ones that did not, if any
SELECT q, res FROM fz WHERE res <> 'same';

-- the same after VACUUM: every page all-visible, read from copied line
-- pointers without a visibility check per tuple
VACUUM agg_t;
CREATE TEMP TABLE fz2 AS SELECT * FROM pg_temp.fuzz(60, 0.77);
SELECT res, count(*) FROM fz2 GROUP BY res ORDER BY res;
SELECT q, res FROM fz2 WHERE res <> 'same';
