; Macro registrations that define or wire up kernels.

; Structured kernels: `TORCH_IMPL_FUNC(addmm_out_cuda)(...) { ... }` parses as a function whose
; declarator is itself call-shaped; the macro's parameter list holds the kernel (or op) name.
(function_definition
  declarator: (function_declarator
    declarator: (function_declarator
      declarator: (identifier) @macro))
  (#match? @macro "^TORCH_(IMPL|META|PRECOMPUTE_META)_FUNC2?$")) @registration.structured

; DispatchStub macros: DECLARE_DISPATCH(fn_type, stub), DEFINE_DISPATCH(stub),
; REGISTER_DISPATCH(stub, &kernel) and its per-backend spellings.
(call_expression
  function: (identifier) @macro
  (#match? @macro "^(DECLARE|DEFINE|REGISTER|REGISTER_[A-Z0-9_]+|ALSO_REGISTER_[A-Z0-9_]+)_DISPATCH$")) @registration.dispatch

; Operator and Python registrations (parsers/cpp_bindings.py reads them): `m.def(...)` and
; `m.impl(...)` in TORCH_LIBRARY blocks, `.op(...)` on torch::RegisterOperators(), pybind11's
; `m.def(...)`, `m.def_submodule(...)` and the `.def(...)` chain of a py::class_.
(call_expression
  function: (field_expression
    field: (field_identifier) @registration.member)
  (#match? @registration.member "^(def|impl|op|def_static|def_property|def_property_readonly|def_readwrite|def_readonly|def_submodule)$")) @registration.call

; CPython method and property tables: `static PyMethodDef methods[] = {{"name", fn, METH_NOARGS, doc}, ...}`,
; `static PyGetSetDef properties[] = {{"name", getter, setter, doc, nullptr}, ...}`.
(declaration
  type: [(type_identifier) (struct_specifier)] @method_table.type
  declarator: (init_declarator
    value: (initializer_list))
  (#match? @method_table.type "(PyMethodDef|PyGetSetDef)$")) @method_table
