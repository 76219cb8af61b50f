#!/usr/bin/env bash
# scripts/soak.sh FISH_STEPS: random scenes (fish counts, valid parameters from the ordinary to the
# extreme, behaviours on and off, both neighbour searches, every backend that runs here; a third of
# them changed mid-run as the panel changes a running school) under
# `fishschool-cli simulate --check`, until the fish x steps run reach FISH_STEPS. Stops at the
# first failure, prints its config and keeps it. The same SOAK_SEED (default 1) runs the same
# scenes. Environment: SOAK_SEED, SOAK_CLI (default build/bin/fishschool-cli), SOAK_DIR (default
# build/soak), SOAK_BACKENDS (default cpu,tbb and gpu where a GL context can be made).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [ $# -ne 1 ] || ! [[ "$1" =~ ^[0-9]+$ ]]; then
    echo "usage: scripts/soak.sh FISH_STEPS   (a whole number, e.g. 10000000)" >&2
    exit 2
fi
target="$1"
seed="${SOAK_SEED:-1}"
cli="${SOAK_CLI:-$root/build/bin/fishschool-cli}"
dir="${SOAK_DIR:-$root/build/soak}"
[ -x "$cli" ] || { echo "error: $cli not found: build it first (scripts/setup.sh)" >&2; exit 2; }
mkdir -p "$dir"

backends="${SOAK_BACKENDS:-}"
if [ -z "$backends" ]; then
    backends="cpu,tbb"
    if "$cli" simulate --backend gpu --fish 10 --steps 1 --state-out "$dir/probe.csv" \
        >/dev/null 2>"$dir/probe.err"; then
        backends+=",gpu"
    else
        echo "soak: no gpu backend here: $(tail -n 1 "$dir/probe.err")"
    fi
fi

echo "soak: $target fish-steps, SOAK_SEED=$seed, backends $backends, in $dir"
: >"$dir/cases.log"  # a line a scene passed: case, fish, steps, backend, change step, fish after
done_steps=0
case_number=0
reported=0
start=$(date +%s)
while [ "$done_steps" -lt "$target" ]; do
    config="$dir/case.json"
    change="$dir/case.change.json"
    rm -f "$change"
    read -r fish steps backend change_at fish_after < <(python3 "$root/scripts/soak_scene.py" \
        "$seed" "$case_number" "$backends" "$config")
    change_flags=()
    scene_steps=$((fish * steps))
    if [ -n "${change_at:-}" ]; then
        change_flags=(--change-config "$change" --change-at "$change_at")
        scene_steps=$((fish * change_at + fish_after * (steps - change_at)))
    fi
    status=0
    "$cli" simulate --config "$config" --backend "$backend" --steps "$steps" --check \
        "${change_flags[@]}" --state-out "$dir/case.csv" >"$dir/case.out" 2>"$dir/case.err" ||
        status=$?
    if [ "$status" -ge 126 ] && [ "$status" -le 127 ]; then
        # Not the scene's fault: the program itself could not be run (rebuilt under the soak?).
        echo "error: could not run $cli: $(tail -n 1 "$dir/case.err")" >&2
        exit 2
    fi
    if [ "$status" -ne 0 ]; then
        failed="$dir/failed-seed$seed-case$case_number.json"
        cp "$config" "$failed"
        rerun=("$cli" simulate --config "$failed" --backend "$backend" --steps "$steps")
        if [ -n "${change_at:-}" ]; then
            cp "$change" "${failed%.json}.change.json"
            rerun+=(--change-config "${failed%.json}.change.json" --change-at "$change_at")
        fi
        echo "soak: FAILED at case $case_number (SOAK_SEED=$seed) after $done_steps fish-steps:" >&2
        grep -v '^step ' "$dir/case.err" >&2 || true
        echo "the config, kept as $failed:" >&2
        cat "$failed" >&2
        if [ -n "${change_at:-}" ]; then
            echo "changed after step $change_at to ${failed%.json}.change.json:" >&2
            cat "${failed%.json}.change.json" >&2
        fi
        echo "to run it again: ${rerun[*]} --check --state-out $dir/case.csv" >&2
        exit 1
    fi
    echo "$case_number $fish $steps $backend ${change_at:--} ${fish_after:--}" >>"$dir/cases.log"
    done_steps=$((done_steps + scene_steps))
    case_number=$((case_number + 1))
    if [ $((done_steps * 10 / target)) -gt "$reported" ]; then
        reported=$((done_steps * 10 / target))
        echo "soak: $done_steps fish-steps, $case_number scenes, $(( $(date +%s) - start )) s"
    fi
done
echo "soak: passed, $case_number scenes, $done_steps fish-steps in $(( $(date +%s) - start )) s"
