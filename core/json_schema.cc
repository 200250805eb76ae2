#include "core/json_schema.h"

#include <algorithm>
#include <set>

namespace paddock::core {
namespace {

using nlohmann::json;
using Kind = SchemaProblem::Kind;

const std::set<std::string>& type_names() {
  static const std::set<std::string> kNames = {"string", "integer", "number", "boolean",
                                               "array",  "object",  "null"};
  return kNames;
}

bool has_type(const json& value, const std::string& type) {
  if (type == "string") return value.is_string();
  if (type == "integer") return value.is_number_integer();
  if (type == "number") return value.is_number();
  if (type == "boolean") return value.is_boolean();
  if (type == "array") return value.is_array();
  if (type == "object") return value.is_object();
  return value.is_null();  // compile() let no other name through
}

// Characters, as JSON Schema counts a string's length: every byte but UTF-8's continuation bytes
// (the protocol edge has refused text that is not UTF-8).
std::size_t code_points(const std::string& text) {
  return static_cast<std::size_t>(
      std::count_if(text.begin(), text.end(), [](char c) { return (c & 0xC0) != 0x80; }));
}

// "#/$defs/command" within the root: compile() made sure it is there.
const json& resolve(const json& root, const std::string& reference) {
  return root.at(json::json_pointer(reference.substr(1)));
}

// Walks a schema once, before it checks anything, and refuses what check() would not honour.
class Compiler {
 public:
  Compiler(const json& root, const SchemaPatternCompiler& compile_pattern,
           std::map<std::string, SchemaPattern>& patterns)
      : root_(root), compile_pattern_(compile_pattern), patterns_(patterns) {}

  Result<void> schema(const json& schema, const json::json_pointer& where) {
    if (schema == true) return {};
    // false (anywhere but additionalProperties, which check() reads itself) would take anything.
    if (!schema.is_object()) {
      return invalid_input("schema at " + (where.empty() ? "the root" : where.to_string()) +
                           ": a schema must be an object or true (false only as "
                           "additionalProperties)");
    }
    for (const auto& [keyword, value] : schema.items()) {
      if (auto done = keyword_value(keyword, value, where); !done) return done;
    }
    return {};
  }

 private:
  // `where`: the JSON pointer of the schema that holds `keyword`.
  Result<void> keyword_value(const std::string& keyword, const json& value,
                             const json::json_pointer& where) {
    auto kind = [&](bool right) -> Result<void> {
      if (right) return {};
      return refused(keyword, where, "its value is not of the kind JSON Schema 2020-12 requires");
    };
    // Annotations: they say nothing about a value. $schema and $id are read where they mean
    // what this checker assumes (the root, 2020-12), and refused elsewhere.
    static const std::set<std::string> kAnnotations = {"description", "title",     "default",
                                                       "examples",    "$comment",  "readOnly",
                                                       "writeOnly",   "deprecated"};
    if (kAnnotations.count(keyword) != 0) return {};
    if (keyword == "$schema" && where.empty()) {
      if (value == "https://json-schema.org/draft/2020-12/schema") return {};
      return refused(keyword, where, "only draft 2020-12 is implemented");
    }
    if (keyword == "$id" && where.empty()) return kind(value.is_string());
    if (keyword == "$defs" || keyword == "properties" || keyword == "anyOf" ||
        keyword == "prefixItems" || keyword == "items" || keyword == "propertyNames" ||
        keyword == "additionalProperties") {
      return subschemas(keyword, value, where);
    }
    if (keyword == "$ref") return reference(value, where);
    if (keyword == "type") {
      auto known = [](const json& name) {
        return name.is_string() && type_names().count(name.get<std::string>()) != 0;
      };
      return kind(value.is_array()
                      ? !value.empty() && std::all_of(value.begin(), value.end(), known)
                      : known(value));
    }
    if (keyword == "enum") return kind(value.is_array());
    if (keyword == "const") return {};
    if (keyword == "minimum" || keyword == "maximum" || keyword == "exclusiveMinimum" ||
        keyword == "exclusiveMaximum") {
      return kind(value.is_number());
    }
    if (keyword == "minLength" || keyword == "maxLength" || keyword == "minItems" ||
        keyword == "maxItems") {
      return kind(value.is_number_integer() && value >= 0);
    }
    if (keyword == "required") {
      return kind(value.is_array() && std::all_of(value.begin(), value.end(),
                                                  [](const json& n) { return n.is_string(); }));
    }
    if (keyword == "pattern") return value.is_string() ? pattern(value, where) : kind(false);
    return refused(keyword, where, "paddock's schema checker does not implement this keyword");
  }

  // The keywords whose values are schemas, by name, by position, or one.
  Result<void> subschemas(const std::string& keyword, const json& value,
                          const json::json_pointer& where) {
    const json::json_pointer inner = where / keyword;
    if (keyword == "$defs" || keyword == "properties") {
      if (!value.is_object()) return refused(keyword, where, "its value must be an object");
      for (const auto& [name, item] : value.items()) {
        if (auto done = schema(item, inner / name); !done) return done;
      }
      return {};
    }
    if (keyword == "anyOf" || keyword == "prefixItems") {
      if (!value.is_array() || value.empty()) {
        return refused(keyword, where, "its value must be an array of schemas");
      }
      for (std::size_t i = 0; i < value.size(); ++i) {
        if (auto done = schema(value[i], inner / i); !done) return done;
      }
      return {};
    }
    if (keyword == "additionalProperties" && value == false) return {};
    return schema(value, inner);
  }

  Result<void> reference(const json& value, const json::json_pointer& where) {
    if (!value.is_string() || value.get_ref<const std::string&>().rfind('#', 0) != 0) {
      return refused("$ref", where,
                     "only references within the schema (\"#/...\") are implemented");
    }
    try {
      (void)resolve(root_, value.get<std::string>());
    } catch (const json::exception&) {
      return refused("$ref", where, value.get<std::string>() + " points nowhere in the schema");
    }
    return {};
  }

  // Compiled here, once for each text, so that a pattern the engine refuses refuses the schema.
  Result<void> pattern(const json& value, const json::json_pointer& where) {
    if (!compile_pattern_) return refused("pattern", where, "no pattern matcher was given");
    const auto& text = value.get_ref<const std::string&>();
    if (patterns_.count(text) != 0) return {};
    auto compiled = compile_pattern_(text);
    if (!compiled) return refused("pattern", where, compiled.error().message);
    patterns_.emplace(text, std::move(*compiled));
    return {};
  }

  static Error refused(const std::string& keyword, const json::json_pointer& where,
                       const std::string& why) {
    return invalid_input("schema keyword \"" + keyword + "\" at " +
                         (where.empty() ? "the root" : where.to_string()) + ": " + why);
  }

  const json& root_;
  const SchemaPatternCompiler& compile_pattern_;
  std::map<std::string, SchemaPattern>& patterns_;
};

class Checker {
 public:
  Checker(const json& root, const std::map<std::string, SchemaPattern>& patterns)
      : root_(root), patterns_(patterns) {}

  std::optional<SchemaProblem> check(const json& value, const json& schema,
                                     std::vector<SchemaStep>& path) const {
    if (!schema.is_object()) return std::nullopt;  // true: compile() let no other through
    auto problem = [&](Kind kind, std::string name = {}) {
      return SchemaProblem{kind, path, &schema, &value, std::move(name)};
    };
    if (auto ref = schema.find("$ref"); ref != schema.end()) {
      if (auto found = check(value, resolve(root_, ref->get<std::string>()), path)) return found;
    }
    if (auto any = schema.find("anyOf"); any != schema.end()) {
      bool taken = std::any_of(any->begin(), any->end(), [&](const json& option) {
        std::vector<SchemaStep> inner = path;
        return !check(value, option, inner);
      });
      if (!taken) return problem(Kind::kAnyOf);
    }
    if (auto type = schema.find("type"); type != schema.end()) {
      bool typed = type->is_string() ? has_type(value, type->get<std::string>())
                                     : std::any_of(type->begin(), type->end(), [&](const json& t) {
                                         return has_type(value, t.get<std::string>());
                                       });
      if (!typed) return problem(Kind::kType);
    }
    if (auto allowed = schema.find("enum"); allowed != schema.end()) {
      if (std::find(allowed->begin(), allowed->end(), value) == allowed->end()) {
        return problem(Kind::kEnum);
      }
    }
    if (auto only = schema.find("const"); only != schema.end() && value != *only) {
      return problem(Kind::kEnum);
    }
    if (value.is_number()) {
      if (auto found = number(value, schema, path)) return found;
    }
    if (value.is_string()) {
      if (auto found = string(value, schema, path)) return found;
    }
    if (value.is_array()) {
      if (auto found = array(value, schema, path)) return found;
    }
    if (value.is_object()) return object(value, schema, path);
    return std::nullopt;
  }

 private:
  static std::optional<SchemaProblem> number(const json& value, const json& schema,
                                             const std::vector<SchemaStep>& path) {
    double number = value.get<double>();
    auto problem = [&](Kind kind) { return SchemaProblem{kind, path, &schema, &value, {}}; };
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
    return std::nullopt;
  }

  std::optional<SchemaProblem> string(const json& value, const json& schema,
                                      const std::vector<SchemaStep>& path) const {
    const auto& text = value.get_ref<const std::string&>();
    auto problem = [&](Kind kind) { return SchemaProblem{kind, path, &schema, &value, {}}; };
    auto least = schema.find("minLength");
    auto most = schema.find("maxLength");
    if (least != schema.end() || most != schema.end()) {
      std::size_t length = code_points(text);
      if (least != schema.end() && length < *least) return problem(Kind::kMinLength);
      if (most != schema.end() && length > *most) return problem(Kind::kMaxLength);
    }
    if (auto pattern = schema.find("pattern");
        pattern != schema.end() && !patterns_.at(pattern->get<std::string>())(text)) {
      return problem(Kind::kPattern);
    }
    return std::nullopt;
  }

  std::optional<SchemaProblem> array(const json& value, const json& schema,
                                     std::vector<SchemaStep>& path) const {
    auto problem = [&](Kind kind) { return SchemaProblem{kind, path, &schema, &value, {}}; };
    if (auto least = schema.find("minItems"); least != schema.end() && value.size() < *least) {
      return problem(Kind::kMinItems);
    }
    if (auto most = schema.find("maxItems"); most != schema.end() && value.size() > *most) {
      return problem(Kind::kMaxItems);
    }
    // prefixItems takes the first elements, items the rest.
    std::size_t prefixed = 0;
    if (auto prefix = schema.find("prefixItems"); prefix != schema.end()) {
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
    return std::nullopt;
  }

  std::optional<SchemaProblem> object(const json& value, const json& schema,
                                      std::vector<SchemaStep>& path) const {
    auto problem = [&](Kind kind, std::string name) {
      return SchemaProblem{kind, path, &schema, &value, std::move(name)};
    };
    if (auto required = schema.find("required"); required != schema.end()) {
      for (const auto& name : *required) {
        if (!value.contains(name.get<std::string>())) {
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
    return std::nullopt;
  }

  std::optional<SchemaProblem> element(const json& item, const json& schema,
                                       std::vector<SchemaStep>& path, std::size_t index) const {
    path.push_back(SchemaStep{{}, index});
    auto found = check(item, schema, path);
    path.pop_back();
    return found;
  }

  const json& root_;
  const std::map<std::string, SchemaPattern>& patterns_;
};

}  // namespace

Result<JsonSchema> JsonSchema::compile(json schema, const SchemaPatternCompiler& patterns) {
  auto compiled = std::make_shared<Compiled>();
  compiled->document = std::move(schema);
  Compiler compiler(compiled->document, patterns, compiled->patterns);
  if (auto done = compiler.schema(compiled->document, json::json_pointer()); !done)
    return done.error();
  return JsonSchema(std::move(compiled));
}

std::optional<SchemaProblem> JsonSchema::check(const json& value) const {
  std::vector<SchemaStep> path;
  return Checker(compiled_->document, compiled_->patterns).check(value, compiled_->document, path);
}

}  // namespace paddock::core
