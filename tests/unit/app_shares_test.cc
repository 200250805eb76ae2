// Shares: how the user names them, and how a tool's host_path is confined beneath one, tried
// on real folders with the escapes an attacker would plant (the kernel's openat2 is the guard).

#include "app/shares.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "language/language_run.h"
#include "language/policy_store.h"

namespace paddock::app::app_shares_test {
namespace {

class Tree {
 public:
  Tree() {
    char name[] = "/tmp/paddock-shares-XXXXXX";
    root_ = mkdtemp(name);
    std::filesystem::create_directories(root_ + "/data/sub");
    std::filesystem::create_directories(root_ + "/other");
    std::ofstream(root_ + "/data/file.txt") << "inside\n";
    std::ofstream(root_ + "/other/secret.txt") << "outside\n";
    std::filesystem::create_symlink("/etc", root_ + "/data/etc-link");
    std::filesystem::create_symlink("../other/secret.txt", root_ + "/data/relative-out");
    std::filesystem::create_symlink("file.txt", root_ + "/data/inside-link");
    std::filesystem::create_symlink("/proc/self/cwd", root_ + "/data/magic");
  }
  ~Tree() { std::filesystem::remove_all(root_); }
  Tree(const Tree&) = delete;
  Tree& operator=(const Tree&) = delete;
  const std::string& root() const { return root_; }

 private:
  std::string root_;
};

Shares open_shares(const Tree& tree) {
  auto shares =
      Shares::open({{tree.root() + "/data", "", false}, {tree.root() + "/other", "out", true}});
  EXPECT_TRUE(shares) << shares.error().message;
  return std::move(*shares);
}

// Opens host_path as a tool would; the error message, or "" when it opened.
std::string refusal(const Shares& shares, const std::string& host_path) {
  auto where = shares.locate(host_path);
  if (!where) return where.error().message;
  auto opened = open_in_share(*where, O_RDONLY);
  return opened ? "" : opened.error().message;
}

TEST(Shares, ParsesFolderNameAndMode) {
  auto plain = parse_share_spec("/home/me/data");
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->host_dir, "/home/me/data");
  EXPECT_EQ(plain->name, "");
  EXPECT_FALSE(plain->writable);
  auto named = parse_share_spec("/home/me/out=results:rw");
  ASSERT_TRUE(named);
  EXPECT_EQ(named->host_dir, "/home/me/out");
  EXPECT_EQ(named->name, "results");
  EXPECT_TRUE(named->writable);
  auto read_only = parse_share_spec("/srv/a=b:ro");
  ASSERT_TRUE(read_only);
  EXPECT_FALSE(read_only->writable);
  EXPECT_FALSE(parse_share_spec("/x=bad name"));
  EXPECT_FALSE(parse_share_spec("/x=../y"));
  EXPECT_FALSE(parse_share_spec(":rw"));
  EXPECT_FALSE(parse_share_spec("=name"));
  EXPECT_TRUE(is_share_name("my-data_1.v2"));
  EXPECT_FALSE(is_share_name(".hidden"));
  EXPECT_FALSE(is_share_name(""));
  EXPECT_FALSE(is_share_name(std::string(65, 'a')));
}

TEST(Shares, OpeningChecksEveryFolder) {
  Tree tree;
  auto missing = Shares::open({{tree.root() + "/nope", "", false}});
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("No such file or directory"), std::string::npos);
  auto file = Shares::open({{tree.root() + "/data/file.txt", "", false}});
  ASSERT_FALSE(file);
  EXPECT_NE(file.error().message.find("is not a folder"), std::string::npos);
  auto twice =
      Shares::open({{tree.root() + "/data", "", false}, {tree.root() + "/other", "data", false}});
  ASSERT_FALSE(twice);
  EXPECT_NE(twice.error().message.find("two shares are named 'data'"), std::string::npos);
  // Code with a read-write mount of `data` could put a symlink in place of data/sub.
  auto nested =
      Shares::open({{tree.root() + "/data", "", true}, {tree.root() + "/data/sub", "", false}});
  ASSERT_FALSE(nested);
  EXPECT_NE(nested.error().message.find("lies in the read-write share"), std::string::npos)
      << nested.error().message;
  EXPECT_FALSE(
      Shares::open({{tree.root() + "/data", "a", true}, {tree.root() + "/data", "b", false}}));
  EXPECT_TRUE(
      Shares::open({{tree.root() + "/data", "", false}, {tree.root() + "/data/sub", "", true}}));
  Shares shares = open_shares(tree);
  EXPECT_EQ(shares.summary(), "data (read-only), out (read-write)");
  EXPECT_EQ(Shares{}.summary(), "none");
}

TEST(Shares, LocatesByNameOrByAbsolutePathInside) {
  Tree tree;
  Shares shares = open_shares(tree);
  auto by_name = shares.locate("data/sub/x.csv");
  ASSERT_TRUE(by_name);
  EXPECT_EQ(by_name->share->name, "data");
  EXPECT_EQ(by_name->relative, "sub/x.csv");
  EXPECT_EQ(by_name->shown(), "data/sub/x.csv");
  auto whole = shares.locate("out");
  ASSERT_TRUE(whole);
  EXPECT_EQ(whole->relative, "");
  auto absolute = shares.locate(tree.root() + "/data/file.txt");
  ASSERT_TRUE(absolute);
  EXPECT_EQ(absolute->share->name, "data");
  EXPECT_EQ(absolute->relative, "file.txt");
  auto outside = shares.locate("/etc/passwd");
  ASSERT_FALSE(outside);
  EXPECT_NE(outside.error().message.find("is not inside a shared folder"), std::string::npos);
  auto unknown = shares.locate("nosuch/file");
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().message.find("'nosuch' is not a share"), std::string::npos);
  // A folder beside a share whose name starts the same is not inside it.
  EXPECT_FALSE(shares.locate(tree.root() + "/data-evil/x"));
  EXPECT_FALSE(Shares{}.locate("data/x"));
}

TEST(Shares, EveryEscapeIsRefusedByTheKernel) {
  Tree tree;
  Shares shares = open_shares(tree);
  EXPECT_EQ(refusal(shares, "data/file.txt"), "");
  EXPECT_EQ(refusal(shares, "data/inside-link"), "");  // stays inside: followed
  EXPECT_EQ(refusal(shares, "data/sub/../file.txt"), "");
  for (const char* escape : {"data/../other/secret.txt", "data/..", "data/etc-link/passwd",
                             "data/relative-out", "data/sub/../../other/secret.txt"}) {
    EXPECT_NE(refusal(shares, escape).find("leads outside the share 'data'"), std::string::npos)
        << escape << ": " << refusal(shares, escape);
  }
  // A magic link (/proc/self/...) is refused whatever it points at.
  EXPECT_NE(refusal(shares, "data/magic/x"), "");
  EXPECT_NE(refusal(shares, "data/missing").find("no such file or folder"), std::string::npos);
}

TEST(Shares, AMountPathIsInsideWorkOrMnt) {
  Tree tree;
  Shares shares = open_shares(tree);
  ShareMount plain{"data", "", false};
  auto bind = share_bind(shares, plain, "/work", {});
  ASSERT_TRUE(bind) << bind.error().message;
  EXPECT_EQ(bind->sandbox_path, "/work/data");
  EXPECT_EQ(bind->host_path, std::filesystem::canonical(tree.root() + "/data").string());
  EXPECT_FALSE(bind->writable);
  ShareMount relative{"out", "project/here", true};
  auto rw = share_bind(shares, relative, "/work", {});
  ASSERT_TRUE(rw);
  EXPECT_EQ(rw->sandbox_path, "/work/project/here");
  EXPECT_TRUE(rw->writable);
  for (const char* path : {"/etc/x", "/work", "/work/", "/work//", "/mnt", "/mnt/", "/mnt/../etc",
                           "../x", "/work/a/../../etc", "/", ".", "./"}) {
    ShareMount bad{"data", path, false};
    EXPECT_FALSE(share_bind(shares, bad, "/work", {})) << path;
  }
  ShareMount widened{"data", "", true};
  auto refused = share_bind(shares, widened, "/work", {});
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("read-only, so it cannot be mounted rw"),
            std::string::npos);
  ShareMount unknown{"/etc", "", false};
  EXPECT_FALSE(share_bind(shares, unknown, "/work", {}));
}

// Paddock's own folders in /work, by the built-in policies: a share at, inside or over one would
// replace python's sitecustomize (.paddock/python), the user site installs go to (.local), R's
// library; each is refused with a line that names the folder, and a name beside them is not.
TEST(Shares, AMountAtInsideOrOverPaddocksOwnFoldersIsRefused) {
  Tree tree;
  Shares shares = open_shares(tree);
  auto policies = language::PolicyStore::load({});
  ASSERT_TRUE(policies) << policies.error().message;
  auto own = [&](const std::string& language) {
    auto policy = policies->find(language);
    EXPECT_TRUE(policy) << language;
    return policy ? language::language_own_folders(**policy, "/work") : std::vector<std::string>{};
  };
  std::vector<std::string> python = own("python");
  for (const char* path : {".paddock", ".paddock/python", "/work/.paddock/python/sitecustomize.py",
                           ".paddock/plots", ".local", "/work/.local", ".local/lib/python3.11"}) {
    ShareMount mount{"out", path, true};
    auto refused = share_bind(shares, mount, "/work", python);
    ASSERT_FALSE(refused) << path;
    EXPECT_NE(refused.error().message.find("which paddock keeps for itself"), std::string::npos)
        << refused.error().message;
    EXPECT_EQ(refused.error().message.find('\n'), std::string::npos);
  }
  ShareMount shadow{"out", "/work/.local", true};
  EXPECT_EQ(share_bind(shares, shadow, "/work", python).error().message,
            "mounts: '/work/.local' would cover /work/.local, which paddock keeps for itself in "
            "this session: choose a folder outside it, e.g. /work/out");
  std::vector<std::string> r = own("r");
  for (const char* path : {"R", "R/library", ".paddock/r"}) {
    ShareMount mount{"data", path, false};
    EXPECT_FALSE(share_bind(shares, mount, "/work", r)) << path;
  }
  for (const char* path :
       {".localdata", "local", "data/.local", ".paddock-notes", "/mnt/.paddock"}) {
    ShareMount mount{"data", path, false};
    auto bound = share_bind(shares, mount, "/work", python);
    EXPECT_TRUE(bound) << path << ": " << (bound ? "" : bound.error().message);
  }
}

TEST(Shares, AFolderReplacedSinceStartUpIsNotMounted) {
  Tree tree;
  Shares shares = open_shares(tree);
  std::filesystem::rename(tree.root() + "/data", tree.root() + "/moved");
  std::filesystem::create_symlink("/etc", tree.root() + "/data");
  ShareMount mount{"data", "", false};
  auto refused = share_bind(shares, mount, "/work", {});
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("was moved or replaced since the server started"),
            std::string::npos)
      << refused.error().message;
}

}  // namespace
}  // namespace paddock::app::app_shares_test
