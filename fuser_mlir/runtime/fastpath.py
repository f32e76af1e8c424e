"""fd.execute's cached call in C++ (`fastpath.cpp`), built on first use with the host's C++
compiler against the installed torch, as Triton builds its launchers.

Why: the cached call in Python costs ~9-14 us of host time on the H100 host, against ~8-12 for a
torch eager op; its driver launch is ~4 of that and the rest is Python: the signature guard, torch's
Python allocation entry point (`empty_like`: 2 us) and the address writes.  The C++ call does the
same work (launcher.Launcher.run's) from C++: the check of the signature key's facts, `at::empty`,
the cell writes, the re-encoding of descriptors whose tensor moved and cuLaunchKernelEx.  It takes
every launch, with fresh or `out=` outputs; one with scratch buffers (split-K's workspace and
semaphores) only on the stream they are bound to, the first call on another stream taking the
Python path, which binds them.  Every call takes the Python path when the extension cannot be
built (no compiler, or FUSER_MLIR_FASTPATH=0).

The build: one g++ command (no ninja, no build isolation), 20-30 s once per source, torch and
Python version (the first fd.execute that needs it says so on stderr; `python -m
fuser_mlir.runtime.fastpath` builds it ahead), into the cache directory (FUSER_MLIR_CACHE_DIR, as
the kernels), written to a temporary name and renamed, so concurrent builders never load a
partial file; one thread of a process builds, the others wait for it.  A failed build warns once
with the compiler's last lines and is not retried in that process.
"""
from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import os
import subprocess
import sys
import sysconfig
import tempfile
import threading
import warnings
from pathlib import Path

from .artifact import cache_dir

SOURCE = Path(__file__).with_name("fastpath.cpp")
MODULE = "fuser_mlir_fastpath"
BUILD_TIMEOUT_S = 600

_module = None
_failed: str | None = None
_lock = threading.Lock()


def _build_command(torch, source: Path, target: Path) -> list[str]:
    from torch.utils.cpp_extension import include_paths, library_paths

    abi = int(torch._C._GLIBCXX_USE_CXX11_ABI)
    return [os.environ.get("CXX", "g++"), "-O2", "-std=c++17", "-shared", "-fPIC", "-w",
            f"-D_GLIBCXX_USE_CXX11_ABI={abi}", f"-I{sysconfig.get_paths()['include']}",
            *(f"-I{p}" for p in include_paths()), str(source), "-o", str(target),
            *(f"-L{p}" for p in library_paths()), *(f"-Wl,-rpath,{p}" for p in library_paths()),
            "-lc10", "-ltorch", "-ltorch_cpu", "-ltorch_python"]


def _target(torch) -> Path:
    key = hashlib.sha1(SOURCE.read_bytes() + f"{torch.__version__} {sys.version}".encode()).hexdigest()[:16]
    return cache_dir() / "fastpath" / f"{MODULE}-{key}{importlib.machinery.EXTENSION_SUFFIXES[0]}"


def build(torch) -> Path:
    """The extension's shared object, compiled here unless the cache holds it."""
    target = _target(torch)
    if target.exists():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    sys.stderr.write(f"fuser_mlir: compiling fd.execute's C++ call for torch {torch.__version__} (once, ~30 s)\n")
    fd, partial = tempfile.mkstemp(suffix=target.suffix, dir=target.parent)
    os.close(fd)
    try:
        done = subprocess.run(_build_command(torch, SOURCE, Path(partial)), capture_output=True, text=True,
                              timeout=BUILD_TIMEOUT_S)
        if done.returncode:
            raise RuntimeError("\n".join((done.stderr or done.stdout).strip().splitlines()[-8:]))
        os.replace(partial, target)
    finally:
        if os.path.exists(partial):
            os.unlink(partial)
    return target


def module():
    """The built extension module, or None (the reason warned once) where it cannot be had."""
    if _module is not None or _failed is not None:
        return _module
    with _lock:
        return _load()


def _load():
    global _module, _failed
    if _module is not None or _failed is not None:
        return _module
    if os.environ.get("FUSER_MLIR_FASTPATH", "1") == "0":
        _failed = "FUSER_MLIR_FASTPATH=0"
        return None
    import torch

    try:
        path = build(torch)
        spec = importlib.util.spec_from_file_location(MODULE, path)
        _module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(_module)
    except Exception as exc:  # noqa: BLE001 -- any failure leaves the (slower, equal) Python path
        _failed = f"{type(exc).__name__}: {exc}"
        warnings.warn(f"fuser_mlir: fd.execute's C++ fast path is unavailable, calls take the Python path "
                      f"(~1.5x the host time): {_failed}", RuntimeWarning, stacklevel=2)
    return _module


def main() -> int:
    """`python -m fuser_mlir.runtime.fastpath`: build the extension now (e.g. in an image)."""
    import torch

    built = module() is not None
    print(f"built {_target(torch)}" if built else f"not built: {_failed}")
    return 0 if built else 1


if __name__ == "__main__":
    sys.exit(main())
