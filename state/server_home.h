#pragma once

// A wrapped MCP server's writable home (`paddock wrap`): its launcher's package cache and its
// own data files, kept between starts under the state directory, or made for one start.
//
//   DIR/servers/             0700, the user's
//   DIR/servers/NAME/        0700: what paddock alone writes (the installed list)
//   DIR/servers/NAME/home/   the server's HOME, bound read-write into its sandbox
//
// The sandbox reaches home/ alone, so what paddock reads to decide (which packages were
// installed) lives beside it, where the server cannot forge it.

#include <sys/types.h>

#include <optional>
#include <string>

#include "core/result.h"

namespace paddock::state {

// Who owns a home: the user running paddock, or, under root, an unprivileged id (sandboxes
// never write as host root).
struct HomeOwner {
  uid_t uid = 0;
  gid_t gid = 0;
};

// The id root gives a server's home when no read-write share names another owner: one no
// account uses, below the ids root's sandboxes run as one per sandbox (runtime/native/id_map.h).
inline constexpr uid_t kWrappedServerId = 1'999'999'999;

class ServerHome {
 public:
  // The kept home of `name` (a share name: no '/') under `state_dir`, made when missing. A folder
  // on the way that is a symlink, or belongs to someone other than the user (paddock's own
  // folders) or `owner` (the home), is refused in one line naming it.
  static core::Result<ServerHome> open_kept(const std::string& state_dir, const std::string& name,
                                            HomeOwner owner);
  // A home for one start, removed when this is destroyed.
  static core::Result<ServerHome> temporary(HomeOwner owner);

  ServerHome(ServerHome&& other) noexcept;
  ServerHome& operator=(ServerHome&&) = delete;
  ServerHome(const ServerHome&) = delete;
  ~ServerHome();

  [[nodiscard]] const std::string& home() const { return home_; }
  [[nodiscard]] bool kept() const { return !temporary_; }
  // Whether the installer step fetched `spec` into this home before.
  [[nodiscard]] bool installed(const std::string& spec) const;
  core::Status mark_installed(const std::string& spec);

 private:
  ServerHome(std::string folder, std::string home, bool temporary)
      : folder_(std::move(folder)), home_(std::move(home)), temporary_(temporary) {}
  std::string folder_;  // DIR/servers/NAME, or the temporary folder
  std::string home_;
  bool temporary_ = false;
};

}  // namespace paddock::state
