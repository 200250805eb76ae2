#pragma once

// `paddock mcp` started over real pipes, as a client sees it: send requests, wait for the answer
// with a given id, look at the notifications that came meanwhile.

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/harness.h"

namespace paddock::testing {

class McpProcess {
 public:
  using json = nlohmann::json;
  using Clock = std::chrono::steady_clock;

  // `launcher`, when given, starts the server: a program that execs the rest of its argv
  // (prlimit, to give the server a limit of its own from its first instruction).
  explicit McpProcess(std::vector<std::string> flags = {}, std::vector<std::string> launcher = {}) {
    std::vector<std::string> args = std::move(launcher);
    for (auto arg :
         {paddock_binary(), std::string("mcp"), std::string("--log-level"), std::string("error")}) {
      args.push_back(arg);
    }
    args.insert(args.end(), flags.begin(), flags.end());
    start(args, Command{});
  }
  // Any program driven the same way (`paddock wrap ...`): its whole argv, where its stderr goes
  // and the variables set in its environment on top of this process's (NAME=VALUE).
  struct Command {
    std::vector<std::string> argv;
    std::string stderr_path = "/dev/null";
    std::vector<std::string> env;
    // stdin and stdout are socketpairs, as libuv (node's clients) makes them, not pipes; then
    // close_input shuts the socket's output down, as node's stdin.end() does.
    bool sockets = false;
  };
  explicit McpProcess(const Command& command) { start(command.argv, command); }
  ~McpProcess() {
    if (to_server_ >= 0) close(to_server_);
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    close(from_server_);
  }

 private:
  void start(std::vector<std::string> args, const Command& command) {
    int in[2], out[2];
    sockets_ = command.sockets;
    if (sockets_) {
      EXPECT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, in), 0);
      EXPECT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, out), 0);
      std::swap(in[0], in[1]);  // in[1] is this end, as a pipe's write end
    } else {
      EXPECT_EQ(pipe2(in, O_CLOEXEC), 0);
      EXPECT_EQ(pipe2(out, O_CLOEXEC), 0);
    }
    pid_ = fork();
    if (pid_ == 0) {
      dup2(in[0], STDIN_FILENO);
      dup2(out[1], STDOUT_FILENO);
      int err = open(command.stderr_path.empty() ? "/dev/null" : command.stderr_path.c_str(),
                     O_WRONLY | O_CREAT | O_APPEND, 0644);
      dup2(err, STDERR_FILENO);
      for (const auto& entry : command.env) putenv(const_cast<char*>(entry.c_str()));
      std::vector<char*> argv;
      for (auto& arg : args) argv.push_back(arg.data());
      argv.push_back(nullptr);
      execv(argv[0], argv.data());
      _exit(127);
    }
    close(in[0]);
    close(out[1]);
    to_server_ = in[1];
    from_server_ = out[0];
  }

 public:
  void send_line(const std::string& line) {
    std::string data = line + "\n";
    for (std::size_t done = 0; done < data.size();) {
      ssize_t wrote = write(to_server_, data.data() + done, data.size() - done);
      ASSERT_GT(wrote, 0);
      done += static_cast<std::size_t>(wrote);
    }
  }
  void send(const json& message) { send_line(message.dump()); }
  // Writes what the other end takes of `data` within `timeout`, never blocking past it: the
  // bytes written.
  std::size_t send_for(const std::string& data, std::chrono::milliseconds timeout) {
    auto deadline = Clock::now() + timeout;
    fcntl(to_server_, F_SETFL, fcntl(to_server_, F_GETFL) | O_NONBLOCK);
    std::size_t done = 0;
    while (done < data.size()) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
      if (left.count() <= 0) break;
      pollfd entry{to_server_, POLLOUT, 0};
      if (poll(&entry, 1, static_cast<int>(left.count())) <= 0) break;
      ssize_t wrote = write(to_server_, data.data() + done, data.size() - done);
      if (wrote > 0) done += static_cast<std::size_t>(wrote);
      if (wrote < 0 && errno != EAGAIN && errno != EINTR) break;
    }
    fcntl(to_server_, F_SETFL, fcntl(to_server_, F_GETFL) & ~O_NONBLOCK);
    return done;
  }
  void request(int id, const std::string& method, json params = json::object()) {
    send({{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}});
  }
  void call(int id, const std::string& tool, json arguments, json meta = nullptr) {
    json params = {{"name", tool}, {"arguments", std::move(arguments)}};
    if (!meta.is_null()) params["_meta"] = std::move(meta);
    request(id, "tools/call", std::move(params));
  }

  // The next message with this id (others are kept for later), or null after `timeout`.
  json wait_for(const json& id, std::chrono::seconds timeout = std::chrono::seconds(60)) {
    auto deadline = Clock::now() + timeout;
    for (;;) {
      for (auto it = received_.begin(); it != received_.end(); ++it) {
        if (it->contains("id") && (*it)["id"] == id) {
          json found = *it;
          received_.erase(it);
          return found;
        }
      }
      if (!read_some(deadline)) return nullptr;
    }
  }
  // The next request of the server's own with this method (elicitation/create), or null after
  // `timeout`.
  json wait_for_request(const std::string& method,
                        std::chrono::seconds timeout = std::chrono::seconds(60)) {
    auto deadline = Clock::now() + timeout;
    for (;;) {
      for (auto it = received_.begin(); it != received_.end(); ++it) {
        if (it->contains("id") && it->value("method", "") == method) {
          json found = *it;
          received_.erase(it);
          return found;
        }
      }
      if (!read_some(deadline)) return nullptr;
    }
  }
  // Opens a session with `arguments` (request `id`): its id, or "" when it was refused or no
  // answer came, with the answer (or null) in `answer`.
  std::string open_session(int id, json arguments, json* answer = nullptr,
                           std::chrono::seconds timeout = std::chrono::seconds(120)) {
    call(id, "create_session", std::move(arguments));
    json response = wait_for(id, timeout);
    if (answer != nullptr) *answer = response;
    const json* structured = response.is_object() && response.contains("result")
                                 ? &response["result"]["structuredContent"]
                                 : nullptr;
    if (structured == nullptr || !structured->is_object()) return "";
    return structured->value("session_id", "");
  }
  // A tool result's first text, or the whole message when it has none (an error, no answer).
  static std::string text_of(const json& response) {
    if (!response.is_object() || !response.contains("result")) return response.dump();
    const json& content = response["result"].value("content", json::array());
    return content.empty() ? response.dump() : content[0].value("text", response.dump());
  }
  // Whether a tool call's answer is a refusal (isError), or no tool result at all.
  static bool is_tool_error(const json& response) {
    return !response.is_object() || !response.contains("result") ||
           response["result"].value("isError", false);
  }
  std::vector<json> notifications() const {
    std::vector<json> found;
    for (const auto& message : received_) {
      if (!message.contains("id")) found.push_back(message);
    }
    return found;
  }
  void close_input() {
    if (sockets_) {
      shutdown(to_server_, SHUT_WR);  // the socket stays open until the end, as node keeps it
      return;
    }
    close(to_server_);
    to_server_ = -1;
  }
  // The exit status, or -1 if it did not exit in time.
  int wait_exit(std::chrono::seconds timeout) {
    auto deadline = Clock::now() + timeout;
    while (Clock::now() < deadline) {
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return -1;
  }
  [[nodiscard]] pid_t pid() const { return pid_; }
  // Reads until the other end closes its output; false if it did not within `timeout`.
  bool wait_eof(std::chrono::seconds timeout) {
    auto deadline = Clock::now() + timeout;
    while (!eof_) {
      if (!read_some(deadline) && !eof_) return false;
    }
    return true;
  }
  // Lines that were not JSON, and every message received so far (answers not yet waited for,
  // notifications).
  [[nodiscard]] std::size_t malformed_lines() const { return malformed_; }
  [[nodiscard]] const std::vector<json>& received() const { return received_; }
  [[nodiscard]] std::size_t received_bytes() const { return received_bytes_; }

 private:
  bool read_some(Clock::time_point deadline) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) return false;
    pollfd entry{from_server_, POLLIN, 0};
    if (poll(&entry, 1, static_cast<int>(left.count())) <= 0) return false;
    char chunk[65536];
    ssize_t got = read(from_server_, chunk, sizeof chunk);
    if (got == 0) eof_ = true;
    if (got <= 0) return false;
    received_bytes_ += static_cast<std::size_t>(got);
    pending_.append(chunk, static_cast<std::size_t>(got));
    std::size_t start = 0;
    for (auto end = pending_.find('\n'); end != std::string::npos;
         end = pending_.find('\n', start)) {
      // Every line is one message; one that is not JSON is counted, for the tests that check
      // that none is.
      json message =
          json::parse(pending_.begin() + static_cast<std::ptrdiff_t>(start),
                      pending_.begin() + static_cast<std::ptrdiff_t>(end), nullptr, false);
      if (message.is_discarded()) {
        ++malformed_;
      } else {
        received_.push_back(std::move(message));
      }
      start = end + 1;
    }
    pending_.erase(0, start);
    return true;
  }

  pid_t pid_ = -1;
  int to_server_ = -1;
  int from_server_ = -1;
  std::string pending_;
  std::vector<json> received_;
  std::size_t malformed_ = 0;
  std::size_t received_bytes_ = 0;
  bool eof_ = false;
  bool sockets_ = false;
};

}  // namespace paddock::testing
