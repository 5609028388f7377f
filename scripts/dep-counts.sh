#!/usr/bin/env bash
# The dependency counts the crate READMEs state, recomputed from `cargo tree`.
#
#   scripts/dep-counts.sh           check: fail when a README's numbers are not what cargo says
#   scripts/dep-counts.sh --write   rewrite the numbers in the READMEs
#
# A README states them in one line:
#   **Dependencies:** N crates with default features, M without (...)
# N and M count the distinct packages of `cargo tree -p CRATE -e normal` (with default
# features, and with --no-default-features), the crate itself not counted. Every crate
# README that has the line is checked; the crates listed in REQUIRED must have it.
set -euo pipefail
cd "$(dirname "$0")/.."

REQUIRED=(ag-ui-core ag-ui-client ag-ui-builders ag-ui-schema)
write=no
[ "${1:-}" = "--write" ] && write=yes

count() { # crate [cargo tree flags...]
  local crate=$1
  shift
  cargo tree -p "$crate" "$@" -e normal --prefix none --locked \
    | sed 's/ (\*)$//' | sort -u | grep -vc "^$crate "
}

pattern='^\*\*Dependencies:\*\* [0-9]+ crates with default features, [0-9]+ without'
failed=0
for readme in crates/*/README.md; do
  dir=$(dirname "$readme")
  crate=$(basename "$dir")
  if ! grep -qE "$pattern" "$readme"; then
    for r in "${REQUIRED[@]}"; do
      if [ "$r" = "$crate" ]; then
        echo "$readme: no '**Dependencies:** N crates with default features, M without' line" >&2
        failed=1
      fi
    done
    continue
  fi
  with=$(count "$crate")
  without=$(count "$crate" --no-default-features)
  stated=$(grep -oE "$pattern" "$readme" | head -1)
  expected="**Dependencies:** $with crates with default features, $without without"
  if [ "$stated" = "$expected" ]; then
    echo "$crate: $with with default features, $without without (as stated)"
  elif [ "$write" = yes ]; then
    sed -i -E "s/$pattern/$(printf '%s' "$expected" | sed 's/[*]/\\*/g')/" "$readme"
    echo "$crate: $with with default features, $without without (written)"
  else
    echo "$readme states \"$stated\", cargo tree counts \"$expected\" (scripts/dep-counts.sh --write updates it)" >&2
    failed=1
  fi
done
exit "$failed"
