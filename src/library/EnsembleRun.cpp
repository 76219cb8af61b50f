#include "fishschool/Ensemble.h"

#include <algorithm>
#include <csignal>
#include <mutex>
#include <utility>

#include "backends/BackendRegistry.h"
#include "core/Messages.h"
#include "io/OutputFiles.h"
#include "library/WorkerBackends.h"
#include "runs/Ensemble.h"
#include "runs/EnsembleFolder.h"

namespace fishschool {

namespace fs = std::filesystem;

std::expected<EnsembleOutcome, EnsembleFailure> runEnsembleFile(const fs::path& file,
                                                                const fs::path& out,
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
    const auto kind = parseBackendFlag(fileName + ": key 'backend'", spec->backend);
    if (!kind) return badInput(kind.error());

    // The folder: new, empty, or this ensemble's (by its manifest), nothing else.
    // "out/" is the folder "out", as a shell's completion writes it.
    fs::path folder = out;
    while (!folder.has_filename() && folder.has_relative_path()) folder = folder.parent_path();
    std::error_code error;
    const auto status = fs::status(folder, error);
    if (error && status.type() != fs::file_type::not_found)  // too long, a loop of links, ...
        return badInput("--out: " + quote(folderName, 200) + " cannot be used: " + error.message());
    if (fs::exists(status) && !fs::is_directory(status))
        return badInput("--out: " + quote(folderName, 200) +
                        " is a file; give a folder (it is made if missing)");
    const EnsembleManifest manifest{spec->hash(), FISHSCHOOL_VERSION, runs, spec->axes};
    if (fs::exists(status)) {
        auto existing = readManifest(folder);
        if (!existing) return badInput(existing.error());
        if (*existing && (*existing)->hash != manifest.hash)
            return badInput("--out: " + quote(folderName, 200) +
                            " holds the runs of another ensemble file (ensemble " +
                            (*existing)->hash + ", this file's is " + manifest.hash +
                            "); give another folder, never mix two");
        if (*existing && (*existing)->version != manifest.version)
            return badInput("--out: " + quote(folderName, 200) + " was made by fishschool-cli " +
                            (*existing)->version + ", this is " + manifest.version +
                            "; give another folder, never mix two");
        if (!*existing)
            for (const auto& entry : fs::directory_iterator(folder, error)) {
                const std::string name = entry.path().filename().string();
                // Another task of the array may be writing the manifest right now: its
                // temporary file is no stranger.
                if (!isPartFileName(name) && name != kManifestName &&
                    !isTemporaryOf(name, kManifestName))
                    return badInput("--out: " + quote(folderName, 200) + " holds " + quote(name) +
                                    " and no " + kManifestName +
                                    ": not an ensemble's folder; give a new or empty folder");
            }
    } else if (const fs::path parent = folder.parent_path().empty() ? "." : folder.parent_path();
               !fs::is_directory(parent, error)) {
        return badInput("--out: " + quote(folderName, 200) + ": its parent folder " +
                        quote(parent.string(), 200) + " does not exist; make it first");
    }
    if (o.validateOnly) return EnsembleOutcome{};
    auto backends = makeWorkerBackends(*kind, spec->base, o.jobs);
    if (!backends)  // a kind this machine cannot run at all is the input's fault
        return std::unexpected(EnsembleFailure{!backendEntry(*kind).available(), backends.error()});

    if (!fs::exists(folder, error) && !fs::create_directory(folder, error) &&
        !fs::is_directory(folder))
        return badInput("--out: " + quote(folderName, 200) + " cannot be made: " + error.message());
    // Tasks of one array may all start at once: each writes the same bytes, by rename.
    if (!fs::exists(folder / kManifestName, error))
        if (auto ok = writeFileAtomically(folder / kManifestName, manifestJson(manifest, fileName));
            !ok)
            return internalFailure(ok.error());
    auto rows = readRows(folder, manifest);
    if (!rows) return badInput(rows.error());

    std::vector<std::int64_t> todo;
    std::int64_t total = 0;
    auto isDone = [&](std::int64_t i) {
        const FolderRows::Status status = rows->status(i);
        return status == FolderRows::Status::Ok ||
               (status == FolderRows::Status::Failed && !o.retryFailed);
    };
    if (!o.only.empty()) {
        todo = o.only;
        total = std::int64_t(todo.size());
    } else {
        for (std::int64_t i = o.shardIndex; i < runs; i += o.shardCount) {
            ++total;
            if (!isDone(i)) todo.push_back(i);
        }
    }
    const std::string shardName =
        std::to_string(o.shardIndex) + "of" + std::to_string(o.shardCount);
    if (todo.empty()) return EnsembleOutcome{total, 0, 0};

    std::signal(SIGXFSZ, SIG_IGN);  // a file over its size limit: an error to report, not death
    const std::size_t workers = std::min(backends->size(), todo.size());
    std::vector<PartFile> parts;
    for (std::size_t w = 0; w < workers; ++w) {
        auto part =
            PartFile::open(folder / ("part-" + shardName + "-w" + std::to_string(w) + ".csv"),
                           ensembleCsvHeader(spec->axes, true));
        if (!part) return internalFailure(part.error());
        parts.push_back(std::move(*part));
    }
    EnsembleProgress progress{total, total - std::int64_t(todo.size()), 0};
    std::mutex progressMutex;
    EnsembleWork work{
        .runs = todo, .jobs = workers, .backendFor = backends->backendFor(), .onRow = {}};
    work.onRow = [&](std::size_t worker, const RunRow& ran) -> Result<void> {
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
    };
    const auto ran = runEnsemble(*spec, work);
    if (!ran) return internalFailure(ran.error());
    return EnsembleOutcome{total, std::int64_t(todo.size()), progress.failed};
}

}  // namespace fishschool
