; Import statements. The parser reads their fields (module_name, name, alias, wildcard).
(import_statement) @import
(import_from_statement) @import.from
