"""pip install of the Python module: `pip install --no-build-isolation .` (offline: setuptools,
pybind11 and CMake come from the system, e.g. Debian's python3-setuptools, pybind11-dev and cmake,
seen through a venv made with --system-site-packages).

The extension toolchat._core is built by CMake (the project's own build, target toolchat_python,
for the interpreter running this script) and put beside the package's Python files (python/toolchat).
TOOLCHAT_CMAKE_BUILD_DIR=DIR builds in an existing tree instead of a fresh one (the tests use it);
TOOLCHAT_JOBS=N sets the build's parallelism (default 2).
"""
import os
import re
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = os.path.dirname(os.path.abspath(__file__))


def project_version():
    with open(os.path.join(ROOT, "CMakeLists.txt"), encoding="utf-8") as f:
        return re.search(r"project\(toolchat VERSION ([0-9.]+)", f.read()).group(1)


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build_dir = os.environ.get("TOOLCHAT_CMAKE_BUILD_DIR")
        if build_dir:
            build_dir = os.path.abspath(build_dir)
        else:
            build_dir = os.path.abspath(os.path.join(self.build_temp, "cmake"))
            cmd = ["cmake", "-S", ROOT, "-B", build_dir, "-DCMAKE_BUILD_TYPE=Release",
                   "-DTOOLCHAT_PYTHON_MODULE=ON", f"-DTOOLCHAT_MODULE_PYTHON={sys.executable}",
                   "-DBUILD_TESTING=OFF", "-DTOOLCHAT_BUILD_CLI=OFF", "-DTOOLCHAT_INSTALL=OFF"]
            if shutil.which("ninja"):
                cmd += ["-G", "Ninja"]
            subprocess.run(cmd, check=True)
        jobs = os.environ.get("TOOLCHAT_JOBS", "2")
        subprocess.run(["cmake", "--build", build_dir, "--target", "toolchat_python", "-j", jobs], check=True)
        built = os.path.join(build_dir, "python-lib", "toolchat")
        names = [n for n in os.listdir(built) if n.startswith("_core.") and n.endswith(".so")]
        if len(names) != 1:
            raise RuntimeError(f"expected one _core extension in {built}, found {names}")
        target = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(os.path.join(built, names[0]), target)


setup(
    name="toolchat",
    version=project_version(),
    description="Chat templates rendered exactly as transformers does, tool calls parsed, training data converted (C++)",
    long_description=__doc__,
    python_requires=">=3.9",
    package_dir={"": "python"},
    packages=["toolchat"],
    package_data={"toolchat": ["_core.pyi", "py.typed"]},
    ext_modules=[Extension("toolchat._core", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    zip_safe=False,
)
