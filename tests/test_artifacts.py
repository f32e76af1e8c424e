"""The artifact cache key is the same wherever the sources are installed from.

The GPU machine installs the package regularly (dialects/, passes/, tools/ copied into
fuser_mlir/); this machine has it editable (those live beside it).  Both must compute the same
compiler fingerprint, or every kernel built here misses the cache there.
"""
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from fuser_mlir.runtime.artifact import compiler_fingerprint

ROOT = Path(__file__).parent.parent


def _installed_fingerprint(tmp_path, edit=None) -> str:
    """The fingerprint of a regular-install copy of the sources in `tmp_path`, after appending a
    comment to the file `edit` (relative to the package), if given."""
    package = tmp_path / "fuser_mlir"
    shutil.copytree(ROOT / "fuser_mlir", package, ignore=shutil.ignore_patterns("__pycache__"))
    for mapped in ("dialects", "passes", "tools"):
        shutil.copytree(ROOT / mapped, package / mapped, ignore=shutil.ignore_patterns("__pycache__", "results"))
    if edit:
        with open(package / edit, "a") as f:
            f.write("# edited\n")
    code = ("import fuser_mlir; assert fuser_mlir.__file__.startswith(%r); "
            "from fuser_mlir.runtime.artifact import compiler_fingerprint; print(compiler_fingerprint())" % str(tmp_path))
    installed = subprocess.run([sys.executable, "-S", "-c", code], cwd=tmp_path, capture_output=True, text=True,
                               env={"PYTHONPATH": str(tmp_path)})
    assert installed.returncode == 0, installed.stderr
    return installed.stdout.strip()


def test_fingerprint_of_a_regular_install_layout_matches_the_editable_one(tmp_path):
    assert _installed_fingerprint(tmp_path) == compiler_fingerprint()


@pytest.mark.parametrize("edit, keeps", [("runtime/launcher.py", True), ("schedulers/pointwise.py", False),
                                         ("passes/__init__.py", False)])
def test_only_compiler_sources_change_the_fingerprint(tmp_path, edit, keeps):
    """Kernels are rebuilt when the compiler changes, not when the runtime that launches them does."""
    assert (_installed_fingerprint(tmp_path, edit) == compiler_fingerprint()) == keeps
