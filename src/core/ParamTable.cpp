#include "ParamTable.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "Messages.h"

namespace fishschool {
namespace {

constexpr const char* kBehaviour = "Behaviour";
constexpr const char* kSchool = "School";
constexpr const char* kTargetAndAvoidance = "Target and avoidance";
constexpr const char* kTank = "Tank and rocks";
constexpr const char* kSteering = "Steering, leaders and predators";
constexpr const char* kSpecies = "Species";
constexpr const char* kBurst = "Burst and coast";

/// Read by the steerings of weighted forces only (docs/model.md: couzin and vicsek replace them).
constexpr SteeringSet kForces = steeringBit(Steering::Article) | steeringBit(Steering::Reynolds);
/// Read by those and by couzin's zones, not by vicsek, which reads rAlignment alone.
constexpr SteeringSet kZones = kForces | steeringBit(Steering::Couzin);
/// Read by the steerings that turn every step: all but burst-and-coast, which turns at kicks.
constexpr SteeringSet kEveryStep = kEverySteering & ~steeringBit(Steering::BurstAndCoast);
/// Read by burst-and-coast alone.
constexpr SteeringSet kBursts = steeringBit(Steering::BurstAndCoast);

/// A slider of the panel.
constexpr PanelPlace slider(const char* section, const char* label, float low, float high,
                            const char* format = "%.3f", bool logarithmic = false) {
    return {Widget::Table, section, label, low, high, format, logarithmic, nullptr};
}

/// A checkbox or a combo of the panel.
constexpr PanelPlace control(const char* section, const char* label) {
    return {Widget::Table, section, label};
}

/// Drawn by its section's own code.
constexpr PanelPlace custom(const char* section, const char* label) {
    return {Widget::Custom, section, label};
}

Result<void> refuse(const std::string& key, const std::string& value, const std::string& rule);
Result<void> minVelocityRule(const SimParams& p);
Result<void> kindsRule(const SimParams& p);
Result<void> preferredRule(const SimParams& p);
Result<void> speciesRule(const SimParams& p);
Result<void> arenaRule(const SimParams& p);
Result<void> stateRule(const SimParams& p);
Result<void> burstRule(const SimParams& p);

// clang-format off
constexpr ParamInfo kParams[] = {
    {.key = "fishCount", .field = &SimParams::fishCount,
     .panel = custom(kSchool, "fish"),
     .help = "Drag to change the fish count: adding or removing fish keeps the others."},
    {.key = "seed", .field = &SimParams::seed,
     .help = "Seed of the initial school; the same seed gives the same school on every machine."},
    {.key = "dt", .field = &SimParams::dt, .unit = "s", .rule = NumberRule::Positive,
     .stepSlot = FISHSCHOOL_STEP_SLOT(STEP_DT),
     .panel = slider(kBehaviour, "dt (s)", 0.001f, 0.1f, "%.4f", true),
     .help = "The fixed time step of the simulation."},
    {.key = "kCohesion", .field = &SimParams::kCohesion, .unit = "m/s²",
     .rule = NumberRule::Weight,
     .stepSlot = FISHSCHOOL_STEP_SLOT(STEP_K_COHESION),
     .panel = slider(kBehaviour, "kCohesion", -5.0f, 5.0f),
     .help = "Weight of the steer toward the centre of the neighbours within rCohesion (negative "
             "pushes apart).",
     .perFish = true,
     .steerings = kForces},
    {.key = "kSeparation", .field = &SimParams::kSeparation, .unit = "m/s²",
     .rule = NumberRule::Weight, .stepSlot = FISHSCHOOL_STEP_SLOT(STEP_K_SEPARATION),
     .panel = slider(kBehaviour, "kSeparation", -5.0f, 5.0f),
     .help = "Weight of the steer away from the neighbours within rSeparation.",
     .perFish = true,
     .steerings = kForces},
    {.key = "kAlignment", .field = &SimParams::kAlignment, .unit = "m/s²",
     .rule = NumberRule::Weight, .stepSlot = FISHSCHOOL_STEP_SLOT(STEP_K_ALIGNMENT),
     .panel = slider(kBehaviour, "kAlignment", -5.0f, 5.0f),
     .help = "Weight of the steer along the mean velocity of the neighbours within rAlignment.",
     .perFish = true,
     .steerings = kForces},
    {.key = "rCohesion", .field = &SimParams::rCohesion, .unit = "m", .rule = NumberRule::Distance,
     .panel = slider(kBehaviour, "rCohesion (m)", 0.0f, 30.0f),
     .help = "Cohesion radius. The largest radius sets the grid's cells: larger costs more per "
             "step. Burst-and-coast: how far a fish heeds the others.",
     .perFish = true,
     .steerings = kZones | kBursts},
    {.key = "rSeparation", .field = &SimParams::rSeparation, .unit = "m",
     .rule = NumberRule::Distance, .panel = slider(kBehaviour, "rSeparation (m)", 0.0f, 30.0f),
     .help = "Separation radius: how close is too close.",
     .perFish = true,
     .steerings = kZones},
    {.key = "rAlignment", .field = &SimParams::rAlignment, .unit = "m",
     .rule = NumberRule::Distance, .panel = slider(kBehaviour, "rAlignment (m)", 0.0f, 30.0f),
     .help = "Alignment radius: how far a fish follows the others' heading.",
     .perFish = true,
     .steerings = kEveryStep},
    {.key = "maxAcceleration", .field = &SimParams::maxAcceleration, .unit = "m/s²",
     .rule = NumberRule::Limit, .stepSlot = FISHSCHOOL_STEP_SLOT(STEP_MAX_ACCELERATION),
     .panel = slider(kBehaviour, "maxAcceleration (m/s2)", 0.01f, 50.0f, "%.2f", true),
     .help = "Limit on the steering: how fast a fish can turn.",
     .perFish = true,
     .steerings = kForces},
    {.key = "maxVelocity", .field = &SimParams::maxVelocity, .unit = "m/s",
     .rule = NumberRule::Limit, .stepSlot = FISHSCHOOL_STEP_SLOT(STEP_MAX_VELOCITY),
     .panel = slider(kBehaviour, "maxVelocity (m/s)", 0.01f, 50.0f, "%.2f", true),
     .help = "Top speed.",
     .perFish = true,
     .steerings = kEveryStep},
    {.key = "bounds", .field = &SimParams::bounds, .unit = "m", .rule = NumberRule::Limit,
     .panel = slider(kTank, "bounds (m)", 1.0f, 500.0f, "%.1f", true),
     .help = "Half extents of the tank (x, y up, z). Fish outside a smaller tank are moved "
             "inside."},
    {.key = "boundary", .field = choiceOf<&SimParams::boundary>(kBoundaryNames),
     .panel = control(kTank, "boundary"),
     .help = "walls: fish are reflected back inside; periodic: a fish leaving by a face comes in "
             "by the opposite one, and neighbours and rocks are seen across the faces; open: no "
             "walls, the school swims anywhere."},
    {.key = "arena", .field = choiceOf<&SimParams::arena>(kArenaNames),
     .panel = control(kTank, "arena"),
     .help = "box: the tank is the box of bounds; cylinder: a round tank of radius arenaRadius "
             "about the vertical axis, as tall as the box (boundary walls only)."},
    {.key = "arenaRadius", .field = &SimParams::arenaRadius, .unit = "m",
     .rule = NumberRule::Distance, .crossRule = arenaRule,
     .panel = slider(kTank, "arenaRadius (m)", 0.0f, 500.0f, "%.2f"),
     .help = "Radius of the round tank (arena cylinder); 0 takes the smaller of bounds x and z."},
    {.key = "dimensions", .field = &SimParams::dimensions, .rule = NumberRule::Interval,
     .low = 2.0f, .high = 3.0f, .panel = slider(kTank, "dimensions", 2.0f, 3.0f),
     .help = "3: fish swim in the whole tank; 2: a flat school in the plane y = 0 (steering as "
             "lockVerticalSteering)."},
    {.key = "lockVerticalSteering", .field = &SimParams::lockVerticalSteering,
     .panel = control(kBehaviour, "lockVerticalSteering"),
     .help = "Fish steer only horizontally, as in the article."},
    {.key = "viewAngle", .field = &SimParams::viewAngle, .unit = "degrees",
     .rule = NumberRule::Interval, .low = 0.0f, .high = 360.0f, .lowIncluded = false,
     .panel = slider(kBehaviour, "viewAngle (deg)", 1.0f, 360.0f, "%.0f"),
     .help = "Field of view: a fish sees neighbours only within this cone around its heading. "
             "360 sees all around.",
     .perFish = true,
     .steerings = kEveryStep},
    {.key = "kTarget", .field = &SimParams::kTarget, .unit = "m/s²", .rule = NumberRule::Weight,
     .panel = slider(kTargetAndAvoidance, "kTarget", -5.0f, 5.0f),
     .help = "Steer toward the target (the green ball); below 0, away from it (red).",
     .steerings = kForces},
    {.key = "target", .field = &SimParams::target, .unit = "m", .rule = NumberRule::Finite,
     .panel = custom(kTargetAndAvoidance, "target (m)"),
     .help = "The point the school seeks.",
     .steerings = kForces},
    {.key = "targetPath", .field = choiceOf<&SimParams::targetPath>(kTargetPathNames),
     .panel = control(kTargetAndAvoidance, "way to the target"),
     .help = "straight: at the target through anything; flow-field: along the shortest way "
             "through the water, around the rocks.",
     .steerings = kForces},
    {.key = "kAvoidance", .field = &SimParams::kAvoidance, .unit = "m/s²",
     .rule = NumberRule::Weight, .stepSlot = FISHSCHOOL_STEP_SLOT(STEP_K_AVOIDANCE),
     .panel = slider(kTargetAndAvoidance, "kAvoidance", -5.0f, 5.0f),
     .help = "Steer away from rocks before touching them (0: only the bounce on contact).",
     .steerings = kForces},
    {.key = "avoidanceDistance", .field = &SimParams::avoidanceDistance, .unit = "m",
     .rule = NumberRule::Distance, .stepSlot = FISHSCHOOL_STEP_SLOT(STEP_AVOIDANCE_DISTANCE),
     .panel = slider(kTargetAndAvoidance, "avoidanceDistance (m)", 0.0f, 30.0f),
     .help = "How far from a rock's surface the avoidance starts.",
     .steerings = kForces},
    {.key = "minVelocity", .field = &SimParams::minVelocity, .unit = "m/s",
     .crossRule = minVelocityRule, .stepSlot = FISHSCHOOL_STEP_SLOT(STEP_MIN_VELOCITY),
     .panel = {Widget::Table, kSteering, "minVelocity (m/s)", 0.0f, 0.0f, "%.3f", false,
               [](const SimParams& p) { return p.maxVelocity; }},
     .help = "A slower fish is sped up to this speed after each step (0: off).",
     .perFish = true,
     .steerings = kForces},
    {.key = "noise", .field = &SimParams::noise, .unit = "radians", .rule = NumberRule::Interval,
     .low = 0.0f, .high = 10.0f, .stepSlot = FISHSCHOOL_STEP_SLOT(STEP_NOISE),
     .panel = slider(kSteering, "noise (rad)", 0.0f, 1.0f),
     .help = "Standard deviation of the random turn of each fish at each step (steering vicsek: "
             "the width of its uniform interval).",
     .steerings = kEveryStep},
    {.key = "steering", .field = choiceOf<&SimParams::steering>(kSteeringNames),
     .panel = control(kSteering, "steering"),
     .help = "reynolds: each rule steers from the velocity toward the desired one (direction * "
             "maxVelocity), at most maxAcceleration. couzin: Couzin et al. 2002, repulsion first, "
             "constant speed maxVelocity, turns of at most maxTurnRate. vicsek: Vicsek et al. "
             "1995, the mean heading within rAlignment plus a random angle within +-noise/2, "
             "constant speed maxVelocity."},
    {.key = "maxTurnRate", .field = &SimParams::maxTurnRate, .unit = "degrees/s",
     .rule = NumberRule::Limit, .panel = slider(kSteering, "maxTurnRate (deg/s)", 1.0f, 720.0f),
     .help = "Steering couzin: how fast a fish turns toward its desired direction.",
     .perFish = true,
     .steerings = steeringBit(Steering::Couzin)},
    {.key = "separationFalloff",
     .field = choiceOf<&SimParams::separationFalloff>(kSeparationFalloffNames),
     .panel = control(kSteering, "separation falloff"),
     .help = "inverse-square: each neighbour's push is weighted by 1/d^2, the nearest most.",
     .steerings = kForces},
    {.key = "combine", .field = choiceOf<&SimParams::combine>(kCombineNames),
     .panel = control(kSteering, "combine"),
     .help = "prioritized: avoidance, fleeing, separation, target, leader, alignment, cohesion, "
             "until maxAcceleration is spent.",
     .steerings = kForces},
    {.key = "avoidance", .field = choiceOf<&SimParams::avoidance>(kAvoidanceNames),
     .panel = control(kSteering, "avoidance"),
     .help = "rays: when a rock lies ahead within avoidanceDistance, steer toward the first free "
             "direction round the heading (needs kAvoidance).",
     .steerings = kForces},
    {.key = "leaders", .field = &SimParams::leaders, .panel = custom(kSteering, "leaders"),
     .help = "The first fish lead (gold): they ignore the flock and swim on or seek the target.",
     .steerings = kForces},
    {.key = "kLeader", .field = &SimParams::kLeader, .unit = "m/s²", .rule = NumberRule::Weight,
     .stepSlot = FISHSCHOOL_STEP_SLOT(STEP_K_LEADER),
     .panel = slider(kSteering, "kLeader", -5.0f, 5.0f),
     .help = "Steer toward the nearest leader a fish sees (within rCohesion and viewAngle).",
     .steerings = kForces},
    {.key = "predators", .field = &SimParams::predators, .crossRule = kindsRule,
     .panel = custom(kSteering, "predators"),
     .help = "The fish after the leaders hunt (magenta): they chase the nearest fish.",
     .steerings = kForces},
    {.key = "predatorMaxVelocity", .field = &SimParams::predatorMaxVelocity, .unit = "m/s",
     .rule = NumberRule::Limit, .stepSlot = FISHSCHOOL_STEP_SLOT(STEP_PREDATOR_MAX_VELOCITY),
     .panel = slider(kSteering, "predatorMaxVelocity (m/s)", 0.01f, 50.0f, "%.2f", true),
     .help = "The predators' speed limit.",
     .steerings = kForces},
    {.key = "kFlee", .field = &SimParams::kFlee, .unit = "m/s²", .rule = NumberRule::Weight,
     .stepSlot = FISHSCHOOL_STEP_SLOT(STEP_K_FLEE),
     .panel = slider(kSteering, "kFlee", -10.0f, 10.0f),
     .help = "Steer away from predators within fleeRadius, more the closer they are.",
     .steerings = kForces},
    {.key = "fleeRadius", .field = &SimParams::fleeRadius, .unit = "m",
     .rule = NumberRule::Distance, .stepSlot = FISHSCHOOL_STEP_SLOT(STEP_FLEE_RADIUS),
     .panel = slider(kSteering, "fleeRadius (m)", 0.0f, 40.0f),
     .help = "How near a predator must be for a fish to flee it.",
     .steerings = kForces},
    {.key = "rocks", .field = &SimParams::rocks, .unit = "m", .panel = custom(kTank, "rocks"),
     .help = "Static spheres, each {\"center\": [x, y, z], \"radius\": r}."},
    {.key = "neighborSearch", .field = choiceOf<&SimParams::neighborSearch>(kNeighborSearchNames),
     .panel = control(kSchool, "neighbours"),
     .help = "all-pairs: every fish tests every other (the article's, O(N^2)); grid: only nearby "
             "cells (O(N)). Both find the same neighbours."},
    {.key = "neighborSelection",
     .field = choiceOf<&SimParams::neighborSelection>(kNeighborSelectionNames),
     .panel = control(kSchool, "neighbour selection"),
     .help = "metric: every fish within each rule's radius; topological: the neighborCount "
             "nearest within the largest radius (as starlings heed their 6 or 7 nearest); "
             "influential (burst-and-coast): the neighborCount that turn the fish most."},
    {.key = "neighborCount", .field = &SimParams::neighborCount, .rule = NumberRule::Interval,
     .low = 1.0f, .high = 64.0f, .panel = slider(kSchool, "neighbours heeded", 1.0f, 64.0f),
     .help = "How many neighbours a fish heeds (neighbour selection topological or influential)."},
    {.key = "kickTau0", .field = &SimParams::kickTau0, .unit = "s", .rule = NumberRule::Limit,
     .stepSlot = FISHSCHOOL_STEP_SLOT(STEP_KICK_TAU0),
     .panel = slider(kBurst, "glide decay (s)", 0.05f, 5.0f, "%.2f", true),
     .help = "Between kicks a fish glides straight, its speed falling by a factor e in this time.",
     .steerings = kBursts},
    {.key = "kickDurationMin", .field = &SimParams::kickDurationMin, .unit = "s",
     .rule = NumberRule::Limit, .stepSlot = FISHSCHOOL_STEP_SLOT(STEP_KICK_DURATION_MIN),
     .panel = slider(kBurst, "shortest kick (s)", 0.01f, 2.0f, "%.2f", true),
     .help = "The shortest time from one kick to the next.", .steerings = kBursts},
    {.key = "kickDurationMean", .field = &SimParams::kickDurationMean, .unit = "s",
     .rule = NumberRule::Limit, .stepSlot = FISHSCHOOL_STEP_SLOT(STEP_KICK_DURATION_MEAN),
     .panel = slider(kBurst, "mean kick (s)", 0.02f, 5.0f, "%.2f", true),
     .help = "The mean time from one kick to the next (more than the shortest).",
     .steerings = kBursts},
    {.key = "kickSpeedMin", .field = &SimParams::kickSpeedMin, .unit = "m/s",
     .rule = NumberRule::Distance, .stepSlot = FISHSCHOOL_STEP_SLOT(STEP_KICK_SPEED_MIN),
     .panel = slider(kBurst, "slowest kick (m/s)", 0.0f, 1.0f),
     .help = "The least peak speed of a kick.", .steerings = kBursts},
    {.key = "kickSpeedMean", .field = &SimParams::kickSpeedMean, .unit = "m/s",
     .rule = NumberRule::Limit, .stepSlot = FISHSCHOOL_STEP_SLOT(STEP_KICK_SPEED_MEAN),
     .panel = slider(kBurst, "kick speed (m/s)", 0.01f, 2.0f),
     .help = "A kick's peak speed above the slowest, on average before the cut at the fastest.",
     .steerings = kBursts},
    {.key = "kickSpeedMax", .field = &SimParams::kickSpeedMax, .unit = "m/s",
     .rule = NumberRule::Limit, .crossRule = burstRule,
     .stepSlot = FISHSCHOOL_STEP_SLOT(STEP_KICK_SPEED_MAX),
     .panel = slider(kBurst, "fastest kick (m/s)", 0.01f, 2.0f),
     .help = "No kick is faster: a faster draw is drawn again.", .steerings = kBursts},
    {.key = "gammaWall", .field = &SimParams::gammaWall, .unit = "radians",
     .rule = NumberRule::Weight, .stepSlot = FISHSCHOOL_STEP_SLOT(STEP_GAMMA_WALL),
     .panel = slider(kBurst, "wall turn (rad)", 0.0f, 1.0f),
     .help = "How strongly a kick turns a fish away from a near wall.", .steerings = kBursts},
    {.key = "wallLength", .field = &SimParams::wallLength, .unit = "m", .rule = NumberRule::Limit,
     .stepSlot = FISHSCHOOL_STEP_SLOT(STEP_WALL_LENGTH),
     .panel = slider(kBurst, "wall range (m)", 0.005f, 0.5f, "%.3f", true),
     .help = "How far the wall is felt (its turn falls as exp(-(distance / range)^2)).",
     .steerings = kBursts},
    {.key = "wallCos2", .field = &SimParams::wallCos2, .rule = NumberRule::Weight,
     .stepSlot = FISHSCHOOL_STEP_SLOT(STEP_WALL_COS2),
     .panel = slider(kBurst, "wall angle shape", -1.0f, 1.0f),
     .help = "The wall's turn by the angle to it: sin(theta) (1 + this cos(2 theta)).",
     .steerings = kBursts},
    {.key = "gammaRandom", .field = &SimParams::gammaRandom, .unit = "radians",
     .rule = NumberRule::Weight, .stepSlot = FISHSCHOOL_STEP_SLOT(STEP_GAMMA_RANDOM),
     .panel = slider(kBurst, "random turn (rad)", 0.0f, 2.0f),
     .help = "The spread of a kick's random turn.", .steerings = kBursts},
    {.key = "alphaWall", .field = &SimParams::alphaWall, .rule = NumberRule::Weight,
     .stepSlot = FISHSCHOOL_STEP_SLOT(STEP_ALPHA_WALL),
     .panel = slider(kBurst, "calmer at the wall", 0.0f, 1.0f),
     .help = "How much less a fish turns at random near the wall (0: no less).",
     .steerings = kBursts},
    {.key = "gammaAttraction", .field = &SimParams::gammaAttraction, .unit = "radians",
     .rule = NumberRule::Weight, .stepSlot = FISHSCHOOL_STEP_SLOT(STEP_GAMMA_ATTRACTION),
     .panel = slider(kBurst, "attraction", 0.0f, 1.0f),
     .help = "How strongly a kick turns a fish toward a neighbour.", .steerings = kBursts},
    {.key = "attractionD0", .field = &SimParams::attractionD0, .unit = "m",
     .rule = NumberRule::Distance, .stepSlot = FISHSCHOOL_STEP_SLOT(STEP_ATTRACTION_D0),
     .panel = slider(kBurst, "attraction from (m)", 0.0f, 0.2f),
     .help = "Closer than this a neighbour repels rather than attracts.", .steerings = kBursts},
    {.key = "attractionScale", .field = &SimParams::attractionScale, .unit = "m",
     .rule = NumberRule::Limit, .stepSlot = FISHSCHOOL_STEP_SLOT(STEP_ATTRACTION_SCALE),
     .panel = slider(kBurst, "attraction scale (m)", 0.005f, 0.5f, "%.3f", true),
     .help = "The distance over which attraction grows by gammaAttraction.",
     .steerings = kBursts},
    {.key = "attractionLength", .field = &SimParams::attractionLength, .unit = "m",
     .rule = NumberRule::Limit, .stepSlot = FISHSCHOOL_STEP_SLOT(STEP_ATTRACTION_LENGTH),
     .panel = slider(kBurst, "attraction range (m)", 0.01f, 2.0f, "%.2f", true),
     .help = "Beyond about this distance attraction fades.", .steerings = kBursts},
    {.key = "gammaAlignment", .field = &SimParams::gammaAlignment, .unit = "radians",
     .rule = NumberRule::Weight, .stepSlot = FISHSCHOOL_STEP_SLOT(STEP_GAMMA_ALIGNMENT),
     .panel = slider(kBurst, "alignment", 0.0f, 1.0f),
     .help = "How strongly a kick turns a fish to a neighbour's heading.", .steerings = kBursts},
    {.key = "alignmentLength", .field = &SimParams::alignmentLength, .unit = "m",
     .rule = NumberRule::Limit, .stepSlot = FISHSCHOOL_STEP_SLOT(STEP_ALIGNMENT_LENGTH),
     .panel = slider(kBurst, "alignment range (m)", 0.01f, 2.0f, "%.2f", true),
     .help = "Beyond about this distance alignment fades.", .steerings = kBursts},
    {.key = "groupDistance", .field = &SimParams::groupDistance, .unit = "m",
     .rule = NumberRule::Distance,
     .panel = slider(kSchool, "group distance (m)", 0.0f, 60.0f),
     .help = "The groups measure: fish closer than this are in one group, as are fish linked by "
             "chains of such pairs. 0 takes rCohesion."},
    {.key = "stateHigh", .field = &SimParams::stateHigh, .rule = NumberRule::Interval,
     .low = 0.0f, .high = 1.0f,
     .help = "The state measure: an order (polarization or rotation) above this is high."},
    {.key = "stateLow", .field = &SimParams::stateLow, .crossRule = stateRule,
     .help = "The state measure: an order below this is low (swarm: both low)."},
    {.key = "mass", .field = &SimParams::mass, .unit = "kg", .rule = NumberRule::Limit,
     .stepSlot = FISHSCHOOL_STEP_SLOT(STEP_MASS),
     .panel = slider(kSpecies, "mass (kg)", 0.01f, 100.0f, "%.2f", true),
     .help = "A fish's mass: its kinetic energy for separation scaled by kinetic energy.",
     .perFish = true,
     .steerings = kZones},
    {.key = "bodyLength", .field = &SimParams::bodyLength, .unit = "m", .rule = NumberRule::Limit,
     .panel = slider(kSpecies, "bodyLength (m)", 0.1f, 10.0f, "%.2f", true),
     .help = "A fish's length as drawn.", .perFish = true},
    {.key = "separationScaling",
     .field = choiceOf<&SimParams::separationScaling>(kSeparationScalingNames),
     .panel = control(kSpecies, "separation scaling"),
     .help = "kinetic-energy: each neighbour's push is scaled by its kinetic energy over the "
             "fish's own, so small, slow fish give way to big, fast ones.",
     .steerings = kZones},
    {.key = "kSidestep", .field = &SimParams::kSidestep, .unit = "m/s²",
     .rule = NumberRule::Weight, .stepSlot = FISHSCHOOL_STEP_SLOT(STEP_K_SIDESTEP),
     .panel = slider(kSpecies, "kSidestep", -5.0f, 5.0f),
     .help = "Steer sideways, across the heading, away from neighbours within rSeparation that "
             "close in.",
     .perFish = true,
     .steerings = kForces},
    {.key = "schoolsWith", .field = choiceOf<&SimParams::schoolsWith>(kSchoolsWithNames),
     .panel = control(kSpecies, "schools with"),
     .help = "own: cohesion and alignment count only fish of the same species (separation "
             "counts every fish).",
     .perFish = true},
    {.key = "preferredDirection", .field = &SimParams::preferredDirection,
     .rule = NumberRule::Finite, .crossRule = preferredRule,
     .panel = slider(kSpecies, "preferred direction", -1.0f, 1.0f),
     .help = "Informed fish (Couzin et al. 2005): the way they would go alone.", .perFish = true,
     .steerings = kZones},
    {.key = "kPreferred", .field = &SimParams::kPreferred, .rule = NumberRule::Weight,
     .panel = slider(kSpecies, "kPreferred", 0.0f, 5.0f),
     .help = "Weight of the preferred direction (the paper's omega); 0: not informed.",
     .perFish = true,
     .steerings = kZones},
    {.key = "species", .field = &SimParams::species, .crossRule = speciesRule,
     .panel = custom(kSpecies, "species"),
     .help = "Kinds of fish, each with a name, a count, a colour and the per-fish keys it sets."},
    {.key = "startRadius", .field = &SimParams::startRadius, .unit = "m",
     .rule = NumberRule::Distance,
     .help = "A new school starts in the ball of this radius about the tank's centre (0: the "
             "whole tank)."},
};
// clang-format on

std::string vec3Text(const glm::vec3& v) {
    std::string text = "[";
    text += formatNumber(v.x);
    text += ", ";
    text += formatNumber(v.y);
    text += ", ";
    text += formatNumber(v.z);
    text += "]";
    return text;
}

Result<void> refuse(const std::string& key, const std::string& value, const std::string& rule) {
    return fail(key + ": " + value + " is not allowed; " + rule);
}

/// docs/model.md's largest weight, limit and bound: so that no sum of the step can overflow a
/// float.
constexpr float kLargestMagnitude = 1e6f;

/// What `rule` says of a number, or "" when `value` follows it; `every` words it for an array
/// ("every component must ...").
std::string broken(NumberRule rule, const ParamInfo& info, float value, bool every) {
    const std::string must = every ? "every component must " : "must ";
    const bool finite = std::isfinite(value);
    switch (rule) {
        case NumberRule::Finite:
            return finite ? "" : must + "be finite";
        case NumberRule::Weight:
            if (!finite) return must + "be finite";
            return std::abs(value) > kLargestMagnitude ? "its size must be at most 1e6" : "";
        case NumberRule::Positive:
        case NumberRule::Limit:
            if (!finite || value <= 0.0f) return must + "be finite and > 0";
            if (rule == NumberRule::Limit && std::abs(value) > kLargestMagnitude)
                return every ? must + "be at most 1e6" : "its size must be at most 1e6";
            return "";
        case NumberRule::Distance:
            return finite && value >= 0.0f ? "" : must + "be finite and >= 0";
        case NumberRule::Interval: {
            const bool aboveLow = info.lowIncluded ? value >= info.low : value > info.low;
            if (finite && aboveLow && value <= info.high) return "";
            return must + "be finite, " + (info.lowIncluded ? ">= " : "> ") +
                   formatNumber(info.low) + " and <= " + formatNumber(info.high) + " " + info.unit;
        }
    }
    return "";
}

Result<void> minVelocityRule(const SimParams& p) {
    if (!std::isfinite(p.minVelocity) || p.minVelocity < 0.0f || p.minVelocity > p.maxVelocity)
        return refuse(
            "minVelocity", formatNumber(p.minVelocity),
            "must be finite, >= 0 and <= maxVelocity (" + formatNumber(p.maxVelocity) + ")");
    return {};
}

Result<void> kindsRule(const SimParams& p) {
    if (p.leaders + p.predators > p.fishCount)
        return fail("leaders + predators: " + std::to_string(p.leaders) + " + " +
                    std::to_string(p.predators) + " is not allowed; must be at most fishCount (" +
                    std::to_string(p.fishCount) + ")");
    return {};
}

Result<void> preferredRule(const SimParams& p) {
    if (p.kPreferred != 0.0f && geometry().normalizeOrZero(p.preferredDirection) == glm::vec3(0.0f))
        return refuse("preferredDirection", vec3Text(p.preferredDirection),
                      "must have a direction (not [0, 0, 0]) while kPreferred is not 0");
    return {};
}

bool printableName(const std::string& name) {
    return !name.empty() && name.size() <= 64 && std::all_of(name.begin(), name.end(), [](char c) {
        return static_cast<unsigned char>(c) >= 0x20 && c != 0x7f;
    });
}

Result<void> speciesRule(const SimParams& p) {
    if (p.species.empty()) return {};
    if (p.species.size() > kMaxSpecies)
        return fail("species: " + std::to_string(p.species.size()) +
                    " species are not allowed; at most " + std::to_string(kMaxSpecies) +
                    " (the GPU's table of species holds " + std::to_string(kMaxSpecies) + ")");
    std::int64_t total = 0;
    for (std::size_t s = 0; s < p.species.size(); ++s) {
        const Species& species = p.species[s];
        const std::string where = "species[" + std::to_string(s) + "]";
        if (!printableName(species.name))
            return refuse(where + ".name", quote(species.name, 40),
                          "must be 1 to 64 printable characters");
        const std::string named = where + " (" + quote(species.name, 40) + ")";
        for (std::size_t other = 0; other < s; ++other)
            if (p.species[other].name == species.name)
                return fail(named + ": the name is given to species[" + std::to_string(other) +
                            "] too; give each species its own name");
        if (species.count < 0 || species.count > kMaxFishCount)
            return refuse(named + ".count", std::to_string(species.count),
                          "must be an integer from 0 to " + std::to_string(kMaxFishCount));
        total += species.count;
        for (int k = 0; k < 3; ++k)
            if (!(species.color[k] >= 0.0f && species.color[k] <= 1.0f))
                return refuse(named + ".color", vec3Text(species.color),
                              "every component must be from 0 to 1");
        for (std::size_t k = 0; k < species.settings.size(); ++k) {
            const SpeciesSetting& setting = species.settings[k];
            const ParamInfo* info = findParam(setting.key);
            if (!info || !info->perFish)
                return fail(named + ": key " + quote(setting.key, 40) +
                            " is not a key a species sets; a species sets name, count, color "
                            "and the per-fish keys (docs/config.md)");
            for (std::size_t before = 0; before < k; ++before)
                if (species.settings[before].key == setting.key)
                    return fail(named + ": key " + quote(setting.key, 40) +
                                " is given twice; give each key once");
            if (const auto* choice = std::get_if<ChoiceField>(&info->field))
                if (setting.choice < 0 || setting.choice >= static_cast<int>(choice->names.size()))
                    return fail(named + ": key " + quote(setting.key, 40) + ": no such choice");
        }
        // Every rule of the config, for the values this species' fish step with.
        if (auto ok = validate(paramsOfSpecies(p, s)); !ok) return fail(named + ": " + ok.error());
    }
    if (total != p.fishCount)
        return fail("species: the counts add up to " + std::to_string(total) +
                    ", which is not allowed; they must add up to fishCount (" +
                    std::to_string(p.fishCount) + ")");
    return {};
}

Result<void> arenaRule(const SimParams& p) {
    if (!std::isfinite(p.arenaRadius) || p.arenaRadius < 0.0f)
        return refuse("arenaRadius", formatNumber(p.arenaRadius), "must be finite and >= 0");
    if (p.arena != Arena::Cylinder) return {};
    if (p.boundary != Boundary::Walls)
        return fail("arena: \"cylinder\" with boundary \"" + std::string(toString(p.boundary)) +
                    "\" is not allowed; a round tank has walls (boundary \"walls\")");
    const float largest = std::min(p.bounds.x, p.bounds.z);
    if (!(p.arenaRadius <= largest))
        return refuse(
            "arenaRadius", formatNumber(p.arenaRadius),
            "the round tank must fit in the box: at most the smaller of bounds x and z (" +
                formatNumber(largest) + "); 0 takes that");
    return {};
}

Result<void> stateRule(const SimParams& p) {
    if (!(p.stateLow >= 0.0f && p.stateLow < p.stateHigh))
        return refuse("stateLow", formatNumber(p.stateLow),
                      "must be >= 0 and below stateHigh (" + formatNumber(p.stateHigh) + ")");
    return {};
}

Result<void> burstRule(const SimParams& p) {
    // A number with a cross rule is checked by it alone (checkParam): the key's own rule first.
    const ParamInfo& fastest = *findParam("kickSpeedMax");
    if (auto rule = broken(fastest.rule, fastest, p.kickSpeedMax, false); !rule.empty())
        return refuse(fastest.key, formatNumber(p.kickSpeedMax), rule);
    if (!(p.kickSpeedMax > p.kickSpeedMin))
        return refuse("kickSpeedMax", formatNumber(p.kickSpeedMax),
                      "must be above kickSpeedMin (" + formatNumber(p.kickSpeedMin) +
                          "): no kick could be drawn");
    if (!(p.kickDurationMean > p.kickDurationMin))
        return refuse("kickDurationMean", formatNumber(p.kickDurationMean),
                      "must be above kickDurationMin (" + formatNumber(p.kickDurationMin) + ")");
    if (p.neighborSelection == NeighborSelection::Influential &&
        p.steering != Steering::BurstAndCoast)
        return fail("neighborSelection: \"influential\" with steering \"" +
                    std::string(toString(p.steering)) +
                    "\" is not allowed; a neighbour's influence is its turn at a kick (steering "
                    "\"burst-and-coast\")");
    // Each kick reads the whole school, and a fish kicks every half second or so: the cost of a
    // step grows as the square of the school.
    constexpr std::int64_t kMostBurstingFish = 5000;
    if (p.steering == Steering::BurstAndCoast && p.fishCount > kMostBurstingFish)
        return fail("fishCount: " + std::to_string(p.fishCount) +
                    " is not allowed with steering \"burst-and-coast\"; at most " +
                    std::to_string(kMostBurstingFish) +
                    " (each kick reads the whole school, as in the experiments' small groups)");
    // A step moves a fish at most kickSpeedMax * dt: the tank's and the rocks' gaps are checked
    // against maxVelocity * dt.
    if (p.steering == Steering::BurstAndCoast && p.kickSpeedMax > p.maxVelocity)
        return refuse("kickSpeedMax", formatNumber(p.kickSpeedMax),
                      "must be at most maxVelocity (" + formatNumber(p.maxVelocity) +
                          ") with steering \"burst-and-coast\": the tank's and rocks' gaps are "
                          "checked against maxVelocity * dt");
    if (p.steering == Steering::BurstAndCoast && (p.leaders > 0 || p.predators > 0))
        return fail("steering \"burst-and-coast\" with leaders or predators is not allowed; "
                    "those steer by forces: set leaders and predators to 0");
    return {};
}

/// The smallest gaps of a tank's rocks: to the walls (as a float, as the rule reads it) and
/// between two rocks. A step length passes the rock rules when it is at most both.
struct RockGaps {
    glm::vec3 bounds{};
    std::vector<Rock> rocks;
    float wall = INFINITY;
    double pair = INFINITY;
};

/// The gaps of `p`'s rocks (finite, with radius > 0). They cost R^2 for R rocks and depend on
/// neither dt nor the speeds, so the last ones are kept (per thread): an ensemble checks up to
/// 10^7 points, mostly of one tank, and would otherwise pay R^2 a point.
const RockGaps& rockGaps(const SimParams& p) {
    thread_local RockGaps known;
    thread_local bool valid = false;
    if (valid && known.bounds == p.bounds && known.rocks == p.rocks) return known;
    RockGaps gaps{p.bounds, p.rocks};
    for (std::size_t a = 0; a < p.rocks.size(); ++a) {
        const Rock& rock = p.rocks[a];
        for (int k = 0; k < 3; ++k) {
            gaps.wall = std::min(gaps.wall, (rock.center[k] - rock.radius) + p.bounds[k]);
            gaps.wall = std::min(gaps.wall, p.bounds[k] - (rock.center[k] + rock.radius));
        }
        for (std::size_t b = a + 1; b < p.rocks.size(); ++b) {
            const glm::dvec3 offset = glm::dvec3(rock.center) - glm::dvec3(p.rocks[b].center);
            gaps.pair = std::min(gaps.pair, std::sqrt(offset.x * offset.x + offset.y * offset.y +
                                                      offset.z * offset.z) -
                                                double(rock.radius) - double(p.rocks[b].radius));
        }
    }
    known = std::move(gaps);
    valid = true;
    return known;
}

/// The tank's rules, which tie dt, the speeds, the bounds and the rocks together: a step never
/// carries a fish past a wall, and no bounce lands one in a rock.
Result<void> checkTank(const SimParams& p) {
    // The longest move of a step: a predator's, when there are predators faster than the fish.
    const bool predatorsFastest = p.predators > 0 && p.predatorMaxVelocity > p.maxVelocity;
    const std::string speedKey = predatorsFastest ? "predatorMaxVelocity" : "maxVelocity";
    const float fastest = predatorsFastest ? p.predatorMaxVelocity : p.maxVelocity;
    const float stepLength = fastest * p.dt;
    const float smallestHalfExtent = std::min({p.bounds.x, p.bounds.y, p.bounds.z});
    if (!(stepLength < smallestHalfExtent))
        return fail(speedKey + " * dt: " + formatNumber(fastest) + " * " + formatNumber(p.dt) +
                    " = " + formatNumber(stepLength) +
                    " is not allowed; must be < min(bounds) = " + formatNumber(smallestHalfExtent) +
                    " so that a reflection at a wall lands inside");

    const float radius = arenaRadiusOf(p);
    if (radius > 0.0f && !(stepLength < radius))
        return fail(speedKey + " * dt: " + formatNumber(fastest) + " * " + formatNumber(p.dt) +
                    " = " + formatNumber(stepLength) +
                    " is not allowed; must be < the round tank's radius " + formatNumber(radius) +
                    " so that a reflection at its wall lands inside");

    if (p.rocks.size() > kMaxRocks)
        return fail("rocks: " + std::to_string(p.rocks.size()) +
                    " rocks are not allowed; at most " + std::to_string(kMaxRocks));
    const auto rockKey = [](std::size_t r) { return "rocks[" + std::to_string(r) + "]"; };
    for (std::size_t r = 0; r < p.rocks.size(); ++r) {
        const Rock& rock = p.rocks[r];
        for (int k = 0; k < 3; ++k) {
            if (!std::isfinite(rock.center[k]))
                return refuse(rockKey(r) + ".center", vec3Text(rock.center), "must be finite");
        }
        if (!std::isfinite(rock.radius) || rock.radius <= 0.0f)
            return refuse(rockKey(r) + ".radius", formatNumber(rock.radius),
                          "must be finite and > 0");
    }
    // Every rock is finite. The smallest gaps are kept from the last check of these rocks; the
    // loops that name the rock that is too close run only when one is.
    const RockGaps& gaps = rockGaps(p);
    for (std::size_t r = 0; !(gaps.wall >= stepLength) && r < p.rocks.size(); ++r) {
        const Rock& rock = p.rocks[r];
        for (int k = 0; k < 3; ++k) {
            const float gapLow = (rock.center[k] - rock.radius) + p.bounds[k];
            const float gapHigh = p.bounds[k] - (rock.center[k] + rock.radius);
            if (!(gapLow >= stepLength && gapHigh >= stepLength))
                return fail(rockKey(r) + ": center " + vec3Text(rock.center) + " radius " +
                            formatNumber(rock.radius) +
                            " is not allowed; the rock must lie inside the tank " +
                            vec3Text(p.bounds) + " with a gap of at least " + speedKey +
                            " * dt = " + formatNumber(stepLength) + " to every wall");
        }
    }
    for (std::size_t r = 0; radius > 0.0f && r < p.rocks.size(); ++r) {
        const Rock& rock = p.rocks[r];
        const double fromAxis = std::sqrt(double(rock.center.x) * rock.center.x +
                                          double(rock.center.z) * rock.center.z);
        if (!(double(radius) - fromAxis - rock.radius >= double(stepLength)))
            return fail(rockKey(r) + ": center " + vec3Text(rock.center) + " radius " +
                        formatNumber(rock.radius) +
                        " is not allowed; the rock must lie inside the round tank of radius " +
                        formatNumber(radius) + " with a gap of at least " + speedKey +
                        " * dt = " + formatNumber(stepLength) + " to its wall");
    }
    // A bounce off one rock moves a fish by up to maxVelocity * dt: it must not land in another.
    if (gaps.pair >= double(stepLength)) return {};
    for (std::size_t a = 0; a < p.rocks.size(); ++a) {
        for (std::size_t b = a + 1; b < p.rocks.size(); ++b) {
            const Rock& first = p.rocks[a];
            const Rock& second = p.rocks[b];
            const glm::dvec3 offset = glm::dvec3(first.center) - glm::dvec3(second.center);
            const double gap =
                std::sqrt(offset.x * offset.x + offset.y * offset.y + offset.z * offset.z) -
                double(first.radius) - double(second.radius);
            if (!(gap >= double(stepLength)))
                return fail("rocks[" + std::to_string(a) + "] and rocks[" + std::to_string(b) +
                            "]: a gap of " + formatNumber(gap) +
                            " m is not allowed; rocks must keep a gap of at least " + speedKey +
                            " * dt = " + formatNumber(stepLength) + " m between them");
        }
    }
    return {};
}

}  // namespace

std::vector<const ParamInfo*> perFishParams() {
    std::vector<const ParamInfo*> keys;
    for (const ParamInfo& info : kParams)
        if (info.perFish) keys.push_back(&info);
    return keys;
}

void applySetting(SimParams& params, const SpeciesSetting& setting) {
    const ParamInfo* info = findParam(setting.key);
    if (!info || !info->perFish) return;
    std::visit(
        [&]<class Field>(const Field& field) {
            if constexpr (std::is_same_v<Field, float SimParams::*>) {
                params.*field = setting.number;
            } else if constexpr (std::is_same_v<Field, glm::vec3 SimParams::*>) {
                params.*field = setting.vector;
            } else if constexpr (std::is_same_v<Field, ChoiceField>) {
                if (setting.choice >= 0 && setting.choice < static_cast<int>(field.names.size()))
                    field.set(params, setting.choice);
            }
        },
        info->field);
}

SpeciesSetting settingOf(const ParamInfo& info, const SimParams& params) {
    SpeciesSetting setting{info.key};
    std::visit(
        [&]<class Field>(const Field& field) {
            if constexpr (std::is_same_v<Field, float SimParams::*>) {
                setting.number = params.*field;
            } else if constexpr (std::is_same_v<Field, glm::vec3 SimParams::*>) {
                setting.vector = params.*field;
            } else if constexpr (std::is_same_v<Field, ChoiceField>) {
                setting.choice = field.get(params);
            }
        },
        info.field);
    return setting;
}

float topSpeedOfSpecies(const SimParams& params) {
    if (params.species.empty()) return params.maxVelocity;
    float top = 0.0f;
    for (std::size_t s = 0; s < params.species.size(); ++s)
        top = std::max(top, paramsOfSpecies(params, s).maxVelocity);
    return top;
}

SimParams paramsOfSpecies(const SimParams& params, std::size_t s) {
    SimParams own = params;
    own.species.clear();
    if (s < params.species.size()) {
        for (const SpeciesSetting& setting : params.species[s].settings) applySetting(own, setting);
    }
    return own;
}

std::pair<std::int64_t, std::int64_t> wholeNumberRange(const ParamInfo& info) {
    if (info.rule == NumberRule::Interval)
        return {static_cast<std::int64_t>(info.low), static_cast<std::int64_t>(info.high)};
    return {0, kMaxFishCount};
}

std::span<const ParamInfo> paramTable() {
    return kParams;
}

const ParamInfo* findParam(std::string_view key) {
    const auto found = std::find_if(std::begin(kParams), std::end(kParams),
                                    [&](const ParamInfo& info) { return key == info.key; });
    return found == std::end(kParams) ? nullptr : &*found;
}

Result<void> checkParam(const ParamInfo& info, const SimParams& params) {
    if (const auto* number = std::get_if<float SimParams::*>(&info.field)) {
        if (info.crossRule) return {};  // its rule is the cross rule
        const float value = params.**number;
        if (auto rule = broken(info.rule, info, value, false); !rule.empty())
            return refuse(info.key, formatNumber(value), rule);
    } else if (const auto* count = std::get_if<std::int64_t SimParams::*>(&info.field)) {
        const std::int64_t value = params.**count;
        const auto [low, high] = wholeNumberRange(info);
        if (value < low || value > high)
            return refuse(
                info.key, std::to_string(value),
                "must be an integer from " + std::to_string(low) + " to " + std::to_string(high));
    } else if (const auto* point = std::get_if<glm::vec3 SimParams::*>(&info.field)) {
        const glm::vec3& value = params.**point;
        for (int k = 0; k < 3; ++k)
            if (auto rule = broken(info.rule, info, value[k], true); !rule.empty())
                return refuse(info.key, vec3Text(value), rule);
    }
    return {};
}

Result<void> validate(const SimParams& params) {
    for (const ParamInfo& info : kParams) {
        if (auto ok = checkParam(info, params); !ok) return ok;
        if (info.crossRule)
            if (auto ok = info.crossRule(params); !ok) return ok;
    }
    return checkTank(params);
}

}  // namespace fishschool
