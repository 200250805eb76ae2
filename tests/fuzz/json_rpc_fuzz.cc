// Fuzzes what the MCP server makes of one line from its client (mcp/server.cc): the JSON-RPC
// classification (mcp/json_rpc.h), the protocol version an initialize asks for
// (mcp/protocol.h), and a tools/call's arguments checked against the tool's input schema
// (mcp/argument_check.h), for every built-in tool; then the answer serialized as it is sent.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

#include "language/policy_store.h"
#include "mcp/argument_check.h"
#include "mcp/json_rpc.h"
#include "mcp/protocol.h"
#include "mcp/tool_registry.h"

namespace {

using paddock::mcp::json;

const paddock::mcp::ToolRegistry& tools() {
  static const auto* registry = [] {
    static const paddock::language::PolicyStore policies =
        paddock::language::PolicyStore::load({}).value();
    return new paddock::mcp::ToolRegistry(
        paddock::mcp::builtin_tools(paddock::app::ServerOptions{}, policies).value());
  }();
  return *registry;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace paddock::mcp;
  std::string_view line(reinterpret_cast<const char*>(data), size);
  Incoming incoming = classify(line);
  switch (incoming.kind) {
    case Incoming::Kind::kInvalid:
      (void)serialize(error_message(incoming.id, incoming.error));
      return 0;
    case Incoming::Kind::kResponse:
      return 0;
    case Incoming::Kind::kNotification:
    case Incoming::Kind::kRequest:
      break;
  }
  const json& params = incoming.params;
  if (incoming.method == "initialize" && params.is_object()) {
    (void)negotiate_version(params.value("protocolVersion", json()));
  }
  if (incoming.method == "tools/call" && params.is_object()) {
    auto name = params.find("name");
    auto arguments = params.find("arguments");
    if (name != params.end() && name->is_string() && arguments != params.end()) {
      for (const auto& tool : tools().list()) {
        const Tool& found = *tools().find(tool["name"].get<std::string>());
        if (auto problem = check_arguments(*arguments, tools().input_schema(found))) {
          (void)serialize(error_message(incoming.id, RpcError{kInvalidParams, *problem, nullptr}));
        }
      }
    }
  }
  (void)serialize(result_message(incoming.id, params));
  return 0;
}
