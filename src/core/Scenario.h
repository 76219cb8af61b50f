#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "Backend.h"
#include "fishschool/Fish.h"
#include "fishschool/Result.h"
#include "fishschool/SimParams.h"

namespace fishschool {

/// The scenes shared by the app, the CLI, the tests and the benchmarks, so that what is
/// benchmarked is what is seen.

/// The initial school of params.fishCount fish, from params.seed: uniform inside the tank (a
/// margin from the walls), outside every rock, swimming at half maxVelocity in random directions.
/// The same params give the same school on every machine.
School makeInitialSchool(const SimParams& params);

/// Fish number `index` of the school that makeInitialSchool(params) would make. Lets the app grow
/// a school and keep the fish it has.
Fish makeInitialFish(const SimParams& params, std::uint64_t index);

/// Grows or shrinks `school` to `count` fish: keeps the first fish, adds fish as
/// makeInitialFish would make them. With species, each species keeps its first fish up to its
/// count (fish of no species of `params` are dropped) and gains new ones at the end.
void resizeSchool(School& school, std::size_t count, const SimParams& params);

/// Gives the fish of `school`, whose species are those of `from`, the indices of their species in
/// `to`: by name; a species renamed in its place (neither name in the other list) keeps its fish;
/// one kind split in index order where `from` has no species; all 0 where `to` has none. A fish
/// whose species `to` lacks gets an index past its species (resizeSchool drops it).
void renameSpecies(School& school, const SimParams& from, const SimParams& to);

/// Sets params.fishCount to `count`; with species, each species' count follows in proportion to
/// the counts it has (the largest remainders get the fish left over; all alike when they have
/// none), so that the counts still add up to fishCount.
void setFishCount(SimParams& params, std::int64_t count);

/// Sets params.fishCount to the size of `school` and each species' count to its fish in it (a
/// fish past the species of `params` counts for none: validate() then refuses the sum).
void countSchool(SimParams& params, std::span<const Fish> school);

/// Whether `a` and `b` have the same species, by name and count, in the same order.
bool sameSpeciesCounts(const SimParams& a, const SimParams& b);

/// docs/model.md "Changing the scene": moves every fish that lies outside the tank or inside a rock
/// to the nearest point inside the tank and outside the rocks, keeping its velocity. Returns how
/// many fish moved.
std::size_t moveIntoScene(School& school, const SimParams& params);

/// Gives a running backend new parameters as the app's panel does. Weights, radii and limits reach
/// the school as it is; a new tank, new rocks or a new fish count take the school back, resize it
/// (resizeSchool), move the fish the new scene leaves outside into it (moveIntoScene) and upload
/// it again. `next` must have passed validate(); `running` is what the backend has now. Returns
/// whether the school was replaced; a failed upload leaves the backend with `running` and its
/// school.
[[nodiscard]] Result<bool> changeParams(Backend& backend, const SimParams& running,
                                        const SimParams& next);

/// True when the fish lies inside the closed tank and outside every rock.
bool isInScene(const glm::vec3& position, const SimParams& params);

/// The distance of `position` from the y axis against the round tank's radius (arena "cylinder"),
/// with a relative slack of `slack` for the rounding of the step's mirror at the wall; always
/// true in a box.
bool withinRoundWall(const glm::vec3& position, const SimParams& params, double slack = 1e-5);

/// `base` (the defaults unless given) with `fishCount` fish and the tank, the rocks and the target
/// scaled so that the mean number of fish per unit volume stays that of `base` with its own
/// fishCount (for the defaults: the 2,000-fish scene). A rock that the scaled tank cannot hold
/// with its gap to the walls is left out. A base of 0 fish has no density to keep: its scene
/// stays as it is, unscaled (`bench --density fixed` refuses such a base first).
SimParams fixedDensityParams(std::int64_t fishCount, const SimParams& base = SimParams{});

/// What a new fish count does to the scene: `Fixed` scales the tank, the rocks and the target
/// with it (fixedDensityParams) so the fish per unit volume stay the same; `Tank` keeps them, so
/// more fish make a denser school.
enum class Density { Fixed, Tank };

/// "fixed" or "tank".
std::string_view toString(Density density);

/// Reads "fixed" or "tank" given to `flag`; the error names the flag and the allowed values.
[[nodiscard]] Result<Density> parseDensity(std::string_view flag, std::string_view text);

/// The source article's weights, radii and limits (cohesion 1 within 10 m, separation 1.5 within
/// 2.5 m, alignment 1 within 6 m, 3 m/s^2, 5 m/s) in the default tank, with grid search. The
/// presets other than "Default" start from it; its schools polarise over minutes, not seconds.
SimParams articleParams();

/// Rummy-nose tetras as Calovi et al. 2018 tracked them (docs/model.md "Burst-and-coast
/// swimming"): five fish kicking and gliding in a round tank of radius 0.25 m, flat, each heeding
/// its most influential neighbour (Lei et al. 2020), with the paper's gains; body length 3 cm.
/// docs/examples/rummy-nose.json holds the same.
SimParams rummyNoseParams();

}  // namespace fishschool
