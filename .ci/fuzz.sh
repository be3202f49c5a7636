#!/usr/bin/env bash
# Runs the given fuzz targets for FUZZTIME each. Each target is DIR:NAME
# (the package directory and the Fuzz function). The Makefile names them
# all (FUZZ_TARGETS). The list must equal what `go test -list` finds in the
# module, so a new target that is not added, or a stale one, fails the run.
#   .ci/fuzz.sh FUZZTIME DIR:NAME...
# FUZZTIME is a duration (10m) or an execution count (30000x). A duration run
# that fails with only go1.26's "context deadline exceeded" at its deadline
# (golang/go#75804: the coordinator's own deadline leaks out as a failure)
# and wrote no new input under testdata/fuzz is said to be that race and not
# counted as a failure; any other failure, or a new input, fails the run.
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
  corpus=$dir/testdata/fuzz/$name
  before=$(ls "$corpus" 2>/dev/null | sort || true)
  log=$(mktemp)
  rc=0
  $GO test -run '^$' -fuzz "^${name}\$" -fuzztime "$fuzztime" "$dir" 2>&1 | tee "$log" || rc=$?
  after=$(ls "$corpus" 2>/dev/null | sort || true)
  if [ "$rc" -ne 0 ]; then
    if [[ "$fuzztime" != *x ]] && [ "$before" = "$after" ] &&
      grep -q '^    context deadline exceeded$' "$log" &&
      [ "$(grep -c -e '^--- FAIL' -e '^panic:' -e 'Failing input written' "$log")" = 1 ]; then
      echo "fuzz: $name: \"context deadline exceeded\" at -fuzztime with no input written: golang/go#75804, not a failure of $name"
    else
      rm -f "$log"
      exit "$rc"
    fi
  fi
  rm -f "$log"
done
