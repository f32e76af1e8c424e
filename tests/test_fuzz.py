"""No input kills the compiler: seeded, bounded mutation fuzzers over the lit inputs.

The parser: each case is a chunk of a lit_tests .mlir file with one to three mutations (bytes
flipped, inserted or deleted; MLIR tokens deleted, duplicated, swapped or replaced by a token from
anywhere in the corpus; a truncation) fed to `parse_module`, the guarded parser fuser-opt uses.
Every case must parse or fail with a located CompileError; an abort inside LLVM would end this
process instead.  About 10 ms a case.

The passes: each case is a kernel chunk of the lit inputs of PASS_DIRS with one or two mutations
that mostly still parse (an integer replaced by an extreme one, a line deleted, two nearby lines
swapped, a token mutation), run through fuser-opt with one of its file's RUN lines' options (passes,
--emit).  Every case must succeed or end in a located error: no Python exception, no LLVM abort, no
case running past CASE_SECONDS.  The cases run in a child process, so an abort names its case.
Three campaigns of this kind (sessions 36-37, ~10,000 mutants) found the crashes the lit tests
`*invalid*`, `unroll_bounds` and `known_block_size_invalid` now pin.

The seeds are fixed, so a failure reproduces.
"""
import io
import random
import re
import shlex
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from fuser_mlir.backend.pipeline import parse_module
from fuser_mlir.diagnostics import CompileError
from fuser_mlir.tools.fuser_opt import SPLIT_MARKER

SEED = 7
CASES = 500
LIT = Path(__file__).parent.parent / "lit_tests"
# A string literal, an SSA/symbol/block/attribute/type name or keyword or number, or one character.
TOKEN = re.compile(rb'"(?:[^"\\\n]|\\.)*"|[%@^#!]?[\w.$-]+|\S')


def corpus() -> list[bytes]:
    files = sorted(p for p in LIT.rglob("*.mlir") if "Output" not in p.parts)
    return [chunk.encode() for p in files for chunk in SPLIT_MARKER.split(p.read_text()) if chunk.strip()]


def mutate(source: bytes, rng: random.Random, pool: list[bytes]) -> bytes:
    tokens = list(TOKEN.finditer(source))
    kind = rng.choice(["byte", "delete", "replace", "duplicate", "swap", "truncate"])
    if kind == "byte" or not tokens:
        i = rng.randrange(len(source) + 1)
        return source[:i] + bytes([rng.randrange(256)]) * rng.randint(0, 1) + source[i + rng.randint(0, 1):]
    if kind == "truncate":
        return source[:rng.randrange(len(source) + 1)]
    a, b = rng.choice(tokens).span()
    if kind == "delete":
        return source[:a] + source[b:]
    if kind == "replace":
        return source[:a] + rng.choice(pool) + source[b:]
    if kind == "duplicate":
        return source[:a] + source[a:b] + source[a:]
    (a, b), (c, d) = sorted([(a, b), rng.choice(tokens).span()])
    return source[:a] + source[c:d] + source[b:c] + source[a:b] + source[d:] if b <= c else source


def test_mutated_lit_inputs_parse_or_fail_cleanly(ctx):
    chunks = corpus()
    pool = sorted({m.group() for chunk in chunks for m in TOKEN.finditer(chunk)})
    rng = random.Random(SEED)
    unclean = []
    for case in range(CASES):
        source = rng.choice(chunks)
        for _ in range(rng.randint(1, 3)):
            source = mutate(source, rng, pool)
        try:
            parse_module(source)
        except CompileError as exc:
            if not exc.diagnostics or any(d.severity != "error" or d.line < 1 for d in exc.diagnostics):
                unclean.append((case, source, str(exc)))
    assert not unclean, f"seed {SEED}: failures without a located error: {unclean[:3]}"


PASS_SEED = 37
PASS_CASES = 600
PASS_DIRS = ("nvasync", "syncs", "pipeline", "splitk", "lowering")
CASE_SECONDS = 30             # a case past it: Python code looping (the alarm interrupts it)
PASS_TIMEOUT = 600            # all cases (~20 s here): a case stuck in C++, which no alarm interrupts
EXTREMES = (0, -1, 1, 2, 3, 7, 31, 33, 128, 1024, 4096, 65536, 2**31 - 1, 2**31, 2**32, -2**31)
INTEGER = re.compile(r"(?<![%\w#^@.])-?\d+(?![\w.])")


def pass_corpus() -> list[tuple[str, str, list[str]]]:
    """(file, chunk, fuser-opt options) for every chunk of PASS_DIRS' lit inputs and every
    fuser-opt RUN line of its file (its options but the input, output and diagnostics ones)."""
    cases = []
    for path in sorted(p for d in PASS_DIRS for p in (LIT / d).glob("*.mlir")):
        text = path.read_text()
        runs = []
        for line in re.findall(r"RUN: (?:not )?fuser-opt %s(.*)", text):
            words = shlex.split(line.split("|")[0].split("&&")[0].replace("2>&1", ""))
            words = [w for w in words if w not in ("--split-input-file", "--verify-diagnostics")]
            if "-o" in words:
                del words[words.index("-o"):words.index("-o") + 2]
            runs.append(words)
        cases += [(path.name, chunk, run) for chunk in SPLIT_MARKER.split(text) if chunk.strip() for run in runs]
    return cases


def mutate_kernel(source: str, rng: random.Random, pool: list[bytes]) -> str:
    lines = source.split("\n")
    body = [i for i, line in enumerate(lines) if line.strip() and not line.lstrip().startswith("//")]
    kind = rng.choice(["integer"] * 3 + ["delete", "swap", "swap", "token"])     # mostly still parses
    numbered = [i for i in body if INTEGER.search(lines[i])]
    if kind == "integer" and numbered:
        i = rng.choice(numbered)
        m = rng.choice(list(INTEGER.finditer(lines[i])))
        lines[i] = lines[i][:m.start()] + str(rng.choice(EXTREMES)) + lines[i][m.end():]
    elif kind == "delete" and body:
        del lines[rng.choice(body)]
    elif kind == "swap" and len(body) > 1:
        i = rng.choice(body)
        j = rng.choice([k for k in body if k != i and abs(k - i) <= 6] or [i])
        lines[i], lines[j] = lines[j], lines[i]
    else:
        return mutate(source.encode(), rng, pool).decode(errors="replace")
    return "\n".join(lines)


def fuzz_passes(seed: int, cases: int) -> None:
    """The child: run the cases, printing `case i: file options` before each and `BUG case i:
    ...` for each failure (main of a `python -c`)."""
    from fuser_mlir.tools import fuser_opt

    def give_up(*_):
        raise TimeoutError(f"still running after {CASE_SECONDS} s")

    signal.signal(signal.SIGALRM, give_up)
    corpus_ = pass_corpus()
    pool = sorted({m.group() for _, chunk, _ in corpus_ for m in TOKEN.finditer(chunk.encode())})
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "case.mlir"
        for case in range(cases):
            name, source, options = rng.choice(corpus_)
            for _ in range(rng.randint(1, 2)):
                source = mutate_kernel(source, rng, pool)
            path.write_text(source)
            print(f"case {case}: {name} {' '.join(options)}", flush=True)
            signal.alarm(CASE_SECONDS)
            try:
                fuser_opt.run([str(path), *options], stdout=io.StringIO(), stderr=io.StringIO())
            except BaseException as exc:       # noqa: BLE001 -- whatever escapes fuser-opt is the finding
                print(f"BUG case {case}: {type(exc).__name__}: {exc}", flush=True)
            finally:
                signal.alarm(0)


def test_mutated_lit_kernels_compile_or_fail_cleanly():
    script = f"import sys; sys.path.insert(0, {str(Path(__file__).parent)!r}); import test_fuzz; " \
             f"test_fuzz.fuzz_passes({PASS_SEED}, {PASS_CASES})"
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=PASS_TIMEOUT)
    started = [line for line in done.stdout.splitlines() if line.startswith("case ")]
    assert done.returncode == 0, f"seed {PASS_SEED}: the process died in {started[-1:]}: {done.stderr[-1500:]}"
    assert len(started) == PASS_CASES, done.stdout[-1500:]
    bugs = [line for line in done.stdout.splitlines() if line.startswith("BUG")]
    assert not bugs, f"seed {PASS_SEED}: {bugs[:3]}"


def test_parser_crash_is_a_located_error(ctx):
    source = (b'func.func @f(%x: tensor<4xf32>) -> tensor<2x4xf32> {\n'
              b'  %r = "fusion.broadcast"(%x) {dims = array<index: 0, 1>} : (tensor<4xf32>) -> tensor<2x4xf32>\n'
              b'  return %r : tensor<2x4xf32>\n}\n')
    with pytest.raises(CompileError) as info:
        parse_module(source)
    (diag,) = info.value.diagnostics
    assert (diag.line, diag.col) == (2, 49)
    assert "parser crashed" in diag.message and "Assertion" in diag.message


def test_error_quoting_bytes_that_are_not_utf8_is_located(ctx):
    # MLIR's message quotes the op name, which the bindings cannot decode.
    with pytest.raises(CompileError) as info:
        parse_module(b'func.func @f() {\n  "fusion.r\xfbduce"() : () -> ()\n  return\n}\n')
    (diag,) = info.value.diagnostics
    assert (diag.line, diag.col) == (2, 12) and "invalid UTF-8 byte 0xfb" in diag.message


def test_a_context_keeps_reporting_errors_after_input_that_is_not_utf8():
    """Such input once reached the bindings' diagnostic handler, which raised inside MLIR's
    diagnostic engine and left its lock held: the next error a verifier worker thread reported
    in that context waited forever (the fuzzer hung on it).  Run in a child with a deadline."""
    script = (
        "from mlir import ir\n"
        "from fuser_mlir.backend.pipeline import parse_module\n"
        "from fuser_mlir.diagnostics import CompileError\n"
        "from fuser_mlir.dialects import new_context\n"
        "bad = ''.join(f'func.func @f{i}(%m: memref<4xf32>, %v: f32) {{\\n  memref.store %v, %m[] : memref<4xf32>\\n'\n"
        "              f'  return\\n}}\\n' for i in range(64))\n"
        "with new_context(), ir.Location.unknown():\n"
        "    for source in (b'func.func @f() {\\n  \"fusion.r\\xfbduce\"() : () -> ()\\n  return\\n}\\n', bad):\n"
        "        try:\n"
        "            parse_module(source)\n"
        "        except CompileError as exc:\n"
        "            print(exc.diagnostics[0].line)\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.split() == ["2", "2"], done.stderr[-2000:]
