# shellcheck shell=bash disable=SC2034,SC2154  # case_name, cli: hostile.sh's
# --- 24. files that lie, species that change between files, open water far out, outputs through
# links into an ensemble folder, numbers beyond a float: sourced by scripts/hostile.sh after class
# 23, in its scratch folder (traj.json, traj.h5, traj-ok.csv and ens.json are made before) ---

case_name="a number beyond a float names itself and the range"
range='is beyond the range of a float \(-3\.4028235e\+38 to 3\.4028235e\+38\)'
expect 2 "--vary kCohesion: .*'-1e\+308' $range" -- "$cli" phase --vary kCohesion \
    --from -1e308 --to 1e308 --count 2 --steps 1 --csv lie-phase.csv
expect 2 "--vary orientation-width = 1e\+308 $range" -- "$cli" phase \
    --vary orientation-width --from 1e308 --to 1 --count 2 --steps 1 --csv lie-phase.csv
printf '{"kCohesion": 1e39}' >lie-float.json
expect 2 "key 'kCohesion': '1e\+39' $range" -- \
    "$cli" simulate --config lie-float.json --steps 1 --state-out lie-out.csv
printf 'x,y,z,vx,vy,vz\n1,2,3,1e39,0,0\n' >lie-float.csv
expect 2 "lie-float.csv:2: 'vx' value '1e39' $range" -- \
    "$cli" simulate --state-in lie-float.csv --steps 1 --state-out lie-out.csv

case_name="a trajectory through a link into the ensemble folder"
expect 0 "" -- "$cli" ensemble run ens.json --out lie-runs --jobs 1
cp lie-runs/manifest.json lie-manifest.kept
cp lie-runs/part-0of1-w0.csv lie-part.kept
ln -sfn lie-runs lie-runs-link
ln -sf lie-runs/part-0of1-w0.csv lie-to-part.h5
ln -f lie-runs/manifest.json lie-hard.h5
for target in lie-runs-link/manifest.json lie-runs-link/part-0of1-w0.csv lie-to-part.h5 \
    lie-hard.h5 lie-runs-link/new.h5; do
    expect 2 "--trajectory: .* which holds part files only; give a path outside it" -- \
        "$cli" ensemble run ens.json --out lie-runs --only 0 --trajectory "$target"
done
check "the manifest is as it was" cmp -s lie-manifest.kept lie-runs/manifest.json
check "the part file is as it was" cmp -s lie-part.kept lie-runs/part-0of1-w0.csv
check "nothing new in the folder" test "$(ls lie-runs | wc -l)" -eq 2
expect 0 "" -- "$cli" ensemble status lie-runs

case_name="a trajectory that lies"
# Each a copy of traj.h5 (6 fish, 3 frames, no species) with one claim made false.
/usr/bin/python3 - <<'EOF'
import shutil
import struct
import h5py
import numpy as np

value = "particles/school/position/value"


def copy(name, mutate):
    shutil.copy("traj.h5", name)
    with h5py.File(name, "r+") as f:
        mutate(f)


def chunked(f):
    data = f[value][()]
    del f[value]
    f.create_dataset(value, data=data, chunks=(1, 6, 3))
copy("lie-chunks.h5", chunked)
# The layout message's chunk shape 1 x 6 x 3 (of 4-byte floats) edited to 1 x 2 x 3.
with open("lie-chunks.h5", "rb") as f:
    data = f.read()
shape = struct.pack("<4I", 1, 6, 3, 4)
assert data.count(shape) == 1
with open("lie-chunks.h5", "wb") as f:
    f.write(data.replace(shape, struct.pack("<4I", 1, 2, 3, 4)))


def config_with_nul(f):
    text = f["parameters/config"][()]
    text = text if isinstance(text, bytes) else text.encode()
    del f["parameters/config"]
    f["parameters/config"] = np.bytes_(text + b'\0{"dt": -1}')
copy("lie-nul.h5", config_with_nul)


def species(values):
    def mutate(f):
        kinds = f["particles/school/species"][()]
        del f["particles/school/species"]
        f["particles/school/species"] = np.array(values, "i4")
        f["particles/school/kind"] = kinds
    return mutate
copy("lie-species.h5", species([0, 1, 0, 0, 0, 0]))
EOF
expect 2 "particles/school/position/value: has 3 chunks written where its 3 x 6 x 3 elements in chunks of 1 x 2 x 3 take 9" \
    -- "$cli" simulate --state-in lie-chunks.h5 --steps 1 --state-out lie-out.csv
expect 2 "parameters/config: holds a NUL byte at byte [0-9]+ with text after it" -- \
    "$cli" simulate --state-in lie-nul.h5 --steps 1 --state-out lie-out.csv
expect 2 "particles/school/species: fish 1: species 1 is not allowed; the configuration has no species" \
    -- "$cli" simulate --state-in lie-species.h5 --steps 1 --state-out lie-out.csv
check "a refused trajectory writes nothing" absent lie-out.csv

case_name="a school's species by one rule, from a state file or a trajectory"
printf '{"fishCount": 6, "bounds": [10, 10, 10], "rocks": [], "species": [{"name": "a", "count": 4}, {"name": "b", "count": 2, "maxVelocity": 3}]}' \
    >lie-two.json
expect 0 "" -- "$cli" simulate --state-in traj-ok.csv --config lie-two.json --steps 0 \
    --state-out lie-from-csv.csv
expect 0 "" -- "$cli" simulate --state-in traj.h5 --config lie-two.json --steps 0 \
    --state-out lie-from-h5.csv
# The state file's rows hold species 1 (the config deals it to fish 4 and 5); the trajectory's
# last frame is the same school.
check "a trajectory without species gives the species a state file gets" \
    sh -c 'grep -q ",1$" lie-from-csv.csv && cmp -s lie-from-csv.csv lie-from-h5.csv'

case_name="open water: finite or refused"
printf '{"fishCount": 500, "boundary": "open", "rocks": []}' >lie-open.json
{
    echo "x,y,z,vx,vy,vz"
    for _ in $(seq 500); do echo "1e36,0,1e36,1,0,0"; done
} >lie-far.csv
# Hundreds of fish at 1e36 m: their positions' sum leaves the float range, the step NaN.
expect 2 "lie-far.csv:2: the fish at \(1e\+36, 0, 1e\+36\) lies beyond open water's reach \(each coordinate within \+-1e\+15 m" \
    -- "$cli" simulate --config lie-open.json --state-in lie-far.csv --steps 2 \
    --state-out lie-far-out.csv
check "a refused start writes nothing" absent lie-far-out.csv
