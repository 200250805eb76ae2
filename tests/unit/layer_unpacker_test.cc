#include "rootfs/layer_unpacker.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "support/file_checks.h"
#include "support/layer_builder.h"

namespace paddock::rootfs::layer_unpacker_test {
namespace {

namespace fs = std::filesystem;
using testing::Compression;
using testing::LayerBuilder;

// A temporary directory holding the target ("root") and a sentinel file beside it, so that a
// test can tell whether anything reached outside the target.
class Sandbox {
 public:
  Sandbox() {
    std::string pattern = (fs::temp_directory_path() / "paddock-layer-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    dir_ = pattern;
    fs::create_directory(root());
    std::ofstream(sentinel()) << "sentinel";
    root_fd_.reset(open(root().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  }
  ~Sandbox() {
    root_fd_.reset();
    // Unpacked directories may be read-only: make the tree writable again to remove it.
    std::error_code error;
    for (auto it = fs::recursive_directory_iterator(
             dir_, fs::directory_options::skip_permission_denied, error);
         !error && it != fs::recursive_directory_iterator(); it.increment(error)) {
      if (it->is_directory(error) && !it->is_symlink(error)) {
        fs::permissions(it->path(), fs::perms::owner_all, fs::perm_options::add, error);
      }
    }
    fs::permissions(root(), fs::perms::owner_all, fs::perm_options::add, error);
    fs::remove_all(dir_, error);
  }
  Sandbox(const Sandbox&) = delete;
  Sandbox& operator=(const Sandbox&) = delete;

  [[nodiscard]] fs::path root() const { return dir_ / "root"; }
  [[nodiscard]] fs::path sentinel() const { return dir_ / "sentinel"; }
  [[nodiscard]] fs::path path(const std::string& inside) const { return root() / inside; }

  core::Result<UnpackStats> unpack(const std::string& blob, const UnpackLimits& limits = {},
                                   const UnpackRules& rules = {}) {
    core::UniqueFd fd = testing::blob_fd(blob);
    return unpack_layer(fd.get(), root_fd_.get(), limits, rules);
  }

  // Nothing but the target and the untouched sentinel beside it.
  void expect_contained() const {
    std::set<std::string> names;
    for (const auto& entry : fs::directory_iterator(dir_)) {
      names.insert(entry.path().filename().string());
    }
    EXPECT_EQ(names, (std::set<std::string>{"root", "sentinel"}));
    std::ifstream in(sentinel());
    std::stringstream content;
    content << in.rdbuf();
    EXPECT_EQ(content.str(), "sentinel");
    struct stat st {};
    ASSERT_EQ(stat(sentinel().c_str(), &st), 0);
    EXPECT_EQ(st.st_nlink, 1u) << "the sentinel gained a hardlink";
  }

  // Every inode in the target, to check that none is an outside file's.
  [[nodiscard]] std::set<std::pair<dev_t, ino_t>> inodes() const {
    std::set<std::pair<dev_t, ino_t>> out;
    for (const auto& entry : fs::recursive_directory_iterator(root())) {
      struct stat st {};
      if (lstat(entry.path().c_str(), &st) == 0) out.insert({st.st_dev, st.st_ino});
    }
    return out;
  }

 private:
  fs::path dir_;
  core::UniqueFd root_fd_;
};

using testing::lstat_of;
using testing::present;
using testing::read_file;

mode_t mode_of(const fs::path& path) {
  return lstat_of(path).st_mode & 07777;
}

std::string readlink_of(const fs::path& path) {
  std::error_code error;
  return fs::read_symlink(path, error).string();
}

LayerBuilder sample_tree() {
  LayerBuilder layer;
  layer.dir("etc", 0755)
      .file("etc/hostname", "box\n", 0644)
      .file("usr/bin/tool", "#!/bin/sh\necho hi\n", 0755)  // parents implied
      .dir("ro", 0555)
      .file("ro/inside", "read-only\n", 0444)
      .dir("private", 0700)
      .file("private/secret", "s", 0600)
      .symlink("bin", "usr/bin")
      .symlink("abs", "/etc/hostname")
      .hardlink("usr/bin/tool-again", "usr/bin/tool")
      .fifo("run/pipe", 0620)
      .file("./dot/slash", "dot", 0640);
  return layer;
}

void expect_sample_tree(const Sandbox& box) {
  EXPECT_EQ(read_file(box.path("etc/hostname")), "box\n");
  EXPECT_EQ(mode_of(box.path("etc/hostname")), 0644u);
  EXPECT_EQ(read_file(box.path("usr/bin/tool")), "#!/bin/sh\necho hi\n");
  EXPECT_EQ(mode_of(box.path("usr/bin/tool")), 0755u);
  EXPECT_EQ(mode_of(box.path("usr")), 0755u);
  EXPECT_EQ(mode_of(box.path("ro")), 0555u);
  EXPECT_EQ(read_file(box.path("ro/inside")), "read-only\n");
  EXPECT_EQ(mode_of(box.path("ro/inside")), 0444u);
  EXPECT_EQ(mode_of(box.path("private")), 0700u);
  EXPECT_EQ(mode_of(box.path("private/secret")), 0600u);
  EXPECT_TRUE(S_ISLNK(lstat_of(box.path("bin")).st_mode));
  EXPECT_EQ(readlink_of(box.path("bin")), "usr/bin");
  EXPECT_EQ(readlink_of(box.path("abs")), "/etc/hostname");
  struct stat tool = lstat_of(box.path("usr/bin/tool"));
  struct stat again = lstat_of(box.path("usr/bin/tool-again"));
  EXPECT_EQ(tool.st_ino, again.st_ino);
  EXPECT_EQ(tool.st_nlink, 2u);
  EXPECT_TRUE(S_ISFIFO(lstat_of(box.path("run/pipe")).st_mode));
  EXPECT_EQ(mode_of(box.path("run/pipe")), 0620u);
  EXPECT_EQ(read_file(box.path("dot/slash")), "dot");
  EXPECT_EQ(mode_of(box.path("dot/slash")), 0640u);
  EXPECT_EQ(tool.st_mtim.tv_sec, 1'700'000'000);
  EXPECT_EQ(lstat_of(box.path("ro")).st_mtim.tv_sec, 1'700'000'000);
  EXPECT_EQ(lstat_of(box.path("bin")).st_mtim.tv_sec, 1'700'000'000);
}

TEST(LayerUnpacker, RoundTripsFilesDirectoriesLinksAndModes) {
  Sandbox box;
  LayerBuilder layer = sample_tree();
  auto stats = box.unpack(layer.tar());
  ASSERT_TRUE(stats.ok()) << stats.error().message;
  expect_sample_tree(box);
  EXPECT_EQ(stats->entries, 12u);
  EXPECT_EQ(stats->bytes, 4u + 18 + 10 + 1 + 3);
  EXPECT_EQ(stats->devices_skipped, 0u);
  EXPECT_EQ(stats->setid_bits_dropped, 0u);
  EXPECT_EQ(stats->foreign_owners, 0u);
  box.expect_contained();
}

TEST(LayerUnpacker, GzipZstdAndNoneGiveTheSameTreeAndTheDiffIdOfTheTar) {
  LayerBuilder layer = sample_tree();
  const std::string tar = layer.tar();
  const std::string expected = testing::sha256_digest(tar);
  for (Compression compression : {Compression::kNone, Compression::kGzip, Compression::kZstd}) {
    SCOPED_TRACE(static_cast<int>(compression));
    std::string blob = layer.layer(compression);
    if (compression != Compression::kNone) {
      EXPECT_NE(blob, tar);
    }
    Sandbox box;
    auto stats = box.unpack(blob);
    ASSERT_TRUE(stats.ok()) << stats.error().message;
    EXPECT_EQ(stats->diff_id, expected);
    expect_sample_tree(box);
  }
}

TEST(LayerUnpacker, DiffIdCoversPaddingAfterTheEndOfArchive) {
  const std::string tar = LayerBuilder().file("a", "a").tar();
  // tar's writers pad to 10 KiB records, and the padding is part of the stream; 1 MiB is more
  // than the tar reader reads ahead, so only the reading to the end after it stops covers it.
  for (std::uint64_t padding : {std::uint64_t{10240}, std::uint64_t{1} << 20}) {
    const std::string padded = tar + std::string(padding, '\0');
    for (Compression compression : {Compression::kNone, Compression::kGzip, Compression::kZstd}) {
      SCOPED_TRACE(std::to_string(padding) + " " + std::to_string(static_cast<int>(compression)));
      Sandbox box;
      auto stats = box.unpack(testing::compress(tar, compression, padding));
      ASSERT_TRUE(stats.ok()) << stats.error().message;
      EXPECT_EQ(stats->diff_id, testing::sha256_digest(padded));
      EXPECT_NE(stats->diff_id, testing::sha256_digest(tar));
    }
  }
}

// Without a diff_id nothing is hashed (workspace archives, state/workspace_archive.h); the tree
// is the same.
TEST(LayerUnpacker, WithoutADiffIdTheTreeIsTheSame) {
  Sandbox box;
  UnpackRules rules;
  rules.diff_id = false;
  auto stats = box.unpack(sample_tree().layer(Compression::kZstd), {}, rules);
  ASSERT_TRUE(stats.ok()) << stats.error().message;
  EXPECT_EQ(stats->diff_id, "");
  expect_sample_tree(box);
}

TEST(LayerUnpacker, ReadsTheBlobFromItsCurrentOffset) {
  Sandbox box;
  const std::string tar = LayerBuilder().file("f", "x").tar();
  core::UniqueFd fd = testing::blob_fd("JUNK" + tar);
  ASSERT_EQ(lseek(fd.get(), 4, SEEK_SET), 4);
  core::UniqueFd root(open(box.root().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  auto stats = unpack_layer(fd.get(), root.get());
  ASSERT_TRUE(stats.ok()) << stats.error().message;
  EXPECT_EQ(stats->diff_id, testing::sha256_digest(tar));
  EXPECT_EQ(read_file(box.path("f")), "x");
}

TEST(LayerUnpacker, WhiteoutsBecomeCharacterDevicesAndOpaqueDirectoriesAnXattr) {
  Sandbox box;
  LayerBuilder layer;
  layer.dir("d")
      .file("d/keep", "k")
      .whiteout("gone")
      .whiteout("d/old")
      .file("replaced", "will be whited out")
      .whiteout("replaced")
      .dir("tree")
      .file("tree/deep/file", "x")
      .whiteout("tree")
      .dir("o")
      .opaque("o")
      .file("o/inside", "i")
      .opaque("implied/parent");
  auto stats = box.unpack(layer.layer(Compression::kGzip));
  ASSERT_TRUE(stats.ok()) << stats.error().message;
  for (const char* name : {"gone", "d/old", "replaced", "tree"}) {
    SCOPED_TRACE(name);
    struct stat st = lstat_of(box.path(name));
    EXPECT_TRUE(S_ISCHR(st.st_mode));
    EXPECT_EQ(major(st.st_rdev), 0u);
    EXPECT_EQ(minor(st.st_rdev), 0u);
  }
  EXPECT_EQ(read_file(box.path("d/keep")), "k");
  EXPECT_EQ(read_file(box.path("o/inside")), "i");
  for (const char* dir : {"o", "implied/parent"}) {
    SCOPED_TRACE(dir);
    char value[8] = {};
    ssize_t size = getxattr(box.path(dir).c_str(), "user.overlay.opaque", value, sizeof value);
    ASSERT_EQ(size, 1) << strerror(errno);
    EXPECT_EQ(value[0], 'y');
  }
  char value[8];
  EXPECT_LT(getxattr(box.path("d").c_str(), "user.overlay.opaque", value, sizeof value), 0);
  // The whiteout entries themselves are never created.
  for (const auto& entry : fs::recursive_directory_iterator(box.root())) {
    EXPECT_FALSE(entry.path().filename().string().starts_with(".wh.")) << entry.path();
  }
  box.expect_contained();
}

TEST(LayerUnpacker, NewEntriesReplaceWhatIsThere) {
  Sandbox box;
  LayerBuilder layer;
  layer.file("f-then-dir", "f")
      .dir("f-then-dir", 0750)
      .dir("tree-then-file")
      .dir("tree-then-file/ro", 0555)
      .file("tree-then-file/ro/x", "x", 0400)
      .symlink("tree-then-file/ro/link", "/")
      .file("tree-then-file", "now a file")
      .symlink("link-then-dir", "/tmp")
      .dir("link-then-dir")
      .dir("dir-kept", 0700)
      .file("dir-kept/child", "c")
      .dir("dir-kept", 0711)
      .file("twice", "first")
      .file("twice", "second", 0600);
  auto stats = box.unpack(layer.tar());
  ASSERT_TRUE(stats.ok()) << stats.error().message;
  EXPECT_TRUE(S_ISDIR(lstat_of(box.path("f-then-dir")).st_mode));
  EXPECT_EQ(mode_of(box.path("f-then-dir")), 0750u);
  EXPECT_EQ(read_file(box.path("tree-then-file")), "now a file");
  EXPECT_TRUE(S_ISDIR(lstat_of(box.path("link-then-dir")).st_mode));
  EXPECT_EQ(read_file(box.path("dir-kept/child")), "c");
  EXPECT_EQ(mode_of(box.path("dir-kept")), 0711u);
  EXPECT_EQ(read_file(box.path("twice")), "second");
  EXPECT_EQ(mode_of(box.path("twice")), 0600u);
  box.expect_contained();
}

// Each hostile layer is either refused or lands inside the target; nothing beside it changes.
TEST(LayerUnpacker, MaliciousLayersStayInsideTheTarget) {
  struct Case {
    const char* what;
    LayerBuilder layer;
    const char* lands_at;  // nullptr: refused
  };
  std::vector<Case> cases;
  cases.push_back({"parent", LayerBuilder().file("../escape", "x"), nullptr});
  cases.push_back({"dot parent", LayerBuilder().file("./../escape", "x"), nullptr});
  cases.push_back({"absolute", LayerBuilder().file("/abs/escape", "x"), "abs/escape"});
  cases.push_back({"climb", LayerBuilder().file("a/../../escape", "x"), nullptr});
  cases.push_back({"collapse", LayerBuilder().file("a/b/../../c", "x"), "c"});
  cases.push_back(
      {"symlink to /", LayerBuilder().symlink("link", "/").file("link/escape", "x"), "escape"});
  cases.push_back({"symlink up",
                   LayerBuilder().symlink("link", "../../..").file("link/escape", "x"), "escape"});
  cases.push_back({"symlink to / then new dirs",
                   LayerBuilder().symlink("link", "/").file("link/new/dir/escape", "x"),
                   "new/dir/escape"});
  cases.push_back({"chained symlinks",
                   LayerBuilder().symlink("a", "../b").symlink("b", "/..").file("a/escape", "x"),
                   "escape"});
  cases.push_back({"directory replaced by a symlink to /",
                   LayerBuilder().dir("d").file("d/f", "f").symlink("d", "/").file("d/escape", "x"),
                   "escape"});
  cases.push_back({"symlink named as the last component",
                   LayerBuilder().symlink("escape", "../sentinel").file("escape", "x"), "escape"});
  cases.push_back({"dangling symlink on the way",
                   LayerBuilder().symlink("link", "/proc/self/cwd").file("link/escape", "x"),
                   nullptr});
  cases.push_back(
      {"hardlink to /etc/passwd", LayerBuilder().hardlink("passwd", "/etc/passwd"), nullptr});
  cases.push_back({"hardlink outside", LayerBuilder().hardlink("h", "../sentinel"), nullptr});
  cases.push_back({"hardlink through a symlink",
                   LayerBuilder().symlink("l", "/etc").hardlink("h", "l/passwd"), nullptr});
  cases.push_back({"hardlink through a climbing symlink",
                   LayerBuilder().symlink("l", "../../..").hardlink("h", "l/etc/passwd"), nullptr});
  cases.push_back({"hardlink of a symlink to outside",
                   LayerBuilder().symlink("l", "../sentinel").hardlink("h", "l"), "h"});
  cases.push_back({"hardlink to the root", LayerBuilder().hardlink("h", "/"), nullptr});
  cases.push_back({"whiteout climbing", LayerBuilder().file("../.wh.sentinel", ""), nullptr});
  cases.push_back({"whiteout through a symlink",
                   LayerBuilder().symlink("l", "/").whiteout("l/sentinel"), "sentinel"});
  cases.push_back({"opaque through a symlink", LayerBuilder().symlink("l", "..").opaque("l"), "l"});

  struct stat passwd {};
  ASSERT_EQ(stat("/etc/passwd", &passwd), 0);
  ASSERT_FALSE(present("/escape"));
  ASSERT_FALSE(present(fs::temp_directory_path() / "escape"));
  for (auto& c : cases) {
    SCOPED_TRACE(c.what);
    Sandbox box;
    struct stat sentinel {};
    ASSERT_EQ(stat(box.sentinel().c_str(), &sentinel), 0);
    auto stats = box.unpack(c.layer.layer(Compression::kGzip));
    if (c.lands_at == nullptr) {
      // Refused by the unpacker's checks (and so named after the entry), not by accident.
      EXPECT_FALSE(stats.ok());
      if (!stats.ok()) {
        EXPECT_TRUE(stats.error().message.starts_with("layer entry '")) << stats.error().message;
      }
    } else {
      EXPECT_TRUE(stats.ok()) << stats.error().message;
      EXPECT_TRUE(present(box.path(c.lands_at)));
    }
    box.expect_contained();
    auto inodes = box.inodes();
    EXPECT_FALSE(inodes.contains({passwd.st_dev, passwd.st_ino}));
    EXPECT_FALSE(inodes.contains({sentinel.st_dev, sentinel.st_ino}));
    EXPECT_FALSE(present("/escape"));
    EXPECT_FALSE(present(fs::temp_directory_path() / "escape"));
  }
}

TEST(LayerUnpacker, RefusalsSayWhichEntry) {
  Sandbox box;
  auto stats = box.unpack(LayerBuilder().file("ok", "x").file("a/../../escape", "x").tar());
  ASSERT_FALSE(stats.ok());
  EXPECT_NE(stats.error().message.find("layer entry 'a/../../escape'"), std::string::npos)
      << stats.error().message;
  EXPECT_EQ(stats.error().code, EINVAL);
}

TEST(LayerUnpacker, DevicesAndSocketsAreSkipped) {
  Sandbox box;
  LayerBuilder layer;
  layer.char_device("dev/null", 1, 3).block_device("dev/sda", 8, 0).char_device("zero", 0, 0);
  auto stats = box.unpack(layer.tar());
  ASSERT_TRUE(stats.ok()) << stats.error().message;
  EXPECT_EQ(stats->devices_skipped, 3u);
  EXPECT_FALSE(present(box.path("dev/null")));
  EXPECT_FALSE(present(box.path("dev/sda")));
  EXPECT_FALSE(present(box.path("zero")));
}

TEST(LayerUnpacker, SetuidAndSetgidBitsAreDropped) {
  Sandbox box;
  LayerBuilder layer;
  layer.file("su", "x", 04755).file("sg", "x", 02755).file("both", "x", 06711);
  layer.dir("sgdir", 02775).dir("sticky", 01777);
  auto stats = box.unpack(layer.tar());
  ASSERT_TRUE(stats.ok()) << stats.error().message;
  EXPECT_EQ(mode_of(box.path("su")), 0755u);
  EXPECT_EQ(mode_of(box.path("sg")), 0755u);
  EXPECT_EQ(mode_of(box.path("both")), 0711u);
  EXPECT_EQ(mode_of(box.path("sgdir")), 0775u);
  EXPECT_EQ(mode_of(box.path("sticky")), 01777u);
  EXPECT_EQ(stats->setid_bits_dropped, 5u);
}

// The image's owners are kept where the unpacking user may chown (root), and recorded in an
// xattr otherwise (the suite runs as both). Root-owned entries are the unpacking user's.
TEST(LayerUnpacker, OwnersAreKeptAsRootAndRecordedOtherwise) {
  Sandbox box;
  LayerBuilder layer;
  layer.file("mine", "x").file("theirs", "x").owned_by(1000, 1000).dir("d").owned_by(0, 50);
  layer.symlink("link", "theirs").owned_by(7, 7);
  auto stats = box.unpack(layer.tar());
  ASSERT_TRUE(stats.ok()) << stats.error().message;
  EXPECT_EQ(lstat_of(box.path("mine")).st_uid, geteuid());
  auto recorded = [&](const std::string& name) {
    char value[64] = {};
    ssize_t length = lgetxattr(box.path(name).c_str(), kOwnerXattr, value, sizeof value - 1);
    return length < 0 ? std::string("none") : std::string(value, static_cast<std::size_t>(length));
  };
  if (geteuid() == 0) {
    EXPECT_EQ(stats->owners_kept, 3u);
    EXPECT_EQ(lstat_of(box.path("theirs")).st_uid, 1000u);
    EXPECT_EQ(lstat_of(box.path("d")).st_gid, 50u);
    EXPECT_EQ(lstat_of(box.path("link")).st_uid, 7u);
  } else {
    EXPECT_EQ(stats->owners_recorded, 2u);
    EXPECT_EQ(recorded("theirs"), "1000:1000");
    EXPECT_EQ(recorded("d"), "0:50");
    EXPECT_EQ(stats->foreign_owners, 1u);  // no user xattrs on a symlink
    EXPECT_EQ(lstat_of(box.path("theirs")).st_uid, geteuid());
  }
}

TEST(LayerUnpacker, NonAsciiNamesSurvive) {
  Sandbox box;
  auto stats = box.unpack(LayerBuilder().file("caf\xc3\xa9/\xe6\x97\xa5", "x").tar());
  ASSERT_TRUE(stats.ok()) << stats.error().message;
  EXPECT_EQ(read_file(box.path("caf\xc3\xa9/\xe6\x97\xa5")), "x");
}

TEST(LayerUnpacker, NamesLongerThanPathMaxAreRefused) {
  Sandbox box;
  std::string name;
  while (name.size() < PATH_MAX) name += "abcdefgh/";
  name += "file";
  auto stats = box.unpack(LayerBuilder().file(name, "x").tar());
  ASSERT_FALSE(stats.ok());
  EXPECT_NE(stats.error().message.find("PATH_MAX"), std::string::npos) << stats.error().message;
}

TEST(LayerUnpacker, DecompressionBombIsRefusedBeforeItIsWritten) {
  Sandbox box;
  // 64 MiB of zeros, about 64 KiB gzip-compressed: refused at its header.
  std::string bomb = testing::zero_file_layer("bomb", 64ull << 20, Compression::kGzip);
  EXPECT_LT(bomb.size(), 1u << 20);
  UnpackLimits limits;
  limits.max_bytes = 1 << 20;
  auto stats = box.unpack(bomb, limits);
  ASSERT_FALSE(stats.ok());
  EXPECT_NE(stats.error().message.find("layer exceeds 1048576 bytes (decompression bomb?)"),
            std::string::npos)
      << stats.error().message;
  EXPECT_FALSE(present(box.path("bomb")));
}

TEST(LayerUnpacker, ContentLimitCountsAllFilesTogether) {
  UnpackLimits limits;
  limits.max_bytes = 1000;
  {
    Sandbox box;
    auto stats = box.unpack(
        LayerBuilder().file("a", std::string(600, 'a')).file("b", std::string(400, 'b')).tar(),
        limits);
    ASSERT_TRUE(stats.ok()) << stats.error().message;
    EXPECT_EQ(stats->bytes, 1000u);
  }
  Sandbox box;
  auto stats = box.unpack(
      LayerBuilder().file("a", std::string(600, 'a')).file("b", std::string(401, 'b')).tar(),
      limits);
  ASSERT_FALSE(stats.ok());
  EXPECT_NE(stats.error().message.find("layer exceeds 1000 bytes"), std::string::npos)
      << stats.error().message;
}

TEST(LayerUnpacker, BombInThePaddingIsRefused) {
  Sandbox box;
  // A valid tar followed by 100 MiB of zeros: no file content, but the stream is capped too
  // (at twice the content limit plus 64 MiB).
  std::string blob =
      testing::compress(LayerBuilder().file("a", "a").tar(), Compression::kZstd, 100ull << 20);
  UnpackLimits limits;
  limits.max_bytes = 1024;
  auto stats = box.unpack(blob, limits);
  ASSERT_FALSE(stats.ok());
  EXPECT_NE(stats.error().message.find("decompression bomb"), std::string::npos)
      << stats.error().message;
}

TEST(LayerUnpacker, TooManyEntriesAreRefused) {
  LayerBuilder layer;
  for (int i = 0; i < 11; ++i) layer.file("f" + std::to_string(i), "");
  UnpackLimits limits;
  limits.max_entries = 10;
  Sandbox box;
  auto stats = box.unpack(layer.tar(), limits);
  ASSERT_FALSE(stats.ok());
  EXPECT_NE(stats.error().message.find("more than 10 entries"), std::string::npos)
      << stats.error().message;
  limits.max_entries = 11;
  Sandbox other;
  EXPECT_TRUE(other.unpack(layer.tar(), limits).ok());
}

TEST(LayerUnpacker, EmptyGarbageAndTruncatedBlobsAreRefused) {
  std::string garbage;
  for (int i = 0; i < 4096; ++i) garbage += static_cast<char>((i * 7919 + 13) % 251);
  std::string gzip = sample_tree().layer(Compression::kGzip);
  std::string zstd = sample_tree().layer(Compression::kZstd);
  std::string tar = sample_tree().tar();
  const std::vector<std::pair<const char*, std::string>> blobs = {
      {"empty", ""},
      {"garbage", garbage},
      {"gzip of garbage", testing::compress(garbage, Compression::kGzip)},
      {"zstd of garbage", testing::compress(garbage, Compression::kZstd)},
      {"truncated gzip", gzip.substr(0, gzip.size() / 2)},
      {"truncated zstd", zstd.substr(0, zstd.size() / 2)},
      {"truncated tar", tar.substr(0, 700)},
      {"corrupt gzip", gzip.substr(0, 20) + garbage},
  };
  for (const auto& [what, blob] : blobs) {
    SCOPED_TRACE(what);
    Sandbox box;
    auto stats = box.unpack(blob);
    EXPECT_FALSE(stats.ok());
    box.expect_contained();
  }
}

TEST(LayerUnpacker, AnEmptyTarIsAnEmptyLayer) {
  Sandbox box;
  const std::string tar = LayerBuilder().tar();
  auto stats = box.unpack(tar);
  ASSERT_TRUE(stats.ok()) << stats.error().message;
  EXPECT_EQ(stats->entries, 0u);
  EXPECT_EQ(stats->diff_id, testing::sha256_digest(tar));
  EXPECT_TRUE(fs::is_empty(box.root()));
}

}  // namespace
}  // namespace paddock::rootfs::layer_unpacker_test
