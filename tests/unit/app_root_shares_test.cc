// The client's roots as shares (paddock mcp --share-roots): which file URIs name a local folder,
// and which roots are skipped, on real folders. The client's list is as hostile as a tool's
// argument: every skip below is a root some client could send.

#include "app/root_shares.h"

#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

namespace paddock::app::app_root_shares_test {
namespace {

class Folders {
 public:
  Folders() {
    char name[] = "/tmp/paddock-roots-XXXXXX";
    root_ = mkdtemp(name);
    for (const char* folder : {"alpha", "beta", "My Project", ".hidden", "other/alpha", "data"}) {
      std::filesystem::create_directories(root_ + "/" + folder);
    }
    std::ofstream(root_ + "/alpha/file.txt") << "x\n";
    std::filesystem::create_directory_symlink(root_ + "/beta", root_ + "/beta-link");
  }
  ~Folders() { std::filesystem::remove_all(root_); }
  Folders(const Folders&) = delete;
  Folders& operator=(const Folders&) = delete;
  [[nodiscard]] std::string uri(const std::string& folder) const {
    return "file://" + root_ + "/" + folder;
  }
  [[nodiscard]] const std::string& root() const { return root_; }

 private:
  std::string root_;
};

std::vector<std::string> names(const Shares::List& shares) {
  std::vector<std::string> out;
  for (const auto& share : shares) out.push_back(share->name + (share->writable ? ":rw" : ":ro"));
  return out;
}

TEST(LocalPathOf, DecodesAFileUriOnThisMachine) {
  EXPECT_EQ(*local_path_of("file:///home/me/My%20Project"), "/home/me/My Project");
  EXPECT_EQ(*local_path_of("FILE://localhost/srv/repo"), "/srv/repo");
  EXPECT_EQ(*local_path_of("file:///a%2fb"), "/a/b");
}

TEST(LocalPathOf, RefusesWhatNamesNoLocalFolder) {
  for (const auto& [uri, why] : std::vector<std::pair<std::string, std::string>>{
           {"https://example.com/repo", "is not a file:// URI"},
           {"file:/no-slashes", "is not a file:// URI"},
           {"file://build-host/srv/repo", "is on another host"},
           {"file://localhost", "names no path"},
           {"file:///srv/repo?x=1", "has a query or fragment"},
           {"file:///srv/repo#top", "has a query or fragment"},
           {"file:///srv/%zzrepo", "has a broken %-escape"},
           {"file:///srv/repo%2", "has a broken %-escape"},
           {"file:///srv/repo%00/etc", "has a NUL in its path"},
       }) {
    auto path = local_path_of(uri);
    ASSERT_FALSE(path) << uri << " gave " << *path;
    EXPECT_NE(path.error().message.find(why), std::string::npos)
        << uri << ": " << path.error().message;
  }
}

TEST(SharesFromRoots, SharesEachLocalFolderNamedAfterIt) {
  Folders folders;
  auto made = shares_from_roots({{folders.uri("alpha"), "the client's label"},
                                 {folders.uri("My%20Project"), ""},
                                 {folders.uri(".hidden"), ""},
                                 {folders.uri("beta-link"), ""}},
                                {}, false);
  EXPECT_EQ(names(made.shares),
            (std::vector<std::string>{"alpha:ro", "My_Project:ro", "hidden:ro", "beta:ro"}));
  EXPECT_TRUE(made.log_lines.empty()) << made.log_lines[0];
  // A symlink is followed once, to the folder it names, which is what is shared.
  EXPECT_EQ(made.shares[3]->host_dir, folders.root() + "/beta");
}

TEST(SharesFromRoots, SkipsEachRootThatCannotBeShared) {
  Folders folders;
  auto fixed = Shares::open({{folders.root() + "/data", "data", false}});
  ASSERT_TRUE(fixed) << fixed.error().message;
  auto made = shares_from_roots({{folders.uri("alpha"), ""},
                                 {folders.uri("alpha/file.txt"), ""},
                                 {folders.uri("missing"), ""},
                                 {"file:///", ""},
                                 {folders.uri("data"), ""},
                                 {folders.uri("other/alpha"), ""},
                                 {"file://" + folders.root(), ""},
                                 {"ftp://host/x", ""}},
                                fixed->fixed(), false);
  EXPECT_EQ(names(made.shares), (std::vector<std::string>{"alpha:ro"}));
  std::vector<std::string> expected = {
      "alpha/file.txt is not shared: it is not a folder",
      "missing is not shared: it cannot be opened: No such file or directory",
      "root file:/// is not shared: it is the whole filesystem",
      "data is not shared: it lies in the share 'data'",
      "other/alpha is not shared: it would be named 'alpha', which another share is",
      " is not shared: it holds the share 'data'",
      "ftp://host/x is not shared: it is not a file:// URI",
  };
  ASSERT_EQ(made.log_lines.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_NE(made.log_lines[i].find(expected[i]), std::string::npos) << made.log_lines[i];
  }
}

// Code with a read-write share could plant a symlink to /etc in it; a root the client then
// lists through that symlink is not followed.
TEST(SharesFromRoots, ARootThroughAReadWriteShareIsNotFollowed) {
  Folders folders;
  std::filesystem::create_directory_symlink("/etc", folders.root() + "/alpha/planted");
  auto first = shares_from_roots({{folders.uri("alpha"), ""}}, {}, true);
  ASSERT_EQ(first.shares.size(), 1u);
  auto next = shares_from_roots({{folders.uri("alpha/planted"), ""}, {folders.uri("beta"), ""}}, {},
                                true, first.shares);
  EXPECT_EQ(names(next.shares), (std::vector<std::string>{"beta:rw"}));
  ASSERT_EQ(next.log_lines.size(), 1u);
  EXPECT_NE(next.log_lines[0].find("lies in the read-write share 'alpha', where sandboxed code "
                                   "could have put a symlink"),
            std::string::npos)
      << next.log_lines[0];
}

TEST(SharesFromRoots, ReadWriteRootsAreWritableAndAtMostSixtyFourAreShared) {
  Folders folders;
  std::vector<ClientRoot> roots;
  for (int i = 0; i < 70; ++i) {
    std::string folder = "many/f" + std::to_string(i);
    std::filesystem::create_directories(folders.root() + "/" + folder);
    roots.push_back({folders.uri(folder), ""});
  }
  auto made = shares_from_roots(roots, {}, true);
  ASSERT_EQ(made.shares.size(), kMaxRootShares);
  EXPECT_TRUE(made.shares[0]->writable);
  ASSERT_EQ(made.log_lines.size(), 1u);
  EXPECT_EQ(made.log_lines[0], "6 more roots are not shared: 64 at most");
}

TEST(SharesFromRoots, ReplacingTheRootsKeepsWhatACallAlreadyHolds) {
  Folders folders;
  Shares shares;
  shares.set_roots(shares_from_roots({{folders.uri("alpha"), ""}}, {}, false).shares);
  auto where = shares.locate("alpha/file.txt");
  ASSERT_TRUE(where) << where.error().message;
  shares.set_roots({});
  // The call that located it still reads the share it found; new calls no longer find it.
  EXPECT_EQ(where->share->name, "alpha");
  EXPECT_TRUE(open_in_share(*where, O_RDONLY));
  EXPECT_FALSE(shares.locate("alpha/file.txt"));
  EXPECT_EQ(shares.summary(), "none");
}

}  // namespace
}  // namespace paddock::app::app_root_shares_test
