#include "support/harness.h"

#include <dirent.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string_view>
#include <thread>

#include <gtest/gtest.h>

#include "core/special_addresses.h"
#include "runtime/native/id_map.h"
#include "runtime/native/native_backend.h"
#include "runtime/warm_run.h"

extern char** environ;

namespace paddock::testing {
namespace {

std::string env_or(const char* name, const char* fallback) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? value : fallback;
}

// Some machines reach the package registries the tests install from through an address in a
// reserved block (this one: registry.npmjs.org and deb.debian.org resolve to 203.0.113.80, a
// gateway in TEST-NET-3), which every network mode refuses (docs/security.md). The tests open
// exactly those addresses, as the operator of such a machine would: `paddock run` gets
// --allow-private for them (run_cli), `paddock mcp` PADDOCK_ALLOW_PRIVATE, and sandboxes run
// in-process their allowed_private_ranges (spec_for), unless the caller set PADDOCK_ALLOW_PRIVATE.
// Comma-separated; empty where the registries resolve to public addresses.
const std::string& registry_gateways() {
  static const std::string kOpened = [] {
    const char* given = std::getenv("PADDOCK_ALLOW_PRIVATE");
    if (given != nullptr) return std::string(given);
    std::string opened;
    for (const char* name : {"registry.npmjs.org", "deb.debian.org"}) {
      addrinfo hints{};
      hints.ai_socktype = SOCK_STREAM;
      addrinfo* found = nullptr;
      if (getaddrinfo(name, nullptr, &hints, &found) != 0) continue;
      for (addrinfo* entry = found; entry != nullptr; entry = entry->ai_next) {
        core::IpPrefix address;
        address.family = entry->ai_family;
        if (entry->ai_family == AF_INET) {
          std::memcpy(address.bytes.data(),
                      &reinterpret_cast<const sockaddr_in*>(entry->ai_addr)->sin_addr, 4);
        } else if (entry->ai_family == AF_INET6) {
          std::memcpy(address.bytes.data(),
                      &reinterpret_cast<const sockaddr_in6*>(entry->ai_addr)->sin6_addr, 16);
        } else {
          continue;
        }
        address.length = address.address_bits();
        std::string text = core::to_string(address);
        if (refused_block_name(address) && opened.find(text) == std::string::npos) {
          opened += (opened.empty() ? "" : ",") + text;
        }
      }
      freeaddrinfo(found);
    }
    if (!opened.empty()) setenv("PADDOCK_ALLOW_PRIVATE", opened.c_str(), 1);
    return opened;
  }();
  return kOpened;
}
// Before any test (or thread) runs: setenv is not thread-safe.
[[maybe_unused]] const bool kRegistryGatewaysKnown = !registry_gateways().empty();

}  // namespace

std::string paddock_binary() {
  return env_or("PADDOCK_BIN", PADDOCK_BINARY);
}
std::string paddock_test_names_binary() {
  return env_or("PADDOCK_TEST_NAMES_BIN", PADDOCK_TEST_NAMES_BINARY);
}
std::string probe_binary() {
  return env_or("PADDOCK_PROBE_BIN", PADDOCK_PROBE);
}
std::string source_dir() {
  return env_or("PADDOCK_SOURCE_DIR", PADDOCK_SOURCE_DIR);
}

TestSpec spec_for(std::vector<std::string> argv) {
  TestSpec spec;
  spec.argv = std::move(argv);
  std::string_view gateways = registry_gateways();
  while (!gateways.empty()) {
    std::string_view range = gateways.substr(0, gateways.find(','));
    gateways.remove_prefix(std::min(gateways.size(), range.size() + 1));
    spec.allowed_private_ranges.emplace_back(range);
  }
  spec.limits.wall_seconds = 20;
  return spec;
}

TestSpec shell_spec(const std::string& script) {
  return spec_for({"/bin/sh", "-c", script});
}

TestSpec probe_spec(std::vector<std::string> probe_args) {
  probe_args.insert(probe_args.begin(), "/probe/paddock_probe");
  TestSpec spec = spec_for(std::move(probe_args));
  spec.binds.push_back({probe_binary(), "/probe/paddock_probe", false});
  return spec;
}

void RecordingObserver::on_started(int pid) {
  host_pid = pid;
}

void RecordingObserver::on_output(runtime::StreamId, std::string_view) {
  ++chunks;
}

runtime::RunResult run_ok(const TestSpec& spec, RecordingObserver& observer) {
  native::NativeBackend backend;
  auto result = backend.run(shape_of(spec), plan_of(spec), observer);
  EXPECT_TRUE(result.ok()) << (result.ok() ? "" : result.error().message);
  if (!result.ok()) return runtime::RunResult{};
  return std::move(*result);
}

runtime::RunResult run_ok(RunMode mode, const TestSpec& spec, RecordingObserver& observer) {
  if (mode == RunMode::kCold) return run_ok(spec, observer);
  native::NativeBackend backend;
  runtime::SandboxShape shape = shape_of(spec);
  runtime::RunPlan plan = plan_of(spec);
  // A warm sandbox runs no installer after its start, as the spec builder's fresh calls say.
  shape.session_networking = false;
  EXPECT_TRUE(runtime::runs_warm(shape, plan));
  auto sandbox = runtime::open_warm(backend, shape);
  EXPECT_TRUE(sandbox.ok()) << (sandbox.ok() ? "" : sandbox.error().message);
  if (!sandbox.ok()) return runtime::RunResult{};
  // A pool's sandbox waits for its call.
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  auto result = runtime::run_warm(**sandbox, plan, observer);
  EXPECT_TRUE(result.ok()) << (result.ok() ? "" : result.error().message);
  if (!result.ok()) return runtime::RunResult{};
  return std::move(*result);
}

const char* to_string(RunMode mode) {
  return mode == RunMode::kCold ? "Cold" : "Warm";
}

runtime::RunResult run_ok(const TestSpec& spec) {
  RecordingObserver observer;
  return run_ok(spec, observer);
}

CliResult run_cli(const std::vector<std::string>& args, const std::string& stdin_text) {
  std::vector<std::string> full = {paddock_binary()};
  full.insert(full.end(), args.begin(), args.end());
  if (!args.empty() && args[0] == "run") {
    std::string_view rest = registry_gateways();
    while (!rest.empty()) {
      std::string_view range = rest.substr(0, rest.find(','));
      rest.remove_prefix(std::min(rest.size(), range.size() + 1));
      full.insert(full.begin() + 2, {"--allow-private", std::string(range)});
    }
  }
  return run_program(full, stdin_text);
}

CliResult run_program(std::vector<std::string> full, const std::string& stdin_text) {
  int in[2], out[2], err[2];
  EXPECT_EQ(pipe2(in, O_CLOEXEC), 0);
  EXPECT_EQ(pipe2(out, O_CLOEXEC), 0);
  EXPECT_EQ(pipe2(err, O_CLOEXEC), 0);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in[0], 0);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err[1], 2);
  std::vector<char*> argv;
  for (auto& arg : full) argv.push_back(arg.data());
  argv.push_back(nullptr);
  pid_t pid = -1;
  int rc = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(in[0]);
  close(out[1]);
  close(err[1]);
  CliResult result;
  if (rc != 0) {
    ADD_FAILURE() << "cannot start " << argv[0];
    return result;
  }
  [[maybe_unused]] ssize_t written = write(in[1], stdin_text.data(), stdin_text.size());
  close(in[1]);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  pollfd fds[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
  std::string* sinks[2] = {&result.out, &result.err};
  int open_count = 2;
  while (open_count > 0 && std::chrono::steady_clock::now() < deadline) {
    if (poll(fds, 2, 1000) <= 0) continue;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      char buffer[65536];
      ssize_t got = read(fds[i].fd, buffer, sizeof buffer);
      if (got <= 0) {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_count;
      } else {
        sinks[i]->append(buffer, static_cast<std::size_t>(got));
      }
    }
  }
  if (open_count > 0) {
    ADD_FAILURE() << "paddock did not finish within 120 s";
    kill(pid, SIGKILL);
    for (auto& fd : fds)
      if (fd.fd >= 0) close(fd.fd);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  result.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<std::string> directory_entries(const std::string& path) {
  std::vector<std::string> names;
  DIR* dir = opendir(path.c_str());
  if (dir == nullptr) return names;
  while (dirent* entry = readdir(dir)) {
    std::string name = entry->d_name;
    if (name != "." && name != "..") names.push_back(name);
  }
  closedir(dir);
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<pid_t> children_of(pid_t pid) {
  std::vector<pid_t> found;
  std::string tasks = "/proc/" + std::to_string(pid) + "/task";
  for (const auto& task : directory_entries(tasks)) {
    std::istringstream children(read_file(tasks + "/" + task + "/children"));
    for (pid_t child; children >> child;) found.push_back(child);
  }
  return found;
}

std::vector<pid_t> sandboxes_of(pid_t server) {
  std::vector<pid_t> found;
  for (pid_t child : children_of(server)) {
    if (read_file("/proc/" + std::to_string(child) + "/comm") == "paddock-init\n") {
      found.push_back(child);
    }
  }
  return found;
}

std::vector<pid_t> processes_with(const std::string& marker) {
  std::vector<pid_t> found;
  for (const auto& name : directory_entries("/proc")) {
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::string cmdline = read_file("/proc/" + name + "/cmdline");
    std::replace(cmdline.begin(), cmdline.end(), '\0', ' ');
    if (cmdline.find(marker) != std::string::npos) found.push_back(std::stoi(name));
  }
  return found;
}

long host_uid_of(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(status, line);) {
    if (line.starts_with("Uid:")) return std::stol(line.substr(4));
  }
  return -1;
}

namespace {

// Whether a sandbox of this user could run as host uid `uid`: this user's own uid, or one of the
// subordinate uids paddock maps from (the range its own probe finds).
bool a_uid_of_this_user(long uid) {
  native::IdMapHost host = native::probe_id_map_host();
  if (uid == static_cast<long>(host.euid)) return true;
  // Root's sandboxes run as ids of root's own range (plan_id_map). Root sees every user's
  // processes, and other users' suites run beside its own (scripts/test): theirs are not its.
  if (host.euid == 0) return uid >= static_cast<long>(native::kRootHostIdBase);
  return host.sub_uids && uid >= host.sub_uids->start &&
         uid < static_cast<long>(host.sub_uids->start) + host.sub_uids->count;
}

}  // namespace

std::vector<pid_t> processes_of_this_user_with(const std::string& marker) {
  std::vector<pid_t> found = processes_with(marker);
  std::erase_if(found, [](pid_t pid) { return !a_uid_of_this_user(host_uid_of(pid)); });
  return found;
}

int open_fd_count() {
  return static_cast<int>(directory_entries("/proc/self/fd").size());
}

std::vector<std::string> own_entries_of_tmp(const std::string& prefix) {
  std::vector<std::string> own;
  for (const auto& name : directory_entries("/tmp")) {
    struct stat info {};
    if (name.rfind(prefix, 0) == 0 && lstat(("/tmp/" + name).c_str(), &info) == 0 &&
        info.st_uid == geteuid()) {
      own.push_back(name);
    }
  }
  return own;
}

std::string mounts_but_other_jobs() {
  std::istringstream lines(read_file("/proc/self/mountinfo"));
  std::string kept;
  for (std::string line; std::getline(lines, line);) {
    bool other_job = false;
    // The container engines' storage (scripts/test's, and tests/engine's own under
    // /tmp/paddock-engines-*), images being built, network namespaces.
    for (const char* mark : {"/engines/", "/paddock-engines-", "/mmdebstrap.", " /run/netns/"}) {
      other_job = other_job || line.find(mark) != std::string::npos;
    }
    if (!other_job) kept += line + "\n";
  }
  return kept;
}

}  // namespace paddock::testing
