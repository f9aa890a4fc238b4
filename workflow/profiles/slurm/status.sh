#!/usr/bin/env bash
# Snakemake's status command for the Slurm profile: prints running, success or failed for a
# job id that sbatch --parsable printed (`ID` or `ID;CLUSTER`). Asks the accounting database
# (sacct) where there is one, else the controller (scontrol), which keeps finished jobs for
# MinJobAge seconds. A job neither knows is reported a success: Snakemake then checks that
# every output file is there, and fails (and retries) the job when one is not.
id=${1%%;*}
state=$(sacct -n -X -P -j "$id" -o State 2>/dev/null | head -n1 | awk '{ print $1 }')
if [ -z "$state" ]; then
    state=$(scontrol show job "$id" -o 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p')
fi
case "$state" in
    "" | COMPLETED) echo success ;;
    PENDING | CONFIGURING | RUNNING | COMPLETING | SUSPENDED | REQUEUED | REQUEUE_HOLD | REQUEUE_FED | RESIZING | SIGNALING | STAGE_OUT | RESV_DEL_HOLD | STOPPED)
        echo running ;;
    *) echo failed ;;
esac
