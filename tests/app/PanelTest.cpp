// The panel's plots of the school's measures keep the last minutes of simulated time.

#include <gtest/gtest.h>

#include "ui/Panel.h"

namespace fishschool::ui {
namespace {

TEST(PanelPlots, KeepTheLastMinutesOfSimulatedTimeAndStartAgainWithANewSchool) {
    Panel panel;
    SchoolMetrics m;
    for (int t = 0; t <= 300; t += 10) {
        m.polarization = t / 300.0;
        panel.addMeasures(t, m);
    }
    const auto& kept = panel.measures();
    ASSERT_FALSE(kept.empty());
    EXPECT_EQ(kept.front().seconds, 300.0 - Panel::kPlotSeconds);
    EXPECT_EQ(kept.back().seconds, 300.0);
    EXPECT_DOUBLE_EQ(kept.back().metrics.polarization, 1.0);
    EXPECT_EQ(kept.size(), 19u);

    panel.addMeasures(300.0, m);  // paused: the same time again is kept
    EXPECT_EQ(panel.measures().size(), 20u);
    panel.addMeasures(0.5, m);  // a reset school starts at 0
    ASSERT_EQ(panel.measures().size(), 1u);
    EXPECT_EQ(panel.measures().front().seconds, 0.5);
}

}  // namespace
}  // namespace fishschool::ui
