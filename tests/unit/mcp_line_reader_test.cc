#include "mcp/line_reader.h"

#include <fcntl.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace paddock::mcp::mcp_line_reader_test {
namespace {

// A pipe whose read end a LineReader reads; the write end is written by the test.
class McpLineReader : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(pipe2(fds_, O_CLOEXEC), 0); }
  void TearDown() override {
    close_writer();
    if (fds_[0] >= 0) ::close(fds_[0]);
  }

  void write_all(std::string_view data) {
    while (!data.empty()) {
      ssize_t n = ::write(fds_[1], data.data(), data.size());
      ASSERT_GT(n, 0);
      data.remove_prefix(static_cast<std::size_t>(n));
    }
  }
  void close_writer() {
    if (fds_[1] >= 0) ::close(fds_[1]);
    fds_[1] = -1;
  }

  // Every line the reader yields until it has read everything written (writer closed).
  static std::vector<LineReader::Line> drain(LineReader& reader) {
    std::vector<LineReader::Line> lines;
    for (;;) {
      while (auto line = reader.next()) lines.push_back(std::move(*line));
      if (reader.eof()) break;
      reader.fill();
    }
    while (auto line = reader.next()) lines.push_back(std::move(*line));
    return lines;
  }

  int fds_[2] = {-1, -1};
};

std::vector<std::string> texts(const std::vector<LineReader::Line>& lines) {
  std::vector<std::string> out;
  for (const auto& line : lines) out.push_back(line.oversized ? "<oversized>" : line.text);
  return out;
}

TEST_F(McpLineReader, SeveralLinesInOneWrite) {
  LineReader reader(fds_[0], 1024);
  write_all("one\ntwo\nthree\n");
  ASSERT_TRUE(reader.fill());
  std::vector<std::string> got;
  while (auto line = reader.next()) got.push_back(line->text);
  EXPECT_EQ(got, (std::vector<std::string>{"one", "two", "three"}));
  EXPECT_FALSE(reader.eof());
}

TEST_F(McpLineReader, ALineSplitAcrossWrites) {
  LineReader reader(fds_[0], 1024);
  write_all("{\"jsonrpc\":");
  ASSERT_TRUE(reader.fill());
  EXPECT_FALSE(reader.next().has_value());
  write_all("\"2.0\"}\nnext");
  ASSERT_TRUE(reader.fill());
  auto line = reader.next();
  ASSERT_TRUE(line.has_value());
  EXPECT_FALSE(line->oversized);
  EXPECT_EQ(line->text, "{\"jsonrpc\":\"2.0\"}");
  EXPECT_FALSE(reader.next().has_value()) << "\"next\" has no newline yet";
  write_all("\n");
  ASSERT_TRUE(reader.fill());
  line = reader.next();
  ASSERT_TRUE(line.has_value());
  EXPECT_EQ(line->text, "next");
}

TEST_F(McpLineReader, CrlfLineEndings) {
  LineReader reader(fds_[0], 1024);
  write_all("a\r\nb\r\n");
  close_writer();
  EXPECT_EQ(texts(drain(reader)), (std::vector<std::string>{"a", "b"}));
}

TEST_F(McpLineReader, BlankLinesAreSkipped) {
  LineReader reader(fds_[0], 1024);
  write_all("\n\na\n \t \n\r\nb\n\n");
  close_writer();
  EXPECT_EQ(texts(drain(reader)), (std::vector<std::string>{"a", "b"}));
}

TEST_F(McpLineReader, AnOversizedLineIsReportedOnceAndTheNextLineIsIntact) {
  LineReader reader(fds_[0], 1024);
  // The pipe holds less than 1 MiB, so the writer runs beside the reader.
  std::thread writer([this] {
    write_all(std::string(1 << 20, 'x') + "\n{\"after\":1}\n");
    close_writer();
  });
  auto lines = drain(reader);
  writer.join();
  EXPECT_EQ(texts(lines), (std::vector<std::string>{"<oversized>", "{\"after\":1}"}));
  ASSERT_FALSE(lines.empty());
  EXPECT_TRUE(lines[0].text.empty());
}

TEST_F(McpLineReader, ALineJustOverTheLimitInOneRead) {
  LineReader reader(fds_[0], 8);
  write_all("12345678\n123456789\nok\n");
  close_writer();
  EXPECT_EQ(texts(drain(reader)), (std::vector<std::string>{"12345678", "<oversized>", "ok"}));
}

TEST_F(McpLineReader, TheLastLineWithoutANewline) {
  LineReader reader(fds_[0], 1024);
  write_all("first\nlast");
  close_writer();
  EXPECT_EQ(texts(drain(reader)), (std::vector<std::string>{"first", "last"}));
  EXPECT_TRUE(reader.eof());
  EXPECT_FALSE(reader.next().has_value());
}

// A final line without its newline gets what every other line gets: a blank one is nothing
// (the server would otherwise answer it with a parse error) and a CR before the end is dropped.
TEST_F(McpLineReader, ABlankLastLineWithoutANewlineIsSkipped) {
  LineReader reader(fds_[0], 1024);
  write_all("a\n  ");
  close_writer();
  EXPECT_EQ(texts(drain(reader)), (std::vector<std::string>{"a"}));
}

TEST_F(McpLineReader, TheLastLineWithoutANewlineLosesItsCarriageReturn) {
  LineReader reader(fds_[0], 1024);
  write_all("first\r\nlast\r");
  close_writer();
  EXPECT_EQ(texts(drain(reader)), (std::vector<std::string>{"first", "last"}));
}

TEST_F(McpLineReader, AnOversizedLineAtEndOfFile) {
  LineReader reader(fds_[0], 1024);
  std::thread writer([this] {
    write_all("ok\n" + std::string(200000, 'y'));
    close_writer();
  });
  auto lines = drain(reader);
  writer.join();
  EXPECT_EQ(texts(lines), (std::vector<std::string>{"ok", "<oversized>"}));
}

TEST_F(McpLineReader, EndOfFileWithNothingLeft) {
  LineReader reader(fds_[0], 1024);
  close_writer();
  EXPECT_FALSE(reader.fill());
  EXPECT_TRUE(reader.eof());
  EXPECT_FALSE(reader.next().has_value());
}

}  // namespace
}  // namespace paddock::mcp::mcp_line_reader_test
