"""docs/python.md's session, run as the page shows it: it prints what the page says it prints.
The page's numbers went stale once when the order of the sums changed (the golden hashes were
updated, the page was not); this test fails when that happens again."""

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
