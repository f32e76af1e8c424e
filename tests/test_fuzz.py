"""No input kills the compiler: a seeded, bounded mutation fuzzer over the lit inputs.

Each case is a chunk of a lit_tests .mlir file with one to three mutations (bytes flipped,
inserted or deleted; MLIR tokens deleted, duplicated, swapped or replaced by a token from
anywhere in the corpus; a truncation) fed to `parse_module`, the guarded parser fuser-opt uses.
Every case must parse or fail with a located CompileError; an abort inside LLVM would end this
process instead.  The seed is fixed, so a failure reproduces; about 10 ms a case.
"""
import random
import re
import subprocess
import sys
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
