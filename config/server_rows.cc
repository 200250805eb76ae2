// The rows of `paddock mcp` alone. Every one has a flag and an environment variable, because MCP
// clients start servers from JSON (`command`, `args`, `env`). A data table: its one function is
// longer than 80 lines.

#include <map>
#include <nlohmann/json.hpp>

#include "config/rows.h"
#include "config/values.h"
#include "language/builtin_policies.h"
#include "language/warm_spec.h"
#include "net/preview/forwarder.h"
#include "rootfs/image_reference.h"

namespace paddock::config {
namespace {

using app::ServerOptions;

// The server's defaults, written once (services/server_config.h).
const ServerOptions kServer{};

// NAME1,NAME2: each must be set in the server's environment, so a typo is caught at start
// rather than showing up as a missing variable inside someone's program.
core::Status set_pass_through(const Given& given, Env env, Options& all) {
  for (const auto& name : split_list(given.text)) {
    bool valid = name.find_first_not_of(
                     "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                     "0123456789_") == std::string::npos &&
                 !(name[0] >= '0' && name[0] <= '9');
    if (!valid) return given.invalid("a list of variable names", "API_KEY,SECRET_TOKEN");
    if (name.starts_with("PADDOCK_")) {
      return core::invalid_input(given.source + ": " + name +
                                 " is paddock's own; PADDOCK_ variables cannot be passed through");
    }
    auto value = env(name);
    if (!value) {
      return core::invalid_input(given.source + " names " + name +
                                 ", which is not set in the server's environment; set it (in the "
                                 "client's \"env\" block) or leave it out");
    }
    all.server.pass_through_env.push_back(name + "=" + *value);
  }
  return {};
}

// LANG=REF; a later one wins for its language.
core::Status add_image(const Given& given, const std::string& assignment, Options& all) {
  auto equals = assignment.find('=');
  if (equals == std::string::npos || equals == 0 || equals + 1 == assignment.size()) {
    return given.invalid("LANG=IMAGE", "python=python:3.12-slim");
  }
  std::string language = assignment.substr(0, equals);
  std::string reference = assignment.substr(equals + 1);
  if (auto parsed = rootfs::parse_image_reference(reference); !parsed) {
    return core::invalid_input(given.source + " " + assignment + ": " + parsed.error().message);
  }
  all.server.images[language] = reference;
  return {};
}

// CONTAINER_IMAGE with CONTAINER_LANGUAGE, as code-sandbox-mcp takes them: one or the other
// alone is an error.
core::Status set_container_image(const Given& given, Env env, Options& all) {
  auto language = env("CONTAINER_LANGUAGE");
  if (!language) {
    return core::invalid_input(
        "CONTAINER_IMAGE is set without CONTAINER_LANGUAGE; set CONTAINER_LANGUAGE to the "
        "language the image runs (e.g. python)");
  }
  return add_image(given, *language + "=" + given.text, all);
}

core::Status check_container_language(const Given& /*given*/, Env env, Options& /*all*/) {
  if (!env("CONTAINER_IMAGE")) {
    return core::invalid_input(
        "CONTAINER_LANGUAGE is set without CONTAINER_IMAGE; set both or neither");
  }
  return {};
}

// "off", or LANG=MODULES[;LANG=MODULES...]: the warm interpreters' preload lists (an empty list
// preloads nothing).
core::Status set_preload(const Given& given, Env, Options& all) {
  if (given.text == "off") {
    all.server.warm_interpreters = false;
    return {};
  }
  for (const auto& assignment : split_list(given.text, ';')) {
    auto equals = assignment.find('=');
    if (equals == std::string::npos || equals == 0) {
      return given.invalid("off, or LANG=MODULES", "python=numpy,pandas");
    }
    std::vector<std::string> modules = split_list(assignment.substr(equals + 1));
    for (const auto& name : modules) {
      if (auto valid = language::check_preload_name(name); !valid) {
        return core::invalid_input(given.source + ": " + valid.error().message);
      }
    }
    all.server.preload[assignment.substr(0, equals)] = std::move(modules);
  }
  return {};
}

// "none", or LANG=N[,LANG=N...]: the kernels made ready at start, by language.
core::Status set_ready_kernels(const Given& given, Env, Options& all) {
  all.server.ready_kernels.clear();
  if (given.text == "none") return {};
  for (const auto& assignment : split_list(given.text)) {
    auto equals = assignment.find('=');
    std::string count = equals == std::string::npos ? "" : assignment.substr(equals + 1);
    if (equals == 0 || count.empty() || count.size() > 1 || count[0] < '0' || count[0] > '4') {
      return given.invalid("none, or LANG=N with N from 0 to 4", "python=1,r=0");
    }
    all.server.ready_kernels[assignment.substr(0, equals)] =
        static_cast<std::size_t>(count[0] - '0');
  }
  return {};
}

core::Status add_share(const Given& given, Env, Options& all) {
  auto spec = app::parse_share_spec(given.text);
  if (!spec) return core::invalid_input(given.source + ": " + spec.error().message);
  all.server.shares.push_back(std::move(*spec));
  return {};
}

// The built-in policies' preload lists ("for python numpy, pandas"), read from the embedded
// policies so that --help and the docs say what a server does. Only the "warm" object of each is
// read (not the whole policy, whose patterns take milliseconds to compile). Parsing the policies
// still cost each `paddock run` about 0.2 ms, so the row calls this only when it is shown.
std::string builtin_preload_default() {
  std::string lists;
  const auto& names = language::builtin_policy_names();
  const auto& texts = language::builtin_policy_texts();
  for (std::size_t i = 0; i < texts.size() && i < names.size(); ++i) {
    if (texts[i].second.find("\"warm\"") == std::string_view::npos) continue;
    auto policy = nlohmann::json::parse(texts[i].second, nullptr, false);
    if (!policy.is_object() || !policy.contains("warm")) continue;
    auto preload = policy["warm"].value("preload", std::vector<std::string>{});
    if (preload.empty()) continue;
    std::string modules;
    for (const auto& name : preload) modules += (modules.empty() ? "" : ", ") + name;
    lists += std::string(lists.empty() ? "" : "; ") + "for " + std::string(names[i].front()) + " " +
             modules;
  }
  return "the policy's" + (lists.empty() ? "" : "; " + lists);
}

// One row of the server's: the flag and its variable, which only `paddock mcp` takes.
Setting row(std::string flag, std::string variable, std::string type, std::string default_value,
            std::string help, decltype(Setting::set) set, Arity arity = Arity::kOne,
            std::string variables_help = {}) {
  return {std::move(flag),
          {std::move(variable)},
          kMcp,
          kMcp,
          std::move(type),
          std::move(default_value),
          std::move(help),
          arity,
          std::move(set),
          std::move(variables_help)};
}

Setting described_when_shown(Setting setting, std::string (*describe)()) {
  setting.describe_default = describe;
  return setting;
}

}  // namespace

std::vector<Setting> server_rows() {
  // Images travel base64 in one message of at most 8 MiB, beside the output.
  constexpr std::uint64_t kMaxArtifactBytes = 5u << 20;
  return {
      row("--default-language", "PADDOCK_DEFAULT_LANGUAGE", "LANG", kServer.default_language,
          "The language of calls that name none",
          [](const Given& g, Env, Options& o) {
            return assign(o.server.default_language, core::Result<std::string>(g.text));
          }),
      row("--max-timeout", "PADDOCK_MAX_TIMEOUT", "DURATION",
          duration_default(kServer.max_timeout_seconds),
          "Longest timeout a call may ask for; longer ones are clamped, with a note",
          [](const Given& g, Env, Options& o) {
            return assign(o.server.max_timeout_seconds, duration(g, "5m"));
          }),
      row("--result-limit", "PADDOCK_RESULT_LIMIT", "SIZE",
          size_default(kServer.result_stream_bytes),
          "Bytes of each stream a result gives the model, its start and its end, e.g. 64k (1k "
          "to 1m); a session keeps the whole streams in files",
          [](const Given& g, Env, Options& o) {
            return assign(o.server.result_stream_bytes, byte_size(g, "64k", 1024, 1u << 20));
          }),
      row("--artifact-limit", "PADDOCK_ARTIFACT_LIMIT", "N", std::to_string(kServer.max_artifacts),
          "Files (figures first, in the order they were made) a call returns at most; the rest "
          "are named",
          [](const Given& g, Env, Options& o) {
            return assign(o.server.max_artifacts, whole_number(g, 0, 1000, "20"));
          }),
      row("--artifact-bytes", "PADDOCK_ARTIFACT_BYTES", "SIZE",
          size_default(kServer.max_artifact_bytes), "Bytes of those files together, at most 5m",
          [](const Given& g, Env, Options& o) {
            return assign(o.server.max_artifact_bytes, byte_size(g, "4m", 1, kMaxArtifactBytes));
          }),
      row("--max-sessions", "PADDOCK_MAX_SESSIONS", "N", std::to_string(kServer.max_sessions),
          "Open sessions at most",
          [](const Given& g, Env, Options& o) {
            return assign(o.server.max_sessions, whole_number(g, 0, 4096, "16"));
          }),
      row("--warm", "PADDOCK_WARM", "N", std::to_string(kServer.warm_per_language),
          "Sandboxes set up ahead for fresh calls, per language in use (0: none)",
          [](const Given& g, Env, Options& o) {
            return assign(o.server.warm_per_language, whole_number(g, 0, 64, "2"));
          }),
      row("--ready-kernels", "PADDOCK_READY_KERNELS", "LANG=N,...", "python=1",
          "Live sessions' kernels made ready soon after start, by language (none: no such); "
          "a language's first session keeps one ready for its next either way",
          set_ready_kernels),
      row("--pool-memory", "PADDOCK_POOL_MEMORY", "SIZE", size_default(kServer.pool_memory),
          "Memory (PSS) that warm sandboxes and ready kernels may hold together while they wait "
          "(0: none waits)",
          [](const Given& g, Env, Options& o) {
            return assign(o.server.pool_memory, byte_size(g, "512m", 0, 1ull << 40));
          }),
      described_when_shown(
          row("--preload", "PADDOCK_PRELOAD", "LANG=MODULES", "",
              "Modules a warm interpreter imports before its call, e.g. python=numpy,pandas "
              "(several languages: ;-separated; python=: none; off: warm sandboxes start no "
              "interpreter)",
              set_preload),
          builtin_preload_default),
      row("--session-idle", "PADDOCK_SESSION_IDLE", "DURATION",
          duration_default(kServer.session_idle_seconds),
          "Idle time before a session is closed, e.g. 30m (24h at most)",
          [](const Given& g, Env, Options& o) {
            return assign(o.server.session_idle_seconds, duration(g, "30m"));
          }),
      with_wrap(row("--state-dir", "PADDOCK_STATE_DIR", "DIR",
                    "$XDG_STATE_HOME/paddock or ~/.local/state/paddock",
                    "Where sessions are kept across restarts (none: sessions end with the server)",
                    [](const Given& g, Env, Options& o) -> core::Status {
                      o.server.state_dir_set = true;
                      if (g.text == "none") return {};
                      if (g.text.empty() || g.text[0] != '/') {
                        return g.invalid("an absolute path or none",
                                         "/home/me/.local/state/paddock");
                      }
                      o.server.state_dir = g.text;
                      return {};
                    })),
      row("--session-disk", "PADDOCK_SESSION_DISK", "SIZE",
          "the policy's work limit, else " + size_default(runtime::Limits{}.work_bytes),
          "A session's files at most, e.g. 1G: writes past it fail with ENOSPC",
          [](const Given& g, Env, Options& o) {
            return assign(o.server.session_disk, byte_size(g, "1G", 1u << 20, 1ull << 40));
          }),
      row("--session-files", "PADDOCK_SESSION_FILES", "N", std::to_string(kServer.session_files),
          "A session's files and folders at most",
          [](const Given& g, Env, Options& o) {
            return assign(o.server.session_files, whole_number(g, 16, 100'000'000, "50000"));
          }),
      row("--state-disk", "PADDOCK_STATE_DISK", "SIZE", size_default(kServer.state_disk),
          "The state directory's size at most, every kept session and snapshot together",
          [](const Given& g, Env, Options& o) {
            return assign(o.server.state_disk, byte_size(g, "10G", 1u << 20, 1ull << 50));
          }),
      row("--session-retention", "PADDOCK_SESSION_RETENTION", "DURATION",
          duration_default(kServer.session_retention_seconds),
          "Kept sessions unused this long are removed from disk, e.g. 72h",
          [](const Given& g, Env, Options& o) {
            return assign(o.server.session_retention_seconds, duration(g, "168h"));
          }),
      row("--idle-freeze", "PADDOCK_IDLE_FREEZE", "SECONDS",
          duration_default(kServer.idle_freeze_seconds),
          "Idle time before a session's processes are frozen until its next use, e.g. 300 or "
          "5m; 0: never",
          [](const Given& g, Env, Options& o) {
            return assign(o.server.idle_freeze_seconds,
                          duration_or_off(g, "300, 5m, or 0 for never"));
          }),
      row(
          "--allow-preview", "PADDOCK_ALLOW_PREVIEW", "(no value)", "off",
          "Let the model open a session's port to you on 127.0.0.1 (expose_port; docs/previews.md)",
          [](const Given& g, Env, Options& o) {
            return assign(o.server.allow_preview, on_or_off(g));
          },
          Arity::kSwitch),
      row("--ask", "PADDOCK_ASK", "WHAT", "nothing",
          "Ask the user through the client before a sandbox reaches a host the allowlist lacks "
          "(network) or a preview opens (preview): network, preview, or network,preview",
          [](const Given& g, Env, Options& o) -> core::Status {
            o.server.ask_network = o.server.ask_preview = false;
            std::string text = g.text;
            for (std::size_t start = 0; start <= text.size();) {
              std::size_t comma = std::min(text.find(',', start), text.size());
              std::string word = text.substr(start, comma - start);
              if (word == "network") {
                o.server.ask_network = true;
              } else if (word == "preview") {
                o.server.ask_preview = true;
              } else {
                return g.invalid("network, preview, or both", "network,preview");
              }
              start = comma + 1;
            }
            return {};
          }),
      row("--ask-timeout", "PADDOCK_ASK_TIMEOUT", "SECONDS",
          duration_default(kServer.ask_timeout_seconds),
          "How long a question to the user (--ask) waits for an answer, 1h at most; then it is a "
          "refusal",
          [](const Given& g, Env, Options& o) -> core::Status {
            auto seconds = duration(g, "60 or 2m");
            if (seconds && *seconds > 3600) {
              return core::Status(g.invalid("a duration up to 1h", "60 or 2m"));
            }
            return assign(o.server.ask_timeout_seconds, seconds);
          }),
      row("--preview-ports", "PADDOCK_PREVIEW_PORTS", "FIRST-LAST", "any the kernel picks",
          "Host ports previews listen on, e.g. 8000-8099",
          [](const Given& g, Env, Options& o) -> core::Status {
            auto range = net::preview::parse_preview_ports(g.text);
            if (!range) return g.invalid("a port or a range of ports", "8000-8099");
            o.server.preview_ports = {range->first, range->last};
            return {};
          }),
      row("--max-previews", "PADDOCK_MAX_PREVIEWS", "N", std::to_string(kServer.max_previews),
          "Previews open at most, all sessions together (1 to 1024; a session has 16 at most)",
          [](const Given& g, Env, Options& o) {
            return assign(o.server.max_previews, whole_number(g, 1, 1024, "64"));
          }),
      row("--workers", "PADDOCK_WORKERS", "N", std::to_string(kServer.workers),
          "Tool calls served at once",
          [](const Given& g, Env, Options& o) {
            return assign(o.server.workers, whole_number(g, 1, 256, "8"));
          }),
      row("--log-level", "PADDOCK_LOG_LEVEL", "LEVEL", kServer.log_level,
          "debug, info, notice, warning or error; the log goes to stderr",
          [](const Given& g, Env, Options& o) {
            return assign(o.server.log_level,
                          one_of(g, {"debug", "info", "notice", "warning", "error"}, "a log level",
                                 "debug, info, notice, warning or error"));
          }),
      with_wrap(
          row("--pass-through-env", "PADDOCK_PASS_THROUGH_ENV", "NAMES", "",
              "Variables of the server's environment given to every sandbox, e.g. API_KEY,TOKEN; "
              "nothing else of it is; their values are masked in results",
              set_pass_through)),
      row("--share-roots", "PADDOCK_SHARE_ROOTS", "ro|rw", "off",
          "Share the folders the client lists as its roots (MCP roots), read-only or read-write, "
          "following its changes",
          [](const Given& g, Env, Options& o) -> core::Status {
            using Sharing = app::ServerOptions::RootSharing;
            static const std::map<std::string, Sharing> kWords = {
                {"ro", Sharing::kReadOnly}, {"rw", Sharing::kReadWrite}, {"off", Sharing::kNone}};
            auto word = kWords.find(g.text);
            if (word == kWords.end()) return g.invalid("ro, rw or off", "ro");
            o.server.share_roots = word->second;
            return {};
          }),
      row("--share-max-bytes", "PADDOCK_SHARE_MAX_BYTES", "SIZE",
          size_default(kServer.transfer_caps.max_bytes),
          "Bytes one upload_file or download_file copies at most, e.g. 1g",
          [](const Given& g, Env, Options& o) {
            return assign(o.server.transfer_caps.max_bytes, byte_size(g, "1g"));
          }),
      row("--share-max-files", "PADDOCK_SHARE_MAX_FILES", "N",
          std::to_string(kServer.transfer_caps.max_files),
          "Files and folders one folder upload copies at most",
          [](const Given& g, Env, Options& o) {
            return assign(o.server.transfer_caps.max_files, whole_number(g, 1, 1'000'000, "10000"));
          }),
      row("--pull", "PADDOCK_PULL", "WHEN", "missing",
          "missing: pull an image on first use; never: refuse a missing one",
          [](const Given& g, Env, Options& o) -> core::Status {
            auto when =
                one_of(g, {"missing", "never"}, "a pull policy", "missing (the default) or never");
            if (!when) return when.error();
            o.server.pull_missing_images = *when == "missing";
            return {};
          }),
      // Images, lowest first: CONTAINER_IMAGE, then PADDOCK_IMAGES, then each --image.
      row("", "CONTAINER_IMAGE", "", "", "", set_container_image),
      row("", "CONTAINER_LANGUAGE", "", "", "", check_container_language),
      row(
          "--image", "PADDOCK_IMAGES", "LANG=REF", "",
          "A language's image, e.g. python=python:3.12-slim",
          [](const Given& g, Env, Options& o) { return add_image(g, g.text, o); }, Arity::kRepeated,
          "PADDOCK_IMAGES=LANG=REF,..., or CONTAINER_IMAGE with CONTAINER_LANGUAGE"),
      with_wrap(row(
          "--share", "PADDOCK_SHARE", "DIR[=NAME][:rw]", "",
          "A host folder the tools may use, read-only unless :rw, named NAME (else the folder's "
          "name); nothing else of the host is reachable",
          add_share, Arity::kRepeated, "PADDOCK_SHARE=DIR[=NAME][:rw],...")),
  };
}

}  // namespace paddock::config
