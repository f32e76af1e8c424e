// The matmul epilogue's arithmetic on a linear + silu(y) * gate fusion, the gate a full [M, N]
// operand read by vector loads (`tma_operands = 0`; by default it arrives by TMA:
// matmul_tma_operands.mlir): its address is one 64-bit product per fragment row (row x N: M x N may pass 2^31
// elements), then per pair a 32-bit column clamped into the row (min.u32) and one widening
// multiply-add; silu's sigmoid runs on the flush-to-zero ex2 and rcp approximations (one MUFU op
// each in SASS; the IEEE-denormal forms add a range check and rescaling to every element).
// RUN: fuser-opt %s --emit=ptx -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %ptxas %t.ptx -o %t.cubin

func.func @linear_silu_gate(%x: tensor<?x512xbf16>, %w: tensor<768x512xbf16>, %g: tensor<?x768xbf16>) -> tensor<?x768xbf16>
    attributes {fusion.fusion, fusion.schedule = {scheduler = "matmul", tma_operands = 0}} {
  %y = "fusion.matmul"(%x, %w) {transpose_b = true} : (tensor<?x512xbf16>, tensor<768x512xbf16>) -> tensor<?x768xbf16>
  %s = "fusion.unary"(%y) {kind = "silu"} : (tensor<?x768xbf16>) -> tensor<?x768xbf16>
  %o = "fusion.binary"(%s, %g) {kind = "mul"} : (tensor<?x768xbf16>, tensor<?x768xbf16>) -> tensor<?x768xbf16>
  return %o : tensor<?x768xbf16>
}

// CHECK-LABEL: .visible .entry linear_silu_gate(
// CHECK: wgmma.wait_group.sync.aligned
// CHECK: cp.async.bulk.wait_group.read 0;
// CHECK: bar.sync 1, 256;
// CHECK: cvt.u64.u32 [[ROW:%rd[0-9]+]],
// CHECK-NEXT: mul.lo.s64 [[ROWOFF:%rd[0-9]+]], [[ROW]],
// CHECK: min.u32 [[COL:%r[0-9]+]],
// CHECK-NEXT: mul.wide.u32 [[COLOFF:%rd[0-9]+]], [[COL]], 2;
// CHECK-NEXT: add.s64 [[ADDR:%rd[0-9]+]], {{%rd[0-9]+}}, [[COLOFF]];
// CHECK-NEXT: ld.global.v2.b16 {{.*}}, [[[ADDR]]];
// CHECK-NOT: ex2.approx.f32
// CHECK: ex2.approx.ftz.f32
// CHECK-NOT: ex2.approx.f32
// CHECK: rcp.approx.ftz.f32
// CHECK-NOT: ex2.approx.f32
// CHECK-NOT: rcp.approx.f32
// CHECK: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
