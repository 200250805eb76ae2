#include "mcp/session_files.h"

#include <gtest/gtest.h>

#include <string>

#include "core/base64.h"

namespace paddock::mcp::mcp_session_files_test {
namespace {

TEST(McpSessionFiles, UriRoundTrip) {
  const std::string id = "s-0123456789abcdef0123456789abcdef";
  for (const char* path : {"data.csv", "out/plot.png", "a/b/c/d.txt", "files/x", "a/files/b"}) {
    std::string uri = session_file_uri(id, path);
    EXPECT_EQ(uri, "sandbox://sessions/" + id + "/files/" + path);
    auto ref = parse_session_file_uri(uri);
    ASSERT_TRUE(ref.has_value()) << uri;
    EXPECT_EQ(ref->session_id, id) << uri;
    EXPECT_EQ(ref->path, path) << uri;
  }
}

TEST(McpSessionFiles, PathsArePercentEncodedInUris) {
  std::string uri = session_file_uri("s-1", "my data/r\xc3\xa9sum\xc3\xa9 #1?.txt");
  EXPECT_EQ(uri, "sandbox://sessions/s-1/files/my%20data/r%C3%A9sum%C3%A9%20%231%3F.txt");
  auto ref = parse_session_file_uri(uri);
  ASSERT_TRUE(ref.has_value());
  EXPECT_EQ(ref->path, "my data/r\xc3\xa9sum\xc3\xa9 #1?.txt");
  EXPECT_FALSE(parse_session_file_uri("sandbox://sessions/s-1/files/bad%2").has_value());
  EXPECT_FALSE(parse_session_file_uri("sandbox://sessions/s-1/files/bad%zz").has_value());
}

TEST(McpSessionFiles, OtherUrisAreRefused) {
  for (const char* bad :
       {"file:///etc/passwd", "https://sessions/s-1/files/a", "sandbox://session/s-1/files/a",
        "sandbox://sessions/s-1/a", "sandbox://sessions//files/a", "sandbox://sessions/", "",
        "SANDBOX://sessions/s-1/files/a", "xsandbox://sessions/s-1/files/a"}) {
    EXPECT_FALSE(parse_session_file_uri(bad).has_value()) << bad;
  }
}

class McpFileContentBlock : public ::testing::Test {
 protected:
  json block(const std::string& path, std::string data, std::uint64_t size = 0) {
    runtime::FileContent file;
    file.size = size != 0 ? size : data.size();
    file.data = std::move(data);
    delivery_.clear();
    return file_content_block("s-1", path, file, file.data.size() < file.size, &delivery_);
  }
  std::string delivery_;
};

TEST_F(McpFileContentBlock, TextFiles) {
  json text = block("notes/a.txt", "hello\nwörld\n");
  EXPECT_EQ(delivery_, "text");
  EXPECT_EQ(text, (json{{"type", "text"}, {"text", "hello\nwörld\n"}}));
  // Text is judged by content, not by name.
  block("script", "print(1)\n");
  EXPECT_EQ(delivery_, "text");
  block("empty.bin", "");
  EXPECT_EQ(delivery_, "text");
}

TEST_F(McpFileContentBlock, Images) {
  const std::string png("\x89PNG\r\n\x1a\n\0\0", 10);
  json image = block("out/plot.png", png);
  EXPECT_EQ(delivery_, "image");
  EXPECT_EQ(image["type"], "image");
  EXPECT_EQ(image["mimeType"], "image/png");
  EXPECT_EQ(core::base64_decode(image["data"].get<std::string>()), std::optional<std::string>(png));
  block("PHOTO.JPG", "\xff\xd8\xff");
  EXPECT_EQ(delivery_, "image");
}

TEST_F(McpFileContentBlock, BinaryFilesAreEmbeddedResources) {
  const std::string bytes("\x00\x01\x02\xff", 4);
  json resource = block("data/model.bin", bytes);
  EXPECT_EQ(delivery_, "resource");
  EXPECT_EQ(resource["type"], "resource");
  EXPECT_EQ(resource["resource"]["uri"], "sandbox://sessions/s-1/files/data/model.bin");
  EXPECT_EQ(resource["resource"]["mimeType"], "application/octet-stream");
  EXPECT_EQ(core::base64_decode(resource["resource"]["blob"].get<std::string>()),
            std::optional<std::string>(bytes));
  json pdf = block("report.pdf", std::string("%PDF-1.4\n\0\xff", 11));
  EXPECT_EQ(delivery_, "resource");
  EXPECT_EQ(pdf["resource"]["mimeType"], "application/pdf");
  // An SVG is not an image clients display: it goes as the text it is.
  block("plot.svg", "<svg xmlns=\"http://www.w3.org/2000/svg\"/>");
  EXPECT_EQ(delivery_, "text");
}

TEST_F(McpFileContentBlock, LargeFilesAreLinked) {
  json link = block("out/big.csv", "a,b\n1,2\n", 5u << 20);
  EXPECT_EQ(delivery_, "resource_link");
  EXPECT_EQ(link, (json{{"type", "resource_link"},
                        {"uri", "sandbox://sessions/s-1/files/out/big.csv"},
                        {"name", "big.csv"},
                        {"mimeType", "text/csv"},
                        {"size", 5u << 20}}));
  json top = block("huge.png", "\x89PNG", 100);
  EXPECT_EQ(delivery_, "resource_link") << "a partial image is not shown";
  EXPECT_EQ(top["name"], "huge.png");
}

TEST_F(McpFileContentBlock, AWholeFileStaysInlineWhatMaskingMadeOfIt) {
  // Masking shortens text: the block must still carry it, not link to the unmasked file.
  runtime::FileContent file{"KEY=***\n", 20};
  std::string delivery;
  json text = file_content_block("s-1", "leak.txt", file, false, &delivery);
  EXPECT_EQ(delivery, "text");
  EXPECT_EQ(text["text"], "KEY=***\n");
}

TEST(McpClientView, TextIsMaskedAndBinaryHoldingAValueIsWithheld) {
  app::SecretMask secrets({"TOKEN=tok-5e1f2a"});
  EXPECT_EQ(app::client_view(secrets, "a tok-5e1f2a b\n", false), "a *** b\n");
  // The beginning of a file ending inside a value.
  EXPECT_EQ(app::client_view(secrets, "a tok-5e", true), "a ***");
  const std::string clean("\x89PNG\0\x01tok-5e", 12);
  EXPECT_EQ(app::client_view(secrets, clean, false), clean)
      << "binary without a whole value is kept";
  const std::string holding("\x00\xfftok-5e1f2a\x00", 14);
  EXPECT_EQ(app::client_view(secrets, holding, false), std::nullopt);
  EXPECT_EQ(app::client_view(app::SecretMask({}), holding, false), holding)
      << "nothing passed through";
}

}  // namespace
}  // namespace paddock::mcp::mcp_session_files_test
