#pragma once

// The tools paddock offers, registered explicitly in one place.

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "app/server_config.h"
#include "core/json_schema.h"
#include "core/result.h"
#include "language/policy_store.h"
#include "mcp/tool.h"

namespace paddock::mcp {

class ToolRegistry {
 public:
  // Refuses a tool whose inputSchema uses a keyword the argument checker would not honour (the
  // error names the tool, the keyword and where), so that no tool's arguments are checked less
  // than its schema tells the client.
  [[nodiscard]] core::Result<void> add(std::unique_ptr<Tool> tool);
  [[nodiscard]] Tool* find(const std::string& name) const;
  // The tools/list "tools" array, and a found tool's inputSchema compiled: built once, when the
  // tool is added, not on every request.
  [[nodiscard]] const json& list() const { return definitions_; }
  [[nodiscard]] const core::JsonSchema& input_schema(const Tool& tool) const;
  // A tool this server's settings make useless is not listed (issue 53: a model reads the list
  // on every turn, and would only be refused); a call to it is refused as an unknown tool is,
  // naming the setting that enables it. `setting` reads "start the server with ...".
  void withhold(const std::string& name, std::string setting);
  // The setting that would list `name`, or null when it is not withheld.
  [[nodiscard]] const std::string* withheld(const std::string& name) const;
  // Likewise an argument of a listed tool (create_session's `name` without kept sessions): a
  // call that gives it is refused naming the setting, not as an unknown argument.
  void withhold_argument(const std::string& tool, const std::string& argument, std::string setting);
  [[nodiscard]] const std::string* withheld_argument(const std::string& tool,
                                                     const std::string& argument) const;

 private:
  std::vector<std::unique_ptr<Tool>> tools_;
  json definitions_ = json::array();             // in the order of tools_
  std::vector<core::JsonSchema> input_schemas_;  // in the order of tools_
  std::map<std::string, std::string> withheld_;  // tool name -> the setting that lists it
  std::map<std::pair<std::string, std::string>, std::string> withheld_arguments_;
};

// What the server's settings let tools do, which decides what tools/list offers. The defaults
// offer every tool (the unit tests and the fuzzer check them all); `tool_offer` says what a
// running server offers.
struct ToolOffer {
  // Sessions are kept on disk (a state directory is open: not --state-dir none, and a backend
  // that can): names, snapshots, forks, diffs and exports need a session's saved workspace.
  bool keeps_sessions = true;
  // expose_port can open a port. Today only --allow-preview; issue 53's item 2 (`--ask
  // preview`, asking the user through elicitation) is to set it too: see tool_offer.
  bool previews = true;
  // create_session's from_archive reads SHARE/x.tar.zst: any share, read-only ones too.
  bool readable_share = true;
  // export_session writes SHARE/x.tar.zst: a share given with :rw.
  bool writable_share = true;
};

// The offer of a server started with `options`; `keeps_sessions`: whether its state directory
// opened (mcp/serve.cc knows, the options alone do not).
ToolOffer tool_offer(const app::ServerOptions& options, bool keeps_sessions);

// `default_language`: what execute_code and create_session run when a call names none. An error
// is a tool schema that does not compile: a bug of paddock's, which the server refuses to start
// with.
// Tools `offer` rules out are withheld (ToolRegistry::withhold), and so are create_session's
// arguments it rules out.
core::Result<ToolRegistry> builtin_tools(const app::ServerOptions& options,
                                         const language::PolicyStore& policies,
                                         const ToolOffer& offer = {});

}  // namespace paddock::mcp
