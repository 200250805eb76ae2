// A saved workspace's snapshots: made as links to its current generation's files, listed, and
// opened with the current files.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/files.h"
#include "core/utc_time.h"
#include "state/workspace_parts.h"

namespace paddock::state {

using namespace workspace_parts;

core::Status SavedWorkspace::snapshot(const std::string& name, std::uint64_t max_new_disk) {
  if (mkdirat(dir_.get(), kSnapshots, 0700) != 0 && errno != EEXIST) {
    return core::system_error("making the snapshots folder");
  }
  auto snapshots = open_directory(dir_.get(), kSnapshots);
  if (!snapshots) return snapshots.error();
  if (faccessat(snapshots->get(), name.c_str(), F_OK, AT_SYMLINK_NOFOLLOW) == 0) {
    return core::Error{EEXIST, "session " + info_.id + " already has a snapshot '" + name +
                                   "': choose another name"};
  }
  std::string building = name + ".new";
  (void)core::remove_tree(snapshots->get(), building);
  if (auto made = make_directory(snapshots->get(), building); !made) return made;
  auto failed = [&](const core::Error& error) -> core::Status {
    (void)core::remove_tree(snapshots->get(), building);
    return error;
  };
  auto snapshot = open_directory(snapshots->get(), building);
  if (!snapshot) return failed(snapshot.error());
  if (auto made = make_directory(snapshot->get(), "files"); !made) return failed(made.error());
  auto target = open_directory(snapshot->get(), "files");
  if (!target) return failed(target.error());
  auto current = open_directory(dir_.get(), generation_name(generation_));
  if (!current) return failed(damaged("the current generation is missing", current.error().code));
  auto current_files = open_directory(current->get(), "files");
  if (!current_files) return failed(damaged("the current generation is missing", 0));
  auto linked = link_tree(current_files->get(), target->get(), max_new_disk);
  if (!linked) {
    if (linked.error().code != ENOSPC) return failed(linked.error());
    return failed(core::Error{ENOSPC, "the state directory has no room for snapshot '" + name +
                                          "': " + linked.error().message});
  }
  json about = {
      {"created_at", core::utc_now()}, {"files", linked->first}, {"bytes", linked->second}};
  if (auto written = write_atomically(snapshot->get(), "snapshot.json", about.dump()); !written) {
    return failed(written.error());
  }
  if (syncfs(dir_.get()) != 0) return failed(core::system_error("syncing the snapshot"));
  if (renameat(snapshots->get(), building.c_str(), snapshots->get(), name.c_str()) != 0) {
    return failed(core::system_error("keeping the snapshot"));
  }
  if (fsync(snapshots->get()) != 0) return core::system_error("syncing the snapshot");
  return {};
}

core::Status SavedWorkspace::mark_created(std::uint64_t max_new_disk) {
  auto made = snapshot(kCreatedSnapshot, max_new_disk);  // within the room its first save was given
  if (!made && made.error().code != EEXIST) return made;
  return {};
}

core::Result<std::vector<SnapshotInfo>> SavedWorkspace::snapshots() {
  std::vector<SnapshotInfo> found;
  auto snapshots = open_directory(dir_.get(), kSnapshots);
  if (!snapshots) return found;
  auto names = core::directory_names(snapshots->get());
  if (!names) return names.error();
  for (const auto& name : *names) {
    if (name[0] == '.' || name.ends_with(".new")) continue;
    auto dir = open_directory(snapshots->get(), name);
    if (!dir) continue;
    SnapshotInfo info;
    info.name = name;
    if (auto text = read_small(dir->get(), "snapshot.json"); text) {
      json about = json::parse(*text, nullptr, false);
      if (about.is_object()) {
        info.created_at = about.value("created_at", "");
        info.files = about.value("files", std::uint64_t{0});
        info.bytes = about.value("bytes", std::uint64_t{0});
      }
    }
    found.push_back(std::move(info));
  }
  return found;
}

core::Result<core::UniqueFd> SavedWorkspace::files(const std::string& snapshot) {
  if (snapshot.empty()) {
    auto generation = open_directory(dir_.get(), generation_name(generation_));
    if (!generation) return damaged("the current generation is missing", generation.error().code);
    auto files = open_directory(generation->get(), "files");
    if (!files) return damaged("the current generation is missing", files.error().code);
    return files;
  }
  auto snapshots = open_directory(dir_.get(), kSnapshots);
  core::Result<core::UniqueFd> dir = core::Error{ENOENT, ""};
  if (snapshots) dir = open_directory(snapshots->get(), snapshot);
  if (!dir) {
    return core::Error{ENOENT, "session " + info_.id + " has no snapshot '" + snapshot +
                                   "': list_sessions shows its snapshots"};
  }
  auto files = open_directory(dir->get(), "files");
  if (!files) return damaged("snapshot '" + snapshot + "' has no files", files.error().code);
  return files;
}

}  // namespace paddock::state
