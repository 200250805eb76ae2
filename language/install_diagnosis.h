#pragma once

// The one line that says why a library install failed, read from what the installer printed,
// for the reasons every installer shares: the package index could not be reached. pip, npm,
// gem, R and go each say it in their own words, after pages of retries and tracebacks; the
// words come from the C library, curl and Node (getaddrinfo, connect), so they are listed here
// once rather than in every policy.

#include <optional>
#include <string>
#include <string_view>

namespace paddock {

// "could not reach the package index (name resolution failed)", or nothing when the output
// says no such thing.
std::optional<std::string> install_diagnosis(std::string_view installer_output);

}  // namespace paddock
