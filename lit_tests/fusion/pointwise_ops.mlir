// The pointwise op set: every kind of fusion.unary / binary / ternary verifies on the element types
// it takes (floats compute in f32, integers in integer arithmetic, i1 for booleans), constants are
// rank-0 `arith.constant`s broadcast to the shape (an f32 constant may feed a bf16 op: it enters
// unrounded), and the whole file compiles to PTX that ptxas accepts.  Small explicit schedules keep
// the kernels short.
// RUN: fuser-opt %s | FileCheck %s
// RUN: fuser-opt %s --emit=ptx -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %ptxas %t.ptx -o %t.cubin

// CHECK-LABEL: func.func @float_math(
// CHECK: arith.constant dense<1.000000e-01> : tensor<f32>
// CHECK: "fusion.binary"(%{{.*}}, %{{.*}}) {kind = "mul"} : (tensor<1024xbf16>, tensor<1024xf32>) -> tensor<1024xbf16>
// CHECK: {kind = "clamp", max = 6.000000e+00 : f64, min = -1.000000e+00 : f64}
// PTX-LABEL: .entry float_math(
// PTX-DAG: cvt.rni.f32.f32
// PTX-DAG: cvt.rmi.f32.f32
// PTX-DAG: cvt.rpi.f32.f32
// PTX-DAG: rcp.approx
func.func @float_math(%x: tensor<1024xbf16>, %y: tensor<1024xbf16>) -> (tensor<1024xbf16>, tensor<1024xbf16>)
    attributes {fusion.fusion, fusion.schedule = {scheduler = "pointwise", rank = 1, box_rows = 1, box_cols = 256, boxes = 1, stages = 2}} {
  %k = arith.constant dense<1.000000e-01> : tensor<f32>
  %kb = "fusion.broadcast"(%k) {dims = array<i64>} : (tensor<f32>) -> tensor<1024xf32>
  %scaled = "fusion.binary"(%x, %kb) {kind = "mul"} : (tensor<1024xbf16>, tensor<1024xf32>) -> tensor<1024xbf16>
  %erf = "fusion.unary"(%scaled) {kind = "erf"} : (tensor<1024xbf16>) -> tensor<1024xbf16>
  %sin = "fusion.unary"(%x) {kind = "sin"} : (tensor<1024xbf16>) -> tensor<1024xbf16>
  %cos = "fusion.unary"(%y) {kind = "cos"} : (tensor<1024xbf16>) -> tensor<1024xbf16>
  %rcp = "fusion.unary"(%y) {kind = "reciprocal"} : (tensor<1024xbf16>) -> tensor<1024xbf16>
  %l1p = "fusion.unary"(%y) {kind = "log1p"} : (tensor<1024xbf16>) -> tensor<1024xbf16>
  %em1 = "fusion.unary"(%x) {kind = "expm1"} : (tensor<1024xbf16>) -> tensor<1024xbf16>
  %pow = "fusion.binary"(%sin, %cos) {kind = "pow"} : (tensor<1024xbf16>, tensor<1024xbf16>) -> tensor<1024xbf16>
  %a = "fusion.binary"(%erf, %rcp) {kind = "add"} : (tensor<1024xbf16>, tensor<1024xbf16>) -> tensor<1024xbf16>
  %b = "fusion.binary"(%a, %l1p) {kind = "sub"} : (tensor<1024xbf16>, tensor<1024xbf16>) -> tensor<1024xbf16>
  %c = "fusion.binary"(%b, %em1) {kind = "maximum"} : (tensor<1024xbf16>, tensor<1024xbf16>) -> tensor<1024xbf16>
  %d = "fusion.binary"(%c, %pow) {kind = "div"} : (tensor<1024xbf16>, tensor<1024xbf16>) -> tensor<1024xbf16>
  %fl = "fusion.unary"(%d) {kind = "floor"} : (tensor<1024xbf16>) -> tensor<1024xbf16>
  %ce = "fusion.unary"(%d) {kind = "ceil"} : (tensor<1024xbf16>) -> tensor<1024xbf16>
  %ro = "fusion.unary"(%d) {kind = "round"} : (tensor<1024xbf16>) -> tensor<1024xbf16>
  %sg = "fusion.unary"(%d) {kind = "sign"} : (tensor<1024xbf16>) -> tensor<1024xbf16>
  %e = "fusion.ternary"(%fl, %ce, %ro) {kind = "fma"} : (tensor<1024xbf16>, tensor<1024xbf16>, tensor<1024xbf16>) -> tensor<1024xbf16>
  %f = "fusion.binary"(%e, %sg) {kind = "minimum"} : (tensor<1024xbf16>, tensor<1024xbf16>) -> tensor<1024xbf16>
  %cl = "fusion.unary"(%f) {kind = "clamp", min = -1.0 : f64, max = 6.0 : f64} : (tensor<1024xbf16>) -> tensor<1024xbf16>
  %nn = "fusion.unary"(%d) {kind = "nan_to_num", nan = 0.0 : f64, posinf = 3.0e+38 : f64, neginf = 0xFFF0000000000000 : f64} : (tensor<1024xbf16>) -> tensor<1024xbf16>
  return %cl, %nn : tensor<1024xbf16>, tensor<1024xbf16>
}

// Integers compute in integer arithmetic; comparisons and predicates give i1, stored as bytes.
// (i64 tensors verify, see invalid_pointwise.mlir @accepted; their kernels wait on
// fuser-verify-pipelines telling data buffers of i64 from mbarrier arrays.)
// CHECK-LABEL: func.func @integers_and_booleans(
// PTX-LABEL: .entry integers_and_booleans(
// PTX-DAG: mul.lo.s32
// PTX-DAG: max.relu.s32
// PTX-DAG: setp.lt.s32
// PTX-DAG: cvt.rzi.s32.f32
// PTX-DAG: cvt.rn.f32.s32
// PTX-DAG: neg.s32
// PTX-DAG: st.shared.v2.b32
func.func @integers_and_booleans(%i: tensor<1024xi32>, %j: tensor<1024xi32>, %b: tensor<1024xi1>, %x: tensor<1024xf32>)
    -> (tensor<1024xi32>, tensor<1024xi1>, tensor<1024xf32>)
    attributes {fusion.fusion, fusion.schedule = {scheduler = "pointwise", rank = 1, box_rows = 1, box_cols = 256, boxes = 1, stages = 2}} {
  %k = arith.constant dense<3> : tensor<i32>
  %kb = "fusion.broadcast"(%k) {dims = array<i64>} : (tensor<i32>) -> tensor<1024xi32>
  %sum = "fusion.binary"(%i, %kb) {kind = "add"} : (tensor<1024xi32>, tensor<1024xi32>) -> tensor<1024xi32>
  %abs = "fusion.unary"(%sum) {kind = "abs"} : (tensor<1024xi32>) -> tensor<1024xi32>
  %neg = "fusion.unary"(%j) {kind = "neg"} : (tensor<1024xi32>) -> tensor<1024xi32>
  %relu = "fusion.unary"(%neg) {kind = "relu"} : (tensor<1024xi32>) -> tensor<1024xi32>
  %max = "fusion.binary"(%relu, %abs) {kind = "maximum"} : (tensor<1024xi32>, tensor<1024xi32>) -> tensor<1024xi32>
  %cl = "fusion.unary"(%max) {kind = "clamp", min = -100 : i64, max = 100 : i64} : (tensor<1024xi32>) -> tensor<1024xi32>
  %sg = "fusion.unary"(%j) {kind = "sign"} : (tensor<1024xi32>) -> tensor<1024xi32>
  %mul = "fusion.binary"(%cl, %sg) {kind = "mul"} : (tensor<1024xi32>, tensor<1024xi32>) -> tensor<1024xi32>
  %sub = "fusion.binary"(%mul, %j) {kind = "sub"} : (tensor<1024xi32>, tensor<1024xi32>) -> tensor<1024xi32>
  %min = "fusion.binary"(%sub, %j) {kind = "minimum"} : (tensor<1024xi32>, tensor<1024xi32>) -> tensor<1024xi32>
  %lt = "fusion.binary"(%min, %j) {kind = "lt"} : (tensor<1024xi32>, tensor<1024xi32>) -> tensor<1024xi1>
  %ge = "fusion.binary"(%b, %lt) {kind = "ge"} : (tensor<1024xi1>, tensor<1024xi1>) -> tensor<1024xi1>
  %nan = "fusion.unary"(%x) {kind = "isnan"} : (tensor<1024xf32>) -> tensor<1024xi1>
  %inf = "fusion.unary"(%x) {kind = "isinf"} : (tensor<1024xf32>) -> tensor<1024xi1>
  %or = "fusion.binary"(%nan, %inf) {kind = "logical_or"} : (tensor<1024xi1>, tensor<1024xi1>) -> tensor<1024xi1>
  %not = "fusion.unary"(%or) {kind = "logical_not"} : (tensor<1024xi1>) -> tensor<1024xi1>
  %and = "fusion.binary"(%not, %ge) {kind = "logical_and"} : (tensor<1024xi1>, tensor<1024xi1>) -> tensor<1024xi1>
  %eq = "fusion.binary"(%x, %x) {kind = "eq"} : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xi1>
  %ne = "fusion.binary"(%and, %eq) {kind = "ne"} : (tensor<1024xi1>, tensor<1024xi1>) -> tensor<1024xi1>
  %truncated = "fusion.cast"(%x) : (tensor<1024xf32>) -> tensor<1024xi32>
  %back = "fusion.cast"(%truncated) : (tensor<1024xi32>) -> tensor<1024xf32>
  %flag = "fusion.cast"(%ne) : (tensor<1024xi1>) -> tensor<1024xf32>
  %gt = "fusion.binary"(%back, %flag) {kind = "gt"} : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xi1>
  %le = "fusion.binary"(%back, %x) {kind = "le"} : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xi1>
  %z = arith.constant dense<0.000000e+00> : tensor<f32>
  %zb = "fusion.broadcast"(%z) {dims = array<i64>} : (tensor<f32>) -> tensor<1024xf32>
  %w = "fusion.ternary"(%gt, %back, %zb) {kind = "where"} : (tensor<1024xi1>, tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
  %w2 = "fusion.ternary"(%le, %ne, %gt) {kind = "where"} : (tensor<1024xi1>, tensor<1024xi1>, tensor<1024xi1>) -> tensor<1024xi1>
  return %min, %w2, %w : tensor<1024xi32>, tensor<1024xi1>, tensor<1024xf32>
}
