#pragma once

// JSON-RPC 2.0 as MCP uses it over stdio: one message per line. This file classifies what came
// in and builds what goes out; it knows nothing of MCP methods.

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace paddock::mcp {

using json = nlohmann::json;

enum ErrorCode : int {
  kParseError = -32700,
  kInvalidRequest = -32600,
  kMethodNotFound = -32601,
  kInvalidParams = -32602,
  kInternalError = -32603,
  kUnsupportedProtocolVersion = -32022,  // 2026-07-28
};

struct RpcError {
  int code = kInternalError;
  std::string message;
  json data;  // omitted when null
};

// What one line turned out to be.
struct Incoming {
  enum class Kind { kRequest, kNotification, kResponse, kInvalid } kind = Kind::kInvalid;
  json id;  // requests (string or integer); null when unknown
  std::string method;
  json params;            // object, or null when absent
  RpcError error;         // kInvalid: the error to answer with (id may be null)
  std::size_t bytes = 0;  // the line's length: what a queued request holds, about
};

// Parses and classifies one line. Never throws; a line nested deeper than `max_depth` is refused
// before parsing, so no input can exhaust the stack.
Incoming classify(std::string_view line, int max_depth = 128);

json result_message(const json& id, json result);
// `id` null: the id could not be read, and the message goes without one.
json error_message(const json& id, const RpcError& error);
json notification_message(std::string_view method, json params);

// One line of output: compact, invalid UTF-8 from sandboxed programs replaced, not thrown on.
std::string serialize(const json& message);

}  // namespace paddock::mcp
