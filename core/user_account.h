#pragma once

// What the host's user database says of a user.

#include <sys/types.h>

#include <optional>

namespace paddock::core {

// The user's own primary group (the password database's), or nullopt for a uid it lacks.
std::optional<gid_t> primary_group_of(uid_t uid);

}  // namespace paddock::core
