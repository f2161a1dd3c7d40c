; CUDA additions to cpp/definitions.scm: `__global__` functions are device kernels.
(function_definition
  "__global__") @definition.kernel
