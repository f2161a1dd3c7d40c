; Call sites. The parser reads the call's `function` and `arguments` fields.
(call) @reference.call

; A decorator without arguments is a call of the decorator on the definition below it.
; (`@foo(x)` is already a call node.)
(decorator
  [(identifier) (attribute)]) @reference.decorator
