#include "language/policy_schema.h"

#include "core/json_schema.h"
#include "language/builtin_policies.h"
#include "language/schema_pattern.h"
#include "language/schema_words.h"

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

// Worded as the parser's own errors are: "is missing", "must be a string", "'x' is not valid; use
// a or b".
std::string describe(const core::SchemaProblem& problem) {
  const json& schema = *problem.schema;
  switch (problem.kind) {
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
    default:
      return schema_value_problem(problem);
  }
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
