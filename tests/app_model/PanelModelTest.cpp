// What the panel asks and shows, without a window: the history of parameters behind undo and
// redo and "changed since saved", which controls a steering reads, percentages, the frame plot's
// scale, the file browser's folders and what a preset gives a running school.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "app_model/FolderListing.h"
#include "app_model/ParamHistory.h"
#include "app_model/Presets.h"
#include "app_model/Readouts.h"
#include "app_model/SteeringReads.h"
#include "core/ParamTable.h"
#include "core/Scenario.h"

namespace fishschool::app {
namespace {

using ::testing::ElementsAre;

TEST(ParamHistory, UndoAndRedoGoBackAndForthThroughTheChanges) {
    const SimParams start;
    ParamHistory history(start);
    EXPECT_FALSE(history.canUndo());
    EXPECT_FALSE(history.changedSinceSave());

    SimParams cohesion = start;
    cohesion.kCohesion = 2.0f;
    history.record(cohesion, 10.0);
    SimParams fish = cohesion;
    fish.fishCount = 5000;
    history.record(fish, 20.0);
    EXPECT_TRUE(history.changedSinceSave());
    EXPECT_THAT(history.keysOfUndo(), ElementsAre("fishCount"));

    EXPECT_EQ(history.undo(), cohesion);
    EXPECT_EQ(history.undo(), start);
    EXPECT_FALSE(history.undo());
    EXPECT_FALSE(history.changedSinceSave()) << "back to the parameters started from";
    EXPECT_THAT(history.keysOfRedo(), ElementsAre("kCohesion"));
    EXPECT_EQ(history.redo(), cohesion);
    // A new change after an undo drops what was undone.
    SimParams separation = cohesion;
    separation.kSeparation = 0.5f;
    history.record(separation, 30.0);
    EXPECT_FALSE(history.canRedo());
    EXPECT_EQ(history.undo(), cohesion);
}

TEST(ParamHistory, ADragOverManyFramesIsOneChange) {
    const SimParams start;
    ParamHistory history(start);
    SimParams dragged = start;
    for (int frame = 1; frame <= 30; ++frame) {  // half a second at 60 frames a second
        dragged.kAlignment = start.kAlignment + 0.1f * static_cast<float>(frame);
        history.record(dragged, 5.0 + frame / 60.0);
    }
    // Another key right after is a change of its own.
    SimParams other = dragged;
    other.rAlignment = 12.0f;
    history.record(other, 5.6);
    EXPECT_EQ(history.undo(), dragged);
    EXPECT_EQ(history.undo(), start);
    EXPECT_FALSE(history.canUndo());

    // The same key again after a pause is a change of its own too.
    ParamHistory later(start);
    SimParams once = start, twice = start;
    once.kAlignment = 1.0f;
    twice.kAlignment = 2.0f;
    later.record(once, 1.0);
    later.record(twice, 1.0 + 2.0 * ParamHistory::kMergeSeconds);
    EXPECT_EQ(later.undo(), once);

    // Dragged back to where it started: nothing to undo.
    ParamHistory back(start);
    SimParams away = start;
    away.kAlignment = 4.0f;
    back.record(away, 1.0);
    back.record(start, 1.1);
    EXPECT_FALSE(back.canUndo());
}

TEST(ParamHistory, ChangedSinceSaveComparesWithTheLastSaveOrLoad) {
    const SimParams start;
    ParamHistory history(start);
    SimParams tuned = start;
    tuned.maxVelocity = 4.0f;
    history.record(tuned, 1.0);
    EXPECT_TRUE(history.changedSinceSave());
    history.markSaved();
    EXPECT_FALSE(history.changedSinceSave());
    (void)history.undo();
    EXPECT_TRUE(history.changedSinceSave()) << "the saved tuning is not the one in force";
    history.restart(start);
    EXPECT_FALSE(history.changedSinceSave());
    EXPECT_FALSE(history.canUndo());
}

TEST(ParamHistory, ChangedKeysNamesEveryKindOfKey) {
    SimParams a, b;
    b.steering = Steering::Vicsek;
    b.bounds.x = 55.0f;
    b.rocks.pop_back();
    b.lockVerticalSteering = true;
    EXPECT_THAT(changedKeys(a, b),
                ElementsAre("bounds", "lockVerticalSteering", "steering", "rocks"));
    EXPECT_TRUE(changedKeys(a, a).empty());
}

TEST(SteeringReads, EachSteeringReadsItsOwnKeys) {
    SimParams p;
    const auto reads = [&](Steering steering, const char* key) {
        p.steering = steering;
        return steeringReads(p, key);
    };
    for (const char* weight : {"kCohesion", "kSeparation", "kAlignment"}) {
        EXPECT_TRUE(reads(Steering::Article, weight)) << weight;
        EXPECT_TRUE(reads(Steering::Reynolds, weight)) << weight;
        EXPECT_FALSE(reads(Steering::Couzin, weight)) << weight;
        EXPECT_FALSE(reads(Steering::Vicsek, weight)) << weight;
    }
    // Vicsek reads one radius, the speed and the noise; couzin its zones and its turn rate.
    EXPECT_TRUE(reads(Steering::Vicsek, "rAlignment"));
    EXPECT_FALSE(reads(Steering::Vicsek, "rCohesion"));
    EXPECT_TRUE(reads(Steering::Couzin, "rCohesion"));
    EXPECT_TRUE(reads(Steering::Vicsek, "noise"));
    EXPECT_TRUE(reads(Steering::Vicsek, "maxVelocity"));
    EXPECT_FALSE(reads(Steering::Vicsek, "maxAcceleration"));
    EXPECT_TRUE(reads(Steering::Couzin, "maxTurnRate"));
    EXPECT_FALSE(reads(Steering::Article, "maxTurnRate"));
    EXPECT_FALSE(reads(Steering::Couzin, "kTarget"));
    EXPECT_FALSE(reads(Steering::Couzin, "leaders"));
    EXPECT_TRUE(reads(Steering::Couzin, "viewAngle"));
    EXPECT_TRUE(reads(Steering::Vicsek, "dimensions"));
    p.steering = Steering::Vicsek;
    EXPECT_EQ(unreadNote(p), "Steering vicsek does not read it.");
}

TEST(SteeringReads, TheScenesKeysAreReadByEverySteering) {
    for (const char* key : {"dt", "bounds", "boundary", "dimensions", "rocks", "fishCount",
                            "neighborSearch", "steering", "bodyLength", "schoolsWith"}) {
        const ParamInfo* info = findParam(key);
        ASSERT_NE(info, nullptr) << key;
        EXPECT_EQ(info->steerings, kEverySteering) << key;
    }
}

TEST(Readouts, APartNeverShowsAsTheWhole) {
    EXPECT_EQ(formatPercent(0.99), "99%");
    EXPECT_EQ(formatPercent(0.996), "99.6%");
    EXPECT_EQ(formatPercent(0.9996), "99.96%");
    EXPECT_EQ(formatPercent(0.99999), ">99.99%");
    EXPECT_EQ(formatPercent(1.0), "100%");
    EXPECT_EQ(formatPercent(0.5), "50%");
    EXPECT_EQ(formatPercent(0.004), "0.4%");
    EXPECT_EQ(formatPercent(0.0), "0%");
    EXPECT_EQ(formatPercent(std::nan("")), "n/a");
}

TEST(Readouts, TheFramePlotIsScaledToRecentFramesNotTheStartUpSpike) {
    std::vector<float> frames(240, 16.7f);
    frames[0] = 900.0f;  // the first frame, compiling shaders
    EXPECT_NEAR(frameTimeScale(frames), 1.25f * 16.7f, 0.01f);
    // Still, while the spike is among the last frames, one frame in a hundred does not count.
    frames.assign(60, 30.0f);
    frames[3] = 2000.0f;
    EXPECT_NEAR(frameTimeScale(frames), 37.5f, 0.01f);
    // Slower frames of late raise it.
    frames.assign(240, 10.0f);
    for (std::size_t k = 200; k < 240; ++k) frames[k] = 50.0f;
    EXPECT_NEAR(frameTimeScale(frames), 62.5f, 0.01f);
    EXPECT_EQ(frameTimeScale({}), 20.0f);
}

TEST(FolderListing, AFolderListsItsFoldersThenItsFilesOfTheKind) {
    namespace fs = std::filesystem;
    const fs::path dir =
        fs::temp_directory_path() /
        ("fishschool_listing_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()));
    fs::remove_all(dir);
    fs::create_directories(dir / "runs");
    fs::create_directories(dir / ".hidden");
    for (const char* name : {"b.json", "a.JSON", "school.csv", "run.h5", ".x.json", "notes.txt"})
        std::ofstream(dir / name) << "{}";
    const auto configs = listFolder(dir.string() + "/runs/..", FileKind::Config);
    ASSERT_TRUE(configs) << configs.error();
    EXPECT_EQ(configs->folder, dir.string());
    EXPECT_EQ(configs->absolute, dir.string());
    std::vector<std::string> names;
    for (const FolderEntry& entry : configs->entries)
        names.push_back((entry.folder ? "folder " : "") + entry.name);
    EXPECT_THAT(names, ElementsAre("folder runs", "a.JSON", "b.json"));
    const auto states = listFolder(dir.string(), FileKind::State);
    ASSERT_TRUE(states);
    EXPECT_EQ(states->entries.back().name, "school.csv");
    EXPECT_EQ(states->entries.back().bytes, 2u);
    const auto trajectories = listFolder(dir.string(), FileKind::Trajectory);
    ASSERT_TRUE(trajectories);
    EXPECT_EQ(trajectories->entries.back().name, "run.h5");

    const auto missing = listFolder((dir / "nowhere").string(), FileKind::Config);
    ASSERT_FALSE(missing);
    EXPECT_THAT(missing.error(), ::testing::HasSubstr("does not exist"));
    EXPECT_FALSE(listFolder((dir / "b.json").string(), FileKind::Config));
    fs::remove_all(dir);
}

TEST(FolderListing, APathFieldOpensTheBrowserInItsFolder) {
    EXPECT_EQ(folderOfField("runs/a.json"), "runs");
    EXPECT_EQ(folderOfField("a.json"), ".");
    EXPECT_EQ(folderOfField(""), ".");
    EXPECT_EQ(folderOfField("/"), "/");
    EXPECT_EQ(pathInFolder(".", "a.json"), "a.json");
    EXPECT_EQ(pathInFolder("runs/", "a.json"), "runs/a.json");
    EXPECT_EQ(parentFolder("runs/a"), "runs");
    EXPECT_EQ(parentFolder("runs"), ".");
    EXPECT_EQ(parentFolder("."), "..");
    EXPECT_EQ(parentFolder(".."), "../..");
    EXPECT_EQ(parentFolder("/tmp"), "/");
}

TEST(Presets, APresetKeepsTheRunningFishCountUnlessAsked) {
    const Preset* streams = findPreset("Streams");
    ASSERT_NE(streams, nullptr);
    const SimParams kept = presetScene(*streams, 8000, Density::Fixed, false);
    EXPECT_EQ(kept.fishCount, 8000);
    EXPECT_EQ(kept.kAlignment, streams->params.kAlignment);
    EXPECT_GT(kept.bounds.x, streams->params.bounds.x) << "at fixed density the tank grows";
    EXPECT_EQ(kept, fixedDensityParams(8000, streams->params));
    const SimParams denser = presetScene(*streams, 8000, Density::Tank, false);
    EXPECT_EQ(denser.fishCount, 8000);
    EXPECT_EQ(denser.bounds, streams->params.bounds);
    EXPECT_EQ(presetScene(*streams, 8000, Density::Fixed, true), streams->params);
    // The presets whose count is what they show say so.
    EXPECT_TRUE(findPreset("100k fish")->ownFishCount);
    EXPECT_TRUE(findPreset("Couzin 2002")->ownFishCount);
    EXPECT_FALSE(streams->ownFishCount);
    EXPECT_EQ(findPreset("nothing"), nullptr);
}

}  // namespace
}  // namespace fishschool::app
