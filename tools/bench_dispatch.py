"""Host cost of one call: fd.execute (cached) next to a torch eager op, torch.compile and a Triton
kernel launch, in the same run, with a breakdown of fd.execute's hot path.

The fusion is relu(x) * y on small bf16 tensors, so every system is host-bound and the numbers
are what a call costs the Python thread (tools/timing.py host_us).  fd.execute runs as users call
it (the registry's scheduler, same tensors each call); with inputs alternating between two tensor
pairs (addresses change every call, as activations do); on the TMA scheduler with alternating
inputs (each call re-encodes the input descriptors); as x*s with a scalar input s
(fd.define_scalar) whose number changes every call; and as a small linear (the matmul kernel: its
operands and output are TMA descriptors, re-encoded as the activations alternate), next to torch's
linear, and a skinny 64x2112x7168 one the heuristic splits over K (its workspace and semaphores
are scratch buffers bound to the stream).  Cached calls go through the C++ fast path
(fuser_mlir/runtime/fastpath.py; calls with `schedule=`, the TMA row, after building their key);
its Python path, which machines without a C++ compiler take, is timed beside it.

    # here (MLIR available): build the kernel
    FUSER_MLIR_CACHE_DIR=.fuser_cache python3 tools/bench_dispatch.py --build
    # on the H100 (offline):
    FUSER_MLIR_CACHE_DIR=.fuser_cache FUSER_MLIR_OFFLINE=1 python3 tools/bench_dispatch.py --json out.json
"""
from __future__ import annotations


import torch
from timing import bench_arguments, host_us, host_us_each, save

from fuser_mlir import DataType, FusionDefinition
from fuser_mlir.api import signature_key
from fuser_mlir.runtime import fastpath

SHAPE = (256, 1024)
ROUNDS = 5
TMA = {"scheduler": "pointwise"}


def relu_mul():
    with FusionDefinition() as fd:
        x = fd.define_tensor([-1, -1], DataType.BFloat16)
        y = fd.define_tensor([-1, -1], DataType.BFloat16)
        fd.add_output(fd.ops.mul(fd.ops.relu(x), y))
    return fd


def scaled():
    """x * s with s a scalar input (fd.define_scalar): a new number each call, the same kernel."""
    with FusionDefinition() as fd:
        x = fd.define_tensor([-1, -1], DataType.BFloat16)
        fd.add_output(fd.ops.mul(x, fd.define_scalar(DataType.Float)))
    return fd


def small_linear():
    """x @ w.T of bf16 [256, 256] x [256, 256] (unsplit: the heuristic splits skinny and K-heavy
    shapes): the matmul kernel, its operands and output passed as TMA descriptors (re-encoded
    when a tensor moves)."""
    with FusionDefinition() as fd:
        x = fd.define_tensor([-1, -1], DataType.BFloat16)
        w = fd.define_tensor([-1, -1], DataType.BFloat16)
        fd.add_output(fd.ops.linear(x, w))
    return fd


LINEAR = ((256, 256), (256, 256))
SKINNY = ((64, 7168), (2112, 7168))      # split-K (issue 10's shape)


def build():
    for schedule in (None, TMA):
        relu_mul().compile([torch.empty(SHAPE, dtype=torch.bfloat16, device="meta")] * 2, schedule=schedule)
    scaled().compile([torch.empty(SHAPE, dtype=torch.bfloat16, device="meta"), 0.5])
    for shapes in (LINEAR, SKINNY):
        small_linear().compile([torch.empty(s, dtype=torch.bfloat16, device="meta") for s in shapes])
    print("built relu(x)*y bf16 (default and TMA schedulers), x*s and 256x256x256 and 64x2112x7168 linears")


def triton_launcher():
    """A Triton kernel computing the same thing, or None with the reason."""
    try:
        import triton
        import triton.language as tl
    except ImportError as exc:
        return None, f"no triton: {exc}"

    @triton.jit
    def relu_mul_kernel(x_ptr, y_ptr, o_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        x = tl.load(x_ptr + offs, mask=mask)
        y = tl.load(y_ptr + offs, mask=mask)
        tl.store(o_ptr + offs, tl.maximum(x, 0.0) * y, mask=mask)

    def run(x, y):
        out = torch.empty_like(x)
        n = x.numel()
        relu_mul_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024)
        return out

    return run, None


def bench(json_path):
    x, y = (torch.randn(SHAPE, device="cuda").to(torch.bfloat16) for _ in range(2))
    x2, y2 = torch.randn_like(x), torch.randn_like(y)
    fd = relu_mul()
    expected = torch.relu(x) * y
    assert torch.equal(fd.execute([x, y])[0], expected), "fd.execute result differs from torch"
    assert torch.equal(fd.execute([x, y], schedule=TMA)[0], expected), "the TMA kernel differs from torch"
    fd_linear = small_linear()
    activations = [torch.randn(LINEAR[0], device="cuda").to(torch.bfloat16) for _ in range(2)]
    weight = torch.randn(LINEAR[1], device="cuda").to(torch.bfloat16)
    torch.testing.assert_close(fd_linear.execute([activations[0], weight])[0].float(),
                               (activations[0].float() @ weight.float().T), rtol=2e-2, atol=2e-1)
    skinny = [torch.randn(SKINNY[0], device="cuda").to(torch.bfloat16) for _ in range(2)]
    skinny_weight = torch.randn(SKINNY[1], device="cuda").to(torch.bfloat16)
    fd_skinny = small_linear()
    torch.testing.assert_close(fd_skinny.execute([skinny[0], skinny_weight])[0].float(),
                               (skinny[0].float() @ skinny_weight.float().T), rtol=2e-2, atol=1.0)
    fd_scaled = scaled()
    assert torch.equal(fd_scaled.execute([x, 0.5])[0], x * 0.5), "x*s differs from torch"
    pairs, turn = ([x, y], [x2, y2]), [0]

    def alternating(schedule=None):
        turn[0] ^= 1
        return fd.execute(pairs[turn[0]], schedule=schedule)

    def linear_call():
        turn[0] ^= 1
        return fd_linear.execute([activations[turn[0]], weight])

    def skinny_call():
        turn[0] ^= 1
        return fd_skinny.execute([skinny[turn[0]], skinny_weight])

    def scaled_call():
        turn[0] ^= 1
        return fd_scaled.execute([x, 0.25 if turn[0] else 0.5])

    launcher = fd._launchers[signature_key((x, y))]
    if launcher.fast is None:
        print(f"no C++ fast path: {fastpath._failed}")

    def python_path():
        return launcher.run(launcher.guard.addresses((x, y)))

    eager = lambda: torch.relu(x) * y       # noqa: E731
    compiled_fn = torch.compile(lambda a, b: torch.relu(a) * b)
    out = [torch.empty_like(x)]
    triton_run, why = triton_launcher()
    calls = {
        "fd.execute": lambda: fd.execute([x, y]),
        "fd.execute(out=)": lambda: fd.execute([x, y], out=out),
        "fd.execute's Python path (signature guard + launcher.run)": python_path,
        "fd.execute, inputs alternating between two pairs": alternating,
        "fd.execute, TMA scheduler (schedule=), inputs alternating": lambda: alternating(TMA),
        "fd.execute of x*s, a scalar input changing every call": scaled_call,
        "fd.execute of a 256x256x256 linear (TMA descriptors), activations alternating": linear_call,
        "torch eager linear 256x256x256 (cuBLAS)": lambda: torch.nn.functional.linear(activations[0], weight),
        "fd.execute of a 64x2112x7168 linear (split-K scratch), activations alternating": skinny_call,
        "torch eager linear 64x2112x7168 (cuBLAS)": lambda: torch.nn.functional.linear(skinny[0], skinny_weight),
        "torch eager relu(x)*y (2 ops)": eager,
        "torch eager x*y (1 op)": lambda: x * y,
        "torch.compile": lambda: compiled_fn(x, y),
        "triton kernel launch": (lambda: triton_run(x, y)) if triton_run else None,
    }
    # The host's speed drifts between seconds (measured: a torch eager op at 7.3-10.6 us on one
    # machine): every system is timed in each of ROUNDS rounds, its samples interleaved with the
    # other systems' (timing.host_us_each), so ratios compare like with like.
    rounds = [host_us_each({name: call for name, call in calls.items() if call}) for _ in range(ROUNDS)]
    for rows in rounds:
        rows.update({name: None for name, call in calls.items() if not call})

    # Breakdown of the hot path (the default scheduler's launcher): each piece alone.
    _, tma_slot = fd._launchers[(signature_key((x, y)), tuple(TMA.items()))].tensor_maps[0]
    stream = torch._C._cuda_getCurrentRawStream(launcher.device)
    addresses, flip = [x.data_ptr(), x2.data_ptr()], [0]

    def encode():
        flip[0] ^= 1
        tma_slot.put(addresses[flip[0]])

    breakdown = {
        "C++ fast call: check, allocation, addresses, launch": host_us(lambda: launcher.fast((x, y)))
        if launcher.fast else None,
        "signature key (2 inputs)": host_us(lambda: signature_key((x, y))),
        "signature guard: check and addresses (2 inputs)": host_us(lambda: launcher.guard.addresses((x, y))),
        "output allocation (the launcher's empty_like)": host_us(lambda: launcher._empty_like(launcher.out_templates[0])),
        "address writes (3 tensors, one assignment)": host_us(lambda: launcher.addresses.__setitem__(
            slice(0, 3), [x.data_ptr(), y.data_ptr(), x2.data_ptr()])),
        "launcher.run (addresses read)": host_us(lambda: launcher.run([x.data_ptr(), y.data_ptr()])),
        "tensormap re-encode (TMA scheduler, address changed)": host_us(encode),
        "cuLaunchKernelEx (prebuilt arguments)": host_us(lambda: launcher.launch(stream)),
        "current stream lookup": host_us(lambda: torch._C._cuda_getCurrentRawStream(0)),
        "current device lookup": host_us(torch._C._cuda_getDevice),
    }
    print(f"device: {torch.cuda.get_device_name()}; relu(x)*y bf16 {list(SHAPE)}; host time per call")
    for i, rows in enumerate(rounds):
        eager_us = rows["torch eager x*y (1 op)"]
        print(f"round {i + 1} of {ROUNDS}")
        for name, us in rows.items():
            ratio = "" if us is None else f"  ({us / eager_us:.2f}x a torch eager op)"
            print(f"  {name:58s} {'n/a (' + why + ')' if us is None else f'{us:7.2f} us'}{ratio}")
    print("fd.execute hot path, piece by piece:")
    for name, us in breakdown.items():
        print(f"  {name:58s} {'n/a' if us is None else f'{us:7.2f} us'}")
    save({"device": torch.cuda.get_device_name(), "shape": SHAPE, "host_us_by_round": rounds,
          "breakdown_us": breakdown, "torch": torch.__version__}, json_path)


def main():
    args = bench_arguments(__doc__).parse_args()
    build() if args.build else bench(args.json)


if __name__ == "__main__":
    main()
