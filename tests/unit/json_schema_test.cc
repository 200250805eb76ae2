#include "core/json_schema.h"

#include <string>

#include <gtest/gtest.h>

namespace paddock {
namespace {

using nlohmann::json;
using Kind = SchemaProblem::Kind;

// "/a/0" for a problem's path, to compare in one line.
std::string where(const SchemaProblem& problem) {
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

std::optional<SchemaProblem> check(const json& value) {
  return check_against_schema(value, schema(), matches);
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

TEST(JsonSchema, WithoutAMatcherPatternsAreNotChecked) {
  EXPECT_FALSE(
      check_against_schema(json::parse(R"({"run": ["x"], "env": {"not valid": "1"}})"), schema()));
}

}  // namespace
}  // namespace paddock
