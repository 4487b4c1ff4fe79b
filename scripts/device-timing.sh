#!/bin/bash
# On the GPU machine (device tool, carry [".device"]): runs the named
# pg_regress inputs one statement at a time under gpuops.device = 'gpu' with
# \timing, each file under its own time limit, so that a slow or stuck
# statement shows itself.  Logs go to $OUT/timing-<test>.log.
#   usage: bash scripts/device-timing.sh [SECONDS_PER_FILE] test...
set -uo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
limit=${1:-60}; shift
source .device/pg-up.sh .device/pg.tar.xz >/dev/null || { echo "pg-up failed"; exit 1; }
as_pg createdb timing
as_pg psql -X -q -d timing -c "CREATE EXTENSION gpuops"
for t in "$@"; do
	echo "== $t =="
	(echo '\timing on'; cat "sql/$t.sql") >/tmp/$t.sql
	chmod a+r /tmp/$t.sql
	PGOPTIONS="-c gpuops.device=gpu" timeout "$limit" runuser -u pg -- env PATH="$PATH" \
		LD_LIBRARY_PATH="$LD_LIBRARY_PATH" PGHOST=/tmp PGUSER=postgres PGOPTIONS="-c gpuops.device=gpu" \
		psql -X -a -d timing -f /tmp/$t.sql >"$OUT/timing-$t.log" 2>&1
	echo "rc=$?"
	grep -B3 "^Time: [0-9]\{4,\}" "$OUT/timing-$t.log" | grep -v "^--$" | tail -40
	tail -5 "$OUT/timing-$t.log"
done
