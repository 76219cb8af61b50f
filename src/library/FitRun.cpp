// runFitFile (fishschool/Fit.h): the ABC-SMC of src/runs/AbcSmc.h with its simulations run as
// ensembles (runEnsemble, on every core) and its state in a folder: the runs of each population
// as they finish, each population once complete, so that a killed fit loses the runs in flight.

#include "fishschool/Fit.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <mutex>
#include <new>
#include <optional>

#include <nlohmann/json.hpp>

#include "backends/BackendRegistry.h"
#include "core/Messages.h"
#include "fishschool/Distributions.h"
#include "io/OutputFiles.h"
#include "io/TextFiles.h"
#include "library/WorkerBackends.h"
#include "runs/AbcSmc.h"
#include "runs/Ensemble.h"
#include "runs/EnsembleFolder.h"
#include "runs/FitSpec.h"

namespace fishschool {

namespace fs = std::filesystem;

namespace {

constexpr const char* kFitManifest = "fit.json";
constexpr const char* kSummaryName = "populations.csv";
constexpr const char* kPosteriorName = "posterior.csv";

std::string runsName(std::int64_t t) {
    return "runs-" + std::to_string(t) + ".csv";
}
std::string populationName(std::int64_t t) {
    return "population-" + std::to_string(t) + ".csv";
}

/// Whether `name` is a file a fit writes in its folder (or the temporary file of one).
bool isFitFile(const std::string& name) {
    for (const std::string& own :
         {std::string(kFitManifest), std::string(kSummaryName), std::string(kPosteriorName)})
        if (name == own || isTemporaryOf(name, own)) return true;
    if (name.find(".fit.json.tmp-") != std::string::npos) return true;
    for (const char* prefix : {"runs-", "population-"})
        if (name.starts_with(prefix) && name.ends_with(".csv")) return true;
    return name.starts_with(".population-") || name.starts_with(".populations.csv");
}

/// The target's statistics: each measure's mean over the window's frames, and the
/// distributions the simulations' are compared with.
struct Target {
    std::vector<double> values;
    Histograms histograms;
    std::size_t frames = 0;
};

/// Why a target's window may hold no value of a distribution.
std::string whyNone(const std::string& distribution) {
    if (distribution == "wall_distance" || distribution == "wall_angle")
        return distribution + " needs a tank of walls";
    const std::size_t frames = kDistributions[distributionIndex(distribution)].frames;
    if (frames > 1)
        return distribution + " needs " + std::to_string(frames) + " frames of a fish that " +
               (frames == 2 ? "moves" : "turns");
    return "no fish was measured";
}

/// A turn is a fish's from one frame to the next: the target's and the runs' compare only where
/// their frames are as far apart, every `every` steps of dt for the runs.
Result<void> checkTurningInterval(const FitSpec& spec, const fs::path& file,
                                  const TrajectoryMeasurement& m) {
    std::string turn;
    for (const std::string& d : spec.distributionsRead())
        if (kDistributions[distributionIndex(d)].frames > 1) turn = d;
    if (turn.empty()) return {};
    for (const Prior& p : spec.priors)
        if (p.key == "dt") return {};  // the runs' interval varies with the fit
    const double runs = double(spec.every) * double(spec.base.dt);
    for (std::size_t k = 1; k < m.time.size(); ++k) {
        const double gap = m.time[k] - m.time[k - 1];
        if (std::abs(gap - runs) <= 1e-4 * runs) continue;
        return fail("target: " + quote(file.string(), 200) + "'s frames at steps " +
                    std::to_string(m.step[k - 1]) + " and " + std::to_string(m.step[k]) + " are " +
                    formatNumber(gap) + " s apart, the runs' measured frames " +
                    formatNumber(runs) + " s (measure.every " + std::to_string(spec.every) +
                    " steps of dt " + formatNumber(double(spec.base.dt)) + "): " + turn +
                    " compares turns over equal intervals; give measure.every " +
                    "to match the target's frames, or fit without " + turn);
    }
    return {};
}

/// The target's statistics from its trajectories' frames pooled: each measure's mean over every
/// frame of every trajectory's window, and the distributions of all of them.
Result<Target> measureTarget(const FitSpec& spec) {
    Target target;
    target.histograms = emptyHistograms();
    std::vector<double> sums(spec.measures.size(), 0.0);
    for (const fs::path& path : spec.targets) {
        auto m = measureTrajectory(path, spec.targetFrom, spec.targetTo);
        if (!m) return fail(m.error().prefixed("target: "));
        if (m->measures.empty())
            return fail("target: " + quote(path.string(), 200) + " has no frame from step " +
                        std::to_string(spec.targetFrom) +
                        (spec.targetTo == FitSpec{}.targetTo
                             ? std::string(" on")
                             : " to step " + std::to_string(spec.targetTo)) +
                        "; give from_step and to_step within its frames");
        if (auto ok = checkTurningInterval(spec, path, *m); !ok) return fail(ok.error());
        target.frames += m->measures.size();
        for (std::size_t d = 0; d < kDistributions.size(); ++d)
            target.histograms[d].merge(m->histograms[d]);
        for (std::size_t i = 0; i < spec.measures.size(); ++i) {
            const SchoolMeasure& measure = kSchoolMeasures[schoolMeasureIndex(spec.measures[i])];
            for (const SchoolMetrics& frame : m->measures) sums[i] += frame.*measure.member;
        }
    }
    for (double sum : sums) target.values.push_back(sum / double(target.frames));
    const std::string file = spec.targets.size() == 1
                                 ? quote(spec.targets.front().string(), 200)
                                 : std::to_string(spec.targets.size()) + " trajectories";
    for (const std::string& name : spec.distributions) {
        if (target.histograms[distributionIndex(name)].total() == 0)
            return fail("target: " + file + " has no value of the distribution " + quote(name) +
                        " in its window (" + whyNone(name) + "); fit without it");
        target.values.push_back(0.0);  // a Hellinger distance to it
    }
    for (const FitSpec::Quantile& q : spec.quantiles) {
        const Histogram& h = target.histograms[distributionIndex(q.distribution)];
        if (h.total() == 0)
            return fail("target: " + file + " has no value of the distribution " +
                        quote(q.distribution) + " in its window (" + q.name() + ": " +
                        whyNone(q.distribution) + "); fit without it");
        target.values.push_back(histogramQuantile(h, q.share));
    }
    return target;
}

/// The fit's identity: its canonical text and its target's statistics, so that another file, or
/// the same file over another target, is never mixed into a folder.
std::string fitHash(const FitSpec& spec, const Target& target) {
    std::string text = spec.canonicalJson();
    // append() rather than "," + text: GCC 12 warns (-Wrestrict) on the latter, wrongly.
    for (double v : target.values) text.append(",").append(exactNumber(v));
    for (const Histogram& h : target.histograms) {
        text.append(";")
            .append(std::to_string(h.below))
            .append(",")
            .append(std::to_string(h.above));
        for (std::uint64_t c : h.counts) text.append(",").append(std::to_string(c));
    }
    std::uint64_t h = 0xCBF29CE484222325ull;
    for (unsigned char c : text) h = (h ^ c) * 0x100000001B3ull;
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
    return hex;
}

std::string manifestText(const std::string& hash, const std::string& file) {
    nlohmann::ordered_json root = {{"fit", hash}, {"version", FISHSCHOOL_VERSION}, {"file", file}};
    return root.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

std::string statisticNames(const FitSpec& spec) {
    std::string names;
    for (const AbcStatistic& s : spec.abc.statistics) names.append(",").append(s.name);
    return names;
}

std::string keyNames(const FitSpec& spec) {
    std::string names;
    for (const Prior& p : spec.priors) names.append(",").append(p.key);
    return names;
}

std::string runsHeader(const FitSpec& spec) {
    return "index" + keyNames(spec) + ",seed,status" + statisticNames(spec);
}
std::string populationHeader(const FitSpec& spec) {
    return "particle,index" + keyNames(spec) + ",weight,distance" + statisticNames(spec);
}
std::string summaryHeader(const FitSpec& spec) {
    std::string header = "population,epsilon,simulations,particles,acceptance,ess";
    for (const Prior& p : spec.priors)
        for (const char* what : {"mean", "median", "q05", "q95"})
            header.append(",").append(p.key).append("_").append(what);
    for (const AbcStatistic& st : spec.abc.statistics) header.append(",scale_").append(st.name);
    return header;
}

/// The fields of a CSV line (no quoting: no field a fit writes has a comma).
std::vector<std::string_view> fields(std::string_view line) {
    std::vector<std::string_view> out;
    while (true) {
        const std::size_t comma = line.find(',');
        out.push_back(line.substr(0, comma));
        if (comma == std::string_view::npos) return out;
        line.remove_prefix(comma + 1);
    }
}

/// A number exactNumber wrote ("nan" and "inf" included), or nullopt.
std::optional<double> exactField(std::string_view text) {
    if (text.empty() || text.size() > 40) return std::nullopt;
    const std::string s(text);
    char* end = nullptr;
    const double v = std::strtod(s.c_str(), &end);
    if (end != s.c_str() + s.size() || exactNumber(v) != s) return std::nullopt;
    return v;
}

std::optional<std::int64_t> wholeField(std::string_view text) {
    const auto v = exactField(text);
    if (!v || !(*v >= 0.0 && *v <= 9007199254740991.0) || *v != std::floor(*v)) return std::nullopt;
    return std::int64_t(*v);
}

FitParameterSummary summarise(const std::string& key, const AbcPopulation& p, std::size_t a) {
    std::vector<double> values, weights;
    double mean = 0.0;
    for (const AbcParticle& particle : p.particles) {
        values.push_back(particle.values[a]);
        weights.push_back(particle.weight);
        mean += particle.weight * particle.values[a];
    }
    return {key, mean, weightedQuantile(values, weights, 0.5),
            weightedQuantile(values, weights, 0.05), weightedQuantile(values, weights, 0.95)};
}

FitPopulationSummary summaryOf(const FitSpec& spec, const AbcPopulation& p) {
    FitPopulationSummary s{p.number,
                           p.epsilon,
                           p.simulations,
                           std::int64_t(p.particles.size()),
                           p.acceptance(),
                           p.effectiveSize(),
                           {},
                           p.scales};
    for (std::size_t a = 0; a < spec.priors.size(); ++a)
        s.parameters.push_back(summarise(spec.priors[a].key, p, a));
    return s;
}

std::string summaryRow(const FitPopulationSummary& s) {
    std::string row = std::to_string(s.number) + "," + exactNumber(s.epsilon) + "," +
                      std::to_string(s.simulations) + "," + std::to_string(s.particles) + "," +
                      formatNumber(s.acceptance) + "," + formatNumber(s.effectiveSize);
    for (const FitParameterSummary& p : s.parameters)
        for (double v : {p.mean, p.median, p.low, p.high}) row.append(",").append(formatNumber(v));
    for (double v : s.scales) row.append(",").append(exactNumber(v));
    return row + "\n";
}

std::string populationText(const FitSpec& spec, const AbcPopulation& p) {
    std::string text = populationHeader(spec) + "\n";
    for (std::size_t i = 0; i < p.particles.size(); ++i) {
        const AbcParticle& particle = p.particles[i];
        text += std::to_string(i) + "," + std::to_string(particle.index);
        for (double v : particle.values) text.append(",").append(exactNumber(v));
        text.append(",").append(exactNumber(particle.weight));
        text.append(",").append(exactNumber(particle.distance));
        for (double v : particle.stats) text.append(",").append(exactNumber(v));
        text += "\n";
    }
    return text;
}

/// A run of a population, as its runs file holds it.
struct RunResult {
    std::vector<double> values;
    std::uint64_t seed = 0;
    std::vector<double> stats;
};

/// The state of a fit in its folder.
class FitFolder {
  public:
    FitFolder(const FitSpec& spec, fs::path folder, int lock)
        : spec_(spec), folder_(std::move(folder)), lock_(lock) {}
    FitFolder(const FitFolder&) = delete;
    FitFolder& operator=(const FitFolder&) = delete;
    ~FitFolder() {
        if (lock_ >= 0) ::close(lock_);
    }

    std::string named(const std::string& file) const {
        return quote((folder_ / file).string(), 200);
    }
    std::string edited(const std::string& file, std::size_t line, const std::string& what) const {
        return named(file) + " line " + std::to_string(line) + ": " + what +
               "; a fit's files are written by the fit alone (was it edited?): give a new folder";
    }

    /// populations.csv's epsilon and simulations of each population, as found.
    Result<void> readSummary() {
        const fs::path path = folder_ / kSummaryName;
        std::error_code error;
        if (!fs::exists(fs::symlink_status(path, error))) return {};
        std::size_t line = 0;
        return forEachLine(
            path, 1 << 20, [&](std::string_view text, std::uint64_t) -> Result<void> {
                ++line;
                if (line == 1) {
                    if (text != summaryHeader(spec_))
                        return fail(edited(kSummaryName, line, "not this fit's header"));
                    return {};
                }
                const auto f = fields(text);
                const std::size_t c = spec_.abc.statistics.size();
                const std::size_t columns = 6 + 4 * spec_.priors.size() + c;
                const auto t = f.size() == columns ? wholeField(f[0]) : std::nullopt;
                const auto epsilon = f.size() == columns ? exactField(f[1]) : std::nullopt;
                const auto simulations = f.size() == columns ? wholeField(f[2]) : std::nullopt;
                if (!t || !epsilon || !simulations || *t != std::int64_t(line - 2))
                    return fail(edited(kSummaryName, line, "not a row a fit writes"));
                Kept kept{*epsilon, *simulations, {}};
                for (std::size_t i = columns - c; i < columns; ++i) {
                    const auto v = exactField(f[i]);
                    if (!v) return fail(edited(kSummaryName, line, "not a row a fit writes"));
                    kept.scales.push_back(*v);
                }
                summary_.push_back(std::move(kept));
                return {};
            });
    }

    Result<std::optional<AbcPopulation>> load(std::int64_t t) {
        const fs::path path = folder_ / populationName(t);
        std::error_code error;
        const auto status = fs::symlink_status(path, error);
        if (!fs::exists(status) || std::size_t(t) >= summary_.size()) return std::nullopt;
        if (status.type() != fs::file_type::regular)
            return fail(named(populationName(t)) + " is not a regular file; give a new folder");
        AbcPopulation p;
        p.number = t;
        p.epsilon = summary_[std::size_t(t)].epsilon;
        p.simulations = summary_[std::size_t(t)].simulations;
        p.scales = summary_[std::size_t(t)].scales;
        const std::size_t k = spec_.priors.size(), c = spec_.abc.statistics.size();
        std::size_t line = 0;
        const auto read =
            forEachLine(path, 1 << 20, [&](std::string_view text, std::uint64_t) -> Result<void> {
                ++line;
                const std::string file = populationName(t);
                if (line == 1) {
                    if (text != populationHeader(spec_))
                        return fail(edited(file, line, "not this fit's header"));
                    return {};
                }
                const auto f = fields(text);
                if (f.size() != 4 + k + c) return fail(edited(file, line, "not a particle's row"));
                AbcParticle particle;
                const auto number = wholeField(f[0]);
                const auto index = wholeField(f[1]);
                if (!number || *number != std::int64_t(line - 2) || !index)
                    return fail(edited(file, line, "not a particle's row"));
                particle.index = *index;
                std::vector<double> numbers;
                for (std::size_t i = 2; i < f.size(); ++i) {
                    const auto v = exactField(f[i]);
                    if (!v) return fail(edited(file, line, "not a particle's row"));
                    numbers.push_back(*v);
                }
                particle.values.assign(numbers.begin(), numbers.begin() + std::ptrdiff_t(k));
                particle.weight = numbers[k];
                particle.distance = numbers[k + 1];
                particle.stats.assign(numbers.begin() + std::ptrdiff_t(k + 2), numbers.end());
                p.particles.push_back(std::move(particle));
                return {};
            });
        if (!read) return fail(read.error());
        if (p.particles.size() != std::size_t(spec_.abc.particles))
            return fail(named(populationName(t)) + " holds " + std::to_string(p.particles.size()) +
                        " particles, not " + std::to_string(spec_.abc.particles) +
                        "; a fit's files are written by the fit alone: give a new folder");
        // The statistics of its runs up to its last accepted one: the next population's scales.
        auto runs = readRuns(t);
        if (!runs) return fail(runs.error());
        const std::int64_t last = p.particles.back().index;
        for (std::int64_t i = 0; i <= last; ++i) {
            const auto found = runs->find(i);
            if (found == runs->end())
                return fail(named(runsName(t)) + " lacks run " + std::to_string(i) + " of " +
                            named(populationName(t)) +
                            "; a fit's files are written by the fit alone: give a new folder");
            p.simulated.push_back(found->second.stats);
        }
        return p;
    }

    Result<void> save(const AbcPopulation& p) {
        summary_.resize(std::size_t(p.number));
        summary_.push_back({p.epsilon, p.simulations, p.scales});
        populations_.resize(std::size_t(p.number));
        populations_.push_back(summaryOf(spec_, p));
        std::string text = summaryHeader(spec_) + "\n";
        for (const FitPopulationSummary& s : populations_) text += summaryRow(s);
        // The summary first: a population's file, once there, has its row.
        if (auto ok = writeFileAtomically(folder_ / kSummaryName, text); !ok)
            return fail(ok.error().message(), ErrorKind::System);
        if (auto ok =
                writeFileAtomically(folder_ / populationName(p.number), populationText(spec_, p));
            !ok)
            return fail(ok.error().message(), ErrorKind::System);
        return {};
    }

    void noteLoaded(const AbcPopulation& p) {
        populations_.resize(std::size_t(p.number));
        populations_.push_back(summaryOf(spec_, p));
    }
    const std::vector<FitPopulationSummary>& populations() const { return populations_; }

    /// The runs of population `t` its runs file holds, by index.
    Result<std::map<std::int64_t, RunResult>> readRuns(std::int64_t t) const {
        std::map<std::int64_t, RunResult> runs;
        const fs::path path = folder_ / runsName(t);
        const std::size_t k = spec_.priors.size(), c = spec_.abc.statistics.size();
        std::error_code error;
        if (!fs::exists(fs::symlink_status(path, error))) return runs;
        std::size_t line = 0;
        const std::string file = runsName(t);
        auto read =
            forEachLine(path, 1 << 20, [&](std::string_view text, std::uint64_t) -> Result<void> {
                ++line;
                if (line == 1) {
                    if (text != runsHeader(spec_))
                        return fail(edited(file, line, "not this fit's header"));
                    return {};
                }
                const auto f = fields(text);
                if (f.size() != 3 + k + c) return fail(edited(file, line, "not a run's row"));
                const auto index = wholeField(f[0]);
                if (!index) return fail(edited(file, line, "not a run's row"));
                RunResult run;
                for (std::size_t a = 0; a < k; ++a) {
                    const auto v = exactField(f[1 + a]);
                    if (!v) return fail(edited(file, line, "not a run's row"));
                    run.values.push_back(*v);
                }
                const std::string seed(f[1 + k]);
                char* end = nullptr;
                errno = 0;
                run.seed = std::strtoull(seed.c_str(), &end, 10);
                if (seed.empty() || end != seed.c_str() + seed.size() || errno != 0 ||
                    std::to_string(run.seed) != seed || (f[2 + k] != "ok" && f[2 + k] != "failed"))
                    return fail(edited(file, line, "not a run's row"));
                for (std::size_t st = 0; st < c; ++st) {
                    const auto v = exactField(f[3 + k + st]);
                    if (!v) return fail(edited(file, line, "not a run's row"));
                    run.stats.push_back(*v);
                }
                runs[*index] = std::move(run);
                return {};
            });
        if (!read) return fail(read.error());
        return runs;
    }

    /// The runs file of population `t`, opened to append, and the runs it holds.
    Result<void> openRuns(std::int64_t t) {
        if (runsOf_ == t) return {};
        runs_.reset();
        auto runs = readRuns(t);
        if (!runs) return fail(runs.error());
        done_ = std::move(*runs);
        auto part = PartFile::open(folder_ / runsName(t), runsHeader(spec_));
        if (!part) return fail(part.error());
        runs_.emplace(std::move(*part));
        runsOf_ = t;
        return {};
    }

    std::map<std::int64_t, RunResult>& done() { return done_; }
    Result<void> append(const std::string& row) { return runs_->append(row); }

    Result<void> writePosterior(const AbcPopulation& p) {
        if (auto ok = writeFileAtomically(folder_ / kPosteriorName, populationText(spec_, p)); !ok)
            return fail(ok.error().message(), ErrorKind::System);
        return {};
    }
    fs::path posteriorPath() const { return folder_ / kPosteriorName; }

  private:
    const FitSpec& spec_;
    fs::path folder_;
    int lock_ = -1;
    /// What populations.csv says of each population.
    struct Kept {
        double epsilon = 0.0;
        std::int64_t simulations = 0;
        std::vector<double> scales;
    };
    std::vector<Kept> summary_;
    std::vector<FitPopulationSummary> populations_;
    std::int64_t runsOf_ = -1;
    std::optional<PartFile> runs_;
    std::map<std::int64_t, RunResult> done_;
};

/// The folder: new, empty, or this fit's, and writable; made, with its manifest, unless
/// `validateOnly`. Returns the manifest's file descriptor, locked, or -1 when validating.
Result<int> prepareFolder(const fs::path& out, const std::string& hash, const std::string& file,
                          bool validateOnly) {
    fs::path folder = out;
    while (!folder.has_filename() && folder.has_relative_path()) folder = folder.parent_path();
    const std::string name = "--out: " + quote(out.string(), 200);
    const auto writable = [](const fs::path& path) {
        return ::faccessat(AT_FDCWD, path.c_str(), W_OK | X_OK, AT_EACCESS) == 0 ? 0 : errno;
    };
    std::error_code error;
    const auto status = fs::status(folder, error);
    if (error && status.type() != fs::file_type::not_found)
        return fail(name + " cannot be used: " + error.message());
    const fs::path manifest = folder / kFitManifest;
    const std::string text = manifestText(hash, file);
    if (fs::exists(status)) {
        if (!fs::is_directory(status))
            return fail(name + " is a file; give a folder (it is made if missing)");
        const auto manifestStatus = fs::symlink_status(manifest, error);
        if (fs::exists(manifestStatus)) {
            if (manifestStatus.type() != fs::file_type::regular)
                return fail(quote(manifest.string(), 200) +
                            " is not a regular file: not a fit's folder; give a new folder");
            auto found = readTextFile(manifest, 1 << 16, "fit manifest");
            if (!found) return fail(found.error());
            if (*found != text) {
                std::string theirs;
                try {
                    const auto root = nlohmann::json::parse(*found);
                    theirs = root.at("fit").get<std::string>() + ", made by fishschool " +
                             root.at("version").get<std::string>();
                } catch (const nlohmann::json::exception&) {
                    theirs = "unreadable";
                }
                return fail(name + " holds another fit (" + printable(theirs, 80) +
                            "; this one is " + hash + ", fishschool " + FISHSCHOOL_VERSION +
                            "): another file, target or version; give another folder, never "
                            "mix two");
            }
        } else {
            for (const auto& entry : fs::directory_iterator(folder, error))
                if (!isFitFile(entry.path().filename().string()))
                    return fail(name + " holds " + quote(entry.path().filename().string()) +
                                " and no " + kFitManifest +
                                ": not a fit's folder; give a new or empty folder");
        }
        if (const int why = writable(folder); why != 0)
            return fail(name + " cannot be written (" + std::strerror(why) +
                        "); give a folder you can write");
    } else {
        const fs::path parent = folder.parent_path().empty() ? "." : folder.parent_path();
        const auto parentStatus = fs::status(parent, error);
        if (!fs::is_directory(parentStatus))
            return fail(name + ": its parent " + quote(parent.string(), 200) +
                        " is not a folder; make it first");
        if (const int why = writable(parent); why != 0)
            return fail(name + " cannot be made: its parent folder cannot be written (" +
                        std::strerror(why) + ")");
    }
    if (validateOnly) return -1;
    if (!fs::exists(folder, error) && !fs::create_directory(folder, error))
        return fail(name + " cannot be made: " + error.message(), ErrorKind::System);
    // Made whole beside its name, then linked to it only where no manifest is: of two fits
    // started at once on a new folder the first one's stays, and the other is refused below.
    if (!fs::exists(fs::symlink_status(manifest, error))) {
        const fs::path temp = folder / (".fit.json.tmp-" + std::to_string(::getpid()));
        if (auto ok = writeFileAtomically(temp, text); !ok)
            return fail(ok.error().message(), ErrorKind::System);
        const int linked = ::link(temp.c_str(), manifest.c_str()) == 0 ? 0 : errno;
        ::unlink(temp.c_str());
        if (linked != 0 && linked != EEXIST)
            return fail(quote(manifest.string(), 200) + " cannot be made: " + std::strerror(linked),
                        ErrorKind::System);
    }
    const int fd = ::open(manifest.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return fail(quote(manifest.string(), 200) + " cannot be opened: " + std::strerror(errno),
                    ErrorKind::System);
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
        ::close(fd);
        return fail(name +
                    ": another fit is running in this folder; wait for it, or give "
                    "another folder");
    }
    // The manifest the folder holds now, read through the locked file: this fit's, or refused.
    std::string found(text.size() + 1, '\0');
    const ssize_t got = ::pread(fd, found.data(), found.size(), 0);
    if (got != ssize_t(text.size()) || found.compare(0, text.size(), text) != 0) {
        ::close(fd);
        return fail(name +
                    " holds another fit, made as this one started; give another folder, "
                    "never mix two");
    }
    return fd;
}

Result<FitOutcome> runFit(const fs::path& file, const fs::path& out, const FitRunOptions& o) {
    auto spec = loadFit(file);
    if (!spec) return fail(spec.error());
    const auto kind = parseBackendFlag(file.string() + ": key 'backend'", spec->backend);
    if (!kind) return fail(kind.error());
    if (const BackendEntry& entry = backendEntry(*kind); !entry.built)
        if (auto why = entry.available(); !why)
            return fail(file.string() + ": key 'backend': " + why.error());
    auto target = measureTarget(*spec);
    if (!target) return fail(target.error());
    for (std::size_t c = 0; c < target->values.size(); ++c)
        spec->abc.statistics[c].target = target->values[c];
    const std::string hash = fitHash(*spec, *target);
    auto lock = prepareFolder(out, hash, file.string(), o.validateOnly);
    if (!lock) return fail(lock.error());

    FitOutcome outcome;
    outcome.schoolsPerSimulation = std::int64_t(spec->targets.size());
    for (const Prior& p : spec->priors) outcome.keys.push_back(p.key);
    for (const AbcStatistic& s : spec->abc.statistics) {
        outcome.statistics.push_back(s.name);
        outcome.targets.push_back(s.target);
    }
    if (o.validateOnly) return outcome;

    FitFolder folder(*spec, out, *lock);
    if (auto ok = folder.readSummary(); !ok) return fail(ok.error());
    auto backends = makeWorkerBackends(*kind, spec->base, o.jobs);
    if (!backends)
        return fail(backends.error().message(),
                    backendEntry(*kind).available() ? ErrorKind::System : ErrorKind::BadInput);

    std::mutex mutex;
    std::int64_t finished = 0;  // simulations of the complete populations
    const std::size_t k = spec->priors.size();
    AbcCallbacks callbacks;
    callbacks.load = [&](std::int64_t t) -> Result<std::optional<AbcPopulation>> {
        auto p = folder.load(t);
        if (p && *p) {
            folder.noteLoaded(**p);
            finished += (*p)->simulations;
        }
        return p;
    };
    callbacks.save = [&](const AbcPopulation& p) -> Result<void> {
        if (auto ok = folder.save(p); !ok) return ok;
        finished += p.simulations;
        if (o.onProgress)
            o.onProgress({p.number, finished, spec->abc.budget, std::int64_t(p.particles.size()),
                          true, p.epsilon});
        return {};
    };
    callbacks.simulate = [&](std::int64_t t, const std::vector<AbcProposal>& proposals)
        -> Result<std::optional<std::vector<std::vector<double>>>> {
        if (auto ok = folder.openRuns(t); !ok) return fail(ok.error());
        auto& done = folder.done();
        // Those run before must be these proposals: the same values, the same seed.
        EnsembleSpec runs;
        runs.base = spec->base;
        for (const Prior& p : spec->priors) runs.axes.push_back({p.key, {}});
        runs.steps = spec->steps;
        runs.window = spec->window;
        runs.measureEvery = spec->every;
        runs.histograms = !spec->distributions.empty() || !spec->quantiles.empty();
        runs.backend = spec->backend;
        // A school a target trajectory: a proposal's runs are pooled as the targets are.
        runs.replicates = std::int64_t(spec->targets.size());
        std::vector<std::size_t> position;  // of each run's proposal
        for (std::size_t i = 0; i < proposals.size(); ++i) {
            const auto found = done.find(proposals[i].index);
            if (found == done.end()) {
                runs.points.push_back(proposals[i].values);
                runs.pointSeeds.push_back(proposals[i].seed);
                position.push_back(i);
                continue;
            }
            for (std::size_t a = 0; a < k; ++a)
                if (exactNumber(found->second.values[a]) != exactNumber(proposals[i].values[a]) ||
                    found->second.seed != proposals[i].seed)
                    return fail(folder.named(runsName(t)) + ": run " +
                                std::to_string(proposals[i].index) +
                                " is not the run this fit proposes; a fit's files are written "
                                "by the fit alone (was it edited?): give a new folder");
        }
        std::int64_t doneInPopulation = std::int64_t(done.size());
        if (!runs.points.empty()) {
            EnsembleWork work{.runs = {},
                              .jobs = backends->size(),
                              .backendFor = backends->backendFor(),
                              .onRow = {},
                              .stop = o.stop};
            for (std::int64_t r = 0; r < runs.runCount(); ++r) work.runs.push_back(r);
            // The schools of a proposal finished so far: each one's measures, in replicate order
            // (summed in that order, whichever finished first), and their distributions merged.
            struct Pooled {
                std::vector<SchoolMetrics> measures;
                Histograms histograms = emptyHistograms();
                std::size_t finished = 0;
                bool ok = true;
            };
            std::map<std::size_t, Pooled> pooling;
            const std::size_t schools = spec->targets.size();
            work.onRow = [&](std::size_t, const RunRow& row) -> Result<void> {
                try {
                    const std::size_t point = std::size_t(row.plan.index / runs.replicates);
                    const AbcProposal& proposal = proposals[position[point]];
                    const std::lock_guard guard(mutex);
                    Pooled& pooled = pooling[point];
                    if (pooled.measures.empty()) pooled.measures.resize(schools);
                    pooled.measures[std::size_t(row.plan.replicate)] = row.measures;
                    pooled.ok = pooled.ok && row.ok;
                    if (row.ok)
                        for (std::size_t d = 0; d < kDistributions.size(); ++d)
                            pooled.histograms[d].merge(row.histograms[d]);
                    if (++pooled.finished < schools) return {};
                    RunResult result{proposal.values, proposal.seed, {}};
                    const double nan = std::numeric_limits<double>::quiet_NaN();
                    for (const std::string& m : spec->measures) {
                        const auto member = kSchoolMeasures[schoolMeasureIndex(m)].member;
                        double sum = pooled.measures[0].*member;
                        for (std::size_t r = 1; r < schools; ++r) sum += pooled.measures[r].*member;
                        result.stats.push_back(pooled.ok ? sum / double(schools) : nan);
                    }
                    for (const std::string& d : spec->distributions) {
                        const std::size_t at = distributionIndex(d);
                        result.stats.push_back(pooled.ok ? hellingerDistance(pooled.histograms[at],
                                                                             target->histograms[at])
                                                         : nan);
                    }
                    for (const FitSpec::Quantile& q : spec->quantiles)
                        result.stats.push_back(
                            pooled.ok
                                ? histogramQuantile(
                                      pooled.histograms[distributionIndex(q.distribution)], q.share)
                                : nan);
                    std::string line = std::to_string(proposal.index);
                    for (double v : proposal.values) line.append(",").append(exactNumber(v));
                    line.append(",").append(std::to_string(proposal.seed));
                    line.append(pooled.ok ? ",ok" : ",failed");
                    for (double v : result.stats) line.append(",").append(exactNumber(v));
                    line += "\n";
                    pooling.erase(point);
                    if (auto ok = folder.append(line); !ok) return ok;
                    done[proposal.index] = std::move(result);
                    ++doneInPopulation;
                    if (o.onProgress)
                        o.onProgress(
                            {t, finished + doneInPopulation, spec->abc.budget, 0, false, 0.0});
                    return {};
                } catch (const std::bad_alloc&) {
                    return fail(
                        "out of memory; the runs written stay, and the same command "
                        "resumes (with fewer --jobs?)",
                        ErrorKind::System);
                }
            };
            if (auto ok = runEnsemble(runs, work); !ok)
                return fail(ok.error().message(), ErrorKind::System);
        }
        std::vector<std::vector<double>> stats;
        for (const AbcProposal& p : proposals) {
            const auto found = done.find(p.index);
            if (found == done.end()) return std::optional<std::vector<std::vector<double>>>{};
            stats.push_back(found->second.stats);
        }
        return std::optional{std::move(stats)};
    };

    auto fitted = runAbcSmc(spec->abc, callbacks);
    if (!fitted) return fail(fitted.error());
    outcome.populations = folder.populations();
    outcome.scales = fitted->scales;
    outcome.simulations = fitted->simulations;
    outcome.stopped = fitted->stop == AbcStop::Requested;
    outcome.stopReason = describeStop(fitted->stop);
    if (!fitted->populations.empty())
        for (const AbcParticle& p : fitted->populations.back().particles) {
            outcome.samples.push_back(p.values);
            outcome.weights.push_back(p.weight);
        }
    if (!outcome.stopped && !fitted->populations.empty()) {
        if (auto ok = folder.writePosterior(fitted->populations.back()); !ok)
            return fail(ok.error());
        outcome.posterior = folder.posteriorPath();
    }
    return outcome;
}

}  // namespace

Result<FitOutcome> runFitFile(const fs::path& file, const fs::path& folder,
                              const FitRunOptions& options) {
    try {
        return runFit(file, folder, options);
    } catch (const std::bad_alloc&) {
        return fail("out of memory; the runs written stay, and the same command resumes",
                    ErrorKind::System);
    }
}

}  // namespace fishschool
