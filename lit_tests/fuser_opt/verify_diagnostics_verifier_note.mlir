// BUG: under --verify-diagnostics, an error from MLIR's own verifier (here an IRDL constraint of
// an nvasync op) carries the note "see current operation: <op>", and fuser-opt reports that note
// as "unexpected note" (tools/fuser_opt.py: verify_diagnostics flattens every note).  mlir-opt
// turns the note off in this mode (printOpOnDiagnostic(false) under --verify-diagnostics), so an
// mlir-opt style test -- one expected-error per error -- fails here.  Expected: these
// expectations suffice and fuser-opt exits 0.
// RUN: fuser-opt %s --split-input-file --verify-diagnostics

func.func @wrong_attribute_kind() {
  // expected-error @below {{expected base attribute 'builtin.integer' but got 'builtin.string'}}
  "nvasync.bulk_wait"() {pending = "zero", read = true} : () -> ()
  return
}

// -----
func.func @missing_operand(%d: !llvm.ptr) {
  %b = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<64xf32, #gpu.address_space<workgroup>>
  // expected-error @below {{expects at least 2 operands, but got 1}}
  "nvasync.tma_store"(%b) : (memref<64xf32, #gpu.address_space<workgroup>>) -> ()
  return
}

// -----
func.func @missing_attribute() {
  // expected-error @below {{'nvasync.bulk_wait' op attribute "read" is expected but not provided}}
  "nvasync.bulk_wait"() {pending = 0 : i32} : () -> ()
  return
}
