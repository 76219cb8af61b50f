#!/usr/bin/env bash
# Times the GPU step of several builds side by side, in one run on one machine, interleaved so
# that a drift of the GPU's clocks touches every build alike:
#   bench/gpu_side_by_side.sh OUT_DIR LABEL=CLI [LABEL=CLI ...]
#   BACKEND=cpu,tbb bench/gpu_side_by_side.sh ...     (the CPU step instead, each backend a case)
#   BASE_CONFIG=docs/examples/article.json ...        (that config at each of $FISH, not the default)
# CLI is a fishschool-cli; each case is `bench --backend gpu --neighbors grid --density fixed
# --steps $STEPS --warmup $WARMUP`, for the default config at each of $FISH, and for each config
# bench/configs/NAME.json named in $CONFIGS (default: every_behaviour) at $BEHAVIOUR_FISH with
# the builds named in $BEHAVIOUR_LABELS (a build older than the behaviours cannot read them). Each case runs
# $ROUNDS times; OUT_DIR gets rounds.csv (every run), summary.csv (the median of the rounds' ms
# per step) and bench.log. A case at 4,000,000 fish takes about a minute (the school is made and
# measured on the CPU), one at 1,000,000 about ten seconds.
set -euo pipefail
out=${1:?usage: gpu_side_by_side.sh OUT_DIR LABEL=CLI [LABEL=CLI ...]}
shift
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
FISH=${FISH:-100000,1000000,4000000}
BEHAVIOUR_FISH=${BEHAVIOUR_FISH:-1000000}
BEHAVIOUR_LABELS=${BEHAVIOUR_LABELS:-}
STEPS=${STEPS:-100}
WARMUP=${WARMUP:-300}
ROUNDS=${ROUNDS:-3}
CONFIGS=${CONFIGS:-every_behaviour}
BACKEND=${BACKEND:-gpu}
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "label,config,fish,round,ms_per_step" >"$out/rounds.csv"

run_case() {  # label cli config_name fish round [--config FILE]
    local label=$1 cli=$2 config=$3 fish=$4 round=$5
    shift 5
    local csv="$work/${label}_${config}_${fish}_r${round}.csv"
    "$cli" bench --backend "$BACKEND" --neighbors grid --density fixed --fish "$fish" \
        --steps "$STEPS" --warmup "$WARMUP" --csv "$csv" "$@" >/dev/null 2>>"$out/bench.log"
    # One row a backend: the case's label carries the backend when there are several.
    awk -F, -v label="$label" -v config="$config" -v fish="$fish" -v round="$round" \
        -v several="$([[ $BACKEND == *,* ]] && echo 1)" \
        'NR > 1 {print (several ? label "-" $1 : label) "," config "," fish "," round "," $5}' \
        "$csv" | tee -a "$out/rounds.csv"
}

IFS=, read -ra counts <<<"$FISH"
for round in $(seq 1 "$ROUNDS"); do
    for fish in "${counts[@]}"; do
        for build in "$@"; do
            if [ -n "${BASE_CONFIG:-}" ]; then
                run_case "${build%%=*}" "${build#*=}" "$(basename "$BASE_CONFIG" .json)" "$fish" \
                    "$round" --config "$BASE_CONFIG"
            else
                run_case "${build%%=*}" "${build#*=}" default "$fish" "$round"
            fi
        done
    done
    IFS=, read -ra configs <<<"$CONFIGS"
    for config in "${configs[@]}"; do
        for build in "$@"; do
            label=${build%%=*}
            case ",$BEHAVIOUR_LABELS," in *",$label,"*)
                run_case "$label" "${build#*=}" "$config" "$BEHAVIOUR_FISH" "$round" \
                    --config "$here/configs/$config.json" ;;
            esac
        done
    done
done

# The median over the rounds of each build and case.
echo "label,config,fish,median_ms_per_step" >"$out/summary.csv"
tail -n +2 "$out/rounds.csv" | sort -t, -k1,1 -k2,2 -k3,3n -k5,5g |
    awk -F, '{key=$1","$2","$3; v[key]=v[key]" "$5; n[key]++}
        END {for (k in v) {split(substr(v[k],2), a, " "); print k","a[int((n[k]+1)/2)]}}' |
    sort -t, -k2,2 -k3,3n -k1,1 >>"$out/summary.csv"
column -t -s, "$out/summary.csv" 2>/dev/null || cat "$out/summary.csv"
