// A session's workspace on disk (state/saved_workspace.h), kept from a plain directory standing
// in for a sandbox's work directory: unchanged files are linked, not copied; a save that fails
// leaves the generation before it; links stay links; sparse files stay sparse; snapshots share.

#include "state/saved_workspace.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <thread>

#include <gtest/gtest.h>

#include "state/state_dir.h"
#include "support/temp_folder.h"

namespace paddock::state::saved_workspace_test {
namespace {

namespace fs = std::filesystem;
using testing::TempFolder;

void write(const std::string& path, const std::string& text) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path) << text;
}

std::string read(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

struct Fixture {
  TempFolder folder{"saved-workspace"};
  std::unique_ptr<StateDir> dir;
  std::unique_ptr<SavedWorkspace> workspace;
  core::UniqueFd source;

  Fixture() {
    fs::create_directories(folder / "work");
    source = core::UniqueFd(open((folder / "work").c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    auto opened = StateDir::open(folder / "state");
    EXPECT_TRUE(opened) << opened.error().message;
    dir = std::move(*opened);
    WorkspaceInfo info;
    info.id = "s-1";
    info.language = "python";
    auto made = SavedWorkspace::create(dir->sessions_fd(), info);
    EXPECT_TRUE(made) << made.error().message;
    workspace = std::move(*made);
  }
  core::TreeWalker walker() {
    return [this](const core::TreeVisitor& visit) { return core::walk_tree(source.get(), visit); };
  }
  std::string current() {
    return folder / ("state/sessions/s-1/" +
                     fs::read_symlink(folder / "state/sessions/s-1/current").string() + "/files");
  }
};

TEST(SavedWorkspace, UnchangedFilesAreLinkedNotCopied) {
  Fixture f;
  write(f.folder / "work/big", std::string(1 << 20, 'b'));
  write(f.folder / "work/notes", "one");
  auto first = f.workspace->save(f.walker());
  ASSERT_TRUE(first) << first.error().message;
  EXPECT_EQ(first->copied_files, 2u);
  struct stat before {};
  ASSERT_EQ(stat((f.current() + "/big").c_str(), &before), 0);
  write(f.folder / "work/notes", "two");
  auto second = f.workspace->save(f.walker());
  ASSERT_TRUE(second) << second.error().message;
  EXPECT_EQ(second->copied_files, 1u);
  EXPECT_EQ(second->linked_files, 1u);
  struct stat after {};
  ASSERT_EQ(stat((f.current() + "/big").c_str(), &after), 0);
  EXPECT_EQ(before.st_ino, after.st_ino);
  EXPECT_EQ(read(f.current() + "/notes"), "two");
}

// A sandbox's work directory is a tmpfs: there, a write through a page already mapped writable
// changes no metadata at all, and only the bytes show it (state/file_digest.h).
TEST(SavedWorkspace, AWriteThroughASharedMappingIsSavedThoughNoMetadataMoved) {
  Fixture f;
  std::string work = "/dev/shm/paddock-mapped-XXXXXX";
  ASSERT_NE(mkdtemp(work.data()), nullptr);
  f.source = core::UniqueFd(open(work.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  write(work + "/m", std::string(8192, 'x'));
  core::UniqueFd file(open((work + "/m").c_str(), O_RDWR | O_CLOEXEC));
  void* mapped = mmap(nullptr, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, file.get(), 0);
  ASSERT_NE(mapped, MAP_FAILED);
  auto* bytes = static_cast<volatile char*>(mapped);
  EXPECT_EQ(bytes[0], 'x');  // faulted in, by a read
  ASSERT_TRUE(f.workspace->save(f.walker()));
  struct stat before {};
  ASSERT_EQ(fstat(file.get(), &before), 0);
  bytes[0] = 'M';
  bytes[1] = 'A';
  bytes[2] = 'P';
  struct stat after {};
  ASSERT_EQ(fstat(file.get(), &after), 0);
  // The attack's condition on this kernel: nothing a metadata check could see.
  EXPECT_EQ(before.st_ctim.tv_nsec, after.st_ctim.tv_nsec);
  EXPECT_EQ(before.st_mtim.tv_nsec, after.st_mtim.tv_nsec);
  EXPECT_EQ(before.st_size, after.st_size);
  auto second = f.workspace->save(f.walker());
  ASSERT_TRUE(second) << second.error().message;
  EXPECT_EQ(second->copied_files, 1u);
  EXPECT_EQ(read(f.current() + "/m").substr(0, 4), "MAPx");
  // Unchanged since: linked, not copied, though every byte was compared.
  auto third = f.workspace->save(f.walker());
  ASSERT_TRUE(third) << third.error().message;
  EXPECT_EQ(third->linked_files, 1u);
  munmap(mapped, 8192);
  fs::remove_all(work);
}

TEST(SavedWorkspace, ASaveThatFailsLeavesTheGenerationBefore) {
  Fixture f;
  write(f.folder / "work/a", "kept");
  ASSERT_TRUE(f.workspace->save(f.walker()));
  std::string before = f.current();
  write(f.folder / "work/a", "changed");
  int seen = 0;
  auto failed = f.workspace->save([&](const core::TreeVisitor& visit) -> core::Status {
    return core::walk_tree(
        f.source.get(),
        [&](const core::TreeEntry& entry, const core::FileOpener& open) -> core::Status {
          if (++seen > 0 && entry.path == "a") {
            if (auto done = visit(entry, open); !done) return done;
            return core::Error{EIO, "the sandbox went away"};
          }
          return visit(entry, open);
        });
  });
  EXPECT_FALSE(failed);
  EXPECT_EQ(f.current(), before);
  EXPECT_EQ(read(f.current() + "/a"), "kept");
  // Nothing of the failed generation is left beside it.
  int generations = 0;
  for (const auto& entry : fs::directory_iterator(f.folder / "state/sessions/s-1")) {
    if (entry.path().filename().string().starts_with("gen-")) ++generations;
  }
  EXPECT_EQ(generations, 1);
}

TEST(SavedWorkspace, LinksStayLinksAndSparseFilesStaySparse) {
  Fixture f;
  fs::create_symlink("/etc/passwd", f.folder / "work/passwd");
  {
    core::UniqueFd sparse(open((f.folder / "work/sparse").c_str(), O_WRONLY | O_CREAT, 0600));
    ASSERT_EQ(ftruncate(sparse.get(), 1ll << 30), 0);
    ASSERT_EQ(pwrite(sparse.get(), "x", 1, 1 << 20), 1);
  }
  write(f.folder / "work/one", "same");
  fs::create_hard_link(f.folder / "work/one", f.folder / "work/two");
  ASSERT_TRUE(f.workspace->save(f.walker()));
  EXPECT_EQ(fs::read_symlink(f.current() + "/passwd"), "/etc/passwd");
  struct stat sparse {};
  ASSERT_EQ(stat((f.current() + "/sparse").c_str(), &sparse), 0);
  EXPECT_EQ(sparse.st_size, 1ll << 30);
  EXPECT_LT(sparse.st_blocks * 512, 1ll << 24);
  struct stat one {
  }, two{};
  ASSERT_EQ(stat((f.current() + "/one").c_str(), &one), 0);
  ASSERT_EQ(stat((f.current() + "/two").c_str(), &two), 0);
  EXPECT_EQ(one.st_ino, two.st_ino);
}

// A save that finds the tree as the last one left it keeps that generation current: no
// generation is written, synced and switched to (most of a kept live cell's time). Every kind
// of change still makes a new one.
TEST(SavedWorkspace, ASaveThatFindsNothingChangedKeepsTheGenerationItHas) {
  Fixture f;
  write(f.folder / "work/data/table.csv", "a,b\n");
  fs::create_directories(f.folder / "work/empty");
  fs::create_symlink("data/table.csv", f.folder / "work/latest");
  write(f.folder / "work/one", "same");
  fs::create_hard_link(f.folder / "work/one", f.folder / "work/two");
  ASSERT_TRUE(f.workspace->save(f.walker()));
  std::string first = f.current();
  auto again = f.workspace->save(f.walker());
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ(f.current(), first);
  EXPECT_EQ(again->linked_files, 2u);
  int generations = 0;
  for (const auto& entry : fs::directory_iterator(f.folder / "state/sessions/s-1")) {
    if (entry.path().filename().string().starts_with("gen-")) ++generations;
  }
  EXPECT_EQ(generations, 1);

  // Each change, alone, is saved: the current generation moves on and holds it.
  std::vector<std::pair<std::string, std::function<void()>>> changes = {
      {"same size, other bytes", [&] { write(f.folder / "work/data/table.csv", "c,d\n"); }},
      {"a new empty folder", [&] { fs::create_directories(f.folder / "work/empty/inner"); }},
      {"a link pointed elsewhere",
       [&] {
         fs::remove(f.folder / "work/latest");
         fs::create_symlink("data/other.csv", f.folder / "work/latest");
       }},
      {"a folder removed", [&] { fs::remove(f.folder / "work/empty/inner"); }},
      {"a file removed", [&] { fs::remove(f.folder / "work/two"); }},
      {"a second name again, as a copy",
       [&] { fs::copy_file(f.folder / "work/one", f.folder / "work/two"); }},
      {"the copy made a second name of the same file",
       [&] {
         fs::remove(f.folder / "work/two");
         fs::create_hard_link(f.folder / "work/one", f.folder / "work/two");
       }},
      {"a folder where a link was",
       [&] {
         fs::remove(f.folder / "work/latest");
         fs::create_directories(f.folder / "work/latest");
       }},
  };
  for (const auto& [what, change] : changes) {
    std::string before = f.current();
    change();
    auto saved = f.workspace->save(f.walker());
    ASSERT_TRUE(saved) << what << ": " << saved.error().message;
    EXPECT_NE(f.current(), before) << what;
    auto unchanged = f.workspace->save(f.walker());
    ASSERT_TRUE(unchanged) << what << ": " << unchanged.error().message;
    EXPECT_NE(f.current(), before) << what;
  }
  EXPECT_EQ(read(f.current() + "/data/table.csv"), "c,d\n");
  EXPECT_TRUE(fs::is_directory(fs::symlink_status(f.current() + "/latest")));
  EXPECT_FALSE(fs::exists(f.current() + "/empty/inner"));
  EXPECT_EQ(read(f.current() + "/two"), "same");
}

// The executable bit is kept (docs/sessions.md), so a chmod is a write like any other: a file
// whose bytes stay the same but whose bit moves is saved with the bit it has now, not linked to
// the copy before, which holds the old one.
TEST(SavedWorkspace, AChmodAloneIsSavedThoughTheBytesStayTheSame) {
  Fixture f;
  write(f.folder / "work/run.sh", "echo hi\n");
  ASSERT_TRUE(f.workspace->save(f.walker()));
  auto executable = [&f] {
    struct stat copy {};
    EXPECT_EQ(stat((f.current() + "/run.sh").c_str(), &copy), 0);
    return (copy.st_mode & S_IXUSR) != 0;
  };
  EXPECT_FALSE(executable());
  fs::permissions(f.folder / "work/run.sh", fs::perms::owner_exec, fs::perm_options::add);
  auto made_executable = f.workspace->save(f.walker());
  ASSERT_TRUE(made_executable) << made_executable.error().message;
  EXPECT_TRUE(executable());
  EXPECT_EQ(made_executable->linked_files, 0u);
  fs::permissions(f.folder / "work/run.sh", fs::perms::owner_exec, fs::perm_options::remove);
  auto made_plain = f.workspace->save(f.walker());
  ASSERT_TRUE(made_plain) << made_plain.error().message;
  EXPECT_FALSE(executable());
  // Other bits are not kept, so a change of them alone writes nothing.
  std::string before = f.current();
  fs::permissions(f.folder / "work/run.sh", fs::perms::others_read, fs::perm_options::remove);
  auto unkept = f.workspace->save(f.walker());
  ASSERT_TRUE(unkept) << unkept.error().message;
  EXPECT_EQ(f.current(), before);
}

// Unchanged entries are noted until the first change and written then. If a noted file's copy
// can no longer be linked by then (here: removed from the generation before, as a damaged state
// directory might), it is left out and named, and a second name of it is still taken from the
// generation before, which holds it as a link of the same copy.
TEST(SavedWorkspace, ASecondNameIsKeptWhenItsFirstCannotBeWrittenLater) {
  Fixture f;
  write(f.folder / "work/one", "same");
  fs::create_hard_link(f.folder / "work/one", f.folder / "work/two");
  write(f.folder / "work/zzz", "before");
  ASSERT_TRUE(f.workspace->save(f.walker()));
  std::string before = f.current();
  write(f.folder / "work/zzz", "after!");
  core::TreeWalker walker = [&](const core::TreeVisitor& visit) {
    return core::walk_tree(f.source.get(),
                           [&](const core::TreeEntry& entry, const core::FileOpener& open) {
                             // After "one" and "two" were noted unchanged, before the change.
                             if (entry.path == "zzz") fs::remove(before + "/one");
                             return visit(entry, open);
                           });
  };
  auto saved = f.workspace->save(walker);
  ASSERT_TRUE(saved) << saved.error().message;
  ASSERT_EQ(saved->skipped.size(), 1u);
  EXPECT_EQ(saved->skipped[0].rfind("one (", 0), 0u) << saved->skipped[0];
  EXPECT_NE(f.current(), before);
  EXPECT_FALSE(fs::exists(f.current() + "/one"));
  EXPECT_EQ(read(f.current() + "/two"), "same");
  EXPECT_EQ(read(f.current() + "/zzz"), "after!");
}

// A name is whatever bytes the sandbox gave it, valid UTF-8 or not: the manifest records it, the
// next save finds the file unchanged, and nothing throws.
TEST(SavedWorkspace, NamesThatAreNotUtf8AreSavedAndRecognised) {
  Fixture f;
  std::string name = std::string("caf\xe9-\xff\xfe") + "\"quoted\"\\";
  write(f.folder / ("work/" + name), "bytes");
  auto first = f.workspace->save(f.walker());
  ASSERT_TRUE(first) << first.error().message;
  EXPECT_EQ(read(f.current() + "/" + name), "bytes");
  std::string kept = f.current();
  auto again = f.workspace->save(f.walker());
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ(again->linked_files, 1u);
  EXPECT_EQ(f.current(), kept);
}

// The room left under --state-disk is measured (a walk of the whole state directory) only by a
// save that has something to write, and such a save still stops at it.
TEST(SavedWorkspace, TheRoomLeftIsAskedForOnlyWhenSomethingIsWritten) {
  Fixture f;
  write(f.folder / "work/data/a", "one");
  ASSERT_TRUE(f.workspace->save(f.walker()));
  std::string first = f.current();
  int asked = 0;
  SaveLimits limits;
  limits.new_disk_room = [&asked]() -> std::uint64_t {
    ++asked;
    return 0;
  };
  auto unchanged = f.workspace->save(f.walker(), limits);
  ASSERT_TRUE(unchanged) << unchanged.error().message;
  EXPECT_EQ(asked, 0);
  EXPECT_EQ(unchanged->disk_bytes, 0u);
  write(f.folder / "work/data/b", "two");
  auto full = f.workspace->save(f.walker(), limits);
  ASSERT_FALSE(full);
  EXPECT_EQ(full.error().code, ENOSPC);
  EXPECT_NE(full.error().message.find("no room for"), std::string::npos) << full.error().message;
  EXPECT_EQ(asked, 1);
  EXPECT_EQ(f.current(), first);
  EXPECT_FALSE(fs::exists(f.current() + "/data/b"));
}

TEST(SavedWorkspace, SnapshotsShareFilesAndDiffsNameWhatChanged) {
  Fixture f;
  write(f.folder / "work/keep", "k");
  write(f.folder / "work/change", "c1");
  write(f.folder / "work/gone", "g");
  ASSERT_TRUE(f.workspace->save(f.walker()));
  ASSERT_TRUE(f.workspace->mark_created());
  ASSERT_TRUE(f.workspace->snapshot("before"));
  EXPECT_FALSE(f.workspace->snapshot("before"));
  write(f.folder / "work/change", "c2!");
  fs::remove(f.folder / "work/gone");
  write(f.folder / "work/new/file", "n");
  ASSERT_TRUE(f.workspace->save(f.walker()));
  struct stat snapshot {
  }, now{};
  ASSERT_EQ(stat((f.folder / "state/sessions/s-1/snapshots/before/files/keep").c_str(), &snapshot),
            0);
  ASSERT_EQ(stat((f.current() + "/keep").c_str(), &now), 0);
  EXPECT_EQ(snapshot.st_ino, now.st_ino);
  auto diff = f.workspace->diff("before");
  ASSERT_TRUE(diff) << diff.error().message;
  std::vector<std::string> lines;
  for (const auto& change : *diff) {
    lines.push_back(std::string(change.change == DiffEntry::Change::kAdded     ? "+"
                                : change.change == DiffEntry::Change::kChanged ? "~"
                                                                               : "-") +
                    change.path);
  }
  EXPECT_EQ(lines, (std::vector<std::string>{"~change", "-gone", "+new", "+new/file"}));
  EXPECT_FALSE(f.workspace->diff("missing"));
}

// The state directory's size is measured by a walk of all of it, which a caller waits for only
// where the figure decides. Here another server's writes (files the meter never heard of) stand
// for what the periodic walk is for: once the last walk is old, the caller gets the figure it
// has at once, and a walk beside it brings the new files in; near the limit, the caller waits
// for a walk and gets them at once.
TEST(StateDir, AnOldMeasureIsRenewedBesideTheCallerAndAtOnceNearTheLimit) {
  Fixture f;
  constexpr std::uint64_t kMiB = 1 << 20;
  f.dir->set_walk_period(std::chrono::milliseconds(0));
  write(f.folder / "state/sessions/other/a", std::string(kMiB, 'a'));
  std::uint64_t first = f.dir->disk_bytes();  // the first walk: waited for
  EXPECT_GE(first, kMiB);
  write(f.folder / "state/sessions/other/b", std::string(kMiB, 'b'));
  EXPECT_EQ(f.dir->disk_bytes(), first);  // the figure it had; a walk starts beside the caller
  std::uint64_t renewed = first;
  for (int i = 0; i < 500 && renewed < first + kMiB; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    renewed = f.dir->disk_bytes();
  }
  EXPECT_GE(renewed, first + kMiB);
  // Within a tenth of the limit, the caller waits for the walk.
  f.dir->set_walk_period(std::chrono::hours(1));
  write(f.folder / "state/sessions/other/c", std::string(kMiB, 'c'));
  EXPECT_GE(f.dir->disk_bytes(renewed + kMiB / 20), renewed + kMiB);
}

TEST(StateDir, NamesAreUniqueAndLocksKeepASessionToOneHolder) {
  Fixture f;
  ASSERT_TRUE(f.dir->claim_name("analysis", "s-1"));
  EXPECT_FALSE(f.dir->claim_name("analysis", "s-2"));
  EXPECT_FALSE(f.dir->claim_name("../x", "s-2"));
  auto resolved = f.dir->resolve("analysis");
  ASSERT_TRUE(resolved);
  EXPECT_EQ(*resolved, "s-1");
  auto second = SavedWorkspace::open(f.dir->sessions_fd(), "s-1");
  ASSERT_FALSE(second);
  EXPECT_EQ(second.error().code, EBUSY);
  f.workspace.reset();
  EXPECT_TRUE(SavedWorkspace::open(f.dir->sessions_fd(), "s-1"));
  struct stat info {};
  ASSERT_EQ(stat((f.folder / "state").c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0700u);
}

}  // namespace
}  // namespace paddock::state::saved_workspace_test
