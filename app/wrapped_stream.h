#pragma once

// `paddock wrap` sits between an MCP client and a stdio MCP server it runs in a sandbox, and
// this is what it reads of the JSON-RPC stream, both ways (issue 52, item 5). It passes every
// line on byte for byte, with three exceptions, each told to the side that sent it:
//   - a tools/call of a denied tool (--deny-tool, the profile) never reaches the server: the
//     client gets a JSON-RPC error (kDeniedToolCode) with the call's id that names the tool;
//   - the answer to a tools/list is written anew, without the denied tools, when it had any;
//   - a malformed or oversized line is dropped: from the client, it gets an error response
//     (-32700, or -32600 for an oversized one, naming the bound); from the server, the client
//     gets a notifications/message at level "error" that says what was dropped.
// Each tools/call ends in one WrappedCall for the audit log, answered or not.
//
// Pure: no sockets, threads or clock reads (time comes from `now`), so every split of the
// bytes and every order of events can be tested. Its memory is bounded: a line by
// max_frame_bytes, the calls awaiting an answer by max_open_requests and max_open_bytes.
//
// Error responses to a line whose id could not be read go without an id, as paddock's own MCP
// server writes them: from MCP 2025-11-25 on an error response's id is optional but, when
// present, must be a string or a number, so `"id":null` would fail the client's schema.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/json_lines.h"

namespace paddock::app {

// One tools/call, for the audit log.
struct WrappedCall {
  std::string tool;
  // Each argument's name and the size in bytes of its value as compact JSON.
  std::vector<std::pair<std::string, std::uint64_t>> arguments;
  std::optional<nlohmann::json> values;  // the arguments object, only with record_values
  std::int64_t duration_ms = 0;
  // "ok", "error" (a JSON-RPC error), "tool_error" (result.isError), "denied", or "unanswered"
  // (the server ended first, or the call was forgotten to keep the wrapper's memory bounded)
  std::string outcome;
  std::optional<std::string> error;  // the JSON-RPC error's message, or why it was denied
};

// What one step writes: to the server's stdin, to the client's stdout, and lines for stderr.
struct StreamOutput {
  std::string to_server;
  std::string to_client;
  std::vector<std::string> notes;  // one line each, without a newline or a prefix
};

// The code of the error that answers a call to a denied tool: MCP's own for a tool the server
// does not know (Invalid params), which is what a denied tool is from the client's side, since
// tools/list no longer shows it.
inline constexpr int kDeniedToolCode = -32602;

class WrappedStream {
 public:
  using Clock = std::function<std::chrono::steady_clock::time_point()>;
  struct Options {
    std::string server_name;  // for the messages and notes
    std::set<std::string> denied_tools;
    std::size_t max_frame_bytes = 16 << 20;  // a line, without its newline
    bool record_values = false;              // --audit-values
    // The requests (tools/call, tools/list) awaiting an answer: past either bound the oldest is
    // forgotten (a call ends "unanswered"), so that a client cannot grow the wrapper's memory.
    std::size_t max_open_requests = 4096;
    std::size_t max_open_bytes = 64 << 20;  // what they hold: names, and values when recorded
  };

  WrappedStream(Options options, std::function<void(const WrappedCall&)> on_call, Clock now);

  // Bytes as read from the client (the wrapper's stdin) or from the server's stdout, split
  // anywhere.
  StreamOutput from_client(std::string_view bytes);
  StreamOutput from_server(std::string_view bytes);
  // The client's input ended: a last line without a newline is taken as one (and given one).
  StreamOutput client_ended();
  // The server's stdout ended: its last line as above, then every call still open ends
  // "unanswered" (through on_call, oldest first).
  StreamOutput server_ended();

  [[nodiscard]] std::size_t open_requests() const { return open_.size(); }

 private:
  struct Open {
    bool list = false;  // a tools/list; else a tools/call
    std::string tool;
    std::vector<std::pair<std::string, std::uint64_t>> arguments;
    std::optional<std::string> values;  // compact JSON, parsed again when the call ends
    std::chrono::steady_clock::time_point started;
    std::uint64_t order = 0;
    std::size_t held = 0;
  };

  // What becomes of one client message: passed on or not, and the answer it gets from here.
  struct Verdict {
    bool forward = true;
    std::optional<nlohmann::json> reply;
  };

  void client_line(const JsonLine& line, StreamOutput& out);
  void client_batch(const JsonLine& line, nlohmann::json& batch, StreamOutput& out);
  Verdict client_message(const nlohmann::json& message, StreamOutput& out);
  [[nodiscard]] Open describe_call(const nlohmann::json& message) const;
  void remember(const nlohmann::json& id, Open open, StreamOutput& out);
  Open take(std::map<nlohmann::json, Open>::iterator at);
  void end_call(Open open, std::string outcome, std::optional<std::string> error);
  void server_line(const JsonLine& line, StreamOutput& out);
  // Whether a server message was rewritten: a tools/list answer less denied tools.
  bool server_message(nlohmann::json& message);
  bool filter_tools(nlohmann::json& message);
  void refuse_client_line(int code, const std::string& why, StreamOutput& out);
  void drop_server_line(const std::string& what, StreamOutput& out);

  Options options_;
  std::function<void(const WrappedCall&)> on_call_;
  Clock now_;
  JsonLineSplitter from_client_;
  JsonLineSplitter from_server_;
  std::map<nlohmann::json, Open> open_;             // by id, compared as JSON
  std::map<std::uint64_t, nlohmann::json> oldest_;  // open ids by arrival
  std::uint64_t next_order_ = 0;
  std::size_t open_bytes_ = 0;
};

}  // namespace paddock::app
