#!/usr/bin/env bash
# `qiku-tb plan` against `qiku-tb generate`, table by table.
#
#   benches/plan_vs_generate.sh QIKU_TB DIR MATERIAL...
#
# Generates every material with its smaller tables into DIR first (untimed), then, one material
# at a time: removes its .qtb, .qtr and .qtw, reads the plan's estimate for generating it alone
# (`plan MATERIAL --json -d DIR`: job_peak_memory_bytes, seconds), and generates it alone
# (`generate --only MATERIAL`) under `/usr/bin/time -v`. Prints one line per material: entries,
# the kind of rule-aware pass, estimated and measured peak memory and time, their errors, and the
# directions the pass skipped, and the machine's speed the plan measured (its calibration). No assertions: the figures are one run on whatever machine this
# is (docs/TABLEBASES.md, "Selections and plans", has the project machine's). Needs python3.
set -euo pipefail
if [ $# -lt 3 ]; then
  echo "usage: $0 QIKU_TB DIR MATERIAL..." >&2
  exit 2
fi
tb=$1
dir=$2
shift 2
mkdir -p "$dir"
"$tb" generate "$@" -d "$dir" > "$dir/setup.log" 2>&1
printf "%-12s %12s %-7s %9s %9s %7s %8s %8s %7s %s %s\n" table entries pass est_MB meas_MB err est_s wall_s err skipped speed
for m in "$@"; do
  read -r cm entries pass mem sec speed < <("$tb" plan "$m" --json -d "$dir" | python3 -c "
import json, sys
d = json.load(sys.stdin)
t = [t for t in d['tables'] if t['target']][-1]
print(t['material'], t['entries'], t['rules_pass'], t['job_peak_memory_bytes'], t['seconds'], d['speed'])")
  rm -f "$dir/$cm.qtb" "$dir/$cm.qtr" "$dir/$cm.qtw"
  /usr/bin/time -v "$tb" generate --only "$cm" -d "$dir" --json > "$dir/$cm.json" 2> "$dir/$cm.time"
  python3 - "$dir" "$cm" "$entries" "$pass" "$mem" "$sec" "$speed" <<'PY'
import json, re, sys
d, m, entries, kind, mem, sec, speed = sys.argv[1:]
t = open(f"{d}/{m}.time").read()
rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", t).group(1)) * 1024 / 1e6
w = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", t).group(1).split(":")
wall = sum(float(x) * 60 ** i for i, x in enumerate(reversed(w)))
rep = json.load(open(f"{d}/{m}.json"))
skipped = (rep["tables"] if isinstance(rep, dict) else rep)[-1]["rules_skipped"]
est, es = float(mem) / 1e6, float(sec)
print("%-12s %12d %-7s %9.1f %9.1f %+6.0f%% %8.2f %8.2f %+6.0f%% %s %5.2f"
      % (m, int(entries), kind, est, rss, 100 * (est / rss - 1), es, wall, 100 * (es / wall - 1), skipped, float(speed)))
PY
done
