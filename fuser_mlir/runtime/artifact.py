"""Compiled artifacts and their cache (memory and disk).

An artifact is self-describing: PTX (and the cubin when ptxas was available), the entry name and
`meta`, the launch recipe the runtime follows (parameters, block, grid rule, dynamic smem).  Keys
hash the canonical definition, the schedule, the target and the compiler (version and a hash of
its sources), so the GPU machine, which cannot compile (no MLIR), finds what this machine built.

Disk layout: `$FUSER_MLIR_CACHE_DIR/<key>/{kernel.ptx, kernel.cubin, meta.json}` (default
`~/.cache/fuser_mlir`).  A corrupt or incomplete entry is treated as a miss and rebuilt.
`FUSER_MLIR_OFFLINE=1` forbids compiling: a miss is an error.
"""
from __future__ import annotations

import functools
import hashlib
import json
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from .. import __version__

FORMAT = 2         # 2: meta "grid" is "persistent" or "per_tile"


@dataclass(frozen=True)
class Artifact:
    key: str
    ptx: str
    cubin: bytes | None
    meta: dict


class OfflineMiss(RuntimeError):
    pass


@functools.lru_cache(maxsize=1)
def compiler_fingerprint() -> str:
    """Hash of the compiler's own sources: a changed compiler never reuses old kernels.  The GPU
    machine installs the same sources, so it computes the same keys.  The runtime is not the
    compiler: it launches artifacts and makes none (what it reads from an artifact's meta is
    FORMAT's), so changing it keeps the kernels."""
    import fuser_mlir.dialects
    import fuser_mlir.passes

    digest = hashlib.sha256(__version__.encode())
    mapped = {"dialects", "passes", "tools"}    # inside fuser_mlir/ only in a regular install
    for package in (fuser_mlir, fuser_mlir.dialects, fuser_mlir.passes):
        root = Path(package.__file__).parent
        for path in sorted(root.rglob("*.py")):
            relative = path.relative_to(root)
            if package is fuser_mlir and relative.parts[0] in mapped | {"runtime"}:
                continue          # mapped: hashed as their own package (editable and regular installs agree)
            digest.update(str(relative).encode() + path.read_bytes())
    return digest.hexdigest()[:16]


def cache_key(*parts) -> str:
    text = json.dumps([FORMAT, compiler_fingerprint(), *parts], sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def cache_dir() -> Path:
    return Path(os.environ.get("FUSER_MLIR_CACHE_DIR") or Path.home() / ".cache" / "fuser_mlir")


def offline() -> bool:
    return os.environ.get("FUSER_MLIR_OFFLINE", "") not in ("", "0")


_memory: dict[str, Artifact] = {}


def lookup(key: str) -> Artifact | None:
    if key in _memory:
        return _memory[key]
    entry = cache_dir() / key
    try:
        meta = json.loads((entry / "meta.json").read_text())
        if meta.get("format") != FORMAT or meta.get("key") != key:
            return None
        ptx = (entry / "kernel.ptx").read_text()
        cubin_path = entry / "kernel.cubin"
        cubin = cubin_path.read_bytes() if cubin_path.exists() else None
    except (OSError, ValueError):
        return None                # missing or corrupt: rebuild
    artifact = Artifact(key, ptx, cubin, meta)
    _memory[key] = artifact
    return artifact


def store(artifact: Artifact) -> None:
    """Write atomically (a temp dir renamed into place) so readers never see half an entry."""
    _memory[artifact.key] = artifact
    root = cache_dir()
    try:
        root.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(dir=root, prefix=".tmp-"))
        (tmp / "kernel.ptx").write_text(artifact.ptx)
        if artifact.cubin:
            (tmp / "kernel.cubin").write_bytes(artifact.cubin)
        (tmp / "meta.json").write_text(json.dumps({**artifact.meta, "format": FORMAT, "key": artifact.key},
                                                  indent=1, sort_keys=True))
        final = root / artifact.key
        if final.exists():
            shutil.rmtree(final, ignore_errors=True)
        os.replace(tmp, final)
    except OSError:
        pass                       # an unwritable cache only costs a recompile


def get_or_build(key: str, build, describe: str) -> Artifact:
    artifact = lookup(key)
    if artifact is not None:
        return artifact
    if offline():
        raise OfflineMiss(f"FUSER_MLIR_OFFLINE=1 and no cached kernel for {describe} (key {key}) in "
                          f"{cache_dir()}: build the artifacts on a machine with the MLIR bindings first, for this GPU "
                          f"(FUSER_MLIR_DEVICE names it there)")
    artifact = build()
    store(artifact)
    return artifact
