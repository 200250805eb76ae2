#include "mcp/argument_check.h"

#include "language/schema_pattern.h"

namespace paddock::mcp {
namespace {

// "files[0].path", as a model reads its own arguments.
std::string path_text(const std::vector<core::SchemaStep>& path) {
  std::string text;
  for (const core::SchemaStep& step : path) {
    if (step.index) {
      text += "[" + std::to_string(*step.index) + "]";
    } else {
      text += (text.empty() ? "" : ".") + step.key;
    }
  }
  return text;
}

std::string describe(const core::SchemaProblem& problem) {
  using Kind = core::SchemaProblem::Kind;
  const json& schema = *problem.schema;
  std::string path = path_text(problem.path);
  const std::string where = path.empty() ? "the arguments" : "'" + path + "'";
  switch (problem.kind) {
    case Kind::kType: {
      std::string name =
          schema["type"].is_string() ? schema["type"].get<std::string>() : schema["type"].dump();
      bool vowel = name.find_first_of("aeiou") == 0;
      return where + " must be " + (vowel ? "an " : "a ") + name;
    }
    case Kind::kEnum:
      return where + " must be one of " +
             (schema.contains("enum") ? schema["enum"] : json::array({schema["const"]})).dump();
    case Kind::kMinimum:
      return where + " must be at least " + schema["minimum"].dump();
    case Kind::kMaximum:
      return where + " must be at most " + schema["maximum"].dump();
    case Kind::kExclusiveMinimum:
      return where + " must be more than " + schema["exclusiveMinimum"].dump();
    case Kind::kExclusiveMaximum:
      return where + " must be less than " + schema["exclusiveMaximum"].dump();
    case Kind::kMinLength:
      return where + " is shorter than " + schema["minLength"].dump() + " characters";
    case Kind::kMaxLength:
      return where + " is longer than " + schema["maxLength"].dump() + " characters";
    case Kind::kPattern:
      return where + " must match " + schema["pattern"].dump();
    case Kind::kMinItems:
      return where + " has fewer than " + schema["minItems"].dump() + " items";
    case Kind::kMaxItems:
      return where + " has more than " + schema["maxItems"].dump() + " items";
    case Kind::kAnyOf:
      return where + " is none of the forms it may take";
    case Kind::kRequired:
      return (path.empty() ? "" : where + ": ") + "'" + problem.name + "' is required";
    case Kind::kPropertyName:
      return "'" + problem.name + "' is not a valid name in " + where;
    case Kind::kUnknown: {
      std::string names;
      const json properties = schema.value("properties", json::object());
      for (const auto& [known, unused] : properties.items()) {
        names += (names.empty() ? "" : ", ") + known;
      }
      return "unknown argument '" + (path.empty() ? "" : path + ".") + problem.name +
             "'; the arguments are " + names;
    }
  }
  return where + " is not valid";
}

}  // namespace

core::Result<core::JsonSchema> compile_input_schema(const json& schema) {
  return core::JsonSchema::compile(schema, language::compile_schema_pattern);
}

std::optional<std::string> check_arguments(const json& value, const core::JsonSchema& schema) {
  auto problem = schema.check(value);
  if (!problem) return std::nullopt;
  return describe(*problem);
}

}  // namespace paddock::mcp
