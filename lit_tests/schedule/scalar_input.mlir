// A rank-0 fusion argument marked {fusion.scalar} is passed by value: the strided scheduler takes
// it (mode "value", no memory access) and the kernel has an f32 parameter for it; the TMA
// scheduler declines (it reads tensors).  The fusion is x * s in bf16 with s a float scalar.
// RUN: fuser-opt %s -p fuser-schedule | FileCheck %s
// RUN: fuser-opt %s --emit=ptx -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %ptxas %t.ptx -o %t.cubin

func.func @scale(%x: tensor<?x?xbf16>, %s: tensor<f32> {fusion.scalar}) -> tensor<?x?xbf16> attributes {fusion.fusion} {
  %b = "fusion.broadcast"(%s) {dims = array<i64>} : (tensor<f32>) -> tensor<?x?xf32>
  %y = "fusion.binary"(%x, %b) {kind = "mul"} : (tensor<?x?xbf16>, tensor<?x?xf32>) -> tensor<?x?xbf16>
  return %y : tensor<?x?xbf16>
}

// CHECK: gpu.func @scale(%{{.*}}: !llvm.ptr<1>, %[[S:.*]]: f32, %{{.*}}: !llvm.ptr<1>, %{{.*}}: i32
// CHECK-NOT: llvm.load {{.*}}%[[S]]
// CHECK: arith.mulf %{{.*}}, %[[S]]
// PTX: .entry scale(
// PTX-NEXT: .param .u64 .ptr .global .align 1 scale_param_0,
// PTX-NEXT: .param .f32 scale_param_1,
