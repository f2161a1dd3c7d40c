; Macro registrations that define or wire up kernels.

; Structured kernels: `TORCH_IMPL_FUNC(addmm_out_cuda)(...) { ... }` parses as a function whose
; declarator is itself call-shaped; the macro's parameter list holds the kernel (or op) name.
(function_definition
  declarator: (function_declarator
    declarator: (function_declarator
      declarator: (identifier) @macro))
  (#match? @macro "^TORCH_(IMPL|META|PRECOMPUTE_META)_FUNC2?$")) @registration.structured

; DispatchStub macros: DECLARE_DISPATCH(fn_type, stub), DEFINE_DISPATCH(stub),
; REGISTER_DISPATCH(stub, &kernel) and its per-backend spellings.
(call_expression
  function: (identifier) @macro
  (#match? @macro "^(DECLARE|DEFINE|REGISTER|REGISTER_[A-Z0-9_]+|ALSO_REGISTER_[A-Z0-9_]+)_DISPATCH$")) @registration.dispatch
