; Call sites. @callee is the called expression (its start is the call's start);
; @name_argument marks a plain or dotted name passed as an argument, keyword values included.
(call
  function: (_) @callee)

(argument_list
  [(identifier) (attribute)] @name_argument)

(argument_list
  (keyword_argument
    value: [(identifier) (attribute)] @name_argument))

; A decorator without arguments is a call of the decorator on the definition below it.
; (`@foo(x)` is already a call node.)
(decorator
  [(identifier) (attribute)] @decorator_callee)
