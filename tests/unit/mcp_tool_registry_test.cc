#include "mcp/tool_registry.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "mcp/argument_check.h"

namespace paddock::mcp::mcp_tool_registry_test {
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

// Names of the tools `registry` lists.
std::vector<std::string> listed_names(const ToolRegistry& registry) {
  std::vector<std::string> names;
  for (const auto& definition : registry.list()) names.push_back(definition["name"]);
  return names;
}

// Issue 53: a tool the settings make useless is not listed, and says which setting lists it.
TEST(McpToolRegistry, ToolsTheSettingsRuleOutAreWithheldNamingTheSetting) {
  const language::PolicyStore policies = language::PolicyStore::load({}).value();
  auto tools = builtin_tools(app::ServerOptions{}, policies, ToolOffer{false, false, false, false});
  ASSERT_TRUE(tools) << tools.error().message;
  auto names = listed_names(*tools);
  for (const char* hidden : {"expose_port", "export_session", "snapshot_session", "fork_session",
                             "diff_session", "upload_file", "download_file"}) {
    EXPECT_THAT(names, testing::Not(testing::Contains(hidden)));
    EXPECT_EQ(tools->find(hidden), nullptr);
    ASSERT_NE(tools->withheld(hidden), nullptr) << hidden;
  }
  EXPECT_EQ(*tools->withheld("expose_port"), "--allow-preview");
  EXPECT_THAT(*tools->withheld("export_session"), HasSubstr("--share DIR:rw"));
  EXPECT_THAT(*tools->withheld("fork_session"), HasSubstr("--state-dir"));
  EXPECT_THAT(*tools->withheld("upload_file"), HasSubstr("--share DIR"));
  EXPECT_THAT(*tools->withheld("download_file"), HasSubstr("--share DIR:rw"));
  EXPECT_EQ(tools->withheld("execute_code"), nullptr);
  const Tool* create = tools->find("create_session");
  ASSERT_NE(create, nullptr);
  // definition() makes a new object: kept here, not referred into as a temporary.
  const json definition = create->definition();
  const json& properties = definition["inputSchema"]["properties"];
  for (const char* hidden : {"name", "from_snapshot", "from_archive", "mounts"}) {
    EXPECT_FALSE(properties.contains(hidden)) << hidden;
  }
  const Tool* close = tools->find("close_session");
  ASSERT_NE(close, nullptr);
  EXPECT_FALSE(close->definition()["inputSchema"]["properties"].contains("keep"));
}

TEST(McpToolRegistry, TheOfferFollowsPreviewsAndShares) {
  app::ServerOptions options;
  ToolOffer none = tool_offer(options, true);
  EXPECT_FALSE(none.previews);
  EXPECT_FALSE(none.readable_share);
  EXPECT_FALSE(none.writable_share);
  options.allow_preview = true;
  options.shares.push_back(app::ShareSpec{"/tmp", "in", false});
  ToolOffer read_only = tool_offer(options, false);
  EXPECT_TRUE(read_only.previews);
  EXPECT_TRUE(read_only.readable_share);
  EXPECT_FALSE(read_only.writable_share);
  EXPECT_FALSE(read_only.keeps_sessions);
  options.shares.push_back(app::ShareSpec{"/tmp", "out", true});
  EXPECT_TRUE(tool_offer(options, true).writable_share);
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
}  // namespace paddock::mcp::mcp_tool_registry_test
