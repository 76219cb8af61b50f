// fishschool.run_ensemble (docs/ensembles.md).

#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <thread>
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
    // The runs on a thread of their own while this one, the GIL released, looks for a signal
    // every 50 ms: Ctrl-C asks the runs to stop, and is raised once they have (the rows written
    // stay, and the same call resumes), as it is between the chunks of Simulation.step.
    std::stop_source stop;
    options.stop = stop.get_token();
    std::expected<EnsembleOutcome, EnsembleFailure> outcome;
    std::optional<py::error_already_set> interrupted;
    {
        const py::gil_scoped_release release;
        std::mutex mutex;
        std::condition_variable finished;
        bool done = false;
        std::exception_ptr thrown;
        std::thread runs([&] {
            try {
                outcome = runEnsembleFile(filePath, outPath, options);
            } catch (...) {
                thrown = std::current_exception();
            }
            const std::lock_guard lock(mutex);
            done = true;
            finished.notify_all();
        });
        std::unique_lock lock(mutex);
        while (!finished.wait_for(lock, std::chrono::milliseconds(50), [&] { return done; })) {
            if (interrupted) continue;
            lock.unlock();
            {
                const py::gil_scoped_acquire gil;
                if (PyErr_CheckSignals() != 0) {
                    interrupted.emplace();  // takes the exception the handler raised
                    stop.request_stop();
                }
            }
            lock.lock();
        }
        lock.unlock();
        runs.join();
        if (thrown) std::rethrow_exception(thrown);
    }
    if (interrupted) throw *interrupted;
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
}

}  // namespace fishschool::python
