#include "mcp/tool_registry.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "mcp/argument_check.h"

namespace paddock::mcp {
namespace {

using ::testing::HasSubstr;

// A tool that declares `input_schema` and does nothing.
class SchemaOnly : public Tool {
 public:
  explicit SchemaOnly(json input_schema) : input_schema_(std::move(input_schema)) {}
  [[nodiscard]] std::string name() const override { return "schema_only"; }
  [[nodiscard]] json definition() const override {
    return {{"name", name()}, {"inputSchema", input_schema_}};
  }
  ToolResult call(const json&, ToolContext&) override { return {}; }

 private:
  json input_schema_;
};

// Every schema the server lists compiles: none uses a keyword the checker would skip. The
// server refuses to start otherwise (mcp/serve.cc), so this test says it first.
TEST(McpToolRegistry, EveryBuiltinInputSchemaCompiles) {
  const language::PolicyStore policies = language::PolicyStore::load({}).value();
  auto tools = builtin_tools(app::ServerOptions{}, policies);
  ASSERT_TRUE(tools) << tools.error().message;
  ASSERT_FALSE(tools->list().empty());
  for (const auto& definition : tools->list()) {
    const Tool* tool = tools->find(definition["name"].get<std::string>());
    ASSERT_NE(tool, nullptr);
    EXPECT_EQ(tools->input_schema(*tool).document(), definition["inputSchema"]);
  }
}

TEST(McpToolRegistry, AToolWhoseSchemaUsesAnUnimplementedKeywordIsRefused) {
  ToolRegistry registry;
  auto added = registry.add(std::make_unique<SchemaOnly>(json::parse(R"({
    "type": "object",
    "properties": {"mode": {"oneOf": [{"const": "a"}, {"const": "b"}]}}
  })")));
  ASSERT_FALSE(added);
  EXPECT_EQ(added.error().message,
            "schema_only's inputSchema: schema keyword \"oneOf\" at /properties/mode: paddock's "
            "schema checker does not implement this keyword");
  EXPECT_EQ(registry.find("schema_only"), nullptr);
  EXPECT_TRUE(registry.list().empty());
}

TEST(McpToolRegistry, ItsArgumentsAreCheckedWithPatterns) {
  ToolRegistry registry;
  ASSERT_TRUE(registry.add(std::make_unique<SchemaOnly>(json::parse(R"({
    "type": "object", "properties": {"id": {"type": "string", "pattern": "^s-[0-9a-f]+$"}}
  })"))));
  const core::JsonSchema& schema = registry.input_schema(*registry.find("schema_only"));
  EXPECT_EQ(check_arguments(json{{"id", "s-12ab"}}, schema), std::nullopt);
  EXPECT_THAT(check_arguments(json{{"id", "x"}}, schema), testing::Optional(HasSubstr("match")));
}

}  // namespace
}  // namespace paddock::mcp
