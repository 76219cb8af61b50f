// fishschool-cli import: tracked fish in (docs/data.md).

#include <cstdio>

#include "Commands.h"
#include "core/Messages.h"
#include "fishschool/Import.h"
#include "io/TextInput.h"

namespace fishschool::cli {

void addImportCommand(CLI::App& app, ImportOptions& o) {
    CLI::App* cmd = app.add_subcommand(
        "import",
        "Read a tracker's trajectories (idtracker.ai's trajectories.npy, TRex's *_fish0.npz or "
        ".csv, a CSV of frame,id,x,y[,z]) and write them as a trajectory (H5MD)");
    cmd->add_option("TRACKS", o.input, "The tracked file")->required()->check(nonEmpty());
    cmd->add_option("--out", o.output, "The trajectory to write (.h5)")
        ->required()
        ->check(nonEmpty());
    cmd->add_option(
        "--format", o.format,
        "idtracker, trex-npz, trex-csv or csv (default: by the file's name and header)");
    cmd->add_option("--pixels-per-metre", o.pixelsPerMetre, "The file's units (pixels) a metre")
        ->type_name("NUMBER");
    cmd->add_option("--body-length-metres", o.bodyLengthMetres,
                    "A fish's body length in metres: the scale from the file's body length")
        ->type_name("NUMBER");
    cmd->add_option("--fps", o.fps, "Frames a second (default: the file's)")->type_name("NUMBER");
    cmd->add_option("--arena", o.arena,
                    "none (default), box:CX,CY,R or circle:CX,CY,R: the tank, in the file's units; "
                    "positions are written from its centre")
        ->type_name("SHAPE");
}

namespace {

Result<ImportArena> parseArena(const std::string& text) {
    ImportArena arena;
    if (text.empty() || text == "none") return arena;
    const std::size_t colon = text.find(':');
    const std::string shape = text.substr(0, colon);
    if (colon == std::string::npos || (shape != "box" && shape != "circle"))
        return fail("--arena: " + quote(printable(text, 60)) +
                    "; allowed: none, box:CX,CY,R (R half its side) or circle:CX,CY,R");
    arena.shape = shape == "box" ? ImportArena::Shape::Box : ImportArena::Shape::Circle;
    std::string rest = text.substr(colon + 1);
    double* fields[3] = {&arena.centreX, &arena.centreY, &arena.radius};
    for (int k = 0; k < 3; ++k) {
        const std::size_t comma = rest.find(',');
        if ((k < 2) == (comma == std::string::npos))
            return fail("--arena: " + quote(printable(text, 60)) +
                        " must give three numbers, the centre's x and y and the radius");
        auto value = parseFiniteNumber("--arena", rest.substr(0, comma));
        if (!value) return fail(value.error());
        *fields[k] = *value;
        rest = comma == std::string::npos ? "" : rest.substr(comma + 1);
    }
    if (!(arena.radius > 0)) return fail("--arena: the radius must be > 0");
    return arena;
}

}  // namespace

int runImport(const ImportOptions& o) {
    fishschool::ImportOptions options;
    options.format = o.format;
    for (auto [flag, text, out] :
         {std::tuple{"--pixels-per-metre", &o.pixelsPerMetre, &options.pixelsPerMetre},
          std::tuple{"--body-length-metres", &o.bodyLengthMetres, &options.bodyLengthMetres},
          std::tuple{"--fps", &o.fps, &options.fps}}) {
        if (text->empty()) continue;
        auto value = parseFiniteNumber(flag, *text);
        if (!value) return badInput(value.error());
        *out = *value;
    }
    auto arena = parseArena(o.arena);
    if (!arena) return badInput(arena.error());
    options.arena = *arena;
    if (o.validateOnly) return kExitSuccess;
    auto summary = importTracks(o.input, o.output, options);
    if (!summary) return exitWith(summary.error());
    std::printf(
        "%s: %s, %zu frames (from frame %lld) of %zu fish, %zu missing of %zu; %s fps, "
        "%s pixels a metre -> %s\n",
        printable(o.input, 120).c_str(), summary->format.c_str(), summary->frames,
        static_cast<long long>(summary->firstFrame), summary->fish, summary->missing,
        summary->frames * summary->fish, formatNumber(summary->fps).c_str(),
        formatNumber(summary->pixelsPerMetre).c_str(), printable(o.output, 120).c_str());
    return kExitSuccess;
}

}  // namespace fishschool::cli
