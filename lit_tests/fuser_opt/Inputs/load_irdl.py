"""Load an IRDL file (from fuser-opt --dump-irdl) into a fresh MLIR context -- the project's
dialect code not involved -- and parse/verify/print the module in argv[2] with it."""
import sys

from mlir import ir
from mlir.dialects import irdl

with ir.Context() as ctx, ir.Location.unknown():
    irdl.load_dialects(ir.Module.parse(open(sys.argv[1]).read()))
    module = ir.Module.parse(open(sys.argv[2]).read())
    assert module.operation.verify()
    print(module)
