// Reads a trajectory (Trajectory.h: the layout) through HDF5's C library. The file is a
// stranger's: every object is reached link by link (hard links only), and checked (its kind, its
// type, its shape against the others, its storage) before a byte of its data is read, so that a
// hostile file costs bounded time and memory and its error names the object.
//
// What is refused, and why:
// - soft, external and user-defined links: a soft link can loop or lead elsewhere in the file,
//   an external one to another file; FishSchool writes hard links only;
// - external storage (raw data in other files) and virtual datasets (data mapped from others);
// - filters (deflate, shuffle, ...): HDF5's deflate filter inflates a chunk into a buffer that it
//   doubles until the stream ends, whatever the chunk's size, so a 1 MB chunk of zeros can take
//   1 GB; FishSchool writes no filter, and an unfiltered chunk is exactly its size on disk;
// - data the file cannot hold: every dataset's bytes (elements x size) must lie in the file
//   (contiguous: from its offset; chunked or compact: its allocated storage), so a dataset that
//   claims 10^12 elements in a 1 kB file is refused before it is read, and the frames, the fish
//   and the measures a file may claim are bounded by its size;
// - types other than IEEE floats (value, time), standard integers (step, species) and strings
//   (parameters); strings of more than a config file's limit, more than kMaxChanges changes or
//   more than kMaxChangesBytes of them.
// A frame is read alone (one hyperslab, into a buffer of one frame), through a chunk cache of
// bounded size.

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <hdf5.h>

#include "core/Messages.h"
#include "core/Scenario.h"
#include "io/ConfigIO.h"
#include "io/Hdf5Handles.h"
#include "io/StateIO.h"
#include "io/TextFiles.h"
#include "io/Trajectory.h"

namespace fishschool {
namespace {

namespace fs = std::filesystem;

/// A string of parameters (the config, a change) may be as long as a config file.
constexpr std::size_t kMaxParameterBytes = kMaxConfigFileBytes;
/// The changes of parameters a file may record, and their text together.
constexpr std::size_t kMaxChanges = 100'000;
constexpr std::size_t kMaxChangesBytes = std::size_t{64} << 20;
/// A chunk of more than one frame may hold at most this many bytes (FishSchool's hold 1 MiB); a
/// chunk of one frame, at most a frame.
constexpr std::uint64_t kMaxChunkBytes = std::uint64_t{64} << 20;
/// Bytes of HDF5's chunk cache for one frame's dataset.
constexpr std::size_t kChunkCacheBytes = std::size_t{16} << 20;
/// The HDF5 signature at the start of a file.
constexpr std::string_view kHdf5Signature = "\x89HDF\r\n\x1a\n";

using Object = hdf5::Handle<H5Oclose>;

/// HDF5's reason for the last failure of this thread: its innermost description, cut short.
std::string hdf5Reason() {
    std::string reason;
    H5Ewalk2(
        H5E_DEFAULT, H5E_WALK_DOWNWARD,
        [](unsigned, const H5E_error2_t* error, void* data) -> herr_t {
            if (error->desc != nullptr && *error->desc != '\0')
                *static_cast<std::string*>(data) = error->desc;
            return 0;
        },
        &reason);
    H5Eclear2(H5E_DEFAULT);
    return reason.empty() ? std::string("HDF5 gave no reason") : printable(reason, 100);
}

/// a * b, or nothing when it passes 2^64 - 1.
std::optional<std::uint64_t> product(std::uint64_t a, std::uint64_t b) {
    std::uint64_t out = 0;
    if (__builtin_mul_overflow(a, b, &out)) return std::nullopt;
    return out;
}

std::string filterName(H5Z_filter_t filter) {
    switch (filter) {
        case H5Z_FILTER_DEFLATE:
            return "deflate (gzip)";
        case H5Z_FILTER_SHUFFLE:
            return "shuffle";
        case H5Z_FILTER_FLETCHER32:
            return "fletcher32";
        case H5Z_FILTER_SZIP:
            return "szip";
        case H5Z_FILTER_NBIT:
            return "nbit";
        case H5Z_FILTER_SCALEOFFSET:
            return "scaleoffset";
        default:
            return "number " + std::to_string(filter);
    }
}

/// "a/b/c": {"a", "b", "c"}
std::vector<std::string> components(std::string_view path) {
    std::vector<std::string> out;
    std::size_t start = 0;
    while (start <= path.size()) {
        const std::size_t slash = std::min(path.find('/', start), path.size());
        out.emplace_back(path.data() + start, slash - start);
        start = slash + 1;
    }
    return out;
}

/// What a dataset's elements must be.
enum class Kind { Float, Integer, String };

const char* describe(Kind kind) {
    switch (kind) {
        case Kind::Float:
            return "IEEE floating point (float32 or float64)";
        case Kind::Integer:
            return "a standard integer (8 to 64 bits)";
        case Kind::String:
            return "a string";
    }
    return "";
}

bool isStandard(hid_t type, std::initializer_list<hid_t> allowed) {
    for (hid_t candidate : allowed)
        if (H5Tequal(type, candidate) > 0) return true;
    return false;
}

/// One dataset, checked: its type of the kind asked, its extent, its storage in the file.
struct Dataset {
    std::string path;
    hdf5::Dataset id;
    hdf5::Datatype type;
    std::vector<hsize_t> dims;
};

/// Opens and checks the objects of one file.
class Checker {
  public:
    Checker(hid_t root, std::uintmax_t fileSize, std::string fileName)
        : root_(root), fileSize_(fileSize), fileName_(std::move(fileName)) {
        linkAccess_ = hdf5::PropertyList{H5Pcreate(H5P_LINK_ACCESS)};
        // Never followed (each link is checked to be hard first); refused should one be.
        H5Pset_nlinks(linkAccess_.get(), 1);
        H5Pset_elink_cb(
            linkAccess_.get(),
            [](const char*, const char*, const char*, const char*, unsigned*, hid_t,
               void*) -> herr_t { return -1; },
            nullptr);
    }

    /// "FILE: OBJECT: what"
    std::string error(std::string_view object, std::string_view what) const {
        return fileName_ + ": " + std::string(object) + ": " + std::string(what);
    }

    /// Whether `path` names a link, each of its parents being a hard link to a group.
    Result<bool> exists(std::string_view path) {
        Object parent{H5Oopen(root_, ".", H5P_DEFAULT)};
        const std::vector<std::string> names = components(path);
        std::string walked;
        for (std::size_t k = 0; k < names.size(); ++k) {
            const std::string& name = names[k];
            if (k > 0) walked.push_back('/');
            walked.append(name);
            const htri_t there = H5Lexists(parent.get(), name.c_str(), linkAccess_.get());
            if (there < 0) return fail(error(walked, "cannot be looked up: " + hdf5Reason()));
            if (there == 0) return false;
            if (k + 1 == names.size()) return true;
            Object next;
            if (auto ok = open(walked, parent.get(), name, H5I_GROUP, next); !ok)
                return fail(ok.error());
            parent = std::move(next);
        }
        return true;
    }

    /// The object at `path`, reached link by link from the root: each a hard link, each but the
    /// last a group, the last of kind `expected` (H5I_GROUP or H5I_DATASET).
    Result<void> openObject(std::string_view path, H5I_type_t expected, Object& out) {
        Object parent{H5Oopen(root_, ".", H5P_DEFAULT)};
        if (!parent.valid()) return fail(error("/", "cannot be opened: " + hdf5Reason()));
        const std::vector<std::string> names = components(path);
        std::string walked;
        for (std::size_t k = 0; k < names.size(); ++k) {
            if (k > 0) walked.push_back('/');
            walked.append(names[k]);
            Object next;
            if (auto ok = open(walked, parent.get(), names[k],
                               k + 1 == names.size() ? expected : H5I_GROUP, next);
                !ok)
                return fail(ok.error());
            parent = std::move(next);
        }
        out = std::move(parent);
        return {};
    }

    /// The dataset at `path` of elements of `kind`, of rank `rank` (0: scalar), with its
    /// storage checked against the file; `frameDimension`: its first dimension is read a
    /// frame at a time, so a chunk of one frame may be as large as a frame.
    Result<Dataset> openDataset(std::string_view path, Kind kind, int rank,
                                bool frameDimension = false) {
        Object object;
        if (auto ok = openObject(path, H5I_DATASET, object); !ok) return fail(ok.error());
        Dataset out;
        out.path = std::string(path);
        const auto err = [&](std::string_view what) { return fail(error(path, what)); };
        out.id = hdf5::Dataset{H5Dopen2(object.get(), ".", H5P_DEFAULT)};
        object.reset();
        if (!out.id.valid()) return err("cannot be opened: " + hdf5Reason());

        // Its storage, first: nothing of a virtual dataset's sources is opened.
        const hdf5::PropertyList create{H5Dget_create_plist(out.id.get())};
        if (!create.valid()) return err("cannot be read: " + hdf5Reason());
        const H5D_layout_t layout = H5Pget_layout(create.get());
        if (layout == H5D_VIRTUAL)
            return err(
                "is a virtual dataset (its data mapped from other datasets or files); only data "
                "stored in the dataset itself is read");
        if (layout != H5D_CONTIGUOUS && layout != H5D_CHUNKED && layout != H5D_COMPACT)
            return err(
                "has a storage layout HDF5 does not describe; allowed: contiguous, "
                "chunked or compact");
        const int external = H5Pget_external_count(create.get());
        if (external != 0)
            return err("keeps its data in external files; only data stored in this file is read");
        const int filters = H5Pget_nfilters(create.get());
        if (filters < 0) return err("cannot be read: " + hdf5Reason());
        if (filters > 0) {
            unsigned flags = 0;
            std::size_t count = 0;
            const H5Z_filter_t filter =
                H5Pget_filter2(create.get(), 0, &flags, &count, nullptr, 0, nullptr, nullptr);
            return err("is stored through the filter " + filterName(filter) +
                       "; only unfiltered (uncompressed) datasets are read: a compressed chunk "
                       "could inflate without bound");
        }

        // Its type.
        out.type = hdf5::Datatype{H5Dget_type(out.id.get())};
        if (!out.type.valid()) return err("cannot be read: " + hdf5Reason());
        const hid_t type = out.type.get();
        const H5T_class_t typeClass = H5Tget_class(type);
        const bool typeOk =
            kind == Kind::Float
                ? isStandard(type, {H5T_IEEE_F32LE, H5T_IEEE_F32BE, H5T_IEEE_F64LE, H5T_IEEE_F64BE})
            : kind == Kind::Integer
                ? isStandard(type, {H5T_STD_I8LE, H5T_STD_I8BE, H5T_STD_U8LE, H5T_STD_U8BE,
                                    H5T_STD_I16LE, H5T_STD_I16BE, H5T_STD_U16LE, H5T_STD_U16BE,
                                    H5T_STD_I32LE, H5T_STD_I32BE, H5T_STD_U32LE, H5T_STD_U32BE,
                                    H5T_STD_I64LE, H5T_STD_I64BE, H5T_STD_U64LE, H5T_STD_U64BE})
                : typeClass == H5T_STRING;
        if (!typeOk) return err("its elements must be " + std::string(describe(kind)));
        const std::size_t typeSize = H5Tget_size(type);
        if (typeSize == 0) return err("cannot be read: " + hdf5Reason());
        if (kind == Kind::String && H5Tis_variable_str(type) <= 0 && typeSize > kMaxParameterBytes)
            return err("holds strings of " + std::to_string(typeSize) + " bytes; at most " +
                       std::to_string(kMaxParameterBytes));

        // Its extent.
        const hdf5::Dataspace space{H5Dget_space(out.id.get())};
        const H5S_class_t spaceClass = H5Sget_simple_extent_type(space.get());
        if (rank == 0) {
            if (spaceClass != H5S_SCALAR) return err("must be a scalar (a single value)");
        } else {
            const int ndims = H5Sget_simple_extent_ndims(space.get());
            if (spaceClass != H5S_SIMPLE || ndims != rank)
                return err("must be an array of " + std::to_string(rank) + " dimension" +
                           (rank > 1 ? "s" : ""));
            out.dims.resize(static_cast<std::size_t>(rank));
            if (H5Sget_simple_extent_dims(space.get(), out.dims.data(), nullptr) < 0)
                return err("cannot be read: " + hdf5Reason());
        }

        // Its storage: every byte it claims must lie in the file.
        std::optional<std::uint64_t> claimed = typeSize;
        for (hsize_t d : out.dims)
            if (claimed) claimed = product(*claimed, d);
        if (!claimed || *claimed > fileSize_)
            return err("claims more data than the file holds (" + describeDims(out.dims) +
                       " elements of " + std::to_string(typeSize) + " bytes in a file of " +
                       std::to_string(fileSize_) + " bytes)");
        if (*claimed == 0) return out;
        if (layout == H5D_CONTIGUOUS) {
            const haddr_t offset = H5Dget_offset(out.id.get());
            if (offset == HADDR_UNDEF)
                return err("has no data stored in the file (its " + std::to_string(*claimed) +
                           " bytes were never written)");
            if (offset > fileSize_ || *claimed > fileSize_ - offset)
                return err("claims data beyond the end of the file (bytes " +
                           std::to_string(offset) + " to " + std::to_string(offset + *claimed) +
                           " of a file of " + std::to_string(fileSize_) + ")");
        } else {
            // What its chunks must take: every chunk its extent reaches written, each exactly
            // a chunk's bytes (no filter), so that no element is left to HDF5's fill value.
            std::optional<std::uint64_t> expected = claimed;
            if (layout == H5D_CHUNKED) {
                std::vector<hsize_t> chunk(out.dims.size());
                if (H5Pget_chunk(create.get(), rank, chunk.data()) != rank)
                    return err("has a chunk shape that does not match its rank");
                if (std::find(chunk.begin(), chunk.end(), hsize_t{0}) != chunk.end())
                    return err("has chunks of " + describeDims(chunk) + " elements; none may be 0");
                std::optional<std::uint64_t> chunkBytes = typeSize;
                for (hsize_t c : chunk)
                    if (chunkBytes) chunkBytes = product(*chunkBytes, c);
                // One frame's chunk may be as large as that frame's slice.
                std::uint64_t bound = kMaxChunkBytes;
                if (frameDimension && chunk[0] == 1) {
                    std::uint64_t frame = typeSize;
                    for (std::size_t d = 1; d < chunk.size(); ++d)
                        frame *= std::max<hsize_t>(out.dims[d], 1);
                    bound = std::max(bound, frame);
                }
                if (!chunkBytes || *chunkBytes > bound)
                    return err("has chunks of " + describeDims(chunk) +
                               " elements; a chunk may "
                               "hold at most " +
                               std::to_string(bound) + " bytes");
                std::uint64_t needed = 1;  // chunks along every dimension, at most the elements
                for (std::size_t d = 0; d < chunk.size(); ++d)
                    needed *= (out.dims[d] + chunk[d] - 1) / chunk[d];
                hsize_t written = 0;
                if (H5Dget_num_chunks(out.id.get(), space.get(), &written) < 0)
                    return err("cannot be read: " + hdf5Reason());
                if (written != needed)
                    return err("has " + std::to_string(written) + " chunks written where its " +
                               describeDims(out.dims) + " elements in chunks of " +
                               describeDims(chunk) + " take " + std::to_string(needed) +
                               "; every element must be written, in chunks of the shape given");
                expected = product(needed, *chunkBytes);
            }
            const hsize_t stored = H5Dget_storage_size(out.id.get());
            if (stored > fileSize_)
                return err("claims " + std::to_string(stored) + " bytes of storage in a file of " +
                           std::to_string(fileSize_));
            // A variable-length element is stored larger than its memory size (its length and
            // a heap reference): at least, for those.
            const bool variable = H5Tget_class(type) == H5T_VLEN || H5Tis_variable_str(type) > 0;
            if (!expected || (variable ? stored < *expected : stored != *expected))
                return err(
                    "has " + std::to_string(stored) + " bytes stored for the " +
                    std::to_string(*claimed) + " its " + describeDims(out.dims) + " elements take" +
                    (layout == H5D_CHUNKED
                         ? " in whole chunks (" +
                               (expected ? std::to_string(*expected) : std::string("?")) + " bytes)"
                         : std::string()) +
                    "; every element must be written, and nothing else");
        }
        return out;
    }

    static std::string describeDims(const std::vector<hsize_t>& dims) {
        if (dims.empty()) return "1";
        std::string out;
        for (hsize_t d : dims) {
            if (!out.empty()) out += " x ";
            out += std::to_string(d);
        }
        return out;
    }

  private:
    /// The object `name` of `parent` (its path `walked`): a hard link, of kind `expected`.
    Result<void> open(const std::string& walked, hid_t parent, const std::string& name,
                      H5I_type_t expected, Object& out) {
        const char* what = expected == H5I_GROUP ? "a group" : "a dataset";
        const htri_t there = H5Lexists(parent, name.c_str(), linkAccess_.get());
        if (there < 0) return fail(error(walked, "cannot be looked up: " + hdf5Reason()));
        if (there == 0)
            return fail(error(
                walked, std::string("is missing; a FishSchool trajectory has it (") + what + ")"));
        H5L_info_t link{};
        if (H5Lget_info(parent, name.c_str(), &link, linkAccess_.get()) < 0)
            return fail(error(walked, "cannot be looked up: " + hdf5Reason()));
        if (link.type == H5L_TYPE_SOFT)
            return fail(error(walked,
                              "is a soft link; only objects linked directly (hard "
                              "links) are read"));
        if (link.type == H5L_TYPE_EXTERNAL)
            return fail(error(walked,
                              "is an external link to another file; a trajectory is "
                              "read from its own file only"));
        if (link.type != H5L_TYPE_HARD)
            return fail(error(walked, "is a user-defined link; only hard links are read"));
        Object object{H5Oopen(parent, name.c_str(), linkAccess_.get())};
        if (!object.valid()) return fail(error(walked, "cannot be opened: " + hdf5Reason()));
        const H5I_type_t kind = H5Iget_type(object.get());
        if (kind != expected)
            return fail(error(walked, std::string("must be ") + what + "; it is " +
                                          (kind == H5I_GROUP     ? "a group"
                                           : kind == H5I_DATASET ? "a dataset"
                                                                 : "a named datatype")));
        out = std::move(object);
        return {};
    }

    hid_t root_;
    std::uintmax_t fileSize_;
    std::string fileName_;
    hdf5::PropertyList linkAccess_;
};

/// Reads the whole of a one-dimensional dataset of `count` elements as `memoryType`.
template <class T>
Result<std::vector<T>> readSeries(Checker& checker, const Dataset& set, hid_t memoryType) {
    std::vector<T> out(set.dims.empty() ? 1 : set.dims[0]);
    if (!out.empty() &&
        H5Dread(set.id.get(), memoryType, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()) < 0)
        return fail(checker.error(set.path, "cannot be read: " + hdf5Reason()));
    return out;
}

/// HDF5's allocator for a variable-length string read, recording the bytes it asks for (the
/// string's stored length and its NUL) in `info`.
void* recordingAlloc(std::size_t size, void* info) {
    *static_cast<std::size_t*>(info) = size;
    return std::malloc(size);
}
void freeRecorded(void* memory, void*) {
    std::free(memory);
}

/// Element `index` of a string dataset (`index` 0 of a scalar), at most `maxBytes`.
Result<std::string> readString(Checker& checker, const Dataset& set, hsize_t index,
                               std::size_t maxBytes) {
    const auto err = [&](std::string_view what) {
        return fail(checker.error(set.path, set.dims.empty() ? std::string(what)
                                                             : "element " + std::to_string(index) +
                                                                   ": " + std::string(what)));
    };
    const hdf5::Dataspace file{H5Dget_space(set.id.get())};
    const hsize_t one = 1;
    if (!set.dims.empty() &&
        H5Sselect_hyperslab(file.get(), H5S_SELECT_SET, &index, nullptr, &one, nullptr) < 0)
        return err("cannot be read: " + hdf5Reason());
    const hdf5::Dataspace memory{set.dims.empty() ? H5Screate(H5S_SCALAR)
                                                  : H5Screate_simple(1, &one, nullptr)};
    // A string of the file's character set: HDF5 converts none into another.
    const hdf5::Datatype text{H5Tcopy(H5T_C_S1)};
    H5Tset_cset(text.get(), H5Tget_cset(set.type.get()));
    std::string out;
    if (H5Tis_variable_str(set.type.get()) > 0) {
        H5Tset_size(text.get(), H5T_VARIABLE);
        // HDF5 asks for the string's stored length and its NUL: kept, so that a NUL inside
        // (which would end the C string early, the rest unread) is seen.
        std::size_t requested = 0;
        const hdf5::PropertyList transfer{H5Pcreate(H5P_DATASET_XFER)};
        H5Pset_vlen_mem_manager(transfer.get(), &recordingAlloc, &requested, &freeRecorded,
                                nullptr);
        char* data = nullptr;
        if (H5Dread(set.id.get(), text.get(), memory.get(), file.get(), transfer.get(), &data) < 0)
            return err("cannot be read: " + hdf5Reason());
        const std::size_t length = data == nullptr ? 0 : std::strlen(data);
        if (length <= maxBytes) out.assign(data == nullptr ? "" : data, length);
        std::free(data);
        if (length > maxBytes)
            return err("a string of " + std::to_string(length) + " bytes; at most " +
                       std::to_string(maxBytes));
        if (data != nullptr && requested > length + 1)
            return err("holds a NUL byte at byte " + std::to_string(length) + " of its " +
                       std::to_string(requested - 1) + "; a string is text without NUL bytes");
    } else {
        // Its bytes as stored (the file's own padding: no conversion), so that what follows a
        // NUL is seen rather than dropped.
        const std::size_t size = H5Tget_size(set.type.get());
        const H5T_str_t pad = H5Tget_strpad(set.type.get());
        H5Tset_size(text.get(), size);
        H5Tset_strpad(text.get(), pad);
        std::string buffer(size, '\0');
        if (H5Dread(set.id.get(), text.get(), memory.get(), file.get(), H5P_DEFAULT,
                    buffer.data()) < 0)
            return err("cannot be read: " + hdf5Reason());
        std::size_t end = size;
        if (pad == H5T_STR_SPACEPAD) {
            while (end > 0 && buffer[end - 1] == ' ') --end;
        } else {
            end = std::min(buffer.find('\0'), size);
            // Padding after the text is NULs only; anything else is text a reader would drop.
            if (buffer.find_first_not_of('\0', end) != std::string::npos)
                return err("holds a NUL byte at byte " + std::to_string(end) +
                           " with text after it (" + std::to_string(size) +
                           " bytes); a string is text without NUL bytes");
        }
        if (const std::size_t nul = buffer.find('\0'); nul < end)
            return err("holds a NUL byte at byte " + std::to_string(nul) + " of its " +
                       std::to_string(end) + "; a string is text without NUL bytes");
        out.assign(buffer, 0, end);
    }
    return out;
}

class Hdf5TrajectoryReader final : public TrajectoryReader {
  public:
    std::size_t fishCount() const override { return fish_; }
    std::size_t frameCount() const override { return steps_.size(); }
    std::int64_t frameStep(std::size_t frame) const override { return steps_.at(frame); }
    double frameTime(std::size_t frame) const override { return times_.at(frame); }
    const std::string& configJson() const override { return config_; }
    const std::string& configJsonAt(std::size_t frame) const override {
        const std::int64_t step = steps_.at(frame);
        // The last change at or before the frame's step.
        const auto after = std::upper_bound(changeSteps_.begin(), changeSteps_.end(), step);
        if (after == changeSteps_.begin()) return config_;
        return changes_[static_cast<std::size_t>(after - changeSteps_.begin()) - 1];
    }
    std::span<const FishKind> kinds() const override { return kinds_; }
    std::span<const std::uint32_t> species() const override { return species_; }
    std::span<const std::uint32_t> speciesAt(std::size_t frame) const override {
        const std::int64_t step = steps_[frame];
        const auto after = std::upper_bound(speciesSteps_.begin(), speciesSteps_.end(), step);
        if (after == speciesSteps_.begin()) return species_;
        return speciesChanges_[static_cast<std::size_t>(after - speciesSteps_.begin()) - 1];
    }
    bool hasSpecies() const override { return hasSpecies_; }
    bool hasKickClocks() const override { return kickClock_.id.valid(); }
    bool hasMissing() const override { return !missing_.empty(); }
    std::span<const std::uint8_t> missingAt(std::size_t frame) const override {
        if (missing_.empty()) return noneMissing_;
        return std::span<const std::uint8_t>(missing_).subspan(frame * fish_, fish_);
    }
    const TrajectoryMeasures& measures() const override { return measures_; }
    Result<void> readFrame(std::size_t frame, School& out) override;

    Result<void> load(const fs::path& path);

  private:
    Result<void> readPositions(const Dataset& value, std::size_t frame, std::vector<float>& out);
    Result<void> loadMeasures(Checker& checker);
    Result<void> loadParameters(Checker& checker);
    /// base/step, base/time and base/value: one value a fish a frame, the frames position's.
    Result<Dataset> openPerFishElement(Checker& checker, const std::string& base, Kind kind);
    Result<void> loadMissing(Checker& checker);
    Result<void> loadKickClocks(Checker& checker);

    std::string fileName_;
    std::optional<InputFile> input_;
    hdf5::File file_;
    std::optional<Checker> checker_;
    Dataset position_, velocity_;
    /// particles/school/kick_clock/value, [frames][fish]; not valid without it.
    Dataset kickClock_;
    hdf5::Dataspace frameSpace_;  ///< a value dataset's extent, one frame selected at a time
    std::size_t fish_ = 0;
    std::vector<std::int64_t> steps_;
    std::vector<double> times_;
    std::vector<FishKind> kinds_;
    std::vector<std::uint32_t> species_;  ///< each fish's (all 0 without species)
    /// The species a change dealt anew (parameters/species), from these steps on.
    std::vector<std::int64_t> speciesSteps_;
    std::vector<std::vector<std::uint32_t>> speciesChanges_;
    Result<void> loadSpeciesChanges(Checker& checker);
    bool hasSpecies_ = false;
    std::string config_;
    std::vector<std::int64_t> changeSteps_;
    std::vector<std::string> changes_;
    TrajectoryMeasures measures_;
    std::vector<float> positions_, velocities_, kickClocks_;
    /// particles/school/missing/value, [frames][fish] (empty without it); all 0 a frame.
    std::vector<std::uint8_t> missing_, noneMissing_;
};

Result<void> Hdf5TrajectoryReader::load(const fs::path& path) {
    hdf5::silenceErrorStack();
    fileName_ = printable(path.string(), 120);
    auto input = openInputFile(path, "trajectory");
    if (!input) return fail(input.error());
    input_.emplace(std::move(*input));
    const std::uintmax_t size = input_->size();
    const std::string hint =
        "; a trajectory is an H5MD file written by fishschool-cli simulate "
        "--trajectory";
    if (size == 0) return fail(fileName_ + ": is empty" + hint);
    char signature[8] = {};
    if (size < sizeof signature ||
        ::pread(input_->fd(), signature, sizeof signature, 0) != ssize_t(sizeof signature) ||
        std::string_view(signature, sizeof signature) != kHdf5Signature)
        return fail(fileName_ + ": is not an HDF5 file (no HDF5 signature at its start)" + hint);

    // The file just checked, by its descriptor: no other file can take its name meanwhile.
    const std::string descriptorPath = "/proc/self/fd/" + std::to_string(input_->fd());
    const std::string openPath =
        ::access(descriptorPath.c_str(), R_OK) == 0 ? descriptorPath : path.string();
    const hdf5::PropertyList access{H5Pcreate(H5P_FILE_ACCESS)};
    H5Pset_fapl_sec2(access.get());
    // Reading locks nothing: a file on a file system without locks still opens.
#if H5_VERSION_GE(1, 10, 7)
    H5Pset_file_locking(access.get(), false, true);
#endif
    // A small metadata cache: a file's objects are few.
    H5AC_cache_config_t cache{};
    cache.version = H5AC__CURR_CACHE_CONFIG_VERSION;
    if (H5Pget_mdc_config(access.get(), &cache) >= 0) {
        cache.set_initial_size = true;
        cache.initial_size = std::size_t{1} << 20;
        cache.min_size = std::size_t{1} << 20;
        cache.max_size = std::size_t{8} << 20;
        H5Pset_mdc_config(access.get(), &cache);
    }
    file_ = hdf5::File{H5Fopen(openPath.c_str(), H5F_ACC_RDONLY, access.get())};
    if (!file_.valid())
        return fail(fileName_ + ": cannot be read as an HDF5 file: " + hdf5Reason());

    checker_.emplace(file_.get(), size, fileName_);
    Checker& checker = *checker_;
    if (auto there = checker.exists("h5md"); !there || !*there)
        return fail(there ? checker.error("h5md", "is missing: the file is not an H5MD file" + hint)
                          : there.error().message());

    // The frames: positions and velocities [frames][fish][3], one step and time a frame.
    auto position = checker.openDataset("particles/school/position/value", Kind::Float, 3, true);
    if (!position) return fail(position.error());
    position_ = std::move(*position);
    const std::vector<hsize_t>& dims = position_.dims;
    if (dims[2] != 3)
        return fail(checker.error(position_.path, "has " + std::to_string(dims[2]) +
                                                      " coordinates a fish; must be 3 (x, y, z)"));
    if (dims[1] > std::uint64_t(kMaxFishCount))
        return fail(checker.error(position_.path, "holds " + std::to_string(dims[1]) +
                                                      " fish; at most " +
                                                      std::to_string(kMaxFishCount)));
    if (dims[0] == 0)
        return fail(checker.error(position_.path, "holds no frame; a trajectory has at least one"));
    fish_ = static_cast<std::size_t>(dims[1]);
    const std::size_t frames = static_cast<std::size_t>(dims[0]);
    auto velocity = checker.openDataset("particles/school/velocity/value", Kind::Float, 3, true);
    if (!velocity) return fail(velocity.error());
    velocity_ = std::move(*velocity);
    if (velocity_.dims != dims)
        return fail(checker.error(velocity_.path,
                                  "has " + Checker::describeDims(velocity_.dims) +
                                      " elements; must match particles/school/position/value's " +
                                      Checker::describeDims(dims)));

    // Steps and times: the same for both (hard links, or equal copies).
    std::vector<std::int64_t> otherSteps;
    std::vector<double> otherTimes;
    for (const char* element : {"position", "velocity"}) {
        const std::string base = std::string("particles/school/") + element;
        auto step = checker.openDataset(base + "/step", Kind::Integer, 1);
        if (!step) return fail(step.error());
        auto time = checker.openDataset(base + "/time", Kind::Float, 1);
        if (!time) return fail(time.error());
        for (const Dataset* set : {&*step, &*time})
            if (set->dims[0] != frames)
                return fail(checker.error(set->path, "holds " + std::to_string(set->dims[0]) +
                                                         " values; must hold one a frame (" +
                                                         std::to_string(frames) + ")"));
        auto steps = readSeries<std::int64_t>(checker, *step, H5T_NATIVE_INT64);
        if (!steps) return fail(steps.error());
        auto times = readSeries<double>(checker, *time, H5T_NATIVE_DOUBLE);
        if (!times) return fail(times.error());
        if (steps_.empty()) {
            for (std::size_t f = 0; f < frames; ++f) {
                if ((*steps)[f] < 0 || (f > 0 && (*steps)[f] <= (*steps)[f - 1]))
                    return fail(checker.error(
                        step->path, "frame " + std::to_string(f) + " has step " +
                                        std::to_string((*steps)[f]) +
                                        "; steps must be >= 0 and increase from frame to frame"));
                if (!std::isfinite((*times)[f]) || (f > 0 && (*times)[f] < (*times)[f - 1]))
                    return fail(
                        checker.error(time->path, "frame " + std::to_string(f) + " has time " +
                                                      formatNumber((*times)[f]) +
                                                      "; times must be finite and never decrease"));
            }
            steps_ = std::move(*steps);
            times_ = std::move(*times);
        } else if (*steps != steps_ || *times != times_) {
            return fail(checker.error(base,
                                      "has steps or times other than "
                                      "particles/school/position's; they are one frame's"));
        }
    }

    // One int32 a fish, time-independent: the species or the kinds.
    const auto readPerFish = [&](const char* path) -> Result<std::vector<std::int32_t>> {
        auto set = checker.openDataset(path, Kind::Integer, 1);
        if (!set) return fail(set.error());
        if (set->dims[0] != fish_)
            return fail(checker.error(set->path, "holds " + std::to_string(set->dims[0]) +
                                                     " values; must hold one a fish (" +
                                                     std::to_string(fish_) + ")"));
        if (fish_ == 0) return std::vector<std::int32_t>{};
        return readSeries<std::int32_t>(checker, *set, H5T_NATIVE_INT32);
    };
    // With species, `species` holds each fish's species and `kind` the kinds; without, `species`
    // holds the kinds.
    auto hasKind = checker.exists("particles/school/kind");
    if (!hasKind) return fail(hasKind.error());
    species_.assign(fish_, 0u);
    hasSpecies_ = *hasKind;
    if (*hasKind) {
        auto indices = readPerFish("particles/school/species");
        if (!indices) return fail(indices.error());
        for (std::size_t i = 0; i < indices->size(); ++i) {
            const std::int32_t index = (*indices)[i];
            if (index < 0 || index >= static_cast<std::int32_t>(kMaxSpecies))
                return fail(checker.error("particles/school/species",
                                          "fish " + std::to_string(i) + " has species " +
                                              std::to_string(index) + "; allowed: 0 to " +
                                              std::to_string(kMaxSpecies - 1) +
                                              " (an index into the config's species)"));
            species_[i] = static_cast<std::uint32_t>(index);
        }
    }
    // The fish's kinds: leaders first, then predators, then fish.
    const char* const kindPath = *hasKind ? "particles/school/kind" : "particles/school/species";
    auto values = readPerFish(kindPath);
    if (!values) return fail(values.error());
    if (fish_ > 0) {
        kinds_.reserve(fish_);
        for (std::size_t i = 0; i < fish_; ++i) {
            const std::int32_t kind = (*values)[i];
            if (kind < 0 || kind > 2)
                return fail(checker.error(
                    kindPath, "fish " + std::to_string(i) + " has kind " + std::to_string(kind) +
                                  "; allowed: 0 (fish), 1 (leader), 2 (predator)"));
            // FishKind's order is the order of the school: a kind never follows a later one.
            const int rank = kind == 1 ? 0 : kind == 2 ? 1 : 2;
            const FishKind previous = kinds_.empty() ? FishKind::Leader : kinds_.back();
            const int previousRank = previous == FishKind::Leader     ? 0
                                     : previous == FishKind::Predator ? 1
                                                                      : 2;
            if (rank < previousRank)
                return fail(
                    checker.error(kindPath, "fish " + std::to_string(i) + " is a " +
                                                std::string(toString(static_cast<FishKind>(kind))) +
                                                " after a " + std::string(toString(previous)) +
                                                "; leaders come first, then predators, then fish"));
            kinds_.push_back(static_cast<FishKind>(kind));
        }
    }

    if (auto ok = loadParameters(checker); !ok) return ok;
    // Each fish's species by the one rule of every state (stateSpecies) against the file's
    // config: one of its species where the file names them, else those it deals. A file whose
    // config does not read is refused where a school is made from it (readTrajectoryStart, the
    // replay).
    if (auto config = parseConfig(config_, fileName_ + ": parameters/config")) {
        for (std::size_t i = 0; i < fish_; ++i) {
            const auto given =
                hasSpecies_ ? std::optional<std::int64_t>(species_[i]) : std::nullopt;
            auto species = stateSpecies(i, given, *config);
            if (!species)
                return fail(checker.error("particles/school/species",
                                          "fish " + std::to_string(i) + ": species " +
                                              std::to_string(species_[i]) + " " + species.error() +
                                              " (parameters/config)"));
            species_[i] = *species;
        }
    }
    if (auto ok = loadSpeciesChanges(checker); !ok) return ok;
    if (auto ok = loadMeasures(checker); !ok) return ok;
    if (auto ok = loadMissing(checker); !ok) return ok;
    if (auto ok = loadKickClocks(checker); !ok) return ok;

    // One frame's selection, and the buffers it is read into.
    frameSpace_ = hdf5::Dataspace{H5Dget_space(position_.id.get())};
    if (!frameSpace_.valid())
        return fail(checker.error(position_.path, "cannot be read: " + hdf5Reason()));
    // The frames' datasets again, now with a chunk cache of bounded size.
    const hdf5::PropertyList datasetAccess{H5Pcreate(H5P_DATASET_ACCESS)};
    H5Pset_chunk_cache(datasetAccess.get(), 521, kChunkCacheBytes, 1.0);
    for (Dataset* set : {&position_, &velocity_, &kickClock_}) {
        if (!set->id.valid()) continue;  // no kick clocks
        hdf5::Dataset again{H5Dopen2(file_.get(), set->path.c_str(), datasetAccess.get())};
        if (!again.valid())
            return fail(checker.error(set->path, "cannot be opened: " + hdf5Reason()));
        set->id = std::move(again);
    }
    return {};
}

Result<void> Hdf5TrajectoryReader::loadParameters(Checker& checker) {
    auto config = checker.openDataset("parameters/config", Kind::String, 0);
    if (!config) return fail(config.error());
    auto text = readString(checker, *config, 0, kMaxParameterBytes);
    if (!text) return fail(text.error());
    config_ = std::move(*text);

    auto there = checker.exists("parameters/changes");
    if (!there) return fail(there.error());
    if (!*there) return {};
    auto step = checker.openDataset("parameters/changes/step", Kind::Integer, 1);
    if (!step) return fail(step.error());
    auto time = checker.openDataset("parameters/changes/time", Kind::Float, 1);
    if (!time) return fail(time.error());
    auto value = checker.openDataset("parameters/changes/value", Kind::String, 1);
    if (!value) return fail(value.error());
    const hsize_t count = step->dims[0];
    if (count > kMaxChanges)
        return fail(checker.error(step->path, std::to_string(count) + " changes; at most " +
                                                  std::to_string(kMaxChanges)));
    for (const Dataset* set : {&*time, &*value})
        if (set->dims[0] != count)
            return fail(checker.error(set->path, "holds " + std::to_string(set->dims[0]) +
                                                     " values; parameters/changes/step holds " +
                                                     std::to_string(count)));
    auto steps = readSeries<std::int64_t>(checker, *step, H5T_NATIVE_INT64);
    if (!steps) return fail(steps.error());
    for (std::size_t c = 1; c < steps->size(); ++c)
        if ((*steps)[c] < (*steps)[c - 1])
            return fail(checker.error(step->path, "change " + std::to_string(c) + " at step " +
                                                      std::to_string((*steps)[c]) +
                                                      " comes before the change above it; the "
                                                      "steps of changes never decrease"));
    std::size_t total = 0;
    for (hsize_t c = 0; c < count; ++c) {
        auto change = readString(checker, *value, c, kMaxParameterBytes);
        if (!change) return fail(change.error());
        total += change->size();
        if (total > kMaxChangesBytes)
            return fail(checker.error(value->path, "the changes hold more than " +
                                                       std::to_string(kMaxChangesBytes) +
                                                       " bytes of text; at most that"));
        changes_.push_back(std::move(*change));
    }
    changeSteps_ = std::move(*steps);
    return {};
}

Result<void> Hdf5TrajectoryReader::loadSpeciesChanges(Checker& checker) {
    auto there = checker.exists("parameters/species");
    if (!there) return fail(there.error());
    if (!*there) return {};
    auto step = checker.openDataset("parameters/species/step", Kind::Integer, 1);
    if (!step) return fail(step.error());
    auto time = checker.openDataset("parameters/species/time", Kind::Float, 1);
    if (!time) return fail(time.error());
    auto value = checker.openDataset("parameters/species/value", Kind::Integer, 2);
    if (!value) return fail(value.error());
    const hsize_t count = step->dims[0];
    if (time->dims[0] != count || value->dims[0] != count || value->dims[1] != fish_)
        return fail(checker.error(
            value->path, "holds " + std::to_string(value->dims[0]) + " x " +
                             std::to_string(value->dims[1]) + " species; must hold one a fish (" +
                             std::to_string(fish_) + ") for each of the " + std::to_string(count) +
                             " steps of parameters/species/step"));
    // As many as the changes at most, and held in memory: bounded as the changes' text is.
    if (count > changeSteps_.size())
        return fail(checker.error(value->path, std::to_string(count) +
                                                   " sets of species; at most one a change (" +
                                                   std::to_string(changeSteps_.size()) + ")"));
    if (fish_ > 0 && count > kMaxChangesBytes / (fish_ * sizeof(std::int32_t)))
        return fail(checker.error(value->path, std::to_string(count) + " sets of " +
                                                   std::to_string(fish_) + " species; at most " +
                                                   std::to_string(kMaxChangesBytes) +
                                                   " bytes of them"));
    auto steps = readSeries<std::int64_t>(checker, *step, H5T_NATIVE_INT64);
    if (!steps) return fail(steps.error());
    if (count == 0) return {};
    std::vector<std::int32_t> all(count * fish_);
    if (!all.empty() &&
        H5Dread(value->id.get(), H5T_NATIVE_INT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, all.data()) < 0)
        return fail(checker.error(value->path, "cannot be read: " + hdf5Reason()));
    for (std::size_t k = 0; k < count; ++k) {
        if (k > 0 && (*steps)[k] < (*steps)[k - 1])
            return fail(checker.error(step->path, "set " + std::to_string(k) + " at step " +
                                                      std::to_string((*steps)[k]) +
                                                      " comes before the set above it"));
        // Each one of the species of the config in force then.
        const auto after = std::upper_bound(changeSteps_.begin(), changeSteps_.end(), (*steps)[k]);
        const std::string& json =
            after == changeSteps_.begin()
                ? config_
                : changes_[static_cast<std::size_t>(after - changeSteps_.begin()) - 1];
        auto config =
            parseConfig(json, fileName_ + ": the config at step " + std::to_string((*steps)[k]));
        if (!config) return fail(config.error());
        const auto kinds = static_cast<std::int64_t>(speciesCount(*config));
        std::vector<std::uint32_t> species(fish_);
        for (std::size_t i = 0; i < fish_; ++i) {
            const std::int32_t index = all[k * fish_ + i];
            if (index < 0 || index >= kinds)
                return fail(checker.error(
                    value->path, "set " + std::to_string(k) + ", fish " + std::to_string(i) +
                                     " has species " + std::to_string(index) + "; allowed: 0 to " +
                                     std::to_string(kinds - 1) +
                                     " (the config's species at that step)"));
            species[i] = static_cast<std::uint32_t>(index);
        }
        speciesChanges_.push_back(std::move(species));
    }
    speciesSteps_ = std::move(*steps);
    return {};
}

Result<void> Hdf5TrajectoryReader::loadMeasures(Checker& checker) {
    // observables/NAME, absent or one value a frame (MDAnalysis reads value[frame]).
    const std::string group = "observables";
    auto there = checker.exists("observables/polarization");
    if (!there) return fail(there.error());
    if (!*there) return {};
    // The four measures of the first files are in every file with measures; the others may be
    // missing (older files, or no fish informed), and are then NaN.
    constexpr std::size_t kInEveryFile = 4;
    for (std::size_t m = 0; m < kSchoolMeasures.size(); ++m) {
        const SchoolMeasure& measure = kSchoolMeasures[m];
        const auto field = measure.member;
        const std::string base = group + "/" + measure.observable;
        if (m >= kInEveryFile) {
            auto present = checker.exists(base);
            if (!present) return fail(present.error());
            if (!*present) {
                for (SchoolMetrics& values : measures_.values)
                    values.*field = std::numeric_limits<double>::quiet_NaN();
                continue;
            }
        }
        auto step = checker.openDataset(base + "/step", Kind::Integer, 1);
        if (!step) return fail(step.error());
        auto time = checker.openDataset(base + "/time", Kind::Float, 1);
        if (!time) return fail(time.error());
        auto value = checker.openDataset(base + "/value", Kind::Float, 1);
        if (!value) return fail(value.error());
        const hsize_t count = step->dims[0];
        if (count != steps_.size())
            return fail(checker.error(step->path,
                                      "holds " + std::to_string(count) + " values; the file has " +
                                          std::to_string(steps_.size()) +
                                          " frames, and observables hold one value a frame"));
        for (const Dataset* set : {&*time, &*value})
            if (set->dims[0] != count)
                return fail(checker.error(set->path, "holds " + std::to_string(set->dims[0]) +
                                                         " values; " + step->path + " holds " +
                                                         std::to_string(count)));
        auto steps = readSeries<std::int64_t>(checker, *step, H5T_NATIVE_INT64);
        if (!steps) return fail(steps.error());
        auto times = readSeries<double>(checker, *time, H5T_NATIVE_DOUBLE);
        if (!times) return fail(times.error());
        auto values = readSeries<double>(checker, *value, H5T_NATIVE_DOUBLE);
        if (!values) return fail(values.error());
        if (*steps != steps_ || *times != times_)
            return fail(checker.error(base,
                                      "was taken at other steps or times than "
                                      "particles/school/position's; observables are "
                                      "taken at the frames"));
        if (m == 0) {
            measures_.step = std::move(*steps);
            measures_.time = std::move(*times);
            measures_.values.resize(count);
        }
        for (std::size_t k = 0; k < count; ++k) {
            // NaN only where the measure may be absent (a direction error, no fish informed).
            const bool absent = measure.mayBeAbsent && std::isnan((*values)[k]);
            if (!std::isfinite((*values)[k]) && !absent)
                return fail(checker.error(value->path, "value " + std::to_string(k) + " is " +
                                                           formatNumber((*values)[k]) +
                                                           "; measures must be finite"));
            measures_.values[k].*field = (*values)[k];
        }
    }
    return {};
}

Result<Dataset> Hdf5TrajectoryReader::openPerFishElement(Checker& checker, const std::string& base,
                                                         Kind kind) {
    // A value a fish a frame, with position's steps and times.
    auto step = checker.openDataset(base + "/step", Kind::Integer, 1);
    if (!step) return fail(step.error());
    auto time = checker.openDataset(base + "/time", Kind::Float, 1);
    if (!time) return fail(time.error());
    auto value = checker.openDataset(base + "/value", kind, 2, true);
    if (!value) return fail(value.error());
    if (value->dims[0] != steps_.size() || value->dims[1] != fish_)
        return fail(checker.error(value->path, "has " + Checker::describeDims(value->dims) +
                                                   " elements; must hold one a fish a frame (" +
                                                   std::to_string(steps_.size()) + " x " +
                                                   std::to_string(fish_) + ")"));
    for (const Dataset* set : {&*step, &*time})
        if (set->dims[0] != steps_.size())
            return fail(checker.error(set->path, "holds " + std::to_string(set->dims[0]) +
                                                     " values; must hold one a frame (" +
                                                     std::to_string(steps_.size()) + ")"));
    auto steps = readSeries<std::int64_t>(checker, *step, H5T_NATIVE_INT64);
    if (!steps) return fail(steps.error());
    auto times = readSeries<double>(checker, *time, H5T_NATIVE_DOUBLE);
    if (!times) return fail(times.error());
    if (*steps != steps_ || *times != times_)
        return fail(checker.error(base,
                                  "has steps or times other than "
                                  "particles/school/position's; they are one frame's"));
    return value;
}

Result<void> Hdf5TrajectoryReader::loadMissing(Checker& checker) {
    // particles/school/missing: absent, or one flag a fish a frame (an imported file's), its step
    // and time position's.
    noneMissing_.assign(fish_, 0);
    auto there = checker.exists("particles/school/missing");
    if (!there) return fail(there.error());
    if (!*there) return {};
    const std::string base = "particles/school/missing";
    auto value = openPerFishElement(checker, base, Kind::Integer);
    if (!value) return fail(value.error());
    std::vector<std::uint8_t> flags(steps_.size() * fish_);
    if (!flags.empty() &&
        H5Dread(value->id.get(), H5T_NATIVE_UINT8, H5S_ALL, H5S_ALL, H5P_DEFAULT, flags.data()) < 0)
        return fail(checker.error(value->path, "cannot be read: " + hdf5Reason()));
    for (std::size_t k = 0; k < flags.size(); ++k)
        if (flags[k] > 1)
            return fail(checker.error(value->path, "frame " + std::to_string(k / fish_) +
                                                       ", fish " + std::to_string(k % fish_) +
                                                       " is " + std::to_string(flags[k]) +
                                                       "; allowed: 0 (found) or 1 (missing)"));
    missing_ = std::move(flags);
    if (missing_.empty()) missing_.assign(1, 0);  // a mask of no frame x fish is still a mask
    return {};
}

Result<void> Hdf5TrajectoryReader::loadKickClocks(Checker& checker) {
    // particles/school/kick_clock: absent, or each fish's kick clock a frame (burst-and-coast),
    // its step and time position's.
    auto there = checker.exists("particles/school/kick_clock");
    if (!there) return fail(there.error());
    if (!*there) return {};
    const std::string base = "particles/school/kick_clock";
    auto value = openPerFishElement(checker, base, Kind::Float);
    if (!value) return fail(value.error());
    // The values are read a frame at a time, with the frame's positions (readFrame).
    kickClock_ = std::move(*value);
    return {};
}

Result<void> Hdf5TrajectoryReader::readPositions(const Dataset& value, std::size_t frame,
                                                 std::vector<float>& out) {
    out.resize(fish_ * 3);
    if (fish_ == 0) return {};
    const std::array<hsize_t, 3> start{frame, 0, 3 * 0}, count{1, fish_, 3};
    // The memory's shape that of the file's selection: HDF5 then copies each chunk's piece as a
    // block, where a flat buffer makes it map every element (20 times slower at 100,000 fish).
    const hdf5::Dataspace memory{H5Screate_simple(3, count.data(), nullptr)};
    if (H5Sselect_hyperslab(frameSpace_.get(), H5S_SELECT_SET, start.data(), nullptr, count.data(),
                            nullptr) < 0 ||
        H5Dread(value.id.get(), H5T_NATIVE_FLOAT, memory.get(), frameSpace_.get(), H5P_DEFAULT,
                out.data()) < 0)
        return fail(checker_->error(
            value.path, "frame " + std::to_string(frame) + " cannot be read: " + hdf5Reason()));
    return {};
}

Result<void> Hdf5TrajectoryReader::readFrame(std::size_t frame, School& out) {
    hdf5::silenceErrorStack();
    if (frame >= steps_.size())
        return fail(fileName_ + ": frame " + std::to_string(frame) +
                    " is not in the file; it "
                    "holds frames 0 to " +
                    std::to_string(steps_.size() - 1));
    if (auto ok = readPositions(position_, frame, positions_); !ok) return ok;
    if (auto ok = readPositions(velocity_, frame, velocities_); !ok) return ok;
    kickClocks_.assign(fish_, 0.0f);  // none recorded: each drawn anew
    if (kickClock_.id.valid() && fish_ > 0) {
        const std::array<hsize_t, 2> start{frame, 0}, count{1, fish_};
        const hdf5::Dataspace space{H5Dget_space(kickClock_.id.get())};
        const hdf5::Dataspace memory{H5Screate_simple(2, count.data(), nullptr)};
        if (!space.valid() || !memory.valid() ||
            H5Sselect_hyperslab(space.get(), H5S_SELECT_SET, start.data(), nullptr, count.data(),
                                nullptr) < 0 ||
            H5Dread(kickClock_.id.get(), H5T_NATIVE_FLOAT, memory.get(), space.get(), H5P_DEFAULT,
                    kickClocks_.data()) < 0)
            return fail(checker_->error(kickClock_.path, "frame " + std::to_string(frame) +
                                                             " cannot be read: " + hdf5Reason()));
        for (std::size_t i = 0; i < fish_; ++i)
            if (auto why = whyNotKickClock(kickClocks_[i]))
                return fail(checker_->error(
                    kickClock_.path, "frame " + std::to_string(frame) + ", fish " +
                                         std::to_string(i) + ": " + formatNumber(kickClocks_[i]) +
                                         " " + *why));
    }
    out.resize(fish_);
    const std::span<const std::uint32_t> species = speciesAt(frame);
    constexpr std::array<const char*, 3> kAxes{"x", "y", "z"};
    for (std::size_t i = 0; i < fish_; ++i) {
        Fish& fish = out[i];
        fish.position = {positions_[3 * i], positions_[3 * i + 1], positions_[3 * i + 2]};
        fish.velocity = {velocities_[3 * i], velocities_[3 * i + 1], velocities_[3 * i + 2]};
        fish.acceleration = glm::vec3(0.0f);
        fish.species = species[i];
        fish.kickClock = kickClocks_[i];
        for (int k = 0; k < 3; ++k) {
            // A float64 beyond float32's range arrives as an infinity.
            const auto notFinite = [&](const Dataset& set, float v) {
                return fail(checker_->error(
                    set.path, "frame " + std::to_string(frame) + ", fish " + std::to_string(i) +
                                  ": " + kAxes[std::size_t(k)] + " = " + formatNumber(v) +
                                  "; values must be finite float32 numbers"));
            };
            if (!std::isfinite(fish.position[k])) return notFinite(position_, fish.position[k]);
            if (!std::isfinite(fish.velocity[k])) return notFinite(velocity_, fish.velocity[k]);
        }
    }
    return {};
}

}  // namespace

Result<std::unique_ptr<TrajectoryReader>> TrajectoryReader::open(const fs::path& file) {
    auto reader = std::make_unique<Hdf5TrajectoryReader>();
    if (auto ok = reader->load(file); !ok) return fail(ok.error());
    return std::unique_ptr<TrajectoryReader>(std::move(reader));
}

bool isHdf5File(const fs::path& file) {
    auto input = openInputFile(file, "trajectory");
    if (!input) return false;
    char signature[8] = {};
    return ::pread(input->fd(), signature, sizeof signature, 0) == ssize_t(sizeof signature) &&
           std::string_view(signature, sizeof signature) == kHdf5Signature;
}

bool hasTrajectoryExtension(const fs::path& file) {
    std::string extension = file.extension().string();
    for (char& c : extension) c = char(std::tolower(static_cast<unsigned char>(c)));
    return extension == ".h5" || extension == ".hdf5" || extension == ".h5md";
}

Result<TrajectoryStart> readTrajectoryStart(const fs::path& file, std::optional<std::int64_t> frame,
                                            const ParamFlags& flags) {
    auto reader = TrajectoryReader::open(file);
    if (!reader) return fail(reader.error());
    const std::string name = printable(file.string(), 120);
    const std::size_t frames = (*reader)->frameCount();
    if (frame && (*frame < 0 || std::uint64_t(*frame) >= frames))
        return fail("--frame: " + std::to_string(*frame) + " is not a frame of " + name +
                    "; it holds frames 0 to " + std::to_string(frames - 1));
    TrajectoryStart start;
    start.frame = frame ? static_cast<std::size_t>(*frame) : frames - 1;
    start.step = (*reader)->frameStep(start.frame);
    start.time = (*reader)->frameTime(start.frame);
    start.configJson = (*reader)->configJsonAt(start.frame);
    if (auto ok = (*reader)->readFrame(start.frame, start.school); !ok) return fail(ok.error());

    // The parameters: --config's, else the file's at that frame, read as any config is.
    std::optional<SimParams> params;
    if (flags.configPath) {
        auto loaded = loadParams(flags);
        if (!loaded) return fail(loaded.error());
        params = *loaded;
    } else {
        const bool changed = &(*reader)->configJsonAt(start.frame) != &(*reader)->configJson();
        const std::string source =
            name + (changed ? ": parameters/changes/value (the config at frame " +
                                  std::to_string(start.frame) + ")"
                            : ": parameters/config");
        auto parsed = parseConfig(start.configJson, source);
        if (!parsed) return fail(parsed.error());
        auto loaded = loadParams(flags, *parsed);
        if (!loaded) return fail(loaded.error());
        params = *loaded;
    }
    const char* const from = flags.configPath ? "--config" : "the file's config";
    // The species by the one rule of every state (stateSpecies): the file's where it names them,
    // each one of the parameters'; else those the parameters deal, as for a state file.
    const auto species = (*reader)->speciesAt(start.frame);
    for (std::size_t i = 0; i < start.school.size(); ++i) {
        const auto given =
            (*reader)->hasSpecies() ? std::optional<std::int64_t>(species[i]) : std::nullopt;
        auto s = stateSpecies(i, given, *params);
        if (!s)
            return fail(name + ": particles/school/species: fish " + std::to_string(i) +
                        ": species " + std::to_string(species[i]) + " " + s.error() +
                        " (parameters: " + from + ")");
        start.school[i].species = *s;
    }
    countSchool(*params, start.school);
    // The file's clocks where the parameters kick (burst-and-coast); under another steering a
    // fish has none (docs/model.md, Burst-and-coast swimming).
    if (!keepsKickClocks(*params))
        for (Fish& fish : start.school) fish.kickClock = 0.0f;
    const auto missing = (*reader)->missingAt(start.frame);
    if (const auto lost = std::find(missing.begin(), missing.end(), std::uint8_t{1});
        lost != missing.end())
        return fail(name + ": frame " + std::to_string(start.frame) + ", fish " +
                    std::to_string(lost - missing.begin()) +
                    " is missing (particles/school/missing); a run starts from a frame where "
                    "every fish was found");

    // The kinds of the file at the frame are those the parameters give the school: its kinds
    // element's, or, after a change, those of the config in force (a kind follows the index).
    const auto kinds = (*reader)->kinds();
    auto leaders = std::count(kinds.begin(), kinds.end(), FishKind::Leader);
    auto predators = std::count(kinds.begin(), kinds.end(), FishKind::Predator);
    if (&(*reader)->configJsonAt(start.frame) != &(*reader)->configJson()) {
        auto atFrame = parseConfig(start.configJson, name + ": parameters/changes/value");
        if (!atFrame) return fail(atFrame.error());
        leaders = atFrame->leaders;
        predators = atFrame->predators;
    }
    if (leaders != params->leaders || predators != params->predators)
        return fail(name + ": particles/school/species: the file has leaders " +
                    std::to_string(leaders) + ", predators " + std::to_string(predators) +
                    "; the parameters (" + from + ") have leaders " +
                    std::to_string(params->leaders) + ", predators " +
                    std::to_string(params->predators));
    // Each fish where a state file's must be.
    for (std::size_t i = 0; i < start.school.size(); ++i)
        if (auto why = whyNotInScene(start.school[i], *params))
            return fail(name + ": frame " + std::to_string(start.frame) + ", fish " +
                        std::to_string(i) + ": " + *why + " (parameters: " + from + ")");
    start.params = *params;
    return start;
}

}  // namespace fishschool
