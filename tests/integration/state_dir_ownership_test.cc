// A state directory that was once open to other users (issue 49, item 6): while it was 0777,
// another user could make sessions/ and names/ in it, plant a session there, and keep a
// descriptor that still works after the server makes the directory 0700. The server must refuse
// what another user owns under it, in one line, and make its own folders private before it uses
// them. Played with real users: root's tests take nobody (65534), a user's one of its subordinate
// ids (newuidmap); a user with neither sees a folder of root's as another user's in a user
// namespace of its own.

#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <string>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/harness.h"
#include "support/mcp_process.h"
#include "support/temp_folder.h"

namespace paddock::testing::state_dir_ownership_test {
namespace {

using json = nlohmann::json;
namespace fs = std::filesystem;

// The first subordinate uid and gid of this user, from /etc/subuid and /etc/subgid.
std::optional<std::pair<uid_t, gid_t>> subordinate_ids() {
  auto first = [](const char* file, unsigned id, const std::string& name) -> std::optional<long> {
    std::ifstream in(file);
    std::string line;
    while (std::getline(in, line)) {
      auto colon = line.find(':');
      auto second = line.find(':', colon + 1);
      if (colon == std::string::npos || second == std::string::npos) continue;
      std::string who = line.substr(0, colon);
      if (who == name || who == std::to_string(id)) {
        return std::stol(line.substr(colon + 1, second - colon - 1));
      }
    }
    return std::nullopt;
  };
  const char* user = getenv("USER");
  std::string name = user != nullptr ? user : "";
  if (name.empty()) {
    std::ifstream passwd("/etc/passwd");
    std::string line;
    while (std::getline(passwd, line)) {
      auto fields = line.find(':');
      auto uid_at = line.find(':', fields + 1);
      auto uid_end = line.find(':', uid_at + 1);
      if (uid_end == std::string::npos) continue;
      if (line.substr(uid_at + 1, uid_end - uid_at - 1) == std::to_string(geteuid())) {
        name = line.substr(0, fields);
        break;
      }
    }
  }
  auto uid = first("/etc/subuid", geteuid(), name);
  auto gid = first("/etc/subgid", getegid(), name);
  if (!uid || !gid || access("/usr/bin/newuidmap", X_OK) != 0) return std::nullopt;
  return std::pair{static_cast<uid_t>(*uid), static_cast<gid_t>(*gid)};
}

// Another user, acting in a child process of its own until told to finish: root's tests take
// nobody, a user's its first subordinate id. None for a user without subordinate ids.
class Stranger {
 public:
  // Whether there is one to play, and its uid as the host sees it.
  static std::optional<uid_t> host_uid() {
    if (geteuid() == 0) return 65534;
    if (auto ids = subordinate_ids()) return ids->first;
    return std::nullopt;
  }

  // Starts `first` as the stranger; `then` runs when go() is called, with what go() gives. Each
  // returns a line for the test ("" is fine).
  Stranger(std::function<std::string()> first,
           std::function<std::string(const std::string&)> then) {
    int to_child[2], from_child[2], mapped[2];
    EXPECT_EQ(pipe2(to_child, O_CLOEXEC), 0);
    EXPECT_EQ(pipe2(from_child, O_CLOEXEC), 0);
    EXPECT_EQ(pipe2(mapped, O_CLOEXEC), 0);
    bool root = geteuid() == 0;
    auto ids = root ? std::nullopt : subordinate_ids();
    pid_ = fork();
    if (pid_ == 0) {
      close(to_child[1]);
      close(from_child[0]);
      close(mapped[1]);
      if (root) {
        if (setgroups(0, nullptr) != 0 || setresgid(65534, 65534, 65534) != 0 ||
            setresuid(65534, 65534, 65534) != 0) {
          _exit(90);
        }
      } else {
        // Mapped by the parent with newuidmap: uid 0 here is the first subordinate id outside.
        if (unshare(CLONE_NEWUSER) != 0) _exit(91);
        char ready = 0;
        if (write(from_child[1], &ready, 1) != 1) _exit(92);
        if (read(mapped[0], &ready, 1) != 1 || ready != 'm') _exit(93);
        if (setresgid(0, 0, 0) != 0 || setresuid(0, 0, 0) != 0) _exit(94);
      }
      umask(0);
      say(from_child[1], first());
      std::string given = hear(to_child[0]);
      say(from_child[1], then(given));
      _exit(0);
    }
    close(to_child[0]);
    close(from_child[1]);
    close(mapped[0]);
    to_child_ = to_child[1];
    from_child_ = from_child[0];
    if (!root) {
      char ready = 0;
      EXPECT_EQ(read(from_child_, &ready, 1), 1);
      std::string pid = std::to_string(pid_);
      std::string uid = std::to_string(ids->first), gid = std::to_string(ids->second);
      EXPECT_EQ(std::system(("/usr/bin/newuidmap " + pid + " 0 " + uid + " 1").c_str()), 0);
      EXPECT_EQ(std::system(("/usr/bin/newgidmap " + pid + " 0 " + gid + " 1").c_str()), 0);
      EXPECT_EQ(write(mapped[1], "m", 1), 1);
    }
    close(mapped[1]);
    first_line_ = hear(from_child_);
  }
  ~Stranger() {
    close(to_child_);
    close(from_child_);
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }
  Stranger(const Stranger&) = delete;
  Stranger& operator=(const Stranger&) = delete;

  [[nodiscard]] const std::string& first_line() const { return first_line_; }
  std::string go(const std::string& given) {
    say(to_child_, given);
    return hear(from_child_);
  }

 private:
  static void say(int fd, const std::string& text) {
    std::string line = text + "\n";
    (void)!write(fd, line.data(), line.size());
  }
  static std::string hear(int fd) {
    std::string line;
    char c;
    while (read(fd, &c, 1) == 1 && c != '\n') line += c;
    return line;
  }

  pid_t pid_ = -1;
  int to_child_ = -1;
  int from_child_ = -1;
  std::string first_line_;
};

// `paddock mcp --state-dir DIR` with nothing on its input: how it ended and what it said. A
// server that accepts the directory reads the end of its input and exits 0. `in_namespace`, when
// given, runs in the child first (as the server's user, before exec).
struct Started {
  int status = -1;
  std::string said;
};
Started start_server(const std::string& state_dir, const std::function<bool()>& in_namespace = {}) {
  int err[2];
  EXPECT_EQ(pipe2(err, O_CLOEXEC), 0);
  pid_t pid = fork();
  if (pid == 0) {
    if (in_namespace && !in_namespace()) _exit(120);
    int null = open("/dev/null", O_RDONLY);
    dup2(null, STDIN_FILENO);
    dup2(null, STDOUT_FILENO);
    dup2(err[1], STDERR_FILENO);
    std::string binary = paddock_binary();
    execl(binary.c_str(), binary.c_str(), "mcp", "--log-level", "error", "--warm", "0",
          "--state-dir", state_dir.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  close(err[1]);
  Started started;
  char chunk[4096];
  ssize_t got;
  while ((got = read(err[0], chunk, sizeof chunk)) > 0) started.said.append(chunk, got);
  close(err[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  started.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return started;
}

std::string make_folder(const std::string& path) {
  if (mkdir(path.c_str(), 0777) != 0 || chmod(path.c_str(), 0777) != 0) {
    return "mkdir " + path + ": " + std::strerror(errno);
  }
  return "";
}

// A session as the server writes one, planted by another user (open to all, so that the
// server's user can take its lock and write in it), under the name "mine".
std::string plant_session(const std::string& dir) {
  std::string session = dir + "/sessions/s-0123456789abcdef0123456789abcdef";
  for (const std::string& folder : {session, session + "/gen-1", session + "/gen-1/files"}) {
    if (auto made = make_folder(folder); !made.empty()) return made;
  }
  std::ofstream(session + "/meta.json") << json{
      {"id", "s-0123456789abcdef0123456789abcdef"},
      {"name", "mine"},
      {"language", "python"},
      {"created_at", "2026-11-28T10:00:00Z"},
      {"last_used", static_cast<std::int64_t>(time(nullptr))},
      {"live", false},
      {"bytes", 10},
      {"files", 1}}.dump();
  std::ofstream(session + "/gen-1/files/note.txt") << "planted by another user";
  if (symlink("gen-1", (session + "/current").c_str()) != 0 ||
      symlink("s-0123456789abcdef0123456789abcdef", (dir + "/names/mine").c_str()) != 0) {
    return std::string("symlink: ") + std::strerror(errno);
  }
  return "";
}

void expect_refused_in_a_user_namespace(const std::string& dir);

// The attack as the review played it: the stranger makes sessions/ and names/ in the open
// directory, plants a session named "mine" and keeps a descriptor of sessions/. The server must
// refuse to start, naming sessions/ and its owner; before the fix it started, opened the planted
// session for "mine", and the stranger renamed the server's own session away through the
// descriptor it kept.
TEST(StateDirOwnership, FoldersAnotherUserMadeInAnOpenStateDirectoryAreRefusedInOneLine) {
  TempFolder state("state-owner");
  auto stranger_uid = Stranger::host_uid();
  if (!stranger_uid) {
    // No other user to play (no subordinate ids): another user's folder as a user namespace
    // shows it, the server's side of the same attack.
    expect_refused_in_a_user_namespace(state / "state");
    return;
  }
  std::string dir = state / "state";
  ASSERT_EQ(make_folder(dir), "");
  int sessions_fd = -1;
  Stranger stranger(
      [&]() -> std::string {
        for (const auto& folder : {dir + "/sessions", dir + "/names"}) {
          if (auto made = make_folder(folder); !made.empty()) return made;
        }
        if (auto planted = plant_session(dir); !planted.empty()) return planted;
        sessions_fd = open((dir + "/sessions").c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        return sessions_fd >= 0 ? "ready" : std::string("open: ") + std::strerror(errno);
      },
      [&](const std::string& id) -> std::string {
        if (renameat(sessions_fd, id.c_str(), sessions_fd, (id + ".stolen").c_str()) != 0) {
          return std::string("refused: ") + std::strerror(errno);
        }
        return "renamed";
      });
  ASSERT_EQ(stranger.first_line(), "ready");
  struct stat made {};
  ASSERT_EQ(stat((dir + "/sessions").c_str(), &made), 0);
  ASSERT_EQ(made.st_uid, *stranger_uid);

  Started started = start_server(dir);
  std::string uid = std::to_string(*stranger_uid);
  if (started.status == 2) {
    // One line, naming what and whose, and what to do.
    ASSERT_FALSE(started.said.empty());
    std::string line = started.said.substr(0, started.said.size() - 1);
    EXPECT_EQ(line.find('\n'), std::string::npos) << started.said;
    EXPECT_NE(line.find("holds sessions/, which belongs to uid " + uid), std::string::npos) << line;
    EXPECT_NE(line.find("give --state-dir a directory of your own"), std::string::npos) << line;
    // The directory itself is private all the same: the stranger cannot reach in by its path.
    struct stat now {};
    ASSERT_EQ(stat(dir.c_str(), &now), 0);
    EXPECT_EQ(now.st_mode & 0777, 0700u);
    return;
  }
  ADD_FAILURE() << "the server started on another user's sessions/ (exit " << started.status
                << "): " << started.said;
  // What the stranger could do with it then.
  McpProcess server({"--state-dir", dir, "--warm", "0"});
  server.call(1, "execute_code",
              {{"session_id", "mine"}, {"code", "print(open('note.txt').read())"}});
  json planted = server.wait_for(1, std::chrono::seconds(120));
  EXPECT_EQ(planted.dump().find("planted by another user"), std::string::npos)
      << "the server opened the session another user planted: " << planted.dump();
  json own;
  std::string id = server.open_session(2, {{"name", "own"}, {"live", false}}, &own);
  ASSERT_FALSE(id.empty()) << own.dump();
  server.call(3, "close_session", {{"session_id", id}, {"keep", true}});
  server.wait_for(3);
  EXPECT_NE(stranger.go(id), "renamed") << "another user renamed the server's session " << id
                                        << " away, though the state directory is 0700";
}

// The server's own folders that were left open (0777) are made private before it uses them, and
// it works as before; the sessions kept in them stay.
TEST(StateDirOwnership, ItsOwnFoldersLeftOpenAreMadePrivateFirst) {
  TempFolder state("state-open");
  std::string dir = state / "state";
  std::string id;
  {
    McpProcess server({"--state-dir", dir, "--warm", "0"});
    json opened;
    id = server.open_session(1, {{"name", "kept"}, {"live", false}}, &opened);
    ASSERT_FALSE(id.empty()) << opened.dump();
    server.call(2, "close_session", {{"session_id", id}, {"keep", true}});
    server.wait_for(2);
  }
  for (const auto& folder : {dir, dir + "/sessions", dir + "/names", dir + "/sessions/" + id}) {
    ASSERT_EQ(chmod(folder.c_str(), 0777), 0) << folder;
  }
  McpProcess server({"--state-dir", dir, "--warm", "0"});
  server.call(1, "execute_code", {{"session_id", "kept"}, {"code", "print('back')"}});
  json back = server.wait_for(1, std::chrono::seconds(120));
  EXPECT_FALSE(McpProcess::is_tool_error(back)) << back.dump();
  for (const auto& folder : {dir, dir + "/sessions", dir + "/names", dir + "/sessions/" + id}) {
    struct stat info {};
    ASSERT_EQ(stat(folder.c_str(), &info), 0) << folder;
    EXPECT_EQ(info.st_mode & 0777, 0700u) << folder;
  }
}

// Without another user to play, a user namespace of this user's own (its uid as 0, no other id
// mapped) shows a folder of another user's as owned by the overflow id (65534): mounted over
// sessions/, it is another user's folder to the server started in there, which must refuse it
// just the same. The folder is one of root's, or for root one it gives to nobody.
void expect_refused_in_a_user_namespace(const std::string& dir) {
  ASSERT_EQ(mkdir(dir.c_str(), 0700), 0);
  ASSERT_EQ(mkdir((dir + "/sessions").c_str(), 0700), 0);
  // A folder of root's with no mount below it: a user namespace may not bind one that has
  // (the bind would reveal what the mounts cover).
  std::string foreign;
  for (const char* candidate : {"/usr/local/src", "/usr/local/games", "/usr/src", "/opt"}) {
    struct stat info {};
    if (foreign.empty() && stat(candidate, &info) == 0 && S_ISDIR(info.st_mode) &&
        info.st_uid == 0) {
      foreign = candidate;
    }
  }
  if (geteuid() != 0) {
    ASSERT_FALSE(foreign.empty()) << "no folder of root's to bind here";
  } else {
    foreign = dir + ".nobody";
    ASSERT_EQ(mkdir(foreign.c_str(), 0777), 0);
    ASSERT_EQ(chmod(foreign.c_str(), 0777), 0);
    ASSERT_EQ(chown(foreign.c_str(), 65534, 65534), 0);
  }
  std::string uid = std::to_string(geteuid()), gid = std::to_string(getegid());
  Started started = start_server(dir, [&]() -> bool {
    if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0) return false;
    auto write_file = [](const char* path, const std::string& text) {
      int fd = open(path, O_WRONLY | O_CLOEXEC);
      bool ok = fd >= 0 && write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
      if (fd >= 0) close(fd);
      return ok;
    };
    if (!write_file("/proc/self/setgroups", "deny") ||
        !write_file("/proc/self/uid_map", "0 " + uid + " 1") ||
        !write_file("/proc/self/gid_map", "0 " + gid + " 1")) {
      return false;
    }
    if (mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) return false;
    return mount(foreign.c_str(), (dir + "/sessions").c_str(), nullptr, MS_BIND | MS_REC,
                 nullptr) == 0;
  });
  ASSERT_NE(started.status, 120) << "the user namespace could not be set up";
  EXPECT_EQ(started.status, 2) << started.said;
  EXPECT_NE(started.said.find("holds sessions/, which belongs to uid 65534"), std::string::npos)
      << started.said;
}

TEST(StateDirOwnership, AFolderOfAnotherUsersSeenFromAUserNamespaceIsRefusedToo) {
  TempFolder state("state-userns");
  expect_refused_in_a_user_namespace(state / "state");
}

}  // namespace
}  // namespace paddock::testing::state_dir_ownership_test
