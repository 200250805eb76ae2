// Images whose own symlinks point at the host: an /etc that is a symlink (to a host directory,
// to /proc/self/cwd) or a file, and a mount point below a symlink. paddock resolves every path
// of an image inside the image, so none of them reads, binds or creates anything on the host,
// whether the root is an overlay or the flattened copy (kernels without overlayfs in a user
// namespace). The images are built by tests/support/make_hostile_image.py.

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "support/harness.h"

namespace paddock::testing::hostile_image_test {
namespace {

namespace fs = std::filesystem;

class HostileImage : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/paddock-hostile-image-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
    store_ = dir_ + "/store";
    // The bait: a host directory behind a 0700 one, with a file and a directory in it.
    bait_ = dir_ + "/locked/bait";
    fs::create_directories(bait_ + "/dir");
    std::ofstream(bait_ + "/secret.conf") << "host-secret\n";
    std::ofstream(bait_ + "/dir/inner") << "host-dir-secret\n";
    chmod((dir_ + "/locked").c_str(), 0700);
    // paddock's own working directory, which /proc/self/cwd names.
    fs::create_directories(dir_ + "/cwd");
    // Writable by anyone, as a user's own directories are to the sandbox in single-id mode: so a
    // mount point that followed an image symlink here would really be made.
    chmod((dir_ + "/cwd").c_str(), 0777);
    chmod(dir_.c_str(), 0755);
    std::ofstream(dir_ + "/cwd/cwd-secret.conf") << "cwd-secret\n";
    std::string command = "python3 " + source_dir() + "/tests/support/make_hostile_image.py " +
                          dir_ + "/images " + bait_;
    ASSERT_EQ(std::system(command.c_str()), 0) << command;
    CliResult imported = run_cli({"import", "--root", store_, dir_ + "/images/layout"});
    ASSERT_EQ(imported.exit_status, 0) << imported.err;
    previous_cwd_ = fs::current_path();
    fs::current_path(dir_ + "/cwd");
  }
  void TearDown() override {
    fs::current_path(previous_cwd_);
    unsetenv("PADDOCK_IMAGE_ROOT");
    run_cli({"gc", "--root", store_});
    chmod((dir_ + "/locked").c_str(), 0755);
    fs::remove_all(dir_);
  }
  CliResult run_image(const std::string& mode, const std::string& image,
                      std::vector<std::string> extra = {}) {
    setenv("PADDOCK_IMAGE_ROOT", mode.c_str(), 1);
    std::vector<std::string> args = {"run", "--root", store_, "--image", image};
    args.insert(args.end(), extra.begin(), extra.end());
    args.insert(args.end(), {"--", "sh", "-c",
                             "ls /etc; cat /etc/secret.conf /etc/cwd-secret.conf /etc/dir/inner"});
    return run_cli(args);
  }

  std::string dir_, store_, bait_;
  fs::path previous_cwd_;
};

TEST_F(HostileImage, AnEtcThatIsNotADirectoryIsRefusedAndNothingOfTheHostIsRead) {
  for (const char* mode : {"flattened", "overlay"}) {
    for (const char* image : {"etc-link:1", "etc-proc:1", "etc-file:1"}) {
      CliResult run = run_image(mode, image);
      std::string context = std::string(mode) + " " + image;
      EXPECT_EQ(run.out.find("secret"), std::string::npos) << context << ": " << run.out;
      EXPECT_EQ(run.exit_status, 125) << context << ": " << run.out << run.err;
      EXPECT_NE(run.err.find("the image's /etc is "), std::string::npos) << context << run.err;
      EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << context << run.err;
    }
  }
}

TEST_F(HostileImage, AMountPointBelowAnImageSymlinkIsNeverMadeOnTheHost) {
  std::string file = dir_ + "/bound-file";
  std::ofstream(file) << "bound\n";
  chmod(dir_.c_str(), 0755);
  chmod(file.c_str(), 0644);
  for (const char* mode : {"flattened", "overlay"}) {
    for (const char* image : {"mountpoint:1", "mountpoint-proc:1"}) {
      CliResult run = run_image(mode, image, {"--ro-bind", file + ":/opt/in/mp"});
      std::string context = std::string(mode) + " " + image;
      EXPECT_FALSE(fs::exists(dir_ + "/cwd/mp")) << context << ": made in paddock's cwd";
      EXPECT_FALSE(fs::exists(bait_ + "/mp")) << context << ": made in the bait directory";
      // Refused with one line naming the path, or made inside the sandbox's own tree.
      if (run.exit_status == 125) {
        EXPECT_NE(run.err.find("/opt/in"), std::string::npos) << context << run.err;
      }
    }
  }
}

}  // namespace
}  // namespace paddock::testing::hostile_image_test
