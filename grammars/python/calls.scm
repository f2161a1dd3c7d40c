; Call sites. @callee is the called expression (its start is the call's start);
; @name_argument marks a function handed to the call: a plain name passed positionally
; (`self._apply(convert)`), or a plain or dotted name passed by keyword
; (`boolean_dispatch(if_true=max_pool2d_with_indices)`). Dotted positional arguments are
; mostly attributes (`self.stride`), and matching them costs more than they give.
(call
  function: (_) @callee)

(argument_list
  (identifier) @name_argument)

(argument_list
  (keyword_argument
    value: [(identifier) (attribute)] @name_argument))

; A decorator without arguments is a call of the decorator on the definition below it.
; (`@foo(x)` is already a call node.)
(decorator
  [(identifier) (attribute)] @decorator_callee)
