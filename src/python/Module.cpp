// `import fishschool`: the public API (include/fishschool/) for Python, with NumPy views of the
// school and of a trajectory's frames (docs/python.md). Split by area: the simulation
// (SimulationBindings.cpp), trajectories (TrajectoryBindings.cpp), ensembles
// (EnsembleBindings.cpp), the measures of trajectories (MeasureBindings.cpp), fitting a model
// (FitBindings.cpp) and the conversions they share (Conversions.h), where raiseError turns every
// error of the library into an exception by its kind: ValueError for bad input (the message names
// the key, the value and what is allowed), OSError for a file or the system, RuntimeError where the
// device failed; TypeError for a value of the wrong type. It includes include/fishschool/ alone.

#include <pybind11/pybind11.h>

#include <string>

#include "Conversions.h"

namespace fishschool::python {
void bindSimulation(py::module_& m);
void bindTrajectories(py::module_& m);
void bindEnsembles(py::module_& m);
void bindMeasures(py::module_& m);
void bindFit(py::module_& m);
}  // namespace fishschool::python

PYBIND11_MODULE(fishschool, m) {
    using namespace fishschool;
    using namespace fishschool::python;

    m.doc() = "FishSchool: a fish-school simulator (docs/python.md).";
    m.attr("__version__") = std::string(version());

    m.def(
        "backends",
        [] {
            py::list list;
            for (const BackendInfo& info : backends()) {
                py::dict d;
                d["name"] = info.name;
                d["label"] = info.label;
                d["built"] = info.built;
                list.append(d);
            }
            return list;
        },
        "Every kind of backend: a list of dicts {name, label, built}.");
    m.def(
        "default_params", [] { return fromJson(configToJson(SimParams{})); },
        "Every config key with its default value (docs/config.md), as a dict.");

    bindSimulation(m);
    bindTrajectories(m);
    bindEnsembles(m);
    bindMeasures(m);
    bindFit(m);
}
