"""The fusions and shapes the GPU suite runs; build_artifacts.py compiles exactly these."""
from fuser_mlir import DataType, FusionDefinition
from fuser_mlir.frontend.definition import BINARY, UNARY

DTYPES = (DataType.Float, DataType.Half, DataType.BFloat16)
POSITIVE = {"log", "sqrt", "rsqrt"}          # ops drawn on positive inputs


def unary(kind, dtype, rank=2):
    with FusionDefinition() as fd:
        x = fd.define_tensor([-1] * rank, dtype)
        fd.add_output(getattr(fd.ops, kind)(x))
    return fd


def binary(kind, dtype, rank=2):
    with FusionDefinition() as fd:
        x = fd.define_tensor([-1] * rank, dtype)
        y = fd.define_tensor([-1] * rank, dtype)
        fd.add_output(getattr(fd.ops, kind)(x, y))
    return fd


def where(dtype):
    with FusionDefinition() as fd:
        c = fd.define_tensor([-1, -1], DataType.Bool)
        x = fd.define_tensor([-1, -1], dtype)
        y = fd.define_tensor([-1, -1], dtype)
        fd.add_output(fd.ops.where(c, x, fd.ops.neg(y)))
    return fd


def cast_chain(dtype):
    """Mixed dtypes: promotion, an explicit cast, and two outputs."""
    with FusionDefinition() as fd:
        x = fd.define_tensor([-1, -1], dtype)
        y = fd.define_tensor([-1, -1], DataType.Float)
        h = fd.ops.cast(fd.ops.mul(x, y), DataType.Half)
        fd.add_output(fd.ops.add(h, x))
        fd.add_output(fd.ops.cast(fd.ops.sigmoid(y), dtype))
    return fd


def broadcast_bias(dtype):
    """x [M, N] * gelu(b [N]) + broadcast(b to [M, N])."""
    with FusionDefinition() as fd:
        x = fd.define_tensor([-1, -1], dtype)
        b = fd.define_tensor([-1], dtype)
        z = fd.ops.mul(x, fd.ops.gelu(b))
        fd.add_output(fd.ops.add(z, fd.ops.broadcast(b, [-1, -1])))
    return fd


def mlp_epilogue(dtype, rank=2):
    """The multi-op fusion used for tails and sizes: silu(x) * y + tanh(x) - x / (1 + y^2)."""
    with FusionDefinition() as fd:
        x = fd.define_tensor([-1] * rank, dtype)
        y = fd.define_tensor([-1] * rank, dtype)
        a = fd.ops.mul(fd.ops.silu(x), y)
        b = fd.ops.add(a, fd.ops.tanh(x))
        fd.add_output(fd.ops.sub(b, fd.ops.div(x, fd.ops.add(fd.ops.mul(y, y), fd.ops.exp(fd.ops.neg(fd.ops.abs(y)))))))
    return fd


# (name, builder, input shapes). Shapes include tails in both dims, 1-D, 3-D and a large case.
CASES = []
for dtype in DTYPES:
    for kind in UNARY:
        CASES.append((f"unary-{kind}-{dtype.value}", lambda k=kind, d=dtype: unary(k, d), [(300, 1000)]))
    for kind in BINARY:
        CASES.append((f"binary-{kind}-{dtype.value}", lambda k=kind, d=dtype: binary(k, d), [(257, 520)] * 2))
    CASES.append((f"where-{dtype.value}", lambda d=dtype: where(d), [(130, 264)] * 3))
    CASES.append((f"cast-{dtype.value}", lambda d=dtype: cast_chain(d), [(100, 1032)] * 2))
    CASES.append((f"broadcast-{dtype.value}", lambda d=dtype: broadcast_bias(d), [(77, 512), (512,)]))
for shape in [(1,), (7,), (4097,), (1_000_003,), (3, 5), (129, 333), (1000, 1024), (2, 3, 200)]:
    CASES.append((f"tails-{'x'.join(map(str, shape))}", lambda r=len(shape): mlp_epilogue(DataType.BFloat16, r),
                  [shape] * 2))
# >= 256 MiB per input: 1-D (flat view) and 2-D (row view).
LARGE = [("large-1d-bf16", lambda: mlp_epilogue(DataType.BFloat16, 1), [(150_000_001,)] * 2),
         ("large-2d-f32", lambda: mlp_epilogue(DataType.Float, 2), [(16384, 4100)] * 2)]
