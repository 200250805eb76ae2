// A terminal on paddock's stdin is an output channel and a control surface (escape sequences,
// terminal modes, TIOCSTI). `paddock run --stdin -` must relay what the user types through a
// pipe, so the program never holds the terminal itself.

#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "support/harness.h"

extern char** environ;

namespace paddock::testing::terminal_test {
namespace {

// What the program finds on fd 0, one line each.
constexpr const char* kProbe =
    "import os, sys, termios\n"
    "print('tty' if os.isatty(0) else 'not a tty', flush=True)\n"
    "try:\n"
    "    os.write(0, b'\\x1b]0;pwned\\x07INJECTED-BY-SANDBOX\\n'); print('wrote to the terminal', "
    "flush=True)\n"
    "except OSError:\n"
    "    print('write refused', flush=True)\n"
    "try:\n"
    "    termios.tcgetattr(0); print('terminal modes reachable', flush=True)\n"
    "except termios.error:\n"
    "    print('no terminal modes', flush=True)\n"
    "print('read:', sys.stdin.read().strip())\n";

struct TerminalRun {
  std::string out;       // paddock's stdout (a pipe)
  std::string terminal;  // what appeared on the terminal
  int status = -1;
};

// Runs `paddock run --stdin - -- python3 -c kProbe` with a pseudo-terminal as its stdin, types a
// line and end-of-file, and collects both sides.
TerminalRun run_on_terminal() {
  TerminalRun run;
  int master = -1, slave = -1;
  if (openpty(&master, &slave, nullptr, nullptr, nullptr) != 0) {
    ADD_FAILURE() << "openpty failed";
    return run;
  }
  int out[2];
  EXPECT_EQ(pipe2(out, O_CLOEXEC), 0);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, slave, 0);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  std::string binary = paddock_binary();
  std::vector<std::string> args = {binary, "run", "--stdin", "-",  "--timeout",
                                   "20",   "--",  "python3", "-c", kProbe};
  std::vector<char*> argv;
  for (auto& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  pid_t pid = -1;
  EXPECT_EQ(posix_spawn(&pid, binary.c_str(), &actions, nullptr, argv.data(), environ), 0);
  posix_spawn_file_actions_destroy(&actions);
  close(slave);
  close(out[1]);
  bool typed = false;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  pollfd fds[2] = {{out[0], POLLIN, 0}, {master, POLLIN, 0}};
  while (fds[0].fd >= 0 && std::chrono::steady_clock::now() < deadline) {
    if (poll(fds, 2, 200) < 0) break;
    char buffer[4096];
    if (fds[0].revents != 0) {
      ssize_t got = read(out[0], buffer, sizeof buffer);
      if (got <= 0) {
        fds[0].fd = -1;
      } else {
        run.out.append(buffer, static_cast<std::size_t>(got));
      }
    }
    if (fds[1].revents & POLLIN) {
      ssize_t got = read(master, buffer, sizeof buffer);
      if (got > 0) run.terminal.append(buffer, static_cast<std::size_t>(got));
    }
    // Type once the program has looked at its stdin: a line, then end-of-file (^D).
    if (!typed && run.out.find("\n") != std::string::npos &&
        (run.out.find("terminal modes") != std::string::npos)) {
      EXPECT_EQ(write(master, "typed by the user\n\x04", 19), 19);
      typed = true;
    }
  }
  close(out[0]);
  waitpid(pid, &run.status, 0);
  close(master);
  return run;
}

TEST(Terminal, AProgramNeverHoldsTheTerminalOnStdin) {
  TerminalRun run = run_on_terminal();
  EXPECT_NE(run.out.find("not a tty\n"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("write refused\n"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("no terminal modes\n"), std::string::npos) << run.out;
  EXPECT_EQ(run.terminal.find("INJECTED-BY-SANDBOX"), std::string::npos) << run.terminal;
  // What the user typed still arrives, and end-of-file ends it.
  EXPECT_NE(run.out.find("read: typed by the user\n"), std::string::npos) << run.out;
  EXPECT_TRUE(WIFEXITED(run.status) && WEXITSTATUS(run.status) == 0) << run.status;
}

}  // namespace
}  // namespace paddock::testing::terminal_test
