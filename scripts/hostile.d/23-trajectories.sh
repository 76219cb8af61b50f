# shellcheck shell=bash disable=SC2034,SC2154  # case_name, cli: hostile.sh's
# --- 23. hostile trajectories (issue 27): sourced by scripts/hostile.sh, in its scratch folder ---
# `simulate --state-in X.h5` reads a stranger's H5MD file: each hostile one exits 2 with a message
# naming the object, within 20 s and 2 GB of address space, and writes nothing.
case_name="hostile trajectories"
printf '{"fishCount": 6, "bounds": [10, 10, 10], "rocks": []}' >traj.json
expect 0 "" -- "$cli" simulate --config traj.json --steps 4 --trajectory traj.h5 \
    --trajectory-every 2 --state-out traj-ok.csv
expect 0 "" -- "$cli" simulate --state-in traj.h5 --frame 0 --steps 4 --state-out traj-again.csv
check "frame 0 and 4 steps are the run that wrote the file" cmp -s traj-ok.csv traj-again.csv

# Each file a copy of traj.h5 with one thing made hostile (Debian's h5py), or none of HDF5's.
/usr/bin/python3 - <<'EOF'
import shutil
import h5py
import numpy as np

value = "particles/school/position/value"


def hostile(name, mutate):
    shutil.copy("traj.h5", name)
    with h5py.File(name, "r+") as f:
        mutate(f)


def replace(path, **dataset):
    def mutate(f):
        del f[path]
        f.create_dataset(path, **dataset)
    return mutate


def nan(f):
    f[value][2, 2, 0] = np.nan
hostile("traj-nan.h5", nan)
hostile("traj-shape.h5", replace(value, data=np.zeros((3, 6, 2), "f4")))
hostile("traj-int.h5", replace(value, data=np.zeros((3, 6, 3), "i4")))
hostile("traj-compound.h5", replace(value, data=np.zeros((3, 6, 3), "f4,f4")))
hostile("traj-steps.h5", replace("particles/school/position/step", data=np.arange(5)))
hostile("traj-missing.h5", lambda f: f.__delitem__("particles/school/velocity"))
# 10^12 fish-coordinates claimed in a file of a few kB, contiguous and chunked.
hostile("traj-claim.h5", replace(value, shape=(10**6, 10**6, 3), dtype="f4"))
hostile("traj-claim-chunked.h5",
        replace(value, shape=(10**6, 10**6, 3), dtype="f4", chunks=(1, 1000, 3)))
# A compressed bomb: 20 frames of 100,000 fish of zeros, deflated to a few kB.
def bomb(f):
    del f[value]
    d = f.create_dataset(value, shape=(20, 100000, 3), dtype="f4", chunks=(1, 100000, 3),
                         compression="gzip", compression_opts=9)
    for k in range(20):
        d[k] = np.zeros((100000, 3), "f4")
hostile("traj-bomb.h5", bomb)
def external_link(f):
    del f["particles/school/velocity"]
    f["particles/school/velocity"] = h5py.ExternalLink("traj.h5", "/particles/school/velocity")
hostile("traj-elink.h5", external_link)
def virtual(f):
    layout = h5py.VirtualLayout(shape=(3, 6, 3), dtype="f4")
    layout[:] = h5py.VirtualSource("traj.h5", value, shape=(3, 6, 3))
    del f[value]
    f.create_virtual_dataset(value, layout)
hostile("traj-virtual.h5", virtual)
np.zeros(54, "f4").tofile("traj-raw.bin")
hostile("traj-external.h5",
        replace(value, shape=(3, 6, 3), dtype="f4", external=[("traj-raw.bin", 0, 216)]))
def loop(f):
    f["a"] = h5py.SoftLink("/b")
    f["b"] = h5py.SoftLink("/a")
    f.move("particles", "real")
    f["particles"] = h5py.SoftLink("/a")
hostile("traj-loop.h5", loop)
hostile("traj-string.h5", replace("parameters/config", shape=(), dtype="S104857600"))
hostile("traj-long.h5", replace("parameters/config", data=" " * (2 << 20)))
hostile("traj-config.h5", replace("parameters/config", data='{"dt": -1}'))
hostile("traj-kinds.h5", replace("particles/school/species", data=np.array([1, 0, 0, 0, 0, 0], "i4")))
with h5py.File("traj-other.h5", "w") as f:
    f["x"] = 1
with open("traj.h5", "rb") as f:
    data = f.read()
with open("traj-cut.h5", "wb") as f:
    f.write(data[: len(data) // 2])
with open("traj-text.h5", "w") as f:
    f.write("x,y,z,vx,vy,vz\n")
open("traj-empty.h5", "w").close()
EOF
mkfifo traj-fifo.h5
mkdir -p traj-folder.h5
printf '{"bounds": [0.5, 0.5, 0.5], "rocks": []}' >traj-tiny.json

# hostile_trajectory FILE PATTERN: refused (exit 2) within 20 s and 2 GB, naming PATTERN.
hostile_trajectory() {
    expect 2 "$2" timeout=20 -- bash -c 'ulimit -v 2000000 && exec "$0" simulate \
        --state-in "$1" --steps 1 --state-out traj-out.csv' "$cli" "$1"
}
hostile_trajectory traj-nan.h5 "particles/school/position/value: frame 2, fish 2: x = nan"
hostile_trajectory traj-shape.h5 "particles/school/position/value: has 2 coordinates"
hostile_trajectory traj-int.h5 "particles/school/position/value: its elements must be IEEE"
hostile_trajectory traj-compound.h5 "particles/school/position/value: its elements must be IEEE"
hostile_trajectory traj-steps.h5 "particles/school/position/step: holds 5 values; must hold one a frame"
hostile_trajectory traj-missing.h5 "particles/school/velocity: is missing"
hostile_trajectory traj-claim.h5 "particles/school/position/value: claims more data than the file holds"
hostile_trajectory traj-claim-chunked.h5 "particles/school/position/value: claims more data"
hostile_trajectory traj-bomb.h5 "particles/school/position/value: is stored through the filter deflate"
hostile_trajectory traj-elink.h5 "particles/school/velocity: is an external link"
hostile_trajectory traj-virtual.h5 "particles/school/position/value: is a virtual dataset"
hostile_trajectory traj-external.h5 "particles/school/position/value: keeps its data in external files"
hostile_trajectory traj-loop.h5 "particles: is a soft link"
hostile_trajectory traj-string.h5 "parameters/config: holds strings of 104857600 bytes; at most 1048576"
hostile_trajectory traj-long.h5 "parameters/config: a string of 2097152 bytes; at most 1048576"
hostile_trajectory traj-config.h5 "parameters/config: dt: -1 is not allowed"
hostile_trajectory traj-kinds.h5 "particles/school/species: the file has leaders 1, predators 0"
hostile_trajectory traj-other.h5 "h5md: is missing"
hostile_trajectory traj-cut.h5 "traj-cut.h5: cannot be read as an HDF5 file"
hostile_trajectory traj-text.h5 "traj-text.h5: is not an HDF5 file"
hostile_trajectory traj-empty.h5 "traj-empty.h5: is empty"
hostile_trajectory traj-fifo.h5 "traj-fifo.h5: is not a regular file"
hostile_trajectory traj-folder.h5 "traj-folder.h5: is a folder"
expect 2 "--frame: 3 is not a frame of traj.h5; it holds frames 0 to 2" -- \
    "$cli" simulate --state-in traj.h5 --frame 3 --steps 1 --state-out traj-out.csv
expect 2 "--frame needs --state-in FILE.h5" -- \
    "$cli" simulate --state-in traj-ok.csv --frame 0 --steps 1 --state-out traj-out.csv
expect 2 "frame 2, fish 0: the fish at .* lies outside the tank .*--config" -- \
    "$cli" simulate --state-in traj.h5 --config traj-tiny.json --steps 1 --state-out traj-out.csv
expect 2 "--fish cannot be used with --state-in" -- \
    "$cli" simulate --state-in traj.h5 --fish 3 --steps 1 --state-out traj-out.csv
check "a refused trajectory writes nothing" absent traj-out.csv
check "no temporary file left" no_temporaries
