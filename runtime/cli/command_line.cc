#include "cli/command_line.h"

#include <CLI/CLI.hpp>

#include "cli/units.h"

namespace paddock::cli {
namespace {

constexpr const char* kVersion = "paddock 0.1.0";

// The run flags as the user typed them; converted to a SandboxSpec once parsing succeeded.
struct RunFlags {
  bool json = false;
  std::string backend;
  std::string stdin_file;
  std::string timeout;
  std::vector<std::string> env;
  std::string workdir;
  std::string network = "none";
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
  std::string seccomp_profile;
};

void add_run_options(CLI::App& run, RunFlags& flags) {
  run.add_flag("--json", flags.json, "Print one JSON result instead of the program's output");
  run.add_option("--backend", flags.backend, "Where to run: native (default)")
      ->envname("PADDOCK_BACKEND")
      ->type_name("NAME");
  run.add_option("--stdin", flags.stdin_file,
                 "File to give the program as stdin ('-' for paddock's own stdin; default: "
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
  run.add_option("--network", flags.network, "none (default) or host")->type_name("MODE");
  run.add_option("--memory", flags.memory, "Memory per process, e.g. 512m (default 512m)")
      ->type_name("SIZE");
  run.add_option("--pids", flags.pids, "Processes and threads, init included (default 256)")
      ->type_name("N");
  run.add_option("--cpu-time", flags.cpu_time, "CPU seconds per process (default: no limit)")
      ->type_name("SECONDS");
  run.add_option("--cpus", flags.cpus, "CPU share of the whole sandbox, e.g. 0.5 (cgroup v2)")
      ->type_name("N");
  run.add_flag("--require-cgroups", flags.require_cgroups,
               "Refuse to run unless cgroup v2 enforces the limits (no rlimit fallback)");
  run.add_option("--output-limit", flags.output_limit,
                 "Bytes captured per stream; the rest is dropped (default 1m)")
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
  run.add_option("--seccomp-profile", flags.seccomp_profile,
                 "A seccomp profile in Docker's JSON format instead of paddock's default")
      ->type_name("FILE");
  // Everything from the first non-option (or after --) is the command, untouched by parsing.
  run.prefix_command();
  run.footer("Usage: paddock run [OPTIONS] -- COMMAND [ARGS...]");
}

template <typename T, typename Parse>
Status set_if_given(const std::string& text, const char* flag, const char* example, Parse parse,
                    T& target) {
  if (text.empty()) return {};
  auto value = parse(text);
  if (!value) {
    return invalid_input(std::string(flag) + " '" + text + "' is not valid; use e.g. " + example);
  }
  target = static_cast<T>(*value);
  return {};
}

std::optional<std::uint64_t> parse_count(std::string_view text) {
  std::uint64_t value = 0;
  if (text.empty()) return std::nullopt;
  for (char c : text) {
    if (c < '0' || c > '9' || value > 100'000'000) return std::nullopt;
    value = value * 10 + static_cast<std::uint64_t>(c - '0');
  }
  return value;
}

Result<RunRequest> to_request(RunFlags& flags, const std::vector<std::string>& rest) {
  RunRequest request;
  SandboxSpec& spec = request.spec;
  request.json = flags.json;
  if (!flags.backend.empty()) request.backend = flags.backend;
  spec.argv = rest;
  if (spec.argv.empty()) {
    return invalid_input("no command given; usage: paddock run [OPTIONS] -- COMMAND [ARGS...]");
  }
  Limits& limits = spec.limits;
  for (auto status : {
           set_if_given(flags.timeout, "--timeout", "30 or 1.5s", parse_seconds,
                        limits.wall_seconds),
           set_if_given(flags.memory, "--memory", "512m", parse_size, limits.memory_bytes),
           set_if_given(flags.pids, "--pids", "256", parse_count, limits.pids),
           set_if_given(flags.output_limit, "--output-limit", "1m", parse_size,
                        limits.output_bytes),
           set_if_given(flags.file_size, "--file-size", "256m", parse_size, limits.file_size_bytes),
           set_if_given(flags.tmp_size, "--tmp-size", "64m", parse_size, limits.tmp_bytes),
           set_if_given(flags.work_size, "--work-size", "256m", parse_size, limits.work_bytes),
       }) {
    if (!status) return status.error();
  }
  if (!flags.cpu_time.empty()) {
    auto seconds = parse_seconds(flags.cpu_time);
    if (!seconds)
      return invalid_input("--cpu-time '" + flags.cpu_time + "' is not valid; use e.g. 10");
    limits.cpu_seconds = *seconds;
  }
  if (!flags.cpus.empty()) {
    auto cpus = parse_seconds(flags.cpus);  // a plain non-negative decimal
    if (!cpus || flags.cpus.find_first_not_of("0123456789.") != std::string::npos || *cpus <= 0 ||
        *cpus > 1024) {
      return invalid_input("--cpus '" + flags.cpus + "' is not valid; use e.g. 0.5 or 2");
    }
    limits.cpus = *cpus;
  }
  spec.require_cgroups = flags.require_cgroups;
  if (flags.network == "none") {
    spec.network = NetworkMode::kNone;
  } else if (flags.network == "host") {
    spec.network = NetworkMode::kHost;
  } else {
    return invalid_input("--network '" + flags.network + "' is not valid; use none or host");
  }
  spec.env = flags.env;
  spec.cwd = flags.workdir;
  if (flags.stdin_file == "-") {
    request.stdin_from_terminal = true;
  } else if (!flags.stdin_file.empty()) {
    spec.stdin_path = flags.stdin_file;
  }
  for (const auto& bind : flags.ro_binds) {
    auto colon = bind.find(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == bind.size()) {
      return invalid_input("--ro-bind '" + bind + "' must look like HOST_PATH:SANDBOX_PATH");
    }
    spec.binds.push_back({bind.substr(0, colon), bind.substr(colon + 1), false});
  }
  if (!flags.seccomp_profile.empty()) spec.seccomp_profile_path = flags.seccomp_profile;
  return request;
}

}  // namespace

Result<Request> parse_command_line(int argc, const char* const* argv) {
  CLI::App app{"paddock: a rootless, daemonless sandbox for running untrusted code", "paddock"};
  app.set_version_flag("--version", kVersion);
  app.require_subcommand(1, 1);
  RunFlags run_flags;
  CLI::App* run = app.add_subcommand("run", "Run a command in a fresh sandbox");
  add_run_options(*run, run_flags);
  bool doctor_json = false;
  CLI::App* doctor = app.add_subcommand("doctor", "Show what isolation this host offers");
  doctor->add_flag("--json", doctor_json, "Print the report as JSON");

  if (argc > 1 && argv[1][0] != '-' && std::string_view(argv[1]) != "run" &&
      std::string_view(argv[1]) != "doctor") {
    return invalid_input(std::string("unknown command '") + argv[1] +
                         "'; the commands are run and doctor (see 'paddock --help')");
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
    const CLI::App* target = run->parsed() ? run : doctor->parsed() ? doctor : &app;
    return Request{InfoRequest{target->help()}};
  } catch (const CLI::CallForVersion&) {
    return Request{InfoRequest{std::string(kVersion) + "\n"}};
  } catch (const CLI::ParseError& error) {
    std::string where = run->parsed()      ? "paddock run --help"
                        : doctor->parsed() ? "paddock doctor --help"
                                           : "paddock --help";
    std::string message = error.what();
    if (message.empty()) message = "invalid command line";
    return invalid_input(message + " (see '" + where + "')");
  }
  if (doctor->parsed()) {
    if (paddock_argc != argc) return invalid_input("paddock doctor takes no command");
    return Request{DoctorRequest{doctor_json}};
  }
  std::vector<std::string> rest = run->remaining();
  // prefix_command() hands over unknown options too: refuse them rather than run them.
  if (!rest.empty() && rest[0].starts_with("-")) {
    return invalid_input("unknown option " + rest[0] + " (see 'paddock run --help')");
  }
  if (!rest.empty() && !command.empty()) {
    return invalid_input("unexpected '" + rest[0] +
                         "' before --; usage: paddock run [OPTIONS] -- COMMAND [ARGS...]");
  }
  rest.insert(rest.end(), command.begin(), command.end());
  auto request = to_request(run_flags, rest);
  if (!request) return request.error();
  return Request{std::move(*request)};
}

}  // namespace paddock::cli
