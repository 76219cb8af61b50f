#!/usr/bin/env bash
# The replay's seek (docs/performance-log.md, "Replay"): writes a trajectory of FISH fish and FRAMES
# frames with the project's TrajectoryWriter (fishschool_replay_seek --write: the app's scene for
# FISH fish at fixed density, as its --fish makes it, the initial school drifting along its
# velocities), then times fishschool_replay_seek on it: a random frame asked of the replay, read,
# uploaded and drawn at 1280 x 720, first with the file in the page cache, then dropped from it
# before each seek. The file (2.4 GB at the defaults) goes to DIR and is deleted at the end.
#
#   bench/replay_seek.sh [BUILD] [DIR]        FISH=100000 FRAMES=1000 SEEKS=30
set -euo pipefail
build=${1:-build}
dir=${2:-/tmp}
fish=${FISH:-100000}
frames=${FRAMES:-1000}
seeks=${SEEKS:-30}
work=$(mktemp -d "$dir/replay_seek.XXXXXX")
trap 'rm -rf "$work"' EXIT

# The app's scene for this many fish at fixed density, as its --fish makes it.
xvfb-run -a -s '-screen 0 640x480x24' "$build/bin/fishschool" --fish "$fish" --frames 1 \
    --width 320 --height 200 --hide-ui --msaa 0 --paused --config-out "$work/scene.json"
"$build/bin/fishschool_replay_seek" --write "$work/replay.h5" "$work/scene.json" "$frames"
ls -l "$work/replay.h5"
"$build/bin/fishschool_replay_seek" "$work/replay.h5" "$seeks"
"$build/bin/fishschool_replay_seek" "$work/replay.h5" "$seeks" --cold
