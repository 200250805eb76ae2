#pragma once

// The one line that says why a library install failed, for the causes every installer shares:
// the package index could not be reached, a host was refused, there is no such package, no
// version fits what was asked, or a package's build step failed. pip, npm, gem, R and go each
// say it in their own words, after pages of retries and tracebacks, and some of their words are
// misleading (pip's "from versions: none" and R's "not available for this version of R" after
// the proxy could not reach the index), so what paddock's egress proxy saw comes first: it is
// the only witness of the network that cannot be mistaken. The installers' words are listed here
// once rather than in every policy, because several installers share them (the C library's,
// curl's and Node's words for a failed connect).

#include <optional>
#include <string>
#include <string_view>

#include "net/egress/egress_record.h"

namespace paddock::language {

// "could not reach the package index 127.0.0.1:9: the connection failed: Connection refused",
// "no such package in the package index (check the name)"..., or nothing when neither the
// proxy's record nor the output says which cause it was.
std::optional<std::string> install_diagnosis(std::string_view installer_output,
                                             const net::egress::EgressRecord& network = {});

}  // namespace paddock::language
