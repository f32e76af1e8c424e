"""Small builders shared by the tests."""
KERNEL = """module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%desc: !llvm.ptr, %n: i32, %flag: !llvm.ptr) kernel attributes {gpu.known_block_size = array<i32: 384, 1, 1>} {
      gpu.return
    }
  }
}"""


def kernel_module():
    """(module, insertion point before gpu.return, entry block) of an empty kernel."""
    from mlir import ir

    module = ir.Module.parse(KERNEL)
    func = module.body.operations[0].regions[0].blocks[0].operations[0]
    block = func.regions[0].blocks[0]
    return module, ir.InsertionPoint(block.operations[0]), block


def smem_type(shape, element):
    from mlir import ir

    return ir.MemRefType.get(shape, element, memory_space=ir.Attribute.parse("#gpu.address_space<workgroup>"))
