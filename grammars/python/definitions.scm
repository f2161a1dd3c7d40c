; Definitions in Python source.
; Contract: @definition.<kind> marks the whole definition node; the parser reads its `name`
; field, and decides its scope (module, class or function body) from the node's ancestors.
; Captures are kept to the outer nodes: every capture costs time on a 4,000-file tree.

(class_definition) @definition.class

(function_definition) @definition.function

; `name = value` and `name: T = value`. Only module- and class-level ones become symbols;
; the right-hand side decides between an alias and a plain variable.
(expression_statement
  (assignment) @definition.assignment)
