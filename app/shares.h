#pragma once

// The host folders the user shares with `paddock mcp` (--share HOST_DIR[=NAME][:rw], or
// PADDOCK_SHARE): the only host files any tool can reach. The model names them, never chooses
// them. A tool's host_path is "NAME/relative/path" (or an absolute path inside a share's
// folder), and every open under a share is confined beneath its folder by the kernel:
// openat2(RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS) refuses "..", absolute symlinks and
// symlinks that lead out, whatever the sandboxed code (which may write to a read-write share)
// put there.

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "core/unique_fd.h"
#include "runtime/sandbox_parts.h"

namespace paddock::app {

// One share as the user wrote it.
struct ShareSpec {
  std::string host_dir;
  std::string name;  // empty: the folder's own name
  bool writable = false;
};

// "HOST_DIR[=NAME][:rw]" (":ro" is the default, and may be written). Pure: the folder is
// checked by Shares::open.
core::Result<ShareSpec> parse_share_spec(const std::string& text);

// Whether `name` can name a share: a letter or digit, then up to 63 of those and "._-".
bool is_share_name(const std::string& name);

struct Share {
  std::string name;
  std::string host_dir;  // its real path, resolved at start-up
  bool writable = false;
  core::UniqueFd root;  // O_PATH of the folder, opened at start-up: every lookup starts here
};

// Opens `dir` as a share's folder (its real path and an O_PATH descriptor); `where` begins the
// error. A file is ENOTDIR.
core::Result<Share> open_share_folder(const std::string& dir, const std::string& where);

// Whether the folder `inner` is `outer` or lies beneath it (both real paths).
bool folder_within(const std::string& inner, const std::string& outer);

// Shares are held by shared pointer: a share taken from the client's roots may be withdrawn
// while a call still uses it, and stays valid for that call.
using SharePtr = std::shared_ptr<const Share>;

// Where a tool's host_path points.
struct ShareLocation {
  SharePtr share;
  std::string relative;  // beneath the share's folder; empty for the folder itself
  [[nodiscard]] std::string shown() const;  // "NAME/relative", what results and errors say
};

class Shares {
 public:
  using List = std::vector<SharePtr>;

  Shares() = default;
  // Opens every folder; a missing one, a file, a duplicate name, an unwritable ":rw" folder, or
  // a share inside a read-write one (whose code could replace it) is one line naming it, and the
  // server does not start.
  // `home` (HOME, as the command line read it) stands for a leading "~" of a folder.
  static core::Result<Shares> open(const std::vector<ShareSpec>& specs,
                                   const std::optional<std::string>& home = std::nullopt);

  // Every share now: the user's (--share), then those taken from the client's roots.
  [[nodiscard]] List all() const;
  // The user's alone, which never change.
  [[nodiscard]] const List& fixed() const { return fixed_; }
  [[nodiscard]] SharePtr find(const std::string& name) const;
  // "data (read-only), results (read-write)", or "none".
  [[nodiscard]] std::string summary() const;
  // host_path as a tool gives it: "NAME", "NAME/relative/path", or an absolute path equal to or
  // inside a share's folder. Anything else is refused, naming the shares there are.
  [[nodiscard]] core::Result<ShareLocation> locate(const std::string& host_path) const;

  // Replaces the shares taken from the client's roots (app/root_shares.h checks them); a call
  // that already located one keeps it until it ends.
  void set_roots(List roots);

 private:
  List fixed_;
  // Guards roots_: the reader thread replaces them while workers read.
  std::unique_ptr<std::mutex> mutex_ = std::make_unique<std::mutex>();
  List roots_;
};

// A share mounted into a session (create_session's mounts), as asked.
struct ShareMount {
  std::string share;  // its name
  std::string path;   // inside the sandbox: relative to /work, or absolute under /work or /mnt
  bool writable = false;
};

// Refuses a share whose folder is no longer the one opened at start-up (renamed, or replaced by
// a symlink): a mount goes by path, and must bind the folder the user shared.
core::Status check_unmoved(const Share& share);

// The bind mount of `mount`: the share's folder at its path, read-only unless the share is :rw
// and the mount asks for rw. `workdir` is the sandbox's work directory; `own_folders` are the
// folders paddock keeps in it (language_own_folders), which a mount may not be at, inside or over.
core::Result<runtime::BindMount> share_bind(const Shares& shares, ShareMount& mount,
                                            const std::string& workdir,
                                            const std::vector<std::string>& own_folders);

// Opens `where` with openat2 beneath its share: RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS, plus
// `resolve` (e.g. RESOLVE_NO_SYMLINKS). An error explains the refusal in the share's terms.
core::Result<core::UniqueFd> open_in_share(const ShareLocation& where, int flags,
                                           std::uint64_t resolve = 0);

// Opens `where` for reading with its share owner's rights (share_owner, ThreadFsIdentity), as an
// upload does: root serving a user's share reads there only what that user could.
core::Result<core::UniqueFd> open_share_for_reading(const ShareLocation& where);

// What errno `error` means for `where`, for the person who named it.
core::Error share_path_error(const ShareLocation& where, int error);

// Whose rights upload_file and download_file use in a share: a root server acts as the owner of the
// share's folder, as it is now (a folder given away after start-up is its new owner's), with the
// owner's own primary group and no other, and without root's file capabilities even when that owner
// is root; so it reads and writes nothing there that the owner could not, and what it makes is the
// owner's. A server that is not root acts as its own user, whatever this says.
struct ShareOwner {
  uid_t uid = 0;
  gid_t gid = 0;
};
core::Result<ShareOwner> share_owner(const Share& share);

}  // namespace paddock::app
