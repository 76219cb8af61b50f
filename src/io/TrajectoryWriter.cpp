// Writes a trajectory (Trajectory.h: the layout) through HDF5's C library. The caller's thread
// copies each frame into a float32 buffer and queues it; a thread of the writer's own writes the
// queue to the file, so that a step waits on the disk only when the queue is full.

#include <hdf5.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "core/Messages.h"
#include "fishschool/Trajectory.h"
#include "io/ConfigIO.h"
#include "io/Hdf5Handles.h"
#include "io/StateIO.h"

namespace fishschool {
namespace {

namespace fs = std::filesystem;

/// A chunk of a frame's values holds about this many bytes.
constexpr std::size_t kChunkBytes = std::size_t{1} << 20;
/// Frames in one chunk, for a small school: more would make a short file large (chunks are
/// allocated whole: 6 fish and 3 frames took 232 kB with 256 frames a chunk).
constexpr std::size_t kMaxFramesPerChunk = 64;
/// Elements in one chunk of the one-dimensional datasets (steps, times, measures): 1 kB of
/// doubles, small for a short file, few chunks for a long one.
constexpr hsize_t kSeriesChunk = 128;

/// HDF5's reason for a failure, from the error stack `stack`: the system's message when a
/// system call failed ("No space left on device"), else the innermost description, with
/// `systemError` (errno after the call that failed) when that names none.
std::string hdf5Reason(hid_t stack, int systemError) {
    std::vector<std::string> descriptions;
    H5Ewalk2(
        stack, H5E_WALK_DOWNWARD,
        [](unsigned, const H5E_error2_t* error, void* data) -> herr_t {
            if (error->desc) static_cast<std::vector<std::string>*>(data)->push_back(error->desc);
            return 0;
        },
        &descriptions);
    for (const std::string& text : descriptions) {
        const std::string marker = "error message = '";
        const std::size_t at = text.find(marker);
        if (at == std::string::npos) continue;
        const std::size_t end = text.find('\'', at + marker.size());
        return text.substr(at + marker.size(),
                           end == std::string::npos ? end : end - at - marker.size());
    }
    std::string reason =
        descriptions.empty() ? std::string("HDF5 gave no reason") : descriptions.back();
    if (systemError != 0) reason.append(": ").append(std::strerror(systemError));
    return reason;
}

/// The reason of this thread's last failed HDF5 call, kept when it failed: the calls after it
/// (a handle's close) clear HDF5's error stack.
thread_local std::string lastFailure;

/// Keeps each failure's reason (HDF5 calls this as a call fails) and prints nothing: what
/// hdf5::silenceErrorStack() does, with the reason kept for the message.
void recordFailures() {
    lastFailure.clear();
    H5Eset_auto2(
        H5E_DEFAULT,
        [](hid_t stack, void*) -> herr_t {
            const int systemError = errno;
            lastFailure = hdf5Reason(stack, systemError);
            errno = systemError;
            return 0;
        },
        nullptr);
}

/// How a frame's values are cut into chunks: whole frames, several to a chunk, for a school
/// whose frame is under kChunkBytes; else one frame a chunk, the fish split in pieces.
struct ValueChunks {
    hsize_t frames = 1;
    hsize_t fish = 1;
};

ValueChunks valueChunks(std::size_t fishCount) {
    const std::size_t frameBytes = std::max<std::size_t>(fishCount, 1) * 3 * sizeof(float);
    if (frameBytes <= kChunkBytes)
        return {std::clamp<hsize_t>(kChunkBytes / frameBytes, 1, kMaxFramesPerChunk),
                std::max<hsize_t>(fishCount, 1)};
    const std::size_t pieces = (frameBytes + kChunkBytes - 1) / kChunkBytes;
    return {1, (fishCount + pieces - 1) / pieces};
}

/// A time-dependent element: step, time and value datasets.
struct Series {
    hdf5::Dataset step, time, value;
};

/// One thing the writer's thread writes.
struct Item {
    enum class Kind { Frame, Change, Attributes, Species } kind = Kind::Frame;
    std::int64_t step = 0;
    double time = 0.0;
    float* buffer = nullptr;  ///< Frame: positions, velocities, then kick clocks where recorded
    std::array<float, 3> edges{};           ///< Frame: the tank's full extents
    std::optional<SchoolMetrics> measures;  ///< Frame: the school's measures at this step
    std::string config;  ///< Change: the whole config's JSON; Attributes: the group's path
    std::vector<TrajectoryAttribute> attributes;  ///< Attributes
    std::vector<std::int32_t> species;            ///< Species: each fish's
    std::size_t bytes = 0;                        ///< what it counts against the queue's bound
};

class Hdf5TrajectoryWriter final : public TrajectoryWriter {
  public:
    Hdf5TrajectoryWriter(fs::path file, const std::string& name, std::size_t fishCount,
                         std::size_t queueBytes, bool kickClocks)
        : file_(std::move(file)),
          fileName_(printable(name.empty() ? file_.string() : name, 200)),
          fishCount_(fishCount),
          queueBytes_(queueBytes),
          kickClocks_(kickClocks) {}

    ~Hdf5TrajectoryWriter() override {
        if (!finished_) (void)finish();
    }

    /// `species`: each fish's species (the school's), or empty for a new school's.
    Result<void> open(const SimParams& params, std::span<const std::uint32_t> species,
                      std::span<const std::uint8_t> missing);

    using TrajectoryWriter::addFrameFrom;
    Result<void> addFrameFrom(std::int64_t step, double timeSeconds, const FrameFill& fill,
                              std::span<const float> kickClocks,
                              const std::optional<SchoolMetrics>& measures) override;
    bool recordsKickClocks() const override { return kickClocks_; }
    Result<void> addParameterAttributes(const std::string& group,
                                        std::vector<TrajectoryAttribute> attributes) override;
    Result<void> addParameterChange(std::int64_t step, double timeSeconds, const SimParams& params,
                                    std::span<const std::uint32_t> species = {}) override;
    Result<void> finish() override;
    std::size_t frameCount() const override { return framesGiven_; }
    std::size_t fishCount() const override { return fishCount_; }
    const std::string& name() const override { return fileName_; }

  private:
    /// After the HDF5 call that failed: its reason, kept when it failed (recordFailures).
    Result<void> failure(const std::string& what) const {
        std::string reason = std::exchange(lastFailure, {});
        if (reason.empty()) reason = "HDF5 gave no reason";
        return fail(fileName_ + ": " + what + ": " + reason, ErrorKind::System);
    }
    /// Waits until `bytes` more fit the queue's bound (or the queue is empty).
    void waitForRoom(std::unique_lock<std::mutex>& lock, std::size_t bytes);
    Result<void> enqueue(Item item);

    /// observables/NAME for each measure of kSchoolMeasures that the first frame's `measures`
    /// have (a direction error only where a fish is informed).
    Result<void> makeObservables(const SchoolMetrics& measures);
    void run();
    Result<void> write(const Item& item);
    Result<void> writeFrame(const Item& item);
    Result<void> writeAttributes(const Item& item);
    Result<void> writeSpecies(const Item& item);
    Result<void> appendScalar(const Series& series, hsize_t index, std::int64_t step, double time,
                              const void* value, hid_t memoryType);

    fs::path file_;
    std::string fileName_;
    std::size_t fishCount_;
    std::size_t queueBytes_;
    bool kickClocks_;  ///< particles/school/kick_clock: the steering is burst-and-coast
    std::size_t framesGiven_ = 0;
    bool framesMeasured_ = false;  ///< the first frame's choice, which every frame follows
    bool finished_ = false;

    hdf5::File h5_;
    hdf5::Dataset positionStep_, positionTime_, positionValue_, velocityValue_, edgesValue_,
        kickClockValue_;
    std::array<float, 3> edges_{};  ///< the tank's, as the caller last gave it
    /// Per measure of kSchoolMeasures, its values (none where the file has it not); step and
    /// time are position's.
    std::array<hdf5::Dataset, kSchoolMeasures.size()> observables_;
    Series changes_;
    hsize_t framesWritten_ = 0, changesWritten_ = 0;
    /// Each fish's species as last recorded (the caller's side), and the series of them after
    /// changes (the writer's thread: made with the first).
    std::vector<std::int32_t> recordedSpecies_;
    Series speciesSeries_;
    hsize_t speciesWritten_ = 0;

    std::mutex mutex_;
    std::condition_variable queued_, drained_;
    std::deque<Item> queue_;
    std::size_t bytesInFlight_ = 0;  ///< queued, and being written
    /// Frame buffers, positions, velocities and kick clocks, reused: none is made once the queue
    /// has been as full as it gets.
    std::vector<std::unique_ptr<float[]>> buffers_;
    std::vector<float*> freeBuffers_;
    bool stopping_ = false;
    Error error_;  ///< the first failure of the writer's thread
    std::atomic<bool> failed_{false};
    std::thread thread_;
};

// --- building the file -----------------------------------------------------------------------

hdf5::Datatype stringType() {
    hdf5::Datatype type{H5Tcopy(H5T_C_S1)};
    H5Tset_size(type.get(), H5T_VARIABLE);
    H5Tset_cset(type.get(), H5T_CSET_UTF8);
    return type;
}

bool writeStringAttribute(hid_t object, const char* name, const std::string& value) {
    const hdf5::Datatype type = stringType();
    const hdf5::Dataspace space{H5Screate(H5S_SCALAR)};
    const hdf5::Attribute attribute{
        H5Acreate2(object, name, type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT)};
    const char* text = value.c_str();
    return attribute.valid() && H5Awrite(attribute.get(), type.get(), &text) >= 0;
}

bool writeUnit(hid_t object, const char* unit) {
    return writeStringAttribute(object, "fishschool_unit", unit);
}

template <class T>
bool writeArrayAttribute(hid_t object, const char* name, hid_t fileType, hid_t memoryType,
                         std::span<const T> values) {
    const hsize_t size = values.size();
    const hdf5::Dataspace space{values.size() == 1 ? H5Screate(H5S_SCALAR)
                                                   : H5Screate_simple(1, &size, nullptr)};
    const hdf5::Attribute attribute{
        H5Acreate2(object, name, fileType, space.get(), H5P_DEFAULT, H5P_DEFAULT)};
    return attribute.valid() && H5Awrite(attribute.get(), memoryType, values.data()) >= 0;
}

/// Creation properties of `propertyClass` without HDF5's object times: the same run writes the
/// same bytes, whenever it runs.
hdf5::PropertyList untimed(hid_t propertyClass) {
    hdf5::PropertyList create{H5Pcreate(propertyClass)};
    H5Pset_obj_track_times(create.get(), 0);
    return create;
}

/// The group `path` and each group above it not made yet, in turn (none with times).
hdf5::Group makeGroup(hid_t parent, const char* path) {
    const hdf5::PropertyList create = untimed(H5P_GROUP_CREATE);
    const std::string full(path);
    for (std::size_t at = 0;;) {
        const std::size_t slash = full.find('/', at);
        const std::string partial = full.substr(0, slash);
        const bool last = slash == std::string::npos;
        if (H5Lexists(parent, partial.c_str(), H5P_DEFAULT) > 0) {
            if (last) return hdf5::Group{H5Gopen2(parent, partial.c_str(), H5P_DEFAULT)};
        } else {
            hdf5::Group made{
                H5Gcreate2(parent, partial.c_str(), H5P_DEFAULT, create.get(), H5P_DEFAULT)};
            if (last || !made.valid()) return made;
        }
        at = slash + 1;
    }
}

/// A dataset that grows along its first dimension, chunked by `chunk`, read and written with a
/// chunk cache of `cacheBytes` (fully written chunks leave it first).
hdf5::Dataset makeGrowing(hid_t parent, const char* name, hid_t type,
                          std::span<const hsize_t> extent, std::span<const hsize_t> chunk,
                          std::size_t cacheBytes) {
    std::vector<hsize_t> dims(extent.begin(), extent.end()), max(extent.begin(), extent.end());
    dims[0] = 0;
    max[0] = H5S_UNLIMITED;
    // A chunk may not pass a fixed dimension: an empty school's still has one fish's room.
    for (std::size_t d = 1; d < max.size(); ++d) max[d] = std::max(max[d], chunk[d]);
    const hdf5::Dataspace space{H5Screate_simple(int(dims.size()), dims.data(), max.data())};
    const hdf5::PropertyList create = untimed(H5P_DATASET_CREATE);
    H5Pset_chunk(create.get(), int(chunk.size()), chunk.data());
    // Every element is written once: no fill first (which HDF5 requires for variable strings).
    if (H5Tis_variable_str(type) <= 0) H5Pset_fill_time(create.get(), H5D_FILL_TIME_NEVER);
    const hdf5::PropertyList access{H5Pcreate(H5P_DATASET_ACCESS)};
    H5Pset_chunk_cache(access.get(), 521, cacheBytes, 1.0);
    return hdf5::Dataset{
        H5Dcreate2(parent, name, type, space.get(), H5P_DEFAULT, create.get(), access.get())};
}

/// A series of scalars in `group` (made): step int64, time float64, value of `valueType`, each
/// growing. `valueUnit` null: a value without a unit.
bool makeSeries(hid_t group, hid_t valueType, const char* valueUnit, Series& out) {
    const std::array<hsize_t, 1> extent{0}, chunk{kSeriesChunk};
    const std::size_t cache = kSeriesChunk * 8 * 2;
    // Each only after the one before succeeded: the failure's reason stays on HDF5's stack.
    return (out.step = makeGrowing(group, "step", H5T_STD_I64LE, extent, chunk, cache)).valid() &&
           (out.time = makeGrowing(group, "time", H5T_IEEE_F64LE, extent, chunk, cache)).valid() &&
           (out.value = makeGrowing(group, "value", valueType, extent, chunk, cache)).valid() &&
           writeUnit(out.time.get(), "s") && (!valueUnit || writeUnit(out.value.get(), valueUnit));
}

/// Appends `count` elements of `memoryType` at `index` of a growing dataset of rank `rank`, whose
/// other dimensions are `rest`.
bool appendAt(hid_t dataset, hsize_t index, hid_t memoryType, const void* data,
              std::span<const hsize_t> rest = {}) {
    // Fixed arrays, not vectors: nothing is allocated a frame.
    std::array<hsize_t, 3> dims{index + 1}, start{index}, count{1};
    const int rank = int(1 + rest.size());
    for (std::size_t d = 0; d < rest.size() && d < 2; ++d) {
        dims[d + 1] = rest[d];
        start[d + 1] = 0;
        count[d + 1] = rest[d];
    }
    errno = 0;  // what the write's failure leaves, for the message
    if (H5Dset_extent(dataset, dims.data()) < 0) return false;
    const hdf5::Dataspace file{H5Dget_space(dataset)};
    const hdf5::Dataspace memory{H5Screate_simple(rank, count.data(), nullptr)};
    return file.valid() && memory.valid() &&
           H5Sselect_hyperslab(file.get(), H5S_SELECT_SET, start.data(), nullptr, count.data(),
                               nullptr) >= 0 &&
           H5Dwrite(dataset, memoryType, memory.get(), file.get(), H5P_DEFAULT, data) >= 0;
}

std::array<float, 3> tankEdges(const SimParams& params) {
    return {2 * params.bounds.x, 2 * params.bounds.y, 2 * params.bounds.z};
}

Result<void> Hdf5TrajectoryWriter::makeObservables(const SchoolMetrics& measures) {
    const std::array<hsize_t, 1> extent{0}, chunk{kSeriesChunk};
    for (std::size_t k = 0; k < kSchoolMeasures.size(); ++k) {
        const SchoolMeasure& measure = kSchoolMeasures[k];
        if (measure.mayBeAbsent && std::isnan(measures.*measure.member)) continue;
        const std::string name = std::string("observables/") + measure.observable;
        const hdf5::Group group = makeGroup(h5_.get(), name.c_str());
        // One value a frame: step and time are position's, as box/edges' are.
        if (!group.valid() ||
            !(observables_[k] = makeGrowing(group.get(), "value", H5T_IEEE_F64LE, extent, chunk,
                                            kSeriesChunk * 8 * 2))
                 .valid() ||
            !writeUnit(observables_[k].get(), measure.unit) ||
            H5Lcreate_hard(h5_.get(), "particles/school/position/step", group.get(), "step",
                           H5P_DEFAULT, H5P_DEFAULT) < 0 ||
            H5Lcreate_hard(h5_.get(), "particles/school/position/time", group.get(), "time",
                           H5P_DEFAULT, H5P_DEFAULT) < 0)
            return failure("cannot write " + name);
    }
    return {};
}

Result<void> Hdf5TrajectoryWriter::open(const SimParams& params,
                                        std::span<const std::uint32_t> species,
                                        std::span<const std::uint8_t> missing) {
    edges_ = tankEdges(params);
    const hdf5::PropertyList access{H5Pcreate(H5P_FILE_ACCESS)};
    H5Pset_fclose_degree(access.get(), H5F_CLOSE_STRONG);
    // The stdio driver opens the path as given: the default one (sec2) resolves a link's real
    // path, which an unnamed file (OutputFiles::addExternal's /proc/self/fd/N) has none of.
    H5Pset_fapl_stdio(access.get());
    errno = 0;
    const hdf5::PropertyList fileCreate = untimed(H5P_FILE_CREATE);
    h5_ = hdf5::File{H5Fcreate(file_.c_str(), H5F_ACC_TRUNC, fileCreate.get(), access.get())};
    if (!h5_.valid()) return failure("cannot create the file");
    const hid_t root = h5_.get();

    // h5md: the format's version, who wrote the file and with what.
    {
        const hdf5::Group h5md = makeGroup(root, "h5md");
        const std::array<std::int32_t, 2> version{1, 1};
        const hdf5::Group author = makeGroup(root, "h5md/author");
        const hdf5::Group creator = makeGroup(root, "h5md/creator");
        if (!h5md.valid() || !author.valid() || !creator.valid() ||
            !writeArrayAttribute<std::int32_t>(h5md.get(), "version", H5T_STD_I32LE,
                                               H5T_NATIVE_INT32, version) ||
            !writeStringAttribute(author.get(), "name", "fishschool") ||
            !writeStringAttribute(creator.get(), "name", "fishschool") ||
            !writeStringAttribute(creator.get(), "version", FISHSCHOOL_VERSION))
            return failure("cannot write the h5md group");
    }
    // Positions and velocities: [frames][fish][3] float32, the frames sharing one step and time.
    {
        const hdf5::Group position = makeGroup(root, "particles/school/position");
        const hdf5::Group velocity = makeGroup(root, "particles/school/velocity");
        if (!position.valid() || !velocity.valid()) return failure("cannot write particles/school");
        const ValueChunks chunks = valueChunks(fishCount_);
        const std::array<hsize_t, 3> extent{0, fishCount_, 3}, chunk{chunks.frames, chunks.fish, 3};
        const std::size_t chunkBytes = chunks.frames * chunks.fish * 3 * sizeof(float);
        // Several frames a chunk: the chunk stays in the cache until its last frame is written.
        // One frame a chunk: each write fills whole chunks, which go to the file directly when
        // the cache is smaller than a chunk (no copy through it).
        const std::size_t cacheBytes = chunks.frames > 1 ? 2 * chunkBytes : chunkBytes / 2;
        positionValue_ =
            makeGrowing(position.get(), "value", H5T_IEEE_F32LE, extent, chunk, cacheBytes);
        velocityValue_ =
            makeGrowing(velocity.get(), "value", H5T_IEEE_F32LE, extent, chunk, cacheBytes);
        const std::array<hsize_t, 1> seriesExtent{0}, seriesChunk{kSeriesChunk};
        positionStep_ = makeGrowing(position.get(), "step", H5T_STD_I64LE, seriesExtent,
                                    seriesChunk, kSeriesChunk * 16);
        positionTime_ = makeGrowing(position.get(), "time", H5T_IEEE_F64LE, seriesExtent,
                                    seriesChunk, kSeriesChunk * 16);
        if (!positionValue_.valid() || !velocityValue_.valid() || !positionStep_.valid() ||
            !positionTime_.valid() || !writeUnit(positionValue_.get(), "m") ||
            !writeUnit(velocityValue_.get(), "m/s") || !writeUnit(positionTime_.get(), "s") ||
            H5Lcreate_hard(position.get(), "step", velocity.get(), "step", H5P_DEFAULT,
                           H5P_DEFAULT) < 0 ||
            H5Lcreate_hard(position.get(), "time", velocity.get(), "time", H5P_DEFAULT,
                           H5P_DEFAULT) < 0)
            return failure("cannot write particles/school/position and velocity");
    }
    // Burst-and-coast: each fish's kick clock a frame, so that a run goes on from any frame with
    // the fish's kick timing (docs/model.md, Burst-and-coast swimming).
    if (kickClocks_) {
        const hdf5::Group group = makeGroup(root, "particles/school/kick_clock");
        const ValueChunks chunks = valueChunks(fishCount_);
        const std::array<hsize_t, 2> extent{0, fishCount_}, chunk{chunks.frames, chunks.fish};
        const std::size_t chunkBytes = chunks.frames * chunks.fish * sizeof(float);
        if (!group.valid() ||
            !(kickClockValue_ = makeGrowing(group.get(), "value", H5T_IEEE_F32LE, extent, chunk,
                                            chunks.frames > 1 ? 2 * chunkBytes : chunkBytes / 2))
                 .valid() ||
            !writeUnit(kickClockValue_.get(), "s") ||
            H5Lcreate_hard(root, "particles/school/position/step", group.get(), "step", H5P_DEFAULT,
                           H5P_DEFAULT) < 0 ||
            H5Lcreate_hard(root, "particles/school/position/time", group.get(), "time", H5P_DEFAULT,
                           H5P_DEFAULT) < 0)
            return failure("cannot write particles/school/kick_clock");
    }
    // The box: the tank, not periodic, its edges at each frame (a change may move its walls;
    // MDAnalysis reads edges/value[frame] too).
    {
        const hdf5::Group box = makeGroup(root, "particles/school/box");
        const hdf5::Group edges = makeGroup(root, "particles/school/box/edges");
        const std::array<std::int32_t, 1> dimension{3};
        const hsize_t three = 3;
        const hdf5::Dataspace space{H5Screate_simple(1, &three, nullptr)};
        const hdf5::Datatype text = stringType();
        const std::array<const char*, 3> boundary{"none", "none", "none"};
        const hdf5::Attribute boundaryAttribute{
            H5Acreate2(box.get(), "boundary", text.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT)};
        const std::array<hsize_t, 2> extent{0, 3}, chunk{kSeriesChunk, 3};
        if (!box.valid() || !edges.valid() ||
            !writeArrayAttribute<std::int32_t>(box.get(), "dimension", H5T_STD_I32LE,
                                               H5T_NATIVE_INT32, dimension) ||
            !boundaryAttribute.valid() ||
            H5Awrite(boundaryAttribute.get(), text.get(), boundary.data()) < 0 ||
            !(edgesValue_ = makeGrowing(edges.get(), "value", H5T_IEEE_F32LE, extent, chunk,
                                        kSeriesChunk * 3 * sizeof(float) * 2))
                 .valid() ||
            !writeUnit(edgesValue_.get(), "m") ||
            H5Lcreate_hard(root, "particles/school/position/step", edges.get(), "step", H5P_DEFAULT,
                           H5P_DEFAULT) < 0 ||
            H5Lcreate_hard(root, "particles/school/position/time", edges.get(), "time", H5P_DEFAULT,
                           H5P_DEFAULT) < 0)
            return failure("cannot write particles/school/box");
    }
    // Where fish were not found (an import's), whole: one flag a fish a frame.
    if (!missing.empty()) {
        const hdf5::Group group = makeGroup(root, "particles/school/missing");
        const hsize_t dims[2] = {fishCount_ == 0 ? 0 : missing.size() / fishCount_, fishCount_};
        const hdf5::Dataspace space{H5Screate_simple(2, dims, nullptr)};
        const hdf5::Dataset set{group.valid()
                                    ? H5Dcreate2(group.get(), "value", H5T_STD_U8LE, space.get(),
                                                 H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)
                                    : H5I_INVALID_HID};
        if (!set.valid() || !writeUnit(set.get(), "1") ||
            H5Dwrite(set.get(), H5T_NATIVE_UINT8, H5S_ALL, H5S_ALL, H5P_DEFAULT, missing.data()) <
                0 ||
            H5Lcreate_hard(root, "particles/school/position/step", group.get(), "step", H5P_DEFAULT,
                           H5P_DEFAULT) < 0 ||
            H5Lcreate_hard(root, "particles/school/position/time", group.get(), "time", H5P_DEFAULT,
                           H5P_DEFAULT) < 0)
            return failure("cannot write particles/school/missing");
    }
    // The kinds, by index: `species` without species in the config (as files have always
    // been), `kind` beside the species' indices with them.
    {
        std::vector<std::int32_t> kinds;
        kinds.reserve(fishCount_);
        for (const FishKind kind : fishKinds(params, fishCount_))
            kinds.push_back(static_cast<std::int32_t>(kind));
        const hsize_t count = fishCount_;
        const auto writeIntegers = [&](const char* path, const std::vector<std::int32_t>& values) {
            const hdf5::Dataspace space{H5Screate_simple(1, &count, nullptr)};
            const hdf5::PropertyList create = untimed(H5P_DATASET_CREATE);
            const hdf5::Dataset set{H5Dcreate2(root, path, H5T_STD_I32LE, space.get(), H5P_DEFAULT,
                                               create.get(), H5P_DEFAULT)};
            return set.valid() &&
                   (count == 0 || H5Dwrite(set.get(), H5T_NATIVE_INT32, H5S_ALL, H5S_ALL,
                                           H5P_DEFAULT, values.data()) >= 0);
        };
        recordedSpecies_.assign(fishCount_, 0);
        if (params.species.empty()) {
            if (!writeIntegers("particles/school/species", kinds))
                return failure("cannot write particles/school/species");
        } else {
            for (std::size_t i = 0; i < fishCount_; ++i)
                recordedSpecies_[i] = static_cast<std::int32_t>(
                    species.size() == fishCount_ ? species[i] : speciesOf(i, params));
            if (!writeIntegers("particles/school/species", recordedSpecies_) ||
                !writeIntegers("particles/school/kind", kinds))
                return failure("cannot write particles/school/species and kind");
        }
    }
    // The config the run started with, and the changes to come.
    {
        const hdf5::Group parameters = makeGroup(root, "parameters");
        const hdf5::Datatype text = stringType();
        const hdf5::Dataspace scalar{H5Screate(H5S_SCALAR)};
        const hdf5::PropertyList create = untimed(H5P_DATASET_CREATE);
        const hdf5::Dataset config{H5Dcreate2(parameters.get(), "config", text.get(), scalar.get(),
                                              H5P_DEFAULT, create.get(), H5P_DEFAULT)};
        const std::string json = configToJson(params);
        const char* data = json.c_str();
        const hdf5::Group changes = makeGroup(root, "parameters/changes");
        if (!parameters.valid() || !config.valid() ||
            H5Dwrite(config.get(), text.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, &data) < 0 ||
            !changes.valid() || !makeSeries(changes.get(), text.get(), nullptr, changes_))
            return failure("cannot write parameters");
    }
    // The header on disk now: a file stopped early still opens.
    errno = 0;
    if (H5Fflush(root, H5F_SCOPE_LOCAL) < 0) return failure("writing failed");
    thread_ = std::thread([this] { run(); });
    return {};
}

// --- the caller's side -----------------------------------------------------------------------

void Hdf5TrajectoryWriter::waitForRoom(std::unique_lock<std::mutex>& lock, std::size_t bytes) {
    drained_.wait(lock, [&] {
        return failed_ || bytesInFlight_ == 0 || bytesInFlight_ + bytes <= queueBytes_;
    });
}

Result<void> Hdf5TrajectoryWriter::enqueue(Item item) {
    {
        std::unique_lock lock(mutex_);
        waitForRoom(lock, item.bytes);
        if (failed_) return fail(error_);
        bytesInFlight_ += item.bytes;
        queue_.push_back(std::move(item));
    }
    queued_.notify_one();
    return {};
}

Result<void> Hdf5TrajectoryWriter::addFrameFrom(std::int64_t step, double timeSeconds,
                                                const FrameFill& fill,
                                                std::span<const float> kickClocks,
                                                const std::optional<SchoolMetrics>& measures) {
    if (finished_) return fail(fileName_ + ": the trajectory is finished; no frame can follow");
    if (!kickClocks.empty() && kickClocks.size() != fishCount_)
        return fail(fileName_ + ": a frame with the kick clocks of " +
                    std::to_string(kickClocks.size()) + " fish; the trajectory records " +
                    std::to_string(fishCount_));
    if (framesGiven_ == 0) framesMeasured_ = measures.has_value();
    if (measures.has_value() != framesMeasured_)
        return fail(fileName_ + ": frame " + std::to_string(framesGiven_) +
                    (framesMeasured_ ? " has no measures" : " has measures") +
                    "; a trajectory's frames all have measures or none (one value a frame)");
    const std::size_t floats = (kickClocks_ ? 7 : 6) * fishCount_;
    const std::size_t bytes = floats * sizeof(float);
    float* positions = nullptr;
    {
        std::unique_lock lock(mutex_);
        waitForRoom(lock, bytes);
        if (failed_) return fail(error_);
        if (freeBuffers_.empty()) {
            buffers_.push_back(std::make_unique_for_overwrite<float[]>(floats));
            freeBuffers_.push_back(buffers_.back().get());
        }
        positions = freeBuffers_.back();
        freeBuffers_.pop_back();
        bytesInFlight_ += bytes;  // reserved: the copy below is made outside the lock
    }
    // The copy, on the caller's thread: the school may step on as soon as this returns.
    fill(std::span<float>(positions, 3 * fishCount_),
         std::span<float>(positions + 3 * fishCount_, 3 * fishCount_));
    if (kickClocks_) {
        float* clocks = positions + 6 * fishCount_;
        if (kickClocks.empty())
            std::fill(clocks, clocks + fishCount_, 0.0f);  // unknown: drawn anew when read
        else
            std::copy(kickClocks.begin(), kickClocks.end(), clocks);
    }
    {
        const std::lock_guard lock(mutex_);
        queue_.push_back(Item{.kind = Item::Kind::Frame,
                              .step = step,
                              .time = timeSeconds,
                              .buffer = positions,
                              .edges = edges_,
                              .measures = measures,
                              .config = {},
                              .attributes = {},
                              .species = {},
                              .bytes = bytes});
    }
    queued_.notify_one();
    ++framesGiven_;
    return {};
}

Result<void> Hdf5TrajectoryWriter::addParameterAttributes(
    const std::string& group, std::vector<TrajectoryAttribute> attributes) {
    if (finished_) return fail(fileName_ + ": the trajectory is finished; nothing can follow");
    std::size_t bytes = sizeof(Item) + group.size();
    for (const TrajectoryAttribute& attribute : attributes)
        bytes += sizeof(attribute) + attribute.name.size() +
                 (std::holds_alternative<std::string>(attribute.value)
                      ? std::get<std::string>(attribute.value).size()
                      : 0);
    return enqueue(Item{.kind = Item::Kind::Attributes,
                        .step = 0,
                        .time = 0.0,
                        .buffer = nullptr,
                        .edges = {},
                        .measures = {},
                        .config = "parameters/" + group,
                        .attributes = std::move(attributes),
                        .species = {},
                        .bytes = bytes});
}

Result<void> Hdf5TrajectoryWriter::addParameterChange(std::int64_t step, double timeSeconds,
                                                      const SimParams& params,
                                                      std::span<const std::uint32_t> species) {
    if (finished_) return fail(fileName_ + ": the trajectory is finished; no change can follow");
    if (!species.empty() && species.size() != fishCount_)
        return fail(fileName_ + ": a change with the species of " + std::to_string(species.size()) +
                    " fish; the trajectory records " + std::to_string(fishCount_));
    edges_ = tankEdges(params);
    std::string json = configToJson(params);
    const std::size_t bytes = sizeof(Item) + json.size();
    if (auto ok = enqueue(Item{.kind = Item::Kind::Change,
                               .step = step,
                               .time = timeSeconds,
                               .buffer = nullptr,
                               .edges = {},
                               .measures = {},
                               .config = std::move(json),
                               .attributes = {},
                               .species = {},
                               .bytes = bytes});
        !ok)
        return ok;
    // Only where the change dealt the fish anew: most changes (a weight, a radius) keep them.
    if (species.empty() ||
        std::equal(species.begin(), species.end(), recordedSpecies_.begin(),
                   [](std::uint32_t a, std::int32_t b) { return std::int64_t(a) == b; }))
        return {};
    std::vector<std::int32_t> values(species.begin(), species.end());
    recordedSpecies_ = values;
    const std::size_t speciesBytes = sizeof(Item) + values.size() * sizeof(std::int32_t);
    return enqueue(Item{.kind = Item::Kind::Species,
                        .step = step,
                        .time = timeSeconds,
                        .buffer = nullptr,
                        .edges = {},
                        .measures = {},
                        .config = {},
                        .attributes = {},
                        .species = std::move(values),
                        .bytes = speciesBytes});
}

Result<void> Hdf5TrajectoryWriter::finish() {
    if (finished_) return fail(fileName_ + ": the trajectory was already finished");
    finished_ = true;
    {
        const std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    queued_.notify_one();
    if (thread_.joinable()) thread_.join();
    recordFailures();
    // Every object closed before the file, whose close writes what HDF5 still holds.
    positionStep_.reset();
    positionTime_.reset();
    positionValue_.reset();
    velocityValue_.reset();
    edgesValue_.reset();
    kickClockValue_.reset();
    for (hdf5::Dataset& value : observables_) value.reset();
    changes_ = {};
    speciesSeries_ = {};
    Result<void> closed;
    errno = 0;
    if (h5_.valid() && H5Fflush(h5_.get(), H5F_SCOPE_LOCAL) < 0) closed = failure("writing failed");
    if (h5_.valid() && h5_.reset() < 0 && closed) closed = failure("writing failed");
    if (failed_) return fail(error_);
    return closed;
}

// --- the writer's thread ---------------------------------------------------------------------

void Hdf5TrajectoryWriter::run() {
    recordFailures();
    std::unique_lock lock(mutex_);
    while (true) {
        queued_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
        if (queue_.empty()) return;  // stopping, all written
        Item item = std::move(queue_.front());
        queue_.pop_front();
        lock.unlock();
        // After a failure the rest is dropped, its buffers freed: the caller hears of it.
        Result<void> written = failed_ ? Result<void>{} : write(item);
        lock.lock();
        if (!written && !failed_) {
            error_ = written.error();
            failed_ = true;
        }
        bytesInFlight_ -= item.bytes;
        if (item.kind == Item::Kind::Frame) freeBuffers_.push_back(item.buffer);
        drained_.notify_all();
    }
}

Result<void> Hdf5TrajectoryWriter::write(const Item& item) {
    switch (item.kind) {
        case Item::Kind::Frame:
            return writeFrame(item);
        case Item::Kind::Attributes:
            return writeAttributes(item);
        case Item::Kind::Change: {
            const hdf5::Datatype text = stringType();
            const char* data = item.config.c_str();
            auto ok =
                appendScalar(changes_, changesWritten_, item.step, item.time, &data, text.get());
            if (ok) ++changesWritten_;
            return ok;
        }
        case Item::Kind::Species:
            return writeSpecies(item);
    }
    return {};
}

Result<void> Hdf5TrajectoryWriter::writeSpecies(const Item& item) {
    if (!speciesSeries_.value.valid()) {
        const hdf5::Group group = makeGroup(h5_.get(), "parameters/species");
        const std::array<hsize_t, 1> extent{0}, chunk{kSeriesChunk};
        const std::array<hsize_t, 2> valueExtent{0, fishCount_},
            valueChunk{1, std::max<hsize_t>(fishCount_, 1)};
        if (!group.valid() ||
            !(speciesSeries_.step = makeGrowing(group.get(), "step", H5T_STD_I64LE, extent, chunk,
                                                kSeriesChunk * 8 * 2))
                 .valid() ||
            !(speciesSeries_.time = makeGrowing(group.get(), "time", H5T_IEEE_F64LE, extent, chunk,
                                                kSeriesChunk * 8 * 2))
                 .valid() ||
            !writeUnit(speciesSeries_.time.get(), "s") ||
            !(speciesSeries_.value = makeGrowing(group.get(), "value", H5T_STD_I32LE, valueExtent,
                                                 valueChunk, fishCount_ * 4 * 2))
                 .valid())
            return failure("cannot write parameters/species");
    }
    const std::array<hsize_t, 1> rest{fishCount_};
    if (!appendAt(speciesSeries_.step.get(), speciesWritten_, H5T_NATIVE_INT64, &item.step) ||
        !appendAt(speciesSeries_.time.get(), speciesWritten_, H5T_NATIVE_DOUBLE, &item.time) ||
        !appendAt(speciesSeries_.value.get(), speciesWritten_, H5T_NATIVE_INT32,
                  item.species.data(), rest))
        return failure("writing failed");
    ++speciesWritten_;
    return {};
}

Result<void> Hdf5TrajectoryWriter::appendScalar(const Series& series, hsize_t index,
                                                std::int64_t step, double time, const void* value,
                                                hid_t memoryType) {
    if (!appendAt(series.step.get(), index, H5T_NATIVE_INT64, &step) ||
        !appendAt(series.time.get(), index, H5T_NATIVE_DOUBLE, &time) ||
        !appendAt(series.value.get(), index, memoryType, value))
        return failure("writing failed");
    return {};
}

Result<void> Hdf5TrajectoryWriter::writeFrame(const Item& item) {
    const float* positions = item.buffer;
    const std::array<hsize_t, 2> rest{fishCount_, 3};
    if (!appendAt(positionValue_.get(), framesWritten_, H5T_NATIVE_FLOAT, positions, rest) ||
        !appendAt(velocityValue_.get(), framesWritten_, H5T_NATIVE_FLOAT,
                  positions + 3 * fishCount_, rest) ||
        (kickClocks_ &&
         !appendAt(kickClockValue_.get(), framesWritten_, H5T_NATIVE_FLOAT,
                   positions + 6 * fishCount_, std::array<hsize_t, 1>{fishCount_})) ||
        !appendAt(edgesValue_.get(), framesWritten_, H5T_NATIVE_FLOAT, item.edges.data(),
                  std::array<hsize_t, 1>{3}) ||
        !appendAt(positionStep_.get(), framesWritten_, H5T_NATIVE_INT64, &item.step) ||
        !appendAt(positionTime_.get(), framesWritten_, H5T_NATIVE_DOUBLE, &item.time))
        return failure("writing failed");
    if (item.measures) {
        // Made with the first frame: a file without measures has no observables group, which
        // MDAnalysis would otherwise read at every frame.
        if (framesWritten_ == 0)
            if (auto ok = makeObservables(*item.measures); !ok) return ok;
        for (std::size_t k = 0; k < kSchoolMeasures.size(); ++k) {
            if (!observables_[k].valid()) continue;
            const double value = (*item.measures).*kSchoolMeasures[k].member;
            if (!appendAt(observables_[k].get(), framesWritten_, H5T_NATIVE_DOUBLE, &value))
                return failure("writing failed");
        }
    }
    ++framesWritten_;
    return {};
}

Result<void> Hdf5TrajectoryWriter::writeAttributes(const Item& item) {
    const hdf5::Group group = makeGroup(h5_.get(), item.config.c_str());
    if (!group.valid()) return failure("cannot write " + item.config);
    for (const TrajectoryAttribute& attribute : item.attributes) {
        const char* name = attribute.name.c_str();
        const bool written = std::visit(
            [&]<class T>(const T& value) {
                if constexpr (std::is_same_v<T, std::string>)
                    return writeStringAttribute(group.get(), name, value);
                else if constexpr (std::is_same_v<T, std::int64_t>)
                    return writeArrayAttribute<std::int64_t>(
                        group.get(), name, H5T_STD_I64LE, H5T_NATIVE_INT64, std::span(&value, 1));
                else if constexpr (std::is_same_v<T, std::uint64_t>)
                    return writeArrayAttribute<std::uint64_t>(
                        group.get(), name, H5T_STD_U64LE, H5T_NATIVE_UINT64, std::span(&value, 1));
                else
                    return writeArrayAttribute<double>(group.get(), name, H5T_IEEE_F64LE,
                                                       H5T_NATIVE_DOUBLE, std::span(&value, 1));
            },
            attribute.value);
        if (!written)
            return failure("cannot write " + item.config + " attribute " + attribute.name);
    }
    return {};
}

}  // namespace

std::vector<std::uint32_t> speciesOfSchool(std::span<const Fish> school) {
    std::vector<std::uint32_t> species(school.size());
    for (std::size_t i = 0; i < school.size(); ++i) species[i] = school[i].species;
    return species;
}

std::vector<FishKind> fishKinds(const SimParams& params, std::size_t fishCount) {
    std::vector<FishKind> kinds(fishCount);
    for (std::size_t i = 0; i < fishCount; ++i) kinds[i] = fishKind(i, params);
    return kinds;
}

Result<void> TrajectoryWriter::addFrame(std::int64_t step, double timeSeconds,
                                        std::span<const Fish> school,
                                        const std::optional<SchoolMetrics>& measures) {
    if (school.size() != fishCount())
        return fail(name() + ": a frame of " + std::to_string(school.size()) +
                    " fish; this trajectory holds " + std::to_string(fishCount()));
    std::vector<float> clocks;
    if (recordsKickClocks()) {
        clocks.reserve(school.size());
        for (const Fish& fish : school) clocks.push_back(fish.kickClock);
    }
    return addFrameFrom(
        step, timeSeconds,
        [school](std::span<float> positions, std::span<float> velocities) {
            copyFrame(school, positions, velocities);
        },
        clocks, measures);
}

Result<std::unique_ptr<TrajectoryWriter>> TrajectoryWriter::create(
    const fs::path& file, const SimParams& params, std::size_t fishCount,
    const TrajectoryWriterOptions& options) {
    recordFailures();
    auto writer = std::make_unique<Hdf5TrajectoryWriter>(
        file, options.name, fishCount, options.queueBytes, keepsKickClocks(params));
    if (auto ok = writer->open(params, options.species, options.missing); !ok)
        return fail(ok.error());
    return std::unique_ptr<TrajectoryWriter>(std::move(writer));
}

}  // namespace fishschool
