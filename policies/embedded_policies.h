#pragma once

#include <string_view>

namespace paddock::policies {

// The text of policies/seccomp/default.json as it was when paddock was built.
std::string_view default_seccomp_profile_json();

}  // namespace paddock::policies
