// BUG: fuser-verify-dialects' warp_role check ("a role that runs warpgroup ops (wgmma,
// setmaxnreg) must cover whole warpgroups") only looks at the operations directly in the role's
// body (dialects/nvasync.py, _check_warp_role iterates blocks[0].operations).  A warpgroup op
// nested in scf.if / scf.for inside the role -- the usual shape of a wgmma main loop -- is not
// seen, so a role of warps [2, 6) running wgmma in a loop is accepted.  Expected: the same error
// as for a top-level warpgroup op.
// RUN: fuser-opt %s --split-input-file --verify-diagnostics

func.func @wgmma_wait_in_loop() {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  // expected-error @below {{a role that runs warpgroup ops (wgmma, setmaxnreg) must cover whole warpgroups, got warps [2, 6)}}
  "nvasync.warp_role"() ({
    scf.for %i = %c0 to %c4 step %c1 {
      "nvasync.wgmma_fence"() : () -> ()
      "nvasync.wgmma_commit"() : () -> ()
      "nvasync.wgmma_wait"() {pending = 0 : i32} : () -> ()
    }
    gpu.yield
  }) {first_warp = 2 : i32, num_warps = 4 : i32} : () -> ()
  return
}

// -----
func.func @setmaxnreg_under_if(%cond: i1) {
  // expected-error @below {{must cover whole warpgroups, got warps [1, 3)}}
  "nvasync.warp_role"() ({
    scf.if %cond {
      "nvasync.setmaxnreg"() {regs = 232 : i32, action = "inc"} : () -> ()
    }
    gpu.yield
  }) {first_warp = 1 : i32, num_warps = 2 : i32} : () -> ()
  return
}
