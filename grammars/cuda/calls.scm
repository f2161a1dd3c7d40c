; CUDA additions to cpp/calls.scm: `kernel<<<grid, block, shmem, stream>>>(args)` launches.
(call_expression
  function: (_) @launch_callee
  (kernel_call_syntax))

; `auto kernel = &k<T, n>;` or `void (*kernel)(float*) = &k<T>;` then `kernel<<<...>>>(...)`: a
; launch through a local names the kernel the local was initialised with.
(init_declarator
  declarator: [(identifier)
               (function_declarator
                 declarator: (parenthesized_declarator (pointer_declarator declarator: (identifier))))]
  value: [(pointer_expression) (identifier) (template_function) (qualified_identifier)]) @kernel_alias
