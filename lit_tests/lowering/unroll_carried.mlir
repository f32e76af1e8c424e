// fuser-unroll-loops unrolls a loop marked fuser.unroll that carries values: each iteration's
// clone takes the previous one's yielded value with the induction variable a constant (which
// canonicalization then folds into static vector positions), the loop's result becomes the last
// one.  Unmarked loops stay.
// RUN: fuser-opt %s -p fuser-unroll-loops | FileCheck %s

// CHECK-LABEL: func.func @fill(
// CHECK-NOT: scf.for
// CHECK: %[[Z:.*]] = arith.constant dense<0.000000e+00> : vector<3xf32>
// CHECK-NEXT: %[[I0:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[V0:.*]] = vector.insert %arg0, %[[Z]] [%[[I0]]] : f32 into vector<3xf32>
// CHECK-NEXT: %[[I1:.*]] = arith.constant 1 : index
// CHECK-NEXT: %[[V1:.*]] = vector.insert %arg0, %[[V0]] [%[[I1]]] : f32 into vector<3xf32>
// CHECK-NEXT: %[[I2:.*]] = arith.constant 2 : index
// CHECK-NEXT: %[[V2:.*]] = vector.insert %arg0, %[[V1]] [%[[I2]]] : f32 into vector<3xf32>
// CHECK-NEXT: return %[[V2]]
// CHECK-LABEL: func.func @unmarked(
// CHECK: scf.for
func.func @fill(%x: f32) -> vector<3xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %z = arith.constant dense<0.0> : vector<3xf32>
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%v = %z) -> vector<3xf32> {
    %w = vector.insert %x, %v [%i] : f32 into vector<3xf32>
    scf.yield %w : vector<3xf32>
  } {fuser.unroll}
  return %r : vector<3xf32>
}
func.func @unmarked(%x: f32, %n: index) -> vector<3xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant dense<0.0> : vector<3xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%v = %z) -> vector<3xf32> {
    %w = vector.insert %x, %v [%i] : f32 into vector<3xf32>
    scf.yield %w : vector<3xf32>
  }
  return %r : vector<3xf32>
}
