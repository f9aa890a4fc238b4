#!/usr/bin/env bash
# qiku-tb beside ChessDB's table generator xiangqitb (github.com/noobpwnftw/xiangqitb), one run.
#
#   benches/xiangqitb_side_by_side.sh XIANGQITB_BINARY MATERIAL...
#
# For each material (written like KRNvKR), from empty directories and one thread each:
#   1. xiangqitb on that material: an option.ini (Threads = 1, WDL + DTC + DTM) and an
#      autoList.txt naming only the material; xiangqitb adds every smaller table it needs.
#   2. `qiku-tb generate MATERIAL --dir EMPTY --json` (DTM + rule-aware companion + WDL),
#      RAYON_NUM_THREADS=1 (rayon's pool; `--threads 1` would do the same).
#   3. the same with `--no-rules`.
# Each runs under `/usr/bin/time -v`. Printed: one table (wall, CPU = user + system, peak
# resident set, tables generated, entries of the top material counting both sides to move,
# files and bytes written), then win/draw/loss of the top material from both generators.
# No assertions: the figures are one run on whatever machine this is.
#
# xiangqitb's counts come from the .info file it writes beside each DTM table; its index keeps one
# of each pair of left-right mirror images, so its counts are about half qiku-tb's `stats`, which
# counts mirror images separately. Its "white" is the side it sorts first (the stronger one),
# which may be qiku-tb's black.
#
# Environment: QIKU_TB (default target/release/qiku-tb of this checkout; not built here),
# WORK (directory for the runs, default a new one under /tmp; kept for inspection),
# XQTB_MAXMEM (xiangqitb's MaxMem in MiB, default 16384), XIANGQITB_SRC (xiangqitb's source
# tree: if set, benches/xiangqitb_wdl_count.cpp is built against it before any timed run and
# counts xiangqitb's WDL file of the top material the way `qiku-tb stats` counts, mirror images
# separately, so the two generators' counts can be set side by side). Needs /usr/bin/time and
# python3 (and g++ for XIANGQITB_SRC).
set -euo pipefail

if [ $# -lt 2 ]; then
  echo "usage: $0 XIANGQITB_BINARY MATERIAL..." >&2
  exit 2
fi
xq=$(realpath "$1")
shift
root=$(cd "$(dirname "$0")/.." && pwd)
qiku=${QIKU_TB:-$root/target/release/qiku-tb}
work=${WORK:-$(mktemp -d /tmp/xqtb-side-by-side.XXXXXX)}
maxmem=${XQTB_MAXMEM:-16384}
[ -x "$xq" ] || { echo "$xq: not an executable; build xiangqitb with its ./build script" >&2; exit 2; }
[ -x "$qiku" ] || { echo "$qiku: not found; build it (cargo build --release -p qiku-cli) or set QIKU_TB" >&2; exit 2; }
mkdir -p "$work"
echo "work directory: $work"
echo "xiangqitb: $xq"
echo "qiku-tb: $qiku ($("$qiku" --version))"

rows=()
wdl=()

counter=
if [ -n "${XIANGQITB_SRC:-}" ]; then
  src=$(realpath "$XIANGQITB_SRC")
  counter="$work/xiangqitb_wdl_count"
  if [ ! -x "$counter" ] || [ "$root/benches/xiangqitb_wdl_count.cpp" -nt "$counter" ]; then
    echo "building $counter against $src"
    g++ -O2 -march=native -std=c++17 -pthread -w -I"$src/lib" -I"$src/src" -I"$root/benches" "$root/benches/xiangqitb_wdl_count.cpp" \
      "$src"/lib/lz4/*.c "$src"/lib/LZMA/*.c "$src"/lib/zstd/common/*.c "$src"/lib/zstd/compress/*.c \
      "$src"/lib/zstd/dictBuilder/*.c "$src"/src/util/*.cpp "$src"/src/chess/*.cpp "$src"/src/egtb/*.cpp \
      -o "$counter"
  fi
fi

# Wall seconds, CPU seconds and peak RSS (MiB) from a `/usr/bin/time -v` report.
time_fields() {
  awk -F': ' '
    /Elapsed \(wall clock\)/ { n = split($2, p, ":"); w = 0; for (i = 1; i <= n; i++) w = w * 60 + p[i] }
    /User time/ { u = $2 } /System time/ { s = $2 }
    /Maximum resident set size/ { r = $2 / 1024 }
    END { printf "%.1f %.1f %.0f", w, u + s, r }' "$1"
}

# Files and bytes under a directory (temporary directory excluded).
files_bytes() {
  (cd "$1" && find . -type f -not -path './tmp/*' "${@:2}" -printf '%s\n') | awk '{ n++; b += $1 } END { printf "%d %d", n, b }'
}

for m in "$@"; do
  case $m in
    K*vK*) ;;
    *) echo "$m: not a material like KRNvKR" >&2; exit 2 ;;
  esac
  pieces=$(( ${#m} - 1 ))

  # --- xiangqitb ---
  d="$work/$m/xiangqitb"
  rm -rf "$d"; mkdir -p "$d"
  cat > "$d/option.ini" <<EOF
MaxMem = $maxmem
Threads = 1
MaxPieces = $pieces
GenerateRunList = 0
GenerateTablebases = 1
SaveWDL = 1
SaveDTC = 1
SaveDTM = 1
tmpdir = ./tmp/
wdltb = ./wdl
dtctb = ./dtc
dtmtb = ./dtm
EOF
  echo "${m/v/}" > "$d/autoList.txt"
  echo "== $m: xiangqitb (load average $(cut -d' ' -f1-3 /proc/loadavg))"
  (cd "$d" && /usr/bin/time -v -o time.txt "$xq" > log.txt 2>&1) || { echo "xiangqitb failed on $m: see $d/log.txt" >&2; exit 1; }
  top=$(tr '\r' '\n' < "$d/log.txt" | sed -n 's/^Processing piece configuration [0-9]* out of [0-9]*: //p' | tail -1)
  tables=$(tr '\r' '\n' < "$d/log.txt" | grep -c '^Processing piece configuration' || true)
  # Its index size: a run-list pass in a directory of its own writes egtb_gen_info.csv.
  i="$work/$m/xiangqitb-info"
  rm -rf "$i"; mkdir -p "$i"
  printf 'MaxPieces = %s\nGenerateRunList = 1\nGenerateTablebases = 0\ntmpdir = ./tmp/\n' "$pieces" > "$i/option.ini"
  (cd "$i" && "$xq" > log.txt 2>&1)
  per_side=$(awk -F';' -v t="$top" '{ n = $1; gsub(/ /, "", n) } n == t { print $2 + 0 }' "$i/egtb_gen_info.csv")
  entries=$(( ${per_side:-0} * 2 ))
  read -r wall cpu rss <<< "$(time_fields "$d/time.txt")"
  read -r nf nb <<< "$(files_bytes "$d" -not -name option.ini -not -name autoList.txt -not -name log.txt -not -name time.txt)"
  rows+=("$m|xiangqitb (WDL+DTC+DTM, $top)|$wall|$cpu|$rss|$tables|$entries|$nf|$nb")
  wdl+=("$(python3 - "$d/dtm/$top.info" "$m" "$top" <<'EOF'
import struct, sys
b = open(sys.argv[1], "rb").read()
win, loss, draw, illegal = (struct.unpack_from("<2Q", b, o) for o in (0, 16, 32, 48))
longest = struct.unpack_from("<2H", b, 64)
m, top = sys.argv[2], sys.argv[3]
red = m.split("v")[0]
white = top[: top.index("K", 1)]
swap = sorted(white) != sorted(red)
for ours, c in (("red", 1 if swap else 0), ("black", 0 if swap else 1)):
    side = "white" if c == 0 else "black"
    # Its DTM scores are plies + 1 (1 = mated); 0 when the side has no win.
    plies = longest[c] - 1 if longest[c] else "-"
    print(f"{m}|xiangqitb {top}, {side} ({ours}) to move|{win[c] + loss[c] + draw[c]}|{win[c]}|{draw[c]}|{loss[c]}|{plies}")
EOF
)")
  if [ -n "$counter" ]; then
    wdl+=("$("$counter" "$top" "$d/wdl" "$d/tmp" | python3 -c '
import sys
m, red = sys.argv[1], sys.argv[1].split("v")[0]
for line in sys.stdin:
    top, side, _, legal, _, wins, _, draws, _, losses = line.split()
    white = top[: top.index("K", 1)]
    swap = sorted(white) != sorted(red)
    ours = ("black" if side == "white" else "red") if swap else ("red" if side == "white" else "black")
    print("%s|xiangqitb WDL file, %s (%s) to move, mirrors apart|%s|%s|%s|%s|-" % (m, side, ours, legal, wins, draws, losses))
' "$m")")
  fi

  # --- qiku-tb, default and --no-rules ---
  for variant in rules no-rules; do
    q="$work/$m/qiku-$variant"
    rm -rf "$q"; mkdir -p "$q"
    flags=()
    [ "$variant" = no-rules ] && flags=(--no-rules)
    echo "== $m: qiku-tb ${flags[*]:-} (load average $(cut -d' ' -f1-3 /proc/loadavg))"
    RAYON_NUM_THREADS=1 /usr/bin/time -v -o "$work/$m/time-$variant.txt" \
      "$qiku" generate "$m" --dir "$q/tb" --json "${flags[@]}" > "$q/report.json"
    read -r wall cpu rss <<< "$(time_fields "$work/$m/time-$variant.txt")"
    read -r tables entries <<< "$(python3 -c '
import json, sys
t = json.load(open(sys.argv[1]))["tables"]
top = [x for x in t if x["material"] == sys.argv[2]] or t[-1:]
print(len(t), top[0]["entries"])' "$q/report.json" "$m")"
    read -r nf nb <<< "$(files_bytes "$q/tb")"
    if [ "$variant" = rules ]; then
      label="qiku-tb (DTM+rules+WDL)"
      "$qiku" stats "$m" -d "$q/tb" --json > "$q/stats.json"
      wdl+=("$(python3 - "$q/stats.json" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
for side in ("red", "black"):
    x = s[side]
    print("%s|qiku-tb stats, %s to move (%s rules)|%d|%d|%d|%d|%d" % (
        s["material"], side, s["rules"], x["legal"], x["wins"], x["draws"], x["losses"], x["max_dtm"]))
EOF
)")
    else
      label="qiku-tb --no-rules (DTM)"
    fi
    rows+=("$m|$label|$wall|$cpu|$rss|$tables|$entries|$nf|$nb")
  done
done

echo
printf '%-10s %-38s %9s %9s %9s %7s %13s %6s %12s\n' material generator wall_s cpu_s rss_MiB tables entries files bytes
for r in "${rows[@]}"; do
  IFS='|' read -r a b c d e f g h i <<< "$r"
  printf '%-10s %-38s %9s %9s %9s %7s %13s %6s %12s\n' "$a" "$b" "$c" "$d" "$e" "$f" "$g" "$h" "$i"
done
echo
echo "top material's positions (xiangqitb .info: one of each mirror pair; qiku-tb and the WDL count: mirror images separately)"
echo "longest: plies of the longest win (xiangqitb) or of the longest win or loss (qiku-tb max_dtm) of the side to move"
printf '%-10s %-58s %10s %10s %10s %10s %8s\n' material source legal wins draws losses longest
for block in "${wdl[@]}"; do
  while IFS='|' read -r a b c d e f g; do
    printf '%-10s %-58s %10s %10s %10s %10s %8s\n' "$a" "$b" "$c" "$d" "$e" "$f" "$g"
  done <<< "$block"
done
