#include "language/policy_schema.h"

#include "core/json_schema.h"
#include "language/builtin_policies.h"
#include "language/schema_pattern.h"

namespace paddock::language {
namespace {

using nlohmann::json;
using Kind = core::SchemaProblem::Kind;

// Compiled once per process. A schema that does not compile (a keyword the checker does not
// implement) refuses every policy, rather than letting through what it would have refused.
const core::Result<core::JsonSchema>& policy_schema() {
  static const core::Result<core::JsonSchema> kSchema =
      core::JsonSchema::compile(json::parse(builtin_policy_schema()), compile_schema_pattern);
  return kSchema;
}

// "/network/allow/1": a JSON pointer, as every other policy error names its place.
std::string pointer_of(const std::vector<core::SchemaStep>& path) {
  std::string pointer;
  for (const core::SchemaStep& step : path) {
    pointer += "/" + (step.index ? std::to_string(*step.index) : step.key);
  }
  return pointer;
}

// "a, b or c".
std::string alternatives(const json& values) {
  std::string text;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i > 0) text += i + 1 == values.size() ? " or " : ", ";
    text += values[i].is_string() ? values[i].get<std::string>() : values[i].dump();
  }
  return text;
}

std::string type_wanted(const json& schema) {
  const json& type = schema["type"];
  std::string name = type.is_string() ? type.get<std::string>() : alternatives(type);
  if (name == "array") {
    auto items = schema.find("items");
    bool strings =
        items != schema.end() && items->is_object() && items->value("type", "") == "string";
    return strings ? "a list of strings" : "a list";
  }
  return (name.find_first_of("aeiou") == 0 ? "an " : "a ") + name;
}

// Worded as the parser's own errors are: "is missing", "must be a string", "'x' is not valid; use
// a or b".
std::string describe(const core::SchemaProblem& problem) {
  const json& schema = *problem.schema;
  const json& value = *problem.value;
  switch (problem.kind) {
    case Kind::kType:
      return "must be " + type_wanted(schema);
    case Kind::kEnum: {
      json allowed = schema.contains("enum") ? schema["enum"] : json::array({schema["const"]});
      if (!value.is_string()) return "must be one of " + alternatives(allowed);
      return "'" + value.get<std::string>() + "' is not valid; use " + alternatives(allowed);
    }
    case Kind::kMinimum:
      return "must be at least " + schema["minimum"].dump();
    case Kind::kMaximum:
      return "must be at most " + schema["maximum"].dump();
    case Kind::kExclusiveMinimum:
      return "must be above " + schema["exclusiveMinimum"].dump();
    case Kind::kExclusiveMaximum:
      return "must be below " + schema["exclusiveMaximum"].dump();
    case Kind::kMinLength:
      return schema["minLength"] == 1
                 ? "must not be empty"
                 : "must be at least " + schema["minLength"].dump() + " characters";
    case Kind::kMaxLength:
      return "must be at most " + schema["maxLength"].dump() + " characters";
    case Kind::kPattern:
      return "'" + value.get<std::string>() + "' must match " +
             schema["pattern"].get<std::string>();
    case Kind::kMinItems:
      return schema["minItems"] == 1 ? "must not be empty"
                                     : "must have at least " + schema["minItems"].dump() + " items";
    case Kind::kMaxItems:
      return "must have at most " + schema["maxItems"].dump() + " items";
    case Kind::kAnyOf: {
      std::string what = value.dump() + " is not valid";
      if (auto description = schema.find("description");
          description != schema.end() && description->is_string()) {
        what += ": " + description->get<std::string>();
      }
      return what;
    }
    case Kind::kRequired:
      return "is missing";
    case Kind::kUnknown: {
      if (problem.path.empty()) return "is not a known policy field";
      std::string known;
      const json properties = schema.value("properties", json::object());
      for (const auto& [name, unused] : properties.items()) {
        known += (known.empty() ? "" : ", ") + name;
      }
      return "is not a known field (" + known + ")";
    }
    case Kind::kPropertyName: {
      const json& names = schema["propertyNames"];
      return "is not a valid name" +
             (names.contains("pattern")
                  ? " (it must match " + names["pattern"].get<std::string>() + ")"
                  : std::string());
    }
  }
  return "is not valid";
}

}  // namespace

std::optional<std::string> policy_schema_problem(const json& document) {
  const core::Result<core::JsonSchema>& schema = policy_schema();
  if (!schema) return "the policy schema (policies/schema.json): " + schema.error().message;
  auto problem = schema->check(document);
  if (!problem) return std::nullopt;
  std::string pointer = pointer_of(problem->path);
  bool names_a_member = problem->kind == Kind::kRequired || problem->kind == Kind::kUnknown ||
                        problem->kind == Kind::kPropertyName;
  if (names_a_member) pointer += "/" + problem->name;
  return pointer + ": " + describe(*problem);
}

}  // namespace paddock::language
