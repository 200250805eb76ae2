// ThreadFsIdentity: as root, the thread that takes another user's identity opens only what that
// user may, and no other thread is touched; with uid 0 it keeps root's ownership but none of
// root's overrides. As a user, nothing changes (the process has no other rights to give up), and
// the test checks just that.

#include "core/thread_fs_identity.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "core/unique_fd.h"

namespace paddock::thread_fs_identity_test {
namespace {

class ThreadFsIdentityTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = "/tmp/paddock-fs-identity-XXXXXX";
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    folder_ = pattern;
    chmod(folder_.c_str(), 0755);
    theirs_ = folder_ + "/theirs";
    std::ofstream(theirs_) << "x";
    // Root gives the file to a stranger; a user keeps it and takes its own rights away.
    if (geteuid() == 0) {
      ASSERT_EQ(chown(theirs_.c_str(), 65532, 65532), 0);
      chmod(theirs_.c_str(), 0600);
      for (uid_t home : {0u, 65534u}) {
        std::string path = folder_ + "/home-" + std::to_string(home);
        ASSERT_EQ(mkdir(path.c_str(), 0755), 0);
        ASSERT_EQ(chown(path.c_str(), home, home), 0);
      }
    } else {
      chmod(theirs_.c_str(), 0000);
    }
  }
  void TearDown() override { std::filesystem::remove_all(folder_); }

  bool opens() const {
    core::UniqueFd fd(open(theirs_.c_str(), O_RDONLY | O_CLOEXEC));
    return fd.valid();
  }

  std::string folder_;
  std::string theirs_;
};

TEST_F(ThreadFsIdentityTest, OnlyThisThreadLosesRootsFileRightsAndGetsThemBack) {
  bool root = geteuid() == 0;
  EXPECT_EQ(opens(), root);
  for (uid_t uid : {65534u, 0u}) {
    SCOPED_TRACE("as uid " + std::to_string(uid));
    {
      core::ThreadFsIdentity as_user(uid, uid);
      ASSERT_TRUE(as_user.status()) << as_user.status().error().message;
      EXPECT_FALSE(opens());
      // Made as the user, as the user's own, in the user's own folder; and nothing in root's
      // folder (for uid 0: in another user's), which only a privilege would allow.
      if (root) {
        std::string own = folder_ + "/home-" + std::to_string(uid);
        std::string other = folder_ + "/home-" + std::to_string(uid == 0 ? 65534 : 0);
        EXPECT_LT(open((other + "/made").c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600), 0);
        EXPECT_EQ(errno, EACCES);
        core::UniqueFd fd(
            open((own + "/made").c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600));
        ASSERT_TRUE(fd.valid()) << std::strerror(errno);
        struct stat info {};
        ASSERT_EQ(fstat(fd.get(), &info), 0);
        EXPECT_EQ(info.st_uid, uid);
        EXPECT_EQ(info.st_gid, uid);
      }
    }
    EXPECT_EQ(opens(), root);
  }
}

TEST_F(ThreadFsIdentityTest, AnotherThreadKeepsItsRightsMeanwhile) {
  bool root = geteuid() == 0;
  std::mutex mutex;
  std::condition_variable changed;
  int step = 0;
  bool opened_meanwhile = false;
  std::thread other([&] {
    std::unique_lock lock(mutex);
    changed.wait(lock, [&] { return step == 1; });
    opened_meanwhile = opens();
    step = 2;
    changed.notify_all();
  });
  {
    core::ThreadFsIdentity as_user(65534, 65534);
    ASSERT_TRUE(as_user.status());
    std::unique_lock lock(mutex);
    step = 1;
    changed.notify_all();
    changed.wait(lock, [&] { return step == 2; });
  }
  other.join();
  EXPECT_EQ(opened_meanwhile, root);
}

}  // namespace
}  // namespace paddock::thread_fs_identity_test
