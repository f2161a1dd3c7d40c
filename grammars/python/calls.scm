; Call sites: @callee is the called expression (its start is the call's start).
; Arguments are left to the precise per-file analysis (libcst, on demand): this fast pass
; reads every file of a large tree, and capturing arguments here doubled its cost.
(call
  function: (_) @callee)

; A decorator without arguments is a call of the decorator on the definition below it.
; (`@foo(x)` is already a call node.)
(decorator
  [(identifier) (attribute)] @decorator_callee)
