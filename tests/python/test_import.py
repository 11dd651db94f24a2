"""The package imports from the build tree, and `cmake --install` installs a copy that imports
on its own."""

import os
import subprocess
import sys

import pytest

import ringlab


def test_version_is_the_library_version():
    assert isinstance(ringlab.__version__, str) and ringlab.__version__
    assert set(ringlab.algorithms()) >= {"ring", "recursive_doubling", "multi_ring"}


@pytest.mark.skipif(not os.environ.get("RINGLAB_BUILD_DIR"), reason="needs the build folder")
def test_installed_package_imports_without_the_build_tree(tmp_path):
    subprocess.run([os.environ["RINGLAB_CMAKE"], "--install", os.environ["RINGLAB_BUILD_DIR"],
                    "--component", "python", "--prefix", str(tmp_path)], check=True,
                   capture_output=True)
    site = tmp_path / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" / \
        "dist-packages"
    code = ("import ringlab, numpy; print(ringlab.__file__); "
            "print(ringlab.run_threads(3, lambda c: float(c.allreduce(numpy.ones(5))[4])))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=str(site)), cwd=tmp_path, check=True)
    assert done.stdout.splitlines() == [str(site / "ringlab" / "__init__.py"), "[3.0, 3.0, 3.0]"]
