#!/usr/bin/env bash
# Runs every fuzz target of the module for the given time each (default
# 10m). The targets are found with `go test -list`, so a new one cannot be
# left out; one that no longer builds fails the run.
#   .ci/fuzz.sh [FUZZTIME]
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${1:-10m}
GO=${GO:-go}
targets=$($GO test -list '^Fuzz' ./... | awk '/^Fuzz/ { names[n++] = $1 } /^(ok|\?) / { for (i = 0; i < n; i++) print $2, names[i]; n = 0 }')
count=$(printf '%s\n' "$targets" | grep -c . || true)
if [ "$count" -lt 1 ]; then
  echo "fuzz: no fuzz targets found" >&2
  exit 1
fi
echo "fuzz: $count targets, $fuzztime each"
while read -r pkg name; do
  echo "fuzz: $name ($pkg)"
  $GO test -run '^$' -fuzz "^${name}\$" -fuzztime "$fuzztime" "$pkg"
done <<< "$targets"
