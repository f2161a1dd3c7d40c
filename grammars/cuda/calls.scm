; CUDA additions to cpp/calls.scm: `kernel<<<grid, block, shmem, stream>>>(args)` launches.
(call_expression
  function: (_) @launch_callee
  (kernel_call_syntax))
