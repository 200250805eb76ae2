#include "core/user_account.h"

#include <pwd.h>
#include <unistd.h>

#include <vector>

namespace paddock::core {

std::optional<gid_t> primary_group_of(uid_t uid) {
  long size = sysconf(_SC_GETPW_R_SIZE_MAX);
  std::vector<char> buffer(static_cast<std::size_t>(size > 0 ? size : 16384));
  passwd entry{};
  passwd* found = nullptr;
  if (getpwuid_r(uid, &entry, buffer.data(), buffer.size(), &found) != 0 || found == nullptr) {
    return std::nullopt;
  }
  return found->pw_gid;
}

}  // namespace paddock::core
