# shellcheck shell=bash disable=SC2034,SC2154  # case_name, cli, app, have_app: hostile.sh's
# --- 21. rows say what ran (issue 33): sourced by scripts/hostile.sh, in its scratch folder ---
# A row names the values of its run: the seed of `phase --vary seed`, every axis of an ensemble
# (two axes that write one field are refused), and no density made up for a scene of no fish.
case_name="rows say what ran"
school='"fishCount": 30, "noise": 0.2, "bounds": [10, 10, 10], "rocks": []'
printf '{%s, "seed": 0}' "$school" >rows-seed0.json
expect 0 "" -- "$cli" phase --config rows-seed0.json --vary seed --from 5 --to 6 --count 2 \
    --steps 3 --csv rows-seeds.csv
expect 0 "" -- "$cli" phase --config rows-seed0.json --vary seed --from 20000001 \
    --to 20000001 --count 1 --steps 3 --csv rows-big.csv
# Each row is what a config with its seed gives.
measures() { grep -m1 "^$2,fresh," "$1" | cut -d, -f3-; }
for seed in 5 6 20000001; do
    printf '{%s, "seed": %s}' "$school" "$seed" >rows-seed.json
    expect 0 "" -- "$cli" phase --config rows-seed.json --vary noise --from 0.2 --to 0.2 \
        --count 1 --steps 3 --csv rows-alone.csv
    rows="rows-seeds.csv"
    [ "$seed" = 20000001 ] && rows="rows-big.csv"
    check "the row of seed $seed is that seed's run" \
        test -n "$(measures "$rows" "$seed")" -a "$(measures "$rows" "$seed")" = "$(measures rows-alone.csv 0.2)"
done
check "two seeds, two rows" test "$(measures rows-seeds.csv 5)" != "$(measures rows-seeds.csv 6)"
expect 2 "seed = 9007199254740992 is not allowed; .*cannot hold every whole number above 2\^53.*9007199254740991" \
    -- "$cli" phase --vary seed --from 9007199254740993 --to 9007199254740993 --count 1 \
    --steps 1 --csv rows-huge.csv
expect 2 "seed = 18446744073709551616 is not allowed; .*2\^53" -- "$cli" phase --vary seed \
    --from 0 --to 18446744073709551615 --count 2 --steps 1 --csv rows-huge.csv
check "a refused sweep writes nothing" absent rows-huge.csv

# Two axes that write one field, in either order.
for axes in '"rCohesion": [10, 12], "attraction-width": [2]|rCohesion' \
    '"attraction-width": [2], "rCohesion": [10, 12]|rCohesion' \
    '"orientation-width": [1, 2], "rSeparation": [0.5]|rAlignment - rSeparation' \
    '"rSeparation": [0.5], "orientation-width": [1, 2]|rAlignment - rSeparation' \
    '"rAlignment": [4], "attraction-width": [2]|rCohesion - rAlignment'; do
    printf '{"base": {"fishCount": 10}, "axes": {%s}, "steps": 1}' "${axes%|*}" >rows-axes.json
    expect 2 "key 'axes\..*': axes '.*' and '.*' both write ${axes#*|}" -- \
        "$cli" ensemble run rows-axes.json --out rows-ens
done
check "a refused ensemble writes nothing" absent rows-ens
# The widths hold each other: the Couzin diagram's axes go together, in either order.
for axes in '"orientation-width": [0, 2], "attraction-width": [1, 4]' \
    '"attraction-width": [1, 4], "orientation-width": [0, 2]' \
    '"rSeparation": [0.5, 1], "attraction-width": [1, 4]'; do
    printf '{"base": {"fishCount": 10}, "axes": {%s}, "steps": 1}' "$axes" >rows-axes.json
    expect 0 "" -- "$cli" ensemble run rows-axes.json --out rows-ens-ok --jobs 1
    rm -rf rows-ens-ok
done

# No fish, no density: not one fish's.
printf '{"fishCount": 0, "bounds": [30, 20, 30]}' >rows-zero.json
expect 2 "--density fixed: the config 'rows-zero.json' has fishCount 0" -- \
    "$cli" bench --steps 1 --warmup 0 --fish 10 --density fixed --config rows-zero.json \
    --csv rows-bench.csv
check "a refused bench writes nothing" absent rows-bench.csv
expect 0 "" -- "$cli" bench --steps 1 --warmup 0 --fish 10 --density tank --config rows-zero.json
if [ "$have_app" -eq 1 ]; then
    # The app keeps the config's tank: the scene in view becomes the density base.
    expect 0 "" timeout=60 -- "$app" --config rows-zero.json --fish 50 --density fixed \
        --frames 1 --msaa 0 --config-out rows-app.json
    check "--fish over a config of no fish keeps its tank" python3 -c '
import json, sys
sys.exit(json.load(open("rows-app.json"))["bounds"] != [30, 20, 30])'
fi
check "no temporary file left" no_temporaries
