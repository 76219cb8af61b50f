// The CSV of tracked fish (frame,id,x,y[,z]): frames and fish as the file gives them, fish in the
// order of their ids, and every bad file refused with a message naming the line.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "io/TrackImport.h"

namespace fishschool {
namespace {

using ::testing::HasSubstr;

Tracks parsed(std::string_view text) {
    auto tracks = parseTrackCsv(text, "t.csv");
    EXPECT_TRUE(tracks) << (tracks ? "" : tracks.error().message());
    return tracks ? *tracks : Tracks{};
}

std::string errorOf(std::string_view text) {
    auto tracks = parseTrackCsv(text, "t.csv");
    EXPECT_FALSE(tracks) << "accepted: " << text;
    return tracks ? std::string() : tracks.error().message();
}

TEST(TrackCsv, ReadsFramesAndFishWithAGapWhereAFishWasLost) {
    const Tracks t = parsed("x,frame,y,id\n1,10,2,a\n3,10,4,b\n5,12,6,a\n");
    EXPECT_EQ(t.frames, 3u);  // 10, 11 and 12
    EXPECT_EQ(t.fish, 2u);
    EXPECT_EQ(t.firstFrame, 10);
    EXPECT_EQ(t.dimensions, 2);
    ASSERT_EQ(t.positions.size(), 3u * 2 * 3);
    EXPECT_EQ(t.positions[0], 1.0);  // frame 10, fish a
    EXPECT_EQ(t.positions[1], 2.0);
    EXPECT_EQ(t.positions[3], 3.0);  // frame 10, fish b
    EXPECT_TRUE(std::isnan(t.positions[6]));  // frame 11: nobody
    EXPECT_TRUE(std::isnan(t.positions[3 * 5]));  // frame 12, fish b: lost
    EXPECT_EQ(t.positions[3 * 4], 5.0);
}

TEST(TrackCsv, NumberedFishSortByNumberAndNamedOnesByName) {
    EXPECT_EQ(parsed("frame,id,x,y\n0,10,1,1\n0,9,2,2\n0,100,3,3\n").ids,
              (std::vector<std::string>{"9", "10", "100"}));
    EXPECT_EQ(parsed("frame,id,x,y\n0,b10,1,1\n0,b9,2,2\n").ids,
              (std::vector<std::string>{"b10", "b9"}));
}

TEST(TrackCsv, AnIdPastA64BitNumberSortsAsTextRatherThanStoppingTheRead) {
    const Tracks t = parsed("frame,id,x,y\n0,99999999999999999999,1,2\n0,3,5,6\n");
    EXPECT_EQ(t.ids, (std::vector<std::string>{"3", "99999999999999999999"}));
    EXPECT_EQ(t.positions[0], 5.0);
}

TEST(TrackCsv, ReadsAThirdDimensionWhenTheHeaderNamesZ) {
    const Tracks t = parsed("frame,id,x,y,z\n0,1,1,2,3\n");
    EXPECT_EQ(t.dimensions, 3);
    EXPECT_EQ(t.positions[2], 3.0);
}

TEST(TrackCsv, RefusesBadFilesNamingWhatIsWrong) {
    EXPECT_THAT(errorOf(""), HasSubstr("is empty"));
    EXPECT_THAT(errorOf("frame,id,x\n"), HasSubstr("frame, id, x and y"));
    EXPECT_THAT(errorOf("frame,id,x,y,X\n"), HasSubstr("names x twice"));
    EXPECT_THAT(errorOf("frame,id,x,y\n"), HasSubstr("no rows"));
    EXPECT_THAT(errorOf("frame,id,x,y\n0,1,2\n"), HasSubstr("line 2: 3 fields"));
    EXPECT_THAT(errorOf("frame,id,x,y\n-1,1,2,3\n"), HasSubstr("whole numbers from 0"));
    EXPECT_THAT(errorOf("frame,id,x,y\n0,,2,3\n"), HasSubstr("id is empty"));
    EXPECT_THAT(errorOf("frame,id,x,y\n0,1,two,3\n"), HasSubstr("x 'two' is not a number"));
    EXPECT_THAT(errorOf("frame,id,x,y\n0,1,2,3\n0,1,2,3\n"), HasSubstr("given twice"));
    EXPECT_THAT(errorOf("frame,id,x,y\n0,1,2,3\n900000000,1,2,3\n"), HasSubstr("at most"));
    EXPECT_THAT(errorOf("frame,id,x,y\n0,1,2,3\n9223372036854775807,1,2,3\n"),
                HasSubstr("frames 0 to 9223372036854775807: an import holds at most 20000000"));
}

}  // namespace
}  // namespace fishschool
