#!/usr/bin/env bash
# Submits an ensemble to Slurm: an array of N tasks, task K running shard K/N with the cores
# each task is given, and a merge job that runs when the array has ended (afterany), writing
# OUT_DIR/merged.csv. The jobs' logs go to OUT_DIR.slurm/ (the ensemble's folder holds only what
# `ensemble run` writes). Prints the two job ids. Options before the arguments:
#   --tasks LIST   submit only these tasks (e.g. 1 or 1,4-5: tasks that failed), then merge again
#   --cpus C       cores per task (default 1), passed to the runs as --jobs C
# Anything after the arguments goes to both sbatch calls (--partition, --time, --account...).
#   scripts/slurm/submit.sh [--tasks LIST] [--cpus C] ENSEMBLE.json OUT_DIR N [SBATCH_ARGS...]
# FISHSCHOOL_CLI names the program (default: build/bin/fishschool-cli beside this script, else
# fishschool-cli on PATH); it must be reachable from the compute nodes.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
usage="usage: $0 [--tasks LIST] [--cpus C] ENSEMBLE.json OUT_DIR N [SBATCH_ARGS...]"
tasks=""
cpus=1
while [ $# -gt 0 ]; do
    case "$1" in
        --tasks) [ $# -ge 2 ] || { echo "error: --tasks needs a list" >&2; exit 2; }; tasks="$2"; shift 2 ;;
        --cpus) [ $# -ge 2 ] || { echo "error: --cpus needs a count" >&2; exit 2; }; cpus="$2"; shift 2 ;;
        -*) echo "error: unknown option '$1'; $usage" >&2; exit 2 ;;
        *) break ;;
    esac
done
[ $# -ge 3 ] || { echo "$usage" >&2; exit 2; }
file="$(realpath "$1")"; out="$(realpath -m "$2")"; shards="$3"; shift 3
[[ "$shards" =~ ^[1-9][0-9]*$ ]] || { echo "error: N: '$shards' is not allowed; must be a whole number >= 1" >&2; exit 2; }
[[ "$cpus" =~ ^[1-9][0-9]*$ ]] || { echo "error: --cpus: '$cpus' is not allowed; must be a whole number >= 1" >&2; exit 2; }
[ -n "$tasks" ] || tasks="0-$((shards - 1))"
if [ -z "${FISHSCHOOL_CLI:-}" ]; then
    FISHSCHOOL_CLI="$here/../../build/bin/fishschool-cli"
    [ -x "$FISHSCHOOL_CLI" ] || FISHSCHOOL_CLI="$(command -v fishschool-cli)" ||
        { echo "error: no fishschool-cli: build it or set FISHSCHOOL_CLI" >&2; exit 2; }
fi
FISHSCHOOL_CLI="$(realpath "$FISHSCHOOL_CLI")"
export FISHSCHOOL_CLI
logs="$out.slurm"
mkdir -p "$logs"
array=$(sbatch --parsable --array="$tasks" --cpus-per-task="$cpus" --chdir="$logs" "$@" \
    "$here/ensemble.sbatch" "$file" "$out" "$shards")
array="${array%%;*}"
merge=$(sbatch --parsable --dependency="afterany:$array" --chdir="$logs" "$@" \
    "$here/merge.sbatch" "$out" "$out/merged.csv")
merge="${merge%%;*}"
echo "array job $array (tasks $tasks of $shards), merge job $merge -> $out/merged.csv, logs in $logs"
