#include "io/Recorders.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <utility>

#include "core/Messages.h"
#include "io/ConfigIO.h"

namespace fishschool {
namespace fs = std::filesystem;

Result<TrajectoryFormat> outputFormatOf(const fs::path& path) {
    std::string extension = path.extension().string();
    for (char& c : extension) c = char(std::tolower(static_cast<unsigned char>(c)));
    if (extension == ".h5" || extension == ".hdf5" || extension == ".h5md")
        return TrajectoryFormat::H5md;
    if (extension == ".xyz") return TrajectoryFormat::Xyz;
    return fail(quote(path.string(), 200) +
                ": a trajectory's format is told by its extension; allowed: .h5, .hdf5, .h5md "
                "(H5MD) or .xyz (extended XYZ)");
}

namespace {

/// H5MD through TrajectoryWriter (docs/trajectories.md).
class H5mdRecorder final : public TrajectoryRecorder {
  public:
    explicit H5mdRecorder(std::unique_ptr<TrajectoryWriter> writer) : writer_(std::move(writer)) {}
    Result<void> addFrameFrom(std::int64_t step, double seconds,
                              const TrajectoryWriter::FrameFill& fill,
                              std::span<const float> kickClocks,
                              const std::optional<SchoolMetrics>& measures) override {
        return writer_->addFrameFrom(step, seconds, fill, kickClocks, measures);
    }
    bool recordsKickClocks() const override { return writer_->recordsKickClocks(); }
    Result<void> addParameterChange(std::int64_t step, double seconds, const SimParams& params,
                                    std::span<const Fish> school) override {
        return writer_->addParameterChange(step, seconds, params, speciesOfSchool(school));
    }
    Result<void> addParameterAttributes(const std::string& group,
                                        std::vector<TrajectoryAttribute> attributes) override {
        return writer_->addParameterAttributes(group, std::move(attributes));
    }
    Result<void> finish() override { return writer_->finish(); }
    std::size_t frameCount() const override { return writer_->frameCount(); }
    std::size_t fishCount() const override { return writer_->fishCount(); }

  private:
    std::unique_ptr<TrajectoryWriter> writer_;
};

/// Extended XYZ, as OVITO, ASE and VMD read it (docs/trajectories.md): per frame the fish
/// count, a line of key=value pairs (the tank as the lattice and its corner as the origin, the
/// columns, the step and the time), then a line a fish: the dummy element "X" (ASE wants a
/// chemical symbol), the position (m), the velocity (m/s), the kind and the species index. Text
/// of 9 significant digits: each number reads back as the float it was.
class XyzRecorder final : public TrajectoryRecorder {
  public:
    XyzRecorder(std::FILE* file, std::string name, const SimParams& params,
                std::span<const Fish> school)
        : file_(file), name_(std::move(name)), edges_(2.0f * params.bounds) {
        kinds_ = fishKinds(params, school.size());
        species_ = speciesOfSchool(school);
        positions_.resize(3 * school.size());
        velocities_.resize(3 * school.size());
    }
    ~XyzRecorder() override {
        if (file_) std::fclose(file_);
    }
    Result<void> addFrameFrom(std::int64_t step, double seconds,
                              const TrajectoryWriter::FrameFill& fill, std::span<const float>,
                              const std::optional<SchoolMetrics>&) override {
        if (!file_) return fail(name_ + ": the trajectory is finished; no frame can follow");
        fill(positions_, velocities_);
        std::string text = std::to_string(kinds_.size()) + "\n";
        char line[320];
        std::snprintf(line, sizeof line,
                      "Lattice=\"%.9g 0 0 0 %.9g 0 0 0 %.9g\" Origin=\"%.9g %.9g %.9g\" "
                      "Properties=species:S:1:pos:R:3:vel:R:3:kind:I:1:fish_species:I:1 "
                      "step=%lld time=%.17g pbc=\"F F F\"\n",
                      double(edges_.x), double(edges_.y), double(edges_.z), -0.5 * double(edges_.x),
                      -0.5 * double(edges_.y), -0.5 * double(edges_.z),
                      static_cast<long long>(step), seconds);
        text += line;
        for (std::size_t i = 0; i < kinds_.size(); ++i) {
            const float* p = &positions_[3 * i];
            const float* v = &velocities_[3 * i];
            std::snprintf(line, sizeof line, "X %.9g %.9g %.9g %.9g %.9g %.9g %d %u\n",
                          double(p[0]), double(p[1]), double(p[2]), double(v[0]), double(v[1]),
                          double(v[2]), static_cast<int>(kinds_[i]), species_[i]);
            text += line;
        }
        if (std::fwrite(text.data(), 1, text.size(), file_) != text.size())
            return fail(name_ + ": writing frame " + std::to_string(frames_) +
                            " failed: " + std::strerror(errno),
                        ErrorKind::System);
        ++frames_;
        return {};
    }
    Result<void> addParameterChange(std::int64_t, double, const SimParams& params,
                                    std::span<const Fish> school) override {
        edges_ = 2.0f * params.bounds;
        kinds_ = fishKinds(params, school.size());
        species_ = speciesOfSchool(school);
        return {};
    }
    Result<void> addParameterAttributes(const std::string&,
                                        std::vector<TrajectoryAttribute>) override {
        return {};
    }
    Result<void> finish() override {
        if (!file_) return {};
        const bool flushed = std::fflush(file_) == 0;
        const int error = errno;
        const bool closed = std::fclose(file_) == 0;
        file_ = nullptr;
        if (!flushed || !closed)
            return fail(name_ + ": writing the trajectory failed: " +
                            std::strerror(flushed ? errno : error),
                        ErrorKind::System);
        return {};
    }
    std::size_t frameCount() const override { return frames_; }
    std::size_t fishCount() const override { return kinds_.size(); }

  private:
    std::FILE* file_;
    std::string name_;
    glm::vec3 edges_;
    std::vector<FishKind> kinds_;
    std::vector<std::uint32_t> species_;
    std::vector<float> positions_, velocities_;
    std::size_t frames_ = 0;
};

}  // namespace

Result<std::unique_ptr<TrajectoryRecorder>> makeTrajectoryRecorder(TrajectoryFormat format,
                                                                   const fs::path& file,
                                                                   const SimParams& params,
                                                                   std::span<const Fish> school,
                                                                   const std::string& name) {
    switch (format) {
        case TrajectoryFormat::H5md: {
            auto writer = TrajectoryWriter::create(
                file, params, school.size(),
                TrajectoryWriterOptions{.queueBytes = TrajectoryWriterOptions{}.queueBytes,
                                        .name = name,
                                        .species = params.species.empty()
                                                       ? std::vector<std::uint32_t>{}
                                                       : speciesOfSchool(school),
                                        .missing = {}});
            if (!writer) return fail(writer.error());
            return std::unique_ptr<TrajectoryRecorder>(new H5mdRecorder(std::move(*writer)));
        }
        case TrajectoryFormat::Xyz: {
            std::FILE* opened = std::fopen(file.c_str(), "wb");
            if (!opened)
                return fail(printable(name, 200) + ": cannot be written: " + std::strerror(errno),
                            ErrorKind::System);
            return std::unique_ptr<TrajectoryRecorder>(
                new XyzRecorder(opened, printable(name, 200), params, school));
        }
    }
    return fail(printable(name, 200) + ": no such trajectory format");
}

}  // namespace fishschool
