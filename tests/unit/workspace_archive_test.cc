#include "state/workspace_archive.h"

#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "support/file_checks.h"
#include "support/layer_builder.h"

namespace paddock::state::workspace_archive_test {
namespace {

namespace fs = std::filesystem;
using testing::Compression;
using testing::LayerBuilder;

// A temporary parent directory that holds one directory, "target", and nothing else: a test can
// tell whether anything was written beside the target.
class Parent {
 public:
  Parent() {
    std::string pattern = (fs::temp_directory_path() / "paddock-archive-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    dir_ = pattern;
    fs::create_directory(target());
    target_fd_.reset(open(target().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  }
  ~Parent() {
    target_fd_.reset();
    // Imported directories may be read-only or closed: open them up again to remove them.
    std::error_code error;
    fs::permissions(dir_, fs::perms::owner_all, fs::perm_options::add, error);
    for (auto it = fs::recursive_directory_iterator(dir_, error);
         !error && it != fs::recursive_directory_iterator(); it.increment(error)) {
      if (it->is_directory(error) && !it->is_symlink(error)) {
        fs::permissions(it->path(), fs::perms::owner_all, fs::perm_options::add, error);
      }
    }
    fs::remove_all(dir_, error);
  }
  Parent(const Parent&) = delete;
  Parent& operator=(const Parent&) = delete;

  [[nodiscard]] const fs::path& dir() const { return dir_; }
  [[nodiscard]] fs::path target() const { return dir_ / "target"; }
  [[nodiscard]] fs::path path(const std::string& inside) const { return target() / inside; }
  [[nodiscard]] int target_fd() const { return target_fd_.get(); }

  core::Result<ArchiveStats> import(const std::string& archive, const ArchiveLimits& limits = {}) {
    core::UniqueFd fd = testing::blob_fd(archive);
    return import_tree(fd.get(), target_fd_.get(), limits);
  }

  // The parent holds the target and nothing else.
  void expect_only_target() const {
    std::set<std::string> names;
    for (const auto& entry : fs::directory_iterator(dir_)) {
      names.insert(entry.path().filename().string());
    }
    EXPECT_EQ(names, (std::set<std::string>{"target"}));
  }

  // Every name in the target, relative to it, directories with a trailing '/'.
  [[nodiscard]] std::set<std::string> listing() const {
    std::set<std::string> out;
    for (const auto& entry : fs::recursive_directory_iterator(target())) {
      std::string name = entry.path().lexically_relative(target()).string();
      if (entry.is_directory() && !entry.is_symlink()) name += '/';
      out.insert(name);
    }
    return out;
  }

 private:
  fs::path dir_;
  core::UniqueFd target_fd_;
};

using testing::lstat_of;
using testing::present;
using testing::read_file;

void write_file(const fs::path& path, const std::string& content, mode_t mode = 0644) {
  std::ofstream(path, std::ios::binary) << content;
  ASSERT_EQ(chmod(path.c_str(), mode), 0);
}

mode_t mode_of(const fs::path& path) {
  return lstat_of(path).st_mode & 07777;
}

std::string fd_contents(int fd) {
  std::string out;
  char buffer[65536];
  for (off_t offset = 0;;) {
    ssize_t n = pread(fd, buffer, sizeof buffer, offset);
    if (n <= 0) break;
    out.append(buffer, static_cast<std::size_t>(n));
    offset += n;
  }
  return out;
}

// What a written archive holds, entry by entry, read back with libarchive.
struct ArchivedEntry {
  mode_t type = 0;
  mode_t perm = 0;
  la_int64_t uid = -1, gid = -1, size = -1;
  std::string hardlink, symlink;
};

std::map<std::string, ArchivedEntry> archived(const std::string& data) {
  std::map<std::string, ArchivedEntry> out;
  std::unique_ptr<archive, decltype(&archive_read_free)> reader(archive_read_new(),
                                                                archive_read_free);
  archive_read_support_filter_zstd(reader.get());
  archive_read_support_format_tar(reader.get());
  if (archive_read_open_memory(reader.get(), data.data(), data.size()) != ARCHIVE_OK) {
    ADD_FAILURE() << archive_error_string(reader.get());
    return out;
  }
  archive_entry* entry = nullptr;
  while (archive_read_next_header(reader.get(), &entry) == ARCHIVE_OK) {
    ArchivedEntry e;
    e.type = archive_entry_filetype(entry);
    e.perm = archive_entry_perm(entry);
    e.uid = archive_entry_uid(entry);
    e.gid = archive_entry_gid(entry);
    e.size = archive_entry_size(entry);
    if (const char* link = archive_entry_hardlink(entry)) e.hardlink = link;
    if (const char* link = archive_entry_symlink(entry)) e.symlink = link;
    out[archive_entry_pathname(entry)] = e;
  }
  EXPECT_EQ(archive_format(reader.get()) & ARCHIVE_FORMAT_BASE_MASK, ARCHIVE_FORMAT_TAR);
  return out;
}

// Exports the directory at `tree` and returns the archive.
std::string export_of(const fs::path& tree, ArchiveStats* stats = nullptr) {
  core::UniqueFd tree_fd(open(tree.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  core::UniqueFd out(memfd_create("archive", MFD_CLOEXEC));
  auto exported = export_tree(tree_fd.get(), out.get());
  EXPECT_TRUE(exported.ok()) << exported.error().message;
  if (exported.ok() && stats != nullptr) *stats = *exported;
  return fd_contents(out.get());
}

constexpr timespec kMtime{1'600'000'000, 123'456'789};

void set_mtime(const fs::path& path) {
  timespec times[2] = {kMtime, kMtime};
  ASSERT_EQ(utimensat(AT_FDCWD, path.c_str(), times, AT_SYMLINK_NOFOLLOW), 0) << path;
}

constexpr off_t kSparseSize = 64 << 20;

// A workspace with every kind of entry an archive keeps, and a FIFO it does not.
void make_workspace(const fs::path& root) {
  fs::create_directories(root / "src/pkg");
  fs::create_directory(root / "empty");
  fs::create_directory(root / "closed");
  write_file(root / "src/main.py", "print('hi')\n");
  write_file(root / "src/run.sh", "#!/bin/sh\necho run\n", 0755);
  write_file(root / "src/pkg/readonly.txt", "ro\n", 0444);
  write_file(root / "closed/secret", "s", 0600);
  write_file(root / "caf\xc3\xa9.txt", "utf-8 name");
  write_file(root / ".wh.not-a-whiteout", "plain");
  // Links are data: kept as they are, whatever they point at.
  fs::create_symlink("/etc/passwd", root / "passwd-link");
  fs::create_symlink("../../outside", root / "src/up-link");
  fs::create_symlink("main.py", root / "src/relative-link");
  fs::create_symlink("nowhere", root / "dangling");
  // One inode under two names.
  write_file(root / "src/shared.bin", "shared content");
  fs::create_hard_link(root / "src/shared.bin", root / "src/pkg/shared-again.bin");
  // Empty, and all hole.
  write_file(root / "empty.txt", "");
  {
    core::UniqueFd holes(open((root / "holes.img").c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
    ASSERT_TRUE(holes.valid());
    ASSERT_EQ(ftruncate(holes.get(), kSparseSize), 0);
  }
  // 64 MiB of which 4 KiB is data.
  {
    core::UniqueFd sparse(
        open((root / "sparse.img").c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
    ASSERT_TRUE(sparse.valid());
    ASSERT_EQ(ftruncate(sparse.get(), kSparseSize), 0);
    std::string block(4096, 'd');
    ASSERT_EQ(pwrite(sparse.get(), block.data(), block.size(), 32 << 20),
              static_cast<ssize_t>(block.size()));
  }
  ASSERT_EQ(mkfifo((root / "pipe").c_str(), 0644), 0);
  ASSERT_EQ(chmod((root / "closed").c_str(), 0700), 0);
  for (const char* name : {"src/main.py", "src/up-link", "src/pkg", "src/pkg/shared-again.bin",
                           "empty", "sparse.img", "passwd-link", "closed", "src"}) {
    set_mtime(root / name);
  }
}

TEST(WorkspaceArchive, ExportWritesAZstdPaxTarOfWhatAWorkspaceHolds) {
  Parent source;
  make_workspace(source.target());
  ArchiveStats stats;
  std::string data = export_of(source.target(), &stats);
  ASSERT_GE(data.size(), 4u);
  EXPECT_EQ(data.substr(0, 4), std::string("\x28\xb5\x2f\xfd", 4)) << "not zstd";

  auto entries = archived(data);
  std::set<std::string> names;
  for (const auto& [name, entry] : entries) {
    names.insert(name);
    EXPECT_EQ(entry.uid, 1000) << name;
    EXPECT_EQ(entry.gid, 1000) << name;
  }
  EXPECT_EQ(names,
            (std::set<std::string>{
                ".wh.not-a-whiteout", "caf\xc3\xa9.txt", "closed/", "closed/secret", "dangling",
                "empty.txt", "empty/", "holes.img", "passwd-link", "sparse.img", "src/",
                "src/main.py", "src/pkg/", "src/pkg/readonly.txt", "src/pkg/shared-again.bin",
                "src/relative-link", "src/run.sh", "src/shared.bin", "src/up-link"}));
  // The FIFO is counted, not written; the second name of the shared inode is a hard link, and
  // its content is counted once.
  EXPECT_EQ(stats.skipped, 1u);
  EXPECT_EQ(stats.files, 11u);
  EXPECT_EQ(stats.bytes, 64u + 2 * kSparseSize);
  EXPECT_EQ(stats.directories, 4u);
  EXPECT_EQ(stats.symlinks, 4u);
  // A directory's files come before its subdirectories, so "src/shared.bin" carries the content.
  EXPECT_EQ(entries["src/shared.bin"].size, 14);
  EXPECT_EQ(entries["src/pkg/shared-again.bin"].hardlink, "src/shared.bin");
  EXPECT_EQ(entries["src/pkg/shared-again.bin"].size, 0);
  EXPECT_EQ(entries["passwd-link"].symlink, "/etc/passwd");
  EXPECT_EQ(entries["src/up-link"].symlink, "../../outside");
  EXPECT_EQ(entries["src/run.sh"].perm, 0755u);
  EXPECT_EQ(entries["closed/"].perm, 0700u);
  EXPECT_EQ(entries["sparse.img"].size, kSparseSize);
  // The sparse file's holes are not in the archive (zstd would shrink zeros too, so this is
  // about the tar: see the uncompressed size below).
  std::unique_ptr<archive, decltype(&archive_read_free)> raw(archive_read_new(), archive_read_free);
  archive_read_support_filter_zstd(raw.get());
  archive_read_support_format_raw(raw.get());
  ASSERT_EQ(archive_read_open_memory(raw.get(), data.data(), data.size()), ARCHIVE_OK);
  archive_entry* whole = nullptr;
  ASSERT_EQ(archive_read_next_header(raw.get(), &whole), ARCHIVE_OK);
  std::uint64_t uncompressed = 0;
  char buffer[65536];
  for (la_ssize_t n; (n = archive_read_data(raw.get(), buffer, sizeof buffer)) > 0;) {
    uncompressed += static_cast<std::uint64_t>(n);
  }
  EXPECT_LT(uncompressed, 1u << 20) << "the sparse file was written dense";
}

TEST(WorkspaceArchive, RoundTripKeepsFilesDirectoriesLinksTheExecutableBitAndTimes) {
  Parent source;
  make_workspace(source.target());
  std::string data = export_of(source.target());

  Parent copy;
  auto stats = copy.import(data);
  ASSERT_TRUE(stats.ok()) << stats.error().message;
  copy.expect_only_target();
  EXPECT_EQ(stats->files, 11u);
  EXPECT_EQ(stats->bytes, 64u + 2 * kSparseSize);
  EXPECT_EQ(stats->directories, 4u);
  EXPECT_EQ(stats->symlinks, 4u);
  EXPECT_EQ(stats->skipped, 0u);

  // The same names, except the FIFO, which no archive carries.
  std::set<std::string> expected = source.listing();
  expected.erase("pipe");
  EXPECT_EQ(copy.listing(), expected);
  for (const auto& name : expected) {
    SCOPED_TRACE(name);
    fs::path from = source.path(name), to = copy.path(name);
    struct stat a = lstat_of(from), b = lstat_of(to);
    EXPECT_EQ(a.st_mode & S_IFMT, b.st_mode & S_IFMT);
    // The permission bits as the state directory keeps everything (import_tree): private, with
    // the owner's executable bit.
    if (S_ISDIR(a.st_mode)) {
      EXPECT_EQ(b.st_mode & 07777, 0700u);
    }
    if (S_ISREG(a.st_mode)) {
      EXPECT_EQ(b.st_mode & 07777, (a.st_mode & S_IXUSR) != 0 ? 0700u : 0600u);
    }
    EXPECT_EQ(b.st_uid, geteuid());
    if (S_ISREG(a.st_mode)) {
      EXPECT_EQ(a.st_size, b.st_size);
      if (a.st_size < (1 << 20)) {
        EXPECT_EQ(read_file(from), read_file(to));
      }
    }
    if (S_ISLNK(a.st_mode)) {
      EXPECT_EQ(fs::read_symlink(from), fs::read_symlink(to));
    }
    EXPECT_EQ(a.st_mtim.tv_sec, b.st_mtim.tv_sec);
    EXPECT_EQ(a.st_mtim.tv_nsec, b.st_mtim.tv_nsec);
  }
  EXPECT_EQ(lstat_of(copy.path("src/main.py")).st_mtim.tv_nsec, kMtime.tv_nsec);
  EXPECT_EQ(mode_of(copy.path("src/run.sh")), 0700u);
  EXPECT_EQ(mode_of(copy.path("src/pkg/readonly.txt")), 0600u);
  EXPECT_EQ(mode_of(copy.path("closed")), 0700u);
  EXPECT_EQ(fs::read_symlink(copy.path("passwd-link")), "/etc/passwd");
  EXPECT_EQ(read_file(copy.path(".wh.not-a-whiteout")), "plain");
  struct stat shared = lstat_of(copy.path("src/shared.bin"));
  EXPECT_EQ(shared.st_ino, lstat_of(copy.path("src/pkg/shared-again.bin")).st_ino);
  EXPECT_EQ(shared.st_nlink, 2u);
  // Still sparse: a few blocks of data, not 64 MiB.
  struct stat sparse = lstat_of(copy.path("sparse.img"));
  EXPECT_EQ(sparse.st_size, kSparseSize);
  EXPECT_LT(sparse.st_blocks * 512, 1 << 20);
  struct stat holes = lstat_of(copy.path("holes.img"));
  EXPECT_EQ(holes.st_size, kSparseSize);
  EXPECT_EQ(holes.st_blocks, 0);
  std::string middle(4096, '\0');
  core::UniqueFd fd(open(copy.path("sparse.img").c_str(), O_RDONLY | O_CLOEXEC));
  ASSERT_EQ(pread(fd.get(), middle.data(), middle.size(), 32 << 20), 4096);
  EXPECT_EQ(middle, std::string(4096, 'd'));

  // Nothing else is lost or added on the way: the copy's archive (its modes the private ones)
  // comes back the same from a copy of it.
  std::string again = export_of(copy.target());
  Parent second;
  auto restats = second.import(again);
  ASSERT_TRUE(restats.ok()) << restats.error().message;
  EXPECT_EQ(export_of(second.target()), again);
}

// The tree's own symlinks are entries, never ways out: a link to a directory outside is written
// as a link, and nothing under it.
TEST(WorkspaceArchive, ExportNeverFollowsASymlink) {
  Parent outside;
  write_file(outside.path("secret"), "host secret");
  Parent source;
  fs::create_symlink(outside.target(), source.path("to-outside"));
  fs::create_symlink(outside.path("secret"), source.path("to-secret"));
  fs::create_symlink("/", source.path("to-root"));
  ArchiveStats stats;
  std::string data = export_of(source.target(), &stats);
  auto entries = archived(data);
  std::set<std::string> names;
  for (const auto& [name, entry] : entries) {
    names.insert(name);
    EXPECT_EQ(entry.type, AE_IFLNK) << name;
  }
  EXPECT_EQ(names, (std::set<std::string>{"to-outside", "to-root", "to-secret"}));
  EXPECT_EQ(data.find("host secret"), std::string::npos);
  EXPECT_EQ(stats.files, 0u);
  EXPECT_EQ(stats.bytes, 0u);
}

// A session can make its tree as deep as names allow. The walk must not hold a descriptor per
// level: the server's descriptors are shared by every session.
TEST(WorkspaceArchive, ADeepTreeNeedsFewDescriptors) {
  Parent source;
  fs::path deep = source.target();
  for (int i = 0; i < 300; ++i) deep /= "d";
  fs::create_directories(deep);
  write_file(deep / "bottom", "b");

  rlimit before{};
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &before), 0);
  rlimit few = before;
  few.rlim_cur = 64;
  ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &few), 0);
  std::string data;
  {
    core::UniqueFd tree_fd(open(source.target().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    core::UniqueFd out(memfd_create("archive", MFD_CLOEXEC));
    auto exported = export_tree(tree_fd.get(), out.get());
    ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &before), 0);
    ASSERT_TRUE(exported.ok()) << exported.error().message;
    EXPECT_EQ(exported->directories, 300u);
    data = fd_contents(out.get());
  }
  Parent copy;
  auto imported = copy.import(data);
  ASSERT_TRUE(imported.ok()) << imported.error().message;
  fs::path bottom = copy.target();
  for (int i = 0; i < 300; ++i) bottom /= "d";
  EXPECT_EQ(read_file(bottom / "bottom"), "b");
}

TEST(WorkspaceArchive, ExportSkipsFifosAndSockets) {
  Parent source;
  ASSERT_EQ(mkfifo(source.path("fifo").c_str(), 0600), 0);
  core::UniqueFd sock(socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::string socket_path = source.path("socket").string();
  ASSERT_LT(socket_path.size(), sizeof address.sun_path);
  socket_path.copy(address.sun_path, socket_path.size());
  ASSERT_EQ(bind(sock.get(), reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  write_file(source.path("kept"), "k");
  ArchiveStats stats;
  auto entries = archived(export_of(source.target(), &stats));
  EXPECT_EQ(entries.size(), 1u);
  EXPECT_TRUE(entries.contains("kept"));
  EXPECT_EQ(stats.skipped, 2u);
}

TEST(WorkspaceArchive, ExportSaysWhyWritingFailed) {
  Parent source;
  write_file(source.path("f"), "x");
  core::UniqueFd tree_fd(open(source.target().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  core::UniqueFd read_only(open("/dev/null", O_RDONLY | O_CLOEXEC));
  auto exported = export_tree(tree_fd.get(), read_only.get());
  ASSERT_FALSE(exported.ok());
  EXPECT_NE(exported.error().message.find("writing the archive"), std::string::npos)
      << exported.error().message;
}

// A session may chmod its files as it likes, even so that their owner cannot read them. Root
// reads them anyway and keeps the modes; anyone else gets an error that names the file and the fix.
TEST(WorkspaceArchive, FilesTheirOwnerCannotReadAreKeptByRootAndNamedOtherwise) {
  struct Case {
    const char* what;
    const char* name;
    bool directory;
    mode_t mode;
    const char* fix;
  };
  for (const Case& c : {Case{"file 0000", "locked", false, 0000, "u+r"},
                        Case{"file 0200", "write-only", false, 0200, "u+r"},
                        Case{"directory 0000", "closed", true, 0000, "u+rx"},
                        Case{"directory 0600", "unsearchable", true, 0600, "u+rx"}}) {
    SCOPED_TRACE(c.what);
    Parent source;
    if (c.directory) {
      fs::create_directory(source.path(c.name));
      write_file(source.path(std::string(c.name) + "/inside"), "in");
    } else {
      write_file(source.path(c.name), "content");
    }
    ASSERT_EQ(chmod(source.path(c.name).c_str(), c.mode), 0);
    core::UniqueFd tree_fd(open(source.target().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    core::UniqueFd out(memfd_create("archive", MFD_CLOEXEC));
    auto exported = export_tree(tree_fd.get(), out.get());
    if (geteuid() == 0) {
      ASSERT_TRUE(exported.ok()) << exported.error().message;
      auto entries = archived(fd_contents(out.get()));
      std::string entry = std::string(c.name) + (c.directory ? "/" : "");
      ASSERT_TRUE(entries.contains(entry));
      EXPECT_EQ(entries[entry].perm, c.mode);
      EXPECT_EQ(entries.size(), c.directory ? 2u : 1u);
    } else {
      ASSERT_FALSE(exported.ok());
      char mode[8];
      std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(c.mode));
      EXPECT_EQ(exported.error().message,
                std::string("exporting: '") + c.name + "': its mode " + mode +
                    " keeps out even its owner, so it cannot be read: give it " + c.fix +
                    " and export again");
      EXPECT_EQ(exported.error().code, EACCES);
    }
  }
}

// A path, the name a test gives it, unlikely to exist by chance.
std::string escape_name() {
  return "paddock-archive-escape-" + std::to_string(getpid());
}

// Each hostile archive is refused, or lands inside the target; nothing outside changes.
TEST(WorkspaceArchive, HostileArchivesStayInsideTheTarget) {
  const std::string escape = escape_name();
  struct Case {
    const char* what;
    LayerBuilder archive;
    std::set<std::string> holds;  // what the target holds after it; refused: empty
    bool refused = false;
  };
  std::vector<Case> cases;
  cases.push_back({"absolute name", LayerBuilder().file("/" + escape, "x"), {escape}});
  cases.push_back({"absolute name in /etc",
                   LayerBuilder().file("/etc/" + escape, "x"),
                   {"etc/", "etc/" + escape}});
  cases.push_back({"parent", LayerBuilder().file("../" + escape, "x"), {}, true});
  cases.push_back({"climb", LayerBuilder().file("a/../../" + escape, "x"), {}, true});
  cases.push_back({"symlink to / then a file through it",
                   LayerBuilder().symlink("root", "/").file("root/etc/" + escape, "x"),
                   {"root", "etc/", "etc/" + escape}});
  cases.push_back({"symlink up then a file through it",
                   LayerBuilder().symlink("up", "../..").file("up/" + escape, "x"),
                   {"up", escape}});
  cases.push_back(
      {"hard link to /etc/passwd", LayerBuilder().hardlink("passwd", "/etc/passwd"), {}, true});
  cases.push_back(
      {"hard link to ../outside", LayerBuilder().hardlink("outside", "../" + escape), {}, true});
  cases.push_back({"hard link through a symlink to /etc",
                   LayerBuilder().symlink("etc", "/etc").hardlink("passwd", "etc/passwd"),
                   {},
                   true});
  cases.push_back({"chained symlinks then a file through them",
                   LayerBuilder().symlink("a", "b").symlink("b", "/..").file("a/" + escape, "x"),
                   {"a", "b", escape}});
  cases.push_back(
      {"hard link to a directory", LayerBuilder().dir("d").hardlink("h", "d"), {}, true});
  cases.push_back({"a good entry, then a bad one",
                   LayerBuilder().file("good", "g").file("../" + escape, "x"),
                   {},
                   true});
  cases.push_back({"character device", LayerBuilder().char_device("null", 1, 3), {}});
  cases.push_back({"block device", LayerBuilder().block_device("sda", 8, 0), {}});
  cases.push_back({"whiteout device", LayerBuilder().char_device("wh", 0, 0), {}});
  cases.push_back({"FIFO", LayerBuilder().fifo("pipe"), {}});

  struct stat passwd {};
  ASSERT_EQ(stat("/etc/passwd", &passwd), 0);
  const std::string passwd_before = read_file("/etc/passwd");
  for (auto& c : cases) {
    for (Compression compression : {Compression::kZstd, Compression::kGzip, Compression::kNone}) {
      SCOPED_TRACE(std::string(c.what) + " compression " +
                   std::to_string(static_cast<int>(compression)));
      Parent parent;
      auto stats = parent.import(c.archive.layer(compression));
      if (c.refused) {
        ASSERT_FALSE(stats.ok());
        // Refused by the unpacker's checks, naming the entry, not by accident.
        EXPECT_TRUE(stats.error().message.starts_with("importing: archive entry '"))
            << stats.error().message;
      } else {
        EXPECT_TRUE(stats.ok()) << stats.error().message;
      }
      EXPECT_EQ(parent.listing(), c.holds);
      parent.expect_only_target();
      EXPECT_FALSE(present(parent.dir() / ".." / escape));
      EXPECT_FALSE(present("/" + escape));
      EXPECT_FALSE(present("/etc/" + escape));
      struct stat now {};
      ASSERT_EQ(stat("/etc/passwd", &now), 0);
      EXPECT_EQ(now.st_ino, passwd.st_ino);
      EXPECT_EQ(now.st_nlink, passwd.st_nlink);
    }
  }
  EXPECT_EQ(read_file("/etc/passwd"), passwd_before);
}

// The target is the caller's: an entry for "." changes neither its mode nor its time.
TEST(WorkspaceArchive, TheTargetItselfIsLeftAsItIs) {
  Parent parent;
  struct stat before = lstat_of(parent.target());
  LayerBuilder archive;
  archive.dir(".", 0000).dir("./", 07777).file("f", "x");
  auto stats = parent.import(archive.layer(Compression::kZstd));
  ASSERT_TRUE(stats.ok()) << stats.error().message;
  struct stat after = lstat_of(parent.target());
  EXPECT_EQ(after.st_mode, before.st_mode);
  EXPECT_EQ(read_file(parent.path("f")), "x");
  parent.expect_only_target();
}

TEST(WorkspaceArchive, RefusalsNameTheEntryAndWhy) {
  Parent parent;
  auto stats = parent.import(LayerBuilder().file("a/../../x", "x").layer(Compression::kZstd));
  ASSERT_FALSE(stats.ok());
  EXPECT_EQ(stats.error().message,
            "importing: archive entry 'a/../../x': name climbs above the root with '..'");
  EXPECT_EQ(stats.error().code, EINVAL);
  parent.expect_only_target();
}

TEST(WorkspaceArchive, DevicesFifosAndSocketsAreSkippedAndCounted) {
  Parent parent;
  LayerBuilder archive;
  archive.char_device("dev/null", 1, 3).block_device("sda", 8, 0).fifo("pipe").file("kept", "k");
  auto stats = parent.import(archive.layer(Compression::kZstd));
  ASSERT_TRUE(stats.ok()) << stats.error().message;
  EXPECT_EQ(stats->skipped, 3u);
  EXPECT_EQ(stats->files, 1u);
  EXPECT_EQ(parent.listing(), (std::set<std::string>{"kept"}));
  parent.expect_only_target();
}

TEST(WorkspaceArchive, SetuidSetgidAndStickyBitsAreDropped) {
  Parent parent;
  LayerBuilder archive;
  archive.file("su", "x", 04755).file("sg", "x", 02755).file("both", "x", 06711);
  archive.dir("sgdir", 02775).dir("sticky", 01777);
  auto stats = parent.import(archive.layer(Compression::kZstd));
  ASSERT_TRUE(stats.ok()) << stats.error().message;
  EXPECT_EQ(mode_of(parent.path("su")), 0700u);
  EXPECT_EQ(mode_of(parent.path("sg")), 0700u);
  EXPECT_EQ(mode_of(parent.path("both")), 0700u);
  EXPECT_EQ(mode_of(parent.path("sgdir")), 0700u);
  EXPECT_EQ(mode_of(parent.path("sticky")), 0700u);
  EXPECT_EQ(stats->skipped, 0u);
  parent.expect_only_target();
}

// The archive lands in the state directory, which its server must be able to read and empty
// whoever it runs as: a folder the archive makes read-only (0500) or closed (0000), or a file it
// makes unreadable, is private to the importing user instead, and its content is all there.
TEST(WorkspaceArchive, ModesThatWouldLockTheOwnerOutAreNotApplied) {
  Parent parent;
  LayerBuilder archive;
  archive.dir("readonly", 0500).file("readonly/data", std::string(1 << 20, 'r'), 0400);
  archive.dir("closed", 0000).file("closed/secret", "s", 0000);
  archive.dir("closed/inner", 0300).file("closed/inner/tool", "#!/bin/sh\n", 0111);
  auto stats = parent.import(archive.layer(Compression::kZstd));
  ASSERT_TRUE(stats.ok()) << stats.error().message;
  EXPECT_EQ(mode_of(parent.path("readonly")), 0700u);
  EXPECT_EQ(mode_of(parent.path("closed")), 0700u);
  EXPECT_EQ(mode_of(parent.path("closed/inner")), 0700u);
  EXPECT_EQ(mode_of(parent.path("readonly/data")), 0600u);
  EXPECT_EQ(mode_of(parent.path("closed/secret")), 0600u);
  EXPECT_EQ(mode_of(parent.path("closed/inner/tool")), 0700u);
  EXPECT_EQ(read_file(parent.path("closed/secret")), "s");
  EXPECT_EQ(read_file(parent.path("readonly/data")).size(), 1u << 20);
  // And its owner can take it all away again, without first changing a mode.
  std::error_code error;
  fs::remove_all(parent.path("readonly"), error);
  EXPECT_FALSE(error) << error.message();
  fs::remove_all(parent.path("closed"), error);
  EXPECT_FALSE(error) << error.message();
}

// The archive's owners mean nothing here: the files are the importing user's, with no record.
TEST(WorkspaceArchive, OwnersAreIgnored) {
  Parent parent;
  LayerBuilder archive;
  archive.file("root-owned", "x").file("theirs", "x").owned_by(1234, 5678);
  archive.dir("d").owned_by(0, 50).symlink("link", "theirs").owned_by(7, 7);
  auto stats = parent.import(archive.layer(Compression::kZstd));
  ASSERT_TRUE(stats.ok()) << stats.error().message;
  for (const char* name : {"root-owned", "theirs", "d", "link"}) {
    SCOPED_TRACE(name);
    struct stat st = lstat_of(parent.path(name));
    EXPECT_EQ(st.st_uid, geteuid());
    EXPECT_EQ(st.st_gid, getegid());
    char value[64];
    EXPECT_LT(lgetxattr(parent.path(name).c_str(), "user.paddock.owner", value, sizeof value), 0);
  }
  parent.expect_only_target();
}

// ".wh.*" names are plain files in a workspace: no whiteout device, no opaque directory.
TEST(WorkspaceArchive, WhiteoutNamesArePlainFiles) {
  Parent parent;
  LayerBuilder archive;
  archive.file("gone", "still here").file(".wh.gone", "w1").dir("d").file("d/.wh..wh..opq", "w2");
  auto stats = parent.import(archive.layer(Compression::kZstd));
  ASSERT_TRUE(stats.ok()) << stats.error().message;
  EXPECT_EQ(read_file(parent.path("gone")), "still here");
  EXPECT_EQ(read_file(parent.path(".wh.gone")), "w1");
  EXPECT_EQ(read_file(parent.path("d/.wh..wh..opq")), "w2");
  char value[8];
  EXPECT_LT(getxattr(parent.path("d").c_str(), "user.overlay.opaque", value, sizeof value), 0);
  EXPECT_EQ(stats->files, 3u);
  parent.expect_only_target();
}

TEST(WorkspaceArchive, TooManyEntriesAreRefusedNamingTheLimit) {
  LayerBuilder archive;
  for (int i = 0; i < 11; ++i) archive.file("f" + std::to_string(i), "");
  ArchiveLimits limits;
  limits.max_entries = 10;
  Parent parent;
  auto stats = parent.import(archive.layer(Compression::kZstd), limits);
  ASSERT_FALSE(stats.ok());
  EXPECT_NE(stats.error().message.find("archive has more than 10 entries (the import limit)"),
            std::string::npos)
      << stats.error().message;
  EXPECT_EQ(stats.error().code, EFBIG);
  EXPECT_TRUE(parent.listing().empty()) << "the ten before the limit stayed";
  parent.expect_only_target();

  limits.max_entries = 11;
  Parent other;
  EXPECT_TRUE(other.import(archive.layer(Compression::kZstd), limits).ok());
}

TEST(WorkspaceArchive, TooMuchContentIsRefusedBeforeItIsWritten) {
  ArchiveLimits limits;
  limits.max_bytes = 1 << 20;
  Parent parent;
  // 1 GiB of zeros, a few kilobytes compressed.
  auto stats =
      parent.import(testing::zero_file_layer("big", 1ull << 30, Compression::kZstd), limits);
  ASSERT_FALSE(stats.ok());
  EXPECT_NE(stats.error().message.find("archive exceeds 1048576 bytes (the import limit)"),
            std::string::npos)
      << stats.error().message;
  EXPECT_TRUE(parent.listing().empty());
  parent.expect_only_target();

  // Many files each under the limit add up.
  LayerBuilder archive;
  for (int i = 0; i < 5; ++i) archive.file("f" + std::to_string(i), std::string(300, 'x'));
  limits.max_bytes = 1000;
  Parent many;
  stats = many.import(archive.layer(Compression::kZstd), limits);
  ASSERT_FALSE(stats.ok());
  EXPECT_NE(stats.error().message.find("archive exceeds 1000 bytes"), std::string::npos)
      << stats.error().message;
  EXPECT_TRUE(many.listing().empty());
}

TEST(WorkspaceArchive, TruncatedAndCorruptArchivesAreRefused) {
  LayerBuilder tree;
  tree.dir("d").file("d/a", std::string(5000, 'a')).file("b", std::string(5000, 'b'));
  std::string zstd = tree.layer(Compression::kZstd);
  std::string gzip = tree.layer(Compression::kGzip);
  std::string tar = tree.tar();
  std::string garbage;
  for (int i = 0; i < 4096; ++i) garbage += static_cast<char>((i * 7919 + 13) % 251);
  const std::vector<std::pair<const char*, std::string>> archives = {
      {"garbage", garbage},
      {"zstd of garbage", testing::compress(garbage, Compression::kZstd)},
      {"truncated zstd", zstd.substr(0, zstd.size() / 2)},
      {"truncated gzip", gzip.substr(0, gzip.size() / 2)},
      {"truncated tar", tar.substr(0, 700)},
      {"corrupt zstd", zstd.substr(0, 20) + garbage},
  };
  for (const auto& [what, data] : archives) {
    SCOPED_TRACE(what);
    Parent parent;
    auto stats = parent.import(data);
    ASSERT_FALSE(stats.ok());
    EXPECT_TRUE(stats.error().message.starts_with("importing: ")) << stats.error().message;
    EXPECT_EQ(stats.error().message.find('\n'), std::string::npos);
    EXPECT_TRUE(parent.listing().empty());
    parent.expect_only_target();
  }
}

TEST(WorkspaceArchive, AnEmptyArchiveIsAnEmptyWorkspaceAndAnEmptyFileIsRefused) {
  Parent parent;
  auto stats = parent.import(LayerBuilder().layer(Compression::kZstd));
  ASSERT_TRUE(stats.ok()) << stats.error().message;
  EXPECT_EQ(stats->files + stats->directories + stats->symlinks + stats->skipped, 0u);
  EXPECT_TRUE(parent.listing().empty());

  Parent empty_file;
  stats = empty_file.import("");
  ASSERT_FALSE(stats.ok());
  EXPECT_EQ(stats.error().message, "importing: reading the archive: it is empty");

  // And an empty tree exports to an archive that imports as an empty tree.
  Parent source;
  std::string data = export_of(source.target());
  EXPECT_TRUE(archived(data).empty());
  Parent copy;
  EXPECT_TRUE(copy.import(data).ok());
  EXPECT_TRUE(copy.listing().empty());
}

TEST(WorkspaceArchive, ImportWantsAnEmptyTarget) {
  Parent parent;
  write_file(parent.path("mine"), "keep me");
  auto stats = parent.import(LayerBuilder().file("mine", "replaced").layer(Compression::kZstd));
  ASSERT_FALSE(stats.ok());
  EXPECT_EQ(stats.error().message, "importing the archive: the target directory is not empty");
  EXPECT_EQ(read_file(parent.path("mine")), "keep me");
}

}  // namespace
}  // namespace paddock::state::workspace_archive_test
