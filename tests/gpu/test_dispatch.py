"""fd.execute's cached path on the H100: descriptors follow moving tensors, out= reuse, streams,
CUDA-graph capture replayed with new data in the same buffers, and threads sharing one launch.
The cached calls, out= and schedule= ones included, take the C++ fast path (runtime/fastpath.py),
checked to be in use; its Python path runs where a test turns the fast path off.

Uses the GPU suite's cases (tests/gpu/cases.py), whose kernels build_artifacts.py compiles.
"""
import os
import sys

import pytest
import torch

sys.path.insert(0, os.path.dirname(__file__))
from cases import CASES  # noqa: E402
from threads import run_in_threads  # noqa: E402

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs an NVIDIA Hopper GPU")


def _mul_case():
    name, build, shapes = next(c for c in CASES if c[0] == "binary-mul-bf16")
    return build(), shapes[0]


def _inputs(shape):
    return [torch.randn(shape, device="cuda").to(torch.bfloat16) for _ in range(2)]


def _expected(x, y):
    return (x.double() * y.double()).to(torch.bfloat16)


@pytest.mark.parametrize("path", ["C++", "Python"])
def test_cached_launcher_follows_new_tensors(path):
    """Fresh tensors every call (new addresses, same signature): every result is right, and every
    element written: each output takes the memory of a NaN-filled tensor just freed (the caching
    allocator hands the block back; checked)."""
    from fuser_mlir.runtime import fastpath

    fd, shape = _mul_case()
    fd.execute(_inputs(shape))
    launcher, = fd._launchers.values()
    assert launcher.fast is not None, f"no C++ fast path: {fastpath._failed}"
    if path == "Python":
        launcher.fast = None
    for _ in range(5):
        x, y = _inputs(shape)
        poisoned = torch.full(shape, float("nan"), device="cuda", dtype=torch.bfloat16)
        address = poisoned.data_ptr()
        del poisoned
        out, = fd.execute([x, y])
        torch.cuda.synchronize()
        assert out.data_ptr() == address, "the output did not reuse the poisoned block"
        assert torch.equal(out, _expected(x, y))
    assert len(fd._launchers) == 1, "one signature must give one prepared launch"


def test_a_call_with_a_schedule_takes_the_cpp_call():
    """schedule= calls skip the most-recent shortcut (the key tells schedules apart), then launch
    through the C++ call like any cached call: the Python launch path never runs."""
    from cases import PIPELINE_MODES

    fd, shape = _mul_case()
    schedule = {"scheduler": "pointwise", "mode": PIPELINE_MODES[0]}
    fd.execute(_inputs(shape), schedule=schedule)
    launcher, = fd._launchers.values()
    assert launcher.fast is not None

    def python_path(*args, **kwargs):
        raise AssertionError("a schedule= call took the Python launch path")

    launcher.run = python_path
    for _ in range(3):
        x, y = _inputs(shape)
        out, = fd.execute([x, y], schedule=schedule)
        assert torch.equal(out, _expected(x, y))


def test_out_is_reused_and_checked():
    from fuser_mlir import FusionError

    fd, shape = _mul_case()
    x, y = _inputs(shape)
    out = [torch.full(shape, float("nan"), device="cuda", dtype=torch.bfloat16)]
    result, = fd.execute([x, y], out=out)
    torch.cuda.synchronize()
    assert result is out[0] and torch.equal(out[0], _expected(x, y))
    with pytest.raises(FusionError, match="must be a contiguous"):
        fd.execute([x, y], out=[torch.empty(shape, device="cuda", dtype=torch.float32)])


def test_side_stream():
    fd, shape = _mul_case()
    x, y = _inputs(shape)
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        out, = fd.execute([x, y])
    stream.synchronize()
    assert torch.equal(out, _expected(x, y))


def test_cuda_graph_capture_and_replay_with_new_data():
    fd, shape = _mul_case()
    x, y = _inputs(shape)
    fd.execute([x, y])                       # compile and load outside the capture
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out, = fd.execute([x, y])
    for _ in range(3):
        new_x, new_y = _inputs(shape)
        x.copy_(new_x)
        y.copy_(new_y)
        out.fill_(float("nan"))
        graph.replay()
        torch.cuda.synchronize()
        assert torch.equal(out, _expected(new_x, new_y))


def test_threads_sharing_one_launch_each_get_their_own_results():
    """Threads calling one definition share its prepared launch (one parameter buffer): each call
    must launch with its own tensors.  A tiny GIL switch interval makes thread switches between
    one call's address writes and its launch frequent: without the launcher's lock, 43-68 of these
    16000 calls returned wrong results in each of three runs (H100).  The threads touch CUDA only
    through fd.execute: the launch must make a context current itself (it raised
    CUDA_ERROR_INVALID_CONTEXT before)."""
    fd, shape = _mul_case()
    fd.execute(_inputs(shape))               # compile and load before the threads start
    torch.cuda.synchronize()
    threads, calls = 8, 2000
    pairs = [[_inputs(shape) for _ in range(4)] for _ in range(threads)]       # each thread's own inputs
    wrong = []

    def run(mine):
        outs = [fd.execute(mine[k % 4])[0] for k in range(calls)]
        torch.cuda.synchronize()
        expected = [_expected(x, y) for x, y in mine]
        wrong.extend(k for k, out in enumerate(outs) if not torch.equal(out, expected[k % 4]))

    failures = run_in_threads(run, pairs)
    assert not failures, failures[0]
    assert not wrong, f"{len(wrong)} of {threads * calls} calls returned another call's result"


@pytest.mark.parametrize("name", ["layer_norm-BFloat16-100x1536", "row_stats-Half-37x777", "softmax-BFloat16-7x65536",
                                  "scaled_colsum-BFloat16-8x100x64"])
def test_fast_path_gives_the_python_paths_results(name):
    """Several inputs (a norm's weights), several outputs, cluster launches and an outer
    reduction (unsplit: split ones have scratch buffers, which the Python path binds) through the
    C++ call: bitwise the results of the Python path's out= launch."""
    from cases import OUTER_CASES, REDUCTION_CASES
    from test_reductions import run_case

    cases = {n: (b, s, "row_reduction") for n, b, s in REDUCTION_CASES} | \
        {n: (b, s, "outer_reduction") for n, b, s, _ in OUTER_CASES}
    build, shape, scheduler = cases[name]
    fd, inputs, out, _ = run_case(build, shape, scheduler)
    launcher = fd._recent
    assert launcher is not None and launcher.fast is not None, "the case's launch has no C++ call"
    for _ in range(2):
        results = fd.execute(inputs)
        torch.cuda.synchronize()
        assert all(torch.equal(r, o) for r, o in zip(results, out)), f"{name}: the C++ call's results differ"
