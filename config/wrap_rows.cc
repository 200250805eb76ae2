// The rows of `paddock wrap` alone: which server profile, what the server is called, and what the
// wrapper does with the MCP stream it carries. The rows it shares with run and mcp are marked
// with_wrap where they are written. Read from flags only: a profile is where a server's own
// choices are kept, and the client's config line names the profile.

#include "app/shares.h"
#include "config/rows.h"

namespace paddock::config {
namespace {

Setting row(std::string flag, std::string type, std::string default_value, std::string help,
            decltype(Setting::set) set, Arity arity = Arity::kOne) {
  return {std::move(flag), {},    kWrap,         kWrap, std::move(type), std::move(default_value),
          std::move(help), arity, std::move(set)};
}

// Profile and server names become file names under the state directory: the share names' rules.
core::Status set_name(std::optional<std::string>& field, const Given& given) {
  if (!app::is_share_name(given.text)) {
    return given.invalid("a name (a letter or digit, then up to 63 of those and ._-)",
                         "filesystem");
  }
  field = given.text;
  return {};
}

// MCP's tool names: 1 to 128 characters, printable, no spaces.
core::Status add_denied_tool(const Given& given, Env, Options& options) {
  const std::string& name = given.text;
  bool printable = !name.empty() && name.size() <= 128;
  for (char c : name) printable = printable && c > ' ' && c != 0x7f;
  if (!printable) return given.invalid("a tool name", "write_file");
  options.wrap.deny_tools.push_back(name);
  return {};
}

}  // namespace

std::vector<Setting> wrap_rows() {
  return {
      row("--profile", "NAME", "none: no network, no shares but --share's, a kept home",
          "The server's profile: policies/servers/NAME.json, or NAME.json in "
          "~/.config/paddock/servers (see docs/server-profiles.md)",
          [](const Given& g, Env, Options& o) { return set_name(o.wrap.profile, g); }),
      row("--name", "NAME", "the profile's name, else the package's or the command's",
          "What the server is called in audit lines and its kept home's folder",
          [](const Given& g, Env, Options& o) { return set_name(o.wrap.name, g); }),
      row("--deny-tool", "NAME", "",
          "A tool of the server's to hide from tools/list and refuse when called, as the user's "
          "choice",
          add_denied_tool, Arity::kRepeated),
      row(
          "--audit-values", "(no value)", "off: names and sizes only",
          "Write tool calls' argument values to the audit log too, masked",
          [](const Given&, Env, Options& o) -> core::Status {
            o.wrap.audit_values = true;
            return {};
          },
          Arity::kSwitch),
  };
}

}  // namespace paddock::config
