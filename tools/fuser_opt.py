"""fuser-opt: an mlir-opt for fuser_mlir — parse, run passes (upstream and ours), emit MLIR/LLVM/PTX.

    fuser-opt k.mlir -p fuser-lower-nvasync                 # one project pass
    fuser-opt k.mlir --pass-pipeline='builtin.module(fuser-lower-nvasync,canonicalize)'
    fuser-opt k.mlir --emit=ptx -o k.ptx                    # the whole lowering
    fuser-opt t.mlir --split-input-file --verify-diagnostics
    FUSER_MLIR_DEVICE=h200 fuser-opt f.mlir -p fuser-schedule   # heuristics decide for an H200

Errors print as `file:line:col: error: message` and exit with status 1; no traceback, whatever
the input.  An empty input is an empty module.
"""
from __future__ import annotations

import argparse
import os
import re
import sys
from dataclasses import dataclass

from fuser_mlir.diagnostics import CompileError, Diagnostic, error, from_mlir

SPLIT_MARKER = re.compile(r"^// -----[ \t]*$", re.M)


class _ArgumentParser(argparse.ArgumentParser):
    def error(self, message):          # mlir-opt's convention: bad usage exits 1, not 2
        self.print_usage(sys.stderr)
        self.exit(1, f"fuser-opt: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    p = _ArgumentParser(prog="fuser-opt", description=__doc__.split("\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("input", nargs="?", default="-", help="input .mlir file ('-' or none: stdin)")
    p.add_argument("-o", dest="output", default="-", help="output file, written only on success (default: stdout)")
    p.add_argument("--pass-pipeline", default=None,
                   help="a textual pipeline 'builtin.module(...)'; may name project passes")
    p.add_argument("-p", dest="passes", action="append", default=[], metavar="PASS",
                   help="run PASS (project or upstream, e.g. 'canonicalize'); repeatable, in order")
    p.add_argument("--emit", choices=("mlir", "llvm", "ptx"), default="mlir",
                   help="mlir: IR after the passes; llvm: lowered to the LLVM/NVVM dialect; "
                        "ptx: the whole lowering to PTX")
    p.add_argument("--list-passes", action="store_true", help="list the project's passes and exit")
    p.add_argument("--split-input-file", action="store_true",
                   help="process each '// -----' chunk as a separate module")
    p.add_argument("--verify-diagnostics", action="store_true",
                   help="check emitted diagnostics against expected-* comments")
    p.add_argument("--mlir-print-ir-after-all", action="store_true", help="print IR after each pass")
    p.add_argument("--mlir-print-debuginfo", action="store_true", help="print locations")
    p.add_argument("--dump-irdl", action="store_true",
                   help="print the IRDL of the fusion and nvasync dialects (for mlir-opt --irdl-file)")
    p.add_argument("--chip", default="sm_90a")
    p.add_argument("--features", default="+ptx80")
    p.add_argument("--opt-level", type=int, default=3)
    p.add_argument("--deadlock-guard-ms", type=int, default=None, metavar="N",
                   help="debug build: an mbarrier wait longer than N ms prints a diagnostic and traps "
                        "(0: off; default: $FUSER_MLIR_DEADLOCK_GUARD_MS, else off)")
    return p


def list_passes() -> str:
    from fuser_mlir.passes import PASSES

    lines = ["Project passes (usable with -p and inside --pass-pipeline):"]
    lines += [f"  {p.name:28s} {p.summary}" for p in PASSES.values()]
    lines.append("Any upstream MLIR pass or pipeline (e.g. canonicalize, cse, "
                 "gpu.module(convert-gpu-to-nvvm)) may be mixed in.")
    return "\n".join(lines) + "\n"


@dataclass
class Options:
    pipeline: list[str]
    emit: str
    print_ir_after_all: bool
    print_debuginfo: bool
    target: object


def process_chunk(source: bytes, options: Options, ctx) -> str:
    """Parse one module, run the passes, emit; diagnostics raise CompileError."""
    from mlir import ir

    from fuser_mlir.backend import pipeline

    with ctx, ir.Location.unknown():
        module = pipeline.parse_module(source)       # input that crashes the parser: an error
        pipeline.PassPipeline(["fuser-verify-dialects", *options.pipeline]).run(
            module, options.print_ir_after_all)
        if options.emit == "ptx":
            ptx = pipeline.compile_to_ptx(module, options.target)
            return "".join(f"// gpu.module @{name}\n{text}" for name, text in ptx.items())
        if options.emit == "llvm":
            pipeline.lower_to_llvm(module, options.target)
        return module.operation.get_asm(enable_debug_info=options.print_debuginfo)


def run(argv=None, stdout=None, stderr=None) -> int:
    stdout, stderr = stdout or sys.stdout, stderr or sys.stderr
    args = build_parser().parse_args(argv)
    if args.list_passes:
        stdout.write(list_passes())
        return 0
    filename = "<stdin>" if args.input == "-" else args.input
    try:
        if args.dump_irdl:
            from fuser_mlir.dialects import irdl_source

            _write(args.output, irdl_source(), stdout)
            return 0
        source = _read(args.input)
        options = _options(args)
    except CompileError as exc:
        stderr.write(exc.format(filename) + "\n")
        return 1

    from fuser_mlir.dialects import new_context

    chunks = _split(source) if args.split_input_file else [source]
    outputs, failed = [], False
    for chunk in chunks:
        ctx = new_context()
        collected: list[Diagnostic] = []
        # Warnings and remarks of successful runs reach this handler; errors arrive in MLIRError.
        ctx.attach_diagnostic_handler(lambda d: collected.append(from_mlir(d)) or True)
        try:
            outputs.append(process_chunk(chunk, options, ctx))
            produced = collected
        except CompileError as exc:
            produced = collected + exc.diagnostics
            outputs.append(None)
        if args.verify_diagnostics:
            mismatches = verify_diagnostics(chunk, produced)
            for d in mismatches:
                stderr.write(d.format(filename) + "\n")
            failed |= bool(mismatches)
        else:
            for d in produced:
                stderr.write(d.format(filename) + "\n")
            failed |= any(d.severity == "error" for d in produced)
    if failed and args.output != "-":
        return 1        # as mlir-opt: an output file is written only when every chunk succeeded
    text = "// -----\n".join(o for o in outputs if o is not None)
    try:
        _write(args.output, text, stdout)
    except CompileError as exc:
        stderr.write(exc.format() + "\n")
        return 1
    return 1 if failed else 0


def _options(args) -> Options:
    from fuser_mlir.backend.pipeline import pipeline_elements
    from fuser_mlir.backend.target import TargetOptions

    elements = pipeline_elements(args.pass_pipeline) if args.pass_pipeline else []
    for name in args.passes:
        elements += pipeline_elements(name)
    return Options(elements, args.emit, args.mlir_print_ir_after_all, args.mlir_print_debuginfo,
                   TargetOptions(args.chip, args.features, args.opt_level, args.deadlock_guard_ms))


def _read(path: str) -> bytes:
    try:
        return sys.stdin.buffer.read() if path == "-" else open(path, "rb").read()
    except OSError as exc:
        raise error(f"cannot read input: {exc.strerror}", path) from None


def _write(path: str, text: str, stdout) -> None:
    if path == "-":
        stdout.write(text)
        return
    try:
        with open(path, "w") as f:
            f.write(text)
    except OSError as exc:
        raise error(f"cannot write output: {exc.strerror}", path) from None


def _split(source: bytes) -> list[bytes]:
    """Chunks at '// -----' lines, each padded with newlines so line numbers match the file."""
    text = source.decode("utf-8", errors="replace")
    chunks, line = [], 0
    for piece in SPLIT_MARKER.split(text):
        chunks.append(("\n" * line + piece).encode())
        line += piece.count("\n")
    return chunks


# --- --verify-diagnostics ---------------------------------------------------------------------

EXPECTED = re.compile(r"//\s*expected-(error|warning|note|remark)\s*(@(?:above|below|[+-]\d+))?\s*\{\{(.*?)\}\}")


def expected_diagnostics(source: bytes) -> list[tuple[str, int, str, int]]:
    """(severity, target line, text, comment line) for each expected-* comment."""
    lines = source.decode("utf-8", errors="replace").split("\n")
    is_expectation = [bool(EXPECTED.search(line)) and line.strip().startswith("//") for line in lines]
    found = []
    for number, line in enumerate(lines, start=1):
        for match in EXPECTED.finditer(line):
            severity, where, text = match.groups()
            target = number
            if where == "@below" or where == "@above":
                step = 1 if where == "@below" else -1
                target = number + step
                while 1 <= target <= len(lines) and is_expectation[target - 1]:
                    target += step
            elif where:
                target = number + int(where[1:])
            found.append((severity, target, text, number))
    return found


def verify_diagnostics(source: bytes, produced: list[Diagnostic]) -> list[Diagnostic]:
    """Diagnostics describing every mismatch between produced and expected (empty: all match)."""
    flat = []
    for d in produced:
        flat.append(d)
        flat.extend(n for n in d.notes if not n.message.startswith("see current operation"))
    expected = expected_diagnostics(source)
    unmatched = list(expected)
    problems = []
    for d in flat:
        hit = next((e for e in unmatched if e[0] == d.severity and e[1] == d.line and e[2] in d.message), None)
        if hit:
            unmatched.remove(hit)
        else:
            problems.append(Diagnostic("error", f"unexpected {d.severity}: {d.message}", d.file, d.line, d.col))
    for severity, target, text, comment_line in unmatched:
        problems.append(Diagnostic("error", f"expected {severity} \"{text}\" on line {target} was not produced",
                                   "", comment_line, 1))
    return problems


def main() -> None:
    try:
        status = run()
    except KeyboardInterrupt:
        status = 130
    except Exception as exc:   # a compiler bug, not a user error: say so, without a traceback
        if os.environ.get("FUSER_MLIR_DEBUG"):
            raise
        sys.stderr.write(f"fuser-opt: error: internal compiler error: {type(exc).__name__}: {exc} "
                         "(set FUSER_MLIR_DEBUG=1 for the traceback)\n")
        status = 1
    sys.exit(status)


if __name__ == "__main__":
    main()
