#!/bin/sh
# Table probes through the C API: the FEN probes and the board probe side by side in one run.
#
#   benches/capi_probe.sh [TABLE_DIR]
#
# Builds libqiku.a and qiku-tb in release, generates every table of up to four pieces into
# TABLE_DIR (default: target/capi-probe-tables; tables already there are kept), compiles
# benches/capi_probe.c against the static library and runs it: nanoseconds per warm probe of
# qiku_tb_probe, qiku_tb_probe_wdl and qiku_tb_probe_wdl_board on 4,096 random positions.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$root/target/capi-probe-tables}
cargo build --release --quiet --manifest-path "$root/Cargo.toml" -p qiku-capi -p qiku-cli --bin qiku-tb
if ! log=$("$root/target/release/qiku-tb" generate --max-pieces 4 -d "$dir" 2>&1); then
  printf '%s\n' "$log" >&2
  exit 1
fi
exe="$root/target/capi-probe"
cc -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -I"$root/include" "$root/benches/capi_probe.c" \
  "$root/target/release/libqiku.a" -lpthread -ldl -lm -o "$exe"
"$exe" "$dir"
