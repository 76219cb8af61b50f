// The trajectory writer: read back with HDF5's C library, its layout (include/fishschool/
// Trajectory.h), values, chunks, the queue and its errors.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <hdf5.h>
#include <sys/resource.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "core/Scenario.h"
#include "fishschool/Trajectory.h"
#include "io/ConfigIO.h"
#include "io/Hdf5Handles.h"
#include "io/OutputFiles.h"

namespace fishschool {
namespace {

// As the programs' main() does, before any HDF5 call: the full-disk test leaves a file whose
// close failed, which HDF5 1.10 would otherwise close again at exit and crash on.
[[maybe_unused]] const bool kFilesKeptToTheirOwners = (hdf5::keepFilesToTheirOwners(), true);

namespace fs = std::filesystem;
using ::testing::HasSubstr;

class TrajectoryWriterTest : public ::testing::Test {
  protected:
    void SetUp() override {
        hdf5::silenceErrorStack();
        // append(), not +: GCC 12 warns (-Wrestrict) on the latter, wrongly.
        std::string name = "fishschool_tw_";
        name.append(std::to_string(::getpid()))
            .append("_")
            .append(::testing::UnitTest::GetInstance()->current_test_info()->name());
        folder_ = fs::temp_directory_path() / name;
        fs::remove_all(folder_);
        fs::create_directories(folder_);
    }
    void TearDown() override { fs::remove_all(folder_); }

    fs::path folder_;
};

/// A school whose every value says which fish, frame and field it is.
School numberedSchool(std::size_t fish, int frame) {
    School school(fish);
    for (std::size_t i = 0; i < fish; ++i) {
        const float base = float(frame) * 1000.0f + float(i);
        school[i].position = {base, base + 0.25f, base + 0.5f};
        school[i].velocity = {-base, -base - 0.25f, -base - 0.5f};
        school[i].acceleration = {7.0f, 7.0f, 7.0f};
    }
    return school;
}

hdf5::File openRead(const fs::path& file) {
    return hdf5::File{H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT)};
}

std::vector<hsize_t> shapeOf(hid_t file, const char* name) {
    const hdf5::Dataset set{H5Dopen2(file, name, H5P_DEFAULT)};
    if (!set.valid()) return {};
    const hdf5::Dataspace space{H5Dget_space(set.get())};
    std::vector<hsize_t> dims(std::max(0, H5Sget_simple_extent_ndims(space.get())));
    H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
    return dims;
}

template <class T>
std::vector<T> readAll(hid_t file, const char* name, hid_t memoryType) {
    const hdf5::Dataset set{H5Dopen2(file, name, H5P_DEFAULT)};
    EXPECT_TRUE(set.valid()) << name;
    if (!set.valid()) return {};
    const hdf5::Dataspace space{H5Dget_space(set.get())};
    std::vector<T> values(std::size_t(H5Sget_simple_extent_npoints(space.get())));
    EXPECT_GE(H5Dread(set.get(), memoryType, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()), 0)
        << name;
    return values;
}

std::string readStringAttribute(hid_t object, const char* name) {
    const hdf5::Attribute attribute{H5Aopen(object, name, H5P_DEFAULT)};
    if (!attribute.valid()) return "(missing)";
    hdf5::Datatype type{H5Tcopy(H5T_C_S1)};
    H5Tset_size(type.get(), H5T_VARIABLE);
    H5Tset_cset(type.get(), H5T_CSET_UTF8);
    char* text = nullptr;
    if (H5Aread(attribute.get(), type.get(), &text) < 0) return "(unreadable)";
    std::string value = text ? text : "";
    H5free_memory(text);
    return value;
}

std::string readStringDataset(hid_t file, const char* name) {
    const hdf5::Dataset set{H5Dopen2(file, name, H5P_DEFAULT)};
    hdf5::Datatype type{H5Tcopy(H5T_C_S1)};
    H5Tset_size(type.get(), H5T_VARIABLE);
    H5Tset_cset(type.get(), H5T_CSET_UTF8);
    char* text = nullptr;
    if (!set.valid() || H5Dread(set.get(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, &text) < 0)
        return "(unreadable)";
    std::string value = text ? text : "";
    H5free_memory(text);
    return value;
}

std::vector<hsize_t> chunkOf(hid_t file, const char* name) {
    const hdf5::Dataset set{H5Dopen2(file, name, H5P_DEFAULT)};
    const hdf5::PropertyList create{H5Dget_create_plist(set.get())};
    std::vector<hsize_t> dims(3);
    const int rank = H5Pget_chunk(create.get(), 3, dims.data());
    dims.resize(std::max(rank, 0));
    return dims;
}

bool hasObject(hid_t file, const char* name) {
    return H5Lexists(file, name, H5P_DEFAULT) > 0;
}

TEST_F(TrajectoryWriterTest, WritesTheH5mdLayoutWithTheSchoolsValues) {
    SimParams params;
    params.fishCount = 5;
    params.leaders = 1;
    params.predators = 1;
    params.bounds = {30.0f, 10.0f, 20.0f};
    params.rocks = {};
    ASSERT_TRUE(validate(params));
    const fs::path file = folder_ / "t.h5";
    auto writer = TrajectoryWriter::create(file, params, 5);
    ASSERT_TRUE(writer) << writer.error();
    for (int frame = 0; frame < 3; ++frame)
        ASSERT_TRUE((*writer)->addFrame(
            frame * 10, frame * 0.5, numberedSchool(5, frame),
            SchoolMetrics{0.1 * (frame + 1), 0.2 * (frame + 1), 0.3 * (frame + 1), 4.0 * frame}));
    SimParams changed = params;
    changed.kCohesion = 2.5f;
    ASSERT_TRUE((*writer)->addParameterChange(15, 0.75, changed));
    EXPECT_EQ((*writer)->frameCount(), 3u);
    EXPECT_EQ((*writer)->fishCount(), 5u);
    ASSERT_TRUE((*writer)->finish());

    const hdf5::File h5 = openRead(file);
    ASSERT_TRUE(h5.valid());
    const hid_t f = h5.get();
    // h5md: version {1, 1}, author and creator.
    {
        const hdf5::Group h5md{H5Gopen2(f, "h5md", H5P_DEFAULT)};
        const hdf5::Attribute version{H5Aopen(h5md.get(), "version", H5P_DEFAULT)};
        ASSERT_TRUE(version.valid());
        const hdf5::Datatype type{H5Aget_type(version.get())};
        EXPECT_EQ(H5Tget_class(type.get()), H5T_INTEGER);
        EXPECT_EQ(H5Tget_size(type.get()), 4u);
        int values[2] = {0, 0};
        ASSERT_GE(H5Aread(version.get(), H5T_NATIVE_INT, values), 0);
        EXPECT_EQ(values[0], 1);
        EXPECT_EQ(values[1], 1);
        const hdf5::Group author{H5Gopen2(f, "h5md/author", H5P_DEFAULT)};
        EXPECT_EQ(readStringAttribute(author.get(), "name"), "fishschool");
        const hdf5::Group creator{H5Gopen2(f, "h5md/creator", H5P_DEFAULT)};
        EXPECT_EQ(readStringAttribute(creator.get(), "name"), "fishschool");
        EXPECT_NE(readStringAttribute(creator.get(), "version"), "(missing)");
    }
    // The box: dimension 3, boundary none, edges at each frame.
    {
        const hdf5::Group box{H5Gopen2(f, "particles/school/box", H5P_DEFAULT)};
        const hdf5::Attribute dimension{H5Aopen(box.get(), "dimension", H5P_DEFAULT)};
        int three = 0;
        ASSERT_GE(H5Aread(dimension.get(), H5T_NATIVE_INT, &three), 0);
        EXPECT_EQ(three, 3);
        const hdf5::Attribute boundary{H5Aopen(box.get(), "boundary", H5P_DEFAULT)};
        hdf5::Datatype text{H5Tcopy(H5T_C_S1)};
        H5Tset_size(text.get(), H5T_VARIABLE);
        H5Tset_cset(text.get(), H5T_CSET_UTF8);
        char* names[3] = {nullptr, nullptr, nullptr};
        ASSERT_GE(H5Aread(boundary.get(), text.get(), names), 0);
        for (char* name : names) {
            EXPECT_STREQ(name, "none");
            H5free_memory(name);
        }
        EXPECT_EQ(shapeOf(f, "particles/school/box/edges/value"), (std::vector<hsize_t>{3, 3}));
        const auto edges = readAll<float>(f, "particles/school/box/edges/value", H5T_NATIVE_FLOAT);
        for (int frame = 0; frame < 3; ++frame)
            EXPECT_EQ(std::vector<float>(edges.begin() + 3 * frame, edges.begin() + 3 * frame + 3),
                      (std::vector<float>{60.0f, 20.0f, 40.0f}));
    }
    // Positions and velocities: the school's, float32, frame by frame; step and time shared.
    EXPECT_EQ(shapeOf(f, "particles/school/position/value"), (std::vector<hsize_t>{3, 5, 3}));
    EXPECT_EQ(shapeOf(f, "particles/school/velocity/value"), (std::vector<hsize_t>{3, 5, 3}));
    {
        const hdf5::Dataset set{H5Dopen2(f, "particles/school/position/value", H5P_DEFAULT)};
        const hdf5::Datatype type{H5Dget_type(set.get())};
        EXPECT_TRUE(H5Tequal(type.get(), H5T_IEEE_F32LE) > 0);
    }
    const auto positions = readAll<float>(f, "particles/school/position/value", H5T_NATIVE_FLOAT);
    const auto velocities = readAll<float>(f, "particles/school/velocity/value", H5T_NATIVE_FLOAT);
    ASSERT_EQ(positions.size(), 45u);
    for (int frame = 0; frame < 3; ++frame) {
        const School school = numberedSchool(5, frame);
        for (std::size_t i = 0; i < 5; ++i)
            for (int c = 0; c < 3; ++c) {
                EXPECT_EQ(positions[(frame * 5 + i) * 3 + c], school[i].position[c]);
                EXPECT_EQ(velocities[(frame * 5 + i) * 3 + c], school[i].velocity[c]);
            }
    }
    EXPECT_EQ(readAll<std::int64_t>(f, "particles/school/position/step", H5T_NATIVE_INT64),
              (std::vector<std::int64_t>{0, 10, 20}));
    EXPECT_EQ(readAll<double>(f, "particles/school/position/time", H5T_NATIVE_DOUBLE),
              (std::vector<double>{0.0, 0.5, 1.0}));
    for (const char* name : {"particles/school/velocity/step", "particles/school/velocity/time",
                             "particles/school/box/edges/step", "particles/school/box/edges/time",
                             "observables/polarization/step", "observables/milling/time",
                             "observables/nearest_neighbor/step", "observables/neighbors/time"}) {
        H5O_info_t info{};
        ASSERT_GE(H5Oget_info_by_name2(f, name, &info, H5O_INFO_BASIC, H5P_DEFAULT), 0) << name;
        EXPECT_EQ(info.rc, 3 + kSchoolMeasures.size())
            << name << ": one object, linked from position, velocity, box and each observable";
    }
    EXPECT_EQ(readAll<std::int32_t>(f, "particles/school/species", H5T_NATIVE_INT32),
              (std::vector<std::int32_t>{1, 2, 0, 0, 0}));
    // Units: fishschool_unit, never H5MD's unit (MDAnalysis refuses "m").
    for (const auto& [name, unit] : {std::pair{"particles/school/position/value", "m"},
                                     {"particles/school/velocity/value", "m/s"},
                                     {"particles/school/position/time", "s"},
                                     {"observables/nearest_neighbor/value", "m"}}) {
        const hdf5::Dataset set{H5Dopen2(f, name, H5P_DEFAULT)};
        EXPECT_EQ(readStringAttribute(set.get(), "fishschool_unit"), unit) << name;
        EXPECT_EQ(H5Aexists(set.get(), "unit"), 0) << name;
    }
    // The measures, one value a frame.
    EXPECT_EQ(readAll<double>(f, "observables/polarization/value", H5T_NATIVE_DOUBLE),
              (std::vector<double>{0.1, 0.2, 0.1 * 3}));
    EXPECT_EQ(readAll<double>(f, "observables/milling/value", H5T_NATIVE_DOUBLE),
              (std::vector<double>{0.2, 0.4, 0.2 * 3}));
    EXPECT_EQ(readAll<double>(f, "observables/nearest_neighbor/value", H5T_NATIVE_DOUBLE),
              (std::vector<double>{0.3, 0.6, 0.3 * 3}));
    EXPECT_EQ(readAll<double>(f, "observables/neighbors/value", H5T_NATIVE_DOUBLE),
              (std::vector<double>{0.0, 4.0, 8.0}));
    // The config, and the change with its step.
    auto config = parseConfig(readStringDataset(f, "parameters/config"));
    ASSERT_TRUE(config) << config.error();
    EXPECT_EQ(*config, params);
    EXPECT_EQ(readAll<std::int64_t>(f, "parameters/changes/step", H5T_NATIVE_INT64),
              (std::vector<std::int64_t>{15}));
    {
        const hdf5::Dataset set{H5Dopen2(f, "parameters/changes/value", H5P_DEFAULT)};
        hdf5::Datatype text{H5Tcopy(H5T_C_S1)};
        H5Tset_size(text.get(), H5T_VARIABLE);
        H5Tset_cset(text.get(), H5T_CSET_UTF8);
        char* json = nullptr;
        ASSERT_GE(H5Dread(set.get(), text.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, &json), 0);
        auto parsed = parseConfig(json ? json : "");
        H5free_memory(json);
        ASSERT_TRUE(parsed) << parsed.error();
        EXPECT_EQ(*parsed, changed);
    }
}

TEST_F(TrajectoryWriterTest, AFileWithoutMeasuresHasNoObservablesGroup) {
    // MDAnalysis reads observables/<name>/value[frame] at every frame: none is better than few.
    const fs::path file = folder_ / "t.h5";
    auto writer = TrajectoryWriter::create(file, SimParams{}, 4);
    ASSERT_TRUE(writer) << writer.error();
    ASSERT_TRUE((*writer)->addFrame(0, 0.0, numberedSchool(4, 0)));
    ASSERT_TRUE((*writer)->finish());
    const hdf5::File h5 = openRead(file);
    ASSERT_TRUE(h5.valid());
    EXPECT_FALSE(hasObject(h5.get(), "observables"));
    EXPECT_EQ(shapeOf(h5.get(), "particles/school/position/value"),
              (std::vector<hsize_t>{1, 4, 3}));
}

/// With species, `species` holds each fish's (H5MD's meaning) and `kind` the kinds; the reader
/// gives them back with every frame.
TEST_F(TrajectoryWriterTest, WritesEachFishsSpeciesAndTheKindsBesideThem) {
    const fs::path file = folder_ / "t.h5";
    SimParams params;
    params.fishCount = 4;
    params.leaders = 1;
    params.species = {{"a", 2, {1, 0, 0}, {}}, {"b", 2, {0, 0, 1}, {}}};
    TrajectoryWriterOptions options;
    options.species = {1, 0, 1, 0};  // not a new school's order
    auto writer = TrajectoryWriter::create(file, params, 4, options);
    ASSERT_TRUE(writer) << writer.error();
    ASSERT_TRUE((*writer)->addFrame(0, 0.0, numberedSchool(4, 0)));
    ASSERT_TRUE((*writer)->finish());
    auto reader = TrajectoryReader::open(file);
    ASSERT_TRUE(reader) << reader.error();
    EXPECT_EQ(std::vector<std::uint32_t>((*reader)->species().begin(), (*reader)->species().end()),
              (std::vector<std::uint32_t>{1, 0, 1, 0}));
    EXPECT_EQ((*reader)->kinds()[0], FishKind::Leader);
    EXPECT_EQ((*reader)->kinds()[1], FishKind::Fish);
    School frame;
    ASSERT_TRUE((*reader)->readFrame(0, frame));
    EXPECT_EQ(frame[2].species, 1u);
    EXPECT_EQ(frame[3].species, 0u);
    // Without species: `species` holds the kinds, as files always have, and no `kind`.
    const fs::path plain = folder_ / "plain.h5";
    auto kinds = TrajectoryWriter::create(plain, SimParams{}, 2);
    ASSERT_TRUE(kinds) << kinds.error();
    ASSERT_TRUE((*kinds)->addFrame(0, 0.0, numberedSchool(2, 0)));
    ASSERT_TRUE((*kinds)->finish());
    {
        const hdf5::File h5 = openRead(plain);
        EXPECT_FALSE(hasObject(h5.get(), "particles/school/kind"));
    }
    auto back = TrajectoryReader::open(plain);
    ASSERT_TRUE(back) << back.error();
    EXPECT_EQ((*back)->species()[1], 0u);
}

TEST_F(TrajectoryWriterTest, FramesHaveMeasuresAllOrNone) {
    // MDAnalysis reads observables/<name>/value[frame]: a frame without its value is refused.
    for (const bool measuredFirst : {true, false}) {
        const fs::path file = folder_ / "t.h5";
        auto writer = TrajectoryWriter::create(file, SimParams{}, 2);
        ASSERT_TRUE(writer) << writer.error();
        const std::optional<SchoolMetrics> first =
            measuredFirst ? std::optional(SchoolMetrics{0.5, 0.5, 1.0, 1.0}) : std::nullopt;
        const std::optional<SchoolMetrics> second =
            measuredFirst ? std::nullopt : std::optional(SchoolMetrics{0.5, 0.5, 1.0, 1.0});
        ASSERT_TRUE((*writer)->addFrame(0, 0.0, numberedSchool(2, 0), first));
        auto refused = (*writer)->addFrame(1, 0.1, numberedSchool(2, 1), second);
        ASSERT_FALSE(refused);
        EXPECT_NE(refused.error().find("all have measures or none"), std::string::npos)
            << refused.error();
        ASSERT_TRUE((*writer)->addFrame(1, 0.1, numberedSchool(2, 1), first));
        ASSERT_TRUE((*writer)->finish());
    }
}

TEST_F(TrajectoryWriterTest, WritesTheAttributesOfAParametersGroup) {
    const fs::path file = folder_ / "t.h5";
    auto writer = TrajectoryWriter::create(file, SimParams{}, 2);
    ASSERT_TRUE(writer) << writer.error();
    ASSERT_TRUE((*writer)->addFrame(0, 0.0, numberedSchool(2, 0)));
    const double third = 1.0 / 3.0;
    ASSERT_TRUE((*writer)->addParameterAttributes(
        "ensemble_run", {{"index", std::int64_t{7}},
                         {"seed", std::uint64_t{0xFFFF'FFFF'FFFF'FFFFull}},
                         {"polarization", third},
                         {"status", std::string("ok")}}));
    ASSERT_TRUE((*writer)->finish());
    const hdf5::File h5 = openRead(file);
    const hdf5::Group group{H5Gopen2(h5.get(), "parameters/ensemble_run", H5P_DEFAULT)};
    ASSERT_TRUE(group.valid());
    std::int64_t index = 0;
    std::uint64_t seed = 0;
    double polarization = 0.0;
    const hdf5::Attribute indexAttribute{H5Aopen(group.get(), "index", H5P_DEFAULT)};
    const hdf5::Attribute seedAttribute{H5Aopen(group.get(), "seed", H5P_DEFAULT)};
    const hdf5::Attribute polarizationAttribute{H5Aopen(group.get(), "polarization", H5P_DEFAULT)};
    ASSERT_GE(H5Aread(indexAttribute.get(), H5T_NATIVE_INT64, &index), 0);
    ASSERT_GE(H5Aread(seedAttribute.get(), H5T_NATIVE_UINT64, &seed), 0);
    ASSERT_GE(H5Aread(polarizationAttribute.get(), H5T_NATIVE_DOUBLE, &polarization), 0);
    EXPECT_EQ(index, 7);
    EXPECT_EQ(seed, 0xFFFF'FFFF'FFFF'FFFFull);
    EXPECT_EQ(polarization, third);
    EXPECT_EQ(readStringAttribute(group.get(), "status"), "ok");
}

TEST_F(TrajectoryWriterTest, ChunksHoldAboutAMebibyteAlongTime) {
    // A small school: many frames a chunk, all its fish; a large one: one frame a chunk, its
    // fish split so that a chunk stays near 1 MiB.
    for (const auto& [fish, frames, fishPerChunk] :
         {std::tuple<std::size_t, hsize_t, hsize_t>{100, 64, 100},
          {20'000, 4, 20'000},
          {200'000, 1, 66'667}}) {
        const fs::path file = folder_ / std::string("c").append(std::to_string(fish)).append(".h5");
        auto writer = TrajectoryWriter::create(file, SimParams{}, fish);
        ASSERT_TRUE(writer) << writer.error();
        ASSERT_TRUE((*writer)->finish());
        const hdf5::File h5 = openRead(file);
        for (const char* name :
             {"particles/school/position/value", "particles/school/velocity/value"}) {
            const auto chunk = chunkOf(h5.get(), name);
            EXPECT_EQ(chunk, (std::vector<hsize_t>{frames, fishPerChunk, 3})) << fish << " fish";
            EXPECT_LE(chunk[0] * chunk[1] * 12, std::size_t{1} << 20);
            // Unlimited along time only.
            const hdf5::Dataset set{H5Dopen2(h5.get(), name, H5P_DEFAULT)};
            const hdf5::Dataspace space{H5Dget_space(set.get())};
            hsize_t max[3] = {0, 0, 0};
            H5Sget_simple_extent_dims(space.get(), nullptr, max);
            EXPECT_EQ(max[0], H5S_UNLIMITED);
            EXPECT_EQ(max[1], fish);
        }
    }
}

TEST_F(TrajectoryWriterTest, AFrameIsCopiedAndAQueueOfLessThanAFrameStillWritesEveryFrame) {
    // queueBytes below one frame: each frame waits for the one before to be written, and the
    // school given may change as soon as addFrame returns.
    const fs::path file = folder_ / "t.h5";
    auto writer = TrajectoryWriter::create(
        file, SimParams{}, 1000,
        TrajectoryWriterOptions{.queueBytes = 1, .name = {}, .species = {}, .missing = {}});
    ASSERT_TRUE(writer) << writer.error();
    School school;
    for (int frame = 0; frame < 40; ++frame) {
        school = numberedSchool(1000, frame);
        ASSERT_TRUE((*writer)->addFrame(frame, frame, school));
        for (Fish& fish : school) fish.position = glm::vec3(-1.0f);  // stepped on at once
    }
    ASSERT_TRUE((*writer)->finish());
    const hdf5::File h5 = openRead(file);
    const auto positions =
        readAll<float>(h5.get(), "particles/school/position/value", H5T_NATIVE_FLOAT);
    ASSERT_EQ(positions.size(), 40u * 1000 * 3);
    for (int frame = 0; frame < 40; ++frame)
        EXPECT_EQ(positions[(frame * 1000 + 999) * 3], float(frame) * 1000.0f + 999.0f);
}

TEST_F(TrajectoryWriterTest, AFrameFilledInTheWritersBufferIsWrittenAsFilled) {
    const fs::path file = folder_ / "t.h5";
    auto writer = TrajectoryWriter::create(file, SimParams{}, 5);
    ASSERT_TRUE(writer) << writer.error();
    for (int frame = 0; frame < 3; ++frame) {
        const School school = numberedSchool(5, frame);
        ASSERT_TRUE((*writer)->addFrameFrom(
            frame, frame, [&](std::span<float> positions, std::span<float> velocities) {
                ASSERT_EQ(positions.size(), 15u);
                ASSERT_EQ(velocities.size(), 15u);
                copyFrame(school, positions, velocities);
            }));
    }
    ASSERT_TRUE((*writer)->finish());
    const hdf5::File h5 = openRead(file);
    const auto positions =
        readAll<float>(h5.get(), "particles/school/position/value", H5T_NATIVE_FLOAT);
    const auto velocities =
        readAll<float>(h5.get(), "particles/school/velocity/value", H5T_NATIVE_FLOAT);
    ASSERT_EQ(positions.size(), 3u * 5 * 3);
    ASSERT_EQ(velocities.size(), 3u * 5 * 3);
    EXPECT_EQ(positions[(2 * 5 + 4) * 3 + 1], 2004.25f);
    EXPECT_EQ(velocities[(1 * 5 + 3) * 3 + 2], -1003.5f);
}

TEST_F(TrajectoryWriterTest, RefusesAFrameOfAnotherSizeAndAnythingAfterFinish) {
    const fs::path file = folder_ / "t.h5";
    auto writer = TrajectoryWriter::create(file, SimParams{}, 3);
    ASSERT_TRUE(writer) << writer.error();
    auto wrong = (*writer)->addFrame(0, 0.0, numberedSchool(4, 0));
    ASSERT_FALSE(wrong);
    EXPECT_THAT(wrong.error(), HasSubstr("4 fish"));
    EXPECT_THAT(wrong.error(), HasSubstr("t.h5"));
    ASSERT_TRUE((*writer)->finish());
    EXPECT_FALSE((*writer)->addFrame(1, 1.0, numberedSchool(3, 1)));
    EXPECT_FALSE((*writer)->finish());
}

TEST_F(TrajectoryWriterTest, ACreateThatFailsNamesTheFile) {
    auto writer = TrajectoryWriter::create(folder_ / "missing" / "t.h5", SimParams{}, 3);
    ASSERT_FALSE(writer);
    EXPECT_THAT(writer.error(), HasSubstr("missing/t.h5"));
}

TEST_F(TrajectoryWriterTest, AFullDiskIsAnErrorNamingTheFile) {
    // A file size limit with SIGXFSZ ignored: writes past it fail with EFBIG, as on a full disk.
    const fs::path file = folder_ / "full.h5";
    struct rlimit before {};
    ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &before), 0);
    const auto previous = std::signal(SIGXFSZ, SIG_IGN);
    struct rlimit limit = before;
    limit.rlim_cur = 256 * 1024;
    ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &limit), 0);
    Result<void> outcome;
    {
        auto writer = TrajectoryWriter::create(file, SimParams{}, 2000);
        ASSERT_TRUE(writer) << writer.error();
        const School school = numberedSchool(2000, 0);
        for (int frame = 0; frame < 100 && outcome; ++frame)
            outcome = (*writer)->addFrame(frame, frame, school);
        const auto finished = (*writer)->finish();
        if (outcome) outcome = finished;
        EXPECT_FALSE(finished) << "finish() reports the thread's first error";
    }
    ::setrlimit(RLIMIT_FSIZE, &before);
    std::signal(SIGXFSZ, previous);
    ASSERT_FALSE(outcome);
    EXPECT_THAT(outcome.error(), HasSubstr("full.h5"));
    EXPECT_THAT(outcome.error(), HasSubstr("File too large"));
}

TEST_F(TrajectoryWriterTest, WritesThroughAnOutputFilesTemporaryAndIsPutIntoPlaceByCommit) {
    // The path addExternal gives (an unnamed file's /proc/self/fd/N where the file system has
    // them): HDF5 creates the file there, and commit() gives it its name.
    const fs::path target = folder_ / "out.h5";
    { std::ofstream(target) << "old"; }
    OutputFiles outputs;
    auto path = outputs.addExternal("--trajectory", target.string());
    ASSERT_TRUE(path) << path.error();
    auto writer = TrajectoryWriter::create(
        *path, SimParams{}, 7,
        TrajectoryWriterOptions{.queueBytes = 1 << 20, .name = "out.h5", .species = {}, .missing = {}});
    ASSERT_TRUE(writer) << writer.error();
    // Errors name the output, not its temporary path.
    auto wrong = (*writer)->addFrame(0, 0.0, numberedSchool(8, 3));
    ASSERT_FALSE(wrong);
    EXPECT_THAT(wrong.error(), ::testing::StartsWith("out.h5: "));
    ASSERT_TRUE((*writer)->addFrame(0, 0.0, numberedSchool(7, 3)));
    ASSERT_TRUE((*writer)->finish());
    {
        std::ifstream old(target);
        std::string text;
        old >> text;
        EXPECT_EQ(text, "old") << "replaced only by commit()";
    }
    ASSERT_TRUE(outputs.commit());
    const hdf5::File h5 = openRead(target);
    ASSERT_TRUE(h5.valid());
    EXPECT_EQ(shapeOf(h5.get(), "particles/school/position/value"),
              (std::vector<hsize_t>{1, 7, 3}));
    for (const auto& entry : fs::directory_iterator(folder_))
        EXPECT_EQ(entry.path().filename(), "out.h5") << "no temporary file left";
}

TEST_F(TrajectoryWriterTest, AnOutputNotCommittedLeavesTheOldFile) {
    const fs::path target = folder_ / "out.h5";
    { std::ofstream(target) << "old"; }
    {
        OutputFiles outputs;
        auto path = outputs.addExternal("--trajectory", target.string());
        ASSERT_TRUE(path) << path.error();
        auto writer = TrajectoryWriter::create(*path, SimParams{}, 7);
        ASSERT_TRUE(writer) << writer.error();
        ASSERT_TRUE((*writer)->finish());
    }
    std::ifstream old(target);
    std::string text;
    old >> text;
    EXPECT_EQ(text, "old");
    EXPECT_EQ(std::distance(fs::directory_iterator(folder_), fs::directory_iterator()), 1);
}

/// A writer of `fish` fish under steering burst-and-coast.
std::unique_ptr<TrajectoryWriter> burstWriter(const fs::path& file, std::size_t fish) {
    SimParams p;
    p.steering = Steering::BurstAndCoast;
    auto writer = TrajectoryWriter::create(file, p, fish);
    EXPECT_TRUE(writer) << writer.error();
    return writer ? std::move(*writer) : nullptr;
}

// docs/model.md "Burst-and-coast swimming": the kick clock is part of a fish's state, so each
// frame holds it and reads it back.
TEST_F(TrajectoryWriterTest, BurstAndCoastRecordsEachFishsKickClockAtEachFrame) {
    const fs::path file = folder_ / "t.h5";
    auto writer = burstWriter(file, 4);
    ASSERT_TRUE(writer);
    EXPECT_TRUE(writer->recordsKickClocks());
    const auto clockOf = [](int frame, std::size_t i) {
        return 0.125f * float(frame * 4 + int(i));
    };
    for (int frame = 0; frame < 3; ++frame) {
        School school = numberedSchool(4, frame);
        for (std::size_t i = 0; i < 4; ++i) school[i].kickClock = clockOf(frame, i);
        ASSERT_TRUE(writer->addFrame(frame, frame, school));
    }
    // A frame given without its clocks holds 0 for each: drawn anew.
    const School last = numberedSchool(4, 3);
    ASSERT_TRUE(writer->addFrameFrom(
        3, 3.0, [&](std::span<float> p, std::span<float> v) { copyFrame(last, p, v); }));
    EXPECT_FALSE(writer->addFrameFrom(
        4, 4.0, [&](std::span<float> p, std::span<float> v) { copyFrame(last, p, v); },
        std::vector<float>(3, 1.0f), std::nullopt));
    ASSERT_TRUE(writer->finish());
    {
        const hdf5::File h5 = openRead(file);
        EXPECT_EQ(shapeOf(h5.get(), "particles/school/kick_clock/value"),
                  (std::vector<hsize_t>{4, 4}));
    }
    auto reader = TrajectoryReader::open(file);
    ASSERT_TRUE(reader) << reader.error();
    EXPECT_TRUE((*reader)->hasKickClocks());
    School read;
    for (int frame = 0; frame < 4; ++frame) {
        ASSERT_TRUE((*reader)->readFrame(std::size_t(frame), read));
        for (std::size_t i = 0; i < 4; ++i)
            EXPECT_EQ(read[i].kickClock, frame < 3 ? clockOf(frame, i) : 0.0f) << frame << i;
    }
}

TEST_F(TrajectoryWriterTest, OtherSteeringsRecordNoKickClock) {
    const fs::path file = folder_ / "t.h5";
    auto writer = TrajectoryWriter::create(file, SimParams{}, 2);
    ASSERT_TRUE(writer) << writer.error();
    EXPECT_FALSE((*writer)->recordsKickClocks());
    School school = numberedSchool(2, 0);
    school[1].kickClock = 0.5f;
    ASSERT_TRUE((*writer)->addFrame(0, 0.0, school));
    ASSERT_TRUE((*writer)->finish());
    auto reader = TrajectoryReader::open(file);
    ASSERT_TRUE(reader) << reader.error();
    EXPECT_FALSE((*reader)->hasKickClocks());
    School read;
    ASSERT_TRUE((*reader)->readFrame(0, read));
    EXPECT_EQ(read[1].kickClock, 0.0f);
}

TEST_F(TrajectoryWriterTest, AKickClockOutOfItsRangeIsRefusedNamingTheFrameAndTheFish) {
    const float bad[] = {-0.5f, std::numeric_limits<float>::quiet_NaN(),
                         std::numeric_limits<float>::infinity(), 2e8f};
    for (const float clock : bad) {
        const fs::path file = folder_ / "t.h5";
        auto writer = burstWriter(file, 3);
        ASSERT_TRUE(writer);
        School school = numberedSchool(3, 0);
        ASSERT_TRUE(writer->addFrame(0, 0.0, school));
        school[2].kickClock = clock;
        ASSERT_TRUE(writer->addFrame(1, 1.0, school));
        ASSERT_TRUE(writer->finish());
        auto reader = TrajectoryReader::open(file);
        ASSERT_TRUE(reader) << reader.error();
        School read;
        EXPECT_TRUE((*reader)->readFrame(0, read));
        auto refused = (*reader)->readFrame(1, read);
        ASSERT_FALSE(refused) << clock;
        EXPECT_THAT(refused.error().message(),
                    HasSubstr("t.h5: particles/school/kick_clock/value: frame 1, fish 2: "));
        EXPECT_THAT(refused.error().message(), HasSubstr("must be a time in seconds from 0"));
    }
}

TEST(FishKinds, LeadersFirstThenPredators) {
    SimParams params;
    params.fishCount = 6;
    params.leaders = 2;
    params.predators = 1;
    EXPECT_EQ(fishKinds(params, 6),
              (std::vector<FishKind>{FishKind::Leader, FishKind::Leader, FishKind::Predator,
                                     FishKind::Fish, FishKind::Fish, FishKind::Fish}));
}

}  // namespace
}  // namespace fishschool
