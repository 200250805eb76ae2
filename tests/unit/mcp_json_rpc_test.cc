#include "mcp/json_rpc.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

namespace paddock::mcp::mcp_json_rpc_test {
namespace {

using Kind = Incoming::Kind;

TEST(McpJsonRpc, ClassifiesARequest) {
  Incoming in = classify(R"({"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"a":1}})");
  EXPECT_EQ(in.kind, Kind::kRequest);
  EXPECT_EQ(in.id, json(7));
  EXPECT_EQ(in.method, "tools/list");
  EXPECT_EQ(in.params, (json{{"a", 1}}));

  Incoming named = classify(R"({"jsonrpc":"2.0","id":"abc","method":"ping"})");
  EXPECT_EQ(named.kind, Kind::kRequest);
  EXPECT_EQ(named.id, json("abc"));
  EXPECT_TRUE(named.params.is_null());
}

TEST(McpJsonRpc, ClassifiesANotification) {
  Incoming in = classify(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
  EXPECT_EQ(in.kind, Kind::kNotification);
  EXPECT_EQ(in.method, "notifications/initialized");
  EXPECT_TRUE(in.id.is_null());
}

TEST(McpJsonRpc, ClassifiesResponses) {
  Incoming result = classify(R"({"jsonrpc":"2.0","id":3,"result":{}})");
  EXPECT_EQ(result.kind, Kind::kResponse);
  EXPECT_EQ(result.id, json(3));
  Incoming error = classify(R"({"jsonrpc":"2.0","id":"x","error":{"code":1,"message":"m"}})");
  EXPECT_EQ(error.kind, Kind::kResponse);
  EXPECT_EQ(error.id, json("x"));
}

TEST(McpJsonRpc, InvalidJsonIsAParseError) {
  for (const char* bad : {"", "{", "{\"jsonrpc\":\"2.0\",}", "not json", "{\"a\":1} trailing"}) {
    Incoming in = classify(bad);
    EXPECT_EQ(in.kind, Kind::kInvalid) << bad;
    EXPECT_EQ(in.error.code, kParseError) << bad;
    EXPECT_TRUE(in.id.is_null()) << bad;
  }
}

TEST(McpJsonRpc, InvalidUtf8IsAParseError) {
  Incoming in = classify("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\xff\"}");
  EXPECT_EQ(in.kind, Kind::kInvalid);
  EXPECT_EQ(in.error.code, kParseError);
  // An overlong encoding of '/' and a lone surrogate are not UTF-8 either.
  EXPECT_EQ(classify("{\"jsonrpc\":\"2.0\",\"method\":\"\xc0\xaf\"}").error.code, kParseError);
  EXPECT_EQ(classify("{\"jsonrpc\":\"2.0\",\"method\":\"\xed\xa0\x80\"}").error.code, kParseError);
}

TEST(McpJsonRpc, DeepNestingIsRefusedFast) {
  auto started = std::chrono::steady_clock::now();
  Incoming in = classify(std::string(100000, '['));
  Incoming objects = classify("{\"a\":" + std::string(100000, '{'));
  auto elapsed = std::chrono::steady_clock::now() - started;
  EXPECT_EQ(in.kind, Kind::kInvalid);
  EXPECT_EQ(in.error.code, kParseError);
  EXPECT_NE(in.error.message.find("nested deeper than 128"), std::string::npos) << in.error.message;
  EXPECT_EQ(objects.error.code, kParseError);
  EXPECT_NE(objects.error.message.find("nested deeper"), std::string::npos);
  EXPECT_LT(elapsed, std::chrono::milliseconds(500));
}

TEST(McpJsonRpc, NestingLimitCountsOnlyBracketsOutsideStrings) {
  // Exactly at the limit passes the depth check (and is then an invalid request, not an object).
  std::string at_limit = std::string(4, '[') + std::string(4, ']');
  EXPECT_EQ(classify(at_limit, 4).error.code, kInvalidRequest);
  std::string over_limit = std::string(5, '[') + std::string(5, ']');
  EXPECT_EQ(classify(over_limit, 4).error.code, kParseError);
  // Brackets inside strings, even after an escaped quote, are text.
  Incoming in = classify(R"({"jsonrpc":"2.0","method":"m","params":{"s":"\"[[[[[[[[[["}})", 4);
  EXPECT_EQ(in.kind, Kind::kNotification);
  EXPECT_EQ(in.params["s"], "\"[[[[[[[[[[");
}

TEST(McpJsonRpc, BatchesAreInvalidRequests) {
  Incoming in = classify(R"([{"jsonrpc":"2.0","id":1,"method":"ping"}])");
  EXPECT_EQ(in.kind, Kind::kInvalid);
  EXPECT_EQ(in.error.code, kInvalidRequest);
  EXPECT_NE(in.error.message.find("batch"), std::string::npos) << in.error.message;
  EXPECT_EQ(classify("[]").error.code, kInvalidRequest);
}

TEST(McpJsonRpc, NonObjectsAreInvalidRequests) {
  for (const char* bad : {"1", "\"text\"", "null", "true"}) {
    Incoming in = classify(bad);
    EXPECT_EQ(in.kind, Kind::kInvalid) << bad;
    EXPECT_EQ(in.error.code, kInvalidRequest) << bad;
  }
}

TEST(McpJsonRpc, WrongJsonrpcVersionIsAnInvalidRequest) {
  for (const char* bad : {R"({"id":1,"method":"ping"})", R"({"jsonrpc":"1.0","id":1,"method":"p"})",
                          R"({"jsonrpc":2.0,"id":1,"method":"ping"})"}) {
    Incoming in = classify(bad);
    EXPECT_EQ(in.kind, Kind::kInvalid) << bad;
    EXPECT_EQ(in.error.code, kInvalidRequest) << bad;
    EXPECT_EQ(in.id, json(1)) << "a readable id is kept for the answer: " << bad;
  }
}

TEST(McpJsonRpc, IdsOfTheWrongTypeAreInvalidRequests) {
  for (const char* bad : {R"({"jsonrpc":"2.0","id":{"a":1},"method":"ping"})",
                          R"({"jsonrpc":"2.0","id":1.5,"method":"ping"})",
                          R"({"jsonrpc":"2.0","id":[1],"method":"ping"})",
                          R"({"jsonrpc":"2.0","id":true,"method":"ping"})"}) {
    Incoming in = classify(bad);
    EXPECT_EQ(in.kind, Kind::kInvalid) << bad;
    EXPECT_EQ(in.error.code, kInvalidRequest) << bad;
    EXPECT_TRUE(in.id.is_null()) << bad;
  }
}

TEST(McpJsonRpc, ParamsMustBeAnObject) {
  for (const char* bad : {R"({"jsonrpc":"2.0","id":1,"method":"m","params":[1,2]})",
                          R"({"jsonrpc":"2.0","id":1,"method":"m","params":"p"})",
                          R"({"jsonrpc":"2.0","method":"m","params":3})"}) {
    Incoming in = classify(bad);
    EXPECT_EQ(in.kind, Kind::kInvalid) << bad;
    EXPECT_EQ(in.error.code, kInvalidRequest) << bad;
  }
  EXPECT_EQ(classify(R"({"jsonrpc":"2.0","id":1,"method":"m","params":null})").kind,
            Kind::kRequest);
}

TEST(McpJsonRpc, MethodMustBeAString) {
  Incoming in = classify(R"({"jsonrpc":"2.0","id":2,"method":5})");
  EXPECT_EQ(in.kind, Kind::kInvalid);
  EXPECT_EQ(in.error.code, kInvalidRequest);
  EXPECT_EQ(in.id, json(2));
  EXPECT_EQ(classify(R"({"jsonrpc":"2.0","id":2})").error.code, kInvalidRequest);
}

TEST(McpJsonRpc, ErrorMessageOmitsANullId) {
  RpcError error{kParseError, "bad", nullptr};
  json without = error_message(nullptr, error);
  EXPECT_FALSE(without.contains("id")) << without.dump();
  EXPECT_EQ(without["jsonrpc"], "2.0");
  EXPECT_EQ(without["error"]["code"], kParseError);
  EXPECT_EQ(without["error"]["message"], "bad");
  EXPECT_FALSE(without["error"].contains("data"));

  json with = error_message(json(4), RpcError{kInvalidParams, "no", json{{"k", "v"}}});
  EXPECT_EQ(with["id"], 4);
  EXPECT_EQ(with["error"]["data"], (json{{"k", "v"}}));
}

TEST(McpJsonRpc, ResultsAndNotifications) {
  EXPECT_EQ(result_message(json("a"), json{{"x", 1}}),
            (json{{"jsonrpc", "2.0"}, {"id", "a"}, {"result", {{"x", 1}}}}));
  EXPECT_EQ(
      notification_message("notifications/progress", json{{"p", 1}}),
      (json{{"jsonrpc", "2.0"}, {"method", "notifications/progress"}, {"params", {{"p", 1}}}}));
}

TEST(McpJsonRpc, SerializeReplacesInvalidUtf8) {
  json message = result_message(json(1), json{{"text", std::string("ok \xff\xfe end")}});
  std::string line;
  ASSERT_NO_THROW(line = serialize(message));
  EXPECT_EQ(line.find('\n'), std::string::npos);
  EXPECT_NE(line.find("ok \xef\xbf\xbd"), std::string::npos) << line;  // U+FFFD
  EXPECT_EQ(line.find('\xff'), std::string::npos);
  // What it wrote reads back as a response.
  EXPECT_EQ(classify(line).kind, Kind::kResponse);
}

TEST(McpJsonRpc, SerializeIsCompact) {
  EXPECT_EQ(serialize(json{{"a", json::array({1, 2})}}), R"({"a":[1,2]})");
}

}  // namespace
}  // namespace paddock::mcp::mcp_json_rpc_test
