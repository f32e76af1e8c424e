// --dump-irdl prints the IRDL of both dialects (fusion and nvasync) -- to stdout or to -o FILE --
// and exits without reading input.  The text is what the table in dialects/*.py states: one
// irdl.operation per op, with its attribute, operand, result and region constraints.  A fresh
// MLIR context loads it and then accepts (generic-form) ops of both dialects.
// RUN: fuser-opt --dump-irdl | FileCheck %s
// RUN: fuser-opt --dump-irdl -o %t.irdl.mlir | count 0
// RUN: FileCheck %s < %t.irdl.mlir
// RUN: %python %S/Inputs/load_irdl.py %t.irdl.mlir %s | FileCheck %s --check-prefix=LOADED

// CHECK: module {
// CHECK-NEXT: irdl.dialect @fusion {
// CHECK: irdl.operation @unary {
// CHECK: irdl.operation @matmul {
// CHECK: irdl.dialect @nvasync {
// CHECK: irdl.operation @smem_buffer {
// CHECK-NEXT: %attr_offset = irdl.base "#builtin.integer"
// CHECK-NEXT: irdl.attributes {"offset" = %attr_offset}
// CHECK-NEXT: %res_buffer = irdl.base "!builtin.memref"
// CHECK-NEXT: irdl.results(buffer: %res_buffer)
// CHECK: irdl.operation @tma_load {
// CHECK: %[[DESC:[a-z]+_desc]] = irdl.is !llvm.ptr
// CHECK: %[[COORDS:[a-z]+_coords]] = irdl.is i32
// CHECK-NEXT: irdl.operands(desc: %[[DESC]], dst: %{{.*}}, barriers: %{{.*}}, stage: %{{.*}}, coords: variadic %[[COORDS]])
// CHECK: irdl.operation @wgmma {
// CHECK: %[[ACC:[a-z]+_acc]] = irdl.base "!builtin.vector"
// CHECK: irdl.results(result: %[[ACC]])
// CHECK: irdl.operation @warp_role {
// CHECK: %region_body = irdl.region
// CHECK-NEXT: irdl.regions(body: %region_body)

// LOADED: "fusion.unary"(%{{.*}}) {kind = "exp"} : (tensor<4xf32>) -> tensor<4xf32>
// LOADED: "nvasync.bulk_wait"() {pending = 0 : i32, read = true} : () -> ()

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = "fusion.unary"(%x) {kind = "exp"} : (tensor<4xf32>) -> tensor<4xf32>
  "nvasync.bulk_wait"() {pending = 0 : i32, read = true} : () -> ()
  return %r : tensor<4xf32>
}
