; Call sites. @callee is the called expression (its start is the call's start);
; @name_argument marks a plain name passed as an argument (a function handed to another).
(call_expression
  function: (_) @callee)

(argument_list
  [(identifier) (qualified_identifier)] @name_argument)

(argument_list
  (pointer_expression
    argument: [(identifier) (qualified_identifier)] @name_argument))
