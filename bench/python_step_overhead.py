#!/usr/bin/env python3
"""What a call of sim.step(1) from Python costs beyond the step itself (docs/python.md).

Times N calls of sim.step(1) against one sim.step(N), in alternating rounds on two simulations
of the same school (they step to the same bits, so both ways see the same school each round),
and prints both per step and their difference in microseconds; then the bare call, sim.step(0), and a step of an
empty school. The target: at most 5 us at 1,000 fish on cpu.

    PYTHONPATH=build/python /usr/bin/python3 bench/python_step_overhead.py [--fish 1000]
"""

import argparse
import os
import statistics
import sys
import time

# FISHSCHOOL_PYTHON_DIR, else PYTHONPATH, else build/python of this repository.
if os.environ.get("FISHSCHOOL_PYTHON_DIR"):
    sys.path.insert(0, os.environ["FISHSCHOOL_PYTHON_DIR"])
else:
    sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "build",
                                 "python"))
import fishschool  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fish", type=int, default=1000)
    parser.add_argument("--backend", default="cpu")
    parser.add_argument("--steps", type=int, default=1000, help="N, steps a round")
    parser.add_argument("--rounds", type=int, default=9)
    args = parser.parse_args()

    clock = time.perf_counter
    # Two simulations of one school: they step to the same bits, so each round times the two
    # ways on the same school, whatever the school becomes as it steps.
    make = lambda: fishschool.Simulation(fishCount=args.fish, backend=args.backend)  # noqa: E731
    with make() as one_by_one, make() as batched:
        for sim in (one_by_one, batched):
            sim.step(200)  # warm up: caches, the grid, the school past its first steps
        singles, batches = [], []
        for _ in range(args.rounds):
            start = clock()
            for _ in range(args.steps):
                one_by_one.step(1)
            singles.append((clock() - start) / args.steps)
            start = clock()
            batched.step(args.steps)
            batches.append((clock() - start) / args.steps)
        calls = 200_000
        start = clock()
        for _ in range(calls):
            one_by_one.step(0)
        bare = (clock() - start) / calls

    with fishschool.Simulation(fishCount=0, backend=args.backend) as empty:
        start = clock()
        for _ in range(calls):
            empty.step(1)
        empty_step = (clock() - start) / calls

    us = 1e6
    single, batch = statistics.median(singles), statistics.median(batches)
    paired = statistics.median(a - b for a, b in zip(singles, batches))
    print(f"{args.fish} fish on {args.backend}, {args.rounds} rounds of {args.steps} steps, each "
          f"round on the same school both ways (medians)")
    print(f"  sim.step(1) x N : {single * us:9.2f} us a step")
    print(f"  sim.step(N) / N : {batch * us:9.2f} us a step")
    print(f"  difference      : {paired * us:9.2f} us a call (median of the rounds' differences; "
          f"target: <= 5 us)")
    print(f"  sim.step(0)     : {bare * us:9.3f} us a call (the binding and its checks)")
    print(f"  step(1), 0 fish : {empty_step * us:9.3f} us a call (with the GIL released and "
          f"taken back)")


if __name__ == "__main__":
    main()
