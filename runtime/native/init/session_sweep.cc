#include "runtime/native/init/session_sweep.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cstring>

namespace paddock::init {
namespace {

struct ProcessState {
  pid_t parent = 0;
  char state = '?';  // as /proc/PID/stat says: R, S, T, Z...
};

// /proc/PID/stat's state and parent; false when the process is gone. The name between the
// parentheses is chosen by the program and may hold ") ", so the fields start after the last ')'.
bool read_state(pid_t pid, ProcessState& out) {
  char path[32] = "/proc/";
  char digits[16];
  int length = 0;
  for (pid_t rest = pid; rest > 0 && length < 15; rest /= 10)
    digits[length++] = char('0' + rest % 10);
  char* at = path + 6;
  while (length > 0) *at++ = digits[--length];
  std::memcpy(at, "/stat", 6);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char text[512];
  ssize_t got = read(fd, text, sizeof text - 1);
  close(fd);
  if (got <= 0) return false;
  text[got] = '\0';
  char* close_paren = std::strrchr(text, ')');
  if (close_paren == nullptr || close_paren[1] != ' ' || close_paren[2] == '\0') return false;
  out.state = close_paren[2];
  pid_t parent = 0;
  for (const char* digit = close_paren + 4; *digit >= '0' && *digit <= '9'; ++digit) {
    parent = parent * 10 + (*digit - '0');
  }
  out.parent = parent;
  return true;
}

pid_t parse_pid(const char* name) {
  pid_t pid = 0;
  for (; *name != '\0'; ++name) {
    if (*name < '0' || *name > '9') return 0;
    pid = pid * 10 + (*name - '0');
  }
  return pid;
}

bool spared(pid_t pid, const ProcessState& state, pid_t resident, pid_t self) {
  return pid == self || pid == 1 || pid == resident || state.parent == resident;
}

// Calls `visit(pid, state)` for every process of the sandbox's /proc.
template <typename Visit>
void for_each_process(Visit visit) {
  int proc = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (proc < 0) return;
  alignas(8) char buffer[4096];
  for (;;) {
    long got = syscall(SYS_getdents64, proc, buffer, sizeof buffer);
    if (got <= 0) break;
    for (long at = 0; at < got;) {
      struct Entry {
        ino64_t inode;
        off64_t offset;
        unsigned short length;
        unsigned char type;
        char name[1];
      };
      const auto* entry = reinterpret_cast<const Entry*>(buffer + at);
      at += entry->length;
      pid_t pid = parse_pid(entry->name);
      ProcessState state;
      if (pid > 0 && read_state(pid, state)) visit(pid, state);
    }
  }
  close(proc);
}

void pause_briefly() {
  timespec wait{0, 1'000'000};  // 1 ms: a killed process needs a moment to become a zombie
  nanosleep(&wait, nullptr);
}

}  // namespace

int sweep_all_but_resident(pid_t resident, pid_t command) {
  if (resident <= 0) {
    // kill(-1) reaches every process of the PID namespace but init, the caller.
    kill(-1, SIGKILL);
    return 0;
  }
  pid_t self = getpid();
  int killed = 0;
  // What a dying process forks meanwhile shows up on the next pass; SIGKILL ends the forking,
  // and the pids limit bounds how many there can be.
  for (int pass = 0; pass < 10000; ++pass) {
    int alive = 0;
    for_each_process([&](pid_t pid, const ProcessState& state) {
      if (state.state == 'Z' || state.state == 'X' || spared(pid, state, resident, self)) return;
      kill(pid, SIGKILL);
      ++alive;
    });
    if (alive == 0) break;
    killed += alive;
    pause_briefly();
  }
  // What was killed is init's now (orphans are reparented to it): reaped here, so that none is
  // left even as a zombie when the sweep is answered and the next cell looks at /proc. A zombie
  // whose parent is reaped moves to init in turn, hence the passes. The resident and the command
  // are never reaped here: init's own loop reports their ends (a command killed at its timeout
  // reaped here would never be reported, and paddock would wait for it forever).
  for (int pass = 0; pass < 100; ++pass) {
    int reaped = 0;
    for_each_process([&](pid_t pid, const ProcessState& state) {
      if (state.state == 'Z' && state.parent == self && pid != resident && pid != command &&
          waitpid(pid, nullptr, WNOHANG) == pid) {
        ++reaped;
      }
    });
    if (reaped == 0) break;
  }
  return killed;
}

bool freeze_sandbox(pid_t resident) {
  sweep_all_but_resident(resident);
  return stop_sandbox();
}

bool stop_sandbox() {
  pid_t self = getpid();
  for (int wait = 0; wait < 1000; ++wait) {
    // kill(-1) from the sandbox's PID 1 reaches every other process of its PID namespace; again
    // on every round, for a process that was being created while the last one went out.
    kill(-1, SIGSTOP);
    bool running = false;
    for_each_process([&](pid_t pid, const ProcessState& state) {
      if (pid == self || pid == 1) return;
      if (state.state != 'T' && state.state != 't' && state.state != 'Z' && state.state != 'X') {
        running = true;
      }
    });
    if (!running) return true;
    pause_briefly();
  }
  return false;
}

void thaw_sandbox() {
  kill(-1, SIGCONT);
}

}  // namespace paddock::init
