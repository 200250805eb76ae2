#include "rootfs/image_flatten.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "rootfs/image_store.h"

namespace paddock::rootfs::image_flatten_test {
namespace {

namespace fs = std::filesystem;

// Layers written as the unpacker leaves them (whiteouts as 0/0 character devices, opaque
// directories marked with user.overlay.opaque), and the copy made from them.
class FlattenTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "paddock-flatten-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { (void)remove_tree(dir_); }

  std::string layer(const std::string& name) {
    fs::create_directories(dir_ + "/" + name);
    return dir_ + "/" + name;
  }
  void file(const std::string& path, const std::string& content) {
    fs::create_directories(fs::path(path).parent_path());
    std::ofstream(path) << content;
  }
  void whiteout(const std::string& path) {
    ASSERT_EQ(mknod(path.c_str(), S_IFCHR | 0000, makedev(0, 0)), 0) << path;
  }
  void opaque(const std::string& path) {
    fs::create_directories(path);
    ASSERT_EQ(setxattr(path.c_str(), "user.overlay.opaque", "y", 1, 0), 0) << path;
  }
  std::string read(const std::string& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }
  std::string flatten(const std::vector<std::string>& top_first) {
    std::string destination = dir_ + "/flat/copy";
    auto made = flatten_layers(top_first, destination);
    EXPECT_TRUE(made) << made.error().message;
    return destination;
  }

  std::string dir_;
};

TEST_F(FlattenTest, UpperLayersWinAndWhiteoutsRemove) {
  std::string lower = layer("lower"), upper = layer("upper");
  file(lower + "/etc/motd", "lower");
  file(lower + "/etc/gone", "gone");
  file(lower + "/data/old", "old");
  file(lower + "/keep/file", "kept");
  file(upper + "/etc/motd", "upper");
  whiteout(upper + "/etc/gone");
  opaque(upper + "/data");
  file(upper + "/data/new", "new");
  std::string copy = flatten({upper, lower});
  EXPECT_EQ(read(copy + "/etc/motd"), "upper");
  EXPECT_FALSE(fs::exists(copy + "/etc/gone"));
  EXPECT_FALSE(fs::exists(copy + "/data/old"));
  EXPECT_EQ(read(copy + "/data/new"), "new");
  EXPECT_EQ(read(copy + "/keep/file"), "kept");
  // Nothing of the layers' markers is left in the copy.
  struct stat info {};
  for (const auto& entry : fs::recursive_directory_iterator(copy)) {
    ASSERT_EQ(lstat(entry.path().c_str(), &info), 0);
    EXPECT_FALSE(S_ISCHR(info.st_mode)) << entry.path();
  }
}

TEST_F(FlattenTest, FilesAreHardLinksAndSymlinksStaySymlinks) {
  std::string only = layer("only");
  file(only + "/usr/bin/tool", "#!/bin/sh\n");
  fs::create_directory_symlink("usr/bin", only + "/bin");
  std::string copy = flatten({only});
  struct stat original {
  }, copied{};
  ASSERT_EQ(stat((only + "/usr/bin/tool").c_str(), &original), 0);
  ASSERT_EQ(stat((copy + "/usr/bin/tool").c_str(), &copied), 0);
  EXPECT_EQ(original.st_ino, copied.st_ino);
  EXPECT_TRUE(fs::is_symlink(copy + "/bin"));
  EXPECT_EQ(fs::read_symlink(copy + "/bin"), "usr/bin");
}

TEST_F(FlattenTest, ADirectoryAndAFileReplaceEachOther) {
  std::string lower = layer("lower"), upper = layer("upper");
  file(lower + "/was-dir/inside", "x");
  file(lower + "/was-file", "x");
  file(upper + "/was-dir", "now a file");
  file(upper + "/was-file/inside", "now a directory");
  // A layer that turns a directory into a symlink to "/" must not make the copy write there.
  file(lower + "/escape/file", "x");
  fs::create_directory_symlink("/", upper + "/escape");
  // And a directory over a lower symlink to outside is made in the copy, not followed.
  fs::create_directory_symlink(dir_ + "/outside", lower + "/through");
  file(upper + "/through/file", "inside");
  std::string copy = flatten({upper, lower});
  EXPECT_EQ(read(copy + "/was-dir"), "now a file");
  EXPECT_EQ(read(copy + "/was-file/inside"), "now a directory");
  EXPECT_TRUE(fs::is_symlink(copy + "/escape"));
  EXPECT_EQ(read(copy + "/through/file"), "inside");
  EXPECT_FALSE(fs::exists(dir_ + "/outside"));
}

TEST_F(FlattenTest, ReadOnlyDirectoriesAreFilledThenKeepTheirMode) {
  std::string lower = layer("lower"), upper = layer("upper");
  file(lower + "/locked/a", "a");
  fs::permissions(lower + "/locked", fs::perms(0555));
  file(upper + "/locked/b", "b");
  fs::permissions(upper + "/locked", fs::perms(0555));
  std::string copy = flatten({upper, lower});
  EXPECT_EQ(read(copy + "/locked/a"), "a");
  EXPECT_EQ(read(copy + "/locked/b"), "b");
  EXPECT_EQ(fs::status(copy + "/locked").permissions(), fs::perms(0555));
}

// A lower directory's mode must not land on whatever an upper symlink in its place points to.
TEST_F(FlattenTest, ModesNeverFollowASymlinkThatReplacedADirectory) {
  std::string lower = layer("lower"), upper = layer("upper");
  fs::create_directories(dir_ + "/target");
  fs::permissions(dir_ + "/target", fs::perms(0755));
  file(lower + "/escape/deeper/file", "x");
  file(lower + "/escape-sibling/file", "x");
  fs::permissions(lower + "/escape", fs::perms(0700));
  fs::permissions(lower + "/escape/deeper", fs::perms(0700));
  fs::create_directory_symlink(dir_ + "/target", upper + "/escape");
  std::string copy = flatten({upper, lower});
  EXPECT_TRUE(fs::is_symlink(copy + "/escape"));
  EXPECT_EQ(fs::status(dir_ + "/target").permissions(), fs::perms(0755));
}

TEST_F(FlattenTest, AnExistingCopyIsKeptAndNoPartialOneIsLeft) {
  std::string only = layer("only");
  file(only + "/a", "a");
  std::string copy = flatten({only});
  file(only + "/b", "b");  // layers never change; a second call must not even look
  EXPECT_EQ(flatten({only}), copy);
  EXPECT_FALSE(fs::exists(copy + "/b"));
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_ + "/flat"), fs::directory_iterator{}), 1);
  auto missing = flatten_layers({dir_ + "/no-such-layer"}, dir_ + "/flat/other");
  EXPECT_FALSE(missing);
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_ + "/flat"), fs::directory_iterator{}), 1);
}

}  // namespace
}  // namespace paddock::rootfs::image_flatten_test
