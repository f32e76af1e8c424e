// --verify-diagnostics fails (exit 1) when an expected error is not produced, when an error
// nobody expected appears, or when the expected text does not match; each mismatch is reported
// as an error at a line of the file, and the other chunks are still checked.
// RUN: not fuser-opt %s --split-input-file --verify-diagnostics 2>&1 >/dev/null | FileCheck %s --implicit-check-not=error:

// Expected but not produced: reported at the comment, naming the target line.
func.func @missing() {
  // CHECK: verify_diagnostics_failures.mlir:[[@LINE+1]]:1: error: expected error "pending must be in [0, 7]" on line [[@LINE+2]] was not produced
  // expected-error @below {{pending must be in [0, 7]}}
  "nvasync.wgmma_wait"() {pending = 3 : i32} : () -> ()
  return
}

// -----
// Produced but not expected: reported at the op.
func.func @unexpected() {
  // CHECK: verify_diagnostics_failures.mlir:[[@LINE+1]]:3: error: unexpected error: 'nvasync.wgmma_wait' op pending must be in [0, 7], got 12
  "nvasync.wgmma_wait"() {pending = 12 : i32} : () -> ()
  return
}

// -----
// Wrong text: the produced error is unexpected and the expectation unmet.
func.func @wrong_text() {
  // CHECK: verify_diagnostics_failures.mlir:[[@LINE+3]]:3: error: unexpected error: 'nvasync.bulk_wait' op pending must be in [0, 63], got 70
  // CHECK: verify_diagnostics_failures.mlir:[[@LINE+1]]:1: error: expected error "got 71" on line [[@LINE+2]] was not produced
  // expected-error @below {{got 71}}
  "nvasync.bulk_wait"() {pending = 70 : i32, read = true} : () -> ()
  return
}

// -----
// Wrong line: the error is on the op, the expectation points one line further.
func.func @wrong_line() {
  // CHECK: verify_diagnostics_failures.mlir:[[@LINE+3]]:3: error: unexpected error: {{.*}}got 13
  // CHECK: verify_diagnostics_failures.mlir:[[@LINE+1]]:1: error: expected error "got 13" on line [[@LINE+4]] was not produced
  // expected-error @+3 {{got 13}}
  "nvasync.wgmma_wait"() {pending = 13 : i32} : () -> ()
  return
}

// -----
// A chunk that matches its expectations reports nothing.
func.func @matching() {
  // expected-error @below {{got 14}}
  "nvasync.wgmma_wait"() {pending = 14 : i32} : () -> ()
  return
}
