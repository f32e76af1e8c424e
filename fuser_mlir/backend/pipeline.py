"""Pass pipelines that mix upstream passes and the project's Python passes, and the lowering to PTX.

Upstream textual pipelines cannot name Python passes, so `PassPipeline` splits a
`builtin.module(...)` pipeline (or a list of `-p` names) into its top-level elements and gives
each to the one PassManager: upstream elements as text, project passes as Python callables.  One
PassManager keeps `--mlir-print-ir-after-all` and the diagnostics uniform across both kinds.

The lowering (`LOWER_TO_LLVM`) reads as the list of stages it is: verify our dialects, rewrite
nvasync into NVVM, run the upstream conversions, then apply the kernel ABI.  Serialising LLVM IR
to PTX happens in a child process (fuser_mlir.backend.nvptx) because the NVPTX backend aborts the
process on IR it cannot select; `parse_module` guards the parser against input that aborts it,
with a forked child.
"""
from __future__ import annotations

import functools
import re

from ..diagnostics import CompileError, error, from_mlir_error
from .target import TargetOptions


def split_elements(text: str) -> list[str]:
    """Top-level comma-separated elements of a pipeline body, respecting (), {} and quotes."""
    elements, depth, start, quote = [], 0, 0, None
    for i, ch in enumerate(text):
        if quote:
            quote = None if ch == quote else quote
        elif ch in "\"'":
            quote = ch
        elif ch in "({":
            depth += 1
        elif ch in ")}":
            depth -= 1
            if depth < 0:
                raise error(f"unbalanced '{ch}' in pass pipeline at offset {i}")
        elif ch == "," and depth == 0:
            elements.append(text[start:i].strip())
            start = i + 1
    if depth or quote:
        raise error("unbalanced brackets or quotes in pass pipeline")
    elements.append(text[start:].strip())
    return [e for e in elements if e]


def pipeline_elements(pipeline: str) -> list[str]:
    """Elements of `builtin.module(...)`; a pipeline without that anchor is taken as its body."""
    text = pipeline.strip()
    if text.startswith("builtin.module(") and text.endswith(")"):
        text = text[len("builtin.module("):-1]
    elif text.startswith("builtin.module"):
        raise error(f"malformed pass pipeline '{pipeline}': expected builtin.module(...)")
    return split_elements(text)


class PassPipeline:
    """An ordered list of pipeline elements, each a project pass name or upstream pipeline text."""

    def __init__(self, elements=()):
        self.elements = list(elements)

    def build(self, ctx, print_ir_after_all: bool = False):
        from mlir import passmanager

        from ..passes import PASSES

        pm = passmanager.PassManager("builtin.module", context=ctx)
        upstream: list[str] = []

        def flush():
            if upstream:
                try:
                    pm.add(",".join(upstream))
                except ValueError as exc:
                    raise error(f"invalid pass pipeline '{','.join(upstream)}': "
                                f"{str(exc).strip() or 'unknown pass or option'}") from None
                upstream.clear()

        for element in self.elements:
            name = element.split("{", 1)[0].split("(", 1)[0].strip()
            if name in PASSES:
                if element != name:
                    raise error(f"pass '{name}' takes no options or nested passes")
                flush()
                info = PASSES[name]
                pm.add(info.run, name=name, argument=name, description=info.summary)
            else:
                nested = [p for p in PASSES if p in element]
                if nested:
                    raise error(f"project pass '{nested[0]}' must be a top-level element of "
                                "builtin.module(...): it walks the whole module itself")
                upstream.append(element)
        flush()
        if print_ir_after_all:
            ctx.enable_multithreading(False)      # LLVM aborts otherwise
            pm.enable_ir_printing(print_after_all=True, print_module_scope=True)
        return pm

    def run(self, module, print_ir_after_all: bool = False) -> None:
        from mlir import ir

        pm = self.build(module.context, print_ir_after_all)
        try:
            pm.run(module.operation)
        except ir.MLIRError as exc:
            raise from_mlir_error(exc) from None


# Derive every barrier, fence and wait, then check the result independently.
SYNC_PASSES = ["fuser-insert-syncs", "fuser-insert-proxy-fences", "fuser-flush-wgmma", "fuser-verify-syncs"]
# Kernel IR with split-K marks and pipelined loops (nvasync.pipeline_load) -> their protocols,
# derived pipelines, the wait for the previous kernel in the stream and synchronization.
DERIVE_PASSES = ["fuser-verify-dialects", "fuser-tma-reduce-store", "fuser-pipeline-mbarriers",
                 "fuser-grid-dependency", *SYNC_PASSES, "fuser-verify-pipelines"]
# Fusion IR -> kernel IR, then as above.
SCHEDULE_PASSES = ["fuser-verify-dialects", "fuser-schedule", *DERIVE_PASSES[1:]]


def lower_to_llvm_elements(target: TargetOptions) -> list[str]:
    return [
        "fuser-verify-dialects",
        # Loops kept rolled for the sync passes, unrolled now; canonicalize folds their index
        # arithmetic (static accumulator positions) before anything lowers vectors.
        "fuser-unroll-loops",
        "gpu.module(canonicalize)",
        "fuser-lower-nvasync",
        # Kernels in upstream's NVGPU dialect inside gpu.launch, in upstream's order: NVGPU first
        # (host and device), so a TMA descriptor is an !llvm.ptr by the time outlining makes it
        # a kernel argument (convert-gpu-to-nvvm cannot convert an !nvgpu type in a signature);
        # then outline, before the target is attached to every gpu.module.
        "convert-nvgpu-to-nvvm",
        "gpu-kernel-outlining",
        target.attach_target,
        "convert-scf-to-cf",
        "expand-strided-metadata",
        "lower-affine",
        "gpu.module(convert-gpu-to-nvvm)",
        "convert-nvvm-to-llvm",
        "reconcile-unrealized-casts",
        "canonicalize",
        "cse",
        "fuser-kernel-abi",
    ]


def lower_to_llvm(module, target: TargetOptions = TargetOptions()) -> None:
    """Lower a module to LLVM/NVVM: its fusion funcs are scheduled into kernels first, and kernels
    with pipelined loops get their pipelines and synchronization derived; other kernels (nvasync
    with hand-written protocol, upstream dialects) lower as they are."""
    if has_fusions(module):
        PassPipeline(SCHEDULE_PASSES).run(module)
    elif has_pipelined_loops(module):
        PassPipeline(DERIVE_PASSES).run(module)
    if target.deadlock_guard_ms:
        from ..passes.lower_nvasync import set_deadlock_guard

        set_deadlock_guard(module, target.deadlock_guard_ms)
    PassPipeline(lower_to_llvm_elements(target)).run(module)
    _check_fully_lowered(module)


def _check_fully_lowered(module) -> None:
    from mlir import ir

    from ..diagnostics import Diagnostic, file_location

    leftovers = []

    def visit(op):
        dialect = op.name.partition(".")[0]
        if dialect not in ("builtin", "gpu", "llvm", "nvvm") or op.name in ("gpu.func", "gpu.launch_func"):
            leftovers.append(op)
            return ir.WalkResult.SKIP
        return ir.WalkResult.ADVANCE

    for gpu_module in _gpu_modules(module):
        for op in gpu_module.regions[0].blocks[0].operations:
            op.operation.walk(visit, ir.WalkOrder.PRE_ORDER)
    if leftovers:
        raise CompileError([Diagnostic("error", f"'{op.name}' could not be lowered to NVVM/LLVM "
                                                 "(unsupported in kernels)", *file_location(op.location))
                            for op in leftovers[:10]])


def has_fusions(module) -> bool:
    from ..dialects.fusion import FUSION_ATTR

    return any(op.operation.name == "func.func" and FUSION_ATTR in op.operation.attributes
               for op in module.body.operations)


def has_pipelined_loops(module) -> bool:
    from mlir import ir

    found = []
    module.operation.walk(lambda op: found.append(op) or ir.WalkResult.INTERRUPT
                          if op.name == "nvasync.pipeline_load" else ir.WalkResult.ADVANCE)
    return bool(found)


def _gpu_modules(module):
    return [op.operation for op in module.body.operations if op.operation.name == "gpu.module"]


def compile_to_ptx(module, target: TargetOptions = TargetOptions()) -> dict[str, str]:
    """Lower `module` in place and return {gpu.module name: PTX text}."""
    from . import nvptx
    from ..diagnostics import file_location

    lower_to_llvm(module, target)
    gpu_modules = _gpu_modules(module)
    if not gpu_modules:
        raise error("no gpu.module to compile: PTX needs kernels inside a gpu.module")
    text = module.operation.get_asm(enable_debug_info=True, print_generic_op_form=True)
    return nvptx.serialize(text, target, file_location(gpu_modules[0].location))


def parse_module(source: bytes | str):
    """Parse `source` (untrusted) in the current context; every problem is a located CompileError.

    LLVM here is built with assertions, and some malformed input aborts inside MLIR's parser
    (e.g. `array<index: 0>`).  So a forked child parses it first: its crash becomes an error
    located where the parser died, and this process parses only input the child survived.
    fork() reuses the loaded MLIR: about 10 ms, not an interpreter start."""
    from mlir import ir

    source = source.encode() if isinstance(source, str) else source
    # Before any parse: the bindings' diagnostic handler raises on a message quoting bytes that are
    # not UTF-8, and an exception through MLIR's diagnostic engine leaves its lock held (MLIR has
    # no unwind cleanups), so the context's next diagnostic from another thread (a verifier
    # worker) would wait forever.
    try:
        source.decode()
    except UnicodeDecodeError as exc:
        raise error(f"invalid UTF-8 byte 0x{source[exc.start]:02x} in this input", "",
                    *_line_col(source, exc.start)) from None
    reason = _parser_crash(source)
    if reason:
        # The shortest crashing prefix ends where the parser died (shorter prefixes of the
        # input are merely incomplete).
        good, bad = 0, len(source)
        while bad - good > 1:
            mid = (good + bad) // 2
            good, bad = (good, mid) if _parser_crash(source[:mid]) else (mid, bad)
        raise error(f"MLIR's parser crashed on the input up to here ({reason})", "",
                    *_line_col(source, bad - 1))
    try:
        return ir.Module.parse(source)
    except ir.MLIRError as exc:
        raise (from_mlir_error(exc) if exc.error_diagnostics else _silent_parse_failure(source)) from None


# An op of the IRDL dialects at statement position (after a line start, `=`, `{` or `}`), unquoted.
_CUSTOM_FORM = re.compile(rb"(?:^|[={}])[ \t]*((?:fusion|nvasync)\.\w+)", re.M)


def _silent_parse_failure(source: bytes) -> CompileError:
    """MLIR's parser fails without a diagnostic when an op of an IRDL dialect is written in custom
    form (IRDL ops have only the generic one): point at the first such op, else at the start."""
    found = _CUSTOM_FORM.search(source)
    if found:
        name = found.group(1).decode()
        return error(f"'{name}' is written in custom form; the fusion and nvasync dialects' ops have only the "
                     f"generic form: \"{name}\"(operands) {{attributes}} : (types) -> types",
                     "", *_line_col(source, found.start(1)))
    return error("MLIR's parser rejected this input without saying where", "", 1, 1)


def _line_col(source: bytes, index: int) -> tuple[int, int]:
    """1-based line and byte column of source[index], as MLIR counts them."""
    return source.count(b"\n", 0, index) + 1, index - source.rfind(b"\n", 0, index)


def _parser_crash(source: bytes) -> str | None:
    """None if a forked child parses `source` (successfully or with errors) and exits; else what
    killed it: LLVM's last message, or the signal."""
    import faulthandler
    import gc
    import os
    import resource

    from mlir import ir

    ctx = _fork_parse_context()
    read_end, write_end = os.pipe()
    # The child must not collect garbage: what it inherits may hold an earlier parse's context,
    # whose destruction segfaulted there (most likely its thread pool: the threads exist only in
    # the parent).  The child exits by os._exit, so it needs no collection.
    collecting, pid = gc.isenabled(), -1
    gc.disable()
    try:
        pid = os.fork()
    finally:                                    # the parent collects again, also if fork failed
        if pid != 0 and collecting:
            gc.enable()
    if pid == 0:
        os.close(read_end)
        os.dup2(write_end, 2)                                   # LLVM's message, for the parent
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))       # an abort writes no core file
        faulthandler.disable()                  # nor a Python traceback (pytest enables one)
        try:
            ir.Module.parse(source, context=ctx)
        finally:
            os._exit(0)                      # no Python cleanup: the parent owns stdout's buffer
    os.close(write_end)
    with os.fdopen(read_end, "rb") as child_stderr:
        message = child_stderr.read().decode(errors="replace").strip()
    status = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    if status == 0:
        return None
    return message.splitlines()[-1] if message else f"killed by signal {-status}"


@functools.cache
def _fork_parse_context():
    """The context the forked child parses in: the project's dialects and no thread pool.  The
    child has none of the parent's threads, so in a context that ever ran parallel work (the
    verifier does, after a parse) it would wait forever for the pool's workers."""
    from ..dialects import new_context

    ctx = new_context()
    ctx.enable_multithreading(False)
    return ctx
