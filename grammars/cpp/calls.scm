; Call sites. @callee is the called expression (its start is the call's start);
; @name_argument marks a plain name passed as an argument (a function handed to another).
(call_expression
  function: (_) @callee)

(argument_list
  [(identifier) (qualified_identifier)] @name_argument)

(argument_list
  (pointer_expression
    argument: [(identifier) (qualified_identifier)] @name_argument))

; `collective(t, t, [&](at::Tensor& in, ...) {...}, ...)`: a lambda handed to a function, which
; calls it (the parser makes it a definition of its own unless the callee is a macro).
(argument_list
  (lambda_expression) @lambda_argument)

; `gpu_reduce_kernel(iter, SumOps<float>{})`: a functor made in place and handed over; the
; callee calls its members (`ops.combine(a, b)`).
(argument_list
  (compound_literal_expression
    type: [(type_identifier) (template_type) (qualified_identifier)] @functor_argument))

; `const Device placed(DeviceType::CUDA, c10::cuda::current_device());` inside a function:
; the grammar reads the declaration as a function declarator (C++'s most vexing parse), and
; a call among its arguments as a parameter of function type. Such a parameter with a
; qualified or plain type name and an empty abstract declarator is a call in a constructor's
; arguments.
(compound_statement
  (declaration
    declarator: (function_declarator
      parameters: (parameter_list
        (parameter_declaration
          type: [(qualified_identifier) (type_identifier)] @callee
          declarator: (abstract_function_declarator))))))

; `gemm_internal<float>(CUDABLAS_GEMM_ARGS(float));` inside a function: the grammar reads a
; template name followed by a parenthesised argument as a declaration of a variable of that
; template type. A statement cannot usefully declare that, so it is a call. The declaration
; may sit in a function body or in a branch of a preprocessor conditional there, so any parent
; is matched: @statement_callee is kept only inside a function (the parser checks).
(declaration
  type: [(template_type)
         (qualified_identifier name: (template_type))
         (qualified_identifier name: (qualified_identifier name: (template_type)))
         (qualified_identifier name: (qualified_identifier name: (qualified_identifier name: (template_type))))] @statement_callee
  declarator: (parenthesized_declarator))

; Names a function declares (locals, parameters, loop and structured-binding variables) and
; fields a class declares: a name passed as an argument that is one of these is a value, not
; a function pointer (`tanh(inner)` with `auto inner = ...` in scope).
(init_declarator
  declarator: [(identifier) @local
               (reference_declarator (identifier) @local)
               (pointer_declarator declarator: (identifier) @local)])

(declaration
  declarator: [(identifier) @local
               (reference_declarator (identifier) @local)
               (pointer_declarator declarator: (identifier) @local)])

(parameter_declaration
  declarator: [(identifier) @local
               (reference_declarator (identifier) @local)
               (pointer_declarator declarator: (identifier) @local)])

(optional_parameter_declaration
  declarator: [(identifier) @local
               (reference_declarator (identifier) @local)])

(for_range_loop
  declarator: [(identifier) @local
               (reference_declarator (identifier) @local)
               (structured_binding_declarator (identifier) @local)])

(structured_binding_declarator (identifier) @local)

(field_declaration
  declarator: [(field_identifier) @member
               (reference_declarator (field_identifier) @member)
               (pointer_declarator declarator: (field_identifier) @member)])
