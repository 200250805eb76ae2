#include "config/server_profile_schema.h"

#include "config/builtin_server_profiles.h"
#include "core/json_schema.h"
#include "language/schema_pattern.h"
#include "language/schema_words.h"

namespace paddock::config {
namespace {

using nlohmann::json;
using Kind = core::SchemaProblem::Kind;

// Compiled once per process. A schema that does not compile refuses every profile, rather than
// letting through what it would have refused.
const core::Result<core::JsonSchema>& profile_schema() {
  static const core::Result<core::JsonSchema> kSchema = core::JsonSchema::compile(
      json::parse(builtin_server_profile_schema()), language::compile_schema_pattern);
  return kSchema;
}

// A value as JSON text on one line (a string's control characters escaped).
std::string shown(const json& value) {
  return value.dump(-1, ' ', false, json::error_handler_t::replace);
}

// A name between quotes, its control characters escaped: an error stays one line.
std::string quoted(const std::string& name) {
  return "'" + escaped(name) + "'";
}

std::string key_of(const std::vector<core::SchemaStep>& path) {
  std::string key;
  for (const core::SchemaStep& step : path) {
    key = step.index ? profile_item(key, *step.index) : profile_key(key, escaped(step.key));
  }
  return key;
}

std::string member_names(const json& schema) {
  std::vector<std::string> names;
  const json properties = schema.value("properties", json::object());
  for (const auto& [name, unused] : properties.items()) {
    if (name != "$schema") names.push_back(name);
  }
  std::string text;
  for (const auto& name : names) text += (text.empty() ? "" : ", ") + name;
  return text;
}

// What is wrong, worded for the key that holds it.
std::string describe(const core::SchemaProblem& problem) {
  switch (problem.kind) {
    case Kind::kRequired:
      return quoted(problem.name) + " is missing";
    case Kind::kUnknown:
      return "unknown key " + quoted(problem.name) + " (the keys are " +
             member_names(*problem.schema) + ")";
    case Kind::kPropertyName:
      return quoted(problem.name) +
             " is not a variable name (letters, digits and '_', e.g. API_KEY)";
    default:
      return language::schema_value_problem(problem);
  }
}

}  // namespace

std::string escaped(const std::string& text) {
  std::string json_text = shown(json(text));
  return json_text.substr(1, json_text.size() - 2);
}

std::string profile_key(const std::string& parent, const std::string& member) {
  return parent.empty() ? member : parent + "." + member;
}

std::string profile_item(const std::string& parent, std::size_t index) {
  return parent + "[" + std::to_string(index) + "]";
}

std::optional<std::string> server_profile_schema_problem(const json& profile) {
  const core::Result<core::JsonSchema>& schema = profile_schema();
  if (!schema)
    return "the server profile schema (policies/servers/schema.json): " + schema.error().message;
  auto problem = schema->check(profile);
  if (!problem) return std::nullopt;
  if (problem->path.empty() && problem->kind == Kind::kType) return "must be a JSON object";
  std::string key = key_of(problem->path);
  return (key.empty() ? "" : key + ": ") + describe(*problem);
}

}  // namespace paddock::config
