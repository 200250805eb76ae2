// What `paddock wrap` reads of the JSON-RPC stream between an MCP client and the server it wraps
// (issue 52, item 5): lines pass byte for byte, whatever the split of their bytes; a denied tool
// is refused and hidden; malformed and oversized lines are refused to the other side, the next
// line passing; and every tools/call ends in one call for the audit log.

#include <chrono>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "app/wrapped_stream.h"
#include "support/wrapped_stream_fixture.h"

namespace paddock::app::app_wrapped_stream_test {
namespace {

using json = nlohmann::json;
using namespace std::chrono_literals;
using wrapped_stream_test::call_line;
using wrapped_stream_test::demo_options;
using wrapped_stream_test::lines_of;
using wrapped_stream_test::result_line;
using wrapped_stream_test::Wrapped;

TEST(AppWrappedStream, PassesLinesByteForByteAndReportsTheCall) {
  Wrapped wrapped;
  std::string request = R"({ "method" : "tools/call","jsonrpc":"2.0", "id":7 ,)"
                        R"("params":{"arguments":{"path":"/a", "n" : [1, 2]},"name":"read_file"} })"
                        "\r\n";
  auto sent = wrapped.stream.from_client(request);
  EXPECT_EQ(sent.to_server, request);
  EXPECT_EQ(sent.to_client, "");
  EXPECT_TRUE(sent.notes.empty());
  wrapped.clock += 25ms;
  std::string answer = R"({"result" : {"content":[]} ,"jsonrpc":"2.0","id":7})"
                       "\n";
  auto answered = wrapped.stream.from_server(answer);
  EXPECT_EQ(answered.to_client, answer);
  EXPECT_EQ(answered.to_server, "");
  ASSERT_EQ(wrapped.calls.size(), 1u);
  const WrappedCall& call = wrapped.calls[0];
  EXPECT_EQ(call.tool, "read_file");
  using Argument = std::pair<std::string, std::uint64_t>;
  EXPECT_EQ(call.arguments, (std::vector<Argument>{{"n", 5}, {"path", 4}}));
  EXPECT_EQ(call.duration_ms, 25);
  EXPECT_EQ(call.outcome, "ok");
  EXPECT_FALSE(call.error);
  EXPECT_FALSE(call.values);
  EXPECT_EQ(wrapped.stream.open_requests(), 0u);
}

// The whole exchange fed at once, then split at every byte, then a byte at a time: the same
// bytes come out each way, and the same calls are reported.
struct Exchange {
  std::string to_server, to_client;
  std::vector<std::string> outcomes;
};

Exchange run(const std::string& client, const std::string& server,
             const std::vector<std::size_t>& client_cuts,
             const std::vector<std::size_t>& server_cuts) {
  Wrapped wrapped;
  Exchange exchange;
  auto take = [&](const StreamOutput& out) {
    exchange.to_server += out.to_server;
    exchange.to_client += out.to_client;
  };
  auto feed = [&](const std::string& text, const std::vector<std::size_t>& cuts, bool from_client) {
    std::size_t start = 0;
    for (std::size_t cut : cuts) {
      std::string piece = text.substr(start, cut - start);
      take(from_client ? wrapped.stream.from_client(piece) : wrapped.stream.from_server(piece));
      start = cut;
    }
    std::string rest = text.substr(start);
    take(from_client ? wrapped.stream.from_client(rest) : wrapped.stream.from_server(rest));
  };
  feed(client, client_cuts, true);
  feed(server, server_cuts, false);
  for (const auto& call : wrapped.calls)
    exchange.outcomes.push_back(call.tool + ":" + call.outcome);
  return exchange;
}

TEST(AppWrappedStream, EverySplitOfTheBytesGivesTheSameOutput) {
  std::string client = R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{}})"
                       "\r\n" +
                       call_line(2, "read_file", {{"path", "/work/é"}}) +
                       call_line("w", "write_file") + "\n" +
                       R"({"jsonrpc":"2.0","id":3,"method":"tools/list"})"
                       "\n" +
                       R"({"jsonrpc":"2.0","method":"notifications/initialized"})"
                       "\n";
  std::string server =
      result_line(1, {{"capabilities", json::object()}}) +
      result_line(3,
                  {{"tools", json::array({{{"name", "write_file"}}, {{"name", "read_file"}}})}}) +
      "garbage\n" + result_line(2);
  Exchange whole = run(client, server, {}, {});
  EXPECT_EQ(whole.outcomes, (std::vector<std::string>{"write_file:denied", "read_file:ok"}));
  EXPECT_EQ(lines_of(whole.to_server).size(), 4u);
  EXPECT_EQ(lines_of(whole.to_client).size(), 5u);  // the denial, 3 answers, the garbage's notice
  for (std::size_t cut = 0; cut <= client.size(); ++cut) {
    Exchange split = run(client, server, {cut}, {std::min(cut, server.size())});
    ASSERT_EQ(split.to_server, whole.to_server) << "cut at " << cut;
    ASSERT_EQ(split.to_client, whole.to_client) << "cut at " << cut;
    ASSERT_EQ(split.outcomes, whole.outcomes) << "cut at " << cut;
  }
  std::vector<std::size_t> every_client, every_server;
  for (std::size_t at = 1; at < client.size(); ++at) every_client.push_back(at);
  for (std::size_t at = 1; at < server.size(); ++at) every_server.push_back(at);
  Exchange bytes = run(client, server, every_client, every_server);
  EXPECT_EQ(bytes.to_server, whole.to_server);
  EXPECT_EQ(bytes.to_client, whole.to_client);
  EXPECT_EQ(bytes.outcomes, whole.outcomes);
}

TEST(AppWrappedStream, ADeniedCallIsAnsweredHereAndNeverReachesTheServer) {
  Wrapped wrapped;
  auto out = wrapped.stream.from_client(call_line(4, "write_file", {{"path", "/x"}}));
  EXPECT_EQ(out.to_server, "");
  auto replies = lines_of(out.to_client);
  ASSERT_EQ(replies.size(), 1u);
  EXPECT_EQ(replies[0]["id"], 4);
  EXPECT_EQ(replies[0]["error"]["code"], kDeniedToolCode);
  std::string message = replies[0]["error"]["message"];
  EXPECT_NE(message.find("denied the tool \"write_file\""), std::string::npos) << message;
  EXPECT_NE(message.find("--deny-tool"), std::string::npos) << message;
  EXPECT_NE(message.find("profile"), std::string::npos) << message;
  ASSERT_EQ(out.notes.size(), 1u);
  ASSERT_EQ(wrapped.calls.size(), 1u);
  EXPECT_EQ(wrapped.calls[0].outcome, "denied");
  EXPECT_EQ(wrapped.calls[0].tool, "write_file");
  EXPECT_EQ(wrapped.calls[0].error, message);
  EXPECT_EQ(wrapped.stream.open_requests(), 0u);
}

TEST(AppWrappedStream, ADeniedNotificationIsDroppedWithoutAnAnswer) {
  Wrapped wrapped;
  auto out = wrapped.stream.from_client(
      R"({"jsonrpc":"2.0","method":"tools/call","params":{"name":"write_file"}})"
      "\n");
  EXPECT_EQ(out.to_server, "");
  EXPECT_EQ(out.to_client, "");
  ASSERT_EQ(wrapped.calls.size(), 1u);
  EXPECT_EQ(wrapped.calls[0].outcome, "denied");
}

TEST(AppWrappedStream, ADeniedCallInABatchIsAnsweredAndTheRestPasses) {
  Wrapped wrapped;
  json batch = json::array({json::parse(call_line(1, "write_file")),
                            json::parse(call_line("two", "read_file")),
                            {{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}}});
  auto out = wrapped.stream.from_client(batch.dump() + "\n");
  auto forwarded = lines_of(out.to_server);
  ASSERT_EQ(forwarded.size(), 1u);
  ASSERT_TRUE(forwarded[0].is_array());
  ASSERT_EQ(forwarded[0].size(), 2u);
  EXPECT_EQ(forwarded[0][0]["id"], "two");
  EXPECT_EQ(forwarded[0][1]["method"], "notifications/initialized");
  auto replies = lines_of(out.to_client);
  ASSERT_EQ(replies.size(), 1u);
  ASSERT_TRUE(replies[0].is_array());
  ASSERT_EQ(replies[0].size(), 1u);
  EXPECT_EQ(replies[0][0]["id"], 1);
  EXPECT_EQ(replies[0][0]["error"]["code"], kDeniedToolCode);

  std::string answer = "[" + result_line("two");
  answer.back() = ']';
  answer += "\n";
  auto answered = wrapped.stream.from_server(answer);
  EXPECT_EQ(answered.to_client, answer);
  ASSERT_EQ(wrapped.calls.size(), 2u);
  EXPECT_EQ(wrapped.calls[1].tool, "read_file");
  EXPECT_EQ(wrapped.calls[1].outcome, "ok");
}

TEST(AppWrappedStream, ABatchWhollyDeniedSendsNothingToTheServer) {
  Wrapped wrapped;
  json batch = json::array(
      {json::parse(call_line(1, "write_file")), json::parse(call_line(2, "write_file"))});
  auto out = wrapped.stream.from_client(batch.dump() + "\n");
  EXPECT_EQ(out.to_server, "");
  auto replies = lines_of(out.to_client);
  ASSERT_EQ(replies.size(), 1u);
  EXPECT_EQ(replies[0].size(), 2u);
  EXPECT_EQ(wrapped.calls.size(), 2u);
}

TEST(AppWrappedStream, ABatchWithoutADeniedCallPassesAsItCame) {
  Wrapped wrapped;
  std::string batch = "[ " + call_line(1, "read_file");
  batch.pop_back();
  batch += " , {\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"} ]\n";
  EXPECT_EQ(wrapped.stream.from_client(batch).to_server, batch);
  EXPECT_EQ(wrapped.stream.open_requests(), 2u);
}

TEST(AppWrappedStream, IdsMatchAsJsonStringsAndNumbersApart) {
  Wrapped wrapped;
  wrapped.stream.from_client(call_line("abc", "read_file") + call_line(5, "read_file") +
                             call_line(6, "read_file"));
  EXPECT_EQ(wrapped.stream.open_requests(), 3u);
  wrapped.stream.from_server(result_line("5"));  // a string: not call 5
  EXPECT_TRUE(wrapped.calls.empty());
  wrapped.stream.from_server(result_line("abc"));
  wrapped.stream.from_server(R"({"jsonrpc":"2.0","id":5.0,"result":{}})"
                             "\n");
  ASSERT_EQ(wrapped.calls.size(), 2u);
  EXPECT_EQ(wrapped.stream.open_requests(), 1u);
}

TEST(AppWrappedStream, ToolsListAnswersLoseTheDeniedToolsAndNothingElse) {
  Wrapped wrapped;
  std::string list = R"({"jsonrpc":"2.0","id":"l1","method":"tools/list","params":{}})"
                     "\n";
  EXPECT_EQ(wrapped.stream.from_client(list).to_server, list);
  json answer = {{"jsonrpc", "2.0"},
                 {"id", "l1"},
                 {"result",
                  {{"tools", json::array({{{"name", "read_file"}, {"inputSchema", {{"a", 1}}}},
                                          {{"name", "write_file"}},
                                          {{"name", "list_directory"}},
                                          "not an object"})},
                   {"nextCursor", "c2"},
                   {"_meta", {{"k", "v"}}}}}};
  auto out = wrapped.stream.from_server(answer.dump(2) + "\n" /* several lines: not one message */);
  EXPECT_FALSE(out.to_client.empty());  // dropped, and the client told, line by line
  out = wrapped.stream.from_client(list);
  out = wrapped.stream.from_server(answer.dump() + "\r\n");
  ASSERT_EQ(out.to_client.back(), '\n');
  auto lines = lines_of(out.to_client);
  ASSERT_EQ(lines.size(), 1u);
  json expected = answer;
  expected["result"]["tools"].erase(1);
  EXPECT_EQ(lines[0], expected);
  EXPECT_TRUE(wrapped.calls.empty());
  EXPECT_EQ(wrapped.stream.open_requests(), 0u);
}

TEST(AppWrappedStream, AToolsListWithoutADeniedToolPassesAsItCame) {
  Wrapped wrapped;
  wrapped.stream.from_client(R"({"jsonrpc":"2.0","id":9,"method":"tools/list"})"
                             "\n");
  std::string answer = R"({ "jsonrpc":"2.0", "id":9, "result":{"tools":[{"name":"read_file"}]}})"
                       "\n";
  EXPECT_EQ(wrapped.stream.from_server(answer).to_client, answer);
}

TEST(AppWrappedStream, WhatIsNotAnAnswerToOurRequestsPassesUntouched) {
  Wrapped wrapped;
  std::string unknown = R"({"id" : 99, "jsonrpc":"2.0","result":{ "content" : [] }})"
                        "\n";
  std::string request =
      R"({"jsonrpc":"2.0","id":"s1","method":"sampling/createMessage","params":{}})"
      "\n";
  std::string notice = R"({"jsonrpc":"2.0","method":"notifications/tools/list_changed"})"
                       "\n";
  std::string reply = R"({"jsonrpc":"2.0","id":"s1","result":{"role":"assistant"}})"
                      "\n";
  auto out = wrapped.stream.from_server(unknown + request + notice);
  EXPECT_EQ(out.to_client, unknown + request + notice);
  EXPECT_TRUE(out.notes.empty());
  EXPECT_EQ(wrapped.stream.from_client(reply).to_server, reply);
  EXPECT_TRUE(wrapped.calls.empty());
}

TEST(AppWrappedStream, ErrorsAndToolErrorsAreTheCallsOutcome) {
  WrappedStream::Options options = demo_options();
  options.record_values = true;
  Wrapped wrapped(options);
  wrapped.stream.from_client(call_line(1, "a", {{"x", "secret"}}) + call_line(2, "b"));
  wrapped.stream.from_server(
      R"({"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Unknown tool: a"}})"
      "\n" +
      result_line(2, {{"content", json::array()}, {"isError", true}}));
  ASSERT_EQ(wrapped.calls.size(), 2u);
  EXPECT_EQ(wrapped.calls[0].outcome, "error");
  EXPECT_EQ(wrapped.calls[0].error, "Unknown tool: a");
  EXPECT_EQ(wrapped.calls[0].values, (json{{"x", "secret"}}));
  EXPECT_EQ(wrapped.calls[1].outcome, "tool_error");
  EXPECT_EQ(wrapped.calls[1].values, json::object());
}

TEST(AppWrappedStream, WhenTheServerEndsItsOpenCallsEndUnanswered) {
  Wrapped wrapped;
  wrapped.stream.from_client(call_line(1, "read_file") + call_line(2, "list_directory") +
                             R"({"jsonrpc":"2.0","id":3,"method":"tools/list"})"
                             "\n");
  wrapped.clock += 40ms;
  std::string last = result_line(1);
  last.pop_back();  // the server's last line lacks its newline
  auto out = wrapped.stream.from_server(last);
  EXPECT_EQ(out.to_client, "");
  out = wrapped.stream.server_ended();
  EXPECT_EQ(out.to_client, last + "\n");
  ASSERT_EQ(wrapped.calls.size(), 2u);
  EXPECT_EQ(wrapped.calls[0].outcome, "ok");
  EXPECT_EQ(wrapped.calls[1].tool, "list_directory");
  EXPECT_EQ(wrapped.calls[1].outcome, "unanswered");
  EXPECT_EQ(wrapped.calls[1].duration_ms, 40);
  EXPECT_TRUE(wrapped.calls[1].error);
  ASSERT_EQ(out.notes.size(), 1u);
  EXPECT_NE(out.notes[0].find("1 tools/call unanswered"), std::string::npos) << out.notes[0];
  EXPECT_EQ(wrapped.stream.open_requests(), 0u);
}

TEST(AppWrappedStream, AServerEndingInTheMiddleOfALineIsTold) {
  Wrapped wrapped;
  auto out = wrapped.stream.from_server(R"({"jsonrpc":"2.0","id":1,"res)");
  EXPECT_EQ(out.to_client, "");
  out = wrapped.stream.server_ended();
  ASSERT_EQ(lines_of(out.to_client).size(), 1u);
  EXPECT_EQ(lines_of(out.to_client)[0]["method"], "notifications/message");
  EXPECT_EQ(wrapped.stream.server_ended().to_client, "");  // once
}

TEST(AppWrappedStream, AClientsLastLineWithoutANewlineIsPassedWithOne) {
  Wrapped wrapped;
  std::string last = R"({"jsonrpc":"2.0","method":"notifications/cancelled"})";
  EXPECT_EQ(wrapped.stream.from_client(last).to_server, "");
  EXPECT_EQ(wrapped.stream.client_ended().to_server, last + "\n");
  EXPECT_EQ(wrapped.stream.client_ended().to_server, "");
}

TEST(AppWrappedStream, OpenRequestsAreBoundedAndTheOldestForgotten) {
  WrappedStream::Options options = demo_options();
  options.max_open_requests = 3;
  Wrapped wrapped(options);
  std::string calls;
  for (int id = 1; id <= 5; ++id) calls += call_line(id, "read_file");
  auto out = wrapped.stream.from_client(calls);
  EXPECT_EQ(out.to_server, calls);
  EXPECT_EQ(out.notes.size(), 2u);
  EXPECT_EQ(wrapped.stream.open_requests(), 3u);
  ASSERT_EQ(wrapped.calls.size(), 2u);
  EXPECT_EQ(wrapped.calls[0].outcome, "unanswered");
  EXPECT_EQ(wrapped.stream.from_server(result_line(1)).to_client, result_line(1));
  EXPECT_EQ(wrapped.calls.size(), 2u);  // forgotten: its answer passes, unmatched
  wrapped.stream.from_server(result_line(5));
  EXPECT_EQ(wrapped.calls.size(), 3u);
}

TEST(AppWrappedStream, HeldValuesAreBoundedToo) {
  WrappedStream::Options options = demo_options();
  options.record_values = true;
  options.max_open_bytes = 4096;
  Wrapped wrapped(options);
  for (int id = 1; id <= 10; ++id) {
    wrapped.stream.from_client(call_line(id, "read_file", {{"v", std::string(1000, 'v')}}));
  }
  EXPECT_LE(wrapped.stream.open_requests(), 4u);
  EXPECT_GE(wrapped.calls.size(), 6u);
}

TEST(AppWrappedStream, ARequestReusingAnOpenIdReplacesIt) {
  Wrapped wrapped;
  wrapped.stream.from_client(call_line(1, "read_file") + call_line(1, "list_directory"));
  ASSERT_EQ(wrapped.calls.size(), 1u);
  EXPECT_EQ(wrapped.calls[0].tool, "read_file");
  EXPECT_EQ(wrapped.calls[0].outcome, "unanswered");
  wrapped.stream.from_server(result_line(1));
  ASSERT_EQ(wrapped.calls.size(), 2u);
  EXPECT_EQ(wrapped.calls[1].tool, "list_directory");
}

}  // namespace
}  // namespace paddock::app::app_wrapped_stream_test
