#pragma once

// JSON Schema's "pattern" through RE2 (linear time whatever the pattern), for the schemas
// core/json_schema.h checks: the policy format's and the MCP tools' input schemas. Here because
// language/ is the lowest floor that links RE2, and core/ has no regex engine.
//
// RE2's syntax is Perl's without backreferences or lookaround; a pattern it cannot compile
// refuses the schema that holds it. ^ and $ match only at the ends of the text, as in
// ECMA-262 without the m flag.

#include <string>

#include "core/json_schema.h"
#include "core/result.h"

namespace paddock::language {

[[nodiscard]] core::Result<core::SchemaPattern> compile_schema_pattern(const std::string& pattern);

}  // namespace paddock::language
