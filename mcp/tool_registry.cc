#include "mcp/tool_registry.h"

#include <array>
#include <stdexcept>

#include "mcp/argument_check.h"
#include "mcp/tools/tools.h"

namespace paddock::mcp {

ToolResult tool_error(const std::string& message) {
  ToolResult result;
  result.content.push_back(json{{"type", "text"}, {"text", message}});
  result.is_error = true;
  return result;
}

ToolResult tool_error(const core::Error& error) {
  ToolResult result = tool_error(error.message);
  result.setting = error.setting;
  return result;
}

core::Result<void> ToolRegistry::add(std::unique_ptr<Tool> tool) {
  json definition = tool->definition();
  auto schema = compile_input_schema(definition["inputSchema"]);
  if (!schema) return schema.error().context(tool->name() + "'s inputSchema");
  definitions_.push_back(std::move(definition));
  input_schemas_.push_back(std::move(*schema));
  tools_.push_back(std::move(tool));
  return {};
}

Tool* ToolRegistry::find(const std::string& name) const {
  for (const auto& tool : tools_) {
    if (tool->name() == name) return tool.get();
  }
  return nullptr;
}

const core::JsonSchema& ToolRegistry::input_schema(const Tool& tool) const {
  for (std::size_t i = 0; i < tools_.size(); ++i) {
    if (tools_[i].get() == &tool) return input_schemas_[i];
  }
  // No schema to fall back on: an empty one would take any arguments.
  throw std::logic_error(tool.name() + " is not a registered tool");
}

void ToolRegistry::withhold(const std::string& name, std::string setting) {
  withheld_[name] = std::move(setting);
}

const std::string* ToolRegistry::withheld(const std::string& name) const {
  auto found = withheld_.find(name);
  return found == withheld_.end() ? nullptr : &found->second;
}

void ToolRegistry::withhold_argument(const std::string& tool, const std::string& argument,
                                     std::string setting) {
  withheld_arguments_[{tool, argument}] = std::move(setting);
}

const std::string* ToolRegistry::withheld_argument(const std::string& tool,
                                                   const std::string& argument) const {
  auto found = withheld_arguments_.find({tool, argument});
  return found == withheld_arguments_.end() ? nullptr : &found->second;
}

ToolOffer tool_offer(const app::ServerOptions& options, bool keeps_sessions) {
  ToolOffer offer;
  offer.keeps_sessions = keeps_sessions;
  offer.previews = options.allow_preview || options.ask_preview;
  // With --share-roots the client's roots may become shares at any time, so the tools that use
  // shares are listed from the start (and refuse, naming the shares, while there are none).
  using Sharing = app::ServerOptions::RootSharing;
  offer.readable_share = !options.shares.empty() || options.share_roots != Sharing::kNone;
  offer.writable_share = options.share_roots == Sharing::kReadWrite;
  for (const auto& share : options.shares) offer.writable_share |= share.writable;
  return offer;
}

namespace {

// A withheld tool: its name, and the setting that would list it.
struct Withheld {
  const char* name;
  const char* setting;
};

// The tools `offer` rules out. export_session needs both a kept workspace and a :rw share;
// either missing withholds it, and the first named is the one to change.
constexpr const char* kKeptSetting =
    "a state directory (--state-dir DIR; --state-dir none keeps no sessions)";
constexpr const char* kShareSetting = "a share (--share DIR)";

// The arguments `offer` rules out, as tool, argument, setting (CreateSessionOffer and
// make_close_session leave them out of the schemas).
std::vector<std::array<const char*, 3>> withheld_arguments(const ToolOffer& offer) {
  std::vector<std::array<const char*, 3>> out;
  if (!offer.keeps_sessions) {
    for (const char* argument : {"name", "from_snapshot"}) {
      out.push_back({"create_session", argument, kKeptSetting});
    }
    out.push_back({"close_session", "keep", kKeptSetting});
  }
  if (!offer.readable_share) {
    out.push_back({"create_session", "mounts", kShareSetting});
    out.push_back({"create_session", "from_archive", kShareSetting});
  } else if (!offer.keeps_sessions) {
    out.push_back({"create_session", "from_archive", kKeptSetting});
  }
  return out;
}

std::vector<Withheld> withheld_tools(const ToolOffer& offer) {
  std::vector<Withheld> out;
  const char* kept = kKeptSetting;
  if (!offer.keeps_sessions) {
    for (const char* name : {"snapshot_session", "fork_session", "diff_session"}) {
      out.push_back({name, kept});
    }
  }
  // Without a share, tools that copy between a session and the host have nowhere to copy:
  // upload_file reads a share (a read-only one will do), download_file and export_session write
  // into one given with :rw.
  const char* writable = "a writable share (--share DIR:rw)";
  if (!offer.readable_share) out.push_back({"upload_file", kShareSetting});
  if (!offer.writable_share) {
    out.push_back({"download_file", writable});
    out.push_back({"export_session", writable});
  } else if (!offer.keeps_sessions) {
    out.push_back({"export_session", kept});
  }
  if (!offer.previews) out.push_back({"expose_port", "--allow-preview"});
  return out;
}

}  // namespace

core::Result<ToolRegistry> builtin_tools(const app::ServerOptions& options,
                                         const language::PolicyStore& policies,
                                         const ToolOffer& offer) {
  const std::string& default_language = options.default_language;
  CreateSessionOffer create_offer{
      offer.keeps_sessions, offer.keeps_sessions && offer.readable_share, offer.readable_share};
  std::unique_ptr<Tool> tools[] = {
      make_execute_code(options, policies),
      make_get_supported_languages(),
      make_get_language_details(),
      make_create_session(default_language, create_offer),
      make_close_session(offer.keeps_sessions),
      make_restart_session(),
      make_list_sessions(offer.keeps_sessions),
      make_get_session(),
      make_snapshot_session(),
      make_fork_session(default_language),
      make_diff_session(),
      make_export_session(),
      make_install_libraries(),
      make_write_file(),
      make_read_file(),
      make_list_files(),
      make_upload_file(),
      make_download_file(),
      make_expose_port(),
  };
  ToolRegistry registry;
  for (const auto& [tool, argument, setting] : withheld_arguments(offer)) {
    registry.withhold_argument(tool, argument, setting);
  }
  auto withheld = withheld_tools(offer);
  for (auto& tool : tools) {
    bool listed = true;
    for (const auto& hidden : withheld) {
      if (tool->name() == hidden.name) {
        registry.withhold(hidden.name, hidden.setting);
        listed = false;
      }
    }
    if (!listed) continue;
    if (auto added = registry.add(std::move(tool)); !added) return added.error();
  }
  return registry;
}

}  // namespace paddock::mcp
