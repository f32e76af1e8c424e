"""The pass-pipeline driver, target validation, the backend's crash isolation, and fuser-opt."""
import io
import os
import re
import shutil
import site
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from fuser_mlir.diagnostics import CompileError
from fuser_mlir.backend.pipeline import PassPipeline, compile_to_ptx, pipeline_elements, split_elements
from fuser_mlir.backend.target import TargetOptions
from fuser_mlir.tools.fuser_opt import expected_diagnostics, run

LIT = Path(__file__).parent.parent / "lit_tests"


def fuser_opt(*argv, stdin=None):
    out, err = io.StringIO(), io.StringIO()
    if stdin is not None:
        import tempfile

        with tempfile.NamedTemporaryFile("wb", suffix=".mlir", delete=False) as f:
            f.write(stdin)
        argv = (f.name, *argv)
    status = run(list(argv), stdout=out, stderr=err)
    return status, out.getvalue(), err.getvalue()


def test_split_elements_respects_nesting():
    assert split_elements("a, b{x=1,y=2}, gpu.module(c, d), 'e,f'") == \
        ["a", "b{x=1,y=2}", "gpu.module(c, d)", "'e,f'"]
    assert pipeline_elements("builtin.module(fuser-lower-nvasync,cse)") == ["fuser-lower-nvasync", "cse"]
    with pytest.raises(CompileError, match="unbalanced"):
        split_elements("a(b")


def test_project_pass_must_be_top_level(ctx):
    with pytest.raises(CompileError, match="must be a top-level element"):
        PassPipeline(["gpu.module(fuser-lower-nvasync)"]).build(ctx)


@pytest.mark.parametrize("kwargs, message", [
    ({"chip": "sm_80"}, "unsupported target chip"),
    ({"features": "+ptx70"}, "unsupported target features"),
    ({"features": "ptx80"}, "unsupported target features"),
    ({"opt_level": 5}, "optimization level"),
])
def test_target_options_are_validated(kwargs, message):
    with pytest.raises(CompileError, match=message):
        TargetOptions(**kwargs)


def test_backend_abort_becomes_located_error(ctx):
    from mlir import ir

    source = (LIT / "lowering" / "backend_cannot_select.mlir").read_text()
    module = ir.Module.parse(source)
    with pytest.raises(CompileError) as info:
        compile_to_ptx(module)
    diag = info.value.diagnostics[0]
    assert "Cannot select" in diag.message and diag.line > 0


def test_fuser_opt_reports_parse_errors_with_location():
    status, _, err = fuser_opt(stdin=b'func.func @f() {\n  "nvasync.setmaxnreg"() {regs = 4.0 : f32, action = "inc"} : () -> ()\n  return\n}\n')
    assert status == 1 and ":2:3: error:" in err


def test_fuser_opt_empty_input_is_an_empty_module():
    status, out, _ = fuser_opt(stdin=b"")
    assert status == 0 and out.strip() == "module {\n}"


def test_fuser_opt_binary_junk_is_an_error_not_a_crash():
    proc = subprocess.run([sys.executable, "-m", "fuser_mlir.tools.fuser_opt"], input=bytes(range(256)) * 4,
                          capture_output=True)
    assert proc.returncode == 1
    assert b"error:" in proc.stderr and b"Traceback" not in proc.stderr


def test_fuser_opt_verify_diagnostics_detects_a_missing_error():
    src = b'func.func @f() {\n  // expected-error @below {{barrier id}}\n  "nvasync.named_barrier"() {id = 1 : i32, threads = 64 : i32} : () -> ()\n  return\n}\n'
    status, _, err = fuser_opt("--verify-diagnostics", stdin=src)
    assert status == 1 and "was not produced" in err


def test_expected_diagnostic_designators():
    src = b"a\n// expected-error @below {{x}}\n// expected-note @above {{y}}\nb\n// expected-warning @-4 {{z}}\nc // expected-remark {{w}}\n"
    found = {(sev, line) for sev, line, _, _ in expected_diagnostics(src)}
    assert found == {("error", 4), ("note", 1), ("warning", 1), ("remark", 6)}


def test_split_input_file_keeps_line_numbers():
    src = b'module {}\n// -----\nfunc.func @f() {\n  "nvasync.sync_threads"(%x) : (i32) -> ()\n  return\n}\n'
    status, out, err = fuser_opt("--split-input-file", stdin=src)
    assert status == 1 and ":4:" in err and "module {" in out


def test_fuser_opt_output_file_is_written_only_on_success(tmp_path):
    # mlir-opt keeps -o FILE only when every chunk succeeded: no empty file, no truncated old one.
    bad = b'func.func @f() {\n  "nvasync.sync_threads"(%x) : (i32) -> ()\n  return\n}\n'
    fresh = tmp_path / "fresh.mlir"
    status, _, err = fuser_opt("-o", str(fresh), stdin=bad)
    assert status == 1 and "error:" in err and not fresh.exists()
    old = tmp_path / "old.mlir"
    old.write_text("previous output\n")
    status, _, _ = fuser_opt("--split-input-file", "-o", str(old), stdin=b"module {}\n// -----\n" + bad)
    assert status == 1 and old.read_text() == "previous output\n"
    status, _, _ = fuser_opt("-o", str(old), stdin=b"module {}\n")
    assert status == 0 and old.read_text().startswith("module {")


def test_importing_the_source_tree_without_its_mapped_packages_says_what_to_do(tmp_path):
    # After a regular `pip install .`, a script in the repository root imports the source
    # fuser_mlir/, which lacks dialects/ (pip maps it in).  -S with site-packages on PYTHONPATH
    # keeps the dependencies but leaves out the .pth that installs the editable finder.
    root = Path(__file__).parent.parent
    package = tmp_path / "fuser_mlir"
    shutil.copytree(root / "fuser_mlir", package, ignore=shutil.ignore_patterns("__pycache__"))
    importing = dict(args=[sys.executable, "-S", "-c", "import fuser_mlir"], cwd=tmp_path, capture_output=True,
                     text=True, env={**os.environ, "PYTHONPATH": os.pathsep.join(site.getsitepackages())})
    proc = subprocess.run(**importing)
    assert proc.returncode == 1
    assert f"ImportError: fuser_mlir: you are importing the source tree at {package}" in proc.stderr
    assert "pip install -e ." in proc.stderr
    # Laid out as installed (dialects/ inside the package), the same import works.
    shutil.copytree(root / "dialects", package / "dialects", ignore=shutil.ignore_patterns("__pycache__"))
    proc = subprocess.run(**importing)
    assert proc.returncode == 0, proc.stderr


def test_torch_is_a_range_for_users_and_pinned_only_by_ci():
    # Users (GPU machines) bring their own torch build; CI installs the CPU build it tests with,
    # and the README's test command is what CI runs.
    root = Path(__file__).parent.parent
    dependencies = tomllib.loads((root / "pyproject.toml").read_text())["project"]["dependencies"]
    torch = [d for d in dependencies if re.split(r"[\s<>=!~;\[]", d, maxsplit=1)[0] == "torch"]
    assert len(torch) == 1 and "==" not in torch[0] and ">=" in torch[0]
    command = (root / ".ci" / "run").read_text().strip().splitlines()[-1]
    assert "torch==2.13.0" in command.split()
    test_section = (root / "README.md").read_text().split("\n## Test\n", 1)[1].split("\n## ", 1)[0]
    assert f"```sh\n{command}\n```" in test_section
