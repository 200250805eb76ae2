// remove_tree (core/file_tree.h), which empties the state directory's sessions, generations and
// snapshots: folders whose mode keeps their own owner out (0500: no entry can go; 0000 or 0300:
// it cannot even be listed) are made the owner's first, so nothing stays behind; a symlink is
// removed, never followed, and what it points at stays.

#include "core/file_tree.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "core/unique_fd.h"
#include "support/temp_folder.h"

namespace paddock::tree_removal_test {
namespace {

namespace fs = std::filesystem;
using testing::TempFolder;

TEST(TreeRemoval, FoldersThatKeepTheirOwnerOutAreRemovedWithEverythingInThem) {
  TempFolder folder("tree-removal");
  fs::path tree = fs::path(folder.path()) / "tree";
  fs::create_directories(tree / "readonly/deeper");
  fs::create_directories(tree / "closed/inner");
  fs::create_directories(tree / "unlistable");
  std::ofstream(tree / "readonly/big.bin") << std::string(1 << 20, 'x');
  std::ofstream(tree / "readonly/deeper/f") << "f";
  std::ofstream(tree / "closed/inner/secret") << "s";
  std::ofstream(tree / "unlistable/g") << "g";
  // Outside the tree, reached only through a symlink in a closed folder.
  fs::create_directories(fs::path(folder.path()) / "outside");
  std::ofstream(fs::path(folder.path()) / "outside/kept") << "kept";
  fs::create_directory_symlink("../../outside", tree / "closed/inner/link");
  for (const auto& [path, mode] : {std::pair{"readonly/deeper", 0500},
                                   {"readonly", 0500},
                                   {"closed/inner", 0000},
                                   {"closed", 0000},
                                   {"unlistable", 0300}}) {
    ASSERT_EQ(chmod((tree / path).c_str(), static_cast<mode_t>(mode)), 0) << path;
  }
  chmod((tree / "readonly/big.bin").c_str(), 0400);
  core::UniqueFd parent(open(folder.path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  ASSERT_TRUE(parent.valid());
  auto removed = core::remove_tree(parent.get(), "tree");
  EXPECT_TRUE(removed) << removed.error().message;
  EXPECT_FALSE(fs::exists(tree));
  EXPECT_TRUE(fs::exists(fs::path(folder.path()) / "outside/kept"));
  // Missing is not an error.
  EXPECT_TRUE(core::remove_tree(parent.get(), "tree"));
  if (fs::exists(tree)) std::system(("chmod -R u+rwx " + tree.string()).c_str());
}

}  // namespace
}  // namespace paddock::tree_removal_test
