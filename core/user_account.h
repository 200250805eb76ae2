#pragma once

// What the host's password file says of a user.
//
// Read from /etc/passwd itself, not through getpwuid_r: the lean paddock is a static executable,
// and a static glibc that meets a uid /etc/passwd lacks loads the other NSS modules (systemd,
// ldap), which are built for the shared glibc and crash it (`paddock run --bind` of a folder
// owned by such a uid died in libnss_systemd). A user known only to such a module is not found:
// callers fall back to what the file system says (a folder's group), and subordinate id ranges
// are found by number as well as by name.

#include <sys/types.h>

#include <optional>
#include <string>
#include <string_view>

namespace paddock::core {

struct PasswdEntry {
  std::string name;
  uid_t uid = 0;
  gid_t gid = 0;
};

// The entry of `uid` in /etc/passwd-style text (the first one), or nullopt.
std::optional<PasswdEntry> find_passwd_entry(std::string_view passwd_text, uid_t uid);

// The entry of `uid` in the host's /etc/passwd, or nullopt.
std::optional<PasswdEntry> passwd_entry(uid_t uid);

// The user's own primary group (the password file's), or nullopt for a uid it lacks.
std::optional<gid_t> primary_group_of(uid_t uid);

}  // namespace paddock::core
