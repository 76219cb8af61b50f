#!/usr/bin/env bash
# Runs a small ensemble on a one-node Slurm cluster started on this machine, through
# scripts/slurm/submit.sh, and checks that the merged CSV is byte for byte the one-machine run's.
# One of the three array tasks is made to fail (a folder stands where its part file goes); it is
# then resubmitted alone, and the merge job that follows it must give the full CSV.
#   scripts/slurm_test.sh [path/to/fishschool-cli]
# Needs root and Debian's slurmctld, slurmd, slurm-client and munge (scripts/setup.sh installs
# them). Everything of the cluster lives in a temporary folder: its own munged (key, socket, pid
# file), slurm.conf with ports of its own on 127.0.0.1, state, spool, logs and pid files; the
# daemons are stopped at the end, also on failure. Nothing of a system Slurm or munge is used.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cli="$(realpath "${1:-$root/build/bin/fishschool-cli}")"
[ -x "$cli" ] || { echo "error: $cli is not built" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || { echo "error: the Slurm test starts munged and slurmd as root; run it as root" >&2; exit 2; }
for tool in munged slurmctld slurmd sbatch squeue scontrol python3; do
    command -v "$tool" >/dev/null ||
        { echo "error: $tool is missing (scripts/setup.sh installs munge, slurmctld, slurmd, slurm-client)" >&2; exit 2; }
done

work="$(mktemp -d /tmp/fishschool-slurm.XXXXXX)"
pids=()
stop_cluster() {
    local status=$?
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    if [ "$status" -ne 0 ]; then
        echo "Slurm test failed; the daemons' logs:" >&2
        tail -n 30 "$work"/log/* >&2 2>/dev/null || true
    fi
    rm -rf "$work"
}
trap stop_cluster EXIT
mkdir -p "$work"/{munge,log,run,state,spool}
chmod 700 "$work/munge"

# munged: a key, socket, pid and seed file of its own.
dd if=/dev/urandom of="$work/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$work/munge/munge.key"
socket="$work/munge/munge.socket"
munged --foreground --force --key-file="$work/munge/munge.key" --socket="$socket" \
    --pid-file="$work/run/munged.pid" --seed-file="$work/munge/munged.seed" \
    --log-file="$work/log/munged.log" >"$work/log/munged.out" 2>&1 &
pids+=($!)

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
host="$(hostname -s)"
export SLURM_CONF="$work/slurm.conf"
: >"$work/plugstack.conf"
cat >"$SLURM_CONF" <<CONF
ClusterName=fishschoolci
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$(free_port)
SlurmdPort=$(free_port)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$socket
CommunicationParameters=NoInAddrAny
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/run/slurmctld.pid
SlurmdPidFile=$work/run/slurmd.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd.log
PlugStackConfig=$work/plugstack.conf
ProctrackType=proctrack/pgid
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/builtin
SchedulerParameters=sched_interval=1
SlurmdParameters=config_overrides
MpiDefault=none
SwitchType=switch/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
ReturnToService=2
MinJobAge=300
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=ci Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF

for _ in $(seq 50); do [ -S "$socket" ] && break; sleep 0.1; done
slurmctld -D -i -f "$SLURM_CONF" >"$work/log/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -N "$host" -f "$SLURM_CONF" >"$work/log/slurmd.out" 2>&1 &
pids+=($!)
wait_for() {  # wait_for SECONDS WHAT COMMAND...: polls COMMAND until it succeeds
    local seconds="$1" what="$2"; shift 2
    for _ in $(seq $((seconds * 5))); do "$@" >/dev/null 2>&1 && return 0; sleep 0.2; done
    echo "error: $what within $seconds s" >&2
    return 1
}
node_idle() { sinfo -h -N -o %t | grep -qx idle; }
wait_for 60 "the node did not come up idle" node_idle

# The ensemble: 2 x 2 points x 3 replicates of a small school, and its one-machine run.
cat >"$work/ensemble.json" <<'JSON'
{
  "base": {"fishCount": 30, "steering": "couzin", "rSeparation": 1, "rAlignment": 2,
           "rCohesion": 12, "dt": 0.1, "maxTurnRate": 40, "noise": 0.05,
           "bounds": [12, 12, 12], "rocks": [], "neighborSearch": "all-pairs"},
  "axes": {"orientation-width": [0, 4], "attraction-width": {"from": 4, "to": 10, "count": 2}},
  "replicates": 3, "steps": 40, "seed": 2002, "measure": {"last": 10}
}
JSON
"$cli" ensemble run "$work/ensemble.json" --out "$work/local" --jobs 2 2>/dev/null
"$cli" ensemble merge "$work/local" --csv "$work/local.csv" 2>/dev/null

queue_empty() { [ -z "$(squeue -h -o %i)" ]; }
out="$work/cluster"
mkdir -p "$out/part-1of3-w0.csv"  # task 1 cannot open its part file: it fails, exit 1
FISHSCHOOL_CLI="$cli" "$root/scripts/slurm/submit.sh" "$work/ensemble.json" "$out" 3
wait_for 120 "the array and its merge job did not end" queue_empty
grep -q "part-1of3-w0.csv" "$out.slurm"/slurm-*_1.out ||
    { echo "error: task 1 did not fail on its part file" >&2; cat "$out.slurm"/*.out >&2; exit 1; }
grep -q "left 4" "$out.slurm"/slurm-*[0-9].out ||
    { echo "error: the first merge job did not report task 1's 4 runs left" >&2; cat "$out.slurm"/*.out >&2; exit 1; }

rmdir "$out/part-1of3-w0.csv"
FISHSCHOOL_CLI="$cli" "$root/scripts/slurm/submit.sh" --tasks 1 "$work/ensemble.json" "$out" 3
wait_for 120 "the resubmitted task and its merge job did not end" queue_empty
if ! cmp "$work/local.csv" "$out/merged.csv"; then
    diff "$work/local.csv" "$out/merged.csv" >&2 || true
    cat "$out.slurm"/*.out >&2
    exit 1
fi
echo "Slurm test passed: $(($(wc -l <"$out/merged.csv") - 1)) runs, 3 array tasks (one failed," \
    "resubmitted alone), merged CSV identical to the one-machine run"
