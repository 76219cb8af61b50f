#!/usr/bin/env bash
# Times variants of the grid step's shared-memory search (shaders/step_grid.comp) against a base
# set of shaders, interleaved, on whatever GL the CLI finds (a GPU, or llvmpipe):
#   bench/gpu_search_variants.sh OUT_DIR CLI BASE_SHADERS NOW_SHADERS
# Each variant is NOW_SHADERS with SEARCH_GROUP_SIZE set to one of $SEARCH_GROUPS and
# kStagedCandidatesPerOwn to one of $FACTORS (0 searches fish by fish, 1000000 always stages).
# Each case is `bench --backend gpu --neighbors grid --density fixed` of each config in $CONFIGS
# at each of $FISH, $ROUNDS times; OUT_DIR gets rounds.csv and summary.csv (medians).
set -euo pipefail
out=${1:?usage: gpu_search_variants.sh OUT_DIR CLI BASE_SHADERS NOW_SHADERS}
cli=${2:?}; base=$(realpath "${3:?}"); now=$(realpath "${4:?}")
SEARCH_GROUPS=${SEARCH_GROUPS:-32,64,128,256}
FACTORS=${FACTORS:-0,3,1000000}
FISH=${FISH:-100000,1000000}
CONFIGS=${CONFIGS:-docs/examples/article.json,docs/examples/default.json}
STEPS=${STEPS:-100}
WARMUP=${WARMUP:-100}
ROUNDS=${ROUNDS:-3}
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
variants=("base=$base")
IFS=, read -ra groups <<<"$SEARCH_GROUPS"
IFS=, read -ra factors <<<"$FACTORS"
for g in "${groups[@]}"; do
    for f in "${factors[@]}"; do
        dir="$work/g${g}_f${f}"
        rm -rf "$dir"; cp -r "$now" "$dir"
        sed -i -e "s/^#define SEARCH_GROUP_SIZE .*/#define SEARCH_GROUP_SIZE ${g}u/" \
            -e "s/^const uint kStagedCandidatesPerOwn = .*/const uint kStagedCandidatesPerOwn = ${f}u;/" \
            "$dir/step_grid.comp"
        grep -q "SEARCH_GROUP_SIZE ${g}u" "$dir/step_grid.comp" || { echo "no SEARCH_GROUP_SIZE in $now" >&2; exit 2; }
        variants+=("g${g}_f${f}=$dir")
    done
done
echo "label,config,fish,round,ms_per_step" >"$out/rounds.csv"
IFS=, read -ra counts <<<"$FISH"
IFS=, read -ra configs <<<"$CONFIGS"
for round in $(seq 1 "$ROUNDS"); do
    for config in "${configs[@]}"; do
        for fish in "${counts[@]}"; do
            for v in "${variants[@]}"; do
                label=${v%%=*}
                FISHSCHOOL_SHADER_DIR=${v#*=} "$cli" bench --backend gpu --neighbors grid \
                    --density fixed --fish "$fish" --steps "$STEPS" --warmup "$WARMUP" \
                    --config "$config" --csv "$work/r.csv" >/dev/null 2>>"$out/bench.log"
                awk -F, -v l="$label" -v c="$(basename "$config" .json)" -v f="$fish" -v r="$round" \
                    'NR > 1 {print l "," c "," f "," r "," $5}' "$work/r.csv" | tee -a "$out/rounds.csv"
            done
        done
    done
done
echo "label,config,fish,median_ms_per_step" >"$out/summary.csv"
tail -n +2 "$out/rounds.csv" | sort -t, -k1,1 -k2,2 -k3,3n -k5,5g |
    awk -F, '{key=$1","$2","$3; v[key]=v[key]" "$5; n[key]++}
        END {for (k in v) {split(substr(v[k],2), a, " "); print k","a[int((n[k]+1)/2)]}}' |
    sort -t, -k2,2 -k3,3n -k4,4g >>"$out/summary.csv"
column -t -s, "$out/summary.csv" 2>/dev/null || cat "$out/summary.csv"
