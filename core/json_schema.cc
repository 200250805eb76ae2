#include "core/json_schema.h"

#include <algorithm>

namespace paddock {
namespace {

using nlohmann::json;
using Kind = SchemaProblem::Kind;

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

class Checker {
 public:
  Checker(const json& root, const SchemaPatternMatch& matches) : root_(root), matches_(matches) {}

  std::optional<SchemaProblem> check(const json& value, const json& schema,
                                     std::vector<SchemaStep>& path) const {
    if (!schema.is_object()) return std::nullopt;  // true, or a schema paddock does not write
    auto problem = [&](Kind kind, std::string name = {}) {
      return SchemaProblem{kind, path, &schema, &value, std::move(name)};
    };
    if (auto ref = schema.find("$ref"); ref != schema.end() && ref->is_string()) {
      if (auto found = check(value, resolve(ref->get_ref<const std::string&>()), path)) {
        return found;
      }
    }
    if (auto any = schema.find("anyOf"); any != schema.end() && any->is_array()) {
      bool taken = std::any_of(any->begin(), any->end(), [&](const json& option) {
        std::vector<SchemaStep> inner = path;
        return !check(value, option, inner);
      });
      if (!taken) return problem(Kind::kAnyOf);
    }
    if (auto type = schema.find("type"); type != schema.end()) {
      bool typed = type->is_string()
                       ? has_type(value, type->get<std::string>())
                       : std::any_of(type->begin(), type->end(), [&](const json& t) {
                           return t.is_string() && has_type(value, t.get<std::string>());
                         });
      if (!typed) return problem(Kind::kType);
    }
    if (auto allowed = schema.find("enum"); allowed != schema.end() && allowed->is_array()) {
      if (std::find(allowed->begin(), allowed->end(), value) == allowed->end()) {
        return problem(Kind::kEnum);
      }
    }
    if (auto only = schema.find("const"); only != schema.end() && value != *only) {
      return problem(Kind::kEnum);
    }
    if (value.is_number()) {
      double number = value.get<double>();
      if (auto low = schema.find("minimum"); low != schema.end() && number < *low) {
        return problem(Kind::kMinimum);
      }
      if (auto high = schema.find("maximum"); high != schema.end() && number > *high) {
        return problem(Kind::kMaximum);
      }
      if (auto low = schema.find("exclusiveMinimum"); low != schema.end() && number <= *low) {
        return problem(Kind::kExclusiveMinimum);
      }
      if (auto high = schema.find("exclusiveMaximum"); high != schema.end() && number >= *high) {
        return problem(Kind::kExclusiveMaximum);
      }
    }
    if (value.is_string()) {
      const auto& text = value.get_ref<const std::string&>();
      if (auto least = schema.find("minLength"); least != schema.end() && text.size() < *least) {
        return problem(Kind::kMinLength);
      }
      if (auto most = schema.find("maxLength"); most != schema.end() && text.size() > *most) {
        return problem(Kind::kMaxLength);
      }
      if (auto pattern = schema.find("pattern");
          pattern != schema.end() && pattern->is_string() && matches_ &&
          !matches_(pattern->get_ref<const std::string&>(), text)) {
        return problem(Kind::kPattern);
      }
    }
    if (value.is_array()) {
      if (auto least = schema.find("minItems"); least != schema.end() && value.size() < *least) {
        return problem(Kind::kMinItems);
      }
      if (auto most = schema.find("maxItems"); most != schema.end() && value.size() > *most) {
        return problem(Kind::kMaxItems);
      }
      // prefixItems takes the first elements, items the rest.
      std::size_t prefixed = 0;
      if (auto prefix = schema.find("prefixItems"); prefix != schema.end() && prefix->is_array()) {
        prefixed = std::min(prefix->size(), value.size());
        for (std::size_t i = 0; i < prefixed; ++i) {
          if (auto found = element(value[i], (*prefix)[i], path, i)) return found;
        }
      }
      if (auto items = schema.find("items"); items != schema.end()) {
        for (std::size_t i = prefixed; i < value.size(); ++i) {
          if (auto found = element(value[i], *items, path, i)) return found;
        }
      }
    }
    if (value.is_object()) {
      if (auto required = schema.find("required"); required != schema.end()) {
        for (const auto& name : *required) {
          if (name.is_string() && !value.contains(name.get<std::string>())) {
            return problem(Kind::kRequired, name.get<std::string>());
          }
        }
      }
      static const json kNoProperties = json::object();
      auto declared = schema.find("properties");
      const json& properties = declared != schema.end() ? *declared : kNoProperties;
      auto names = schema.find("propertyNames");
      auto additional = schema.find("additionalProperties");
      for (const auto& [name, item] : value.items()) {
        if (names != schema.end()) {
          std::vector<SchemaStep> inner = path;
          if (check(json(name), *names, inner)) return problem(Kind::kPropertyName, name);
        }
        const json* item_schema = nullptr;
        if (auto known = properties.find(name); known != properties.end()) {
          item_schema = &*known;
        } else if (additional != schema.end()) {
          if (*additional == false) return problem(Kind::kUnknown, name);
          item_schema = &*additional;
        }
        if (item_schema == nullptr) continue;
        path.push_back(SchemaStep{name, std::nullopt});
        auto found = check(item, *item_schema, path);
        path.pop_back();
        if (found) return found;
      }
    }
    return std::nullopt;
  }

 private:
  std::optional<SchemaProblem> element(const json& item, const json& schema,
                                       std::vector<SchemaStep>& path, std::size_t index) const {
    path.push_back(SchemaStep{{}, index});
    auto found = check(item, schema, path);
    path.pop_back();
    return found;
  }

  // "#/$defs/command" within the root; an unknown reference takes anything.
  const json& resolve(const std::string& reference) const {
    static const json kAnything = json::object();
    if (reference.empty() || reference[0] != '#') return kAnything;
    try {
      return root_.at(json::json_pointer(reference.substr(1)));
    } catch (const json::exception&) {
      return kAnything;
    }
  }

  const json& root_;
  const SchemaPatternMatch& matches_;
};

}  // namespace

std::optional<SchemaProblem> check_against_schema(const json& value, const json& schema,
                                                  const SchemaPatternMatch& matches) {
  std::vector<SchemaStep> path;
  return Checker(schema, matches).check(value, schema, path);
}

}  // namespace paddock
