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
#
# Nothing is queued that a task would refuse: N, C and LIST are checked here, and the CLI itself
# checks the rest (`ensemble run ... --dry-run`: the file, the folder, the shard, --jobs) before
# the first sbatch. A refusal is one "error: ..." line and exit status 2.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
usage="usage: $0 [--tasks LIST] [--cpus C] ENSEMBLE.json OUT_DIR N [SBATCH_ARGS...]"
max_shards=10000000 # kMaxEnsembleRuns: a shard count the CLI takes
max_cpus=1024       # kMaxJobs: the most --jobs the CLI takes

refuse() {
    echo "error: $*" >&2
    exit 2
}
# A value as messages show it: in quotes, cut to 40 characters, nothing unprintable.
shown() {
    local value="$1" more=""
    if [ ${#value} -gt 40 ]; then
        more="... (${#value} characters)"
        value="${value:0:40}"
    fi
    printf "'%s'%s" "$(printf '%s' "$value" | LC_ALL=C tr -c '[:print:]' '?')" "$more"
}
# whole TEXT MAX: whether TEXT is a whole number from 0 to MAX, in plain decimal digits, compared
# as digits first so that no number overflows the shell's arithmetic.
whole() {
    [[ "$1" =~ ^(0|[1-9][0-9]*)$ ]] || return 1
    [ ${#1} -lt ${#2} ] || { [ ${#1} -eq ${#2} ] && [[ ! "$1" > "$2" ]]; }
}
# positive TEXT MAX: whole, and not 0.
positive() { whole "$1" "$2" && [ "$1" != 0 ]; }

tasks=""
tasks_given=0
cpus=1
while [ $# -gt 0 ]; do
    case "$1" in
        --tasks)
            [ $# -ge 2 ] || refuse "--tasks needs a list, e.g. --tasks 1,4-5"
            tasks="$2" tasks_given=1
            shift 2
            ;;
        --cpus)
            [ $# -ge 2 ] || refuse "--cpus needs a count"
            cpus="$2"
            shift 2
            ;;
        -*) refuse "unknown option $(shown "$1"); $usage" ;;
        *) break ;;
    esac
done
[ $# -ge 3 ] || refuse "$usage"
file="$1" shards="$3"
positive "$shards" "$max_shards" ||
    refuse "N: $(shown "$shards") is not allowed; must be a whole number from 1 to $max_shards (the shards, one an array task)"
positive "$cpus" "$max_cpus" ||
    refuse "--cpus: $(shown "$cpus") is not allowed; must be a whole number from 1 to $max_cpus (the runs at once of a task)"
last=$((shards - 1)) # safe: at most 10^7
# LIST as sbatch --array takes it: K, A-B or A-B:S, comma-separated, with an optional %M (the
# tasks at once); each task one of the N shards, 0 to N-1.
if [ $tasks_given -eq 0 ]; then
    tasks="0-$last"
else
    [ -n "$tasks" ] || refuse "--tasks: an empty list is not allowed; give tasks from 0 to $last, e.g. 1,4-5"
    list="$tasks" limit=""
    if [[ "$list" == *%* ]]; then
        limit="${list##*%}" list="${list%\%*}"
        positive "$limit" "$max_shards" ||
            refuse "--tasks: $(shown "$tasks") is not allowed; after % comes the tasks at once, a whole number from 1"
    fi
    IFS=, read -r -a items <<<"$list,"
    [[ "$list" != *, ]] ||
        refuse "--tasks: $(shown "$tasks") is not allowed; an empty item"
    number='(0|[1-9][0-9]*)'
    for item in "${items[@]}"; do
        [ -n "$item" ] || refuse "--tasks: $(shown "$tasks") is not allowed; an empty item"
        [[ "$item" =~ ^$number(-$number(:$number)?)?$ ]] ||
            refuse "--tasks: $(shown "$item") is not allowed; each item is K, A-B or A-B:S in plain decimal digits, e.g. 1,4-5"
        first="${BASH_REMATCH[1]}" end="${BASH_REMATCH[3]:-${BASH_REMATCH[1]}}" step="${BASH_REMATCH[5]:-1}"
        for task in "$first" "$end"; do
            whole "$task" "$last" ||
                refuse "--tasks: task $(shown "$task") is not allowed; the array has tasks 0 to $last (N is $shards)"
        done
        [ "$first" -le "$end" ] ||
            refuse "--tasks: $(shown "$item") is not allowed; a range A-B needs A <= B"
        positive "$step" "$max_shards" ||
            refuse "--tasks: $(shown "$item") is not allowed; the step S of A-B:S is a whole number from 1 to $max_shards"
    done
fi

if [ -z "${FISHSCHOOL_CLI:-}" ]; then
    FISHSCHOOL_CLI="$here/../../build/bin/fishschool-cli"
    [ -x "$FISHSCHOOL_CLI" ] || FISHSCHOOL_CLI="$(command -v fishschool-cli)" ||
        refuse "no fishschool-cli: build it or set FISHSCHOOL_CLI"
fi
[[ -f "$FISHSCHOOL_CLI" && -x "$FISHSCHOOL_CLI" ]] ||
    refuse "FISHSCHOOL_CLI: $(shown "$FISHSCHOOL_CLI") is not a program that can run here"
FISHSCHOOL_CLI="$(realpath "$FISHSCHOOL_CLI")"
export FISHSCHOOL_CLI
command -v sbatch >/dev/null || refuse "sbatch was not found; submit from a Slurm login node"
file="$(realpath -m -- "$file")"
out="$(realpath -m -- "$2")"
shift 3

# Every check `ensemble run` makes, on this machine, before anything is queued: a task would
# make the same ones on its node, after waiting in the queue.
status=0
said="$("$FISHSCHOOL_CLI" ensemble run "$file" --out "$out" --shard "0/$shards" --jobs "$cpus" \
    --dry-run 2>&1 >/dev/null)" || status=$?
if [ $status -ne 0 ]; then
    line="$(printf '%s\n' "$said" | grep -m1 '^error: ' || true)"
    [ -n "$line" ] ||
        line="error: the dry run of fishschool-cli ensemble run failed (status $status): $(printf '%s' "$said" | head -c 300 | LC_ALL=C tr -c '[:print:]' ' ')"
    echo "$line; nothing was submitted" >&2
    exit 2
fi

logs="$out.slurm"
mkdir -p "$logs"
array=$(sbatch --parsable --array="$tasks" --cpus-per-task="$cpus" --chdir="$logs" "$@" \
    "$here/ensemble.sbatch" "$file" "$out" "$shards")
array="${array%%;*}"
merge=$(sbatch --parsable --dependency="afterany:$array" --chdir="$logs" "$@" \
    "$here/merge.sbatch" "$out" "$out/merged.csv")
merge="${merge%%;*}"
echo "array job $array (tasks $tasks of $shards), merge job $merge -> $out/merged.csv, logs in $logs"
