"""Builds the fishschool module with CMake for `pip install .` (pyproject.toml).

The module's target alone (fishschool_python), Release, for any x86-64, in a CMake tree of its
own under build/pip; FISHSCHOOL_BUILD_DIR=DIR takes a tree already configured instead (CI's, so
that the core is not compiled twice). The shaders and assets go to PREFIX/share/fishschool,
where the module finds them (src/gpu/ShaderFiles.h).
"""

import os
import pathlib
import re
import subprocess
import sys
import sysconfig

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = pathlib.Path(__file__).resolve().parent
VERSION = re.search(r"project\(FishSchool VERSION ([0-9.]+)",
                    (ROOT / "CMakeLists.txt").read_text()).group(1)


def cmake(*args):
    print("cmake", *args, flush=True)
    subprocess.run(["cmake", *map(str, args)], check=True)


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        tree = os.environ.get("FISHSCHOOL_BUILD_DIR")
        if tree:
            tree = pathlib.Path(tree).resolve()
            if not (tree / "CMakeCache.txt").is_file():
                sys.exit(f"FISHSCHOOL_BUILD_DIR={tree} is not a configured CMake tree")
        else:
            tree = ROOT / "build" / "pip" / "cmake"
            configure = ["-S", ROOT, "-B", tree, "-DCMAKE_BUILD_TYPE=Release",
                         "-DFISHSCHOOL_NATIVE=OFF", "-DFISHSCHOOL_BUILD_APP=OFF",
                         "-DFISHSCHOOL_BUILD_TESTS=OFF", "-DFISHSCHOOL_BUILD_BENCH=OFF",
                         "-DFISHSCHOOL_BUILD_PYTHON=ON", f"-DPython_EXECUTABLE={sys.executable}"]
            try:  # pybind11 from PyPI (pip's isolated build); else Debian's pybind11-dev
                import pybind11
                configure.append(f"-Dpybind11_DIR={pybind11.get_cmake_dir()}")
            except ImportError:
                pass
            cmake(*configure)
        cmake("--build", tree, "--target", "fishschool_python", "-j", os.cpu_count() or 1)
        # Built for this interpreter: the name carries its ABI (fishschool.cpython-311-...so).
        name = "fishschool" + sysconfig.get_config_var("EXT_SUFFIX")
        built = tree / "python" / name
        if not built.is_file():
            sys.exit(f"{built} was not built: {tree} is configured for another Python "
                     f"(its Python_EXECUTABLE) than {sys.executable}")
        target = pathlib.Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        self.copy_file(str(built), str(target))


def runtime_files(folder):
    files = sorted(str(path.relative_to(ROOT)) for path in (ROOT / folder).iterdir())
    return (f"share/fishschool/{folder}", files)


# setuptools' own files (build/pip/lib..., fishschool.egg-info) out of the source tree's root.
(ROOT / "build" / "pip").mkdir(parents=True, exist_ok=True)
setup(
    version=VERSION,
    ext_modules=[Extension("fishschool", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    data_files=[runtime_files("shaders"), runtime_files("assets")],
    options={"build": {"build_base": "build/pip"}, "egg_info": {"egg_base": "build/pip"}},
    zip_safe=False,
)
