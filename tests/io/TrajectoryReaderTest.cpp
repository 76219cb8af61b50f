// TrajectoryReader on files written with HDF5's C library here (valid ones, and each hostile case
// of docs/robustness.md's class 23), and on the writer's own files. Every hostile file is read in
// a child process under a time limit, whose peak memory is measured.

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <iterator>
#include <limits>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <hdf5.h>

#include "io/ConfigIO.h"
#include "io/Hdf5Handles.h"
#include "io/StateIO.h"
#include "io/Trajectory.h"

namespace fishschool {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

/// A scratch folder of this test's own.
class TrajectoryReaderTest : public ::testing::Test {
  protected:
    void SetUp() override {
        hdf5::silenceErrorStack();
        folder_ = fs::temp_directory_path() /
                  ("fishschool-trajectory-" + std::to_string(::getpid()) + "-" +
                   ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(folder_);
        fs::create_directories(folder_);
    }
    void TearDown() override { fs::remove_all(folder_); }
    fs::path at(const std::string& name) const { return folder_ / name; }
    /// A valid trajectory that `mutate` changes, written to "t.h5", is refused naming `object`.
    void expectRefusedOnceChanged(const std::string& object, const std::string& detail,
                                  std::function<void(hid_t)> mutate);

    fs::path folder_;
};

// --- files written with HDF5's C library --------------------------------------------------

/// A trajectory as Trajectory.h lays it out, and what a case changes in it.
struct Spec {
    hsize_t fish = 3;
    hsize_t frames = 2;
    std::vector<std::int32_t> species;  ///< empty: every fish a plain fish
    std::string config = R"({"fishCount": 3, "bounds": [10, 10, 10], "rocks": []})";
    std::vector<std::pair<std::int64_t, std::string>> changes;
    bool measures = true;
    /// Changes the file before it is closed.
    std::function<void(hid_t file)> mutate;
};

float positionOf(hsize_t frame, hsize_t fish, int k) {
    return 0.5f * float(frame) + 0.25f * float(fish) + 0.125f * float(k) - 2.0f;
}
float velocityOf(hsize_t frame, hsize_t fish, int k) {
    return -positionOf(frame, fish, k);
}

void writeSet(hid_t location, const char* name, hid_t fileType, std::vector<hsize_t> dims,
              hid_t memoryType, const void* data, hid_t create = H5P_DEFAULT) {
    const hdf5::Dataspace space{dims.empty()
                                    ? H5Screate(H5S_SCALAR)
                                    : H5Screate_simple(int(dims.size()), dims.data(), nullptr)};
    const hdf5::PropertyList links{H5Pcreate(H5P_LINK_CREATE)};
    H5Pset_create_intermediate_group(links.get(), 1);
    const hdf5::Dataset set{
        H5Dcreate2(location, name, fileType, space.get(), links.get(), create, H5P_DEFAULT)};
    ASSERT_TRUE(set.valid()) << name;
    if (data != nullptr) {
        ASSERT_GE(H5Dwrite(set.get(), memoryType, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), 0) << name;
    }
}

hdf5::Datatype variableString() {
    hdf5::Datatype type{H5Tcopy(H5T_C_S1)};
    H5Tset_size(type.get(), H5T_VARIABLE);
    H5Tset_cset(type.get(), H5T_CSET_UTF8);
    return type;
}

/// The values of frames x fish x 3 of `of`.
std::vector<float> frameValues(const Spec& spec, float (*of)(hsize_t, hsize_t, int)) {
    std::vector<float> out;
    for (hsize_t f = 0; f < spec.frames; ++f)
        for (hsize_t i = 0; i < spec.fish; ++i)
            for (int k = 0; k < 3; ++k) out.push_back(of(f, i, k));
    return out;
}

void writeTrajectory(const fs::path& path, const Spec& spec) {
    const hdf5::File file{H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT)};
    ASSERT_TRUE(file.valid());
    const hid_t f = file.get();
    {
        const hdf5::PropertyList links{H5Pcreate(H5P_LINK_CREATE)};
        H5Pset_create_intermediate_group(links.get(), 1);
        const hdf5::Group h5md{
            H5Gcreate2(f, "h5md/creator", links.get(), H5P_DEFAULT, H5P_DEFAULT)};
    }
    std::vector<std::int64_t> steps;
    std::vector<double> times;
    for (hsize_t k = 0; k < spec.frames; ++k) {
        steps.push_back(std::int64_t(10 * k));
        times.push_back(0.5 * double(k));
    }
    const std::vector<hsize_t> values{spec.frames, spec.fish, 3}, series{spec.frames};
    const auto positions = frameValues(spec, positionOf);
    const auto velocities = frameValues(spec, velocityOf);
    writeSet(f, "particles/school/position/value", H5T_IEEE_F32LE, values, H5T_NATIVE_FLOAT,
             positions.data());
    writeSet(f, "particles/school/velocity/value", H5T_IEEE_F32LE, values, H5T_NATIVE_FLOAT,
             velocities.data());
    writeSet(f, "particles/school/position/step", H5T_STD_I64LE, series, H5T_NATIVE_INT64,
             steps.data());
    writeSet(f, "particles/school/position/time", H5T_IEEE_F64LE, series, H5T_NATIVE_DOUBLE,
             times.data());
    H5Lcreate_hard(f, "particles/school/position/step", f, "particles/school/velocity/step",
                   H5P_DEFAULT, H5P_DEFAULT);
    H5Lcreate_hard(f, "particles/school/position/time", f, "particles/school/velocity/time",
                   H5P_DEFAULT, H5P_DEFAULT);
    std::vector<std::int32_t> species = spec.species;
    species.resize(spec.fish, 0);
    writeSet(f, "particles/school/species", H5T_STD_I32LE, {spec.fish}, H5T_NATIVE_INT32,
             species.data());
    if (spec.measures) {
        for (const char* name : {"polarization", "milling", "nearest_neighbor", "neighbors"}) {
            const std::string base = std::string("observables/") + name;
            std::vector<double> measure(times.size(), 0.25);
            writeSet(f, (base + "/step").c_str(), H5T_STD_I64LE, series, H5T_NATIVE_INT64,
                     steps.data());
            writeSet(f, (base + "/time").c_str(), H5T_IEEE_F64LE, series, H5T_NATIVE_DOUBLE,
                     times.data());
            writeSet(f, (base + "/value").c_str(), H5T_IEEE_F64LE, series, H5T_NATIVE_DOUBLE,
                     measure.data());
        }
    }
    const hdf5::Datatype text = variableString();
    const char* config = spec.config.c_str();
    writeSet(f, "parameters/config", text.get(), {}, text.get(), &config);
    std::vector<std::int64_t> changeSteps;
    std::vector<double> changeTimes;
    std::vector<const char*> changeTexts;
    for (const auto& [step, json] : spec.changes) {
        changeSteps.push_back(step);
        changeTimes.push_back(0.05 * double(step));
        changeTexts.push_back(json.c_str());
    }
    const hsize_t count = spec.changes.size();
    writeSet(f, "parameters/changes/step", H5T_STD_I64LE, {count}, H5T_NATIVE_INT64,
             count ? changeSteps.data() : nullptr);
    writeSet(f, "parameters/changes/time", H5T_IEEE_F64LE, {count}, H5T_NATIVE_DOUBLE,
             count ? changeTimes.data() : nullptr);
    writeSet(f, "parameters/changes/value", text.get(), {count}, text.get(),
             count ? changeTexts.data() : nullptr);
    if (spec.mutate) spec.mutate(f);
}

/// Replaces the dataset at `path` by one of `fileType` and `dims`, written from `data` (or left
/// unwritten), created with `create`.
void replaceSet(hid_t file, const char* path, hid_t fileType, std::vector<hsize_t> dims,
                hid_t memoryType = H5T_NATIVE_FLOAT, const void* data = nullptr,
                hid_t create = H5P_DEFAULT) {
    ASSERT_GE(H5Ldelete(file, path, H5P_DEFAULT), 0) << path;
    writeSet(file, path, fileType, std::move(dims), memoryType, data, create);
}

/// As replaceSet, with every element's bytes zero.
void replaceZeros(hid_t file, const char* path, hid_t fileType, std::vector<hsize_t> dims) {
    std::size_t elements = 1;
    for (hsize_t d : dims) elements *= d;
    const std::vector<char> zeros(elements * H5Tget_size(fileType), 0);
    replaceSet(file, path, fileType, std::move(dims), fileType, zeros.data());
}

// --- reading in a child -----------------------------------------------------------------------

/// What reading a file in a child process gave: its error ("" when it opened and every frame
/// read), whether it ended by itself within the time limit, its peak memory and time.
struct Outcome {
    bool ended = false;
    std::string error;
    long peakMegabytes = 0;
    double seconds = 0.0;
};

constexpr unsigned kTimeLimitSeconds = 30;

Outcome readInChild(const fs::path& file) {
    int pipeEnds[2];
    if (::pipe(pipeEnds) != 0) return {};
    const auto started = std::chrono::steady_clock::now();
    const pid_t child = ::fork();
    if (child == 0) {
        ::close(pipeEnds[0]);
        ::alarm(kTimeLimitSeconds);  // a read that hangs ends the child with SIGALRM
        hdf5::silenceErrorStack();
        std::string error;
        auto reader = TrajectoryReader::open(file);
        if (!reader) {
            error = reader.error();
        } else {
            School school;
            for (std::size_t k = 0; k < (*reader)->frameCount() && error.empty(); ++k)
                if (auto ok = (*reader)->readFrame(k, school); !ok) error = ok.error();
        }
        std::size_t done = 0;
        while (done < error.size()) {
            const ssize_t n = ::write(pipeEnds[1], error.data() + done, error.size() - done);
            if (n <= 0) break;
            done += std::size_t(n);
        }
        ::_exit(0);
    }
    ::close(pipeEnds[1]);
    Outcome out;
    char buffer[4096];
    for (ssize_t n; (n = ::read(pipeEnds[0], buffer, sizeof buffer)) > 0;)
        out.error.append(buffer, std::size_t(n));
    ::close(pipeEnds[0]);
    int status = 0;
    struct rusage usage {};
    ::wait4(child, &status, 0, &usage);
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    out.ended = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    out.peakMegabytes = usage.ru_maxrss / 1024;
    return out;
}

/// The file is refused, in bounded time and memory, with an error that names `object` (and
/// holds `detail`).
void expectRefused(const fs::path& file, const std::string& object, const std::string& detail) {
    const Outcome outcome = readInChild(file);
    ASSERT_TRUE(outcome.ended) << "the reader did not end within " << kTimeLimitSeconds
                               << " s (or crashed)";
    EXPECT_THAT(outcome.error, HasSubstr(object + ": "));
    EXPECT_THAT(outcome.error, HasSubstr(detail));
    EXPECT_LT(outcome.peakMegabytes, 400) << outcome.error;
    EXPECT_LE(outcome.error.size(), 320u) << outcome.error;
    EXPECT_EQ(outcome.error.find('\n'), std::string::npos) << outcome.error;
}

void TrajectoryReaderTest::expectRefusedOnceChanged(const std::string& object,
                                                    const std::string& detail,
                                                    std::function<void(hid_t)> mutate) {
    Spec spec;
    spec.mutate = std::move(mutate);
    writeTrajectory(at("t.h5"), spec);
    SCOPED_TRACE(object + ": " + detail);
    expectRefused(at("t.h5"), object, detail);
}

// --- valid files ----------------------------------------------------------------------------

TEST_F(TrajectoryReaderTest, ReadsEveryFrameTheFileHolds) {
    Spec spec;
    spec.fish = 4;
    spec.frames = 3;
    spec.species = {1, 2, 0, 0};
    writeTrajectory(at("t.h5"), spec);
    ASSERT_TRUE(isHdf5File(at("t.h5")));
    auto reader = TrajectoryReader::open(at("t.h5"));
    ASSERT_TRUE(reader) << reader.error();
    const TrajectoryReader& r = **reader;
    EXPECT_EQ(r.fishCount(), 4u);
    ASSERT_EQ(r.frameCount(), 3u);
    EXPECT_EQ(r.frameStep(2), 20);
    EXPECT_DOUBLE_EQ(r.frameTime(2), 1.0);
    EXPECT_EQ(r.configJson(), spec.config);
    EXPECT_EQ(r.configJsonAt(2), spec.config);
    ASSERT_EQ(r.kinds().size(), 4u);
    EXPECT_EQ(r.kinds()[0], FishKind::Leader);
    EXPECT_EQ(r.kinds()[1], FishKind::Predator);
    EXPECT_EQ(r.kinds()[3], FishKind::Fish);
    ASSERT_EQ(r.measures().values.size(), 3u);
    EXPECT_EQ(r.measures().step[1], 10);
    EXPECT_DOUBLE_EQ(r.measures().values[2].milling, 0.25);
    // A file of the first four measures: the later ones are absent, NaN.
    EXPECT_TRUE(std::isnan(r.measures().values[2].groups));
    EXPECT_TRUE(std::isnan(r.measures().values[2].directionError));
    School school(7);  // resized to the file's fish
    for (std::size_t f = 0; f < 3; ++f) {
        ASSERT_TRUE((*reader)->readFrame(f, school));
        ASSERT_EQ(school.size(), 4u);
        for (std::size_t i = 0; i < 4; ++i)
            for (int k = 0; k < 3; ++k) {
                EXPECT_EQ(school[i].position[k], positionOf(f, i, k));
                EXPECT_EQ(school[i].velocity[k], velocityOf(f, i, k));
                EXPECT_EQ(school[i].acceleration[k], 0.0f);
            }
    }
    auto beyond = (*reader)->readFrame(3, school);
    ASSERT_FALSE(beyond);
    EXPECT_THAT(beyond.error(), HasSubstr("frames 0 to 2"));
}

TEST_F(TrajectoryReaderTest, ConvertsOtherFloatAndIntegerTypesAndReadsWithoutMeasures) {
    Spec spec;
    spec.measures = false;
    spec.mutate = [&](hid_t f) {
        const auto positions = frameValues(spec, positionOf);
        std::vector<double> wide(positions.begin(), positions.end());
        replaceSet(f, "particles/school/position/value", H5T_IEEE_F64BE, {2, 3, 3},
                   H5T_NATIVE_DOUBLE, wide.data());
        const std::int16_t species[3] = {0, 0, 0};
        replaceSet(f, "particles/school/species", H5T_STD_U16BE, {3}, H5T_NATIVE_INT16, species);
    };
    writeTrajectory(at("t.h5"), spec);
    auto reader = TrajectoryReader::open(at("t.h5"));
    ASSERT_TRUE(reader) << reader.error();
    EXPECT_TRUE((*reader)->measures().values.empty());
    School school;
    ASSERT_TRUE((*reader)->readFrame(1, school));
    EXPECT_EQ(school[2].position.y, positionOf(1, 2, 1));
}

TEST_F(TrajectoryReaderTest, TheConfigAtAFrameIsTheLastChangeAtOrBeforeItsStep) {
    Spec spec;
    spec.frames = 4;  // steps 0, 10, 20, 30
    spec.changes = {{10, R"({"noise": 0.1})"}, {25, R"({"noise": 0.2})"}};
    writeTrajectory(at("t.h5"), spec);
    auto reader = TrajectoryReader::open(at("t.h5"));
    ASSERT_TRUE(reader) << reader.error();
    EXPECT_EQ((*reader)->configJsonAt(0), spec.config);
    EXPECT_EQ((*reader)->configJsonAt(1), spec.changes[0].second);
    EXPECT_EQ((*reader)->configJsonAt(2), spec.changes[0].second);
    EXPECT_EQ((*reader)->configJsonAt(3), spec.changes[1].second);
}

TEST_F(TrajectoryReaderTest, ReadsTheWritersFiles) {
    SimParams params;
    params.fishCount = 5;
    params.leaders = 1;
    params.rocks.clear();
    auto writer = TrajectoryWriter::create(at("w.h5"), params, 5);
    ASSERT_TRUE(writer) << writer.error();
    School school(5);
    for (int s = 0; s < 3; ++s) {
        for (std::size_t i = 0; i < 5; ++i) {
            school[i].position = {float(s), float(i), -1.5f};
            school[i].velocity = {0.25f, float(s) * 0.5f, float(i)};
        }
        ASSERT_TRUE(
            (*writer)->addFrame(7 * s, 0.1 * s, school, SchoolMetrics{0.5, 0.25, 1.5, 3.0 + s}));
    }
    SimParams changed = params;
    changed.noise = 0.5f;
    ASSERT_TRUE((*writer)->addParameterChange(14, 1.4, changed));
    ASSERT_TRUE((*writer)->finish());

    auto reader = TrajectoryReader::open(at("w.h5"));
    ASSERT_TRUE(reader) << reader.error();
    ASSERT_EQ((*reader)->frameCount(), 3u);
    EXPECT_EQ((*reader)->frameStep(2), 14);
    EXPECT_EQ((*reader)->kinds()[0], FishKind::Leader);
    auto config = parseConfig((*reader)->configJson());
    ASSERT_TRUE(config) << config.error();
    EXPECT_EQ(*config, params);
    auto later = parseConfig((*reader)->configJsonAt(2));
    ASSERT_TRUE(later) << later.error();
    EXPECT_EQ(later->noise, 0.5f);
    ASSERT_EQ((*reader)->measures().values.size(), 3u);
    EXPECT_EQ((*reader)->measures().values[1].meanNeighbors, 4.0);
    EXPECT_EQ((*reader)->measures().step[2], 14);
    School back;
    ASSERT_TRUE((*reader)->readFrame(2, back));
    for (std::size_t i = 0; i < 5; ++i) {
        EXPECT_EQ(back[i].position, school[i].position);
        EXPECT_EQ(back[i].velocity, school[i].velocity);
    }
}

TEST_F(TrajectoryReaderTest, ReadsEveryMeasureBackAndADirectionErrorOnlyWhereAFishIsInformed) {
    for (const bool informed : {false, true}) {
        SimParams params;
        params.fishCount = 3;
        params.rocks.clear();
        const fs::path file = at(informed ? "informed.h5" : "uninformed.h5");
        auto writer = TrajectoryWriter::create(file, params, 3);
        ASSERT_TRUE(writer) << writer.error();
        for (int s = 0; s < 2; ++s) {
            SchoolMetrics m{0.5, 0.25, 1.5, 3.0};
            m.directionError = informed ? 0.125 * s : std::nan("");
            m.groups = 2.0 + s;
            m.largestGroupShare = 0.5 + 0.25 * s;
            ASSERT_TRUE((*writer)->addFrame(5 * s, 0.1 * s, School(3), m));
        }
        ASSERT_TRUE((*writer)->finish());
        auto reader = TrajectoryReader::open(file);
        ASSERT_TRUE(reader) << reader.error();
        const TrajectoryMeasures& read = (*reader)->measures();
        ASSERT_EQ(read.values.size(), 2u);
        EXPECT_EQ(read.values[1].groups, 3.0);
        EXPECT_EQ(read.values[1].largestGroupShare, 0.75);
        if (informed)
            EXPECT_EQ(read.values[1].directionError, 0.125);
        else
            EXPECT_TRUE(std::isnan(read.values[1].directionError));
    }
}

// --- readTrajectoryStart --------------------------------------------------------------------

TEST_F(TrajectoryReaderTest, AStartIsTheLastFrameWithTheFilesConfigUnlessToldOtherwise) {
    Spec spec;
    spec.frames = 3;
    spec.changes = {{20, R"({"fishCount": 3, "bounds": [10, 10, 10], "rocks": [], "noise": 0.5})"}};
    writeTrajectory(at("t.h5"), spec);
    auto last = readTrajectoryStart(at("t.h5"), std::nullopt, {});
    ASSERT_TRUE(last) << last.error();
    EXPECT_EQ(last->frame, 2u);
    EXPECT_EQ(last->step, 20);
    EXPECT_EQ(last->params.noise, 0.5f);
    EXPECT_EQ(last->params.fishCount, 3);
    EXPECT_EQ(last->school[1].position.x, positionOf(2, 1, 0));
    auto first = readTrajectoryStart(at("t.h5"), 0, ParamFlags{.neighbors = "all-pairs"});
    ASSERT_TRUE(first) << first.error();
    EXPECT_EQ(first->params.noise, 0.0f);
    EXPECT_EQ(first->params.neighborSearch, NeighborSearch::AllPairs);
    EXPECT_EQ(first->school[1].velocity.z, velocityOf(0, 1, 2));

    auto beyond = readTrajectoryStart(at("t.h5"), 3, {});
    ASSERT_FALSE(beyond);
    EXPECT_THAT(beyond.error(), HasSubstr("--frame: 3 is not a frame"));
    EXPECT_THAT(beyond.error(), HasSubstr("frames 0 to 2"));

    // --config's tank is too small for the file's fish: the fish is named.
    { std::ofstream(at("small.json")) << R"({"bounds": [0.5, 0.5, 0.5], "rocks": []})"; }
    auto small = readTrajectoryStart(at("t.h5"), 2, ParamFlags{.configPath = at("small.json")});
    ASSERT_FALSE(small);
    EXPECT_THAT(small.error(), HasSubstr("frame 2, fish 0: the fish at"));
    EXPECT_THAT(small.error(), HasSubstr("outside the tank"));
    EXPECT_THAT(small.error(), HasSubstr("--config"));
}

TEST_F(TrajectoryReaderTest, AStartChecksTheFilesConfigAndKinds) {
    Spec bad;
    bad.config = R"({"dt": -1})";
    writeTrajectory(at("bad.h5"), bad);
    auto refused = readTrajectoryStart(at("bad.h5"), std::nullopt, {});
    ASSERT_FALSE(refused);
    EXPECT_THAT(refused.error(), HasSubstr("parameters/config"));
    EXPECT_THAT(refused.error(), HasSubstr("dt: -1 is not allowed"));

    Spec kinds;
    kinds.species = {1, 0, 0};
    writeTrajectory(at("kinds.h5"), kinds);
    auto mismatch = readTrajectoryStart(at("kinds.h5"), std::nullopt, {});
    ASSERT_FALSE(mismatch);
    EXPECT_THAT(mismatch.error(),
                HasSubstr("particles/school/species: the file has leaders 1, predators 0"));
}

// --- hostile files ----------------------------------------------------------------------------

TEST_F(TrajectoryReaderTest, FilesThatAreNotTrajectoriesAreRefusedByName) {
    {
        std::ofstream(at("text.h5")) << "x,y,z,vx,vy,vz\n1,2,3,4,5,6\n";
        std::ofstream empty(at("empty.h5"));
    }
    EXPECT_FALSE(isHdf5File(at("text.h5")));
    expectRefused(at("text.h5"), "text.h5", "is not an HDF5 file");
    expectRefused(at("empty.h5"), "empty.h5", "is empty");
    ASSERT_EQ(::mkfifo(at("fifo.h5").c_str(), 0600), 0);
    EXPECT_FALSE(isHdf5File(at("fifo.h5")));
    expectRefused(at("fifo.h5"), "fifo.h5", "is not a regular file");
    fs::create_directories(at("folder.h5"));
    expectRefused(at("folder.h5"), "folder.h5", "is a folder");
    expectRefused(at("missing.h5"), "missing.h5", "No such file");
    // An HDF5 file of another kind, and one cut short.
    const hdf5::File other{
        H5Fcreate(at("other.h5").c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT)};
    const_cast<hdf5::File&>(other).reset();
    expectRefused(at("other.h5"), "h5md", "is missing");
    writeTrajectory(at("t.h5"), Spec{});
    fs::resize_file(at("t.h5"), fs::file_size(at("t.h5")) / 2);
    expectRefused(at("t.h5"), "t.h5", "cannot be read as an HDF5 file");
}

TEST_F(TrajectoryReaderTest, WrongShapesTypesAndMissingObjectsAreNamed) {
    const auto refused = [&](const std::string& object, const std::string& detail,
                             std::function<void(hid_t)> mutate) {
        expectRefusedOnceChanged(object, detail, std::move(mutate));
    };
    refused("particles/school/velocity", "is missing",
            [](hid_t f) { H5Ldelete(f, "particles/school/velocity", H5P_DEFAULT); });
    refused("particles/school/position/value", "must be 3", [](hid_t f) {
        replaceZeros(f, "particles/school/position/value", H5T_IEEE_F32LE, {2, 3, 2});
    });
    refused("particles/school/position/value", "array of 3 dimensions", [](hid_t f) {
        replaceZeros(f, "particles/school/position/value", H5T_IEEE_F32LE, {2, 9});
    });
    refused("particles/school/velocity/value", "must match", [](hid_t f) {
        replaceZeros(f, "particles/school/velocity/value", H5T_IEEE_F32LE, {2, 2, 3});
    });
    refused("particles/school/position/step", "one a frame (2)",
            [](hid_t f) { replaceZeros(f, "particles/school/position/step", H5T_STD_I64LE, {3}); });
    refused("particles/school/position/value", "must be IEEE floating point", [](hid_t f) {
        replaceZeros(f, "particles/school/position/value", H5T_STD_I32LE, {2, 3, 3});
    });
    refused("particles/school/position/value", "must be IEEE floating point", [](hid_t f) {
        const hdf5::Datatype pair{H5Tcreate(H5T_COMPOUND, 8)};
        H5Tinsert(pair.get(), "a", 0, H5T_IEEE_F32LE);
        H5Tinsert(pair.get(), "b", 4, H5T_IEEE_F32LE);
        replaceZeros(f, "particles/school/position/value", pair.get(), {2, 3, 3});
    });
    refused("particles/school/position/step", "must be a standard integer", [](hid_t f) {
        replaceZeros(f, "particles/school/position/step", H5T_IEEE_F64LE, {2});
    });
    refused("particles/school/position/step", "steps must be >= 0 and increase", [](hid_t f) {
        const std::int64_t steps[2] = {5, 5};
        replaceSet(f, "particles/school/position/step", H5T_STD_I64LE, {2}, H5T_NATIVE_INT64,
                   steps);
    });
    refused("particles/school/species", "allowed: 0 (fish), 1 (leader), 2 (predator)", [](hid_t f) {
        const std::int32_t species[3] = {0, 7, 0};
        replaceSet(f, "particles/school/species", H5T_STD_I32LE, {3}, H5T_NATIVE_INT32, species);
    });
    refused("particles/school/species", "leaders come first", [](hid_t f) {
        const std::int32_t species[3] = {0, 1, 0};
        replaceSet(f, "particles/school/species", H5T_STD_I32LE, {3}, H5T_NATIVE_INT32, species);
    });
    refused("parameters/config", "is missing",
            [](hid_t f) { H5Ldelete(f, "parameters/config", H5P_DEFAULT); });
    refused("parameters/config", "must be a string", [](hid_t f) {
        const double number = 1.0;
        replaceSet(f, "parameters/config", H5T_IEEE_F64LE, {}, H5T_NATIVE_DOUBLE, &number);
    });
    refused("observables/milling", "other steps or times than particles/school/position's",
            [](hid_t f) {
                const std::int64_t steps[2] = {0, 3};
                replaceSet(f, "observables/milling/step", H5T_STD_I64LE, {2}, H5T_NATIVE_INT64,
                           steps);
            });
    // MDAnalysis reads value[frame] at each frame: one value a frame, or no observables.
    refused("observables/polarization/step", "holds 1 values; the file has 2 frames", [](hid_t f) {
        const std::int64_t step = 0;
        replaceSet(f, "observables/polarization/step", H5T_STD_I64LE, {1}, H5T_NATIVE_INT64, &step);
    });
    refused("observables/neighbors/value", "measures must be finite", [](hid_t f) {
        const double values[2] = {1.0, std::numeric_limits<double>::infinity()};
        replaceSet(f, "observables/neighbors/value", H5T_IEEE_F64LE, {2}, H5T_NATIVE_DOUBLE,
                   values);
    });
    refused("particles/school", "must be a group; it is a dataset", [](hid_t f) {
        H5Ldelete(f, "particles/school", H5P_DEFAULT);
        const double one = 1.0;
        writeSet(f, "particles/school", H5T_IEEE_F64LE, {}, H5T_NATIVE_DOUBLE, &one);
    });
}

TEST_F(TrajectoryReaderTest, SizesTheFileCannotHoldAreRefusedBeforeReading) {
    const auto refused = [&](const std::string& object, const std::string& detail,
                             std::function<void(hid_t)> mutate) {
        expectRefusedOnceChanged(object, detail, std::move(mutate));
    };
    // 10^12 elements in a file of a few kB: contiguous, never written.
    refused("particles/school/position/value", "claims more data than the file holds", [](hid_t f) {
        replaceSet(f, "particles/school/position/value", H5T_IEEE_F32LE, {1'000'000, 1'000'000, 3});
    });
    // The same, chunked: its chunks never written.
    refused("particles/school/position/value", "claims more data than the file holds", [](hid_t f) {
        const hdf5::PropertyList create{H5Pcreate(H5P_DATASET_CREATE)};
        const hsize_t chunk[3] = {1, 1000, 3};
        H5Pset_chunk(create.get(), 3, chunk);
        replaceSet(f, "particles/school/position/value", H5T_IEEE_F32LE, {1'000'000, 1'000'000, 3},
                   H5T_NATIVE_FLOAT, nullptr, create.get());
    });
    // Within the file's size, but never written: read as fill values otherwise.
    refused("particles/school/velocity/value", "every element must be written", [](hid_t f) {
        std::vector<float> padding(1 << 16, 1.0f);
        writeSet(f, "padding", H5T_IEEE_F32LE, {padding.size()}, H5T_NATIVE_FLOAT, padding.data());
        const hdf5::PropertyList create{H5Pcreate(H5P_DATASET_CREATE)};
        const hsize_t chunk[3] = {1, 3, 3};
        H5Pset_chunk(create.get(), 3, chunk);
        replaceSet(f, "particles/school/velocity/value", H5T_IEEE_F32LE, {2, 3, 3},
                   H5T_NATIVE_FLOAT, nullptr, create.get());
    });
    refused("particles/school/velocity/value", "has no data stored", [](hid_t f) {
        std::vector<float> padding(1 << 16, 1.0f);
        writeSet(f, "padding", H5T_IEEE_F32LE, {padding.size()}, H5T_NATIVE_FLOAT, padding.data());
        replaceSet(f, "particles/school/velocity/value", H5T_IEEE_F32LE, {2, 3, 3});
    });
    // A compressed bomb: 100 frames of 100,000 fish of zeros, deflated to a few kB.
    refused("particles/school/position/value", "filter deflate", [](hid_t f) {
        const hdf5::PropertyList create{H5Pcreate(H5P_DATASET_CREATE)};
        const hsize_t chunk[3] = {1, 100'000, 3};
        H5Pset_chunk(create.get(), 3, chunk);
        H5Pset_deflate(create.get(), 9);
        H5Pset_fill_value(create.get(), H5T_NATIVE_FLOAT, std::vector<float>{0.0f}.data());
        H5Pset_alloc_time(create.get(), H5D_ALLOC_TIME_EARLY);
        replaceSet(f, "particles/school/position/value", H5T_IEEE_F32LE, {100, 100'000, 3},
                   H5T_NATIVE_FLOAT, nullptr, create.get());
    });
    // A string of 100 MB claimed by its type.
    refused("parameters/config", "strings of 104857600 bytes; at most 1048576", [](hid_t f) {
        const hdf5::Datatype huge{H5Tcopy(H5T_C_S1)};
        H5Tset_size(huge.get(), std::size_t{100} << 20);
        replaceSet(f, "parameters/config", huge.get(), {});
    });
    // A string of 2 MiB really stored: read, and refused.
    refused("parameters/config", "a string of 2097152 bytes; at most 1048576", [](hid_t f) {
        const std::string text(std::size_t{2} << 20, ' ');
        const char* data = text.c_str();
        const hdf5::Datatype type = variableString();
        replaceSet(f, "parameters/config", type.get(), {}, type.get(), &data);
    });
    // Chunks of a gigabyte each.
    refused("particles/school/position/value", "a chunk may hold at most", [](hid_t f) {
        const hdf5::PropertyList create{H5Pcreate(H5P_DATASET_CREATE)};
        const hsize_t chunk[3] = {100'000, 1000, 3};
        H5Pset_chunk(create.get(), 3, chunk);
        const hsize_t dims[3] = {2, 3, 3}, max[3] = {H5S_UNLIMITED, H5S_UNLIMITED, 3};
        const hdf5::Dataspace space{H5Screate_simple(3, dims, max)};
        H5Ldelete(f, "particles/school/position/value", H5P_DEFAULT);
        const hdf5::Dataset set{H5Dcreate2(f, "particles/school/position/value", H5T_IEEE_F32LE,
                                           space.get(), H5P_DEFAULT, create.get(), H5P_DEFAULT)};
    });
}

/// Replaces the first run of `from`'s bytes in `file` by `to`'s (as long); false where none is.
bool patchBytes(const fs::path& file, const std::string& from, const std::string& to) {
    std::string bytes;
    {
        std::ifstream in(file, std::ios::binary);
        bytes.assign(std::istreambuf_iterator<char>(in), {});
    }
    const std::size_t at = bytes.find(from);
    if (at == std::string::npos || bytes.find(from, at + 1) != std::string::npos) return false;
    bytes.replace(at, from.size(), to);
    std::ofstream(file, std::ios::binary | std::ios::trunc) << bytes;
    return true;
}

/// Little-endian 32-bit words, as HDF5's layout message holds a chunk's dimensions.
std::string words(std::initializer_list<std::uint32_t> values) {
    std::string out;
    for (std::uint32_t v : values)
        for (int b = 0; b < 4; ++b) out.push_back(char((v >> (8 * b)) & 0xff));
    return out;
}

TEST_F(TrajectoryReaderTest, WhatAFileClaimsIsCheckedAgainstWhatItHolds) {
    // A chunk shape edited from 1 x 6 x 3 to 1 x 2 x 3: the file's chunks hold whole frames, so
    // fish 2 to 5 would read as HDF5's fill value, 0.
    Spec six;
    six.fish = 6;
    six.frames = 3;
    six.config = R"({"fishCount": 6, "bounds": [10, 10, 10], "rocks": []})";
    six.mutate = [](hid_t f) {
        const hdf5::PropertyList create{H5Pcreate(H5P_DATASET_CREATE)};
        const hsize_t chunk[3] = {1, 6, 3};
        H5Pset_chunk(create.get(), 3, chunk);
        const std::vector<float> values(3 * 6 * 3, 1.0f);
        replaceSet(f, "particles/school/position/value", H5T_IEEE_F32LE, {3, 6, 3},
                   H5T_NATIVE_FLOAT, values.data(), create.get());
    };
    writeTrajectory(at("chunks.h5"), six);
    ASSERT_TRUE(TrajectoryReader::open(at("chunks.h5"))) << "the file as written reads";
    ASSERT_TRUE(patchBytes(at("chunks.h5"), words({1, 6, 3, 4}), words({1, 2, 3, 4})));
    expectRefused(
        at("chunks.h5"), "particles/school/position/value",
        "has 3 chunks written where its 3 x 6 x 3 elements in chunks of 1 x 2 x 3 take 9");

    // A config with a NUL byte inside, fixed-length and variable-length: refused as a config
    // file with one is, not read up to the NUL.
    const std::string config = R"({"fishCount": 3, "bounds": [10, 10, 10], "rocks": []})";
    Spec fixed;
    fixed.mutate = [&](hid_t f) {
        const std::string text = config + std::string(1, '\0') + R"({"dt": -1})";
        const hdf5::Datatype type{H5Tcopy(H5T_C_S1)};
        H5Tset_size(type.get(), text.size());
        H5Tset_strpad(type.get(), H5T_STR_NULLPAD);
        replaceSet(f, "parameters/config", type.get(), {}, type.get(), text.data());
    };
    writeTrajectory(at("t.h5"), fixed);
    expectRefused(at("t.h5"), "parameters/config",
                  "holds a NUL byte at byte " + std::to_string(config.size()));
    Spec variable;
    variable.config = R"({"fishCount": 3, "bounds": [10, 10, 10], "rocks": [], "noise": 0.25})";
    writeTrajectory(at("v.h5"), variable);
    ASSERT_TRUE(TrajectoryReader::open(at("v.h5")));
    ASSERT_TRUE(patchBytes(at("v.h5"), R"("noise": 0.25})",
                           R"("noise": 0)" + std::string(1, '\0') + "25}"));
    expectRefused(at("v.h5"), "parameters/config", "holds a NUL byte at byte");
    // Padding after the text is no lie: NULs, or spaces for a space-padded string.
    Spec padded;
    padded.mutate = [&](hid_t f) {
        const std::string text = config + std::string(7, '\0');
        const hdf5::Datatype type{H5Tcopy(H5T_C_S1)};
        H5Tset_size(type.get(), text.size());
        H5Tset_strpad(type.get(), H5T_STR_NULLPAD);
        replaceSet(f, "parameters/config", type.get(), {}, type.get(), text.data());
    };
    writeTrajectory(at("padded.h5"), padded);
    auto read = TrajectoryReader::open(at("padded.h5"));
    ASSERT_TRUE(read) << read.error();
    EXPECT_EQ((*read)->configJson(), config);
}

TEST_F(TrajectoryReaderTest, SpeciesFollowTheOneRuleOfEveryState) {
    // A file with species (kind beside species) whose species passes its config's.
    const auto withSpecies = [&](const char* name, std::vector<std::int32_t> species,
                                 const std::string& config) {
        Spec spec;
        spec.config = config;
        spec.mutate = [species](hid_t f) {
            replaceSet(f, "particles/school/species", H5T_STD_I32LE, {3}, H5T_NATIVE_INT32,
                       species.data());
            const std::vector<std::int32_t> kinds(3, 0);
            writeSet(f, "particles/school/kind", H5T_STD_I32LE, {3}, H5T_NATIVE_INT32,
                     kinds.data());
        };
        writeTrajectory(at(name), spec);
    };
    const std::string two =
        R"({"fishCount": 3, "bounds": [10, 10, 10], "rocks": [], "species": [
            {"name": "a", "count": 2}, {"name": "b", "count": 1}]})";
    withSpecies("beyond.h5", {0, 2, 1}, two);
    expectRefused(at("beyond.h5"), "particles/school/species",
                  "fish 1: species 2 is not allowed; must be a species' index, 0 to 1");
    withSpecies("none.h5", {0, 1, 0}, R"({"fishCount": 3, "bounds": [10, 10, 10], "rocks": []})");
    expectRefused(at("none.h5"), "particles/school/species",
                  "fish 1: species 1 is not allowed; the configuration has no species");
    // Against --config's species too, as a state file's column is.
    withSpecies("ok.h5", {1, 0, 1}, two);
    ASSERT_TRUE(TrajectoryReader::open(at("ok.h5")));
    std::ofstream(at("one.json")) << R"({"bounds": [10, 10, 10], "rocks": []})";
    auto refused = readTrajectoryStart(at("ok.h5"), std::nullopt,
                                       ParamFlags{.configPath = at("one.json").string()});
    ASSERT_FALSE(refused);
    EXPECT_THAT(refused.error(), HasSubstr("particles/school/species: fish 0: species 1 is not "
                                           "allowed; the configuration has no species"));
    auto kept = readTrajectoryStart(at("ok.h5"), std::nullopt, {});
    ASSERT_TRUE(kept) << kept.error();
    EXPECT_EQ(kept->school[0].species, 1u);
    EXPECT_EQ(kept->params.species[0].count, 1);  // counted from the school
    EXPECT_EQ(kept->params.species[1].count, 2);

    // A file without species into parameters with species: the species they deal, as a state
    // file without the column gets; never every fish species 0.
    writeTrajectory(at("plain.h5"), Spec{});
    std::ofstream(at("two.json")) << two;
    const ParamFlags flags{.configPath = at("two.json").string()};
    auto dealt = readTrajectoryStart(at("plain.h5"), std::nullopt, flags);
    ASSERT_TRUE(dealt) << dealt.error();
    auto params = loadParams(flags);
    ASSERT_TRUE(params);
    std::string csv = "x,y,z,vx,vy,vz\n";
    for (const Fish& fish : dealt->school)
        csv += std::to_string(fish.position.x) + "," + std::to_string(fish.position.y) + "," +
               std::to_string(fish.position.z) + ",0,0,0\n";
    auto state = parseStateCsv(csv, *params, "s.csv");
    ASSERT_TRUE(state) << state.error();
    ASSERT_EQ(dealt->school.size(), 3u);
    for (std::size_t i = 0; i < 3; ++i) {
        EXPECT_EQ(dealt->school[i].species, speciesOf(i, *params)) << i;
        EXPECT_EQ(dealt->school[i].species, (*state)[i].species) << i;
    }
    EXPECT_EQ(dealt->school[2].species, 1u);
    EXPECT_EQ(dealt->params.species[1].count, 1);
}

TEST_F(TrajectoryReaderTest, NothingOutsideTheFileIsFollowed) {
    // The file others point to: a valid trajectory.
    writeTrajectory(at("other.h5"), Spec{});
    std::vector<float> raw(18, 1.0f);
    {
        std::ofstream out(at("raw.bin"), std::ios::binary);
        out.write(reinterpret_cast<const char*>(raw.data()), std::streamsize(raw.size() * 4));
    }
    const auto refused = [&](const std::string& object, const std::string& detail,
                             std::function<void(hid_t)> mutate) {
        expectRefusedOnceChanged(object, detail, std::move(mutate));
    };
    const std::string other = at("other.h5").string();
    refused("particles/school/velocity", "is an external link", [&](hid_t f) {
        H5Ldelete(f, "particles/school/velocity", H5P_DEFAULT);
        H5Lcreate_external(other.c_str(), "/particles/school/velocity", f,
                           "particles/school/velocity", H5P_DEFAULT, H5P_DEFAULT);
    });
    refused("particles/school/position/value", "is a virtual dataset", [&](hid_t f) {
        const hdf5::PropertyList create{H5Pcreate(H5P_DATASET_CREATE)};
        const hsize_t dims[3] = {2, 3, 3};
        const hdf5::Dataspace space{H5Screate_simple(3, dims, nullptr)};
        H5Pset_virtual(create.get(), space.get(), other.c_str(), "/particles/school/position/value",
                       space.get());
        H5Ldelete(f, "particles/school/position/value", H5P_DEFAULT);
        const hdf5::Dataset set{H5Dcreate2(f, "particles/school/position/value", H5T_IEEE_F32LE,
                                           space.get(), H5P_DEFAULT, create.get(), H5P_DEFAULT)};
        ASSERT_TRUE(set.valid());
    });
    // A virtual dataset whose source is a FIFO: refused before anything opens it.
    ASSERT_EQ(::mkfifo(at("fifo.h5").c_str(), 0600), 0);
    const std::string fifo = at("fifo.h5").string();
    refused("particles/school/position/value", "is a virtual dataset", [&](hid_t f) {
        const hdf5::PropertyList create{H5Pcreate(H5P_DATASET_CREATE)};
        const hsize_t dims[3] = {2, 3, 3};
        const hdf5::Dataspace space{H5Screate_simple(3, dims, nullptr)};
        H5Pset_virtual(create.get(), space.get(), fifo.c_str(), "/x", space.get());
        H5Ldelete(f, "particles/school/position/value", H5P_DEFAULT);
        const hdf5::Dataset set{H5Dcreate2(f, "particles/school/position/value", H5T_IEEE_F32LE,
                                           space.get(), H5P_DEFAULT, create.get(), H5P_DEFAULT)};
    });
    const std::string rawName = at("raw.bin").string();
    refused("particles/school/velocity/value", "external files", [&](hid_t f) {
        const hdf5::PropertyList create{H5Pcreate(H5P_DATASET_CREATE)};
        H5Pset_external(create.get(), rawName.c_str(), 0, 18 * 4);
        replaceSet(f, "particles/school/velocity/value", H5T_IEEE_F32LE, {2, 3, 3},
                   H5T_NATIVE_FLOAT, nullptr, create.get());
    });
    refused("particles/school/velocity/step", "is a soft link", [&](hid_t f) {
        H5Ldelete(f, "particles/school/velocity/step", H5P_DEFAULT);
        H5Lcreate_soft("/particles/school/velocity/step", f, "particles/school/velocity/step",
                       H5P_DEFAULT, H5P_DEFAULT);
    });
    refused("particles", "is a soft link", [&](hid_t f) {
        H5Lcreate_soft("/b", f, "a", H5P_DEFAULT, H5P_DEFAULT);
        H5Lcreate_soft("/a", f, "b", H5P_DEFAULT, H5P_DEFAULT);
        H5Lmove(f, "particles", f, "real", H5P_DEFAULT, H5P_DEFAULT);
        H5Lcreate_soft("/a", f, "particles", H5P_DEFAULT, H5P_DEFAULT);
    });
}

TEST_F(TrajectoryReaderTest, ValuesThatAreNotFiniteNameTheFrameAndFish) {
    Spec spec;
    spec.mutate = [&](hid_t f) {
        auto positions = frameValues(spec, positionOf);
        positions[(1 * 3 + 2) * 3 + 1] = std::numeric_limits<float>::quiet_NaN();
        replaceSet(f, "particles/school/position/value", H5T_IEEE_F32LE, {2, 3, 3},
                   H5T_NATIVE_FLOAT, positions.data());
        auto velocities = frameValues(spec, velocityOf);
        std::vector<double> wide(velocities.begin(), velocities.end());
        wide[2] = 1e300;  // beyond float32
        replaceSet(f, "particles/school/velocity/value", H5T_IEEE_F64LE, {2, 3, 3},
                   H5T_NATIVE_DOUBLE, wide.data());
    };
    writeTrajectory(at("t.h5"), spec);
    auto reader = TrajectoryReader::open(at("t.h5"));
    ASSERT_TRUE(reader) << reader.error();
    School school;
    auto first = (*reader)->readFrame(0, school);
    ASSERT_FALSE(first);
    EXPECT_THAT(first.error(),
                HasSubstr("particles/school/velocity/value: frame 0, fish 0: z = inf"));
    auto second = (*reader)->readFrame(1, school);
    ASSERT_FALSE(second);
    EXPECT_THAT(second.error(),
                HasSubstr("particles/school/position/value: frame 1, fish 2: y = nan"));
    auto start = readTrajectoryStart(at("t.h5"), 1, {});
    ASSERT_FALSE(start);
    EXPECT_THAT(start.error(), HasSubstr("frame 1, fish 2"));
}

TEST_F(TrajectoryReaderTest, ChangesAreBounded) {
    Spec spec;
    spec.changes = {{0, "{}"}, {10, "{}"}};
    spec.mutate = [](hid_t f) {
        const std::int64_t steps[2] = {10, 0};
        replaceSet(f, "parameters/changes/step", H5T_STD_I64LE, {2}, H5T_NATIVE_INT64, steps);
    };
    writeTrajectory(at("t.h5"), spec);
    expectRefused(at("t.h5"), "parameters/changes/step", "never decrease");
    spec.mutate = [](hid_t f) {
        replaceSet(f, "parameters/changes/value", variableString().get(), {3},
                   variableString().get(), std::vector<const char*>{"{}", "{}", "{}"}.data());
    };
    writeTrajectory(at("t.h5"), spec);
    expectRefused(at("t.h5"), "parameters/changes/value", "parameters/changes/step holds 2");
}

TEST_F(TrajectoryReaderTest, AFrameOfAHundredThousandFishReadsFast) {
    Spec spec;
    spec.fish = 100'000;
    spec.frames = 3;
    spec.measures = false;
    writeTrajectory(at("t.h5"), spec);
    auto reader = TrajectoryReader::open(at("t.h5"));
    ASSERT_TRUE(reader) << reader.error();
    School school;
    ASSERT_TRUE((*reader)->readFrame(0, school));
    const auto started = std::chrono::steady_clock::now();
    constexpr int kReads = 20;
    for (int k = 0; k < kReads; ++k) ASSERT_TRUE((*reader)->readFrame(std::size_t(k % 3), school));
    const double milliseconds =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started)
            .count() /
        kReads;
    RecordProperty("frame_ms", std::to_string(milliseconds));
    std::printf("a frame of 100,000 fish: %.2f ms\n", milliseconds);
    EXPECT_LT(milliseconds, 100.0);
    EXPECT_EQ(school[99'999].position.z, positionOf(19 % 3, 99'999, 2));
}

}  // namespace
}  // namespace fishschool
