#include "language/schema_words.h"

namespace paddock::language {
namespace {

using nlohmann::json;
using Kind = core::SchemaProblem::Kind;

// A value as an error shows it, on one line: a string between single quotes, its control
// characters escaped; anything else as JSON.
std::string shown(const json& value) {
  std::string text = value.dump(-1, ' ', false, json::error_handler_t::replace);
  if (!value.is_string()) return text;
  return "'" + text.substr(1, text.size() - 2) + "'";
}

std::string with_article(const std::string& type) {
  if (type == "array") return "a list";
  return (type.find_first_of("aeiou") == 0 ? "an " : "a ") + type;
}

std::string type_wanted(const json& schema) {
  const json& type = schema["type"];
  json names = json::array();
  for (const json& name : type.is_array() ? type : json::array({type})) {
    names.push_back(with_article(name.get<std::string>()));
  }
  std::string wanted = schema_alternatives(names);
  auto items = schema.find("items");
  if (wanted == "a list" && items != schema.end() && items->is_object() &&
      items->value("type", "") == "string") {
    return "a list of strings";
  }
  return wanted;
}

std::string at_least(const json& schema, const char* keyword, const std::string& unit) {
  return schema[keyword] == 1 ? "must not be empty"
                              : "must be at least " + schema[keyword].dump() + " " + unit;
}

}  // namespace

std::string schema_alternatives(const json& values) {
  std::string text;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i > 0) text += i + 1 == values.size() ? " or " : ", ";
    text += values[i].is_string() ? values[i].get<std::string>() : values[i].dump();
  }
  return text;
}

std::string schema_value_problem(const core::SchemaProblem& problem) {
  const json& schema = *problem.schema;
  const json& value = *problem.value;
  switch (problem.kind) {
    case Kind::kType:
      return "must be " + type_wanted(schema);
    case Kind::kEnum:
      return shown(value) + " is not valid; use " +
             schema_alternatives(schema.contains("enum") ? schema["enum"]
                                                         : json::array({schema["const"]}));
    case Kind::kMinimum:
      return "must be at least " + schema["minimum"].dump();
    case Kind::kMaximum:
      return "must be at most " + schema["maximum"].dump();
    case Kind::kExclusiveMinimum:
      return "must be above " + schema["exclusiveMinimum"].dump();
    case Kind::kExclusiveMaximum:
      return "must be below " + schema["exclusiveMaximum"].dump();
    case Kind::kMinLength:
      return at_least(schema, "minLength", "characters");
    case Kind::kMaxLength:
      return "must be at most " + schema["maxLength"].dump() + " characters";
    case Kind::kMinItems:
      return at_least(schema, "minItems", "items");
    case Kind::kMaxItems:
      return "must have at most " + schema["maxItems"].dump() + " items";
    case Kind::kPattern:
    case Kind::kAnyOf:
      // A schema's description says what is wanted better than a pattern does.
      if (auto description = schema.find("description");
          description != schema.end() && description->is_string()) {
        return shown(value) + " is not valid: " + description->get<std::string>();
      }
      if (problem.kind == Kind::kPattern) {
        return shown(value) + " must match " + schema["pattern"].get<std::string>();
      }
      return shown(value) + " is not valid";
    case Kind::kRequired:
    case Kind::kUnknown:
    case Kind::kPropertyName:
      break;
  }
  return "is not valid";
}

}  // namespace paddock::language
