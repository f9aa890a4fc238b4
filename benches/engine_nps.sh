#!/bin/sh
# Nodes per second of qiku's `bench` beside another engine's, in one run on one machine.
#
#   benches/engine_nps.sh [OTHER_ENGINE [RUNS]]
#
# OTHER_ENGINE is a Stockfish-family engine with a `bench` command (Pikafish, Pikafish-HCE);
# without it only qiku runs. Each engine's bench runs RUNS times (default 3), alternating, one
# thread each; the best of the runs is printed (the least disturbed by other work). The two
# benches search different positions to different depths, so the figures compare speed, not
# strength. Builds qiku in release first.
set -eu
other=${1:-}
runs=${2:-3}
root=$(cd "$(dirname "$0")/.." && pwd)
cargo build --release --quiet --manifest-path "$root/Cargo.toml" -p qiku-cli --bin qiku
qiku="$root/target/release/qiku"
best_qiku=0
best_other=0
i=0
while [ "$i" -lt "$runs" ]; do
  n=$("$qiku" bench 2>&1 | awk -F': *' '/^Nodes\/second/ {print $2}')
  [ "${n:-0}" -gt "$best_qiku" ] && best_qiku=$n
  if [ -n "$other" ]; then
    n=$(printf 'bench\nquit\n' | "$other" 2>&1 | awk -F': *' '/^Nodes\/second/ {print $2}')
    [ "${n:-0}" -gt "$best_other" ] && best_other=$n
  fi
  i=$((i + 1))
done
printf '%-40s %12s\n' "engine (bench, best of $runs)" "nodes/s"
printf '%-40s %12s\n' "qiku" "$best_qiku"
if [ -n "$other" ]; then
  printf '%-40s %12s\n' "$(basename "$other")" "$best_other"
  awk -v a="$best_qiku" -v b="$best_other" 'BEGIN { if (b > 0) printf "qiku / other: %.2f\n", a / b }'
fi
