# shellcheck shell=bash disable=SC2034,SC2154  # case_name, cli: hostile.sh's
# --- 30. kick clocks (docs/model.md, Burst-and-coast swimming): sourced by scripts/hostile.sh ---
# A burst-and-coast run saves each fish's kick clock, in its state file and its trajectory; a
# run started from either goes on as the run that wrote it. A clock that is not a time from 0 to
# 1e8 s, in either file, exits 2 naming the line or the frame and fish, and writes nothing.
case_name="kick clocks"
printf '{"fishCount": 5, "steering": "burst-and-coast", "arena": "cylinder", "bounds": [0.25, 0.035, 0.25], "dimensions": 2, "rocks": [], "dt": 0.01, "rCohesion": 1, "maxVelocity": 0.35, "kickSpeedMax": 0.35}' >kick.json
expect 0 "" -- "$cli" simulate --config kick.json --steps 60 --trajectory kick.h5 \
    --trajectory-every 30 --state-out kick-ok.csv
check "the state file holds the clocks" grep -q '^x,y,z,vx,vy,vz,kickClock$' kick-ok.csv
expect 0 "" -- "$cli" simulate --state-in kick.h5 --frame 1 --steps 30 --state-out kick-again.csv
check "frame 1 and 30 steps are the run that wrote the file" cmp -s kick-ok.csv kick-again.csv

sentinel kick-out.csv
for clock in -0.5 nan inf 2e8 1e39 soon ''; do
    { head -1 kick-ok.csv; sed -n 2p kick-ok.csv | sed "s/,[^,]*\$/,$clock/"; } >kick-bad.csv
    expect 2 "kick-bad.csv:2: 'kickClock'" -- "$cli" simulate --config kick.json \
        --state-in kick-bad.csv --steps 1 --state-out kick-out.csv
    check "a refused clock replaces nothing" untouched kick-out.csv
done

/usr/bin/python3 - <<'EOF'
import shutil
import h5py
import numpy as np

for name, clock in (("negative", -1.0), ("nan", np.nan), ("long", 2e8)):
    shutil.copy("kick.h5", f"kick-{name}.h5")
    with h5py.File(f"kick-{name}.h5", "r+") as f:
        f["particles/school/kick_clock/value"][1, 3] = clock
EOF
for name in negative nan long; do
    expect 2 "kick-$name.h5: particles/school/kick_clock/value: frame 1, fish 3" -- \
        "$cli" simulate --state-in "kick-$name.h5" --frame 1 --steps 1 --state-out kick-out.csv
    check "a refused clock replaces nothing" untouched kick-out.csv
done
