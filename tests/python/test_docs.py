"""The pages' sessions, run as the pages show them: docs/python.md's and docs/data.md's fitting
and sensitivity print what the pages say they print. A page's numbers went stale once when the
order of the sums changed (the golden hashes were updated, the page was not); these tests fail
when that happens again. And every panel item a page names is one the panel shows."""

import os
import pathlib
import re
import subprocess
import sys

REPO = pathlib.Path(__file__).resolve().parents[2]


def fenced_blocks(text):
    """(language, body) of each fenced block of a Markdown text, in order."""
    return re.findall(r"^```(\w*)\n(.*?)^```$", text, flags=re.S | re.M)


def test_the_session_prints_what_the_page_shows(fishschool, tmp_path):
    blocks = fenced_blocks((REPO / "docs" / "python.md").read_text())
    at = next(i for i, (language, body) in enumerate(blocks)
              if language == "python" and 'savefig("polarization.png"' in body)
    session = blocks[at][1]
    language, shown = blocks[at + 1]
    assert language == "", "the session's output block must follow it"
    # "Run from the repository's root": its docs/ beside, and the plot written here.
    (tmp_path / "docs").symlink_to(REPO / "docs")
    module_dir = pathlib.Path(fishschool.__file__).resolve().parent
    env = dict(os.environ, PYTHONPATH=str(module_dir), MPLBACKEND="Agg")
    run = subprocess.run([sys.executable, "-c", session], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    assert run.stdout == shown
    assert (tmp_path / "polarization.png").stat().st_size > 10000


def section(text, title):
    """The text of the Markdown section `## title`, up to the next section of its level."""
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start:end if end != -1 else len(text)]


def sessions(text):
    """Each shell session of a text's plain fenced blocks: (command, the stdout shown after it)
    for every line that starts with "$ "."""
    steps = []
    for language, body in fenced_blocks(text):
        if language or not body.startswith("$ "):
            continue
        for part in re.split(r"^\$ ", body, flags=re.M)[1:]:
            command, _, shown = part.partition("\n")
            steps.append((command, shown))
    return steps


def test_fitting_and_sensitivity_print_what_data_md_shows(fishschool, cli, tmp_path):
    """docs/data.md's sessions of "Fitting a model" and "The sensitivity of a measure", run in a
    folder of their own as the page says, print on stdout what the page shows after each
    command."""
    page = (REPO / "docs" / "data.md").read_text()
    steps = (sessions(section(page, "Fitting a model")) +
             sessions(section(page, "The sensitivity of a measure")))
    assert len(steps) >= 8
    # "From the repository's root, in a folder of one's own": its docs/ and scripts/ beside.
    for name in ("docs", "scripts"):
        (tmp_path / name).symlink_to(REPO / name)
    bin_dir = pathlib.Path(cli).resolve().parent
    env = dict(os.environ, PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    for command, shown in steps:
        run = subprocess.run(["bash", "-c", command], cwd=tmp_path, env=env,
                             capture_output=True, text=True, timeout=600)
        assert run.returncode == 0, f"{command}\n{run.stderr}"
        assert run.stdout == shown, command
    assert (tmp_path / "fit.png").stat().st_size > 10000


# Where the panel's labels are written: its own sources, and the lists it shows (each key's
# control, the presets, the backends).
PANEL_SOURCES = ["src/ui/*.cpp", "src/ui/*.h", "src/core/ParamTable.cpp",
                 "src/app_model/Presets.cpp", "src/backends/BackendRegistry.cpp"]
# Pages whose bold text names panel items; a bold paragraph title ends with a full stop.
PANEL_PAGES = ["docs/app.md", "docs/getting-started.md"]


def plain_label(text):
    """A label as a page may write it: one line, without a unit or value in parentheses at its end
    ("dt (s)", "its fish count (2000)"), in any case."""
    text = re.sub(r"\s+", " ", text).strip()
    return re.sub(r"\s*\([^()]*\)$", "", text).casefold()


def panel_labels():
    """Every string literal of the panel's sources, less ImGui's "##id" tail: the labels among
    them (and tooltips, which no page names in bold)."""
    labels = set()
    for pattern in PANEL_SOURCES:
        for path in REPO.glob(pattern):
            for literal in re.findall(r'"((?:[^"\\\n]|\\.)*)"', path.read_text()):
                label = literal.split("##")[0]
                if label.strip():
                    labels.add(plain_label(label))
    return labels


def panel_items(page, text):
    """The panel items a page names: "**Files > Open recording**" anywhere, and on the panel's
    pages every bold text but a paragraph's title. Each item as its path's parts."""
    for bold in re.findall(r"\*\*(.+?)\*\*", text, flags=re.S):
        bold = re.sub(r"\s+", " ", bold).strip()
        if re.search(r"\s>\s", bold):
            yield re.split(r"\s+>\s+", bold)
        elif page in PANEL_PAGES and not bold.endswith("."):
            yield [bold]


def test_the_panel_items_the_pages_name_exist():
    labels = panel_labels()
    assert {"files", "save config", "apply preset", "kcohesion", "default"} <= labels
    missing = []
    for path in [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]:
        page = str(path.relative_to(REPO))
        for parts in panel_items(page, path.read_text()):
            for part in parts:
                # A list of items ("Pause, Step, Reset"), or a radio button's number.
                names = [part] if plain_label(part) in labels else re.split(r",\s*|\s+and\s+", part)
                missing += [f"{page}: {' > '.join(parts)}: no panel label {name!r}"
                            for name in names
                            if plain_label(name) not in labels and not name.isdigit()]
    assert not missing, "\n".join(missing)


def shown_matches(shown, out):
    """Whether `out` is the output a page shows: all of it, or, where the page trims it with a line
    "...", its first and last lines."""
    if "\n...\n" not in "\n" + shown:
        return out == shown
    head, _, tail = ("\n" + shown).partition("\n...\n")
    head = head[1:] + "\n" if head else ""
    return out.startswith(head) and out.endswith(tail) and len(out) >= len(head) + len(tail)


def test_getting_started_runs_as_the_page_shows(fishschool, cli, tmp_path):
    """docs/getting-started.md's shell sessions and Python sessions, in the page's order in one
    folder (its docs/ beside, the programs on PATH), print what the page shows."""
    page = (REPO / "docs" / "getting-started.md").read_text()
    (tmp_path / "docs").symlink_to(REPO / "docs")
    bin_dir = pathlib.Path(cli).resolve().parent
    module_dir = pathlib.Path(fishschool.__file__).resolve().parent
    env = dict(os.environ, PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
               PYTHONPATH=str(module_dir), MPLBACKEND="Agg")
    blocks = fenced_blocks(page)
    ran = 0
    for at, (language, body) in enumerate(blocks):
        if language == "python":
            shown_language, shown = blocks[at + 1]
            assert shown_language == "", "a Python session's output block must follow it"
            steps = [([sys.executable, "-c", body], body, shown)]
        elif not language and body.startswith("$ "):
            steps = [(["bash", "-c", command], command, shown)
                     for command, _, shown in (part.partition("\n") for part in
                                               re.split(r"^\$ ", body, flags=re.M)[1:])]
        else:
            continue
        for argv, command, shown in steps:
            run = subprocess.run(argv, cwd=tmp_path, env=env, capture_output=True, text=True,
                                 timeout=600)
            assert run.returncode == 0, f"{command}\n{run.stderr}"
            assert shown_matches(shown, run.stdout), f"{command}\n{run.stdout}"
            ran += 1
    assert ran >= 6
