// fishschool.run_ensemble, merge_ensemble and ensemble_sensitivity (docs/ensembles.md).

#include <optional>
#include <stop_token>
#include <string>
#include <utility>

#include "Conversions.h"

namespace fishschool::python {
namespace {

/// fishschool.run_ensemble: the library's runEnsembleFile with the GIL released while it runs;
/// `progress(done, total, failed)` is called with the GIL taken, after each run.
py::dict runEnsemble(const py::handle& file, const py::handle& out, const py::handle& jobs,
                     const py::object& shard, const py::object& only, bool retryFailed,
                     const py::object& progress) {
    EnsembleRunOptions options;
    const std::int64_t jobCount = toInt64(jobs, "jobs");
    if (jobCount < 0 || jobCount > 1024)
        raise(PyExc_ValueError, "jobs: " + std::to_string(jobCount) +
                                    " is not allowed; must be 0 (one per CPU thread) to 1024");
    options.jobs = static_cast<std::size_t>(jobCount);
    if (!shard.is_none()) {
        const auto pair = shard.cast<py::tuple>();
        if (pair.size() != 2) raise(PyExc_ValueError, "shard: must be a pair (K, N)");
        options.shardIndex = toInt64(pair[0], "shard");
        options.shardCount = toInt64(pair[1], "shard");
    }
    if (!only.is_none())
        for (const py::handle& run : only) options.only.push_back(toInt64(run, "only"));
    options.retryFailed = retryFailed;
    std::optional<py::error_already_set> callbackError;
    if (!progress.is_none()) {
        if (!PyCallable_Check(progress.ptr())) raise(PyExc_TypeError, "progress: must be callable");
        options.onProgress = [&](const EnsembleProgress& now) {
            const py::gil_scoped_acquire gil;
            if (callbackError) return;
            try {
                progress(now.done, now.total, now.failed);
            } catch (py::error_already_set& error) {
                callbackError = std::move(error);  // raised once the runs are done
            }
        };
    }
    const std::string filePath = pathText(file), outPath = pathText(out);
    // Ctrl-C stops the runs within a step of each: the rows written stay, and the same call
    // resumes.
    std::expected<EnsembleOutcome, EnsembleFailure> outcome;
    runStoppable([&](std::stop_token stop) {
        options.stop = stop;
        outcome = runEnsembleFile(filePath, outPath, options);
    });
    if (callbackError) throw *callbackError;
    if (!outcome)
        raise(outcome.error().badInput ? PyExc_ValueError : PyExc_RuntimeError,
              outcome.error().message);
    py::dict result;
    result["total"] = outcome->total;
    result["ran"] = outcome->ran;
    result["failed"] = outcome->failed;
    return result;
}

}  // namespace

/// fishschool.merge_ensemble(folder, csv, timing=None, summary=None).
py::dict mergeEnsemble(const py::object& folder, const py::object& csv, const py::object& timing,
                       const py::object& summary) {
    const std::string folderPath = pathText(folder);
    requireExistingFile(folderPath);
    EnsembleMergeOutputs outputs;
    outputs.csv = pathText(csv);
    if (!timing.is_none()) outputs.timing = pathText(timing);
    if (!summary.is_none()) outputs.summary = pathText(summary);
    Result<EnsembleMerged> merged = EnsembleMerged{};
    {
        const py::gil_scoped_release release;
        merged = mergeEnsembleFolder(folderPath, outputs);  // no Python object touched here
    }
    if (!merged) raiseError(merged.error());
    py::dict d;
    d["runs"] = merged->runs;
    d["merged"] = merged->merged;
    d["failed"] = merged->failed;
    return d;
}

/// fishschool.ensemble_sensitivity(folder, bootstrap=1000, confidence=0.95, seed=0).
py::dict ensembleSensitivityOf(const py::object& folder, const py::handle& bootstrap,
                               double confidence, const py::handle& seed) {
    const std::string folderPath = pathText(folder);
    requireExistingFile(folderPath);
    SensitivityOptions options;
    options.bootstrap = toInt64(bootstrap, "bootstrap");
    options.confidence = confidence;
    options.seed = toSeed(seed);
    Result<EnsembleSensitivity> found = EnsembleSensitivity{};
    {
        const py::gil_scoped_release release;
        found = ensembleSensitivity(folderPath, options);
    }
    if (!found) raiseError(found.error());
    py::dict indices;
    for (const SensitivityIndex& i : found->indices) {
        if (!indices.contains(i.measure)) indices[py::str(i.measure)] = py::dict();
        py::dict values;
        values["S1"] = i.first;
        values["S1_low"] = i.firstLow;
        values["S1_high"] = i.firstHigh;
        values["ST"] = i.total;
        values["ST_low"] = i.totalLow;
        values["ST_high"] = i.totalHigh;
        indices[py::str(i.measure)].cast<py::dict>()[py::str(i.parameter)] = values;
    }
    py::dict skipped;
    for (const auto& [measure, why] : found->skipped) skipped[py::str(measure)] = why;
    py::dict d;
    d["samples"] = found->samples;
    d["replicates"] = found->replicates;
    d["parameters"] = found->parameters;
    d["indices"] = indices;
    d["skipped"] = skipped;
    return d;
}

void bindEnsembles(py::module_& m) {
    m.def(
        "run_ensemble", &runEnsemble, py::arg("file"), py::arg("out"), py::arg("jobs") = 0,
        py::arg("shard") = py::none(), py::arg("only") = py::none(),
        py::arg("retry_failed") = false, py::arg("progress") = py::none(),
        R"doc(Runs an ensemble file's runs (docs/ensembles.md) into the folder `out`, or resumes them
there, as `fishschool-cli ensemble run FILE --out OUT` does. jobs: runs at once (0: one per CPU
thread); shard: (K, N), the runs whose index % N is K; only: a list of run indices to run (again);
progress(done, total, failed) is called after each run. Returns {total, ran, failed}. ValueError
when the file, the folder or an option is refused, RuntimeError when the machine failed. Ctrl-C
stops the runs within a step of each and raises KeyboardInterrupt: the runs finished stay in the
folder, and the same call goes on from there.)doc");
    m.def("merge_ensemble", &mergeEnsemble, py::arg("folder"), py::arg("csv"),
          py::arg("timing") = py::none(), py::arg("summary") = py::none(),
          R"doc(Merges the runs done in an ensemble's folder into one CSV sorted by run index, as
`fishschool-cli ensemble merge FOLDER --csv CSV` does, part way or whole; optionally each run's
wall time and each point's summary over its replicates. Every output is written together or none.
Returns {runs, merged, failed}. ValueError names what is refused.)doc");
    m.def("ensemble_sensitivity", &ensembleSensitivityOf, py::arg("folder"),
          py::arg("bootstrap") = 1000, py::arg("confidence") = 0.95, py::arg("seed") = 0,
          R"doc(The Sobol indices of each measure of a finished ensemble of the "sobol" design, as
`fishschool-cli ensemble sensitivity FOLDER` computes them: {samples, replicates, parameters,
indices: {measure: {parameter: {S1, S1_low, S1_high, ST, ST_low, ST_high}}}, skipped: {measure:
why}}. The intervals are the percentiles of `bootstrap` resamples of the base points, covering
`confidence`. ValueError for a grid's folder or one with a run missing or failed.)doc");
}

}  // namespace fishschool::python
