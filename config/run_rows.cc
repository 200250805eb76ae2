// The rows of `paddock run` alone: what one run brings. Of the rows both commands take, only
// --backend's, --policy-dir's and the kubernetes backend's are read from the environment too. A
// data table: its one function is longer than 80 lines.

#include "config/rows.h"
#include "config/values.h"
#include "language/screening.h"

namespace paddock::config {
namespace {

// A run's row: its flag alone.
Setting row(std::string flag, std::string type, std::string default_value, std::string help,
            decltype(Setting::set) set, Arity arity = Arity::kOne) {
  return {std::move(flag), {},    kRun,          kRun, std::move(type), std::move(default_value),
          std::move(help), arity, std::move(set)};
}

core::Status set_text(std::string& field, const Given& given) {
  field = given.text;
  return {};
}

core::Status set_text(std::optional<std::string>& field, const Given& given) {
  field = given.text;
  return {};
}

// HOST:SANDBOX, read-only or not.
core::Status add_bind(const Given& given, bool writable, Options& options) {
  auto colon = given.text.find(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == given.text.size()) {
    return core::invalid_input(given.source + " '" + given.text +
                               "' must look like HOST_PATH:SANDBOX_PATH");
  }
  options.run.binds.push_back(
      {given.text.substr(0, colon), given.text.substr(colon + 1), writable});
  return {};
}

core::Status add_collect(const Given& given, Env, Options& options) {
  const std::string& directory = given.text;
  if (directory.empty() || directory[0] == '/' || directory.find("..") != std::string::npos) {
    return core::invalid_input(given.source + " '" + directory +
                               "' must be a directory inside the work directory, e.g. outputs");
  }
  options.run.collect.push_back(directory);
  return {};
}

}  // namespace

std::vector<Setting> run_rows() {
  return {
      row(
          "--json", "(no value)", "", "Print one JSON result instead of the program's output",
          [](const Given&, Env, Options& o) -> core::Status {
            o.run.json = true;
            return {};
          },
          Arity::kSwitch),
      row("--image", "REF", "the host's /usr",
          "Run on an image from the store (paddock images); without a command, the image's "
          "entrypoint and command run",
          [](const Given& g, Env, Options& o) { return set_text(o.run.image, g); }),
      row("--root", "DIR",
          "$PADDOCK_ROOT, else $XDG_DATA_HOME/paddock, else /var/lib/paddock as root and "
          "~/.local/share/paddock for other users",
          "The image store",
          [](const Given& g, Env, Options& o) { return set_text(o.run.root, g); }),
      row("--stdin", "FILE", "empty",
          "File to give the program as stdin ('-' for paddock's own stdin, relayed through a "
          "pipe when it is a terminal)",
          [](const Given& g, Env, Options& o) { return set_text(o.run.stdin_file, g); }),
      with_wrap(row(
          "--env", "NAME=VALUE", "", "Set NAME=VALUE in the sandbox",
          [](const Given& g, Env, Options& o) -> core::Status {
            o.run.env.push_back(g.text);
            return {};
          },
          Arity::kRepeated)),
      row("--workdir", "DIR", "/work", "Directory to start in, inside the sandbox",
          [](const Given& g, Env, Options& o) { return set_text(o.run.workdir, g); }),
      row("--lang", "LANG", "",
          "Run code in a language: --lang python --code 'print(1)', or a FILE, or - for stdin "
          "(see 'paddock policy list')",
          [](const Given& g, Env, Options& o) { return set_text(o.run.language, g); }),
      row("--code", "CODE", "", "The code to run, with --lang",
          [](const Given& g, Env, Options& o) { return set_text(o.run.code, g); }),
      row(
          "--lib", "NAME", "",
          "A library to install before the run, with the language's installer and only the "
          "install step on the network",
          [](const Given& g, Env, Options& o) -> core::Status {
            o.run.libraries.push_back(g.text);
            return {};
          },
          Arity::kRepeated),
      row("--screening", "MODE", "the policy's",
          "Code screening of --lang code: enforce, warn or off",
          [](const Given& g, Env, Options& o) -> core::Status {
            if (!language::screening_mode_from_name(g.text)) {
              return core::invalid_input(g.source + " '" + g.text +
                                         "' is not valid; use enforce, warn or off");
            }
            return set_text(o.run.screening, g);
          }),
      row(
          "--publish", "[HOSTPORT:]PORT", "",
          "Open this port of the sandbox to you on the host's 127.0.0.1 while the program runs, "
          "and print its URL (with its token) on stderr: [HOSTPORT:]PORT[/tcp] "
          "(docs/previews.md)",
          [](const Given& g, Env, Options& o) -> core::Status {
            auto publish = net::preview::parse_preview_publish(g.text);
            if (!publish) return publish.error();
            o.run.publish.push_back(*publish);
            return {};
          },
          Arity::kRepeated),
      row(
          "--ro-bind", "HOST:SANDBOX", "", "Show a host path read-only at a sandbox path",
          [](const Given& g, Env, Options& o) { return add_bind(g, false, o); }, Arity::kRepeated),
      row(
          "--bind", "HOST:SANDBOX", "",
          "Show a host folder read-write at a sandbox path; the program then runs as the "
          "folder's owner on the host, never as root",
          [](const Given& g, Env, Options& o) { return add_bind(g, true, o); }, Arity::kRepeated),
      row("--collect", "DIR", "",
          "Return the files under this work-directory subdirectory as artifacts, e.g. outputs "
          "(in the --json result)",
          add_collect, Arity::kRepeated),
  };
}

}  // namespace paddock::config
