#include "mcp/content.h"

#include <gtest/gtest.h>

#include <string>

namespace paddock::mcp {
namespace {

TEST(McpContent, AsciiAndValidMultiByteUtf8AreText) {
  EXPECT_TRUE(looks_like_text(""));
  EXPECT_TRUE(looks_like_text("plain ASCII\n\ttext\r\n"));
  EXPECT_TRUE(looks_like_text("\xc3\xa9"));          // é, 2 bytes
  EXPECT_TRUE(looks_like_text("\xc2\x80"));          // U+0080, smallest 2-byte
  EXPECT_TRUE(looks_like_text("\xe2\x82\xac"));      // €, 3 bytes
  EXPECT_TRUE(looks_like_text("\xef\xbf\xbd"));      // U+FFFD
  EXPECT_TRUE(looks_like_text("\xf0\x9f\x98\x80"));  // 😀, 4 bytes
  EXPECT_TRUE(looks_like_text("\xf4\x8f\xbf\xbf"));  // U+10FFFF, the last code point
  EXPECT_TRUE(
      looks_like_text("na\xc3\xafve caf\xc3\xa9 \xe2\x82\xac"
                      "5 \xf0\x9f\x98\x80"));
}

TEST(McpContent, NulIsNotText) {
  EXPECT_FALSE(looks_like_text(std::string("a\0b", 3)));
  EXPECT_FALSE(looks_like_text(std::string(1, '\0')));
}

TEST(McpContent, BrokenSequencesAreNotText) {
  EXPECT_FALSE(looks_like_text("\xff"));
  EXPECT_FALSE(looks_like_text("\xfe\xff"));
  EXPECT_FALSE(looks_like_text("\x80"));          // a continuation byte alone
  EXPECT_FALSE(looks_like_text("abc\xc3"));       // cut short at the end
  EXPECT_FALSE(looks_like_text("\xe2\x82"));      // cut short
  EXPECT_FALSE(looks_like_text("\xf0\x9f\x98"));  // cut short
  EXPECT_FALSE(looks_like_text("\xc3\x41"));      // a non-continuation after a lead byte
  EXPECT_FALSE(looks_like_text("\xe2\x28\xa1"));
  EXPECT_FALSE(looks_like_text("\xf8\x88\x80\x80\x80"));  // 5-byte forms are gone
}

// What nlohmann::json would replace with U+FFFD on output must not be called text, or a binary
// file would reach the client as mangled text instead of as a base64 blob.
TEST(McpContent, OverlongSurrogateAndOutOfRangeSequencesAreNotText) {
  EXPECT_FALSE(looks_like_text("\xc0\x80"));          // overlong NUL
  EXPECT_FALSE(looks_like_text("\xc1\xbf"));          // overlong
  EXPECT_FALSE(looks_like_text("\xe0\x80\xaf"));      // overlong '/'
  EXPECT_FALSE(looks_like_text("\xf0\x80\x80\xaf"));  // overlong '/'
  EXPECT_FALSE(looks_like_text("\xed\xa0\x80"));      // U+D800, a surrogate
  EXPECT_FALSE(looks_like_text("\xed\xbf\xbf"));      // U+DFFF, a surrogate
  EXPECT_FALSE(looks_like_text("\xf4\x90\x80\x80"));  // U+110000, past the last code point
  EXPECT_FALSE(looks_like_text("\xf5\x80\x80\x80"));
  EXPECT_FALSE(looks_like_text("\xf7\xbf\xbf\xbf"));
}

TEST(McpContent, TextIsWhatSerializesUnchanged) {
  // The property the check stands for: text survives JSON output byte for byte.
  for (const char* sample : {"\xc3\xa9", "\xf0\x9f\x98\x80", "\xc0\x80", "\xed\xa0\x80",
                             "\xf5\x80\x80\x80", "\xe0\x80\xaf"}) {
    if (!looks_like_text(sample)) continue;
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
}  // namespace paddock::mcp
