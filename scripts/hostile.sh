#!/usr/bin/env bash
# scripts/hostile.sh [BIN_DIR]: the adversarial probe of issue 23. Runs fishschool-cli and the
# app (BIN_DIR, default build/bin) on hostile files and places, one case a class of attack at a
# time (docs/robustness.md lists the classes), and checks for each:
# - the exit status: 2 for bad input, 1 for a failure of the machine (a full disk), 0 where the
#   input is fine;
# - nothing hangs (every case runs under a timeout);
# - an error is one "error: ..." line of at most 400 characters, with no control character,
#   escape sequence or byte that is not UTF-8 in it, naming what the case expects;
# - no existing file is replaced by a run that failed, and no temporary file is left behind.
# Prints a line per failed case and the counts; exits 1 when any case failed.
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="$(cd "${1:-$root/build/bin}" && pwd)"
cli="$bin/fishschool-cli"
app="$bin/fishschool"
[ -x "$cli" ] || { echo "error: no $cli; build it first" >&2; exit 2; }
have_app=0
[ -x "$app" ] && have_app=1

work="$(mktemp -d "${TMPDIR:-/tmp}/fishschool-hostile.XXXXXX")"
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 2
# The app runs offscreen (EGL) with --frames where there is no display.
unset DISPLAY WAYLAND_DISPLAY SDL_VIDEODRIVER FISHSCHOOL_GPU_MAX_BUFFER_BYTES

passed=0
failed=0
cases=0
case_name=""
started=$SECONDS

bad() {
    echo "FAIL $case_name: $*" >&2
    failed=$((failed + 1))
    ok_case=0
}

# expect STATUS PATTERN [timeout=S] -- COMMAND...: runs COMMAND with stdout to out.txt and stderr
# to err.txt (through pipes); STATUS is 0, 1 or 2 (or "1|2"), or 128 + a signal for a run the
# case kills; PATTERN an extended regex that stderr must hold ("" for none).
expect() {
    local want="$1" pattern="$2" limit=20
    shift 2
    cases=$((cases + 1))
    if [[ "$1" == timeout=* ]]; then
        limit="${1#timeout=}"
        shift
    fi
    [ "$1" = "--" ] && shift
    # Through pipes: a case under a file size limit must still be able to say why it failed.
    { timeout -k 2 "$limit" "$@" | cat >out.txt; } 2>&1 | cat >err.txt
    local status=${PIPESTATUS[0]}
    [ -n "${HOSTILE_VERBOSE:-}" ] && echo "$(date +%s.%N) $case_name: ${*:1:4}" | cut -c1-140 >&2
    ok_case=1
    if [ $status -eq 124 ] || [ $status -eq 137 ]; then
        bad "hung (killed after ${limit} s): $*"
    elif ! [[ "$status" =~ ^($want)$ ]]; then
        bad "exit status $status, expected $want: $(head -c 300 err.txt)"
    fi
    if [[ "$want" =~ ^(1|2|1\|2)$ ]] && [ $ok_case -eq 1 ]; then
        local line
        line="$(grep -m1 '^error: ' err.txt)"
        [ -n "$line" ] || bad "no 'error: ' line on stderr: $(head -c 300 err.txt)"
        [ "${#line}" -le 420 ] || bad "an error line of ${#line} characters"
    fi
    if LC_ALL=C grep -q $'[\x01-\x09\x0b-\x1f\x7f]' err.txt ||
        ! iconv -f UTF-8 -t UTF-8 err.txt >/dev/null 2>&1 ||
        LC_ALL=C grep -q $'\xc2[\x80-\x9f]' err.txt; then
        bad "stderr holds a control character or a byte that is not UTF-8"
    fi
    if [ -n "$pattern" ] && [ $ok_case -eq 1 ] && ! grep -Eq -- "$pattern" err.txt; then
        bad "stderr does not match /$pattern/: $(head -c 300 err.txt)"
    fi
    [ $ok_case -eq 1 ] && passed=$((passed + 1))
    return 0
}

# check CONDITION_DESCRIPTION COMMAND...: one more assertion of the current case.
check() {
    local what="$1"
    shift
    if "$@"; then
        passed=$((passed + 1))
    else
        ok_case=0
        bad "$what"
    fi
}

sentinel() { printf 'keep me %s\n' "$1" >"$1"; }
untouched() { [ "$(cat "$1" 2>/dev/null)" = "keep me $1" ]; }
no_temporaries() { [ -z "$(find . -name '.*.tmp-*' -print -quit)" ]; }
absent() { [ ! -e "$1" ]; }

# --- scenes -----------------------------------------------------------------------------------
printf '{"fishCount": 20}\n' >small.json
printf '{"fishCount": 2000}\n' >big.json
"$cli" simulate --config small.json --steps 0 --state-out school.csv >/dev/null 2>&1
long_name() { printf 'n%.0s' $(seq "$1"); }
# Every generated file at once: one Python start rather than one a file.
python3 - <<'EOF'
import json, socket


def write(name, text):
    with open(name, "w") as f:
        f.write(text)


def deep(key, depth, opening, closing):  # {"KEY": OPENING^DEPTH 1 CLOSING^DEPTH}
    return '{"%s": %s1%s}' % (key, opening * depth, closing * depth)


for key in ["dt", "bounds", "steering", "rocks", "target", "unknownKey"]:
    write("deep-%s.json" % key, deep(key, 20000, "[", "]"))
write("deep-objects.json", deep("rocks", 20000, '{"a":', "}"))
write("deep-top.json", "[" * 50000 + "]" * 50000)
write("deep-15.json", deep("rocks", 15, "[", "]"))  # within the limit
write("huge.json", '{"dt": 0.1' + " " * (1 << 20) + "}")
write("wide.json", '{"bounds": [' + "1," * 100000 + "1]}")
for key in ["axes", "replicates", "seed", "measure", "backend", "base"]:
    write("ens-deep-%s.json" % key, deep(key, 20000, "[", "]"))
write("ens-deep-axis.json", '{"axes": {"noise": %s0%s}}' % ("[" * 20000, "]" * 20000))
socket.socket(socket.AF_UNIX).bind("sock")


def flat(name, b, n):  # seeking along the flow field, n rocks along the longest axis
    long_axis = b.index(max(b))
    r = min(b) * 0.25
    rocks = []
    for i in range(n):
        center = [0.0, 0.0, 0.0]
        center[long_axis] = -b[long_axis] * 0.9 + (i + 0.5) * (1.8 * b[long_axis] / n)
        rocks.append({"center": center, "radius": r})
    target = [0.0, 0.0, 0.0]
    target[long_axis] = b[long_axis] * 0.95
    write(name, json.dumps({"fishCount": 10, "bounds": b, "kTarget": 1,
                            "targetPath": "flow-field", "target": target, "rocks": rocks,
                            "maxVelocity": r * 0.5, "dt": 0.1}))


flat("flat-z.json", [20000, 20000, 2], 200)
flat("flat-x.json", [2, 30000, 30000], 200)
flat("needle.json", [500000, 1, 1], 256)
flat("vast.json", [1000000, 1000000, 4], 256)
EOF

# --- 1. deep nesting --------------------------------------------------------------------------
case_name="deep nesting"
for key in dt bounds steering rocks target unknownKey; do
    expect 2 "deep-$key.json.*nest more than 16 deep" -- \
        "$cli" simulate --config "deep-$key.json" --steps 1 --state-out o.csv
done
expect 2 "nest more than 16" -- "$cli" bench --config deep-objects.json --steps 1 --fish 10
expect 2 "nest more than 16" -- "$cli" phase --config deep-top.json --vary noise --from 0 \
    --to 1 --count 2 --steps 1 --csv p.csv
expect 2 "deep-dt.json.*nest" -- "$cli" simulate --steps 2 --state-out o.csv \
    --change-config deep-dt.json --change-at 1
# deep-15.json nests 16 deep, within the limit: refused for its type, not its depth.
expect 2 "key 'rocks.*must be" -- "$cli" simulate --config deep-15.json --steps 1 --state-out o.csv
printf '{"rocks": [{"center": [0, -15, 0], "radius": 2}]}' >shallow.json
expect 0 "" -- "$cli" simulate --config shallow.json --steps 1 --fish 10 --state-out o.csv
if [ $have_app -eq 1 ]; then
    expect 2 "nest more than 16" -- "$app" --config deep-steering.json --frames 1
fi

# --- 2. special files as inputs ---------------------------------------------------------------
case_name="special files as inputs"
mkfifo fifo
ln -s fifo fifo-link
for input in fifo fifo-link /dev/zero /dev/null sock; do
    expect 2 "not a regular file|cannot open" timeout=5 -- \
        "$cli" simulate --config "$input" --steps 1 --state-out o.csv
done
expect 2 "fifo: is not a regular file" timeout=5 -- \
    "$cli" simulate --state-in fifo --steps 1 --state-out o.csv
expect 2 "fifo: is not a regular file" timeout=5 -- \
    "$cli" simulate --steps 2 --state-out o.csv --change-config fifo --change-at 1
expect 2 "fifo: is not a regular file" timeout=5 -- "$cli" bench --config fifo --steps 1 --fish 10
expect 2 "fifo: is not a regular file" timeout=5 -- "$cli" phase --config fifo --vary noise \
    --from 0 --to 1 --count 2 --steps 1 --csv p.csv
expect 2 "is a folder" timeout=5 -- "$cli" simulate --state-in . --steps 1 --state-out o.csv
expect 2 "status: malformed JSON" timeout=5 -- "$cli" simulate --config /proc/self/status \
    --steps 1 --state-out o.csv
expect 2 "huge.json: 1048[0-9]+ bytes is larger.*at most 1048576" -- \
    "$cli" simulate --config huge.json --steps 1 --state-out o.csv
ln -s loop1 loop2 && ln -s loop2 loop1
expect 2 "loop1: cannot open" timeout=5 -- "$cli" simulate --config loop1 --steps 1 --state-out o.csv
if [ $have_app -eq 1 ]; then
    expect 2 "fifo: is not a regular file" timeout=5 -- "$app" --config fifo --frames 1
    expect 2 "fifo: is not a regular file" timeout=5 -- "$app" --state-in fifo --frames 1
fi

# --- 3. total work of the flow field ----------------------------------------------------------
case_name="flow field over huge, flat tanks"
for scene in flat-z flat-x needle vast; do
    expect 0 "" timeout=15 -- "$cli" simulate --config "$scene.json" --steps 1 --state-out o.csv
done
expect 0 "" timeout=15 -- "$cli" simulate --config flat-z.json --steps 2 --state-out o.csv \
    --change-config vast.json --change-at 1

# --- 4. two outputs on one file ---------------------------------------------------------------
case_name="two outputs on one file"
mkdir -p sub
sentinel same.csv
expect 2 "also the file of --state-out" -- \
    "$cli" simulate --steps 1 --config small.json --state-out same.csv --metrics same.csv
expect 2 "also the file of --state-out" -- \
    "$cli" simulate --steps 1 --config small.json --state-out same.csv --metrics ./same.csv
expect 2 "also the file of --state-out" -- \
    "$cli" simulate --steps 1 --config small.json --state-out sub/../same.csv --metrics same.csv
ln same.csv hard.csv
expect 2 "also the file of --state-out" -- \
    "$cli" simulate --steps 1 --config small.json --state-out same.csv --metrics hard.csv
ln -s same.csv soft.csv
expect 2 "also the file of --state-out" -- \
    "$cli" simulate --steps 1 --config small.json --state-out soft.csv --metrics same.csv
expect 2 "also the file of --state-out" -- \
    "$cli" simulate --steps 1 --config small.json --state-out new.csv --metrics "$work/new.csv"
ln -s . here
expect 2 "also the file of --state-out" -- \
    "$cli" simulate --steps 1 --config small.json --state-out same.csv --metrics here/same.csv
expect 2 "same.csv/.*does not exist" -- \
    "$cli" simulate --steps 1 --config small.json --state-out same.csv/
check "--state-out not replaced" untouched same.csv
check "no output written" absent new.csv
expect 2 "same file as --config" -- "$cli" bench --steps 1 --fish 10 --config small.json \
    --csv ./small.json
expect 2 "same file as --state-in" -- \
    "$cli" simulate --steps 1 --state-in school.csv --metrics ./school.csv --state-out o2.csv
if [ $have_app -eq 1 ]; then
    expect 2 "also the file of --state-out" -- \
        "$app" --frames 1 --state-out same.csv --config-out same.csv
    expect 2 "also the file of --screenshot" -- \
        "$app" --frames 1 --screenshot same.csv --state-out ./same.csv
    expect 2 "also the file of --csv" -- \
        "$app" --sweep 10 --csv same.csv --config-out hard.csv
    expect 2 "also the file of --record" -- \
        "$app" --frames 1 --record v.mp4 --screenshot v.mp4
    check "app outputs not replaced" untouched same.csv
fi

# --- 5. a failed run replaces no file (a full disk, as a file size limit) ----------------------
case_name="a failed run replaces no file"
# "${full[@]}" KIB COMMAND...: SIGXFSZ ignored, a write past KIB KiB fails with EFBIG, as on a
# full disk.
full=(bash -c 'trap "" XFSZ && ulimit -f "$0" && exec "$@"')
sentinel state5.csv
sentinel metrics5.csv
expect 1 "metrics5.csv: writing failed" -- "${full[@]}" 8 "$cli" simulate --steps 400 --fish 10 \
    --state-out state5.csv --metrics metrics5.csv
check "--state-out kept after --metrics failed" untouched state5.csv
check "--metrics kept after it failed" untouched metrics5.csv
expect 1 "state5.csv: writing failed" -- "${full[@]}" 8 "$cli" simulate --steps 1 \
    --config big.json \
    --state-out state5.csv --metrics metrics5.csv
check "--metrics kept after --state-out failed" untouched metrics5.csv
sentinel bench5.csv
expect 1 "bench5.csv: writing failed" -- "${full[@]}" 0 "$cli" bench --steps 1 --warmup 0 \
    --fish 10,11,12 --csv bench5.csv
check "--csv kept after it failed" untouched bench5.csv
sentinel phase5.csv
expect 1 "phase5.csv: writing failed" -- "${full[@]}" 0 "$cli" phase --vary noise --from 0 \
    --to 0.1 --count 2 --steps 1 --csv phase5.csv
check "--csv kept after it failed" untouched phase5.csv
# Killed by the limit itself (SIGXFSZ not ignored), or by a reader that went away (SIGPIPE).
expect 153 "" -- bash -c 'ulimit -f 8 && exec "$@"' limit "$cli" simulate --steps 400 --fish 10 \
    --state-out state5.csv --metrics metrics5.csv
check "--metrics kept after SIGXFSZ" untouched metrics5.csv
# stdout a pipe whose reader is gone: SIGPIPE at the first row, or with SIGPIPE ignored EPIPE.
closed_pipe=(python3 -c 'import os, signal, sys
signal.signal(signal.SIGPIPE, signal.SIG_IGN if sys.argv[1] == "ignore" else signal.SIG_DFL)
r, w = os.pipe()
os.close(r)
os.dup2(w, 1)
os.execv(sys.argv[2], sys.argv[2:])')
sentinel bench5.csv
expect 141 "" -- "${closed_pipe[@]}" default "$cli" bench --steps 1 --warmup 0 --fish 10,20 \
    --csv bench5.csv
check "--csv kept after SIGPIPE" untouched bench5.csv
expect 1 "stdout: writing failed: Broken pipe" -- "${closed_pipe[@]}" ignore "$cli" bench \
    --steps 1 --warmup 0 --fish 10,20 --csv bench5.csv
check "--csv kept after EPIPE" untouched bench5.csv
check "no temporary file left" no_temporaries
if [ $have_app -eq 1 ]; then
    sentinel config5.json
    sentinel state5.csv
    expect 1 "state5.csv: writing failed" timeout=60 -- "${full[@]}" 8 "$app" --frames 2 --msaa 0 \
        --width 64 --height 64 --config big.json --config-out config5.json --state-out state5.csv
    check "--config-out kept after --state-out failed" untouched config5.json
    check "--state-out kept" untouched state5.csv
fi
check "no temporary file left" no_temporaries

# --- 6. outputs that are not regular files ----------------------------------------------------
case_name="outputs that are not regular files"
for target in /dev/null /dev/full /dev/zero fifo sock fifo-link; do
    expect 2 "not a regular file" timeout=5 -- \
        "$cli" simulate --steps 1 --config small.json --state-out "$target"
done
expect 2 "--metrics: '/dev/null'.*not a regular file" -- \
    "$cli" simulate --steps 1 --config small.json --metrics /dev/null
expect 2 "--csv: '/dev/null'.*not a regular file" -- "$cli" bench --steps 1 --fish 10 --csv /dev/null
expect 2 "--csv: 'fifo'.*not a regular file" timeout=5 -- "$cli" phase --vary noise --from 0 \
    --to 1 --count 2 --steps 1 --csv fifo
check "the FIFO is still a FIFO" test -p fifo
printf 'old\n' >linked-target.csv
ln -s linked-target.csv link-out.csv
expect 0 "" -- "$cli" simulate --steps 1 --fish 3 --state-out link-out.csv
check "an output through a link keeps the link" test -L link-out.csv
check "and replaces its target" test "$(head -1 linked-target.csv)" = "x,y,z,vx,vy,vz"
# Here stdout is a pipe: /dev/stdout leads to it.
expect 2 "not a regular file" -- "$cli" simulate --steps 1 --state-out /dev/stdout
check "/dev/stdout is still a link" test -L /dev/stdout
expect 2 "is a folder" -- "$cli" simulate --steps 1 --state-out sub
expect 2 "does not exist" -- "$cli" simulate --steps 1 --state-out small.json/x.csv
if [ $have_app -eq 1 ]; then
    expect 2 "--state-out: '/dev/null'.*not a regular file" -- "$app" --frames 1 --state-out /dev/null
    expect 2 "--screenshot: 'fifo'.*not a regular file" -- "$app" --frames 1 --screenshot fifo
fi

# --- 7. numbers that cannot be honoured -------------------------------------------------------
case_name="numbers that cannot be honoured"
expect 2 "--steps.*from 1 to 10000000" -- "$cli" bench --steps 9223372036854775807 --fish 10
expect 2 "--steps.*from 1 to 10000000" -- "$cli" bench --steps 10000001 --fish 10
expect 2 "--steps" -- "$cli" bench --steps 9223372036854775808 --fish 10
expect 2 "--warmup" -- "$cli" bench --steps 1 --warmup -1 --fish 10
expect 2 "--count" -- "$cli" phase --vary noise --from 0 --to 1 --count 100001 --steps 1 --csv p.csv
expect 2 "--change-at" -- "$cli" simulate --steps 5 --state-out o.csv --change-config small.json \
    --change-at 6
expect 2 "--fish" -- "$cli" simulate --steps 1 --fish 16000001 --state-out o.csv
expect 2 "--seed" -- "$cli" simulate --steps 1 --seed 18446744073709551616 --state-out o.csv
expect 2 "--config" -- "$cli" simulate --steps 1 --config small.json --config big.json \
    --state-out o.csv
expect 0 "" -- "$cli" simulate --steps 3 --fish 5 --metrics m7.csv \
    --metrics-every 9223372036854775807
check "one --metrics row at step 0" test "$(wc -l <m7.csv)" -eq 2
expect 0 "" -- "$cli" phase --vary noise --from 0 --to 0.1 --count 1 --steps 1 --csv p7.csv \
    --config small.json
if [ $have_app -eq 1 ]; then
    expect 2 "--switch-every" -- "$app" --switch-every 1000000001 --frames 1
    expect 2 "--record-fps" -- "$app" --record v.mp4 --record-fps 241 --frames 1
fi

# --- 8. NUL bytes -----------------------------------------------------------------------------
case_name="NUL bytes"
printf '{"fishCount": 10}\0{"dt": -1}' >nul-after.json
printf '\0{"fishCount": 10}' >nul-first.json
printf '{"fishCount": 10, "d\0t": 1}' >nul-key.json
printf '{"fishCount": 1\0' >nul-number.json
for config in nul-after nul-first nul-key nul-number; do
    expect 2 "$config.json: byte [0-9]+ is a NUL byte" -- \
        "$cli" simulate --config "$config.json" --steps 1 --state-out o.csv
done
printf '{"fishCount": 10, "steering": "couzin\\u0000x"}' >nul-escaped.json
expect 2 "steering.*couzin" -- "$cli" simulate --config nul-escaped.json --steps 1 \
    --state-out o.csv
{ head -2 school.csv; printf '1,2\0,3,0,0,0\n'; } >nul-state.csv
expect 2 "nul-state.csv:3.*\\\\x00" -- "$cli" simulate --state-in nul-state.csv --steps 1 \
    --state-out o.csv
expect 2 "byte 18 is a NUL" -- "$cli" simulate --steps 2 --state-out o.csv \
    --change-config nul-after.json --change-at 1
if [ $have_app -eq 1 ]; then
    expect 2 "NUL byte" -- "$app" --config nul-after.json --frames 1
fi

# --- 9. numbers below the double range --------------------------------------------------------
case_name="numbers below the double range"
for value in 1e-400 -1e-400 0.1e-330 1e-330 1e-310 1E-99999 0.000000000000000000000000000000000000000000001e-300; do
    printf '{"dt": %s}' "$value" >tiny.json
    expect 2 "key 'dt'.*too close to 0" -- "$cli" simulate --config tiny.json --steps 1 \
        --state-out o.csv
done
printf '{"bounds": [40, 1e-400, 40]}' >tiny-vec.json
expect 2 "bounds\\[1\\].*too close to 0" -- "$cli" simulate --config tiny-vec.json --steps 1 \
    --state-out o.csv
printf '{"rocks": [{"center": [0, 0, 0], "radius": 1e-500}]}' >tiny-rock.json
expect 2 "rocks\\[0\\].radius.*too close to 0" -- "$cli" simulate --config tiny-rock.json \
    --steps 1 --state-out o.csv
printf '{"kCohesion": 0e-400, "kAlignment": -0.0e99999}' >zero.json
expect 0 "" -- "$cli" simulate --config zero.json --fish 5 --steps 1 --state-out o.csv
expect 2 "--from.*too close to 0 for a double" -- "$cli" phase --vary noise --from 1e-400 --to 1 \
    --count 2 --steps 1 --csv p.csv
expect 2 "--to.*beyond the range of a double" -- "$cli" phase --vary noise --from 0 --to 1e400 \
    --count 2 --steps 1 --csv p.csv
{ head -1 school.csv; printf '1e-60,0,0,0,0,0\n'; } >tiny-state.csv
expect 2 "tiny-state.csv:2" -- "$cli" simulate --state-in tiny-state.csv --steps 1 \
    --state-out o.csv
if [ $have_app -eq 1 ]; then
    expect 2 "--sweep-seconds" -- "$app" --sweep 10 --csv s.csv --sweep-seconds 1e-400
fi

# --- 10. failed writes to stdout --------------------------------------------------------------
case_name="failed writes to stdout"
expect 1 "stdout: writing failed" -- sh -c "\"$cli\" bench --steps 1 --warmup 0 --fish 10 >/dev/full"
expect 1 "stdout: writing failed" -- sh -c "\"$cli\" bench --steps 1 --warmup 0 --fish 10 >&-"
expect 1 "stdout: writing failed" -- sh -c "\"$cli\" --help >/dev/full"
expect 1 "stdout: writing failed" -- sh -c "\"$cli\" simulate --help >&-"
sentinel bench10.csv
expect 1 "stdout: writing failed" -- sh -c "\"$cli\" bench --steps 1 --warmup 0 \
    --fish 10,20 --csv bench10.csv >/dev/full"
check "--csv not replaced when stdout failed" untouched bench10.csv
expect 0 "" -- sh -c "\"$cli\" simulate --steps 1 --fish 5 --state-out o10.csv >&-"
check "a closed stdout is not the output file's" test "$(head -1 o10.csv)" = "x,y,z,vx,vy,vz"
# A closed stderr: the progress lines and any error must not land in an output file.
expect 0 "" -- sh -c "\"$cli\" simulate --steps 200 --fish 5 --state-out e10.csv \
    --metrics m10.csv 2>&- <&-"
check "a closed stderr is not the output file's" sh -c '! grep -q "/200" e10.csv m10.csv'
check "the metrics are whole" test "$(wc -l <m10.csv)" -eq 202
if [ $have_app -eq 1 ]; then
    expect 1 "stdout: writing failed" -- sh -c "\"$app\" --help >/dev/full"
fi

# --- 11. the app's flags, checked before the window opens -------------------------------------
if [ $have_app -eq 1 ]; then
    case_name="app flags"
    for video in v.webm v.avi v v.mp4.txt; do
        expect 2 "--record: '$video' is not allowed" -- "$app" --record "$video" --frames 1
    done
    for seconds in nan -inf 0.001 3601 0x10 1e999; do
        expect 2 "--sweep-seconds" -- "$app" --sweep 10 --csv s.csv --sweep-seconds "$seconds"
    done
    expect 2 "--sweep-seconds needs --sweep" -- "$app" --sweep-seconds 2 --frames 1
    for frames in 0 -0 00 +1; do
        expect 2 "--frames" -- "$app" --frames "$frames"
    done
    for size in 63 16385 1e3 99999999999999999999; do
        expect 2 "--width" -- "$app" --width "$size" --frames 1
        expect 2 "--height" -- "$app" --height "$size" --frames 1
    done
    expect 2 "--record-fps needs --record" -- "$app" --record-fps 30 --frames 1
    expect 2 "--record cannot be used with --sweep" -- "$app" --record v.mp4 --sweep 10 --csv s.csv
    expect 2 "--backend" -- "$app" --backend quantum --frames 1
    expect 2 "--config: an empty value|empty" -- "$app" --config '' --frames 1
    check "docs/app.md gives --width's range" grep -q -- '`--width`.*64 to 16,384' \
        "$root/docs/app.md"
fi

# --- 12. messages -----------------------------------------------------------------------------
case_name="messages"
huge="$(head -c 120000 /dev/zero | tr '\0' 'x')"
expect 2 "--backend: 'x+\\.\\.\\.' \\(120000 characters\\)" -- "$cli" simulate --steps 1 \
    --state-out o.csv --backend "$huge"
expect 2 "" -- "$cli" simulate --steps 1 --state-out o.csv "--unknown-$huge"
expect 2 "\\(120000 characters\\)" -- "$cli" "$huge"
expect 2 "\\\\x1b\\[2J" -- "$cli" simulate --steps 1 --state-out o.csv --backend $'\e[2J\e[H'
expect 2 "\\\\x07" -- "$cli" bench --steps 1 --fish $'10\a'
expect 2 "\\\\x9b|\\\\xc2" -- "$cli" bench --steps 1 --density $'\xc2\x9b31m'
expect 2 "\\\\xff" -- "$cli" phase --vary $'noise\xff' --from 0 --to 1 --count 2 --steps 1 --csv p.csv
expect 2 "\\\\n" -- "$cli" simulate --steps 1 --state-out $'a\nb/c.csv'
expect 2 "\\\\r" -- "$cli" simulate --steps 1 --config $'c\r.json' --state-out o.csv
printf '{"\\u001b]0;owned\\u0007": 1}' >escape-key.json
expect 2 "\\\\x1b\\]0;owned\\\\x07" -- "$cli" simulate --config escape-key.json --steps 1 \
    --state-out o.csv
expect 2 "bounds.*must be an array of 3 numbers" -- "$cli" simulate --config wide.json --steps 1 \
    --state-out o.csv
printf '{"steering": "%s"}' "$huge" >long-value.json
expect 2 "steering" -- "$cli" simulate --config long-value.json --steps 1 --state-out o.csv
{ head -1 school.csv; printf '%s,0,0,0,0,0\n' "$huge"; } >long-state.csv
expect 2 "long-state.csv:2" -- "$cli" simulate --state-in long-state.csv --steps 1 --state-out o.csv
expect 2 "é" -- "$cli" simulate --steps 1 --state-out o.csv --backend 'café'
if [ $have_app -eq 1 ]; then
    expect 2 "\\(120000 characters\\)" -- "$app" --backend "$huge"
    expect 2 "\\\\x1b" -- "$app" --density $'\e[31mred'
    expect 2 "" -- "$app" $'--\e[31m'
fi

# --- 13. ranges that overflow -----------------------------------------------------------------
case_name="ranges that overflow"
expect 2 "noise" -- "$cli" phase --vary noise --from -1e308 --to 1e308 --count 3 --steps 1 \
    --csv p.csv
check "no NaN or null in the message" sh -c '! grep -Eqi "nan|null" err.txt'
expect 2 "orientation-width" -- "$cli" phase --vary orientation-width --from -1e308 --to 1e308 \
    --count 5 --steps 1 --csv p.csv
check "no NaN or null in the message" sh -c '! grep -Eqi "nan|null" err.txt'
expect 2 "fishCount" -- "$cli" phase --vary fishCount --from -1.7e308 --to 1.7e308 --count 2 \
    --steps 1 --csv p.csv
check "no NaN or null in the message" sh -c '! grep -Eqi "nan|null" err.txt'
expect 0 "" -- "$cli" phase --config small.json --vary kCohesion --from -1e6 --to 1e6 --count 3 \
    --steps 1 --csv p13.csv
check "the ends of a wide range are the values given" \
    sh -c 'cut -d, -f1 p13.csv | tr "\n" " " | grep -q "value -1000000 0 1000000"'
expect 2 "--from.*finite" -- "$cli" phase --vary noise --from nan --to 1 --count 2 --steps 1 \
    --csv p.csv
expect 2 "--to.*finite|--to.*range" -- "$cli" phase --vary noise --from 0 --to -inf --count 2 \
    --steps 1 --csv p.csv

# --- 14. names the file system refuses --------------------------------------------------------
case_name="names the file system refuses"
name256="$(long_name 256).csv"
expect 2 "too long" -- "$cli" simulate --steps 1 --state-out "$name256"
expect 2 "--metrics.*too long" -- "$cli" simulate --steps 1 --state-out o.csv --metrics "$name256"
expect 2 "--csv.*too long" -- "$cli" bench --steps 1 --fish 10 --csv "$name256"
expect 2 "--csv.*too long" -- "$cli" phase --vary noise --from 0 --to 1 --count 2 --steps 1 \
    --csv "$name256"
expect 2 "" -- "$cli" simulate --steps 1 --state-out "$(printf 'd/%.0s' $(seq 3000))x.csv"
name255="$(long_name 251).csv"
expect 0 "" -- "$cli" simulate --steps 1 --fish 5 --state-out "$name255"
check "a 255-byte name is written" test -s "$name255"
if [ $have_app -eq 1 ]; then
    expect 2 "--config-out.*too long" -- "$app" --frames 1 --config-out "$name256"
    expect 2 "--screenshot.*too long" -- "$app" --frames 1 --screenshot "$name256"
    expect 2 "--record.*too long" -- "$app" --frames 1 --record "$(long_name 256).mp4"
    if command -v ffmpeg >/dev/null; then
        video255="$(long_name 251).mp4"
        expect 0 "" timeout=60 -- "$app" --frames 2 --msaa 0 --width 64 --height 64 \
            --record "$video255"
        check "a video with a 255-byte name is written" test -s "$video255"
    fi
fi
check "no temporary file left" no_temporaries

# --- 15. long outputs stream to disk ----------------------------------------------------------
case_name="long outputs stream to disk"
# A run whose rows would fill memory if kept: its file grows while it runs (a file with no name
# yet, O_TMPFILE, seen through the process's /proc/PID/fd; or a hidden .NAME.tmp- where the file
# system has none), and the output appears, complete, only at the end.
timeout 30 "$cli" simulate --steps 100000000 --fish 2 --metrics stream.csv 2>/dev/null &
runner=$!
grew=0
for _ in $(seq 50); do
    sleep 0.2
    partial="$(find . -maxdepth 1 -name '.stream.csv.tmp-*' -size +64k -print -quit)"
    # The program is the child of `timeout`.
    for fd in /proc/"$(pgrep -P "$runner" | head -1)"/fd/*; do
        [[ "$(readlink "$fd" 2>/dev/null)" == "$work/#"*"(deleted)" ]] &&
            [ "$(stat -L -c %s "$fd" 2>/dev/null || echo 0)" -gt 65536 ] && partial="$fd"
    done
    if [ -n "$partial" ]; then
        grew=1
        break
    fi
done
check "the --metrics rows reach the disk while the run goes on" test "$grew" -eq 1
check "the output is not in place before the run ends" absent stream.csv
# SIGKILL: no ending of the process can leave a partial output (SIGINT and SIGTERM stop the run
# and keep what ran: class 19).
pkill -KILL -P "$runner" 2>/dev/null
wait "$runner" 2>/dev/null
check "a run killed midway leaves no output" absent stream.csv
expect 0 "" -- "$cli" simulate --steps 5000 --fish 2 --metrics stream.csv --metrics-every 1
check "every row is there" test "$(wc -l <stream.csv)" -eq 5002

# --- 16. smaller: -0, hysteresis labels, the GPU limit variable -------------------------------
case_name="-0, hysteresis, FISHSCHOOL_GPU_MAX_BUFFER_BYTES"
expect 0 "" -- "$cli" simulate --steps 0 --fish 5 --seed -0 --state-out seed0.csv
expect 0 "" -- "$cli" simulate --steps 0 --fish 5 --seed 0 --state-out seed00.csv
check "--seed -0 is --seed 0" cmp -s seed0.csv seed00.csv
printf '{"seed": -0, "fishCount": -0}' >minus-zero.json
expect 0 "" -- "$cli" simulate --config minus-zero.json --steps 1 --state-out o.csv
expect 0 "" -- "$cli" simulate --steps 0 --fish -0 --state-out o.csv
expect 0 "" -- "$cli" phase --config small.json --vary kCohesion --from -0 --to 0 --count 2 \
    --steps 1 --csv p16.csv
check "-0 is written as 0" sh -c '! grep -q "^-0," p16.csv'
expect 2 "--vary 'fishCount' cannot be used with --hysteresis" -- "$cli" phase --vary fishCount \
    --from 10 --to 20 --count 2 --steps 1 --hysteresis --csv p.csv
expect 2 "--vary 'seed' cannot be used with --hysteresis" -- "$cli" phase --vary seed \
    --from 1 --to 2 --count 2 --steps 1 --hysteresis --csv p.csv
for limit in abc 0 -5 '' ' 96000' 96000x 12345678901234567890123 0x100 1e6; do
    expect 2 "FISHSCHOOL_GPU_MAX_BUFFER_BYTES" -- env FISHSCHOOL_GPU_MAX_BUFFER_BYTES="$limit" \
        "$cli" simulate --steps 1 --fish 5 --state-out o.csv
done
expect 0 "" -- env FISHSCHOOL_GPU_MAX_BUFFER_BYTES=9223372036854775807 \
    "$cli" simulate --steps 1 --fish 5 --state-out o.csv
if [ $have_app -eq 1 ]; then
    expect 2 "FISHSCHOOL_GPU_MAX_BUFFER_BYTES" -- env FISHSCHOOL_GPU_MAX_BUFFER_BYTES=lots \
        "$app" --frames 1
fi
check "no temporary file left" no_temporaries

# --- 17. ensemble files and folders ---------------------------------------------------------
case_name="ensembles"
ens() { printf '{"base": {"fishCount": 10}, "axes": {"noise": [0, 0.1]}, "replicates": 2, "steps": 3, "seed": 1%s}' "$1"; }
ens "" >ens.json
for key in axes replicates seed measure backend base axis; do
    expect 2 "ens-deep-$key.json.*nest more than 16 deep" -- \
        "$cli" ensemble run "ens-deep-$key.json" --out ens-out
done
expect 2 "fifo: is not a regular file.*an ensemble file" timeout=5 -- "$cli" ensemble run fifo --out ens-out
printf '{"base": "fifo", "axes": {"noise": [0]}, "steps": 1}' >ens-base-fifo.json
# Named by the path it was looked for at, beside the ensemble file.
expect 2 "key 'base': /[^ ]*/fifo: is not a regular file" timeout=5 -- \
    "$cli" ensemble run ens-base-fifo.json --out ens-out
printf '{"base": "/dev/zero", "axes": {"noise": [0]}, "steps": 1}' >ens-base-zero.json
expect 2 "key 'base'.*not a regular file" timeout=5 -- \
    "$cli" ensemble run ens-base-zero.json --out ens-out
ens ', "x": 1' | tr 'x' '\0' >ens-nul.json
expect 2 "NUL byte" -- "$cli" ensemble run ens-nul.json --out ens-out
ens ', "seed": 2' >ens-twice.json
expect 2 "key 'seed' appears more than once" -- "$cli" ensemble run ens-twice.json --out ens-out
printf '{"axes": {"kCohesion": {"from": 0, "to": 1, "count": 4000}, "kAlignment": {"from": 0, "to": 1, "count": 2500}}, "steps": 1}' >ens-grid.json
# 10^7 points, each checked with the config's rules before the first run: seconds, not hours.
expect 0 "" timeout=120 -- "$cli" ensemble run ens-grid.json --out ens-grid --only 0 --jobs 1
check "absent runs are not run" test "$(cat ens-grid/part-*.csv | wc -l)" -eq 2
printf '{"axes": {"kCohesion": {"from": 0, "to": 1, "count": 4000}, "kAlignment": {"from": 0, "to": 1, "count": 2501}}, "steps": 1}' >ens-many.json
expect 2 "axes.kAlignment.count.*2501 values.*more than 10000000 runs" -- "$cli" ensemble run ens-many.json --out ens-out
check "a refused ensemble writes nothing" absent ens-out
expect 0 "" -- "$cli" ensemble run ens.json --out ens-ok
cp ens-ok/manifest.json manifest.kept
for own in ens-ok/manifest.json ./ens-ok/../ens-ok/part-0of1-w0.csv; do
    expect 2 "--csv: .* is the ensemble folder's" -- "$cli" ensemble merge ens-ok --csv "$own"
done
check "the merge leaves the manifest as it was" cmp -s manifest.kept ens-ok/manifest.json
sentinel merged.csv
expect 2 "--timing: 'merged.csv' is also the file of --csv" -- \
    "$cli" ensemble merge ens-ok --csv merged.csv --timing merged.csv
expect 2 "not a regular file" -- "$cli" ensemble merge ens-ok --csv /dev/null
check "a refused merge leaves its output" untouched merged.csv
printf 'garbage\n\x1b[31m,1,2\n' >>ens-ok/part-0of1-w0.csv
expect 1\|2 "part-0of1-w0.csv" -- "$cli" ensemble merge ens-ok --csv merged.csv
expect 1\|2 "part-0of1-w0.csv" -- "$cli" ensemble status ens-ok
check "a merge of a broken folder leaves its output" untouched merged.csv
check "no temporary file left" no_temporaries

# --- 18. a second probe: outputs on the shell's own files, links to files not made yet, the
# other signals, and ensemble folders holding what no run wrote ------------------------------
case_name="outputs, links and signals (second probe)"
sentinel shell.log
expect 2 "is where this program's standard output goes" -- \
    bash -c "\"$cli\" simulate --steps 1 --fish 3 --state-out /dev/stdout >>shell.log"
check "the shell's file keeps what it had" untouched shell.log
expect 2 "is where this program's standard error goes" -- \
    bash -c "\"$cli\" simulate --steps 1 --fish 3 --state-out /dev/stderr 2>>shell.log; \
        s=\$?; cat shell.log >&2; exit \$s"
ln -sf later.csv dangling.csv
expect 2 "also the file of --state-out" -- \
    "$cli" simulate --steps 1 --fish 3 --metrics dangling.csv --state-out later.csv
expect 0 "" -- "$cli" simulate --steps 1 --fish 3 --state-out dangling.csv
check "a link to a file not made yet stays a link" test -L dangling.csv
check "and its target is written" test -s later.csv
ln -sf nowhere/x.csv into-missing.csv
expect 2 "nowhere.*does not exist" -- "$cli" simulate --steps 1 --fish 3 --state-out into-missing.csv
check "a link into a missing folder stays a link" test -L into-missing.csv
for signal in USR1 USR2 ALRM; do
    expect $((128 + $(kill -l "$signal"))) "" -- bash -c "\"$cli\" simulate --steps 100000000 \
        --fish 5 --metrics sig.csv & pid=\$!; sleep 0.5; kill -$signal \$pid; wait \$pid"
done
check "no temporary file left after USR1, USR2, ALRM" no_temporaries

case_name="ensemble folders and files (second probe)"
for kind in fifo link folder; do
    mkdir -p "ens-$kind"
    case $kind in
        fifo) mkfifo "ens-$kind/part-0of1-w0.csv" ;;
        link) ln -sf /dev/null "ens-$kind/part-0of1-w0.csv" ;;
        folder) mkdir -p "ens-$kind/part-0of1-w0.csv" ;;
    esac
    # The shard cannot write there (exit 1); the others, status and merge leave it unread.
    expect 1 "part file '.*part-0of1-w0.csv'" timeout=10 -- \
        "$cli" ensemble run ens.json --out "ens-$kind" --jobs 1
    expect 0 "left out .*part-0of1-w0.csv': not a regular file" timeout=10 -- \
        "$cli" ensemble status "ens-$kind"
done
"$cli" ensemble run ens.json --out ens-huge --jobs 1 >/dev/null 2>&1
truncate -s 2G ens-huge/part-0of1-w0.csv
expect 2 "longer than 1048576 bytes" timeout=20 -- "$cli" ensemble status ens-huge
expect 2 "longer than 1048576 bytes" timeout=20 -- "$cli" ensemble run ens.json --out ens-huge
mkdir -p ens-manifest
printf '{"ensemble": "\\u001b[31mhh", "version": "0.1.0", "runs": 4, "axes": []}' >ens-manifest/manifest.json
expect 2 "not a manifest" -- "$cli" ensemble run ens.json --out ens-manifest
expect 2 "not a manifest" -- "$cli" ensemble status ens-manifest
printf '{"base": "small.json\\u0000x", "axes": {}, "steps": 1}' >ens-base-nul.json
expect 2 "key 'base'" -- "$cli" ensemble run ens-base-nul.json --out ens-out
for zero in '"axes": {"noise": {"from": 0, "to": 1, "count": 0}}, "steps": 1' \
    '"axes": {}, "steps": 1, "replicates": 0' '"axes": {}, "steps": 0' \
    '"axes": {}, "steps": 1, "measure": {"last": 0}'; do
    printf '{%s}' "$zero" >ens-zero.json
    expect 2 "'0' is not allowed; must be a whole number from 1" -- \
        "$cli" ensemble run ens-zero.json --out ens-out
done
expect 2 "--out: .* cannot be used: File name too long" -- \
    "$cli" ensemble run ens.json --out "$(long_name 300)"
ln -sfn ens-loop ens-loop
expect 2 "--out: 'ens-loop' cannot be used: Too many levels" -- \
    "$cli" ensemble run ens.json --out ens-loop
check "a refused ensemble writes nothing" absent ens-out
# 10^7 points over a tank of 256 rocks: the rocks' gaps are found once, not once a point.
python3 -c '
import json
rocks = [{"center": [-150 + 20 * i, 0, -150 + 20 * j], "radius": 4} for i in range(16) for j in range(16)]
json.dump({"bounds": [200, 50, 200], "rocks": rocks}, open("rocks256.json", "w"))'
printf '{"base": "rocks256.json", "axes": {"maxVelocity": {"from": 1, "to": 3, "count": 10000}, "dt": {"from": 0.01, "to": 0.02, "count": 1000}}, "steps": 1}' >ens-rocks.json
expect 0 "" timeout=120 -- "$cli" ensemble run ens-rocks.json --out ens-rocks --only 0 --jobs 1
# Four array tasks started at once on a new folder: none refuses another's manifest.
expect 0 "" -- bash -c "pids=(); for k in 0 1 2 3; do \"$cli\" ensemble run ens.json \
    --out ens-together --shard \$k/4 --jobs 1 & pids+=(\$!); done; s=0; \
    for p in \"\${pids[@]}\"; do wait \$p || s=2; done; exit \$s"
expect 0 "" -- "$cli" ensemble merge ens-together --csv together.csv
check "no temporary file left" no_temporaries

# --- 19 and on: a file a class in scripts/hostile.d, run in the same folder with the same helpers -
for class_file in "$root"/scripts/hostile.d/*.sh; do
    [ -e "$class_file" ] || continue
    # shellcheck source=/dev/null
    source "$class_file"
done

echo "hostile: $cases runs, $passed checks passed, $failed failed ($((SECONDS - started)) s)"
[ "$failed" -eq 0 ]
