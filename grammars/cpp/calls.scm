; Call sites. The parser reads the call's `function` and `arguments` fields.
(call_expression) @reference.call
