#pragma once

// The parameters a user went through, for undo and redo, and the ones last saved or loaded, for
// asking before the tuning is lost. The app records what it applied; the panel only asks.

#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

#include "fishschool/SimParams.h"

namespace fishschool::app {

/// The config keys in which `a` and `b` differ, in the parameter table's order.
std::vector<std::string_view> changedKeys(const SimParams& a, const SimParams& b);

/// A history of the parameters in force: one entry a change, undone and redone by moving along
/// it. A change made after an undo drops the changes undone.
class ParamHistory {
  public:
    /// Starts at `start`, which counts as saved (the config the app started from).
    explicit ParamHistory(const SimParams& start) : entries_{start}, saved_(start) {}

    /// The parameters in force, as the history last heard of them.
    const SimParams& current() const { return entries_[cursor_]; }

    /// Notes `applied`, the parameters in force after a change made at `nowSeconds` (wall
    /// time). A change of the same keys as the last, within kMergeSeconds of it, is one change
    /// with it: a slider dragged over many frames is undone at once. The same parameters as the
    /// current ones are no change.
    void record(const SimParams& applied, double nowSeconds);
    static constexpr double kMergeSeconds = 1.0;
    /// The most changes kept; the oldest go first.
    static constexpr std::size_t kCapacity = 200;

    bool canUndo() const { return cursor_ > 0; }
    bool canRedo() const { return cursor_ + 1 < entries_.size(); }
    /// Steps back one change: the parameters to apply. When they cannot be applied, redo()
    /// steps forward again.
    std::optional<SimParams> undo();
    std::optional<SimParams> redo();
    /// The keys the change that undo() would take back changed, or that redo() would make.
    std::vector<std::string_view> keysOfUndo() const;
    std::vector<std::string_view> keysOfRedo() const;
    /// Replaces the current entry with what applying it gave (the app may scale a scene), so
    /// that this is no new change.
    void settle(const SimParams& applied) { entries_[cursor_] = applied; }

    /// The current parameters were saved or loaded: nothing to lose from here.
    void markSaved() { saved_ = current(); }
    /// Whether the parameters in force differ from those last saved or loaded.
    bool changedSinceSave() const { return !(current() == saved_); }
    /// Starts again from `params`, saved (a run continued from a recorded frame).
    void restart(const SimParams& params);

  private:
    std::vector<SimParams> entries_;
    std::size_t cursor_ = 0;
    SimParams saved_;
    double lastRecord_ = -1e9;
    bool merging_ = false;  ///< the current entry came from record(), not from undo or redo
};

}  // namespace fishschool::app
