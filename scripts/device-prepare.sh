#!/bin/bash
# Here (a build machine with nvcc): builds with CUDA and stages everything the
# GPU machine needs under .device/ (git-ignored): PostgreSQL 15 with gpuops
# installed into it, the unit-test binary and the GPU benchmark binary.
# Then send `bash scripts/device-run.sh` through the device tool with carry [".device"].
set -euo pipefail
cd "$(dirname "$0")/.."
shared=${SHARED:-../shared}
# a CPU-only gpuops.so newer than the kernel objects would not be relinked
rm -f gpuops.so
make -j2 CUDA=1
make CUDA=1 test/unit/test_core gpubench
rm -rf /tmp/gpuops-stage
make install CUDA=1 DESTDIR=/tmp/gpuops-stage >/dev/null
mkdir -p .device
"$shared/device/make-pg-bundle.sh" .device/pg.tar.xz /tmp/gpuops-stage
cp "$shared/device/pg-up.sh" .device/
cp test/unit/test_core $(ls bench/gpu_* | grep -v "\.cu$") .device/
# SQLsmith and the libraries it needs beyond those of the PostgreSQL bundle
# (step smith)
if command -v sqlsmith >/dev/null; then
	rm -rf .device/sqlsmith && mkdir -p .device/sqlsmith/lib
	cp "$(command -v sqlsmith)" .device/sqlsmith/
	ldd "$(command -v sqlsmith)" | awk '/=> \//{print $3}' | grep -E 'libpqxx|libsqlite3' |
		xargs -r -I{} cp -L {} .device/sqlsmith/lib/
fi
du -sh .device
