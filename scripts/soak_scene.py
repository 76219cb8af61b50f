#!/usr/bin/env python3
"""One random scene of scripts/soak.sh: a valid config (docs/config.md's rules, with extreme but valid
values now and then) and how to run it. Usage: soak_scene.py SEED CASE BACKENDS CONFIG_OUT
Prints "FISH STEPS BACKEND" and writes the config. About a scene in three also changes mid-run, as
a user's panel changes a running school (another random scene's parameters, tank, rocks and fish
count included): then it prints "FISH STEPS BACKEND CHANGE_AT FISH_AFTER" and writes those
parameters beside CONFIG_OUT, as CONFIG_OUT with ".change.json" for its ".json". The same SEED and
CASE give the same scene."""
import json
import math
import random
import sys

LIMIT = 1e6  # docs/config.md: every weight, limit and bound is at most 1e6 in size


def log_uniform(rng, low, high):
    return math.exp(rng.uniform(math.log(low), math.log(high)))


def weight(rng):
    roll = rng.random()
    if roll < 0.08:
        return rng.choice([-LIMIT, LIMIT])
    if roll < 0.15:
        return 0.0
    return rng.uniform(-3.0, 3.0)


def scene(seed, case, backends, backend=None):
    rng = random.Random(seed * 1_000_003 + case)
    extreme = rng.random() < 0.2
    scale = rng.choice([LIMIT, 1e4, 0.5]) if extreme else log_uniform(rng, 2.0, 500.0)
    bounds = [min(LIMIT, scale * rng.uniform(0.3, 1.0)) for _ in range(3)]
    dt = log_uniform(rng, 1e-4, 0.5)
    # maxVelocity * dt < min(bounds): the reflection at a wall must land inside
    top_speed = min(LIMIT, 0.9 * min(bounds) / dt)
    max_velocity = top_speed if extreme and rng.random() < 0.5 else \
        min(top_speed, log_uniform(rng, 0.1, 50.0) * scale / 40.0)
    fastest = max_velocity
    radii = []
    for _ in range(3):
        roll = rng.random()
        radii.append(0.0 if roll < 0.1 else LIMIT if roll < 0.13 else
                     rng.uniform(0.0, 0.3) * min(bounds))
    p = {
        "seed": rng.randrange(2**64),
        "dt": dt,
        "bounds": bounds,
        "maxVelocity": max_velocity,
        "maxAcceleration": LIMIT if extreme and rng.random() < 0.5 else log_uniform(rng, 1e-3, 100.0),
        "kCohesion": weight(rng), "kSeparation": weight(rng), "kAlignment": weight(rng),
        "rCohesion": radii[0], "rSeparation": radii[1], "rAlignment": radii[2],
        "lockVerticalSteering": rng.random() < 0.3,
        "viewAngle": 360.0 if rng.random() < 0.5 else rng.uniform(1.0, 360.0),
        "neighborSearch": rng.choice(["all-pairs", "grid"]),
        "kTarget": 0.0, "kAvoidance": 0.0,
    }
    if rng.random() < 0.5:  # seeking, straight or along the flow field
        p["kTarget"] = weight(rng)
        p["target"] = [rng.uniform(-b, b) for b in bounds]
        p["targetPath"] = rng.choice(["straight", "flow-field"])
    if rng.random() < 0.5:  # avoidance ahead of contact
        p["kAvoidance"] = weight(rng)
        p["avoidanceDistance"] = rng.uniform(0.0, 0.3) * min(bounds)
        p["avoidance"] = rng.choice(["repel", "rays"])
    # The other sources' behaviours, each on about a third of the scenes.
    p["steering"] = rng.choice(["article", "reynolds", "couzin", "vicsek"])
    if rng.random() < 0.3:  # a flat school
        p["dimensions"] = 2
    p["combine"] = rng.choice(["sum", "prioritized"])
    p["separationFalloff"] = rng.choice(["none", "inverse-square"])
    if rng.random() < 0.3:
        p["minVelocity"] = max_velocity * rng.choice([0.0, rng.random(), 1.0])
    if rng.random() < 0.3:
        p["noise"] = rng.choice([rng.uniform(0.0, 0.5), 10.0])
    if rng.random() < 0.3 or p["steering"] == "couzin":
        p["maxTurnRate"] = rng.choice([LIMIT, log_uniform(rng, 1.0, 1000.0)])
    kinds = rng.random() < 0.3
    if kinds:
        p["kLeader"] = weight(rng)
        p["kFlee"] = weight(rng)
        p["fleeRadius"] = rng.uniform(0.0, 0.5) * min(bounds)
        p["predatorMaxVelocity"] = min(top_speed, max_velocity * rng.uniform(0.5, 3.0))
        fastest = max(fastest, p["predatorMaxVelocity"])
    step = fastest * dt
    # Rocks: each a gap of at least maxVelocity*dt from every wall and every other rock (1% more,
    # so that the config's float rounding cannot break the rule).
    gap = step * 1.01 + 1e-6 * scale
    rocks = []
    for _ in range(rng.randrange(0, 6)):
        for _attempt in range(50):
            r = rng.uniform(0.02, 0.4) * min(bounds)
            room = [b - r - gap for b in bounds]
            if min(room) <= 0:
                continue
            c = [rng.uniform(-m, m) for m in room]
            if all(math.dist(c, o["center"]) - r - o["radius"] >= gap for o in rocks):
                rocks.append({"center": c, "radius": r})
                break
    p["rocks"] = rocks

    drawn = rng.choice(backends)
    backend = backend or drawn
    wide = max(radii) > 0.5 * min(bounds)
    costly = backend == "gpu" or p["neighborSearch"] == "all-pairs" or wide
    if rng.random() < 0.04:
        fish = 0
    else:
        fish = int(log_uniform(rng, 1.0, 1500.0 if costly else 20000.0))
    steps = rng.randrange(10, 60) if backend == "gpu" else rng.randrange(20, 300)
    p["fishCount"] = fish
    if kinds and fish > 0:
        p["leaders"] = rng.randrange(0, fish + 1) if rng.random() < 0.2 else rng.randrange(0, 4)
        p["leaders"] = min(p["leaders"], fish)
        p["predators"] = min(rng.randrange(0, 4), fish - p["leaders"])
    else:
        p["leaders"] = p["predators"] = 0
    # The tank's faces, drawn last so that the draws above stay those of earlier seeds.
    p["boundary"] = rng.choice(["walls", "walls", "periodic", "open"])
    # A round tank and topological neighbours from a generator of their own, for the same reason.
    extra = random.Random(f"fish models {seed} {case}")
    if p["boundary"] == "walls" and extra.random() < 0.25:
        p["arena"] = "cylinder"
        p["arenaRadius"] = 0  # the smaller of bounds x and z
        p["rocks"] = []  # the box's rocks may stand across the round wall
    if extra.random() < 0.2:
        p["neighborSelection"] = "topological"
        p["neighborCount"] = extra.randrange(1, 65)
    # Burst-and-coast fish, on about a tenth of the scenes: at most 5,000 fish, no leaders or
    # predators, their kicks' keys drawn within their rules.
    bursts = random.Random(f"burst and coast {seed} {case}")
    if bursts.random() < 0.1:
        p["steering"] = "burst-and-coast"
        # Each kick reads the whole school: a few hundred fish keep a scene to seconds.
        p["fishCount"] = fish = min(fish, 100 if backend == "gpu" else 200)
        p["leaders"] = p["predators"] = 0
        p["neighborSelection"] = bursts.choice(["metric", "topological", "influential"])
        p["neighborCount"] = bursts.randrange(1, 65)
        p["kickTau0"] = log_uniform(bursts, 0.05, 5.0)
        # At least a tenth of a step: at most ten kicks a fish a step.
        p["kickDurationMin"] = max(log_uniform(bursts, 0.01, 1.0), 0.1 * dt)
        p["kickDurationMean"] = p["kickDurationMin"] * bursts.uniform(1.1, 5.0)
        p["kickSpeedMin"] = bursts.uniform(0.0, 0.1) * max_velocity
        p["kickSpeedMax"] = p["kickSpeedMin"] + bursts.uniform(0.1, 0.9) * max_velocity
        p["kickSpeedMean"] = log_uniform(bursts, 0.01, 2.0) * max_velocity
        for key in ("gammaWall", "gammaRandom", "gammaAttraction", "gammaAlignment"):
            p[key] = bursts.choice([0.0, bursts.uniform(0.0, 2.0), 100.0])
    return p, fish, steps, backend


def write(path, params):
    with open(path, "w") as f:
        json.dump(params, f, indent=2)
        f.write("\n")


def main():
    seed, case, backends, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3].split(","), sys.argv[4]
    p, fish, steps, backend = scene(seed, case, backends)
    write(out, p)
    # Its own generator, so that the scenes themselves stay those of the runs recorded before.
    change = random.Random(f"change {seed} {case}")
    if change.random() >= 1 / 3:
        print(fish, steps, backend)
        return
    # Another scene's parameters (case 10**12 + CASE's), on the same backend.
    after, fish_after, _, _ = scene(seed, 10**12 + case, backends, backend)
    at = change.randrange(0, steps + 1)
    write(out[:-len(".json")] + ".change.json" if out.endswith(".json") else out + ".change.json",
          after)
    print(fish, steps, backend, at, fish_after)


if __name__ == "__main__":
    main()
