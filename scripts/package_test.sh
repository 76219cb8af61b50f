#!/usr/bin/env bash
# The packages as a user installs them, made from a build tree that is already built (nothing of
# the core is compiled again): `pip install .` into a virtual environment of Debian's python3
# (setup.py takes the module from BUILD_DIR), the module imported and stepped outside the source
# tree; then the Debian package (`cpack`), extracted with dpkg-deb, its CLI run and its module
# imported from there, and lintian on it, which must find no error.
# Usage: scripts/package_test.sh BUILD_DIR
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$(cd "${1:?usage: scripts/package_test.sh BUILD_DIR}" && pwd)"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT

# Steps a school on the CPU, and on the GPU where this machine has one (or Mesa): the GPU backend
# reads its shaders from where the package put them.
session='
import fishschool, sys
print("fishschool", fishschool.__version__, "from", fishschool.__file__)
assert fishschool.__file__.startswith(sys.argv[1]), "not the installed module"
sim = fishschool.Simulation(fishCount=300, seed=3)
sim.step(20)
assert sim.fish_count == 300 and sim.step_count == 20, (sim.fish_count, sim.step_count)
print("cpu:", round(sim.measures()["polarization"], 4))
try:
    gpu = fishschool.Simulation(fishCount=300, seed=3, backend="gpu")
except RuntimeError as error:
    if "shader" in str(error):
        raise
    print("gpu: cannot run here:", error)
else:
    gpu.step(5)
    print("gpu:", gpu.step_count, "steps")
'

echo "-- pip install . into a virtual environment (/usr/bin/python3 -m venv --system-site-packages)"
/usr/bin/python3 -m venv --system-site-packages "$scratch/venv"
FISHSCHOOL_BUILD_DIR="$build" "$scratch/venv/bin/python" -m pip install --no-build-isolation \
    --no-index --no-cache-dir -q "$root" > "$scratch/pip.log" 2>&1 || { cat "$scratch/pip.log" >&2; exit 1; }
(cd "$scratch" && "$scratch/venv/bin/python" -c "$session" "$scratch/venv/")

echo "-- cpack: the Debian package"
if grep -q '^FISHSCHOOL_NATIVE:BOOL=ON' "$build/CMakeCache.txt"; then
    echo "note: $build is built for this machine's processor (FISHSCHOOL_NATIVE=ON): its package" \
        "runs on machines like this one only"
fi
(cd "$build" && cpack -G DEB -B "$scratch/deb" > "$scratch/cpack.log" 2>&1) || { cat "$scratch/cpack.log" >&2; exit 1; }
deb="$(find "$scratch/deb" -maxdepth 1 -name '*.deb')"
[ -f "$deb" ] || { echo "error: cpack made no .deb" >&2; cat "$scratch/cpack.log" >&2; exit 1; }
dpkg-deb -f "$deb" Package Version Maintainer Depends
dpkg-deb -x "$deb" "$scratch/root"
usr="$scratch/root/usr"
for file in bin/fishschool bin/fishschool-cli share/applications/fishschool.desktop \
    share/icons/hicolor/scalable/apps/fishschool.svg share/fishschool/shaders/step_grid.comp \
    share/fishschool/assets/fish.obj include/fishschool/fishschool.h \
    lib/cmake/FishSchool/FishSchoolConfig.cmake share/doc/fishschool/copyright; do
    [ -e "$usr/$file" ] || { echo "error: the package has no /usr/$file" >&2; exit 1; }
done
LD_LIBRARY_PATH="$usr/lib" "$usr/bin/fishschool-cli" simulate --fish 300 --steps 20 \
    --state-out "$scratch/school.csv"
[ "$(wc -l < "$scratch/school.csv")" -gt 300 ] || { echo "error: the CLI wrote no school" >&2; exit 1; }
LD_LIBRARY_PATH="$usr/lib" "$usr/bin/fishschool" --version
(cd "$scratch" && PYTHONPATH="$usr/lib/python3/dist-packages" /usr/bin/python3 -c "$session" "$usr/")

echo "-- lintian $(basename "$deb")"
lintian --fail-on error "$deb"
echo "packages: pip install . and $(basename "$deb") work"
