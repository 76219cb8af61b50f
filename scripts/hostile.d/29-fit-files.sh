# shellcheck shell=bash disable=SC2034,SC2154  # case_name, cli: hostile.sh's
# --- 29. fit files that are no fit files, targets that are no trajectories, folders that are not
# the fit's: sourced by scripts/hostile.sh after class 24, in its scratch folder ---

printf '{"fishCount": 10, "rocks": [], "boundary": "periodic", "bounds": [4, 4, 4]}' >fit-base.json
"$cli" simulate --config fit-base.json --steps 10 --seed 1 --trajectory fit-target.h5 2>/dev/null
fit_file() { # fit_file NAME PARAMETERS TARGET [MORE]: a fit file of those pieces
    printf '{"base": "fit-base.json", "parameters": %s, "target": {"trajectory": "%s"}, "statistics": {"measures": ["milling"]}, "steps": 10, "budget": 20, "particles": 4%s}' \
        "$2" "$3" "${4:-}" >"$1"
}

case_name="a fit file that is a device, a FIFO, too large or too deep"
expect 2 "/dev/zero: is not a regular file" timeout=5 -- "$cli" fit /dev/zero --out fit-out
rm -f fit-fifo && mkfifo fit-fifo
expect 2 "fit-fifo: is not a regular file" timeout=5 -- "$cli" fit fit-fifo --out fit-out
head -c 1100000 /dev/zero | tr '\0' ' ' >fit-big.json
expect 2 "larger than a fit file may be" -- "$cli" fit fit-big.json --out fit-out
/usr/bin/python3 -c "print('{\"parameters\": ' * 40 + '1' + '}' * 40)" >fit-deep.json
expect 2 "nest more than 16" -- "$cli" fit fit-deep.json --out fit-out
check "no fit folder was made" absent fit-out

case_name="priors, numbers and paths that are no values"
fit_file fit-empty.json '{"noise": {"uniform": [0.5, 0.5]}}' fit-target.h5
expect 2 "key 'parameters.noise.uniform': \[0.5, 0.5\] is an empty range" -- \
    "$cli" fit fit-empty.json --out fit-out
fit_file fit-float.json '{"kCohesion": {"uniform": [0, 1e39]}}' fit-target.h5
expect 2 "'1e\+39' is beyond the range of a float" -- "$cli" fit fit-float.json --out fit-out
fit_file fit-budget.json '{"noise": {"uniform": [0, 1]}}' fit-target.h5 ', "budget": -1'
expect 2 "key 'budget'" -- "$cli" fit fit-budget.json --out fit-out
fit_file fit-nul.json '{"noise": {"uniform": [0, 1]}}' 'fit-target.h5\u0000.json'
expect 2 "key 'target.trajectory': must be the path of a trajectory" -- \
    "$cli" fit fit-nul.json --out fit-out
fit_file fit-device.json '{"noise": {"uniform": [0, 1]}}' /dev/zero
expect 2 "target: /dev/zero: is not a regular file" timeout=5 -- \
    "$cli" fit fit-device.json --out fit-out
fit_file fit-text.json '{"noise": {"uniform": [0, 1]}}' fit-base.json
expect 2 "target: .*fit-base.json" -- "$cli" fit fit-text.json --out fit-out
check "no fit folder was made" absent fit-out

case_name="a folder that is not the fit's"
fit_file fit-ok.json '{"noise": {"uniform": [0, 0.5]}}' fit-target.h5 ', "populations": 2'
mkdir -p fit-stranger && sentinel fit-stranger/notes.txt
expect 2 "holds 'notes.txt' and no fit.json" -- "$cli" fit fit-ok.json --out fit-stranger
expect 0 "" -- "$cli" fit fit-ok.json --out fit-mine --jobs 1
fit_file fit-other.json '{"noise": {"uniform": [0, 0.4]}}' fit-target.h5 ', "populations": 2'
expect 2 "holds another fit" -- "$cli" fit fit-other.json --out fit-mine
printf 'junk\n' >fit-mine/populations.csv
expect 2 "populations.csv.* line 1: not this fit's header" -- "$cli" fit fit-ok.json --out fit-mine
