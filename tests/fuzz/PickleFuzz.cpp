// Fuzz target: the pickle reader and idtracker.ai's .npy on it. A pickle is refused with a
// readable message or read into objects whose references all lie within it; nothing is run.

#include "FuzzMain.h"
#include "io/Pickle.h"
#include "io/TrackImport.h"

using namespace fishschool;

void fuzzOne(std::string_view input) {
    auto pickle = readPickle(input, "fuzz.pkl");
    if (!pickle) {
        fuzz::checkMessage(pickle.error());
    } else {
        fuzz::fuzzCheck(pickle->root < pickle->objects.size(), "the root is not an object", "");
        for (const PickleObject& o : pickle->objects)
            for (std::uint32_t item : o.items)
                fuzz::fuzzCheck(item < pickle->objects.size(), "an item is not an object", "");
    }
    // The same bytes as the body of an object .npy, as np.save writes it.
    std::string npy("\x93NUMPY\x01\x00\x76\x00", 10);
    std::string header = "{'descr': '|O', 'fortran_order': False, 'shape': (), }";
    header.resize(0x76 - 1, ' ');
    npy += header + "\n";
    npy.append(input);
    auto tracks = parseIdtrackerNpy(npy, "fuzz.npy");
    if (!tracks) {
        fuzz::checkMessage(tracks.error());
        return;
    }
    fuzz::fuzzCheck(tracks->positions.size() == tracks->frames * tracks->fish * 3,
                    "tracks of the wrong size", "");
}
