#include "cli/command_line.h"

#include <CLI/CLI.hpp>

#include <functional>
#include <memory>
#include <set>

#include "cli/backend_settings.h"
#include "config/resolve.h"
#include "config/table.h"
#include "core/version.h"

namespace paddock::cli {
namespace {

// "paddock 0.1.0 (commit 0123456789ab)": what a bug report needs to name the exact build.
std::string version_line() {
  return std::string("paddock ") + core::paddock_version() + " (" + core::paddock_commit() + ")";
}

// What cli/host_paths.cc's default_store_root() picks, for every command's --root: as run's row
// says it.
std::string root_help() {
  return config::help_line(*config::find_setting("--root", config::kRun), config::kRun);
}

// CLI11 derives the usage line from the options; `paddock run` takes its command after "--",
// which that line cannot show, so the line is written out instead (not added as a footer, which
// printed the usage twice).
class FixedUsageFormatter final : public CLI::Formatter {
 public:
  explicit FixedUsageFormatter(std::string usage) : usage_(std::move(usage)) {}
  std::string make_usage(const CLI::App* /*app*/, std::string name) const override {
    return get_label("Usage") + ": " + name + " " + usage_ + "\n";
  }

 private:
  std::string usage_;
};

void add_run_options(CLI::App& run, config::FlagValues& storage) {
  config::add_setting_options(run, config::settings_table(), config::kRun, storage);
  // Everything from the first non-option (or after --) is the command, untouched by parsing.
  run.prefix_command();
  run.formatter(std::make_shared<FixedUsageFormatter>("[OPTIONS] -- COMMAND [ARGS...]"));
}

// What runs: a command (rest, or the words after --), or code in a language.
core::Status set_program(const config::Options& options, std::vector<std::string> rest,
                         std::vector<std::string> command, RunRequest& request) {
  const config::RunSettings& flags = options.run;
  if (flags.language.empty()) {
    if (flags.code) return core::invalid_input("--code needs --lang (e.g. --lang python)");
    if (!flags.libraries.empty())
      return core::invalid_input("--lib needs --lang (e.g. --lang python)");
    if (flags.screening) return core::invalid_input("--screening needs --lang");
    // Installers belong to a language: a command has none for it to reach.
    if (options.server.install_network)
      return core::invalid_input("--install-network needs --lang");
    if (!rest.empty() && !command.empty()) {
      return core::invalid_input("unexpected '" + rest[0] +
                                 "' before --; usage: paddock run [OPTIONS] -- COMMAND [ARGS...]");
    }
    rest.insert(rest.end(), command.begin(), command.end());
    if (rest.empty() && !flags.image) {
      return core::invalid_input(
          "no command given; usage: paddock run [OPTIONS] -- COMMAND [ARGS...]");
    }
    if (!rest.empty()) request.plan.steps = {std::move(rest)};
    return {};
  }
  LanguageRequest language;
  language.language = flags.language;
  language.libraries = flags.libraries;
  language.policy_dir = options.server.policy_dir;
  language.install_network = options.server.install_network;
  if (flags.code) {
    language.code = flags.code;
  } else if (!rest.empty()) {
    language.code_file = rest[0];
    rest.erase(rest.begin());
  } else {
    return core::invalid_input(
        "no code given; use --code CODE, a FILE, or - to read it from stdin");
  }
  language.program_args = std::move(rest);
  language.program_args.insert(language.program_args.end(), command.begin(), command.end());
  request.language = std::move(language);
  request.screening_mode = flags.screening;
  return {};
}

// The table's typed options as one run's request: the settings both commands take are read
// where the server reads them too (Options::server).
core::Result<RunRequest> to_request(const config::Options& options, std::vector<std::string> rest,
                                    std::vector<std::string> command) {
  const app::ServerOptions& common = options.server;
  const config::RunSettings& flags = options.run;
  RunRequest request;
  runtime::SandboxShape& shape = request.shape;
  runtime::RunPlan& plan = request.plan;
  if (auto program = set_program(options, std::move(rest), std::move(command), request); !program) {
    return program.error();
  }
  request.json = flags.json;
  request.backend = common.backend;
  request.kube = kube_choices(common);
  request.image = flags.image;
  request.image_root = flags.root;
  request.limit_flags = common.limits;
  runtime::Limits all_limits;
  request.limit_flags.apply_to(all_limits);
  shape.limits = all_limits;
  plan.wall_seconds = all_limits.wall_seconds;
  plan.output_bytes = all_limits.output_bytes;
  shape.require_cgroups = common.require_cgroups;
  request.network_given = common.network.has_value();
  shape.network = common.network.value_or(runtime::NetworkMode::kNone);
  shape.allowed_hosts = common.allowed_hosts;
  for (const auto& secret : options.secrets) request.secrets.push_back(secret.spec);
  request.secret_in_body = common.secrets_in_body;
  request.egress_ca_file = common.egress_ca_file;
  request.audit_log = common.audit_log;
  shape.allowed_private_ranges = common.allowed_private_ranges;
  shape.host_loopback_ports = common.host_loopback_ports;
  request.publish = flags.publish;
  shape.previews = !flags.publish.empty();
  plan.env = flags.env;
  plan.cwd = flags.workdir;
  if (flags.stdin_file == "-") {
    request.stdin_from_terminal = true;
  } else if (!flags.stdin_file.empty()) {
    plan.stdin_path = flags.stdin_file;
  }
  shape.binds = flags.binds;
  shape.seccomp_profile_path = common.seccomp_profile;
  plan.collect.directories = flags.collect;
  return request;
}

// `paddock mcp`'s flags come from its settings table (cli/mcp_settings.h), which resolves them
// with the environment when the server starts, so that an error can name what the user wrote.
void add_mcp_options(CLI::App& mcp, config::FlagValues& storage) {
  config::add_setting_options(mcp, config::settings_table(), config::kMcp, storage);
  mcp.footer(
      "Flags win over their environment variables, which win over the language policies.\n"
      "Only the variables named by --pass-through-env reach sandboxed code.\n");
}

// `paddock wrap`'s rows; the server's command follows "--".
void add_wrap_options(CLI::App& wrap, config::FlagValues& storage) {
  config::add_setting_options(wrap, config::settings_table(), config::kWrap, storage);
  wrap.formatter(std::make_shared<FixedUsageFormatter>("[OPTIONS] -- COMMAND [ARGS...]"));
  wrap.footer(
      "Flags win over the profile's settings: one that takes a value replaces the profile's, a "
      "repeatable one adds to its list.\nNothing of paddock's own environment reaches the server "
      "but what --pass-through-env names.\n");
}

void add_pull_options(CLI::App& pull, ImageRequest& request) {
  pull.add_option("reference", request.arguments, "e.g. python:3.12-slim, ghcr.io/o/i:tag")
      ->required()
      ->expected(1);
  pull.add_option("--platform", request.platform, "os/arch[/variant] (default linux/amd64)");
  pull.add_flag("--insecure", request.insecure,
                "Allow plain HTTP and unverified TLS (always allowed for localhost/127.0.0.0/8)");
  // A command line is visible to every user of the host (ps, /proc/PID/cmdline); a file or the
  // environment (readable only by the same user and root) keeps a password out of it.
  auto* creds = pull.add_option("--creds", request.creds,
                                "Registry credentials, visible to every user in ps: prefer "
                                "--creds-file (default: ~/.docker/config.json)")
                    ->type_name("USER:PASS");
  pull.add_option("--creds-file", request.creds_file,
                  "A file holding the registry credentials as USER:PASS (or set "
                  "PADDOCK_REGISTRY_CREDS=USER:PASS)")
      ->type_name("FILE")
      ->excludes(creds);
}

// Every command, with what CLI11 writes into while parsing.
struct Commands {
  CLI::App app{"paddock: a rootless, daemonless sandbox for running untrusted code", "paddock"};
  CLI::App* run = nullptr;
  config::FlagValues run_flags;
  CLI::App* doctor = nullptr;
  bool doctor_json = false;
  CLI::App* policy = nullptr;
  PolicyRequest policy_request;
  std::string policy_dir;
  std::vector<CLI::App*> store;  // images, import, pull, rmi, gc
  ImageRequest image_request;
  std::string image_root;
  CLI::App* mcp = nullptr;
  config::FlagValues mcp_flags;
  CLI::App* wrap = nullptr;
  config::FlagValues wrap_flags;
};

void add_policy_options(CLI::App& policy, Commands& commands) {
  policy.add_option("action", commands.policy_request.action, "list, show, check or screen")
      ->required()
      ->check(CLI::IsMember({"list", "show", "check", "screen"}));
  policy.add_option("argument", commands.policy_request.argument,
                    "LANG for show and screen, FILE for check");
  policy.add_flag("--json", commands.policy_request.json, "Print JSON");
  policy.add_option("--policy-dir", commands.policy_dir, "Extra language policies")
      ->envname("PADDOCK_POLICY_DIR")
      ->type_name("DIR");
}

void add_store_commands(Commands& commands,
                        const std::function<bool(std::string_view)>& described) {
  CLI::App& app = commands.app;
  ImageRequest& request = commands.image_request;
  CLI::App* images = app.add_subcommand("images", "List the images in the store");
  images->add_flag("--json", request.json, "Print JSON");
  CLI::App* import = app.add_subcommand(
      "import", "Import an OCI image layout directory, an OCI archive or a docker save tarball");
  import->add_option("path", request.arguments, "The directory or tar file")->required();
  import->add_option("--tag", request.tag, "The name to store it under")->type_name("REF");
  import->add_option("--platform", request.platform, "os/arch (default linux/amd64)");
  CLI::App* pull = app.add_subcommand(
      "pull", "Pull an image from a registry (OCI distribution API) into the store");
  if (described("pull")) add_pull_options(*pull, request);
  CLI::App* rmi = app.add_subcommand("rmi", "Remove images from the store (then 'paddock gc')");
  rmi->add_option("images", request.arguments, "References or ids")->required();
  CLI::App* gc = app.add_subcommand("gc", "Delete blobs and layers no image uses");
  commands.store = {images, import, pull, rmi, gc};
  for (CLI::App* command : commands.store) {
    // No envname: PADDOCK_ROOT is read with the other paths (host_paths.h), and an envname on these
    // options, which share one variable, would let it overwrite a --root given to another command.
    command->add_option("--root", commands.image_root, root_help())->type_name("DIR");
  }
}

// Only the command `named` gets its options: building every command's (mcp has dozens) cost
// each `paddock run` about 0.2 ms. The others are still there, by name, for --help and for
// CLI11's own error on a misplaced option.
void add_commands(Commands& commands, std::string_view named) {
  CLI::App& app = commands.app;
  app.set_version_flag("--version", version_line());
  app.require_subcommand(1, 1);
  auto described = [&](std::string_view name) { return named.empty() || named == name; };
  commands.run = app.add_subcommand("run", "Run a command in a fresh sandbox");
  if (described("run")) add_run_options(*commands.run, commands.run_flags);
  commands.doctor = app.add_subcommand("doctor", "Show what isolation this host offers");
  commands.doctor->add_flag("--json", commands.doctor_json, "Print the report as JSON");
  commands.policy = app.add_subcommand(
      "policy", "Language policies: list, show LANG, check FILE, screen LANG (code on stdin)");
  if (described("policy")) add_policy_options(*commands.policy, commands);
  add_store_commands(commands, described);
  commands.mcp = app.add_subcommand("mcp", "Serve the Model Context Protocol on stdin/stdout");
  if (described("mcp")) add_mcp_options(*commands.mcp, commands.mcp_flags);
  commands.wrap = app.add_subcommand("wrap", "Run another stdio MCP server in a sandbox");
  if (described("wrap")) add_wrap_options(*commands.wrap, commands.wrap_flags);
}

// The request of the command parsed; `after_dash` tells whether "--" was given, `command` is what
// followed it.
core::Result<Request> request_of(Commands& commands, bool after_dash,
                                 std::vector<std::string> command) {
  if (commands.doctor->parsed()) {
    if (after_dash) return core::invalid_input("paddock doctor takes no command");
    return Request{DoctorRequest{commands.doctor_json}};
  }
  for (CLI::App* store_command : commands.store) {
    if (!store_command->parsed()) continue;
    if (after_dash) {
      return core::invalid_input("paddock " + store_command->get_name() +
                                 " takes no command after --");
    }
    commands.image_request.action = store_command->get_name();
    if (!commands.image_root.empty()) commands.image_request.root = commands.image_root;
    return Request{std::move(commands.image_request)};
  }
  if (commands.mcp->parsed()) {
    if (after_dash) return core::invalid_input("paddock mcp takes no command");
    return Request{McpRequest{config::collect_flags(*commands.mcp, commands.mcp_flags)}};
  }
  if (commands.wrap->parsed()) {
    if (command.empty()) {
      return core::invalid_input(
          "no server command given; usage: paddock wrap [OPTIONS] -- COMMAND "
          "[ARGS...], e.g. -- npx -y @modelcontextprotocol/server-memory");
    }
    return Request{WrapRequest{config::collect_flags(*commands.wrap, commands.wrap_flags),
                               std::move(command)}};
  }
  if (commands.policy->parsed()) {
    PolicyRequest& policy = commands.policy_request;
    if (policy.action != "list" && policy.argument.empty()) {
      return core::invalid_input("paddock policy " + policy.action + " needs " +
                                 (policy.action == "check" ? "a policy file" : "a language"));
    }
    if (!commands.policy_dir.empty()) policy.policy_dir = commands.policy_dir;
    return Request{std::move(policy)};
  }
  std::vector<std::string> rest = commands.run->remaining();
  // prefix_command() hands over unknown options too: refuse them rather than run them.
  if (!rest.empty() && rest[0].starts_with("-") && rest[0] != "-") {
    return core::invalid_input("unknown option " + rest[0] + " (see 'paddock run --help')");
  }
  // run reads the environment for the rows it shares a variable with (--backend, --policy-dir,
  // the kubernetes backend's).
  auto options =
      config::resolve(config::kRun, config::collect_flags(*commands.run, commands.run_flags),
                      config::process_environment());
  if (!options) return options.error();
  auto request = to_request(*options, std::move(rest), std::move(command));
  if (!request) return request.error();
  return Request{std::move(*request)};
}

}  // namespace

core::Result<Request> parse_command_line(int argc, const char* const* argv) {
  Commands commands;
  add_commands(commands, argc > 1 && argv[1][0] != '-' ? argv[1] : "");
  static const std::set<std::string_view> kCommands = {
      "run", "mcp", "wrap", "doctor", "policy", "images", "import", "pull", "rmi", "gc"};
  if (argc > 1 && argv[1][0] != '-' && kCommands.count(argv[1]) == 0) {
    return core::invalid_input(
        std::string("unknown command '") + argv[1] +
        "'; the commands are run, mcp, wrap, images, import, pull, rmi, gc, doctor "
        "and policy (see 'paddock --help')");
  }
  // Everything after the first "--" is the command, exactly as given; CLI11 sees the rest.
  int paddock_argc = argc;
  std::vector<std::string> command;
  for (int i = 1; i < argc; ++i) {
    if (std::string_view(argv[i]) == "--") {
      paddock_argc = i;
      command.assign(argv + i + 1, argv + argc);
      break;
    }
  }
  CLI::App& app = commands.app;
  try {
    app.parse(paddock_argc, const_cast<char**>(argv));
  } catch (const CLI::CallForHelp&) {
    // From the top, so that a command's usage line reads "paddock run", not "run".
    return Request{InfoRequest{app.help()}};
  } catch (const CLI::CallForVersion&) {
    return Request{InfoRequest{version_line() + "\n"}};
  } catch (const CLI::ParseError& error) {
    std::string where = "paddock --help";
    for (const CLI::App* parsed : app.get_subcommands()) {
      where = "paddock " + parsed->get_name() + " --help";
    }
    std::string message = error.what();
    if (message.empty()) message = "invalid command line";
    return core::invalid_input(message + " (see '" + where + "')");
  }
  return request_of(commands, paddock_argc != argc, std::move(command));
}

}  // namespace paddock::cli
