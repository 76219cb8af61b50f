#include "ParamHistory.h"

#include <algorithm>
#include <type_traits>
#include <variant>

#include "core/ParamTable.h"

namespace fishschool::app {

std::vector<std::string_view> changedKeys(const SimParams& a, const SimParams& b) {
    std::vector<std::string_view> keys;
    for (const ParamInfo& info : paramTable()) {
        const bool differs = std::visit(
            [&]<class Field>(const Field& field) {
                if constexpr (std::is_same_v<Field, ChoiceField>)
                    return field.get(a) != field.get(b);
                else
                    return !(a.*field == b.*field);
            },
            info.field);
        if (differs) keys.push_back(info.key);
    }
    return keys;
}

void ParamHistory::record(const SimParams& applied, double nowSeconds) {
    if (applied == current()) return;
    // One drag of a slider over many frames: one change with the last, when it changes no key
    // the last did not (dragged back to where it started, it changes none).
    const auto sameKeys = [&] {
        const auto last = changedKeys(entries_[cursor_ - 1], entries_[cursor_]);
        return std::ranges::all_of(changedKeys(entries_[cursor_ - 1], applied), [&](auto key) {
            return std::ranges::find(last, key) != last.end();
        });
    };
    if (merging_ && cursor_ > 0 && cursor_ + 1 == entries_.size() &&
        nowSeconds - lastRecord_ <= kMergeSeconds && sameKeys()) {
        entries_[cursor_] = applied;
        lastRecord_ = nowSeconds;
        // Dragged back to where it started: no change at all.
        if (applied == entries_[cursor_ - 1]) {
            entries_.pop_back();
            --cursor_;
            merging_ = false;
        }
        return;
    }
    entries_.resize(cursor_ + 1);
    entries_.push_back(applied);
    if (entries_.size() > kCapacity) entries_.erase(entries_.begin());
    cursor_ = entries_.size() - 1;
    lastRecord_ = nowSeconds;
    merging_ = true;
}

std::optional<SimParams> ParamHistory::undo() {
    if (!canUndo()) return std::nullopt;
    merging_ = false;
    return entries_[--cursor_];
}

std::optional<SimParams> ParamHistory::redo() {
    if (!canRedo()) return std::nullopt;
    merging_ = false;
    return entries_[++cursor_];
}

std::vector<std::string_view> ParamHistory::keysOfUndo() const {
    if (!canUndo()) return {};
    return changedKeys(entries_[cursor_ - 1], entries_[cursor_]);
}

std::vector<std::string_view> ParamHistory::keysOfRedo() const {
    if (!canRedo()) return {};
    return changedKeys(entries_[cursor_], entries_[cursor_ + 1]);
}

void ParamHistory::restart(const SimParams& params) {
    entries_ = {params};
    cursor_ = 0;
    saved_ = params;
    merging_ = false;
}

}  // namespace fishschool::app
