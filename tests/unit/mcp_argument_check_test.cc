#include "mcp/argument_check.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

namespace paddock::mcp::mcp_argument_check_test {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Optional;
using ::testing::StartsWith;

// Shaped like execute_code's and write_file's input schemas.
const json& schema_document() {
  static const json kSchema = json::parse(R"({
    "type": "object",
    "properties": {
      "code": {"type": "string", "maxLength": 10},
      "language": {"type": "string", "enum": ["python", "r"]},
      "timeout": {"type": "number", "exclusiveMinimum": 0, "maximum": 60},
      "runs": {"type": "integer", "minimum": 1},
      "verbose": {"type": "boolean"},
      "files": {
        "type": "array",
        "maxItems": 2,
        "items": {
          "type": "object",
          "properties": {
            "path": {"type": "string"},
            "encoding": {"type": "string", "enum": ["utf-8", "base64"]}
          },
          "required": ["path"],
          "additionalProperties": false
        }
      }
    },
    "required": ["code", "language"],
    "additionalProperties": false
  })");
  return kSchema;
}

core::JsonSchema compiled(const json& document) {
  return compile_input_schema(document).value();
}

const core::JsonSchema& schema() {
  static const core::JsonSchema kSchema = compiled(schema_document());
  return kSchema;
}

json valid() {
  return json{{"code", "print(1)"}, {"language", "python"}};
}

TEST(McpArgumentCheck, ValidArgumentsPass) {
  EXPECT_EQ(check_arguments(valid(), schema()), std::nullopt);
  json all = valid();
  all["timeout"] = 2.5;
  all["runs"] = 3;
  all["verbose"] = true;
  all["files"] = json::array({{{"path", "a.txt"}}, {{"path", "b.bin"}, {"encoding", "base64"}}});
  EXPECT_EQ(check_arguments(all, schema()), std::nullopt);
}

TEST(McpArgumentCheck, RequiredArguments) {
  json args = valid();
  args.erase("language");
  EXPECT_EQ(check_arguments(args, schema()), "'language' is required");
  EXPECT_EQ(check_arguments(json::object(), schema()), "'code' is required");
}

TEST(McpArgumentCheck, ArgumentsMustBeAnObject) {
  EXPECT_THAT(check_arguments(json::array(), schema()),
              Optional(StartsWith("the arguments must be")));
  EXPECT_THAT(check_arguments(json("x"), schema()), Optional(HasSubstr("object")));
}

// "a integer" and "a object" read badly in a message a model acts on.
TEST(McpArgumentCheck, TypeMessagesUseTheRightArticle) {
  json args = valid();
  args["runs"] = "2";
  EXPECT_EQ(check_arguments(args, schema()), "'runs' must be an integer");
  EXPECT_EQ(check_arguments(json::array(), schema()), "the arguments must be an object");
  args = valid();
  args["files"] = json::object();
  EXPECT_EQ(check_arguments(args, schema()), "'files' must be an array");
  args["files"] = json::array({"a.txt"});
  EXPECT_EQ(check_arguments(args, schema()), "'files[0]' must be an object");
}

TEST(McpArgumentCheck, UnknownArgumentsListTheKnownOnes) {
  json args = valid();
  args["langauge"] = "python";
  auto problem = check_arguments(args, schema());
  ASSERT_TRUE(problem.has_value());
  EXPECT_EQ(*problem,
            "unknown argument 'langauge'; the arguments are code, files, language, runs, timeout, "
            "verbose");
}

TEST(McpArgumentCheck, UnknownArgumentsPassWithoutAdditionalPropertiesFalse) {
  json open = schema_document();
  open.erase("additionalProperties");
  json args = valid();
  args["extra"] = 1;
  EXPECT_EQ(check_arguments(args, compiled(open)), std::nullopt);
  EXPECT_NE(check_arguments(args, schema()), std::nullopt);
}

TEST(McpArgumentCheck, Types) {
  json args = valid();
  args["code"] = 5;
  EXPECT_EQ(check_arguments(args, schema()), "'code' must be a string");

  args = valid();
  args["runs"] = 2.5;
  EXPECT_EQ(check_arguments(args, schema()), "'runs' must be an integer");
  args["runs"] = "2";
  EXPECT_EQ(check_arguments(args, schema()), "'runs' must be an integer");
  args["runs"] = 2;
  EXPECT_EQ(check_arguments(args, schema()), std::nullopt);

  args = valid();
  args["timeout"] = 3;  // an integer is a number
  EXPECT_EQ(check_arguments(args, schema()), std::nullopt);
  args["timeout"] = "3";
  EXPECT_EQ(check_arguments(args, schema()), "'timeout' must be a number");

  args = valid();
  args["verbose"] = 1;
  EXPECT_EQ(check_arguments(args, schema()), "'verbose' must be a boolean");
  args = valid();
  args["files"] = json::object();
  EXPECT_THAT(check_arguments(args, schema()),
              Optional(AllOf(StartsWith("'files' must be a"), HasSubstr("array"))));
}

TEST(McpArgumentCheck, Enum) {
  json args = valid();
  args["language"] = "cobol";
  EXPECT_EQ(check_arguments(args, schema()), R"('language' must be one of ["python","r"])");
  args["language"] = "r";
  EXPECT_EQ(check_arguments(args, schema()), std::nullopt);
}

TEST(McpArgumentCheck, Bounds) {
  json args = valid();
  args["timeout"] = 0;
  EXPECT_EQ(check_arguments(args, schema()), "'timeout' must be more than 0");
  args["timeout"] = -1;
  EXPECT_EQ(check_arguments(args, schema()), "'timeout' must be more than 0");
  args["timeout"] = 0.001;
  EXPECT_EQ(check_arguments(args, schema()), std::nullopt);
  args["timeout"] = 60;
  EXPECT_EQ(check_arguments(args, schema()), std::nullopt);
  args["timeout"] = 60.5;
  EXPECT_EQ(check_arguments(args, schema()), "'timeout' must be at most 60");

  args = valid();
  args["runs"] = 0;
  EXPECT_EQ(check_arguments(args, schema()), "'runs' must be at least 1");
  args["runs"] = 1;
  EXPECT_EQ(check_arguments(args, schema()), std::nullopt);
}

TEST(McpArgumentCheck, MaxLength) {
  json args = valid();
  args["code"] = std::string(10, 'x');
  EXPECT_EQ(check_arguments(args, schema()), std::nullopt);
  args["code"] = std::string(11, 'x');
  EXPECT_EQ(check_arguments(args, schema()), "'code' is longer than 10 characters");
}

TEST(McpArgumentCheck, MaxItems) {
  json args = valid();
  args["files"] = json::array({{{"path", "a"}}, {{"path", "b"}}, {{"path", "c"}}});
  EXPECT_EQ(check_arguments(args, schema()), "'files' has more than 2 items");
}

TEST(McpArgumentCheck, NestedItemsAreNamedByTheirPath) {
  json args = valid();
  args["files"] = json::array({{{"path", "a"}}, {{"path", "b"}, {"encoding", "hex"}}});
  EXPECT_EQ(check_arguments(args, schema()),
            R"('files[1].encoding' must be one of ["utf-8","base64"])");

  args["files"] = json::array({{{"path", "a"}}, {{"encoding", "base64"}}});
  EXPECT_EQ(check_arguments(args, schema()), "'files[1]': 'path' is required");

  args["files"] = json::array({{{"path", 1}}});
  EXPECT_EQ(check_arguments(args, schema()), "'files[0].path' must be a string");

  args["files"] = json::array({{{"path", "a"}, {"mode", "0644"}}});
  auto problem = check_arguments(args, schema());
  ASSERT_TRUE(problem.has_value());
  EXPECT_EQ(*problem, "unknown argument 'files[0].mode'; the arguments are encoding, path");

  args["files"] = json::array({"a.txt"});
  EXPECT_THAT(check_arguments(args, schema()),
              Optional(AllOf(StartsWith("'files[0]' must be a"), HasSubstr("object"))));
}

// The message a model gets for a pattern miss, which no tool could produce while the checker had
// no pattern matcher.
TEST(McpArgumentCheck, PatternsAreMatchedWithRe2) {
  core::JsonSchema named = compiled(json::parse(R"({
    "type": "object",
    "properties": {"name": {"type": "string", "pattern": "^[a-z][a-z0-9-]*$"},
                   "tags": {"type": "array", "items": {"type": "string", "pattern": "\\d"}}}
  })"));
  EXPECT_EQ(check_arguments(json{{"name", "web-1"}}, named), std::nullopt);
  EXPECT_EQ(check_arguments(json{{"name", "Web"}}, named),
            R"('name' must match "^[a-z][a-z0-9-]*$")");
  EXPECT_EQ(check_arguments(json{{"name", "web\n1"}}, named),
            R"('name' must match "^[a-z][a-z0-9-]*$")");  // $ is the end of the text only
  EXPECT_EQ(check_arguments(json{{"tags", json::array({"v2", "x"})}}, named),
            R"('tags[1]' must match "\\d")");
  EXPECT_EQ(check_arguments(json{{"tags", json::array({"v2"})}}, named),
            std::nullopt);  // not anchored
}

TEST(McpArgumentCheck, AnInputSchemaRe2CannotCompileIsRefused) {
  auto refused = compile_input_schema(json::parse(R"({"pattern": "(?<=a)b"})"));
  ASSERT_FALSE(refused);
  EXPECT_THAT(refused.error().message,
              AllOf(StartsWith("schema keyword \"pattern\" at the root: RE2 cannot compile"),
                    HasSubstr("(?<=a)b")));
}

}  // namespace
}  // namespace paddock::mcp::mcp_argument_check_test
