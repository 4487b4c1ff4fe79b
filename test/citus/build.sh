#!/bin/bash
# Builds and installs Citus into the PostgreSQL that pg_config names, from the
# release tarball and patch in the shared folder (see its README): the folder
# is $CITUS_SRC, else $SHARED/citus, else shared/citus next to the checkout.
# Exit 0: Citus is installed; exit 3: it is not, and can't be built here (no
# source, or not root).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
CITUS_VERSION=${CITUS_VERSION:-13.2.2}
libdir=$("$PG_CONFIG" --pkglibdir)
sharedir=$("$PG_CONFIG" --sharedir)
if [ -f "$libdir/citus.so" ] && [ -f "$sharedir/extension/citus.control" ]; then
	echo "citus: already installed ($libdir/citus.so)"
	exit 0
fi
src=${CITUS_SRC:-${SHARED:+$SHARED/citus}}
src=${src:-$(dirname "$repo")/shared/citus}
tarball=$src/citus-$CITUS_VERSION.tar.gz
patchfile=$src/citus-$CITUS_VERSION-pg15.20.patch
if [ ! -f "$tarball" ]; then
	echo "citus: not installed and no source at $tarball"
	exit 3
fi
if [ "$(id -u)" != 0 ]; then
	echo "citus: not installed, and building it from $src needs root (apt-get, make install)"
	exit 3
fi
need=()
for p in libcurl4-openssl-dev liblz4-dev libzstd-dev libkrb5-dev libselinux1-dev \
	libpam0g-dev autoconf flex bison; do
	dpkg -s "$p" >/dev/null 2>&1 || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
	echo "citus: installing ${need[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
build=$(mktemp -d /tmp/citus-build.XXXXXX)
trap 'rm -rf "$build"' EXIT
echo "citus: building $CITUS_VERSION in $build"
start=$(date +%s)
tar -xzf "$tarball" -C "$build"
cd "$build/citus-$CITUS_VERSION"
[ -f "$patchfile" ] && patch -p0 -s < "$patchfile"
./configure -q PG_CONFIG="$PG_CONFIG" >configure.log 2>&1 || { tail -40 configure.log; exit 1; }
# no LLVM bitcode for JIT: it doubles the build and Citus' C gains nothing
make -s -j"${CITUS_JOBS:-2}" with_llvm=no >build.log 2>&1 || { tail -60 build.log; exit 1; }
make -s install with_llvm=no >install.log 2>&1 || { tail -40 install.log; exit 1; }
echo "citus: built and installed in $(( $(date +%s) - start ))s"
