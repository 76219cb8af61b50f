// fishschool.fit (docs/data.md, "Fitting a model"): the library's runFitFile.

#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <utility>

#include "Conversions.h"

namespace fishschool::python {
namespace {

py::dict parameterDict(const FitParameterSummary& p) {
    py::dict d;
    d["mean"] = p.mean;
    d["median"] = p.median;
    d["q05"] = p.low;
    d["q95"] = p.high;
    return d;
}

/// fishschool.fit: runFitFile with the GIL released while it runs; `progress(population,
/// simulations, budget, done)` is called with the GIL taken after each simulation and each
/// population.
py::dict fit(const py::handle& file, const py::handle& out, const py::handle& jobs,
             const py::object& progress) {
    FitRunOptions options;
    const std::int64_t jobCount = toInt64(jobs, "jobs");
    if (jobCount < 0 || jobCount > 1024)
        raise(PyExc_ValueError, "jobs: " + std::to_string(jobCount) +
                                    " is not allowed; must be 0 (one per CPU thread) to 1024");
    options.jobs = static_cast<std::size_t>(jobCount);
    std::optional<py::error_already_set> callbackError;
    std::mutex mutex;
    if (!progress.is_none()) {
        if (!PyCallable_Check(progress.ptr())) raise(PyExc_TypeError, "progress: must be callable");
        options.onProgress = [&](const FitProgress& now) {
            const std::lock_guard lock(mutex);
            const py::gil_scoped_acquire gil;
            if (callbackError) return;
            try {
                progress(now.population, now.simulations, now.budget, now.populationDone);
            } catch (py::error_already_set& error) {
                callbackError = std::move(error);  // raised once the fit returns
            }
        };
    }
    const std::string filePath = pathText(file), outPath = pathText(out);
    Result<FitOutcome> outcome = FitOutcome{};
    runStoppable([&](std::stop_token stop) {
        options.stop = stop;
        outcome = runFitFile(filePath, outPath, options);
    });
    if (callbackError) throw *callbackError;
    if (!outcome) raiseError(outcome.error());
    const FitOutcome& f = *outcome;
    py::list populations;
    for (const FitPopulationSummary& p : f.populations) {
        py::dict d;
        d["population"] = p.number;
        d["epsilon"] = p.epsilon;
        d["simulations"] = p.simulations;
        d["particles"] = p.particles;
        d["acceptance"] = p.acceptance;
        d["ess"] = p.effectiveSize;
        py::dict parameters;
        for (const FitParameterSummary& q : p.parameters)
            parameters[py::str(q.key)] = parameterDict(q);
        d["parameters"] = parameters;
        d["scales"] = p.scales;
        populations.append(d);
    }
    py::dict posterior;
    for (std::size_t a = 0; a < f.keys.size(); ++a) {
        py::array_t<double> values(py::ssize_t(f.samples.size()));
        auto v = values.mutable_unchecked<1>();
        for (std::size_t i = 0; i < f.samples.size(); ++i) v(py::ssize_t(i)) = f.samples[i][a];
        posterior[py::str(f.keys[a])] = values;
    }
    py::array_t<double> weights(py::ssize_t(f.weights.size()));
    auto w = weights.mutable_unchecked<1>();
    for (std::size_t i = 0; i < f.weights.size(); ++i) w(py::ssize_t(i)) = f.weights[i];
    posterior["weight"] = weights;
    py::dict targets;
    for (std::size_t c = 0; c < f.statistics.size(); ++c)
        targets[py::str(f.statistics[c])] = f.targets[c];
    py::dict d;
    d["parameters"] = f.keys;
    d["targets"] = targets;
    d["populations"] = populations;
    d["posterior"] = posterior;
    d["simulations"] = f.simulations;
    d["schools_per_simulation"] = f.schoolsPerSimulation;
    d["stop_reason"] = f.stopReason;
    d["posterior_file"] =
        f.posterior.empty() ? py::object(py::none()) : py::object(py::str(f.posterior.string()));
    return d;
}

}  // namespace

void bindFit(py::module_& m) {
    m.def("fit", &fit, py::arg("file"), py::arg("out"), py::arg("jobs") = 0,
          py::arg("progress") = py::none(),
          R"doc(Fits a model to a trajectory by ABC-SMC as `fishschool-cli fit FILE --out OUT` does
(docs/data.md): each population's simulations on `jobs` threads (0: one per CPU thread), each
finished simulation and population written to the folder `out`, so that the same call resumes a
fit that was stopped. progress(population, simulations, budget, population_done) is called after
each simulation and each population. Returns {parameters, targets, populations: [{population,
epsilon, simulations, particles, acceptance, ess, parameters: {key: {mean, median, q05, q95}},
scales}], posterior: {key: array, weight: array}, simulations, schools_per_simulation (one for
each target trajectory), stop_reason, posterior_file}.
ValueError names what is refused in the file, its target or the folder. Ctrl-C stops the
simulations within a step and raises KeyboardInterrupt: those finished stay in the folder.)doc");
}

}  // namespace fishschool::python
