; Definitions in C++ source (also used for CUDA, whose grammar extends C++).
; Contract: @definition.<kind> marks the whole node; the parser reads its `name` or
; `declarator` field. Qualified names come from enclosing namespaces and classes.

(namespace_definition) @definition.namespace

(class_specifier
  body: (field_declaration_list)) @definition.class

(struct_specifier
  body: (field_declaration_list)) @definition.struct

(enum_specifier
  body: (enumerator_list)) @definition.enum

; Function bodies only: prototypes say where a function is declared, not defined.
(function_definition) @definition.function
