// The framing `paddock wrap` reads both ways (issue 52, item 5): a line over the bound is refused
// to the other side while it is still arriving, holding no more than the bound, and the next line
// passes; a line of exactly the bound passes; garbage is refused from either side, never passed
// on, and never stops the stream.

#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "app/json_lines.h"
#include "app/wrapped_stream.h"
#include "support/wrapped_stream_fixture.h"

namespace paddock::app::app_wrapped_stream_frames_test {
namespace {

using json = nlohmann::json;
using wrapped_stream_test::call_line;
using wrapped_stream_test::demo_options;
using wrapped_stream_test::lines_of;
using wrapped_stream_test::result_line;
using wrapped_stream_test::Wrapped;

TEST(AppWrappedStream, AnOversizedLineFromTheClientIsRefusedAndTheNextPasses) {
  WrappedStream::Options options = demo_options();
  options.max_frame_bytes = 64;
  Wrapped wrapped(options);
  StreamOutput out;
  for (int i = 0; i < 50; ++i) {  // 500 bytes, in pieces, before its newline
    auto piece = wrapped.stream.from_client(std::string(10, 'x'));
    EXPECT_EQ(piece.to_client + piece.to_server, "");
  }
  std::string valid = R"({"jsonrpc":"2.0","id":1,"method":"ping"})"
                      "\n";
  out = wrapped.stream.from_client("xx\n" + valid);
  EXPECT_EQ(out.to_server, valid);
  auto replies = lines_of(out.to_client);
  ASSERT_EQ(replies.size(), 1u);
  EXPECT_FALSE(replies[0].contains("id"));  // unreadable: MCP 2025-11-25 wants none, not null
  EXPECT_EQ(replies[0]["error"]["code"], -32600);
  std::string message = replies[0]["error"]["message"];
  EXPECT_NE(message.find("502 bytes"), std::string::npos) << message;
  EXPECT_NE(message.find("limit of 64 bytes"), std::string::npos) << message;
  EXPECT_EQ(out.notes.size(), 1u);
}

TEST(AppWrappedStream, AnOversizedLineFromTheServerIsDroppedWithANoticeAndTheNextPasses) {
  WrappedStream::Options options = demo_options();
  options.max_frame_bytes = 100;
  Wrapped wrapped(options);
  wrapped.stream.from_client(call_line(1, "read_file"));
  std::string big = result_line(1, {{"content", std::string(200, 'y')}});
  std::string valid = result_line(1);
  auto out = wrapped.stream.from_server(big + valid);
  auto lines = lines_of(out.to_client);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0]["method"], "notifications/message");
  EXPECT_EQ(lines[0]["params"]["level"], "error");
  EXPECT_EQ(lines[0]["params"]["logger"], "paddock");
  std::string data = lines[0]["params"]["data"];
  EXPECT_NE(data.find("oversized line of " + std::to_string(big.size() - 1) + " bytes"),
            std::string::npos)
      << data;
  EXPECT_NE(data.find("demo"), std::string::npos) << data;
  EXPECT_EQ(out.to_client.substr(out.to_client.size() - valid.size()), valid);
  ASSERT_EQ(wrapped.calls.size(), 1u);
  EXPECT_EQ(wrapped.calls[0].outcome, "ok");
  EXPECT_EQ(out.notes.size(), 1u);
}

// A message of `size` bytes before its newline.
std::string message_of_size(std::size_t size) {
  std::string head = R"({"jsonrpc":"2.0","method":"notifications/x","params":{"p":")";
  std::string tail = R"("}})";
  return head + std::string(size - head.size() - tail.size(), 'p') + tail;
}

TEST(AppWrappedStream, ALineOfExactlyTheBoundPassesAndOneByteMoreDoesNot) {
  WrappedStream::Options options = demo_options();
  options.max_frame_bytes = 100;
  Wrapped wrapped(options);
  std::string exact = message_of_size(100) + "\n";
  std::string exact_crlf = message_of_size(100) + "\r\n";
  for (const auto& line : {exact, exact_crlf}) {
    EXPECT_EQ(wrapped.stream.from_client(line).to_server, line);
    EXPECT_EQ(wrapped.stream.from_server(line).to_client, line);
    std::string split;  // byte by byte, as it may come
    for (char c : line) split += wrapped.stream.from_client(std::string(1, c)).to_server;
    EXPECT_EQ(split, line);
  }
  std::string over = message_of_size(101) + "\n";
  auto out = wrapped.stream.from_client(over);
  EXPECT_EQ(out.to_server, "");
  EXPECT_EQ(lines_of(out.to_client)[0]["error"]["code"], -32600);
  EXPECT_EQ(wrapped.stream.from_server(over).notes.size(), 1u);
}

TEST(AppWrappedStreamFraming, HoldsNoMoreThanTheBoundWhileALineArrives) {
  JsonLineSplitter splitter(16);
  for (int i = 0; i < 1000; ++i) {
    EXPECT_TRUE(splitter.feed("abcdefg").empty());
    EXPECT_LE(splitter.held(), 17u);
  }
  auto lines = splitter.feed("\n{}\n");
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_TRUE(lines[0].oversized);
  EXPECT_EQ(lines[0].bytes, 7000u);
  EXPECT_EQ(lines[1].raw, "{}\n");
  splitter.feed("0123456789abcdef\r");  // the bound and a '\r': a newline may still come
  EXPECT_EQ(splitter.held(), 17u);
  lines = splitter.feed("\n");
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_FALSE(lines[0].oversized);
  EXPECT_EQ(lines[0].message(), "0123456789abcdef");
  splitter.feed("0123456789abcdef\rx");
  EXPECT_EQ(splitter.held(), 0u);
  auto last = splitter.finish();
  ASSERT_TRUE(last);
  EXPECT_TRUE(last->oversized);
  EXPECT_EQ(last->bytes, 18u);
}

TEST(AppWrappedStream, GarbageFromTheClientIsRefusedWithAParseErrorAndNeverForwarded) {
  Wrapped wrapped;
  struct Case {
    std::string line;
    int code;
  };
  std::vector<Case> cases = {{"not json", -32700},     {"{\"jsonrpc\":\"2.0\",", -32700},
                             {"\"\xff\xfe\"", -32700}, {std::string(5000, '['), -32700},
                             {"42", -32600},           {"[]", -32600},
                             {"null", -32600}};
  for (const auto& [line, code] : cases) {
    auto out = wrapped.stream.from_client(line + "\n");
    EXPECT_EQ(out.to_server, "") << line;
    auto replies = lines_of(out.to_client);
    ASSERT_EQ(replies.size(), 1u) << line;
    EXPECT_EQ(replies[0]["error"]["code"], code) << line;
    EXPECT_EQ(out.notes.size(), 1u) << line;
  }
  auto blank = wrapped.stream.from_client("\n\r\n  \t \n");
  EXPECT_EQ(blank.to_server + blank.to_client, "");
  EXPECT_TRUE(blank.notes.empty());
}

TEST(AppWrappedStream, GarbageFromTheServerIsDroppedWithANotice) {
  Wrapped wrapped;
  for (std::string line : {"Server started on stdio", "\xc3\x28", "7", "{\"a\":"}) {
    auto out = wrapped.stream.from_server(line + "\n");
    auto lines = lines_of(out.to_client);
    ASSERT_EQ(lines.size(), 1u) << line;
    EXPECT_EQ(lines[0]["method"], "notifications/message");
    std::string data = lines[0]["params"]["data"];
    EXPECT_NE(data.find(std::to_string(line.size()) + " bytes"), std::string::npos) << data;
    EXPECT_EQ(out.to_server, "");
  }
}

TEST(AppWrappedStream, ALoneSurrogateEscapeAsJavaScriptWritesItPasses) {
  Wrapped wrapped;
  wrapped.stream.from_client(call_line(1, "read_file"));
  std::string answer =
      R"({"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"cut \ud83d"}]}})"
      "\n";
  auto out = wrapped.stream.from_server(answer);
  EXPECT_EQ(out.to_client, answer);
  ASSERT_EQ(wrapped.calls.size(), 1u);
  EXPECT_EQ(wrapped.calls[0].outcome, "ok");
}

TEST(AppWrappedStreamFraming, OnlyUnpairedSurrogateEscapesAreMended) {
  for (std::string text : {R"(["\ud83d"])", R"(["x\udc00y", "\\ud800"])", R"(["\ud83d\ude00"])",
                           R"(["\ud83d\u0041"])"}) {
    auto parsed = parse_line(text);
    EXPECT_FALSE(parsed.why) << text;
  }
  EXPECT_EQ(parse_line(R"(["\\ud800"])").value[0], "\\ud800");
  EXPECT_EQ(parse_line(R"(["\ud83d\ude00"])").value[0], "\xf0\x9f\x98\x80");
  EXPECT_EQ(parse_line(R"(["a\ud83db"])").value[0],
            "a\xef\xbf\xbd"
            "b");
  EXPECT_TRUE(parse_line(R"(["\ud83d")").why);  // still not JSON
  EXPECT_TRUE(parse_line("[\"\xff\"]").why);    // invalid UTF-8 is refused
}

}  // namespace
}  // namespace paddock::app::app_wrapped_stream_frames_test
