#!/usr/bin/env bash
# scripts/check-includes.py: an include along the declared edges passes, one against them fails
# naming the file, line, header and what the library links; the real tree passes.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
rules=${1:?usage: check_includes_test.sh BUILD/generated/include_rules.txt}
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
mkdir -p "$t/core" "$t/probes/topo" "$t/rules"
printf 'lib_core core\nlib_topo probes/topo lib_core\nlib_rules rules lib_topo\n' > "$t/rules.txt"
echo '#include "core/result.h"' > "$t/probes/topo/pci.cpp"
echo '#include "probes/topo/pci.h"' > "$t/rules/optics.cpp"
echo '#include "core/result.h"' >> "$t/rules/optics.cpp"   # transitive edge: allowed
python3 "$root/scripts/check-includes.py" "$t/rules.txt" "$t"
echo '#include "rules/optics.h"' >> "$t/probes/topo/pci.cpp"
if python3 "$root/scripts/check-includes.py" "$t/rules.txt" "$t" 2> "$t/err"; then
  echo "FAIL: an include against the edges passed"; exit 1
fi
grep -q 'probes/topo/pci.cpp:2: includes "rules/optics.h" (folder rules) but lib_topo links only: core' "$t/err" \
  || { echo "FAIL: message was:"; cat "$t/err"; exit 1; }
python3 "$root/scripts/check-includes.py" "$rules" "$root"
echo "check-includes: edges enforced"
