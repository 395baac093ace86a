#!/usr/bin/env bash
# The binary's RUNPATH/RPATH holds only absolute directories: an empty entry (CMake's build
# RPATH ends with ':') or a relative one makes the loader search the current directory, so
# fabdiag run as root from a writable directory could load a planted library.
#   tests/cli/runpath_test.sh FABDIAG
set -u
bin=$1
command -v readelf >/dev/null || { echo "SKIPPED: readelf not installed"; exit 77; }
paths=$(readelf -d "$bin" | sed -n 's/.*(\(RUNPATH\|RPATH\)).*\[\(.*\)\]/\2/p')
[ -z "$paths" ] && { echo "ok: no RUNPATH"; exit 0; }
IFS=':' read -r -a entries <<<"$paths:"
fail=0
for e in "${entries[@]}"; do
  case $e in /*) ;; *) echo "FAIL: RUNPATH '$paths' has a non-absolute entry '$e'"; fail=1 ;; esac
done
# read -a drops the one empty field that the trailing ':' we added makes; an empty entry inside
# or at the end of the real value shows as '::' or a final ':'.
case $paths in *::* | *: | :*) echo "FAIL: RUNPATH '$paths' has an empty entry"; fail=1 ;; esac
[ $fail -eq 0 ] && echo "ok: RUNPATH $paths"
exit $fail
