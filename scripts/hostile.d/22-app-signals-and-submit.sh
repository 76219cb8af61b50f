# shellcheck shell=bash disable=SC2154,SC2034
# --- 22. the app ended by signals, its video's temporary file and ffmpeg, video paths ffmpeg
# reads as URLs, and scripts/slurm/submit.sh queueing what the CLI refuses (issue 33) ----------
# Sourced by scripts/hostile.sh in its scratch folder, with its helpers and variables.

# app-signal.sh SIGNAL FOLDER ARGS...: runs the app with ARGS, waits until it records (its
# ffmpeg takes frames) or, with --sweep, until a case is done, sends SIGNAL and exits with the
# app's status. The encoder's process id goes to FOLDER.ffmpeg.
cat >app-signal.sh <<'EOF'
signal="$1" folder="$2"
shift 2
encoder_of() { # the ffmpeg that process $1 started, as a child or through a shell
    local child
    for child in $(pgrep -P "$1"); do
        if [ "$(cat "/proc/$child/comm" 2>/dev/null)" = ffmpeg ] &&
            grep -qa rawvideo "/proc/$child/cmdline" 2>/dev/null; then
            echo "$child"
            return 0
        fi
        encoder_of "$child" && return 0
    done
    return 1
}
# A shell starts a background job with SIGINT ignored: the app gets it at its default, as a
# program run from a terminal does.
env --default-signal=INT "$@" 2>"$folder.err" &
app=$!
ready=0
for _ in $(seq 600); do
    if grep -q -- "--sweep" <<<"$*"; then
        grep -q "sweep: 1/" "$folder.err" && ready=1
    else
        encoder_of "$app" >"$folder.ffmpeg" && ready=1
    fi
    [ $ready -eq 1 ] && break
    kill -0 "$app" 2>/dev/null || break
    sleep 0.1
done
[ $ready -eq 1 ] && sleep 0.3 # a few frames more
kill "-$signal" "$app"
wait "$app"
status=$?
cat "$folder.err" >&2
[ $ready -eq 1 ] || { echo "error: the app never got to recording or measuring" >&2; exit 99; }
exit $status
EOF
# ended PID: whether process PID has ended (gone, or a zombie nobody reaped yet), within 2 s;
# one still running is killed, so that no case leaves it behind.
ended() {
    local pid="$1"
    [ -n "$pid" ] || return 0
    for _ in $(seq 20); do
        [[ "$(cut -d' ' -f3 "/proc/$pid/stat" 2>/dev/null)" =~ ^(Z|X|)$ ]] && return 0
        sleep 0.1
    done
    kill -9 "$pid" 2>/dev/null
    return 1
}
listing() { find "$1" -mindepth 1 -maxdepth 1 -printf '%f\n' | sort | tr '\n' ' '; }

if [ "$have_app" -eq 1 ] && command -v ffmpeg >/dev/null; then
    small_app=("$app" --msaa 0 --width 64 --height 64)
    case_name="the app ended by a signal writes nothing"
    # Killed while recording, with every output it takes: none replaced, nothing left beside
    # them (no video half written, no temporary file), ffmpeg gone with the app.
    for signal in INT TERM HUP USR1; do
        folder="sig-$signal"
        mkdir -p "$folder"
        for file in v.mp4 state.csv config.json shot.png; do sentinel "$folder/$file"; done
        expect $((128 + $(kill -l "$signal"))) "" timeout=90 -- bash app-signal.sh "$signal" \
            "$folder" "${small_app[@]}" --fish 50 --frames 1000000 --record "$folder/v.mp4" \
            --state-out "$folder/state.csv" --config-out "$folder/config.json" \
            --screenshot "$folder/shot.png"
        for file in v.mp4 state.csv config.json shot.png; do
            check "SIG$signal: $file kept" untouched "$folder/$file"
        done
        check "SIG$signal: nothing else in the folder ($(listing "$folder"))" \
            test "$(listing "$folder")" = "config.json shot.png state.csv v.mp4 "
        check "SIG$signal: ffmpeg ended with the app" ended "$(cat "$folder.ffmpeg" 2>/dev/null)"
    done
    # A sweep stopped by SIGTERM: not a closed window, so no CSV of the cases measured so far.
    sentinel sig-sweep.csv
    expect 143 "" timeout=120 -- bash app-signal.sh TERM sig-sweep "${small_app[@]}" \
        --sweep 50,60,70 --sweep-backends cpu --sweep-seconds 1 --sweep-warmup-steps 0 \
        --csv sig-sweep.csv
    check "SIGTERM during a sweep: its CSV kept" untouched sig-sweep.csv
    check "no temporary file left" no_temporaries

    case_name="video paths ffmpeg would read as URLs"
    expect 0 "wrote the video 'take:1.mp4' \\(3 frames\\)" timeout=60 -- \
        "${small_app[@]}" --frames 3 --record take:1.mp4
    check "take:1.mp4 written" test -s take:1.mp4
    mkdir -p pipe:
    expect 0 "" timeout=60 -- "${small_app[@]}" --frames 3 --record pipe:/v.mp4
    check "pipe:/v.mp4 written" test -s pipe:/v.mp4
    check "and nothing sent to stdout" test ! -s out.txt
    expect 0 "wrote the video '\\\\x1b\\[31mred.mkv'" timeout=60 -- \
        "${small_app[@]}" --frames 3 --record $'\e[31mred.mkv'
    check "a name with an escape sequence written" test -s $'\e[31mred.mkv'
    # Two apps recording to one file at once: each its own temporary file, so both succeed and
    # the file is one whole video (the last to finish).
    expect 0 "" timeout=120 -- bash -c "\"\$0\" \"\$@\" --frames 20 --record both.mp4 & a=\$!;
        \"\$0\" \"\$@\" --frames 20 --record both.mp4 & b=\$!; wait \$a || exit 1; wait \$b" \
        "${small_app[@]}"
    if command -v ffprobe >/dev/null; then
        check "both.mp4 is one whole video of 20 frames" test "$(ffprobe -v error -count_frames \
            -select_streams v:0 -show_entries stream=nb_read_frames -of csv=p=0 both.mp4)" = 20
    fi
    check "no temporary file left" no_temporaries
fi

case_name="submit.sh queues nothing a task would refuse"
submit="$root/scripts/slurm/submit.sh"
mkdir -p fake-slurm
# An sbatch that queues nothing, only says it was called.
printf '#!/bin/sh\necho "$*" >>%q/sbatch.calls\necho 4242\n' "$work" >fake-slurm/sbatch
chmod +x fake-slurm/sbatch
submitting=(env "PATH=$work/fake-slurm:$PATH" "FISHSCHOOL_CLI=$cli" "$submit")
rm -f sbatch.calls
expect 2 "N: '7766279631452241919' is not allowed.*from 1 to 10000000" -- \
    "${submitting[@]}" ens.json ens-slurm 7766279631452241919
expect 2 "N: '10000001' is not allowed" -- "${submitting[@]}" ens.json ens-slurm 10000001
expect 2 "N: '0' is not allowed" -- "${submitting[@]}" ens.json ens-slurm 0
expect 2 "--cpus: '1025' is not allowed.*from 1 to 1024" -- \
    "${submitting[@]}" --cpus 1025 ens.json ens-slurm 4
expect 2 "--cpus: '99999999999999999999' is not allowed" -- \
    "${submitting[@]}" --cpus 99999999999999999999 ens.json ens-slurm 4
expect 2 "--tasks: task '4' is not allowed; the array has tasks 0 to 3" -- \
    "${submitting[@]}" --tasks 1,4 ens.json ens-slurm 4
expect 2 "--tasks: task '9223372036854775808' is not allowed" -- \
    "${submitting[@]}" --tasks 0-9223372036854775808 ens.json ens-slurm 4
for list in '1,,2' '1,' '' '3-1' 'a' '1-2:0' $'\e[31m'; do
    expect 2 "--tasks: .*not allowed" -- "${submitting[@]}" --tasks "$list" ens.json ens-slurm 4
done
# What only the CLI knows: the file and the folder (its dry run, before anything is queued).
expect 2 "missing.json.*nothing was submitted" -- "${submitting[@]}" missing.json ens-slurm 4
sentinel not-a-folder
expect 2 "--out: .*not-a-folder.*nothing was submitted" -- \
    "${submitting[@]}" ens.json not-a-folder 4
check "a refused submission calls no sbatch" absent sbatch.calls
check "and makes no log folder" absent ens-slurm.slurm
expect 0 "" -- "${submitting[@]}" --tasks 1,3 --cpus 2 ens.json ens-slurm 4
check "an accepted submission queues the array and the merge" \
    test "$(grep -c . sbatch.calls 2>/dev/null)" = 2
check "the array is the tasks asked for" grep -q -- "--array=1,3 --cpus-per-task=2" sbatch.calls
check "and the dry run made no ensemble folder" absent ens-slurm
