#!/usr/bin/env bash
# Keep what a fuzzing campaign found: copy the inputs `go test -fuzz` added to
# its cache corpus ($GOCACHE/fuzz/MODULE/PKG/TARGET) into the committed seed
# corpus (PKG/testdata/fuzz/TARGET), so that every `go test` replays them.
#   .ci/keep-corpus.sh [BUDGET_KB]
# Per package, the committed corpus grows to at most BUDGET_KB (1024) of file
# contents; the budget left is shared evenly by the package's targets, smallest
# inputs first (small inputs are quick to replay and easy to read). An input
# over 1 KB (4 KB for FuzzKernels and FuzzStream, whose inputs are blocks) is
# not kept. Inputs are named by their SHA-256, so one already kept is skipped.
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
budget=$((${1:-1024} * 1024))
module=$($GO list -m)
cache=$($GO env GOCACHE)/fuzz/$module
targets=$(make -s -f - print <<<'include Makefile
print: ; @echo $(FUZZ_TARGETS)')

size() { # total bytes of the files in directory $1 (0 if absent)
  if [ -d "$1" ]; then find "$1" -type f -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }'; else echo 0; fi
}

declare -A pkgtargets
for t in $targets; do
  dir=${t%%:*}
  pkgtargets[$dir]+="${t#*:} "
done

total=0
for dir in "${!pkgtargets[@]}"; do
  rel=${dir#./}
  [ "$rel" = . ] && rel=
  dst=${rel:+$rel/}testdata/fuzz
  left=$((budget - $(size "$dst")))
  names=(${pkgtargets[$dir]})
  for i in "${!names[@]}"; do
    name=${names[$i]}
    src=$cache${rel:+/$rel}/$name
    [ -d "$src" ] || continue
    max=1024
    case $name in FuzzKernels | FuzzStream) max=4096 ;; esac
    share=$((left / (${#names[@]} - i)))
    [ "$share" -gt 0 ] || share=0
    used=0 kept=0
    mkdir -p "$dst/$name"
    while read -r bytes file; do
      [ -e "$dst/$name/$file" ] && continue
      [ $((used + bytes)) -le "$share" ] || break
      cp "$src/$file" "$dst/$name/$file"
      used=$((used + bytes)) kept=$((kept + 1))
    done < <(find "$src" -type f -size -$((max + 1))c -printf '%s %f\n' | sort -n)
    rmdir --ignore-fail-on-non-empty "$dst/$name"
    left=$((left - used)) total=$((total + kept))
    echo "keep-corpus: $dir:$name $kept inputs, $used bytes"
  done
done
echo "keep-corpus: $total inputs kept"
