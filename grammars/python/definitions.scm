; Definitions in Python source.
; Contract: @definition.<kind> marks the whole definition node; the parser reads its `name`
; field, and decides its scope (module, class or function body) from the node's ancestors.
; Captures are kept to the outer nodes, and patterns flat: on a 4,000-file tree every capture
; and every alternation costs (one alternation of nested patterns here doubled the query time).

(class_definition) @definition.class

(function_definition) @definition.function

; `name = value` and `name: T = value` at module level and in class bodies; also in if / try /
; with blocks, where the parser keeps only those outside functions (a top-level
; `if TYPE_CHECKING:` or `try: import x except ImportError:` defines module names too).
; The right-hand side decides between an alias and a plain variable.
(module (expression_statement (assignment) @definition.assignment))
(class_definition body: (block (expression_statement (assignment) @definition.assignment)))
(if_statement consequence: (block (expression_statement (assignment) @definition.assignment)))
(elif_clause consequence: (block (expression_statement (assignment) @definition.assignment)))
(else_clause body: (block (expression_statement (assignment) @definition.assignment)))
(try_statement body: (block (expression_statement (assignment) @definition.assignment)))
(except_clause (block (expression_statement (assignment) @definition.assignment)))
(with_statement body: (block (expression_statement (assignment) @definition.assignment)))
