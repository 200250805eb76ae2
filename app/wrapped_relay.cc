// serve_wrapped (app/wrapped_server.h): the threads between a client and its wrapped server.
//
//   this thread      runs the sandbox (Backend::run); the server's stdout arrives in on_output,
//                    is read as frames and written to the client; its stderr goes to the log
//   client reader    the client's frames, read and written to the server's stdin (a pipe); a
//                    denied call's or a malformed frame's answer goes back to the client
//   signal relay     SIGINT, SIGTERM and SIGHUP, caught into a pipe and sent on to the server
//
// The stream's state (which calls are open) is shared by the first two, under one lock; the
// client's output is written under another, a frame at a time, so two writers never interleave.

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>

#include "app/wrapped_server.h"
#include "core/unique_fd.h"

namespace paddock::app {
namespace {

// How long a server may take to exit once its client has closed its stdin, as MCP's stdio
// transport asks of a client before it sends SIGTERM.
constexpr int kExitGraceMs = 5000;
constexpr std::size_t kReadChunk = 64u << 10;

// Where the signal handler writes what it caught; -1 outside serve_wrapped.
volatile int g_signal_pipe = -1;

void on_signal(int sig) {
  int saved = errno;
  unsigned char byte = static_cast<unsigned char>(sig);
  if (g_signal_pipe >= 0) [[maybe_unused]]
    ssize_t wrote = write(g_signal_pipe, &byte, 1);
  errno = saved;
}

bool write_whole(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    ssize_t wrote = write(fd, bytes.data(), bytes.size());
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote <= 0) return false;
    bytes.remove_prefix(static_cast<std::size_t>(wrote));
  }
  return true;
}

// Writes to the server's stdin (non-blocking) until done, the server's stdin is closed, or the
// client's input has ended (`client_in` hung up) while the server reads nothing: a blocking
// write there never saw the client go, and a server that never reads kept the wrapper and itself
// alive for good (test Wrap.AServerThatNeverReadsDoesNotHangTheWrapper).
bool write_to_server(int server_in, std::string_view bytes, int client_in) {
  while (!bytes.empty()) {
    ssize_t wrote = write(server_in, bytes.data(), bytes.size());
    if (wrote > 0) {
      bytes.remove_prefix(static_cast<std::size_t>(wrote));
      continue;
    }
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote == 0 || errno != EAGAIN) return false;
    // A pipe's writer closing is POLLHUP; a socket's peer ending its output (libuv's stdio is a
    // socketpair) only POLLRDHUP.
    pollfd fds[2] = {{server_in, POLLOUT, 0}, {client_in, POLLRDHUP, 0}};
    if (poll(fds, 2, -1) < 0 && errno != EINTR) return false;
    bool writable = (fds[0].revents & (POLLOUT | POLLERR)) != 0;
    if (!writable && (fds[1].revents & (POLLHUP | POLLRDHUP | POLLERR | POLLNVAL)) != 0) {
      return false;
    }
  }
  return true;
}

struct Pipe {
  core::UniqueFd read_end, write_end;
  static core::Result<Pipe> make() {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) return core::system_error("making a pipe");
    return Pipe{core::UniqueFd(fds[0]), core::UniqueFd(fds[1])};
  }
};

// Waits until `fd` is readable or `wake` is; false when woken (or on an error).
bool wait_readable(int fd, int wake) {
  for (;;) {
    pollfd fds[2] = {{fd, POLLIN, 0}, {wake, POLLIN, 0}};
    int ready = poll(fds, 2, -1);
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0 || fds[1].revents != 0) return false;
    return true;
  }
}

// The audit line of one call: the server's name, the tool, its arguments' names and sizes (their
// values only with --audit-values), how it ended and how long it took.
AuditRecord wrapped_call_record(const std::string& server, const WrappedCall& call) {
  AuditRecord record;
  record.tool = "tools/call";
  record.backend = "native";
  record.outcome = call.outcome;
  record.duration_ms = call.duration_ms;
  record.error = call.error;
  record.wrapped = WrappedCallAudit{server, call.tool, call.arguments, call.values};
  return record;
}

// Sends `sig` to the processes below `pid` that are not paddock's own. The sandbox's host pid is
// init's relay, whose child is init (both paddock-init); the server runs below them. Sending to
// the relay's children alone reached only init, pid 1 of the sandbox's namespace, which ignores
// a signal it has no handler for: SIGTERM to the wrapper never reached the server (test
// Wrap.SignalsArePassedToTheServer).
void signal_below(pid_t pid, int sig, int depth) {
  std::ifstream children("/proc/" + std::to_string(pid) + "/task/" + std::to_string(pid) +
                         "/children");
  for (long child; children >> child;) {
    std::ifstream comm("/proc/" + std::to_string(child) + "/comm");
    std::string name;
    std::getline(comm, name);
    if (name == "paddock-init" && depth < 4) {
      signal_below(static_cast<pid_t>(child), sig, depth + 1);
    } else {
      kill(static_cast<pid_t>(child), sig);
    }
  }
}

class Relay final : public runtime::RunObserver {
 public:
  Relay(WrappedStream::Options options, const AuditRecorder& record, int client_out, int log_fd)
      : server_name_(options.server_name),
        stream_(
            std::move(options), [this](const WrappedCall& call) { audit(call); },
            [] { return std::chrono::steady_clock::now(); }),
        record_(record),
        client_out_(client_out),
        log_fd_(log_fd) {}

  void on_started(int host_pid) override { init_pid_ = host_pid; }

  void on_output(runtime::StreamId stream, std::string_view chunk) override {
    if (stream == runtime::StreamId::kStderr) {
      write_whole(log_fd_, chunk);
      return;
    }
    StreamOutput out;
    {
      std::lock_guard lock(stream_mutex_);
      out = stream_.from_server(chunk);
    }
    deliver(out);
  }

  [[nodiscard]] const runtime::CancellationToken* cancellation() const override { return &token_; }

  // The client's bytes: what passes goes to the server's stdin, answers go back.
  bool from_client(std::string_view bytes, int server_in, int client_in) {
    StreamOutput out;
    {
      std::lock_guard lock(stream_mutex_);
      out = stream_.from_client(bytes);
    }
    deliver(out);
    return out.to_server.empty() || write_to_server(server_in, out.to_server, client_in);
  }

  // The client's stdout ended: a last line without its newline still passes.
  void client_ended(int server_in, int client_in) {
    StreamOutput out;
    {
      std::lock_guard lock(stream_mutex_);
      out = stream_.client_ended();
    }
    deliver(out);
    if (!out.to_server.empty()) write_to_server(server_in, out.to_server, client_in);
  }

  // The server's stdout is closed: calls still open end unanswered.
  void server_ended() {
    StreamOutput out;
    {
      std::lock_guard lock(stream_mutex_);
      out = stream_.server_ended();
    }
    deliver(out);
  }

  // The server's processes: init's children in its pid namespace, as the host numbers them.
  void pass_on(int sig) {
    int init = init_pid_.load();
    if (init <= 0) {
      token_.cancel();
      return;
    }
    signal_below(init, sig, 0);
  }

  void end() const { token_.cancel(); }

 private:
  void deliver(const StreamOutput& out) {
    for (const auto& note : out.notes) write_whole(log_fd_, "paddock wrap: " + note + "\n");
    if (out.to_client.empty()) return;
    std::lock_guard lock(client_mutex_);
    // A client that is gone takes its server with it.
    if (!client_gone_ && !write_whole(client_out_, out.to_client)) {
      client_gone_ = true;
      token_.cancel();
    }
  }

  void audit(const WrappedCall& call) {
    if (record_) record_(wrapped_call_record(server_name_, call));
  }

  const std::string server_name_;
  std::mutex stream_mutex_;
  WrappedStream stream_;
  const AuditRecorder& record_;
  std::mutex client_mutex_;
  bool client_gone_ = false;
  const int client_out_;
  const int log_fd_;
  std::atomic<int> init_pid_{0};
  runtime::CancellationToken token_;
};

// The client reader: until the client closes its end, or `wake` says the server is gone. Then
// the server's stdin is closed, and a server that does not exit within the grace is ended.
void read_client(Relay& relay, int client_in, core::UniqueFd server_in, int wake) {
  std::string buffer(kReadChunk, '\0');
  bool server_open = true;
  fcntl(server_in.get(), F_SETFL, fcntl(server_in.get(), F_GETFL) | O_NONBLOCK);
  while (wait_readable(client_in, wake)) {
    ssize_t got = read(client_in, buffer.data(), buffer.size());
    if (got < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (got <= 0) {
      if (server_open) relay.client_ended(server_in.get(), client_in);
      break;
    }
    if (server_open && !relay.from_client({buffer.data(), static_cast<std::size_t>(got)},
                                          server_in.get(), client_in)) {
      server_open = false;  // the server closed its stdin; its answers may still come
    }
  }
  server_in.reset();
  pollfd gone{wake, POLLIN, 0};
  while (poll(&gone, 1, kExitGraceMs) < 0 && errno == EINTR) {
  }
  if (gone.revents == 0) relay.end();
}

void relay_signals(Relay& relay, int signals, int wake) {
  while (wait_readable(signals, wake)) {
    unsigned char sig = 0;
    if (read(signals, &sig, 1) == 1) relay.pass_on(sig);
  }
}

}  // namespace

core::Result<runtime::RunResult> serve_wrapped(runtime::Backend& backend,
                                               const runtime::SandboxShape& shape,
                                               runtime::RunPlan plan,
                                               WrappedStream::Options stream_options,
                                               const AuditRecorder& record, int client_in,
                                               int client_out, int log_fd) {
  auto server_stdin = Pipe::make();
  auto wake = Pipe::make();
  auto signals = Pipe::make();
  if (!server_stdin) return server_stdin.error();
  if (!wake) return wake.error();
  if (!signals) return signals.error();
  // The handler must never block: a burst of signals past the pipe's room is dropped, and the
  // ones already queued say the same.
  fcntl(signals->write_end.get(), F_SETFL, O_NONBLOCK);
  plan.stdin_fd = server_stdin->read_end.get();

  Relay relay(std::move(stream_options), record, client_out, log_fd);
  g_signal_pipe = signals->write_end.get();
  struct sigaction action {};
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaction(sig, &action, nullptr);
  signal(SIGPIPE, SIG_IGN);

  std::thread reader(read_client, std::ref(relay), client_in, std::move(server_stdin->write_end),
                     wake->read_end.get());
  std::thread signaller(relay_signals, std::ref(relay), signals->read_end.get(),
                        wake->read_end.get());
  auto result = backend.run(shape, plan, relay);
  // The server is gone: a write to its stdin now fails at once, and both threads wake.
  server_stdin->read_end.reset();
  wake->write_end.reset();
  reader.join();
  signaller.join();
  g_signal_pipe = -1;
  relay.server_ended();
  return result;
}

}  // namespace paddock::app
