#pragma once

// What the tests of app/wrapped_stream share: a stream whose clock the test moves and whose calls
// it keeps, and the lines a client and a server write.

#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "app/wrapped_stream.h"

namespace paddock::app::wrapped_stream_test {

using json = nlohmann::json;

inline WrappedStream::Options demo_options() {
  WrappedStream::Options options;
  options.server_name = "demo";
  options.denied_tools = {"write_file"};
  return options;
}

// A stream whose clock the test moves, with the calls it reported.
struct Wrapped {
  explicit Wrapped(WrappedStream::Options options = demo_options())
      : stream(
            std::move(options), [this](const WrappedCall& call) { calls.push_back(call); },
            [this] { return clock; }) {}
  std::chrono::steady_clock::time_point clock{};
  std::vector<WrappedCall> calls;
  WrappedStream stream;
};

inline std::vector<json> lines_of(const std::string& text) {
  std::vector<json> lines;
  std::size_t start = 0;
  for (std::size_t end; (end = text.find('\n', start)) != std::string::npos; start = end + 1) {
    lines.push_back(json::parse(text.substr(start, end - start)));
  }
  EXPECT_EQ(start, text.size()) << "a line without its newline: " << text;
  return lines;
}

inline std::string call_line(const json& id, const std::string& tool,
                             json arguments = json::object()) {
  return json{{"jsonrpc", "2.0"},
              {"id", id},
              {"method", "tools/call"},
              {"params", {{"name", tool}, {"arguments", std::move(arguments)}}}}
             .dump() +
         "\n";
}

inline std::string result_line(const json& id, json result = {{"content", json::array()}}) {
  return json{{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}}.dump() + "\n";
}

}  // namespace paddock::app::wrapped_stream_test
