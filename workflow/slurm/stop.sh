#!/usr/bin/env bash
# Stops the one-machine Slurm cluster that start.sh started: slurmd, slurmctld and munged, each
# by the pid file it wrote (no other process is touched). Its state stays in SLURM_STATE.
set -uo pipefail

STATE=${SLURM_STATE:-/var/lib/qiku-slurm}

stop() {
    local name=$1 pidfile=$2
    [ -s "$pidfile" ] || return 0
    local pid
    pid=$(cat "$pidfile")
    if kill "$pid" 2>/dev/null; then
        for _ in $(seq 100); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.1
        done
        echo "stop.sh: stopped $name ($pid)"
    fi
    rm -f "$pidfile"
}

stop slurmd "$STATE/slurmd.pid"
stop slurmctld "$STATE/slurmctld.pid"
stop munged /run/munge/munged.pid
