; The names each scope binds, for the value-flow facts (parsers/python_flow.py): one pass in C
; in place of a walk of every scope's body in Python. The parser gives each capture to the
; innermost scope whose range holds it: a def's or class's body, a lambda's body, a
; comprehension (whose names are its own). A def's or class's name lies outside its body,
; so it is bound in the scope around the definition, as Python binds it.

(function_definition name: (identifier) @binding.name body: (_) @binding.scope)
(class_definition name: (identifier) @binding.name body: (_) @binding.scope)
(lambda body: (_) @binding.scope)
(list_comprehension) @binding.comprehension
(set_comprehension) @binding.comprehension
(dictionary_comprehension) @binding.comprehension
(generator_expression) @binding.comprehension

; targets: the parser reads the plain names out of each (`a, (b, *c)`), not `x.y` or `x[0]`
(assignment left: (_) @binding.target)
(augmented_assignment left: (_) @binding.target)
(for_statement left: (_) @binding.target)
(as_pattern alias: (_) @binding.target)
(named_expression name: (identifier) @binding.name)
(import_statement) @binding.import
(import_from_statement) @binding.import

(global_statement (identifier) @binding.free)
(nonlocal_statement (identifier) @binding.free)
