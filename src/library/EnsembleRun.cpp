#include "fishschool/Ensemble.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <new>
#include <optional>
#include <utility>

#include "backends/BackendRegistry.h"
#include "core/Messages.h"
#include "fishschool/Trajectory.h"
#include "io/OutputFiles.h"
#include "io/Recorders.h"
#include "library/WorkerBackends.h"
#include "runs/Ensemble.h"
#include "runs/EnsembleFolder.h"
#include "runs/Sobol.h"

namespace fishschool {

namespace fs = std::filesystem;

namespace {

constexpr const char* kOutOfMemory =
    "out of memory; the rows written stay, and the same command resumes (with fewer --jobs?)";

/// Run `row`'s line of the merged CSV as a trajectory's parameters/ensemble_run attributes
/// (Trajectory.h): the measures as doubles, the same bits as the CSV's, over the steps
/// measure_from_step..measure_to_step (after each step; the last step alone without a window).
std::vector<TrajectoryAttribute> ensembleRunAttributes(const EnsembleSpec& spec,
                                                       const RunRow& row) {
    std::vector<TrajectoryAttribute> attributes{
        {"index", row.plan.index},
        {"seed", row.plan.seed},
        {"replicate", row.plan.replicate},
        {"status", std::string(row.ok ? "ok" : "failed")},
        {"steps", row.steps},
        {"message", row.message},
        {"measure_from_step",
         spec.window > 0 ? spec.steps - std::min(spec.window, spec.steps) + 1 : spec.steps},
        {"measure_to_step", spec.steps}};
    // The axes' values, by key (one that a column above already names is in the config).
    for (std::size_t a = 0; a < spec.axes.size() && a < row.plan.values.size(); ++a)
        if (std::ranges::none_of(attributes, [&](const TrajectoryAttribute& attribute) {
                return attribute.name == spec.axes[a].key;
            }))
            attributes.push_back({spec.axes[a].key, row.plan.values[a]});
    if (row.ok) {
        for (const SchoolMeasure& measure : kSchoolMeasures)
            if (const double value = row.measures.*measure.member; !std::isnan(value))
                attributes.push_back({measure.column, value});  // absent: none informed
    }
    return attributes;
}

std::expected<EnsembleOutcome, EnsembleFailure> runFile(const fs::path& file, const fs::path& out,
                                                        const EnsembleRunOptions& o) {
    const auto badInput = [](std::string message) {
        return std::unexpected(EnsembleFailure{true, std::move(message)});
    };
    const auto internalFailure = [](std::string message) {
        return std::unexpected(EnsembleFailure{false, std::move(message)});
    };
    const std::string fileName = file.string(), folderName = out.string();
    if (o.shardCount < 1 || o.shardCount > kMaxEnsembleRuns || o.shardIndex < 0 ||
        o.shardIndex >= o.shardCount)
        return badInput("--shard: " + std::to_string(o.shardIndex) + "/" +
                        std::to_string(o.shardCount) +
                        " is not allowed; must be K/N with N from 1 to " +
                        std::to_string(kMaxEnsembleRuns) + " and K from 0 to N - 1");
    if (!o.only.empty() && o.shardCount != 1)
        return badInput("--only and --shard cannot be used together: --only names the runs");
    auto spec = loadEnsemble(file);
    if (!spec) return badInput(spec.error());
    const std::int64_t runs = spec->runCount();
    for (const std::int64_t run : o.only)
        if (run < 0 || run >= runs)
            return badInput("--only: " + quote(std::to_string(run)) +
                            " is not allowed; must be a whole number from 0 to " +
                            std::to_string(runs - 1));
    std::vector<std::int64_t> sorted = o.only;
    std::sort(sorted.begin(), sorted.end());
    if (const auto twice = std::adjacent_find(sorted.begin(), sorted.end()); twice != sorted.end())
        return badInput("--only: run " + std::to_string(*twice) +
                        " is named twice; name each run once");
    // A trajectory is one run's: the one --only names.
    const bool recording = !o.trajectory.empty();
    if (recording && o.only.size() != 1)
        return badInput(
            "--trajectory: writes the frames of one run; give --only with exactly one "
            "run index (as --only 7), got " +
            (o.only.empty() ? std::string("no --only")
                            : std::to_string(o.only.size()) + " indices"));
    if (recording && o.trajectoryEvery < 1)
        return badInput("--trajectory-every: " + std::to_string(o.trajectoryEvery) +
                        " is not allowed; must be a whole number >= 1");
    const auto kind = parseBackendFlag(fileName + ": key 'backend'", spec->backend);
    if (!kind) return badInput(kind.error());
    // A kind this build lacks is refused by --dry-run too; whether this machine can run a built
    // one (a GPU) is asked only where the runs run: a login node may have none.
    if (const BackendEntry& entry = backendEntry(*kind); !entry.built)
        if (auto why = entry.available(); !why)
            return badInput(fileName + ": key 'backend': " + why.error());

    // The folder: new, empty, or this ensemble's (by its manifest), nothing else, and writable:
    // every refusal is said before anything is made, --dry-run's too.
    // "out/" is the folder "out", as a shell's completion writes it.
    fs::path folder = out;
    while (!folder.has_filename() && folder.has_relative_path()) folder = folder.parent_path();
    const std::string outName = "--out: " + quote(folderName, 200);
    const auto writable = [](const fs::path& path) {
        return ::faccessat(AT_FDCWD, path.c_str(), W_OK | X_OK, AT_EACCESS) == 0 ? 0 : errno;
    };
    std::error_code error;
    const auto status = fs::status(folder, error);
    if (error && status.type() != fs::file_type::not_found)  // too long, a loop of links, ...
        return badInput(outName + " cannot be used: " + error.message());
    if (fs::exists(status) && !fs::is_directory(status))
        return badInput(outName + " is a file; give a folder (it is made if missing)");
    const EnsembleManifest ours = manifestOf(*spec, fileName, FISHSCHOOL_VERSION);
    std::optional<FolderRows> rows;
    if (fs::exists(status)) {
        auto existing = readManifest(folder);
        if (!existing) return badInput(existing.error());
        if (*existing) {
            if (auto same = checkSameEnsemble(folderName, **existing, ours); !same)
                return badInput(same.error());
            auto read = readFolder(folder, "--out");
            if (!read) return badInput(read.error());
            rows.emplace(std::move(read->second));
        } else {
            for (const auto& entry : fs::directory_iterator(folder, error)) {
                const std::string name = entry.path().filename().string();
                // Another task of the array may be writing the manifest right now: its
                // temporary file is no stranger.
                if (!isPartFileName(name) && name != kManifestName &&
                    !isTemporaryOf(name, kManifestName))
                    return badInput(outName + " holds " + quote(name) + " and no " + kManifestName +
                                    ": not an ensemble's folder; give a new or empty folder");
            }
            // Part files without a manifest (another task's, just begun): this ensemble's
            // rows or none, found before a manifest is made.
            if (auto found = readRows(folder, ours); !found) {
                // Another ensemble's task may have made its manifest since it was looked for:
                // then that, not its part file, is what refuses this one.
                if (auto now = readManifest(folder); now && *now)
                    if (auto same = checkSameEnsemble(folderName, **now, ours); !same)
                        return badInput(same.error());
                return badInput(found.error());
            }
        }
        if (const int why = writable(folder); why != 0)
            return badInput(outName + " cannot be written (" + std::strerror(why) +
                            "); ensemble run writes its part files there: give a folder you "
                            "can write");
    } else {
        const fs::path parent = folder.parent_path().empty() ? "." : folder.parent_path();
        const auto parentStatus = fs::status(parent, error);
        if (fs::exists(parentStatus) && !fs::is_directory(parentStatus))
            return badInput(outName + ": its parent " + quote(parent.string(), 200) +
                            " is a file, not a folder; give a folder's path");
        if (!fs::exists(parentStatus))
            return badInput(outName + ": its parent " + quote(parent.string(), 200) +
                            (error.value() == ENOTDIR
                                 ? " is not a folder: a file stands on its path; give a folder's "
                                   "path"
                                 : " does not exist; make it first"));
        if (const int why = writable(parent); why != 0)
            return badInput(outName + " cannot be made: its parent folder " +
                            quote(parent.string(), 200) + " cannot be written (" +
                            std::strerror(why) + "); give a folder you can write");
    }
    const auto shareOf = [&](const FolderRows* done) {
        const auto isDone = [&](std::int64_t i) {
            const FolderRows::Status status = done ? done->status(i) : FolderRows::Status::None;
            return status == FolderRows::Status::Ok ||
                   (status == FolderRows::Status::Failed && !o.retryFailed);
        };
        if (!o.only.empty()) return std::pair{std::int64_t(o.only.size()), o.only};
        std::pair<std::int64_t, std::vector<std::int64_t>> share{0, {}};  // total, to run
        for (std::int64_t i = o.shardIndex; i < runs; i += o.shardCount) {
            ++share.first;
            if (!isDone(i)) share.second.push_back(i);
        }
        return share;
    };
    // The trajectory checked (and its temporary file made) before anything runs.
    OutputFiles outputs;
    fs::path trajectoryFile;
    if (recording) {
        const std::string target = o.trajectory.string();
        // Compared as files, not as path text: through a link to the folder or to one of its
        // files, or as another name of one, it would still replace what the folder holds.
        if (const FolderPlace place = placeInFolder(target, folder);
            place.inside || !place.ownFile.empty())
            return badInput("--trajectory: " + quote(target, 200) + " is " +
                            (place.ownFile.empty() ? std::string("in the --out folder")
                                                   : "the --out folder's " + place.ownFile) +
                            ", which holds part files only; give a path outside it");
        if (auto format = outputFormatOf(o.trajectory); !format)
            return badInput("--trajectory: " + format.error());
        if (o.validateOnly) {
            if (auto ok = outputs.check("--trajectory", target, {{"FILE", fileName}}); !ok)
                return badInput(ok.error());
        } else {
            auto path = outputs.addExternal("--trajectory", target, {{"FILE", fileName}});
            if (!path) return badInput(path.error());
            trajectoryFile = *path;
        }
    }
    if (o.validateOnly) return EnsembleOutcome{shareOf(rows ? &*rows : nullptr).first, 0, 0};

    auto backends = makeWorkerBackends(*kind, spec->base, o.jobs);
    if (!backends)  // a kind this machine cannot run at all is the input's fault
        return std::unexpected(EnsembleFailure{!backendEntry(*kind).available(), backends.error()});
    if (!rows) {
        // Made now, or by another task since: either way its manifest, made exclusively, is
        // read back, and a task of another ensemble file refused.
        if (!fs::create_directory(folder, error) && !fs::is_directory(folder))
            return badInput(outName + " cannot be made: " + error.message());
        auto made = createManifest(folder, ours);
        if (!made) {
            const bool refused = writable(folder) != 0;  // made read-only meanwhile
            return std::unexpected(EnsembleFailure{refused, made.error()});
        }
        if (auto same = checkSameEnsemble(folderName, *made, ours); !same)
            return badInput(same.error());
        auto read = readFolder(folder, "--out");
        if (!read) return badInput(read.error());
        if (auto same = checkSameEnsemble(folderName, read->first, ours); !same)
            return badInput(same.error());
        rows.emplace(std::move(read->second));
    }
    const auto [total, todo] = shareOf(&*rows);
    if (todo.empty()) return EnsembleOutcome{total, 0, 0};

    std::signal(SIGXFSZ, SIG_IGN);  // a file over its size limit: an error to report, not death
    const std::size_t workers = std::min(backends->size(), todo.size());
    std::vector<PartFile> parts;
    for (std::size_t w = 0; w < workers; ++w) {
        const PartName name{o.shardIndex, o.shardCount, std::int64_t(w)};
        auto part = PartFile::open(folder / partFileName(name), partFileHeader(ours));
        if (!part) return internalFailure(part.error());
        parts.push_back(std::move(*part));
    }
    EnsembleProgress progress{total, total - std::int64_t(todo.size()), 0};
    std::mutex progressMutex;
    EnsembleWork work{.runs = todo,
                      .jobs = workers,
                      .backendFor = backends->backendFor(),
                      .onRow = {},
                      .stop = o.stop};
    work.onRow = [&](std::size_t worker, const RunRow& ran) -> Result<void> {
        // On a worker's thread, where an exception would end the program: out of memory stops
        // the runs instead, the rows before kept.
        try {
            RunRow row = ran;
            if (o.faults.contains(row.plan.index)) {
                row.ok = false;
                row.message = "a fault injected by FISHSCHOOL_FAULT_RUNS";
            }
            if (auto ok = parts[worker].append(ensembleCsvRow(row, true)); !ok) return ok;
            const std::lock_guard lock(progressMutex);
            ++progress.done;
            progress.failed += row.ok ? 0 : 1;
            if (o.onProgress) o.onProgress(progress);
            return {};
        } catch (const std::bad_alloc&) {
            return fail(kOutOfMemory);
        }
    };
    std::unique_ptr<TrajectoryRecorder> trajectory;
    double dt = 0.0;
    EnsembleFrames frames;
    if (recording) {
        frames.every = o.trajectoryEvery;
        frames.onFrame = [&](const SimParams& params, std::int64_t step,
                             const School& school) -> Result<void> {
            if (!trajectory) {
                // The recorder of the path's format, as every front end's (io/Recorders.h).
                auto format = outputFormatOf(o.trajectory);
                if (!format) return fail("--trajectory: " + format.error());
                auto made = makeTrajectoryRecorder(*format, trajectoryFile, params, school,
                                                   o.trajectory.string());
                if (!made) return fail("--trajectory: " + made.error());
                trajectory = std::move(*made);
                dt = params.dt;
            }
            // The school's measures at each frame (MDAnalysis reads one a frame); the row's
            // averages go to parameters/ensemble_run.
            const auto copy = [&](std::span<float> positions, std::span<float> velocities) {
                copyFrame(school, positions, velocities);
            };
            std::vector<float> clocks;  // burst-and-coast's kick clocks, where recorded
            if (trajectory->recordsKickClocks())
                for (const Fish& fish : school) clocks.push_back(fish.kickClock);
            return trajectory->addFrameFrom(step, double(step) * dt, copy, clocks,
                                            measureSchool(school, params));
        };
        const auto writeRow = work.onRow;
        work.onRow = [&, writeRow](std::size_t worker, const RunRow& row) -> Result<void> {
            if (trajectory)
                if (auto ok = trajectory->addParameterAttributes("ensemble_run",
                                                                 ensembleRunAttributes(*spec, row));
                    !ok)
                    return ok;
            return writeRow(worker, row);
        };
    }
    const auto ran = runEnsemble(*spec, work, frames);
    if (!ran) return internalFailure(ran.error());
    const std::int64_t rowsWritten = progress.done - (total - std::int64_t(todo.size()));
    if (rowsWritten < std::int64_t(todo.size()) && o.stop.stop_requested())
        return EnsembleOutcome{total, rowsWritten, progress.failed, true};
    if (trajectory) {
        if (auto ok = trajectory->finish(); !ok)
            return internalFailure("--trajectory: " + ok.error());
        if (auto ok = outputs.commit(); !ok) return internalFailure(ok.error());
    }
    return EnsembleOutcome{total, std::int64_t(todo.size()), progress.failed};
}

}  // namespace

std::expected<EnsembleOutcome, EnsembleFailure> runEnsembleFile(const fs::path& file,
                                                                const fs::path& out,
                                                                const EnsembleRunOptions& o) {
    try {
        return runFile(file, out, o);
    } catch (const std::bad_alloc&) {
        return std::unexpected(EnsembleFailure{false, kOutOfMemory});
    }
}

Result<EnsembleMerged> mergeEnsembleFolder(const fs::path& folderPath,
                                           const EnsembleMergeOutputs& given, bool validateOnly) {
    // Every output, or none: each checked before the folder is read.
    OutputFiles outputs;
    const std::string folderText = folderPath.string();
    for (const auto& [flag, path] : {std::pair{"--csv", &given.csv},
                                     {"--timing", &given.timing},
                                     {"--summary", &given.summary}}) {
        if (path->empty()) continue;
        if (auto ok = checkNotTheFolders(flag, path->string(), folderText); !ok)
            return fail(ok.error());
        if (auto ok = validateOnly ? outputs.check(flag, path->string())
                                   : outputs.add(flag, path->string());
            !ok)
            return fail(ok.error());
    }
    if (validateOnly) return EnsembleMerged{};
    auto folder = readFolder(folderText);
    if (!folder) return fail(folder.error());
    auto& [manifest, rows] = *folder;
    // Row by row into the outputs' temporary files: a row's memory, whatever the run count.
    const bool csv = outputs.has("--csv");
    const bool timing = outputs.has("--timing");
    const bool summary = outputs.has("--summary");
    Result<void> written;
    if (csv) written = outputs.write("--csv", ensembleCsvHeader(manifest.axes, false) + "\n");
    if (written && timing) written = outputs.write("--timing", "run,wall_s\n");
    if (written && summary)
        written = outputs.write("--summary", ensembleSummaryHeader(manifest.axes) + "\n");
    EnsembleMerged merged{manifest.runs, rows.count(), 0};
    // A point's replicates follow each other: its summary is written when the next point starts.
    PointSummary point;
    const auto endPoint = [&] {
        if (written && summary && !point.empty())
            written = outputs.write("--summary", point.csvRow());
        point = PointSummary{};
    };
    for (std::int64_t run = 0; written && run < manifest.runs; ++run) {
        if (run % manifest.replicates == 0) endPoint();
        if (rows.status(run) == FolderRows::Status::None) continue;
        const auto row = rows.row(run);
        if (!row) return fail(Error(row.error(), ErrorKind::Internal));
        if (csv) written = outputs.write("--csv", ensembleCsvRow(*row, false));
        char wall[64];
        std::snprintf(wall, sizeof wall, "%lld,%.6f\n", static_cast<long long>(run),
                      row->wallSeconds);
        if (written && timing) written = outputs.write("--timing", wall);
        point.add(*row);
        merged.failed += row->ok ? 0 : 1;
    }
    endPoint();
    if (!written) return fail(written.error());
    if (auto ok = outputs.commit(); !ok) return fail(ok.error());
    return merged;
}

Result<EnsembleSensitivity> ensembleSensitivity(const fs::path& folderPath,
                                                const SensitivityOptions& options) {
    const std::string name = quote(folderPath.string(), 200);
    if (options.bootstrap < 0 || options.bootstrap > 1'000'000)
        return fail("--bootstrap: " + std::to_string(options.bootstrap) +
                    " is not allowed; must be a whole number from 0 to 1000000");
    if (!(options.confidence > 0.0 && options.confidence < 1.0))
        return fail("--confidence: " + formatNumber(options.confidence) +
                    " is not allowed; must be between 0 and 1");
    auto folder = readFolder(folderPath);
    if (!folder) return fail(folder.error());
    auto& [manifest, rows] = *folder;
    if (manifest.sobolSamples <= 0)
        return fail(name +
                    " holds an ensemble of the grid design; Sobol indices need one of the "
                    "\"sobol\" design (\"design\": \"sobol\", \"samples\": N)");
    std::vector<std::int64_t> missing;
    for (std::int64_t run = 0; run < manifest.runs; ++run)
        if (rows.status(run) != FolderRows::Status::Ok) missing.push_back(run);
    if (!missing.empty())
        return fail(name + ": " + std::to_string(missing.size()) + " of " +
                    std::to_string(manifest.runs) + " runs are not done or failed (run " +
                    std::to_string(missing.front()) +
                    " first); the indices need every run: finish them (ensemble run, "
                    "--retry-failed)");
    const std::size_t k = manifest.axes.size();
    const auto points = std::size_t(manifest.runs / manifest.replicates);
    // Each point's measures, the mean over its replicates.
    std::vector<std::vector<double>> values(kSchoolMeasures.size(),
                                            std::vector<double>(points, 0.0));
    for (std::int64_t run = 0; run < manifest.runs; ++run) {
        const auto row = rows.row(run);
        if (!row) return fail(Error(row.error(), ErrorKind::Internal));
        const auto p = std::size_t(run / manifest.replicates);
        for (std::size_t m = 0; m < kSchoolMeasures.size(); ++m)
            values[m][p] += row->measures.*kSchoolMeasures[m].member / double(manifest.replicates);
    }
    EnsembleSensitivity out;
    out.samples = manifest.sobolSamples;
    out.replicates = manifest.replicates;
    for (const EnsembleAxis& axis : manifest.axes) out.parameters.push_back(axis.key);
    const SobolOptions sobol{options.bootstrap, options.confidence, options.seed};
    for (std::size_t m = 0; m < kSchoolMeasures.size(); ++m) {
        const std::string measure = kSchoolMeasures[m].column;
        if (std::ranges::any_of(values[m], [](double v) { return std::isnan(v); })) {
            // A measure that may be absent is where what it measures is not there.
            const bool wall = kSchoolMeasures[m].member != &SchoolMetrics::directionError;
            out.skipped.emplace_back(
                measure, wall ? "absent (the tank has no walls)" : "absent (no fish is informed)");
            continue;
        }
        auto indices = sobolIndices(values[m], k, sobol);
        if (!indices) {
            out.skipped.emplace_back(measure, indices.error().message());
            continue;
        }
        for (std::size_t i = 0; i < k; ++i) {
            const SobolIndex& s = (*indices)[i];
            out.indices.push_back({measure, out.parameters[i], s.first, s.firstLow, s.firstHigh,
                                   s.total, s.totalLow, s.totalHigh});
        }
    }
    return out;
}

std::string sensitivityCsv(const EnsembleSensitivity& s) {
    std::string csv = "measure,parameter,S1,S1_low,S1_high,ST,ST_low,ST_high\n";
    for (const SensitivityIndex& i : s.indices) {
        csv += i.measure + "," + i.parameter;
        for (double v : {i.first, i.firstLow, i.firstHigh, i.total, i.totalLow, i.totalHigh})
            csv.append(",").append(formatNumber(v));
        csv += "\n";
    }
    return csv;
}

}  // namespace fishschool
