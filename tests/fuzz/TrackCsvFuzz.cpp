// Fuzz target: the CSV of tracked fish (frame,id,x,y[,z]). A file is refused with a readable
// message or read into frames x fish positions, NaN where a fish is missing, finite elsewhere.

#include <algorithm>
#include <cmath>

#include "FuzzMain.h"
#include "io/TrackImport.h"

using namespace fishschool;

void fuzzOne(std::string_view input) {
    auto tracks = parseTrackCsv(input, "fuzz.csv");
    if (!tracks) {
        fuzz::checkMessage(tracks.error());
        return;
    }
    fuzz::fuzzCheck(tracks->positions.size() == tracks->frames * tracks->fish * 3,
                    "tracks of the wrong size", "");
    fuzz::fuzzCheck(tracks->frames * tracks->fish <= kMaxImportSamples, "tracks past the limit",
                    "");
    // One check over all: up to 60 million values, which a check each made slower than AFL++'s
    // time limit.
    fuzz::fuzzCheck(std::none_of(tracks->positions.begin(), tracks->positions.end(),
                                 [](double v) { return std::isinf(v); }),
                    "a position is infinite");
}
