#pragma once

// Checks a JSON value against the subset of JSON Schema (draft 2020-12) that paddock's own
// schemas use: the language policy format (policies/schema.json) and the MCP tools' input
// schemas. Keywords: $ref (within the schema, "#/..."), $defs, anyOf, type, enum, const, minimum,
// maximum, exclusiveMinimum, exclusiveMaximum, minLength, maxLength, pattern, minItems, maxItems,
// prefixItems, items, required, properties, additionalProperties and propertyNames, and the
// annotations that say nothing about a value (description, title, default...). Lengths count
// characters (code points), as the standard and every other validator do.
//
// A schema is compiled before it checks anything, and compiling refuses any other keyword: a
// checker that skipped `oneOf` or `format` would pass values the schema refuses, and the client
// reading the same schema would expect otherwise.
//
// The first problem comes back as data, not text, so that each caller words it its own way
// (mcp/argument_check.cc, language/policy_schema.cc) and keeps the messages its users know.

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/result.h"

namespace paddock::core {

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

// One compiled "pattern": whether `text` matches it somewhere (JSON Schema's "pattern" is not
// anchored).
using SchemaPattern = std::function<bool(const std::string& text)>;
// Compiles a "pattern", or says why it cannot. core has no regex engine of its own: a caller
// whose schemas use "pattern" passes one (language/schema_pattern.h has RE2's); without one, a
// schema with a "pattern" does not compile.
using SchemaPatternCompiler = std::function<Result<SchemaPattern>(const std::string& pattern)>;

class JsonSchema {
 public:
  // `schema`, ready to check values; or an error naming the first keyword it cannot check and the
  // JSON pointer of the (sub)schema that has it: a keyword this checker does not implement, a
  // keyword's value of the wrong kind, a "$ref" that points nowhere, or a "pattern" that does not
  // compile (or comes without a compiler).
  static Result<JsonSchema> compile(nlohmann::json schema,
                                    const SchemaPatternCompiler& patterns = nullptr);

  // The first problem of `value`, or nothing. The problem points into this schema: it lives as
  // long as the schema (or a copy of it) does.
  [[nodiscard]] std::optional<SchemaProblem> check(const nlohmann::json& value) const;

  [[nodiscard]] const nlohmann::json& document() const { return compiled_->document; }

 private:
  struct Compiled {
    nlohmann::json document;
    std::map<std::string, SchemaPattern> patterns;  // by their text
  };
  explicit JsonSchema(std::shared_ptr<const Compiled> compiled) : compiled_(std::move(compiled)) {}

  // Shared: a copy checks the same way, and problems keep pointing into the one document.
  std::shared_ptr<const Compiled> compiled_;
};

}  // namespace paddock::core
