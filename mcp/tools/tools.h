#pragma once

// Every built-in tool, one file each.

#include <memory>
#include <string>

#include "app/server_config.h"
#include "app/session_registry.h"
#include "language/policy_store.h"
#include "mcp/tool.h"

namespace paddock::mcp {

std::unique_ptr<Tool> make_execute_code(const app::ServerOptions& options,
                                        const language::PolicyStore& policies);
std::unique_ptr<Tool> make_get_supported_languages();
std::unique_ptr<Tool> make_get_language_details();
// The create_session arguments a server's settings leave useful (mcp/tool_registry.h's
// ToolOffer): a kept workspace for `name` and `from_snapshot`, and a share too for
// `from_archive`; `mounts` mounts shares. An argument left out is refused by the inputSchema.
struct CreateSessionOffer {
  bool kept = true;
  bool from_archive = true;
  bool mounts = true;
};

std::unique_ptr<Tool> make_create_session(const std::string& default_language,
                                          CreateSessionOffer offer = {});
std::unique_ptr<Tool> make_install_libraries();
std::unique_ptr<Tool> make_get_session();
// `kept`: sessions are kept on disk, so `keep` is offered.
std::unique_ptr<Tool> make_close_session(bool kept = true);
std::unique_ptr<Tool> make_restart_session();
// `keeps_sessions`: whether sessions are kept on disk (its kept-session fields are listed).
std::unique_ptr<Tool> make_list_sessions(bool keeps_sessions = true);
std::unique_ptr<Tool> make_snapshot_session();
std::unique_ptr<Tool> make_fork_session(const std::string& default_language);
std::unique_ptr<Tool> make_diff_session();
std::unique_ptr<Tool> make_export_session();
std::unique_ptr<Tool> make_write_file();
std::unique_ptr<Tool> make_read_file();
std::unique_ptr<Tool> make_list_files();
std::unique_ptr<Tool> make_upload_file();
std::unique_ptr<Tool> make_download_file();
std::unique_ptr<Tool> make_expose_port();

// A session's previews (expose_port), as get_session and list_sessions show them.
json exposed_ports_json(const app::SessionEntry& entry);

}  // namespace paddock::mcp
