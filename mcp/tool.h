#pragma once

// One MCP tool: its name, the schemas a model reads, and what it does. Each tool lives in its
// own file under tools/; tool_registry.cc lists them.

#include <functional>
#include <memory>
#include <string>

#include "app/user_channel.h"
#include "mcp/json_rpc.h"
#include "runtime/backend.h"

namespace paddock::app {
struct Services;
}  // namespace paddock::app

namespace paddock::mcp {

// What a tool call may use besides its arguments.
struct ToolContext {
  // The services a tool calls (app/services.h), made once by the server's root.
  const app::Services& services;
  // Cancelled when the client sends notifications/cancelled or the server shuts down.
  const runtime::CancellationToken& cancellation;
  // Sends notifications/progress when the client asked for it (a no-op otherwise).
  std::function<void(const std::string& message)> progress;
  // What the call keeps until its answer is ready to be written (or withheld), then dropped: a warm
  // call's hold on the pool (WarmPool::CallInFlight), so that no sandbox opens while the call runs.
  std::shared_ptr<void>& until_answered;
  // The way to the person at the client (paddock mcp --ask), for this call; null: none.
  std::shared_ptr<app::UserChannel> user = nullptr;
};

// A tool's answer: `content` for people and models, `structured` matching the outputSchema.
struct ToolResult {
  json content = json::array();
  json structured;  // null: none
  bool is_error = false;
  // A failed call's setting that would fix it (Error::setting): the server adds how its
  // operator sets it (Server's SettingWording), which no tool knows.
  std::string setting = {};
};

// A failed call: one text block saying why, isError true.
ToolResult tool_error(const std::string& message);
// The same from an error, keeping the setting it names.
ToolResult tool_error(const core::Error& error);

class Tool {
 public:
  virtual ~Tool() = default;
  [[nodiscard]] virtual std::string name() const = 0;
  // The tools/list entry: name, title, description, inputSchema, outputSchema, annotations.
  [[nodiscard]] virtual json definition() const = 0;
  // Arguments have been checked against the inputSchema already.
  virtual ToolResult call(const json& arguments, ToolContext& context) = 0;
};

}  // namespace paddock::mcp
