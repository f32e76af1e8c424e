"""Reductions and normalizations: fuser_mlir vs torch eager vs torch.compile, effective bandwidth.

softmax, RMSNorm (with weight), LayerNorm (with weight and bias), a row sum, a column sum and a
sum of every element over bf16 tensors of rows in {4096, 32768} x columns in {1024, 4096, 8192,
32768} (`--cols` for other row lengths; fuser_mlir.frontend.normalizations records them as users
write them; the row- and outer-reduction schedulers run them).  Every system is timed
as users call it (tools/timing.py device_ms: `fd.execute(inputs)` allocating its outputs, the
torch expression, a static-shape torch.compile per shape); effective TB/s = (bytes read + written)
/ median time, the bytes of the inputs and the outputs as each system returns them.  A row
compiles its torch.compile first, then times the three systems in ROUNDS alternating rounds and
keeps each system's faster round (both are recorded): the systems timed first after a long
compile once read 15 % low (row sum 4096 x 65536: 2.63 TB/s, 3.10-3.13 in a probe).  Each row
also gives `copy_TBps`, a clone of x timed the same way: what moving that many bytes costs at
that size (launch and ramp included), next to `copy_TBps` of the whole run (a 1 GiB copy).

    # here (MLIR available): build the kernels
    FUSER_MLIR_CACHE_DIR=.fuser_cache python3 tools/bench_norm.py --build
    # on the H100 (offline):
    FUSER_MLIR_CACHE_DIR=.fuser_cache FUSER_MLIR_OFFLINE=1 python3 tools/bench_norm.py --json out.json
"""
from __future__ import annotations

import torch
from timing import bench_arguments, copy_tbps, device_ms, save

from fuser_mlir import DataType, FusionDefinition
from fuser_mlir.frontend.normalizations import layer_norm, rms_norm, softmax

ROWS = (4096, 32768)
ROUNDS = 2
COLS = (1024, 4096, 8192, 32768)


def _fusion(recipe, weights):
    with FusionDefinition() as fd:
        x = fd.define_tensor([-1, -1], DataType.BFloat16)
        params = [fd.define_tensor([-1], DataType.BFloat16) for _ in range(weights)]
        outs = recipe(fd.ops, x, *params)
        for out in outs if isinstance(outs, tuple) else [outs]:
            fd.add_output(out)
    return fd


def _torch_layer_norm(x, w, b):
    return torch.nn.functional.layer_norm(x, x.shape[-1:], w, b, 1e-5)


FUSIONS = {
    # name: (fusion, torch equivalent, weights)
    "softmax": (lambda: _fusion(softmax, 0), lambda x: torch.softmax(x, -1), 0),
    "rms_norm": (lambda: _fusion(rms_norm, 1),
                 lambda x, w: torch.nn.functional.rms_norm(x.float(), x.shape[-1:], w.float(), 1e-6).to(x.dtype), 1),
    # fuser_mlir also returns the row statistics (mean, rstd), as torch.native_layer_norm does.
    "layer_norm": (lambda: _fusion(layer_norm, 2), _torch_layer_norm, 2),
    "row_sum": (lambda: _fusion(lambda o, x: o.sum(x, -1), 0), lambda x: x.sum(-1), 0),
    # the outer-reduction scheduler: a column sum and a sum of everything
    "col_sum": (lambda: _fusion(lambda o, x: o.sum(x, 0), 0), lambda x: x.sum(0), 0),
    "full_sum": (lambda: _fusion(lambda o, x: o.sum(x), 0), lambda x: x.sum(), 0),
}


def inputs_for(weights, rows, cols, device):
    x = torch.randn(rows, cols, device=device).to(torch.bfloat16) if device != "meta" else \
        torch.empty(rows, cols, dtype=torch.bfloat16, device="meta")
    params = [torch.empty(cols, dtype=torch.bfloat16, device="meta") if device == "meta" else
              (1 + 0.2 * torch.randn(cols, device=device)).to(torch.bfloat16) for _ in range(weights)]
    return [x] + params


def build(names, columns):
    for name in names:
        make, _, weights = FUSIONS[name]
        for rows in ROWS:           # the outer-reduction scheduler splits by the row count
            for cols in columns:
                make().compile(inputs_for(weights, rows, cols, "meta"))
        print("built", name)


def _nbytes(tensors):
    return sum(t.numel() * t.element_size() for t in tensors)


def bench(json_path, names, columns):
    results = {"device": torch.cuda.get_device_name(), "copy_TBps": copy_tbps(), "rows": []}
    copies = {}                     # (rows, cols): a clone of x's TB/s
    for name in names:
        make, eager, weights = FUSIONS[name]
        fd = make()
        for rows in ROWS:
            for cols in columns:
                torch._dynamo.reset()
                compiled = torch.compile(eager, dynamic=False)
                inputs = inputs_for(weights, rows, cols, "cuda")
                ours, theirs = fd.execute(inputs), eager(*inputs)
                compiled(*inputs)
                first = ours[0]
                err = ((first.double() - theirs.double()).norm() / theirs.double().norm()).item()
                row = {"fusion": name, "rows": rows, "cols": cols, "rel_err": err}
                systems = (("fuser_mlir", lambda: fd.execute(inputs), ours),
                           ("eager", lambda: eager(*inputs), [theirs]),
                           ("torch_compile", lambda: compiled(*inputs), [theirs]))
                rounds = [[device_ms(fn) for _, fn, _ in systems] for _ in range(ROUNDS)]
                for (system, _, outs), times in zip(systems, zip(*rounds)):
                    ms = min(times)
                    row[f"{system}_ms"], row[f"{system}_TBps"] = ms, _nbytes(inputs + list(outs)) / ms / 1e9
                    row[f"{system}_ms_by_round"] = list(times)
                if (rows, cols) not in copies:
                    x = inputs[0]
                    copies[rows, cols] = 2 * _nbytes([x]) / device_ms(lambda: x.clone()) / 1e9
                row["copy_TBps"] = copies[rows, cols]
                row["vs_eager"] = row["eager_ms"] / row["fuser_mlir_ms"]
                row["vs_compile"] = row["torch_compile_ms"] / row["fuser_mlir_ms"]
                results["rows"].append(row)
                print(f"{name:10s} {rows:6d}x{cols:<6d} fuser_mlir {row['fuser_mlir_TBps']:5.2f} TB/s  eager "
                      f"{row['eager_TBps']:5.2f}  compile {row['torch_compile_TBps']:5.2f}  copy "
                      f"{row['copy_TBps']:5.2f}  vs eager "
                      f"{row['vs_eager']:5.2f}x  vs compile {row['vs_compile']:5.2f}x  rel err {err:.1e}", flush=True)
                del inputs, ours, theirs
                torch.cuda.empty_cache()
    print(f"copy rate {results['copy_TBps']:.2f} TB/s")
    save(results, json_path)


def main():
    p = bench_arguments(__doc__)
    p.add_argument("--fusions", default=",".join(FUSIONS), help=f"comma-separated, some of {', '.join(FUSIONS)}")
    p.add_argument("--cols", default=",".join(map(str, COLS)), help="comma-separated row lengths (default: the table's)")
    args = p.parse_args()
    names = args.fusions.split(",")
    if set(names) - set(FUSIONS):
        p.error(f"--fusions takes some of {', '.join(FUSIONS)}")
    columns = [int(c) for c in args.cols.split(",")]
    build(names, columns) if args.build else bench(args.json, names, columns)


if __name__ == "__main__":
    main()
