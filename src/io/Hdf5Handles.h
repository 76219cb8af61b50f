#pragma once

#include <hdf5.h>

#include <utility>

namespace fishschool::hdf5 {

/// An HDF5 identifier that closes itself: `Handle<H5Dclose> set{H5Dopen2(...)}`. Invalid (< 0)
/// when the call that made it failed; `valid()` says so.
template <herr_t (*Close)(hid_t)>
class Handle {
  public:
    Handle() = default;
    explicit Handle(hid_t id) : id_(id) {}
    Handle(Handle&& other) noexcept : id_(std::exchange(other.id_, H5I_INVALID_HID)) {}
    Handle& operator=(Handle&& other) noexcept {
        if (this != &other) {
            reset();
            id_ = std::exchange(other.id_, H5I_INVALID_HID);
        }
        return *this;
    }
    Handle(const Handle&) = delete;
    Handle& operator=(const Handle&) = delete;
    ~Handle() { reset(); }

    hid_t get() const { return id_; }
    bool valid() const { return id_ >= 0; }
    /// Closes now; the error HDF5 gives, if any (a file's last write happens on its close).
    herr_t reset() {
        herr_t status = 0;
        if (id_ >= 0) status = Close(id_);
        id_ = H5I_INVALID_HID;
        return status;
    }

  private:
    hid_t id_ = H5I_INVALID_HID;
};

using File = Handle<H5Fclose>;
using Group = Handle<H5Gclose>;
using Dataset = Handle<H5Dclose>;
using Dataspace = Handle<H5Sclose>;
using Datatype = Handle<H5Tclose>;
using Attribute = Handle<H5Aclose>;
using PropertyList = Handle<H5Pclose>;

/// HDF5 prints every failed call to stderr unless told not to; its errors reach users through
/// our own messages instead. Silences it for the calling thread (a thread-safe HDF5, as
/// Debian's, keeps one error stack a thread): call it first in every thread that uses HDF5.
void silenceErrorStack();

/// Tells HDF5 not to close, at exit, the files still open: each file is closed by its owner
/// (the handles above), and HDF5 1.10 crashed at exit closing a file whose close had failed (a
/// full disk). A program's choice, not a library's (it would change h5py's in the same process):
/// call it first in main(), before any other HDF5 call.
void keepFilesToTheirOwners();

}  // namespace fishschool::hdf5
