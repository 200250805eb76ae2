#include "mcp/content.h"

#include <gtest/gtest.h>

#include <string>

#include "core/mime_types.h"

namespace paddock::mcp::mcp_content_test {
namespace {

TEST(McpContent, TextIsWhatSerializesUnchanged) {
  // The property core's check stands for: text survives this floor's JSON output byte for byte.
  for (const char* sample : {"\xc3\xa9", "\xf0\x9f\x98\x80", "\xc0\x80", "\xed\xa0\x80",
                             "\xf5\x80\x80\x80", "\xe0\x80\xaf"}) {
    if (!core::looks_like_text(sample)) continue;
    json block = text_block(sample);
    std::string line = serialize(block);
    EXPECT_NE(line.find(sample), std::string::npos)
        << "called text but mangled on output: " << line;
  }
}

TEST(McpContent, DisplayableImages) {
  for (const char* type : {"image/png", "image/jpeg", "image/gif", "image/webp"}) {
    EXPECT_TRUE(is_displayable_image(type)) << type;
  }
  for (const char* type : {"image/svg+xml", "application/pdf", "text/plain", "image/", ""}) {
    EXPECT_FALSE(is_displayable_image(type)) << type;
  }
}

TEST(McpContent, Blocks) {
  EXPECT_EQ(text_block("hi"), (json{{"type", "text"}, {"text", "hi"}}));
  EXPECT_EQ(image_block("abc", "image/png"),
            (json{{"type", "image"}, {"data", "YWJj"}, {"mimeType", "image/png"}}));
  EXPECT_EQ(blob_resource_block("u", "abc", "application/octet-stream"),
            (json{{"type", "resource"},
                  {"resource",
                   {{"uri", "u"}, {"mimeType", "application/octet-stream"}, {"blob", "YWJj"}}}}));
  EXPECT_EQ(text_resource_block("u", "t", "text/plain"),
            (json{{"type", "resource"},
                  {"resource", {{"uri", "u"}, {"mimeType", "text/plain"}, {"text", "t"}}}}));
  EXPECT_EQ(resource_link_block("u", "n", "text/csv", 9), (json{{"type", "resource_link"},
                                                                {"uri", "u"},
                                                                {"name", "n"},
                                                                {"mimeType", "text/csv"},
                                                                {"size", 9}}));
}

}  // namespace
}  // namespace paddock::mcp::mcp_content_test
