# shellcheck shell=bash disable=SC2154,SC2016,SC2034 # $cli, case_name and the helpers are hostile.sh's
# --- 20. an ensemble folder's identity, checked wherever it is read or written (issue 33) ------
# Sourced by scripts/hostile.sh, in its scratch folder, with its helpers. Each case is a root
# cause the probe found: a manifest checked, then written without being read again; rows taken
# without a check against their run; a manifest edited under its own hash; the merge writing
# through a link; exit statuses; a run out of memory.
ens20() {
    printf '{"base": {"fishCount": 10}, "axes": {"noise": [0, 0.1]}, "replicates": 2, "steps": 3, "seed": %s}' "$1"
}
ens20 21 >ens20-a.json
ens20 22 >ens20-b.json # the same axes, so the same columns: only the hash tells them apart

case_name="two ensembles started at once on one new folder"
# The first manifest made stays; the other task reads it back and is refused, every time.
expect 0 "" timeout=120 -- bash -c 'for trial in 1 2 3 4 5 6; do rm -rf ens20-race
    "$0" ensemble run ens20-a.json --out ens20-race --jobs 1 2>/dev/null & a=$!
    "$0" ensemble run ens20-b.json --out ens20-race --jobs 1 2>/dev/null & b=$!
    wait $a; sa=$?; wait $b; sb=$?
    case "$sa $sb" in "0 2" | "2 0") ;; *)
        echo "error: trial $trial: exit statuses $sa and $sb; one task must be refused" >&2
        exit 1 ;;
    esac; done' "$cli"
expect 0 "" -- "$cli" ensemble merge ens20-race --csv ens20-race.csv

case_name="a part file or a row of another ensemble or shard"
"$cli" ensemble run ens20-a.json --out ens20-a --jobs 1 >/dev/null 2>&1
"$cli" ensemble run ens20-b.json --out ens20-b --jobs 1 --shard 0/2 >/dev/null 2>&1
# Another ensemble's part file copied in; its row under this one's header (run 0 twice, ok,
# two seeds); a run of shard 1 in shard 0's file.
for foreign in "ens20-b/part-0of2-w0.csv|part-0of1-w7.csv|line 1: the part file of ensemble" \
    "ens20-b/part-0of2-w0.csv 2|part-0of1-w7.csv|line 2: run 0 says seed" \
    "ens20-a/part-0of1-w0.csv 3|part-0of2-w0.csv|line 2: run 1 is not of shard 0of2"; do
    IFS='|' read -r from name says <<<"$foreign"
    if [ "${from#* }" = "$from" ]; then
        cp "$from" "ens20-a/$name"
    else
        read -r source line <<<"$from"
        { head -1 ens20-a/part-0of1-w0.csv; sed -n "${line}p" "$source"; } >"ens20-a/$name"
    fi
    expect 2 "$name': $says" -- "$cli" ensemble run ens20-a.json --out ens20-a
    expect 2 "$name': $says" -- "$cli" ensemble status ens20-a
    expect 2 "$name': $says" -- "$cli" ensemble merge ens20-a --csv ens20-merged.csv
    check "a refused merge writes nothing" absent ens20-merged.csv
    rm -f "ens20-a/$name"
done
expect 0 "are done" -- "$cli" ensemble run ens20-a.json --out ens20-a

case_name="a manifest edited by hand, its hash kept"
cp ens20-a/manifest.json ens20-manifest.kept
sed 's/"runs": 4/"runs": 2/' ens20-manifest.kept >ens20-a/manifest.json
# One reader for every command: each refuses it, in the same words.
k=0
for command in "run ens20-a.json --out ens20-a" "run ens20-a.json --out ens20-a --dry-run" \
    "status ens20-a" "merge ens20-a --csv ens20-merged.csv"; do
    # shellcheck disable=SC2086
    expect 2 "manifest.json': not a manifest of fishschool-cli ensemble run \(was it edited" -- \
        "$cli" ensemble $command
    cp err.txt "ens20-said-$k.txt"
    k=$((k + 1))
done
check "run, status and merge refuse it alike" bash -c 'for k in 1 2 3; do
    cmp -s ens20-said-0.txt ens20-said-$k.txt || exit 1; done'
check "a refused merge writes nothing" absent ens20-merged.csv
cp ens20-manifest.kept ens20-a/manifest.json

case_name="the merge through a link to a part file's name"
ln -sfn ens20-b/part-1of2-w0.csv ens20-link.csv
ln -sfn ens20-b ens20-b-link
ln -sfn ens20-b-link/manifest.json ens20-link-manifest.csv
expect 2 "--csv: 'ens20-link.csv' is the ensemble folder's part file 'part-1of2-w0.csv'" -- \
    "$cli" ensemble merge ens20-b --csv ens20-link.csv
expect 2 "--timing: 'ens20-link-manifest.csv' is the ensemble folder's manifest" -- \
    "$cli" ensemble merge ens20-b --csv ens20-merged.csv --timing ens20-link-manifest.csv
check "no part file made through the link" absent ens20-b/part-1of2-w0.csv
expect 0 "" -- "$cli" ensemble status ens20-b
expect 0 "" -- "$cli" ensemble run ens20-b.json --out ens20-b --shard 1/2 --jobs 1

case_name="an unwritable folder is bad input, made or not"
# As root, without the capability that overrides file permissions.
as_user=()
# shellcheck disable=SC2054 # one argument, a list of capabilities
[ "$(id -u)" -eq 0 ] && as_user=(setpriv --bounding-set=-dac_override,-dac_read_search --)
if [ ${#as_user[@]} -eq 0 ] || "${as_user[@]}" true 2>/dev/null; then
    mkdir -p ens20-ro
    chmod 555 ens20-ro
    for dry in "" --dry-run; do
        # shellcheck disable=SC2086
        expect 2 "--out: 'ens20-ro' cannot be written \(Permission denied\)" -- \
            "${as_user[@]}" "$cli" ensemble run ens20-a.json --out ens20-ro $dry
        # shellcheck disable=SC2086
        expect 2 "--out: 'ens20-ro/new' cannot be made: its parent folder 'ens20-ro' cannot be written" -- \
            "${as_user[@]}" "$cli" ensemble run ens20-a.json --out ens20-ro/new $dry
    done
    check "the unwritable folder is still empty" test -z "$(ls -A ens20-ro)"
    chmod 755 ens20-ro
fi

case_name="--out under a file"
printf 'a file\n' >ens20-afile
expect 2 "--out: 'ens20-afile/sub': its parent 'ens20-afile' is a file, not a folder" -- \
    "$cli" ensemble run ens20-a.json --out ens20-afile/sub
expect 2 "a file stands on its path" -- "$cli" ensemble run ens20-a.json --out ens20-afile/x/sub

case_name="runs out of memory"
# A limit of the address space leaves AddressSanitizer's shadow memory no room: not there.
if ! ldd "$cli" 2>/dev/null | grep -q libasan; then
    printf '{"base": {"fishCount": 10, "rocks": []}, "axes": {"fishCount": [10, 16000000]}, "steps": 2}' >ens20-oom.json
    expect 1 "error: 1 of 2 runs failed; their rows say why" timeout=60 -- \
        bash -c 'ulimit -v 400000; exec "$0" ensemble run ens20-oom.json --out ens20-oom --jobs 1' "$cli"
    check "the run out of memory is a failed row, the other an ok one" bash -c \
        'grep -q "^1,16000000,.*,failed,0,.*bad_alloc" ens20-oom/part-0of1-w0.csv &&
         grep -q "^0,10,.*,ok," ens20-oom/part-0of1-w0.csv'
fi

case_name="ensemble run --dry-run"
expect 0 "\(1 runs in shard 1/4\); nothing was made or run" -- \
    "$cli" ensemble run ens20-a.json --out ens20-dry --shard 1/4 --jobs 2 --dry-run
check "a dry run makes no folder" absent ens20-dry
expect 2 "holds the runs of another ensemble file" -- \
    "$cli" ensemble run ens20-a.json --out ens20-b --dry-run
expect 2 "--shard: '4/4' is not allowed" -- \
    "$cli" ensemble run ens20-a.json --out ens20-dry --shard 4/4 --jobs 2 --dry-run
expect 2 "--jobs" -- "$cli" ensemble run ens20-a.json --out ens20-dry --jobs 0 --dry-run
expect 2 "--only: '9' is not allowed" -- "$cli" ensemble run ens20-a.json --out ens20-dry --only 9 --dry-run
check "a refused dry run makes no folder" absent ens20-dry
check "no temporary file left" no_temporaries
