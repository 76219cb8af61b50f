#!/usr/bin/env bash
# scripts/fuzz.sh SECONDS [TARGET[:SECONDS]...]: fuzzes each target (config, state, flags, appflags,
# ensemble, trajectory, pickle, trackcsv, fit: all by default) for SECONDS, or the seconds given after its name, with
# AFL++ (persistent mode, AddressSanitizer and UBSan), from its seed corpus in
# tests/fuzz/corpus/TARGET. One afl-fuzz a core, FUZZ_JOBS (default: the cores) targets at once,
# each for its whole time on a core of its own, started in the order given. Builds the targets
# with afl-g++-fast into build-fuzz/. Fails, naming the inputs, when any target crashed (a
# sanitizer error or a broken property: see tests/fuzz/*.cpp) or hung. Findings stay in
# build-fuzz/findings/TARGET/default/{crashes,hangs}; to see why one failed:
# build-fuzz/bin/fuzz_TARGET < FILE, or from an ordinary build build/bin/fuzz_TARGET FILE.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

if [ $# -lt 1 ] || ! [[ "$1" =~ ^[0-9]+$ ]] || [ "$1" -lt 1 ]; then
    echo "usage: scripts/fuzz.sh SECONDS [config|state|flags ...][:SECONDS]" >&2
    exit 2
fi
seconds="$1"
shift
args=("$@")
[ ${#args[@]} -gt 0 ] || args=(config state flags appflags ensemble trajectory pickle trackcsv fit)
targets=()
declare -A target_seconds=()
for arg in "${args[@]}"; do
    t="${arg%%:*}"
    s="$seconds"
    [ "$t" = "$arg" ] || s="${arg#*:}"
    [ -d "$FISHSCHOOL_ROOT/tests/fuzz/corpus/$t" ] ||
        { echo "error: no fuzz target '$t'; there are config, state, flags, appflags, ensemble, trajectory, pickle, trackcsv and fit" >&2; exit 2; }
    [[ "$s" =~ ^[0-9]+$ ]] && [ "$s" -ge 1 ] ||
        { echo "error: '$arg': a target's seconds are a whole number, 1 or more (e.g. $t:10)" >&2; exit 2; }
    [ -z "${target_seconds[$t]:-}" ] || { echo "error: fuzz target '$t' given twice" >&2; exit 2; }
    targets+=("$t")
    target_seconds[$t]="$s"
done
at_once="${FUZZ_JOBS:-$(nproc)}"
[[ "$at_once" =~ ^[0-9]+$ ]] && [ "$at_once" -ge 1 ] ||
    { echo "error: FUZZ_JOBS=$at_once: the targets fuzzed at once, a whole number, 1 or more" >&2; exit 2; }

install_missing_packages
# FISHSCHOOL_FUZZ_BUILD: a build folder configured with afl-g++-fast and the sanitizers that already
# holds the targets (to fuzz again without building anew).
if [ -n "${FISHSCHOOL_FUZZ_BUILD:-}" ]; then
    # A full path: each afl-fuzz runs in a folder of its own.
    build="$(realpath -m "$FISHSCHOOL_FUZZ_BUILD")"
    grep -q '^CMAKE_CXX_COMPILER:.*afl-g++-fast' "$build/CMakeCache.txt" 2>/dev/null || {
        echo "error: FISHSCHOOL_FUZZ_BUILD=$build is not a build configured with afl-g++-fast;" \
            "unset it to build the fuzzers into build-fuzz/" >&2
        exit 2
    }
    use_afl_compilers "$build/afl"
    echo "== fuzz targets from $build"
else
    build="$FISHSCHOOL_ROOT/build-fuzz"
    use_afl_compilers "$build/afl"
    echo "== fuzz targets with afl-g++-fast, AddressSanitizer and UBSan, into $build"
    cmake -S "$FISHSCHOOL_ROOT" -B "$build" \
        -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFISHSCHOOL_FUZZ=ON -DFISHSCHOOL_SANITIZE=ON \
        -DFISHSCHOOL_WERROR=ON >/dev/null
fi
cmake --build "$build" -j "${FUZZ_BUILD_JOBS:-2}" --target $(printf 'fuzz_%s ' "${targets[@]}")

# A container has no CPU frequency control and its own core pattern; afl-fuzz needs neither.
export AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_NO_UI=1 AFL_NO_AFFINITY=1
export ASAN_OPTIONS=abort_on_error=1:symbolize=0:detect_leaks=0
export UBSAN_OPTIONS=halt_on_error=1:abort_on_error=1:symbolize=0
declare -A running=() status=()  # afl-fuzz's process id -> target; target -> exit status
trap 'kill "${!running[@]}" 2>/dev/null || true' EXIT
reap_one() {
    local pid="" s=0
    wait -n -p pid || s=$?
    [ -n "$pid" ] || { echo "error: lost an afl-fuzz" >&2; exit 1; }
    status[${running[$pid]}]=$s
    unset "running[$pid]"
}
for t in "${targets[@]}"; do
    out="$build/findings/$t"
    rm -rf "$out"
    mkdir -p "$out"
    while [ ${#running[@]} -ge "$at_once" ]; do reap_one; done
    echo "== fuzzing $t for ${target_seconds[$t]} s"
    # The flag target runs in a scratch folder: the paths it makes up stay there.
    (cd "$out" && exec afl-fuzz -i "$FISHSCHOOL_ROOT/tests/fuzz/corpus/$t" -o "$out" \
        -V "${target_seconds[$t]}" -t 5000 -m none -- "$build/bin/fuzz_$t" >"$out/afl.log" 2>&1) &
    running[$!]="$t"
done
while [ ${#running[@]} -gt 0 ]; do reap_one; done

found=0
for t in "${targets[@]}"; do
    out="$build/findings/$t"
    if [ "${status[$t]}" -ne 0 ]; then
        echo "error: afl-fuzz failed for $t:" >&2
        tail -n 20 "$out/afl.log" >&2
        exit 1
    fi
    echo "$t: $(grep -E '^(execs_done|execs_per_sec|corpus_count|saved_crashes|saved_hangs) ' \
        "$out/default/fuzzer_stats" | tr -s ' ' | paste -sd ' ' -)"
    for kind in crashes hangs; do
        mapfile -t bad < <(find "$out/default/$kind" -type f -name 'id:*' 2>/dev/null | sort)
        if [ ${#bad[@]} -gt 0 ]; then
            found=1
            echo "error: $t: ${#bad[@]} input(s) in $out/default/$kind; replay one with" \
                "$build/bin/fuzz_$t < FILE:" >&2
            printf '  %s\n' "${bad[@]}" >&2
        fi
    done
done
if [ "$found" -ne 0 ]; then
    exit 1
fi
echo "fuzz: no crash or hang in$(for t in "${targets[@]}"; do printf ' %s (%s s)' "$t" "${target_seconds[$t]}"; done)"
