#!/bin/bash
# The test command: set up, check the code layout, build, install, run the
# engine's unit tests, then pg_regress in a throwaway cluster, then the GPU
# services over faked GPUs (test/service/multi.sh), then 2,000
# SQLsmith queries (and 1,000 random calls of the functions) in another,
# then the Citus test
# (test/citus/run.sh).  Exits non-zero on any failure.
#
#   GPUOPS_DEVICE=gpu bash scripts/test.sh   runs pg_regress under gpuops.device = 'gpu'
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
dev=${GPUOPS_DEVICE:-cpu}
echo "== layout (README's Code layout: layers, no cycle between features) =="
python3 scripts/check_layout.py
make -j2 PG_CONFIG="$PG_CONFIG"
make install PG_CONFIG="$PG_CONFIG" >/dev/null
echo "== unit tests (src/core) =="
make unittest PG_CONFIG="$PG_CONFIG"
echo "== pg_regress (gpuops.device = '$dev') =="
rc=0
# the server preloads gpuops, as the README tells DBAs to: loading in the
# postmaster must start nothing (no CUDA, no threads) that forked backends
# would inherit
# gpuops.debug_gpu_service: the GPU service runs (on the CPU face where there
# is no GPU), so that sql/service.sql and specs/gpu_service.spec test it
PGOPTIONS="-c gpuops.device=$dev" pg_virtualenv -t -v "$PGV" \
	-o shared_preload_libraries=gpuops -o gpuops.debug_gpu_service=on \
	make installcheck PG_CONFIG="$PG_CONFIG" || rc=$?
if [ $rc -ne 0 ]; then
	[ -f regression.diffs ] && head -200 regression.diffs
	echo "pg_regress failed" >&2
	exit $rc
fi
# one GPU service per GPU: the placement over 3 faked GPUs (a throwaway
# cluster under gpuops.debug_gpu_count = 3), results, a killed executor
echo "== GPU services on 3 fake GPUs =="
PG_CONFIG="$PG_CONFIG" bash test/service/multi.sh ||
	{ echo "test/service/multi.sh failed" >&2; exit 1; }
# without the preload: CREATE EXTENSION and LOAD must not end the session
echo "== without shared_preload_libraries =="
pg_virtualenv -t -v "$PGV" psql -X -q -f test/no_preload.sql ||
	{ echo "gpuops without the preload failed" >&2; exit 1; }
# random queries (SQLsmith) and random calls of the functions: no crash
echo "== sqlsmith (gpuops.device = '$dev') =="
GPUOPS_DEVICE=$dev SQLSMITH_TIME=${SQLSMITH_TIME:-300} PG_CONFIG="$PG_CONFIG" \
	bash scripts/sqlsmith.sh "${SQLSMITH_QUERIES:-2000}" || { echo "sqlsmith.sh failed" >&2; exit 1; }
# gpuops on Citus workers (builds Citus from ../shared/citus; skips without it)
bash test/citus/run.sh
echo "all tests passed"
