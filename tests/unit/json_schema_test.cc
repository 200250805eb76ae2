#include "core/json_schema.h"

#include <string>

#include <gtest/gtest.h>

namespace paddock::json_schema_test {
namespace {

using nlohmann::json;
using Kind = core::SchemaProblem::Kind;

// "/a/0" for a problem's path, to compare in one line.
std::string where(const core::SchemaProblem& problem) {
  std::string text;
  for (const auto& step : problem.path) {
    text += "/" + (step.index ? std::to_string(*step.index) : step.key);
  }
  return text;
}

const json& schema() {
  static const json kSchema = json::parse(R"({
    "type": "object",
    "required": ["run"],
    "additionalProperties": false,
    "properties": {
      "run": {"$ref": "#/$defs/command"},
      "size": {"anyOf": [{"type": "integer", "minimum": 0}, {"type": "string", "pattern": "^[0-9]+m$"}]},
      "env": {"type": "object", "propertyNames": {"pattern": "^[A-Z_]+$"},
              "additionalProperties": {"type": "string"}},
      "mode": {"const": "fast"},
      "tags": {"type": "array", "maxItems": 2, "items": {"type": "string", "minLength": 1}}
    },
    "$defs": {
      "command": {"type": "array", "minItems": 1, "prefixItems": [{"type": "string", "minLength": 1}],
                  "items": {"type": "string"}}
    }
  })");
  return kSchema;
}

// A stand-in for a regex engine: "^[0-9]+m$" and "^[A-Z_]+$" are all this test's patterns use.
bool matches(const std::string& pattern, const std::string& text) {
  if (text.empty()) return false;
  if (pattern == "^[0-9]+m$") {
    return text.back() == 'm' && text.size() > 1 &&
           text.find_first_not_of("0123456789") == text.size() - 1;
  }
  return text.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZ_") == std::string::npos;
}

core::Result<core::SchemaPattern> stand_in(const std::string& pattern) {
  return core::SchemaPattern([pattern](const std::string& text) { return matches(pattern, text); });
}

std::optional<core::SchemaProblem> check(const json& value) {
  static const core::JsonSchema kCompiled = core::JsonSchema::compile(schema(), stand_in).value();
  return kCompiled.check(value);
}

// The error compiling `schema` gives, or "" when it compiles.
std::string refusal(const json& schema) {
  auto compiled = core::JsonSchema::compile(schema, stand_in);
  return compiled ? "" : compiled.error().message;
}

TEST(JsonSchema, AValueOfTheSchemaPasses) {
  EXPECT_FALSE(check(json::parse(R"({"run": ["x", "y"], "size": "12m", "env": {"A_B": "1"},
                                     "mode": "fast", "tags": ["t"]})")));
  EXPECT_FALSE(check(json::parse(R"({"run": ["x"], "size": 3})")));
}

TEST(JsonSchema, RefsArePrefixItemsAndItems) {
  auto empty = check(json::parse(R"({"run": []})"));
  ASSERT_TRUE(empty);
  EXPECT_EQ(empty->kind, Kind::kMinItems);
  auto blank_first = check(json::parse(R"({"run": [""]})"));
  ASSERT_TRUE(blank_first);
  EXPECT_EQ(blank_first->kind, Kind::kMinLength);
  EXPECT_EQ(where(*blank_first), "/run/0");
  auto number_later = check(json::parse(R"({"run": ["x", 3]})"));
  ASSERT_TRUE(number_later);
  EXPECT_EQ(number_later->kind, Kind::kType);
  EXPECT_EQ(where(*number_later), "/run/1");
}

TEST(JsonSchema, AnyOfTakesAValueOneOptionTakes) {
  auto neither = check(json::parse(R"({"run": ["x"], "size": "12 parsecs"})"));
  ASSERT_TRUE(neither);
  EXPECT_EQ(neither->kind, Kind::kAnyOf);
  EXPECT_EQ(where(*neither), "/size");
  EXPECT_TRUE(check(json::parse(R"({"run": ["x"], "size": -1})")));
}

TEST(JsonSchema, MembersAreRequiredKnownAndWellNamed) {
  auto missing = check(json::object());
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->kind, Kind::kRequired);
  EXPECT_EQ(missing->name, "run");
  auto unknown = check(json::parse(R"({"run": ["x"], "runn": 1})"));
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->kind, Kind::kUnknown);
  EXPECT_EQ(unknown->name, "runn");
  auto badly_named = check(json::parse(R"({"run": ["x"], "env": {"not valid": "1"}})"));
  ASSERT_TRUE(badly_named);
  EXPECT_EQ(badly_named->kind, Kind::kPropertyName);
  EXPECT_EQ(where(*badly_named), "/env");
  EXPECT_EQ(badly_named->name, "not valid");
  auto not_text = check(json::parse(R"({"run": ["x"], "env": {"A": 1}})"));
  ASSERT_TRUE(not_text);
  EXPECT_EQ(where(*not_text), "/env/A");
}

TEST(JsonSchema, ConstAndArrayBounds) {
  auto other = check(json::parse(R"({"run": ["x"], "mode": "slow"})"));
  ASSERT_TRUE(other);
  EXPECT_EQ(other->kind, Kind::kEnum);
  auto too_many = check(json::parse(R"({"run": ["x"], "tags": ["a", "b", "c"]})"));
  ASSERT_TRUE(too_many);
  EXPECT_EQ(too_many->kind, Kind::kMaxItems);
}

TEST(JsonSchema, PatternsAreChecked) {
  auto miss = check(json::parse(R"({"run": ["x"], "size": "12"})"));
  ASSERT_TRUE(miss);
  EXPECT_EQ(miss->kind, Kind::kAnyOf);
  auto direct = core::JsonSchema::compile(json::parse(R"({"pattern": "^[A-Z_]+$"})"), stand_in);
  ASSERT_TRUE(direct);
  auto lower = direct->check(json("abc"));
  ASSERT_TRUE(lower);
  EXPECT_EQ(lower->kind, Kind::kPattern);
  EXPECT_FALSE(direct->check(json("ABC")));
  EXPECT_FALSE(direct->check(json(3)));  // pattern says nothing about other types
}

// A pattern nothing checks would pass what it refuses: without a compiler, or with one that
// refuses the pattern, the schema does not compile.
TEST(JsonSchema, APatternWithoutAMatcherRefusesTheSchema) {
  auto without = core::JsonSchema::compile(schema());
  ASSERT_FALSE(without);
  EXPECT_EQ(
      without.error().message,
      "schema keyword \"pattern\" at /properties/env/propertyNames: no pattern matcher was given");
  auto refused =
      core::JsonSchema::compile(json::parse(R"({"pattern": "(?<=a)b"})"),
                                [](const std::string&) -> core::Result<core::SchemaPattern> {
                                  return core::invalid_input("no lookbehind here");
                                });
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().message, "schema keyword \"pattern\" at the root: no lookbehind here");
}

TEST(JsonSchema, KeywordsItDoesNotImplementRefuseTheSchemaByNameAndPlace) {
  EXPECT_EQ(refusal(json::parse(R"({"properties": {"a": {"oneOf": [{"type": "string"}]}}})")),
            "schema keyword \"oneOf\" at /properties/a: paddock's schema checker does not "
            "implement this keyword");
  for (const char* keyword :
       {"allOf", "oneOf", "not", "if", "then", "else", "format", "multipleOf", "uniqueItems",
        "contains", "minProperties", "dependentRequired", "patternProperties",
        "unevaluatedProperties", "$dynamicRef", "contentEncoding"}) {
    json schema = json::parse(R"({"type": "object", "$defs": {"x~/y": {}}})");
    schema["$defs"]["x~/y"][keyword] = json::array();
    EXPECT_EQ(refusal(schema), std::string("schema keyword \"") + keyword +
                                   "\" at /$defs/x~0~1y: paddock's schema checker does not "
                                   "implement this keyword");
  }
}

TEST(JsonSchema, MalformedKeywordsRefuseTheSchema) {
  for (const char* text : {
           R"({"type": "float"})",
           R"({"type": []})",
           R"({"$ref": "#/$defs/missing"})",
           R"({"$ref": "other.json#/x"})",
           R"({"items": [{"type": "string"}]})",
           R"({"items": false})",
           R"({"properties": {"a": 1}})",
           R"({"maxLength": -1})",
           R"({"maxItems": 1.5})",
           R"({"minimum": "1"})",
           R"({"required": [1]})",
           R"({"enum": "a"})",
           R"({"anyOf": []})",
           R"({"$schema": "http://json-schema.org/draft-07/schema#"})",
           R"({"properties": {"a": {"$id": "x"}}})",
       }) {
    EXPECT_NE(refusal(json::parse(text)), "") << text;
  }
}

TEST(JsonSchema, AnnotationsAndTheImplementedKeywordsCompile) {
  EXPECT_EQ(refusal(schema()), "");
  EXPECT_EQ(refusal(json::parse(R"({
    "$schema": "https://json-schema.org/draft/2020-12/schema", "$id": "x", "title": "t",
    "description": "d", "$comment": "c", "default": 1, "examples": [1], "deprecated": false,
    "readOnly": true, "writeOnly": false, "type": ["integer", "null"], "minimum": 0,
    "maximum": 9, "exclusiveMinimum": -1, "exclusiveMaximum": 10, "enum": [1, null],
    "properties": {"oneOf": {"type": "string"}}, "additionalProperties": true
  })")),
            "");  // a property may be named like a keyword
}

TEST(JsonSchema, LengthsCountCharacters) {
  auto short_text = core::JsonSchema::compile(json::parse(R"({"maxLength": 2, "minLength": 2})"));
  ASSERT_TRUE(short_text);
  EXPECT_FALSE(short_text->check(json("\u00e9\U0001F600")));  // 6 bytes, 2 characters
  EXPECT_TRUE(short_text->check(json("\u00e9")));
  EXPECT_TRUE(short_text->check(json("abc")));
}

}  // namespace
}  // namespace paddock::json_schema_test
