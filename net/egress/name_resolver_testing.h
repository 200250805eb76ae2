#pragma once

// A seam for tests only: names the egress proxies of this process answer with fixed addresses
// instead of DNS, so a test can reach a local server under a name (a TLS server for tls.test).
// paddock's own executables never call this; test programs do (tests/support/test_names.h,
// and the paddock-test-names executable built beside paddock for tests that run the CLI).

#include <map>
#include <string>

namespace paddock::net::egress {

// NAME -> ADDRESS for every lookup from now on, replacing what was set; empty: DNS alone.
void answer_names_for_tests(std::map<std::string, std::string> name_to_address);

}  // namespace paddock::net::egress
