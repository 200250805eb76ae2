#include "cli/command_line.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <map>
#include <memory>
#include <set>

#include "cli/mcp_settings.h"
#include "core/ip_prefix.h"
#include "core/units.h"
#include "core/version.h"
#include "language/screening.h"
#include "net/egress/host_pattern.h"

namespace paddock::cli {
namespace {

// "paddock 0.1.0 (commit 0123456789ab)": what a bug report needs to name the exact build.
std::string version_line() {
  return std::string("paddock ") + paddock_version() + " (" + paddock_commit() + ")";
}

// What cli/host_paths.cc's default_store_root() picks, for every command's --root.
constexpr const char* kRootHelp =
    "The image store (default $PADDOCK_ROOT, else $XDG_DATA_HOME/paddock, else /var/lib/paddock "
    "as root and ~/.local/share/paddock for other users)";

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

// The run flags as the user typed them; converted to a SandboxShape and a RunPlan once parsing
// succeeded.
struct RunFlags {
  bool json = false;
  std::string backend;
  std::string stdin_file;
  std::string timeout;
  std::vector<std::string> env;
  std::string workdir;
  std::string network;
  std::vector<std::string> allow_private;
  std::vector<std::string> allow_hosts;
  std::vector<std::string> host_loopback_ports;
  std::vector<std::string> publish;
  std::vector<std::string> secrets;
  bool secret_in_body = false;
  std::string egress_ca_file;
  std::string lang;
  std::string code;
  std::string policy_dir;
  std::vector<std::string> libraries;
  std::string screening;
  std::string memory;
  std::string pids;
  std::string cpu_time;
  std::string cpus;
  bool require_cgroups = false;
  std::string output_limit;
  std::string file_size;
  std::string tmp_size;
  std::string work_size;
  std::vector<std::string> ro_binds;
  std::vector<std::string> binds;
  std::vector<std::string> collect;
  std::string seccomp_profile;
  std::string image;
  std::string root;
};

void add_run_options(CLI::App& run, RunFlags& flags) {
  run.add_flag("--json", flags.json, "Print one JSON result instead of the program's output");
  run.add_option("--image", flags.image,
                 "Run on an image from the store (paddock images) instead of the host's /usr; "
                 "without a command, the image's entrypoint and command run")
      ->type_name("REF");
  run.add_option("--root", flags.root, kRootHelp)->type_name("DIR");
  run.add_option("--backend", flags.backend,
                 "Where to run: native (default), docker, podman or kubernetes (env "
                 "PADDOCK_BACKEND, or BACKEND)")
      ->type_name("NAME");
  run.add_option(
         "--stdin", flags.stdin_file,
         "File to give the program as stdin ('-' for paddock's own stdin, relayed through a "
         "pipe when it is a terminal; default: "
         "empty)")
      ->type_name("FILE");
  run.add_option("--timeout", flags.timeout, "Wall-clock limit, e.g. 30 or 1.5s (default 30)")
      ->type_name("SECONDS");
  run.add_option("--env", flags.env, "Set NAME=VALUE in the sandbox (repeatable)")
      ->allow_extra_args(false)
      ->type_name("NAME=VALUE");
  run.add_option("--workdir", flags.workdir,
                 "Directory to start in, inside the sandbox (default /work, writable)")
      ->type_name("DIR");
  run.add_option("--lang", flags.lang,
                 "Run code in a language: --lang python --code 'print(1)', or a FILE, or - for "
                 "stdin (see 'paddock policy list')")
      ->type_name("LANG");
  run.add_option("--code", flags.code, "The code to run, with --lang")->type_name("CODE");
  run.add_option("--lib", flags.libraries,
                 "A library to install before the run, with the language's installer and only "
                 "the install step on the network (repeatable)")
      ->allow_extra_args(false)
      ->type_name("NAME");
  run.add_option("--policy-dir", flags.policy_dir,
                 "Extra language policies, over the built-in and ~/.config/paddock/policies")
      ->envname("PADDOCK_POLICY_DIR")
      ->type_name("DIR");
  run.add_option("--screening", flags.screening,
                 "Code screening of --lang code: enforce, warn or off (default: the policy's)")
      ->type_name("MODE");
  run.add_option("--network", flags.network,
                 "none (default), user (rootless, via pasta: outbound to the public network "
                 "only; nothing inbound, nothing of the host, no private, link-local or "
                 "metadata address) or host (no isolation of the network)")
      ->type_name("MODE");
  run.add_option("--allow-host", flags.allow_hosts,
                 "Reach this destination, and only the destinations so named, through an HTTP "
                 "proxy outside the sandbox: example.org, *.example.org, example.org:8443 or an "
                 "IP address or CIDR range (repeatable; with the default --network none)")
      ->allow_extra_args(false)
      ->type_name("PATTERN");
  run.add_option("--secret", flags.secrets,
                 "A brokered secret (docs/secrets.md): the sandbox sees NAME set to a "
                 "placeholder, and the proxy puts ENVVAR's value in its place in HTTPS requests "
                 "to HOSTS alone, e.g. GITHUB_TOKEN=GH_TOKEN@api.github.com; the hosts join "
                 "--allow-host (repeatable)")
      ->allow_extra_args(false)
      ->type_name("NAME=ENVVAR@HOSTS");
  run.add_flag("--secret-in-body", flags.secret_in_body,
               "Replace brokered secrets' placeholders in request bodies too (each held whole, "
               "1 MiB at most), not only in headers");
  run.add_option("--egress-ca-file", flags.egress_ca_file,
                 "PEM authorities the proxy checks brokered secrets' hosts against, instead of "
                 "the system's trust store")
      ->type_name("FILE");
  run.add_option("--allow-private", flags.allow_private,
                 "Let user-mode networking (--network user, installers) reach this private, "
                 "link-local or host address or CIDR range, refused by default (repeatable; "
                 "loosens isolation)")
      ->allow_extra_args(false)
      ->type_name("CIDR");
  run.add_option("--host-loopback-port", flags.host_loopback_ports,
                 "Let user-mode networking reach this TCP port of the host's loopback, at the "
                 "sandbox's own 127.0.0.1 (e.g. a package mirror on the host; repeatable; "
                 "loosens isolation)")
      ->allow_extra_args(false)
      ->type_name("PORT");
  run.add_option("--publish", flags.publish,
                 "Open this port of the sandbox to you on the host's 127.0.0.1 while the program "
                 "runs, and print its URL (with its token) on stderr: [HOSTPORT:]PORT[/tcp] "
                 "(repeatable; docs/previews.md)")
      ->allow_extra_args(false)
      ->type_name("[HOSTPORT:]PORT");
  run.add_option("--memory", flags.memory,
                 "Memory of the sandbox, e.g. 512m (default 512m); in rlimit mode "
                 "only per process, tmpfs and shared memory uncounted")
      ->type_name("SIZE");
  run.add_option("--pids", flags.pids, "Processes and threads, init included (default 256)")
      ->type_name("N");
  run.add_option("--cpu-time", flags.cpu_time, "CPU seconds per process (default: no limit)")
      ->type_name("SECONDS");
  run.add_option("--cpus", flags.cpus,
                 "CPU share of the whole sandbox, e.g. 0.5 (cgroup v2; rlimit mode "
                 "cannot enforce it)")
      ->type_name("N");
  run.add_flag("--require-cgroups", flags.require_cgroups,
               "Refuse to run unless cgroup v2 enforces the limits (no rlimit fallback)");
  run.add_option("--output-limit", flags.output_limit,
                 "Bytes of each stream the --json result keeps: its start and its end, the middle "
                 "replaced by a note (default 1m; without --json the output passes through whole)")
      ->type_name("SIZE");
  run.add_option("--file-size", flags.file_size,
                 "Largest file the program may write (default 256m)")
      ->type_name("SIZE");
  run.add_option("--tmp-size", flags.tmp_size, "Size of /tmp and /dev/shm, each (default 64m)")
      ->type_name("SIZE");
  run.add_option("--work-size", flags.work_size, "Size of the work directory (default 256m)")
      ->type_name("SIZE");
  run.add_option("--ro-bind", flags.ro_binds,
                 "Show a host path read-only at a sandbox path (repeatable)")
      ->allow_extra_args(false)
      ->type_name("HOST:SANDBOX");
  run.add_option("--bind", flags.binds,
                 "Show a host folder read-write at a sandbox path (repeatable); the program then "
                 "runs as the folder's owner on the host, never as root")
      ->allow_extra_args(false)
      ->type_name("HOST:SANDBOX");
  run.add_option("--collect", flags.collect,
                 "Return the files under this work-directory subdirectory as artifacts, e.g. "
                 "outputs (repeatable; in the --json result)")
      ->allow_extra_args(false)
      ->type_name("DIR");
  run.add_option("--seccomp-profile", flags.seccomp_profile,
                 "A seccomp profile in Docker's JSON format instead of paddock's default")
      ->type_name("FILE");
  // Everything from the first non-option (or after --) is the command, untouched by parsing.
  run.prefix_command();
  run.formatter(std::make_shared<FixedUsageFormatter>("[OPTIONS] -- COMMAND [ARGS...]"));
}

Result<LimitOverrides> limit_flags(const RunFlags& flags) {
  LimitOverrides limits;
  auto parse = [](const std::string& text, const char* flag, const char* example, auto parser,
                  auto& target) -> Status {
    if (text.empty()) return {};
    auto value = parser(text);
    if (!value) {
      return invalid_input(std::string(flag) + " '" + text + "' is not valid; use e.g. " + example);
    }
    target = static_cast<std::remove_reference_t<decltype(*target)>>(*value);
    return {};
  };
  for (auto status : {
           parse(flags.timeout, "--timeout", "30 or 1.5s", parse_seconds, limits.wall_seconds),
           parse(flags.cpu_time, "--cpu-time", "10", parse_seconds, limits.cpu_seconds),
           parse(flags.memory, "--memory", "512m", parse_size, limits.memory_bytes),
           parse(flags.pids, "--pids", "256", parse_count, limits.pids),
           parse(flags.output_limit, "--output-limit", "1m", parse_size, limits.output_bytes),
           parse(flags.file_size, "--file-size", "256m", parse_size, limits.file_size_bytes),
           parse(flags.tmp_size, "--tmp-size", "64m", parse_size, limits.tmp_bytes),
           parse(flags.work_size, "--work-size", "256m", parse_size, limits.work_bytes),
       }) {
    if (!status) return status.error();
  }
  if (!flags.cpus.empty()) {
    auto cpus = parse_decimal(flags.cpus);
    if (!cpus || *cpus <= 0 || *cpus > 1024) {
      return invalid_input("--cpus '" + flags.cpus + "' is not valid; use e.g. 0.5 or 2");
    }
    limits.cpus = *cpus;
  }
  return limits;
}

// What runs: a command (rest, or the words after --), or code in a language.
Status set_program(const RunFlags& flags, std::vector<std::string> rest,
                   std::vector<std::string> command, RunRequest& request) {
  if (flags.lang.empty()) {
    if (!flags.code.empty()) return invalid_input("--code needs --lang (e.g. --lang python)");
    if (!flags.libraries.empty()) return invalid_input("--lib needs --lang (e.g. --lang python)");
    if (!flags.screening.empty()) return invalid_input("--screening needs --lang");
    if (!rest.empty() && !command.empty()) {
      return invalid_input("unexpected '" + rest[0] +
                           "' before --; usage: paddock run [OPTIONS] -- COMMAND [ARGS...]");
    }
    rest.insert(rest.end(), command.begin(), command.end());
    if (rest.empty() && flags.image.empty()) {
      return invalid_input("no command given; usage: paddock run [OPTIONS] -- COMMAND [ARGS...]");
    }
    if (!rest.empty()) request.plan.steps = {std::move(rest)};
    return {};
  }
  LanguageRequest language;
  language.language = flags.lang;
  language.libraries = flags.libraries;
  if (!flags.policy_dir.empty()) language.policy_dir = flags.policy_dir;
  if (!flags.code.empty()) {
    language.code = flags.code;
  } else if (!rest.empty()) {
    language.code_file = rest[0];
    rest.erase(rest.begin());
  } else {
    return invalid_input("no code given; use --code CODE, a FILE, or - to read it from stdin");
  }
  language.program_args = std::move(rest);
  language.program_args.insert(language.program_args.end(), command.begin(), command.end());
  request.language = std::move(language);
  if (!flags.screening.empty()) {
    if (!screening_mode_from_name(flags.screening)) {
      return invalid_input("--screening '" + flags.screening +
                           "' is not valid; use enforce, warn or off");
    }
    request.screening_mode = flags.screening;
  }
  return {};
}

// PADDOCK_BACKEND, else BACKEND (llm-sandbox's name for it), else native.
std::string backend_from_environment() {
  for (const char* name : {"PADDOCK_BACKEND", "BACKEND"}) {
    const char* value = getenv(name);
    if (value != nullptr && *value != '\0') return value;
  }
  return "native";
}

Result<RunRequest> to_request(RunFlags& flags, std::vector<std::string> rest,
                              std::vector<std::string> command) {
  RunRequest request;
  SandboxShape& shape = request.shape;
  RunPlan& plan = request.plan;
  request.json = flags.json;
  request.backend = flags.backend.empty() ? backend_from_environment() : flags.backend;
  if (!flags.image.empty()) request.image = flags.image;
  if (!flags.root.empty()) request.image_root = flags.root;
  if (auto program = set_program(flags, std::move(rest), std::move(command), request); !program) {
    return program.error();
  }
  auto limits = limit_flags(flags);
  if (!limits) return limits.error();
  request.limit_flags = *limits;
  Limits all_limits;
  request.limit_flags.apply_to(all_limits);
  shape.limits = all_limits;
  request.plan.wall_seconds = all_limits.wall_seconds;
  request.plan.output_bytes = all_limits.output_bytes;
  shape.require_cgroups = flags.require_cgroups;
  request.network_given = !flags.network.empty();
  if (flags.network.empty() || flags.network == "none") {
    shape.network = NetworkMode::kNone;
  } else if (flags.network == "host") {
    shape.network = NetworkMode::kHost;
  } else if (flags.network == "user") {
    shape.network = NetworkMode::kUser;
  } else {
    return invalid_input("--network '" + flags.network + "' is not valid; use none, user or host");
  }
  for (const auto& pattern : flags.allow_hosts) {
    if (auto parsed = net::egress::parse_host_pattern(pattern); !parsed) return parsed.error();
    shape.allowed_hosts.push_back(pattern);
  }
  for (const auto& text : flags.secrets) {
    auto spec = net::egress::parse_secret_spec(text);
    if (!spec) return invalid_input("--secret " + spec.error().message);
    for (const auto& known : request.secrets) {
      if (known.name == spec->name) {
        return invalid_input("--secret: " + spec->name +
                             " is brokered twice; give each secret once, with all its hosts");
      }
    }
    for (const auto& host : spec->hosts) {
      if (std::find(shape.allowed_hosts.begin(), shape.allowed_hosts.end(), host) ==
          shape.allowed_hosts.end()) {
        shape.allowed_hosts.push_back(host);
      }
    }
    request.secrets.push_back(std::move(*spec));
  }
  if (!request.secrets.empty() && request.backend != "native") {
    return invalid_input("--secret needs the native backend, whose egress proxy brokers it");
  }
  if (!request.secrets.empty() && shape.network != NetworkMode::kNone) {
    return invalid_input(
        "--secret goes through the egress proxy, the program's only network: it "
        "cannot be combined with --network " +
        std::string(to_string(shape.network)));
  }
  request.secret_in_body = flags.secret_in_body;
  if (!flags.egress_ca_file.empty()) request.egress_ca_file = flags.egress_ca_file;
  for (const auto& range : flags.allow_private) {
    if (!parse_ip_prefix(range)) {
      return invalid_input("--allow-private '" + range +
                           "' is not an IP address or CIDR range; use e.g. 10.1.2.0/24");
    }
    shape.allowed_private_ranges.push_back(range);
  }
  for (const auto& text : flags.host_loopback_ports) {
    auto port = parse_count(text);
    if (!port || *port == 0 || *port > 65535) {
      return invalid_input("--host-loopback-port '" + text + "' is not a port; use 1 to 65535");
    }
    shape.host_loopback_ports.push_back(static_cast<std::uint16_t>(*port));
  }
  for (const auto& text : flags.publish) {
    auto publish = net::preview::parse_preview_publish(text);
    if (!publish) return publish.error();
    request.publish.push_back(*publish);
    shape.previews = true;
  }
  plan.env = flags.env;
  plan.cwd = flags.workdir;
  if (flags.stdin_file == "-") {
    request.stdin_from_terminal = true;
  } else if (!flags.stdin_file.empty()) {
    plan.stdin_path = flags.stdin_file;
  }
  for (bool writable : {false, true}) {
    for (const auto& bind : writable ? flags.binds : flags.ro_binds) {
      auto colon = bind.find(':');
      if (colon == std::string::npos || colon == 0 || colon + 1 == bind.size()) {
        return invalid_input(std::string(writable ? "--bind '" : "--ro-bind '") + bind +
                             "' must look like HOST_PATH:SANDBOX_PATH");
      }
      shape.binds.push_back({bind.substr(0, colon), bind.substr(colon + 1), writable});
    }
  }
  if (!flags.seccomp_profile.empty()) shape.seccomp_profile_path = flags.seccomp_profile;
  for (const auto& directory : flags.collect) {
    if (directory.empty() || directory[0] == '/' || directory.find("..") != std::string::npos) {
      return invalid_input("--collect '" + directory +
                           "' must be a directory inside the work directory, e.g. outputs");
    }
    plan.collect.directories.push_back(directory);
  }
  return request;
}

// `paddock mcp`'s flags come from its settings table (cli/mcp_settings.h), which resolves them
// with the environment when the server starts, so that an error can name what the user wrote.
void add_mcp_options(CLI::App& mcp, FlagValues& storage) {
  add_setting_options(mcp, mcp_settings(), storage);
  mcp.footer(
      "Flags win over their environment variables, which win over the language policies.\n"
      "Only the variables named by --pass-through-env reach sandboxed code.\n");
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

}  // namespace

Result<Request> parse_command_line(int argc, const char* const* argv) {
  CLI::App app{"paddock: a rootless, daemonless sandbox for running untrusted code", "paddock"};
  app.set_version_flag("--version", version_line());
  app.require_subcommand(1, 1);
  // Only the named command gets its options: building every command's (mcp has dozens) cost
  // each `paddock run` about 0.2 ms. The others are still there, by name, for --help and for
  // CLI11's own error on a misplaced option.
  const std::string_view named = argc > 1 && argv[1][0] != '-' ? argv[1] : "";
  auto described = [&](std::string_view name) { return named.empty() || named == name; };
  RunFlags run_flags;
  CLI::App* run = app.add_subcommand("run", "Run a command in a fresh sandbox");
  if (described("run")) add_run_options(*run, run_flags);
  bool doctor_json = false;
  CLI::App* doctor = app.add_subcommand("doctor", "Show what isolation this host offers");
  doctor->add_flag("--json", doctor_json, "Print the report as JSON");
  PolicyRequest policy_request;
  std::string policy_dir;
  CLI::App* policy = app.add_subcommand(
      "policy", "Language policies: list, show LANG, check FILE, screen LANG (code on stdin)");
  if (described("policy")) {
    policy->add_option("action", policy_request.action, "list, show, check or screen")
        ->required()
        ->check(CLI::IsMember({"list", "show", "check", "screen"}));
    policy->add_option("argument", policy_request.argument,
                       "LANG for show and screen, FILE for check");
    policy->add_flag("--json", policy_request.json, "Print JSON");
    policy->add_option("--policy-dir", policy_dir, "Extra language policies")
        ->envname("PADDOCK_POLICY_DIR")
        ->type_name("DIR");
  }

  ImageRequest image_request;
  std::string image_root;
  auto add_root = [&](CLI::App* command) {
    // No envname: PADDOCK_ROOT is read with the other paths (host_paths.h), and an envname on these
    // options, which share one variable, would let it overwrite a --root given to another command.
    command->add_option("--root", image_root, kRootHelp)->type_name("DIR");
  };
  CLI::App* images = app.add_subcommand("images", "List the images in the store");
  images->add_flag("--json", image_request.json, "Print JSON");
  add_root(images);
  CLI::App* import = app.add_subcommand(
      "import", "Import an OCI image layout directory, an OCI archive or a docker save tarball");
  import->add_option("path", image_request.arguments, "The directory or tar file")->required();
  import->add_option("--tag", image_request.tag, "The name to store it under")->type_name("REF");
  import->add_option("--platform", image_request.platform, "os/arch (default linux/amd64)");
  add_root(import);
  CLI::App* pull = app.add_subcommand(
      "pull", "Pull an image from a registry (OCI distribution API) into the store");
  if (described("pull")) add_pull_options(*pull, image_request);
  add_root(pull);
  CLI::App* rmi = app.add_subcommand("rmi", "Remove images from the store (then 'paddock gc')");
  rmi->add_option("images", image_request.arguments, "References or ids")->required();
  add_root(rmi);
  CLI::App* gc = app.add_subcommand("gc", "Delete blobs and layers no image uses");
  add_root(gc);

  McpRequest mcp_request;
  CLI::App* mcp = app.add_subcommand("mcp", "Serve the Model Context Protocol on stdin/stdout");
  FlagValues mcp_flags;  // CLI11 writes each flag's values here
  if (described("mcp")) add_mcp_options(*mcp, mcp_flags);

  static const std::set<std::string_view> kCommands = {
      "run", "mcp", "doctor", "policy", "images", "import", "pull", "rmi", "gc"};
  if (argc > 1 && argv[1][0] != '-' && kCommands.count(argv[1]) == 0) {
    return invalid_input(std::string("unknown command '") + argv[1] +
                         "'; the commands are run, mcp, images, import, pull, rmi, gc, doctor and "
                         "policy (see 'paddock --help')");
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
    return invalid_input(message + " (see '" + where + "')");
  }
  if (doctor->parsed()) {
    if (paddock_argc != argc) return invalid_input("paddock doctor takes no command");
    return Request{DoctorRequest{doctor_json}};
  }
  for (CLI::App* store_command : {images, import, pull, rmi, gc}) {
    if (!store_command->parsed()) continue;
    if (paddock_argc != argc) {
      return invalid_input("paddock " + store_command->get_name() + " takes no command after --");
    }
    image_request.action = store_command->get_name();
    if (!image_root.empty()) image_request.root = image_root;
    return Request{std::move(image_request)};
  }
  if (mcp->parsed()) {
    if (paddock_argc != argc) return invalid_input("paddock mcp takes no command");
    mcp_request.flags = collect_flags(*mcp, mcp_flags);
    return Request{std::move(mcp_request)};
  }
  if (policy->parsed()) {
    if (policy_request.action != "list" && policy_request.argument.empty()) {
      return invalid_input("paddock policy " + policy_request.action + " needs " +
                           (policy_request.action == "check" ? "a policy file" : "a language"));
    }
    if (!policy_dir.empty()) policy_request.policy_dir = policy_dir;
    return Request{std::move(policy_request)};
  }
  std::vector<std::string> rest = run->remaining();
  // prefix_command() hands over unknown options too: refuse them rather than run them.
  if (!rest.empty() && rest[0].starts_with("-") && rest[0] != "-") {
    return invalid_input("unknown option " + rest[0] + " (see 'paddock run --help')");
  }
  auto request = to_request(run_flags, std::move(rest), std::move(command));
  if (!request) return request.error();
  return Request{std::move(*request)};
}

}  // namespace paddock::cli
