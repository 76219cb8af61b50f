"""pytest set-up for the fishschool module's tests (docs/python.md).

The module is imported from FISHSCHOOL_PYTHON_DIR when set, else from PYTHONPATH, else from
build/python of this repository; fishschool-cli, for the tests that compare with it, from
FISHSCHOOL_CLI, else the bin folder of the module's build tree, else build/bin.

    PYTHONPATH=build/python /usr/bin/python3 -m pytest tests/python
"""

import os
import pathlib
import sys

import pytest

# No __pycache__ folders in the source tree for the test modules.
sys.dont_write_bytecode = True

REPO = pathlib.Path(__file__).resolve().parents[2]
if os.environ.get("FISHSCHOOL_PYTHON_DIR"):
    # Named: before anything on PYTHONPATH.
    MODULE_DIR = pathlib.Path(os.environ["FISHSCHOOL_PYTHON_DIR"]).resolve()
    sys.path.insert(0, str(MODULE_DIR))
else:
    # The default: after PYTHONPATH, which may name another build's module.
    MODULE_DIR = REPO / "build" / "python"
    sys.path.append(str(MODULE_DIR))


def cli_path(module_dir):
    """fishschool-cli of the module's build tree (or FISHSCHOOL_CLI), or None."""
    candidates = []
    if os.environ.get("FISHSCHOOL_CLI"):
        candidates.append(pathlib.Path(os.environ["FISHSCHOOL_CLI"]))
    candidates += [module_dir.parent / "bin" / "fishschool-cli",
                   REPO / "build" / "bin" / "fishschool-cli"]
    for path in candidates:
        if path.is_file() and os.access(path, os.X_OK):
            return path
    return None


@pytest.fixture(scope="session")
def fishschool():
    try:
        import fishschool as module
    except ImportError as error:
        pytest.fail(f"cannot import fishschool from PYTHONPATH or {MODULE_DIR} (set "
                    f"FISHSCHOOL_PYTHON_DIR to the folder of the built module): {error}")
    print(f"fishschool {module.__version__} from {module.__file__}")
    return module


@pytest.fixture(scope="session")
def cli(fishschool):
    path = cli_path(pathlib.Path(fishschool.__file__).resolve().parent)
    if path is None:
        pytest.skip("fishschool-cli is not built (looked beside the module's build tree and in "
                    "build/bin; set FISHSCHOOL_CLI)")
    return path


@pytest.fixture
def small(fishschool):
    """A 300-fish school on the default backend (tbb), closed after the test."""
    with fishschool.Simulation(fishCount=300, seed=5) as sim:
        yield sim


@pytest.fixture(scope="session")
def gpu_reason(fishschool):
    """None when a gpu simulation can be made here, else why not."""
    info = {b["name"]: b for b in fishschool.backends()}
    if "gpu" not in info or not info["gpu"]["built"]:
        return "this build has no gpu backend (fishschool.backends() says it is not built)"
    try:
        fishschool.Simulation(fishCount=10, backend="gpu").close()
    except RuntimeError as error:
        return f"the gpu backend cannot run here: {error}"
    return None
