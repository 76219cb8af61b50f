#include "io/Hdf5Handles.h"

namespace fishschool::hdf5 {

void silenceErrorStack() {
    thread_local const bool silenced = [] {
        return H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr) >= 0;
    }();
    (void)silenced;
}

void keepFilesToTheirOwners() {
    (void)H5dont_atexit();
}

}  // namespace fishschool::hdf5
