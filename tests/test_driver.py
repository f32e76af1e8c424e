"""The pass-pipeline driver, target validation, the backend's crash isolation, and fuser-opt."""
import ctypes
import io
import os
import re
import shutil
import site
import subprocess
import sys
import tomllib
from pathlib import Path
from types import SimpleNamespace

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


def test_fuser_opt_locates_an_irdl_op_in_custom_form():
    """MLIR's parser fails silently on it (IRDL ops have no custom syntax): the error says where
    and what the generic form is (found by the mutation fuzzer, tests/test_fuzz.py)."""
    status, _, err = fuser_opt(stdin=b"func.func @f() {\n  %c = arith.constant 0 : index\n"
                                     b"  fusion.unary = arith.constant 1 : index\n  return\n}\n")
    assert status == 1 and ":3:3: error: 'fusion.unary' is written in custom form" in err
    assert '"fusion.unary"(operands)' in err


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


# --- the runtime's CUDA driver (fuser_mlir/runtime/driver.py): what runs without a GPU ----------

class _RecordingLibCuda:
    """Stands in for libcuda's hot-path functions: records each cuTensorMapEncodeTiled call."""

    def __init__(self):
        self.calls = []

    def encode_tiled(self, *args):
        self.calls.append(args)
        return 0


def test_tensor_map_swizzle_codes_are_cudas():
    from cuda.bindings import driver as cu

    from fuser_mlir.runtime.driver import TENSORMAP_SWIZZLES

    assert TENSORMAP_SWIZZLES == {
        0: int(cu.CUtensorMapSwizzle.CU_TENSOR_MAP_SWIZZLE_NONE),
        32: int(cu.CUtensorMapSwizzle.CU_TENSOR_MAP_SWIZZLE_32B),
        64: int(cu.CUtensorMapSwizzle.CU_TENSOR_MAP_SWIZZLE_64B),
        128: int(cu.CUtensorMapSwizzle.CU_TENSOR_MAP_SWIZZLE_128B)}


@pytest.mark.parametrize("swizzle, code", [(0, 0), (32, 1), (64, 2), (128, 3)])
def test_hot_path_encodes_the_swizzle(monkeypatch, swizzle, code):
    from fuser_mlir.runtime import driver

    fake = _RecordingLibCuda()
    monkeypatch.setattr(driver, "_libcuda", fake)
    width = max(swizzle, 16) // 2                 # a box row of exactly the swizzle span (bf16)
    slot = driver.TensorMapSlot("bf16", (64, 512), (64, width), "a", 2, swizzle)
    slot.put(0x10000)
    slot.put(0x10000)                          # same address: not re-encoded
    assert len(fake.calls) == 1
    address, dtype, rank, tensor, dims, strides, box, element_strides, interleave, swizzle_code, l2, oob = \
        fake.calls[0]
    assert (address, dtype, rank, tensor) == (slot.address, 9, 2, 0x10000)
    assert list(dims) == [512, 64] and list(strides) == [1024] and list(box) == [width, 64]
    assert (interleave, swizzle_code, oob) == (0, code, 0)


class _RecordingLaunch:
    """Stands in for libcuda's cuLaunchKernelEx: copies the CUlaunchConfig it is given and returns
    the next of `codes` (0 once they run out)."""

    def __init__(self, codes=()):
        self.configs = []
        self.codes = list(codes)

    def __call__(self, config, function, params, extra):
        from fuser_mlir.runtime.driver import _LaunchConfig

        self.configs.append((bytes(_LaunchConfig.from_address(config.value)), function.value, params.value, extra))
        return self.codes.pop(0) if self.codes else 0


def test_prepared_launch_passes_cudas_launch_config(monkeypatch):
    """The config struct has cuda.h's CUlaunchConfig layout (byte for byte as cuda-python builds
    it), and a launch on another stream rewrites only the stream."""
    from cuda.bindings import driver as cu

    from fuser_mlir.runtime import driver

    def expected(stream):
        c = cu.CUlaunchConfig()
        c.gridDimX, c.gridDimY, c.gridDimZ, c.blockDimX, c.blockDimY, c.blockDimZ = 7, 1, 1, 384, 1, 1
        c.sharedMemBytes, c.hStream, c.numAttrs = 1000, cu.CUstream(stream), 0
        return ctypes.string_at(c.getPtr(), ctypes.sizeof(driver._LaunchConfig))

    fake = _RecordingLaunch()
    monkeypatch.setattr(driver, "_libcuda", SimpleNamespace(launch_kernel_ex=fake))
    launch = driver.PreparedLaunch(0xF00, 7, (384, 1, 1), 1000, 0xBA0, 0)
    for stream in (0, 0x1234560, 0x1234560, 0):
        launch(stream)
    assert [c[1:] for c in fake.configs] == [(0xF00, 0xBA0, None)] * 4
    assert [c[0] for c in fake.configs] == [expected(s) for s in (0, 0x1234560, 0x1234560, 0)]


def test_a_dependent_launch_passes_cudas_launch_attribute(monkeypatch):
    """A kernel launched as a programmatic dependent (fuser-grid-dependency) hands cuLaunchKernelEx
    one CUlaunchAttribute, byte for byte as cuda-python builds
    CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION = 1, from the config's attrs."""
    from cuda.bindings import driver as cu

    from fuser_mlir.runtime import driver

    attribute = cu.CUlaunchAttribute()
    attribute.id = cu.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION
    attribute.value.programmaticStreamSerializationAllowed = 1
    fake = _RecordingLaunch()
    monkeypatch.setattr(driver, "_libcuda", SimpleNamespace(launch_kernel_ex=fake))
    launch = driver.PreparedLaunch(0xF00, 7, (384, 1, 1), 1000, 0xBA0, 0, dependent=True)
    launch(0)
    config = driver._LaunchConfig.from_buffer_copy(fake.configs[0][0])
    assert config.num_attrs == 1
    assert ctypes.string_at(config.attrs, ctypes.sizeof(driver._LaunchAttribute)) == \
        ctypes.string_at(attribute.getPtr(), ctypes.sizeof(driver._LaunchAttribute))


def test_a_thread_without_a_context_gets_the_devices_primary_one(monkeypatch):
    """The driver's current context is per thread: a thread that has not used CUDA yet launches
    into CUDA_ERROR_INVALID_CONTEXT.  The launch then makes the device's primary context current
    and launches again, once (GPU: tests/gpu/test_dispatch.py's threads): a second failure is raised."""
    from fuser_mlir.runtime import driver

    made_current = []
    monkeypatch.setattr(driver, "make_primary_context_current", made_current.append)
    fake = _RecordingLaunch(codes=[201])
    monkeypatch.setattr(driver, "_libcuda", SimpleNamespace(launch_kernel_ex=fake))
    driver.PreparedLaunch(0xF00, 7, (384, 1, 1), 0, 0xBA0, 3)(0)
    assert made_current == [3] and len(fake.configs) == 2
    fake = _RecordingLaunch(codes=[201, 201])
    monkeypatch.setattr(driver, "_libcuda", SimpleNamespace(launch_kernel_ex=fake))
    monkeypatch.setattr(driver, "_error_text", lambda code: f"code {code}")      # no libcuda here
    with pytest.raises(driver.RuntimeFailure, match="cuLaunchKernelEx failed: code 201"):
        driver.PreparedLaunch(0xF00, 7, (384, 1, 1), 0, 0xBA0, 3)(0)


def test_tensor_map_swizzle_is_validated():
    from fuser_mlir.diagnostics import FusionError
    from fuser_mlir.runtime.driver import TensorMapSlot

    with pytest.raises(FusionError, match=r"swizzle must be one of \[0, 32, 64, 128\] bytes, got 16"):
        TensorMapSlot("bf16", (64, 512), (64, 8), "a", 2, 16)
    with pytest.raises(FusionError, match="128-byte swizzle takes box rows of at most 128 bytes, got 128 x 2 = 256"):
        TensorMapSlot("bf16", (64, 512), (64, 128), "a", 2, 128)
    with pytest.raises(FusionError, match="32-byte swizzle takes box rows of at most 32 bytes, got 16 x 4 = 64"):
        TensorMapSlot("f32", (64, 512), (64, 16), "a", 4, 32)
    assert TensorMapSlot("f32", (64, 512), (64, 32), "a", 4, 128).swizzle == 3


def test_cold_path_encodes_the_same_recipe(monkeypatch):
    """encode_tensor_map hands cuda-python the slot's recipe, swizzle included (the GPU test
    compares the two encodings byte for byte)."""
    from cuda.bindings import driver as cu

    from fuser_mlir.runtime import driver

    seen = {}

    class FakeCu:
        def __getattr__(self, name):
            return getattr(cu, name)

        @staticmethod
        def cuTensorMapEncodeTiled(*args):
            seen["args"] = args
            return cu.CUresult.CUDA_SUCCESS, cu.CUtensorMap()

    monkeypatch.setattr(driver, "_cu", lambda: FakeCu())
    recipe = driver.TensorMapSlot("f16", (128, 256), (128, 64), "b", 2, 128).recipe
    assert len(driver.encode_tensor_map(recipe, 0x20000)) == 128
    dtype, rank, address, dims, strides, box, element_strides, interleave, swizzle, l2, oob = seen["args"]
    assert (int(dtype), rank, address) == (6, 2, 0x20000)
    assert [int(d) for d in dims] == [256, 128] and [int(s) for s in strides] == [512]
    assert [int(b) for b in box] == [64, 128] and [int(e) for e in element_strides] == [1, 1]
    assert swizzle == cu.CUtensorMapSwizzle.CU_TENSOR_MAP_SWIZZLE_128B
    assert interleave == cu.CUtensorMapInterleave.CU_TENSOR_MAP_INTERLEAVE_NONE


def test_runtime_driver_imports_no_mlir():
    proc = subprocess.run([sys.executable, "-c", "import sys, fuser_mlir.runtime.driver as d; "
                           "d.TensorMapSlot('bf16', (64, 64), (64, 64), 'a', 2, 128); "
                           "assert not [m for m in sys.modules if m == 'mlir' or m.startswith('mlir.')]"],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize("target, clock_khz, bus_bits", [("h100", 2619000, 5120), ("h200", 3201000, 6016)])
def test_device_facts_read_the_drivers_attributes(monkeypatch, target, clock_khz, bus_bits):
    """A GPU reporting a target's name, SMs, memory clock and bus width (the H100's and H200's as
    their drivers report them) is scheduled as that target."""
    from fuser_mlir.runtime import driver
    from fuser_mlir.schedulers import TARGETS

    want = TARGETS[target]
    values = {"MULTIPROCESSOR_COUNT": want.sms, "MEMORY_CLOCK_RATE": clock_khz, "GLOBAL_MEMORY_BUS_WIDTH": bus_bits}
    ok = SimpleNamespace(CUDA_SUCCESS=0)
    fake = SimpleNamespace(
        CUresult=ok, cuInit=lambda flags: (0,), cuDeviceGet=lambda ordinal: (0, f"device {ordinal}"),
        CUdevice_attribute=SimpleNamespace(**{f"CU_DEVICE_ATTRIBUTE_{k}": k for k in values}),
        cuDeviceGetAttribute=lambda attr, handle: (0, values[attr]),
        cuDeviceGetName=lambda size, handle: (0, want.name.encode().ljust(size, b"\0")))
    monkeypatch.setattr(driver, "_cu", lambda: fake)
    assert driver.device_facts(3) == (want.name, want.sms, want.dram_gbps)
