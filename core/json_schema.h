#pragma once

// Checks a JSON value against the subset of JSON Schema (draft 2020-12) that paddock's own
// schemas use: the language policy format (policies/schema.json) and the MCP tools' input
// schemas. Keywords: $ref (within the schema, "#/..."), anyOf, type, enum, const, minimum,
// maximum, exclusiveMinimum, exclusiveMaximum, minLength, maxLength, pattern, minItems, maxItems,
// prefixItems, items, required, properties, additionalProperties and propertyNames; the others
// (description, title, $schema...) say nothing about a value. Lengths count bytes.
//
// The first problem comes back as data, not text, so that each caller words it its own way
// (mcp/argument_check.cc, language/policy_schema.cc) and keeps the messages its users know.

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace paddock {

// One step from a value into it: an object's member or an array's element.
struct SchemaStep {
  std::string key;                   // a member's name
  std::optional<std::size_t> index;  // or an element's index
};

struct SchemaProblem {
  enum class Kind {
    kType,              // schema["type"]
    kEnum,              // schema["enum"] or schema["const"]
    kMinimum,           // schema["minimum"]
    kMaximum,           // schema["maximum"]
    kExclusiveMinimum,  // schema["exclusiveMinimum"]
    kExclusiveMaximum,  // schema["exclusiveMaximum"]
    kMinLength,         // schema["minLength"]
    kMaxLength,         // schema["maxLength"]
    kPattern,           // schema["pattern"]
    kMinItems,          // schema["minItems"]
    kMaxItems,          // schema["maxItems"]
    kAnyOf,             // none of schema["anyOf"] took the value
    kRequired,          // `name` is missing from the object
    kUnknown,           // `name` is not among schema["properties"] (additionalProperties false)
    kPropertyName,      // `name` does not pass schema["propertyNames"]
  };
  Kind kind;
  // From the checked value to the refused one; for kRequired, kUnknown and kPropertyName, to the
  // object that holds (or lacks) `name`.
  std::vector<SchemaStep> path;
  const nlohmann::json* schema = nullptr;  // the (sub)schema whose keyword refused, $ref followed
  const nlohmann::json* value = nullptr;   // the refused value (the object, for the three above)
  std::string name;
};

// Whether `text` matches the regular expression `pattern` somewhere in it (JSON Schema's
// "pattern" is not anchored). core has no regex engine of its own: a caller whose schemas use
// "pattern" passes one (language/ passes RE2); without it, "pattern" is not checked.
using SchemaPatternMatch = std::function<bool(const std::string& pattern, const std::string& text)>;

// The first problem of `value` against `schema`, or nothing. `schema` is also the root that
// "$ref": "#/..." pointers resolve against.
std::optional<SchemaProblem> check_against_schema(const nlohmann::json& value,
                                                  const nlohmann::json& schema,
                                                  const SchemaPatternMatch& matches = nullptr);

}  // namespace paddock
