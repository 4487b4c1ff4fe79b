#!/bin/bash
# The demonstration: set up, build, install, then in a throwaway cluster create
# the extension, show gpuops.info() and run RLE and unique over a sizeable array.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
make -j2 PG_CONFIG="$PG_CONFIG"
make install PG_CONFIG="$PG_CONFIG" >/dev/null
pg_virtualenv -t -v "$PGV" psql -X -v ON_ERROR_STOP=1 -f scripts/demo.sql
