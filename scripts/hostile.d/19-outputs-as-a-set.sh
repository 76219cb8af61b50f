# --- 19. outputs committed as a set, temporaries no signal leaves (issue 33, root causes 1, 4) ---
# Sourced by scripts/hostile.sh, in its scratch folder, with its helpers.
case_name="outputs all or nothing"
# A target that cannot be replaced is found before the run, not after it as exit 1 with the
# other outputs already replaced.
sentinel set-a.csv
sentinel set-locked.csv
if chattr +i set-locked.csv 2>/dev/null; then
    expect 2 "set-locked.csv' is immutable" -- \
        "$cli" simulate --steps 2 --fish 5 --state-out set-a.csv --metrics set-locked.csv
    check "the other output is kept" untouched set-a.csv
    expect 2 "immutable" -- "$cli" ensemble merge ens-together --csv set-a.csv --timing set-locked.csv
    check "merge replaced neither" untouched set-a.csv
    if [ $have_app -eq 1 ]; then
        expect 2 "immutable" timeout=60 -- env SDL_VIDEODRIVER=offscreen "$app" --frames 2 \
            --fish 10 --state-out set-a.csv --config-out set-locked.csv
        check "the app replaced neither" untouched set-a.csv
    fi
    chattr -i set-locked.csv
    check "the locked file is as it was" untouched set-locked.csv
fi
# Another user's file in a sticky folder (as /tmp): a user who owns neither cannot replace it.
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
    mkdir -p sticky && chmod 1777 sticky
    sentinel sticky/theirs.csv
    chmod 644 sticky/theirs.csv
    chmod o+x "$work"
    expect 2 "another user in a folder with the sticky bit" -- setpriv --reuid=65534 \
        --regid=65534 --clear-groups "$cli" simulate --steps 1 --fish 3 \
        --state-out sticky/mine.csv --metrics sticky/theirs.csv
    check "the sticky folder gained nothing" absent sticky/mine.csv
    check "their file is kept" untouched sticky/theirs.csv
fi

case_name="every ending signal leaves no temporary file"
sentinel sig-keep.csv
# (A background job of a script ignores INT and QUIT from the start: those are class 5's. TERM,
# like Ctrl+C, now asks simulate to stop and keep what ran: the case below.)
for signal in XCPU IO PWR STKFLT SYS TRAP HUP RTMIN RTMIN+3 RTMAX; do
    number=$(kill -l "$signal" 2>/dev/null) || continue
    expect "$((128 + number))" "" timeout=30 -- bash -c "\"$cli\" simulate --steps 100000000 \
        --fish 5 --metrics sig-keep.csv --state-out sig-state.csv & pid=\$!; sleep 0.4; \
        kill -s $signal \$pid; wait \$pid"
done
check "no temporary file left after any signal" no_temporaries
check "the existing output is as it was" untouched sig-keep.csv
check "no new output" absent sig-state.csv

case_name="Ctrl+C and SIGTERM stop simulate keeping what ran; kill -9 replaces nothing"
# simulate stops between two steps on SIGINT or SIGTERM and writes every output as of the last
# step done, its trajectory ended cleanly (docs/cli.md), exiting 130 or 143. The shell gives the
# background job SIGINT ignored: env --default-signal gives it back, as a terminal's Ctrl+C has it.
for signal in INT TERM; do
    sentinel sig-kept.csv
    expect "$((128 + $(kill -l $signal)))" "stopped by SIG$signal after step [0-9]+ of 100000000" \
        timeout=30 -- bash -c "env --default-signal=INT \"$cli\" simulate --steps 100000000 \
        --fish 5 --metrics sig-kept.csv --state-out sig-kept-state.csv --trajectory sig-kept.h5 & \
        pid=\$!; sleep 0.5; kill -s $signal \$pid; wait \$pid"
    check "SIG$signal: the measures so far replace the old file" grep -q '^step,time_s,' sig-kept.csv
    check "SIG$signal: the state of the last step" test -s sig-kept-state.csv
    check "SIG$signal: the trajectory is an HDF5 file" \
        bash -c "head -c 8 sig-kept.h5 | LC_ALL=C grep -q HDF"
    rm -f sig-kept-state.csv sig-kept.h5
done
sentinel sig-nine.h5
expect 0 "" timeout=30 -- bash -c "\"$cli\" simulate --steps 100000000 --fish 5 \
    --trajectory sig-nine.h5 & pid=\$!; sleep 0.5; kill -9 \$pid; wait \$pid; [ \$? -eq 137 ]"
check "kill -9: the trajectory's old file is as it was" untouched sig-nine.h5
check "no temporary file left after kill -9" no_temporaries

case_name="smaller: invisible characters, state values with spaces, the fault a state row names"
bidi=$'evil\u202etxt\ufeff.json'
expect 2 "u202etxt.ufeff.json" -- "$cli" simulate --steps 1 --config "$bidi" --state-out bidi.csv
check "no reordering or invisible character reaches the terminal" \
    bash -c "! grep -q $'\u202e\|\ufeff' err.txt"
printf 'x,y,z,vx,vy,vz\n1,2,3,0,0,0 \n' >space.csv
expect 2 "space.csv:2: 'vz' value '0 ' is not a number" -- \
    "$cli" simulate --steps 1 --state-in space.csv --state-out space-out.csv
printf '{"fishCount": 2, "leaders": 1}\n' >leader2.json
printf 'x,y,z,vx,vy,vz,kind\n1,2,3,0,0,0,leader\n1,2,3,0,0,0\n' >nokind.csv
expect 2 "nokind.csv:3: only 6 values; a row has 7" -- \
    "$cli" simulate --steps 1 --config leader2.json --state-in nokind.csv --state-out nk.csv
printf 'x,y,z,vx,vy,vz\n0,0,0,0,0,0\n' >inrock.csv
printf '{"rocks": [{"center": [0, 0, 0], "radius": 3}]}\n' >onerock.json
expect 2 "inside rock 0 \(centre \(0, 0, 0\), radius 3\)" -- \
    "$cli" simulate --steps 1 --config onerock.json --state-in inrock.csv --state-out ir.csv
