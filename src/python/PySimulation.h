#pragma once

#include <chrono>
#include <optional>
#include <thread>

#include "Conversions.h"

namespace fishschool::python {

/// The Python Simulation: a fishschool::Simulation, or none once closed.
class PySimulation {
  public:
    explicit PySimulation(Simulation simulation) : sim_(std::move(simulation)) { noteThread(); }

    /// The simulation for a call, or RuntimeError: closed, stepping in another thread, or a gpu
    /// simulation called from another thread than its GL context's.
    Simulation& get() {
        if (!sim_) raise(PyExc_RuntimeError, "the simulation is closed");
        if (stepping_)
            raise(PyExc_RuntimeError,
                  "the simulation is busy: step() is running on another thread");
        if (glThread_ && *glThread_ != std::this_thread::get_id())
            raise(PyExc_RuntimeError,
                  "this simulation runs on the gpu backend, whose GL context belongs to the "
                  "thread that made it: call it from that thread");
        return *sim_;
    }

    bool closed() const { return !sim_; }

    void step(const py::handle& count) {
        Simulation& sim = get();
        const std::int64_t n = toInt64(count, "n");
        if (n < 0) {
            auto refused = sim.step(n);  // the library's message
            if (refused) raise(PyExc_ValueError, "n: must be 0 or more");
            raiseError(refused.error());
        }
        // Stepped in chunks that grow while they take under 50 ms, the GIL released during each,
        // so that Ctrl-C (a signal, handled between chunks) stops a long run.
        stepping_ = true;
        struct Done {
            bool& flag;
            ~Done() { flag = false; }
        } done{stepping_};
        std::int64_t left = n;
        std::int64_t chunk = 1;
        while (left > 0) {
            const std::int64_t k = std::min(chunk, left);
            const auto start = std::chrono::steady_clock::now();
            Result<void> ok;
            const bool recording = sim.recording();
            {
                const py::gil_scoped_release release;
                ok = sim.step(k);
            }
            // A recording that could not write (a full disk) was dropped: the file's error.
            if (!ok)
                raiseError(ok.error(),
                           recording && !sim.recording() ? PyExc_OSError : PyExc_RuntimeError);
            left -= k;
            if (left == 0) break;
            if (PyErr_CheckSignals() != 0) throw py::error_already_set();
            if (std::chrono::steady_clock::now() - start < std::chrono::milliseconds(50) &&
                chunk < (std::int64_t{1} << 40))
                chunk *= 2;
        }
    }

    /// An (N, 3) float32 view of one vector of every fish in the school's buffer: no copy, read
    /// only. Its base holds the buffer (Simulation::sharedSchool), which then stays as it was
    /// read whatever the simulation does next, closed or stepped or resized.
    py::array view(glm::vec3 Fish::*member) {
        auto school = get().sharedSchool();
        return fishView(std::move(school), member);
    }

    /// The species of every fish: an (N,) uint32 view of the same buffer.
    py::array speciesOfFish() { return speciesView(get().sharedSchool()); }

    /// Releases the backend (a GPU's memory and context go now); arrays read before keep the
    /// buffers they view.
    void close() {
        if (!sim_) return;
        (void)get();  // not while another thread steps
        // A recording still running keeps what it recorded, as the end of a with block does.
        Result<RecordingSummary> recorded = RecordingSummary{};
        if (sim_->recording()) recorded = sim_->finishRecording();
        sim_.reset();
        glThread_.reset();
        if (!recorded) raiseError(recorded.error(), PyExc_OSError);
    }

    /// Where the backend changed: a gpu one belongs to this thread.
    void noteThread() {
        if (sim_ && sim_->backendName() == "gpu")
            glThread_ = std::this_thread::get_id();
        else
            glThread_.reset();
    }

    bool stepping() const { return stepping_; }

  private:
    std::optional<Simulation> sim_;
    bool stepping_ = false;
    std::optional<std::thread::id> glThread_;
};

/// Simulation, Simulation.record, fishschool.measure.
void bindSimulation(py::module_& m);

}  // namespace fishschool::python
