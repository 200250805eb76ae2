// Host folders bound into a sandbox (paddock run --ro-bind / --bind, and the MCP server's share
// mounts): nosuid and nodev always, read-only unless asked, and a read-write bind writes as the
// folder's owner on the host and never as root.

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include <gtest/gtest.h>

#include "runtime/native/native_backend.h"
#include "support/harness.h"
#include "support/helper_process.h"

namespace paddock::testing::bind_test {
namespace {

// A folder the sandbox user can enter, removed afterwards.
class Folder {
 public:
  Folder() {
    char name[] = "/tmp/paddock-bind-XXXXXX";
    path_ = mkdtemp(name);
    chmod(path_.c_str(), 0755);
  }
  ~Folder() { std::filesystem::remove_all(path_); }
  Folder(const Folder&) = delete;
  Folder& operator=(const Folder&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

core::Result<runtime::RunResult> run_native(const TestSpec& spec) {
  native::NativeBackend backend;
  RecordingObserver observer;
  return backend.run(shape_of(spec), plan_of(spec), observer);
}

// The first mount options of `target` as the sandbox sees them (mountinfo's sixth field):
// ro or rw, then nosuid and nodev when set.
std::string mount_options_line(const std::string& target) {
  return "grep ' " + target + " ' /proc/self/mountinfo | cut -d' ' -f6 | cut -d, -f1-3";
}

TEST(Bind, ReadOnlyIsNosuidNodevAndRefusesWrites) {
  Folder folder;
  std::string file = folder.path() + "/kept.txt";
  { std::ofstream(file) << "kept\n"; }
  chmod(file.c_str(), 0666);  // even a file everyone may write: the mount refuses
  TestSpec spec = shell_spec(mount_options_line("/mnt/in") +
                             "; echo x >> /mnt/in/kept.txt || echo APPEND-REFUSED"
                             "; touch /mnt/in/new || echo CREATE-REFUSED");
  spec.binds = {{folder.path(), "/mnt/in", false}};
  runtime::RunResult result = run_ok(spec);
  EXPECT_EQ(result.stdout_data.data.substr(0, result.stdout_data.data.find('\n')),
            "ro,nosuid,nodev")
      << result.stdout_data.data;
  EXPECT_NE(result.stdout_data.data.find("APPEND-REFUSED"), std::string::npos);
  EXPECT_NE(result.stdout_data.data.find("CREATE-REFUSED"), std::string::npos);
  EXPECT_EQ(read_file(file), "kept\n");
  EXPECT_FALSE(std::filesystem::exists(folder.path() + "/new"));
}

// A host process with a unix socket and two FIFOs in `folder`, all open to every user (so that
// the sandbox's ids alone, in any mode, let it in): it answers each connection with a secret and
// logs what it got, and makes the second FIFO a second after it starts. Prints "ready" first.
constexpr const char* kHostEndpoints = R"(
import os, select, socket, sys, time
folder = sys.argv[1]
listener = socket.socket(socket.AF_UNIX)
listener.bind(folder + '/host.sock')
os.chmod(folder + '/host.sock', 0o666)
listener.listen(8)
def fifo(name):
    os.mkfifo(folder + '/' + name)
    os.chmod(folder + '/' + name, 0o666)
    return os.open(folder + '/' + name, os.O_RDONLY | os.O_NONBLOCK)
watched = {listener.fileno(): 'socket', fifo('host.fifo'): 'host.fifo'}
print('ready', flush=True)
started = time.monotonic()
while True:
    if 'late.fifo' not in watched.values() and time.monotonic() > started + 1:
        watched[fifo('late.fifo')] = 'late.fifo'
    for fd in select.select(list(watched), [], [], 0.1)[0]:
        if watched[fd] == 'socket':
            client, _ = listener.accept()
            print('CONNECTED', flush=True)
            client.sendall(b'HOST-SECRET')
            client.close()
        else:
            data = os.read(fd, 4096)
            if data:
                print('GOT', data.decode().strip(), flush=True)
)";

// What the sandbox tries: the socket, the FIFO that was there, and one made after it started.
constexpr const char* kReachForTheHost = R"(
import os, socket, time
s = socket.socket(socket.AF_UNIX)
try:
    s.connect('/mnt/in/host.sock')
    print('SOCKET-CONNECTED', s.recv(64).decode())
except OSError as e:
    print('SOCKET-REFUSED', e.errno)
for name in ('host.fifo', 'late.fifo'):
    path = '/mnt/in/' + name
    for _ in range(100):
        if os.path.exists(path):
            break
        time.sleep(0.1)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
        os.write(fd, b'FROM-SANDBOX-' + name.encode() + b'\n')
        os.close(fd)
        print('FIFO-WRITTEN', name)
    except OSError as e:
        print('FIFO-REFUSED', name, e.errno)
)";

// A read-only mount does not stop connect() or a FIFO's open for writing: bound plainly, the
// socket and the FIFOs of a host process in a shared folder were live channels to it (seen in
// every id mode with these permissions, and as the user's own uid without subordinate ids even
// for 0600 ones). Mounted as a read-only overlay, neither reaches the host process, including a
// FIFO made after the sandbox started.
TEST(Bind, ReadOnlyFolderSocketsAndFifosAreNoChannelToTheHost) {
  Folder folder;
  std::string log = folder.path() + ".log";
  Server host({"/usr/bin/python3", "-c", kHostEndpoints, folder.path()}, log);
  ASSERT_EQ(host.port(), "ready") << host.log();
  TestSpec spec = spec_for({"python3", "-c", kReachForTheHost});
  spec.binds = {{folder.path(), "/mnt/in", false}};
  runtime::RunResult result = run_ok(spec);
  std::string seen = result.stdout_data.data;
  EXPECT_NE(seen.find("SOCKET-REFUSED"), std::string::npos) << seen;
  EXPECT_NE(seen.find("FIFO-REFUSED host.fifo"), std::string::npos) << seen;
  EXPECT_NE(seen.find("FIFO-REFUSED late.fifo"), std::string::npos) << seen;
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(host.log(), "ready\n") << "the host process heard from the sandbox";
  host.stop();
  std::filesystem::remove(log);
}

// A socket, FIFO or device as the source of a bind would be the channel itself.
TEST(Bind, ASocketOrFifoIsNoBindSource) {
  Folder folder;
  std::string log = folder.path() + ".log";
  Server host({"/usr/bin/python3", "-c", kHostEndpoints, folder.path()}, log);
  ASSERT_EQ(host.port(), "ready") << host.log();
  for (const char* name : {"/host.sock", "/host.fifo"}) {
    TestSpec spec = shell_spec("echo ran");
    spec.binds = {{folder.path() + name, "/mnt/endpoint", false}};
    auto result = run_native(spec);
    ASSERT_FALSE(result.ok()) << name << ": " << result->stdout_data.data;
    EXPECT_NE(result.error().message.find("is a socket, FIFO or device"), std::string::npos)
        << result.error().message;
  }
  host.stop();
  std::filesystem::remove(log);
}

TEST(Bind, ReadWriteWritesAsTheFoldersOwnerNeverRoot) {
  Folder folder;
  // Root hands the folder to an unprivileged owner (nobody); a user binds its own.
  uid_t owner = geteuid() == 0 ? 65534 : geteuid();
  gid_t group = geteuid() == 0 ? 65534 : getegid();
  ASSERT_EQ(chown(folder.path().c_str(), owner, group), 0);
  TestSpec spec =
      shell_spec(mount_options_line("/mnt/out") + "; echo made > /mnt/out/made.txt && id -u");
  spec.binds = {{folder.path(), "/mnt/out", true}};
  runtime::RunResult result = run_ok(spec);
  EXPECT_EQ(result.stdout_data.data, "rw,nosuid,nodev\n1000\n") << result.stderr_data.data;
  struct stat info {};
  ASSERT_EQ(stat((folder.path() + "/made.txt").c_str(), &info), 0);
  EXPECT_EQ(info.st_uid, owner);
  EXPECT_EQ(read_file(folder.path() + "/made.txt"), "made\n");
}

// A uid that /etc/passwd lacks (a container's, a removed user's) owns the folder: the lean
// paddock, a static executable, once crashed looking it up through NSS (core/user_account.h).
// Root hands the folder to such a uid; a user binds its own, which the file does list.
TEST(Bind, ReadWriteOfAFolderOfAUidThePasswordFileLacks) {
  Folder folder;
  uid_t owner = geteuid() == 0 ? 1999999999 : geteuid();
  ASSERT_EQ(chown(folder.path().c_str(), owner, geteuid() == 0 ? 1999999999 : getegid()), 0);
  CliResult written = run_cli({"run", "--bind", folder.path() + ":/mnt/out", "--", "sh", "-c",
                               "echo landed > /mnt/out/made.txt"});
  EXPECT_EQ(written.exit_status, 0) << written.err;
  struct stat info {};
  ASSERT_EQ(stat((folder.path() + "/made.txt").c_str(), &info), 0);
  EXPECT_EQ(info.st_uid, owner);
  EXPECT_EQ(read_file(folder.path() + "/made.txt"), "landed\n");
}

// The folder outlives the sandbox, and its nosuid mount is the sandbox's alone: a set-ID bit
// made there would give any local user who can reach the folder its owner's rights.
TEST(Bind, ReadWriteCannotLeaveASetIdProgramOnTheHost) {
  Folder folder;
  if (geteuid() == 0) {
    ASSERT_EQ(chown(folder.path().c_str(), 65534, 65534), 0);
  }
  TestSpec spec = spec_for(
      {"python3", "-c",
       "import os\n"
       "p = '/mnt/out/prog'\n"
       "open(p, 'w').close()\n"
       "for what, call in (('chmod', lambda: os.chmod(p, 0o4755)),\n"
       "                   ('chmod-g', lambda: os.chmod(p, 0o2755)),\n"
       "                   ('fchmod', lambda: os.fchmod(os.open(p, os.O_RDONLY), 0o6755)),\n"
       "                   ('create', lambda: os.open('/mnt/out/made', os.O_CREAT | os.O_WRONLY, "
       "0o4755)),\n"
       "                   ('mknod', lambda: os.mknod('/mnt/out/node', 0o100000 | 0o4755)),\n"
       "                   ('plain', lambda: os.chmod(p, 0o755))):\n"
       "    try:\n"
       "        call(); print(what, 'done')\n"
       "    except OSError as e:\n"
       "        print(what, 'refused', e.errno)\n"});
  spec.binds = {{folder.path(), "/mnt/out", true}};
  runtime::RunResult result = run_ok(spec);
  EXPECT_EQ(result.stdout_data.data,
            "chmod refused 1\nchmod-g refused 1\nfchmod refused 1\ncreate refused 1\n"
            "mknod refused 1\nplain done\n")
      << result.stderr_data.data;
  struct stat info {};
  ASSERT_EQ(stat((folder.path() + "/prog").c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 07777, 0755u);
  EXPECT_FALSE(std::filesystem::exists(folder.path() + "/made"));
  // Without a read-write bind, nothing changes: a set-ID bit in /work dies with the sandbox.
  runtime::RunResult plain = run_ok(shell_spec("touch x && chmod 4755 x && stat -c %a x"));
  EXPECT_EQ(plain.stdout_data.data, "4755\n") << plain.stderr_data.data;
}

TEST(Bind, ReadWriteOfARootOwnedOrForeignFolderIsRefused) {
  Folder folder;
  if (geteuid() != 0) {
    // Not ours: /tmp itself belongs to root.
    TestSpec spec = shell_spec("true");
    spec.binds = {{"/tmp", "/mnt/out", true}};
    auto result = run_native(spec);
    ASSERT_FALSE(result);
    EXPECT_NE(result.error().message.find("is owned by uid 0, not by you"), std::string::npos)
        << result.error().message;
    return;
  }
  TestSpec spec = shell_spec("true");
  spec.binds = {{folder.path(), "/mnt/out", true}};
  auto result = run_native(spec);
  ASSERT_FALSE(result);
  EXPECT_NE(result.error().message.find("is owned by root, and sandboxes never run as host root"),
            std::string::npos)
      << result.error().message;
}

TEST(Bind, CliBindIsTheReadWriteTwinOfRoBind) {
  Folder folder;
  if (geteuid() == 0) {
    ASSERT_EQ(chown(folder.path().c_str(), 65534, 65534), 0);
  }
  CliResult written = run_cli({"run", "--bind", folder.path() + ":/mnt/out", "--", "sh", "-c",
                               "echo via-cli > /mnt/out/cli.txt"});
  EXPECT_EQ(written.exit_status, 0) << written.err;
  EXPECT_EQ(read_file(folder.path() + "/cli.txt"), "via-cli\n");
  CliResult refused = run_cli({"run", "--ro-bind", folder.path() + ":/mnt/out", "--", "sh", "-c",
                               "echo x > /mnt/out/other.txt"});
  EXPECT_NE(refused.exit_status, 0);
  EXPECT_FALSE(std::filesystem::exists(folder.path() + "/other.txt"));
}

}  // namespace
}  // namespace paddock::testing::bind_test
