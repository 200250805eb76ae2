#include "mcp/argument_check.h"

namespace paddock::mcp {
namespace {

bool has_type(const json& value, const std::string& type) {
  if (type == "string") return value.is_string();
  if (type == "integer") return value.is_number_integer();
  if (type == "number") return value.is_number();
  if (type == "boolean") return value.is_boolean();
  if (type == "array") return value.is_array();
  if (type == "object") return value.is_object();
  if (type == "null") return value.is_null();
  return true;
}

std::optional<std::string> check(const json& value, const json& schema, const std::string& path) {
  const std::string where = path.empty() ? "the arguments" : "'" + path + "'";
  if (auto type = schema.find("type"); type != schema.end() && type->is_string()) {
    if (!has_type(value, type->get<std::string>())) {
      const std::string& name = type->get_ref<const std::string&>();
      bool vowel = name.find_first_of("aeiou") == 0;
      return where + " must be " + (vowel ? "an " : "a ") + name;
    }
  }
  if (auto allowed = schema.find("enum"); allowed != schema.end()) {
    if (std::find(allowed->begin(), allowed->end(), value) == allowed->end()) {
      return where + " must be one of " + allowed->dump();
    }
  }
  if (value.is_number()) {
    if (auto low = schema.find("minimum"); low != schema.end() && value.get<double>() < *low) {
      return where + " must be at least " + low->dump();
    }
    if (auto high = schema.find("maximum"); high != schema.end() && value.get<double>() > *high) {
      return where + " must be at most " + high->dump();
    }
    if (auto low = schema.find("exclusiveMinimum");
        low != schema.end() && value.get<double>() <= *low) {
      return where + " must be more than " + low->dump();
    }
  }
  if (value.is_string()) {
    if (auto most = schema.find("maxLength");
        most != schema.end() && value.get_ref<const std::string&>().size() > *most) {
      return where + " is longer than " + most->dump() + " bytes";
    }
  }
  if (value.is_array()) {
    if (auto most = schema.find("maxItems"); most != schema.end() && value.size() > *most) {
      return where + " has more than " + most->dump() + " items";
    }
    if (auto items = schema.find("items"); items != schema.end()) {
      for (std::size_t i = 0; i < value.size(); ++i) {
        if (auto problem = check(value[i], *items, path + "[" + std::to_string(i) + "]")) {
          return problem;
        }
      }
    }
  }
  if (value.is_object()) {
    const json properties = schema.value("properties", json::object());
    for (const auto& name : schema.value("required", json::array())) {
      if (!value.contains(name.get<std::string>())) {
        return (path.empty() ? "" : where + ": ") + "'" + name.get<std::string>() + "' is required";
      }
    }
    for (const auto& [name, item] : value.items()) {
      std::string item_path = path.empty() ? name : path + "." + name;
      auto declared = properties.find(name);
      if (declared == properties.end()) {
        if (schema.value("additionalProperties", true) == false) {
          return "unknown argument '" + item_path + "'; the arguments are " + [&] {
            std::string names;
            for (const auto& [known, unused] : properties.items()) {
              names += (names.empty() ? "" : ", ") + known;
            }
            return names;
          }();
        }
        continue;
      }
      if (auto problem = check(item, *declared, item_path)) return problem;
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> check_arguments(const json& value, const json& schema) {
  return check(value, schema, "");
}

}  // namespace paddock::mcp
