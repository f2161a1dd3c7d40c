; Definitions in Python source.
; Contract: @definition.<kind> marks the whole definition node; the parser reads its `name`
; field, and decides its scope (module, class or function body) from the node's ancestors.
; Captures are kept to the outer nodes: every capture costs time on a 4,000-file tree.

(class_definition) @definition.class

(function_definition) @definition.function

; `name = value` and `name: T = value` at module level (also inside a top-level if / try /
; with block) and in class bodies; locals of functions are not symbols. The right-hand side
; decides between an alias and a plain variable.
(module
  (expression_statement (assignment) @definition.assignment))

(module
  [(if_statement (block (expression_statement (assignment) @definition.assignment)))
   (if_statement (elif_clause (block (expression_statement (assignment) @definition.assignment))))
   (if_statement (else_clause (block (expression_statement (assignment) @definition.assignment))))
   (try_statement (block (expression_statement (assignment) @definition.assignment)))
   (try_statement (except_clause (block (expression_statement (assignment) @definition.assignment))))
   (try_statement (else_clause (block (expression_statement (assignment) @definition.assignment))))
   (with_statement (block (expression_statement (assignment) @definition.assignment)))])

(class_definition
  body: (block (expression_statement (assignment) @definition.assignment)))
