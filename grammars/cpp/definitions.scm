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

; A class's data member (`std::string name_;`, `int64_t* sizes_ = nullptr;`): what a binding's
; def_readwrite or def_readonly names (&WorkerInfo::name_). Member function declarations
; (a function declarator under the pointers) are left out by the parser.
(field_declaration_list
  (field_declaration
    declarator: [(field_identifier) (pointer_declarator) (reference_declarator) (array_declarator)]) @definition.field)

; Function bodies only: prototypes say where a function is declared, not defined.
(function_definition) @definition.function

; `void f(int) {};`: an empty body followed by `;` (as a macro that writes a function is
; usually invoked) is read by the grammar as a brace initializer of a declaration (a member's
; default value in a class). A function declarator takes no initializer: a definition.
(declaration
  declarator: (init_declarator
    declarator: (function_declarator)
    value: (initializer_list))) @definition.function
(field_declaration
  declarator: (function_declarator)
  default_value: (initializer_list)) @definition.function

; A function whose definition error recovery took apart (a preprocessor conditional inside an
; expression can turn the rest of a file into one ERROR node): its declarator is left directly
; in the ERROR node, followed by the `{` of its body. The parser finds the body's end by
; counting braces.
(ERROR (function_declarator) @definition.recovered)

; `using namespace at::native;` and `using at::cuda::blas::gemm;`: names a file's plain calls
; may be found through.
(using_declaration) @using

; `#include "X.cuh"` written inside `namespace at::native { ... }`: the header's definitions
; are in that namespace (the parser keeps the includes that are inside one).
(preproc_include) @include
