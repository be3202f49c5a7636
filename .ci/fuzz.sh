#!/usr/bin/env bash
# Runs the given fuzz targets for FUZZTIME each. Each target is DIR:NAME
# (the package directory and the Fuzz function). The Makefile names them
# all (FUZZ_TARGETS). The list must equal what `go test -list` finds in the
# module, so a new target that is not added, or a stale one, fails the run.
#   .ci/fuzz.sh FUZZTIME DIR:NAME...
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=$1
shift
GO=${GO:-go}
module=$($GO list -m)
found=$($GO test -list '^Fuzz' ./... | awk -v m="$module" '
  /^Fuzz/ { names[n++] = $1 }
  /^(ok|\?) / { p = $2; sub("^" m, ".", p); for (i = 0; i < n; i++) print p ":" names[i]; n = 0 }' | sort)
given=$(printf '%s\n' "$@" | sort)
if [ "$found" != "$given" ]; then
  echo "fuzz: the targets given differ from the module's (add or remove them in FUZZ_TARGETS):" >&2
  diff <(echo "$given") <(echo "$found") | sed -n 's/^< /  given, not in the module: /p; s/^> /  in the module, not given: /p' >&2
  exit 1
fi
echo "fuzz: $# targets, $fuzztime each"
for t in "$@"; do
  dir=${t%%:*} name=${t#*:}
  echo "fuzz: $name ($dir)"
  $GO test -run '^$' -fuzz "^${name}\$" -fuzztime "$fuzztime" "$dir"
done
