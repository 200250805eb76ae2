#pragma once

// How the sandbox user (uid/gid 1000 inside) maps to an id on the host.
//
//   self         an unprivileged user without subordinate ids: the user's own uid and gid, and
//                setgroups denied (the kernel's rule for unprivileged maps)
//   subordinate  an unprivileged user with /etc/subuid and /etc/subgid ranges and the setuid
//                newuidmap/newgidmap helpers: one id of those ranges, so the program does not
//                even run as the user, and supplementary groups can be dropped
//   root         paddock run by root: a high host id that no account uses, unique per live
//                sandbox; never host root
//
// Only one id is mapped: inside the sandbox, root (0) does not exist at all.

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace paddock::native {

struct IdRange {
  std::uint32_t start = 0;
  std::uint32_t count = 0;
};

// The first range for `user` (by name or by numeric id) in /etc/subuid-style text.
std::optional<IdRange> find_subordinate_range(std::string_view file_text, std::string_view user,
                                              uid_t uid);

struct IdMapHost {
  uid_t euid = 0;
  gid_t egid = 0;
  std::optional<IdRange> sub_uids;
  std::optional<IdRange> sub_gids;
  bool helpers_usable = false;  // newuidmap and newgidmap setuid root, and able to gain it
  // Whatever started paddock set no_new_privs (a systemd unit's NoNewPrivileges=, another
  // sandbox): no setuid helper can gain its privilege, so the helpers are not usable.
  bool no_new_privs = false;
};

IdMapHost probe_id_map_host();

enum class IdMapMethod { kSelf, kSubordinate, kRoot };
const char* to_string(IdMapMethod method);

inline constexpr std::uint32_t kRootHostIdBase = 2'000'000'000;

struct IdMapPlan {
  IdMapMethod method = IdMapMethod::kSelf;
  std::uint32_t inside_uid = 1000;
  std::uint32_t inside_gid = 1000;
  std::uint32_t host_uid = 0;
  std::uint32_t host_gid = 0;
  bool setgroups_allowed = false;  // when false, setgroups is denied before gid_map is written
};

// Whom the sandbox user must be on the host for its writes through read-write binds to land as
// the folder's owner: the sandbox user is mapped to that id instead (an unprivileged paddock
// can only map itself; root maps any owner but root, as sandboxes never run as host root).
struct HostOwner {
  std::uint32_t uid = 0;
  std::uint32_t gid = 0;
};

// The owner of every read-write bind's host folder (nullopt without one). Refused, saying why:
// folders of different owners, one owned by root, or (unprivileged) one owned by someone else.
core::Result<std::optional<HostOwner>> writable_bind_owner(const IdMapHost& host,
                                                           const std::vector<std::string>& folders);

// Decides the mapping for a sandbox whose init has host pid `child_pid` (pure: tests call it).
// With `writer`, the sandbox user is that host owner (see HostOwner).
IdMapPlan plan_id_map(const IdMapHost& host, pid_t child_pid, std::uint32_t inside_uid,
                      std::uint32_t inside_gid, std::optional<HostOwner> writer = std::nullopt);

// Writes the maps for `child_pid` (directly, or through newuidmap/newgidmap).
core::Status apply_id_map(pid_t child_pid, const IdMapPlan& plan);

}  // namespace paddock::native
