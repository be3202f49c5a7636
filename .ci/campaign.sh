#!/usr/bin/env bash
# The standing fuzzing campaign's ledger, docs/fuzz-campaign.tsv.
#   .ci/campaign.sh run DURATION DIR:NAME...   fuzz each target in turn for
#       DURATION with one worker and append a row per run to the ledger
#   .ci/campaign.sh totals [MINUTES]           minutes and execs per target
#       (pass and deadline rows after the target's last "found" or
#       "changed" row: a run that found a bug does not count, and the fix
#       starts the target's time again, as does a change to the code or
#       property it checks found otherwise), every target of FUZZ_TARGETS
#       listed, "done" at MINUTES (30) or more
#   .ci/campaign.sh changed DIR:NAME WHY        start a target's time again
#       after a change found otherwise (a review): a "changed" row
# Run two at a time on two cores (one per core): the ledger's minutes are
# minutes of one core each.
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
ledger=docs/fuzz-campaign.tsv
case ${1:-} in
run)
  d=$2; shift 2
  for t in "$@"; do
    dir=${t%%:*} name=${t#*:}
    log=$(mktemp)
    rc=0
    $GO test -run '^$' -fuzz "^${name}\$" -fuzztime "$d" -parallel 1 "$dir" >"$log" 2>&1 || rc=$?
    last=$(grep -o 'elapsed: [0-9hms]*, execs: [0-9]*' "$log" | tail -1 || true)
    elapsed=$(sed -n 's/elapsed: \([0-9hms]*\),.*/\1/p' <<<"$last")
    execs=$(sed -n 's/.*execs: //p' <<<"$last")
    result=pass
    if [ "$rc" -ne 0 ]; then
      if grep -q '^    context deadline exceeded$' "$log" && ! grep -q 'Failing input written' "$log"; then
        result=deadline
      else
        result=found
        grep -A8 -e '^--- FAIL' "$log" >&2 || tail -n 20 "$log" >&2
      fi
    fi
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u '+%Y-%m-%d %H:%M')" "$name" "$dir" "${elapsed:--}" "${execs:-0}" "$result" >>"$ledger"
    echo "campaign: $name $result ${elapsed:--} ${execs:-0} execs"
    rm -f "$log"
  done
  ;;
changed)
  t=$2 why=$3
  printf '%s\t%s\t%s\t-\t0\tchanged\t%s\n' "$(date -u '+%Y-%m-%d %H:%M')" "${t#*:}" "${t%%:*}" "$why" >>"$ledger"
  ;;
totals)
  min=${2:-30}
  targets=$(make -s -f - print <<<'include Makefile
print: ; @echo $(FUZZ_TARGETS)')
  awk -F'\t' -v min="$min" -v targets="$targets" '
    function minutes(e,   m, s) {
      m = 0
      if (match(e, /[0-9]+h/)) m += 60 * substr(e, RSTART, RLENGTH - 1)
      if (match(e, /[0-9]+m/)) m += substr(e, RSTART, RLENGTH - 1)
      if (match(e, /[0-9]+s/)) m += substr(e, RSTART, RLENGTH - 1) / 60
      return m
    }
    /^#/ { next }
    $6 == "pass" || $6 == "deadline" { t[$3 ":" $2] += minutes($4); x[$3 ":" $2] += $5; r[$3 ":" $2]++ }
    $6 == "found" || $6 == "changed" { k = $3 ":" $2; if ($6 == "found") f[k]++; t[k] = 0; x[k] = 0; r[k] = 0 }
    END {
      n = split(targets, all, " ")
      printf "%-36s %8s %14s %5s %6s\n", "target", "minutes", "execs", "runs", "found"
      for (i = 1; i <= n; i++) {
        k = all[i]
        printf "%-36s %8.1f %14d %5d %6d %s\n", k, t[k], x[k], r[k], f[k], (t[k] >= min ? "done" : "")
        if (t[k] >= min) done++
      }
      printf "%d of %d targets at %d minutes or more\n", done, n, min
    }' "$ledger"
  ;;
*)
  sed -n '2,13p' "$0" >&2
  exit 2
  ;;
esac
