// Host folders bound into a sandbox (paddock run --ro-bind / --bind, and the MCP server's share
// mounts): nosuid and nodev always, read-only unless asked, and a read-write bind writes as the
// folder's owner on the host and never as root.

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "runtime/native/native_backend.h"
#include "support/harness.h"

namespace paddock::testing {
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

Result<RunResult> run_native(const SandboxSpec& spec) {
  NativeBackend backend;
  RecordingObserver observer;
  return backend.run(spec, observer);
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
  SandboxSpec spec = shell_spec(mount_options_line("/mnt/in") +
                                "; echo x >> /mnt/in/kept.txt || echo APPEND-REFUSED"
                                "; touch /mnt/in/new || echo CREATE-REFUSED");
  spec.binds = {{folder.path(), "/mnt/in", false}};
  RunResult result = run_ok(spec);
  EXPECT_EQ(result.stdout_data.data.substr(0, result.stdout_data.data.find('\n')),
            "ro,nosuid,nodev")
      << result.stdout_data.data;
  EXPECT_NE(result.stdout_data.data.find("APPEND-REFUSED"), std::string::npos);
  EXPECT_NE(result.stdout_data.data.find("CREATE-REFUSED"), std::string::npos);
  EXPECT_EQ(read_file(file), "kept\n");
  EXPECT_FALSE(std::filesystem::exists(folder.path() + "/new"));
}

TEST(Bind, ReadWriteWritesAsTheFoldersOwnerNeverRoot) {
  Folder folder;
  // Root hands the folder to an unprivileged owner (nobody); a user binds its own.
  uid_t owner = geteuid() == 0 ? 65534 : geteuid();
  gid_t group = geteuid() == 0 ? 65534 : getegid();
  ASSERT_EQ(chown(folder.path().c_str(), owner, group), 0);
  SandboxSpec spec =
      shell_spec(mount_options_line("/mnt/out") + "; echo made > /mnt/out/made.txt && id -u");
  spec.binds = {{folder.path(), "/mnt/out", true}};
  RunResult result = run_ok(spec);
  EXPECT_EQ(result.stdout_data.data, "rw,nosuid,nodev\n1000\n") << result.stderr_data.data;
  struct stat info {};
  ASSERT_EQ(stat((folder.path() + "/made.txt").c_str(), &info), 0);
  EXPECT_EQ(info.st_uid, owner);
  EXPECT_EQ(read_file(folder.path() + "/made.txt"), "made\n");
}

// The folder outlives the sandbox, and its nosuid mount is the sandbox's alone: a set-ID bit
// made there would give any local user who can reach the folder its owner's rights.
TEST(Bind, ReadWriteCannotLeaveASetIdProgramOnTheHost) {
  Folder folder;
  if (geteuid() == 0) {
    ASSERT_EQ(chown(folder.path().c_str(), 65534, 65534), 0);
  }
  SandboxSpec spec = spec_for(
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
  RunResult result = run_ok(spec);
  EXPECT_EQ(result.stdout_data.data,
            "chmod refused 1\nchmod-g refused 1\nfchmod refused 1\ncreate refused 1\n"
            "mknod refused 1\nplain done\n")
      << result.stderr_data.data;
  struct stat info {};
  ASSERT_EQ(stat((folder.path() + "/prog").c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 07777, 0755u);
  EXPECT_FALSE(std::filesystem::exists(folder.path() + "/made"));
  // Without a read-write bind, nothing changes: a set-ID bit in /work dies with the sandbox.
  RunResult plain = run_ok(shell_spec("touch x && chmod 4755 x && stat -c %a x"));
  EXPECT_EQ(plain.stdout_data.data, "4755\n") << plain.stderr_data.data;
}

TEST(Bind, ReadWriteOfARootOwnedOrForeignFolderIsRefused) {
  Folder folder;
  if (geteuid() != 0) {
    // Not ours: /tmp itself belongs to root.
    SandboxSpec spec = shell_spec("true");
    spec.binds = {{"/tmp", "/mnt/out", true}};
    auto result = run_native(spec);
    ASSERT_FALSE(result);
    EXPECT_NE(result.error().message.find("is owned by uid 0, not by you"), std::string::npos)
        << result.error().message;
    return;
  }
  SandboxSpec spec = shell_spec("true");
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
}  // namespace paddock::testing
