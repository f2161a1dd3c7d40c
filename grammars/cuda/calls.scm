; CUDA additions to cpp/calls.scm: `kernel<<<grid, block, shmem, stream>>>(args)` launches.
(call_expression
  (kernel_call_syntax)) @reference.launch
