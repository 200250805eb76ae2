#pragma once

// Debian's docker-registry (the distribution registry) on 127.0.0.1, for the tests that pull:
// `paddock pull` (integration) and the engines' pulls (engine suite).

#include <memory>
#include <string>

#include "support/helper_process.h"

namespace paddock::testing {

// docker-registry's configuration. `extra`: YAML appended right after http.addr (indented:
// more of http; not: a new section).
std::string registry_config(const std::string& storage, int port, const std::string& extra);

// Starts docker-registry with its configuration and log as DIR/NAME.yml and DIR/NAME.log, on
// `port` if it is given (> 0), else on a free one it stores there; empty unique_ptr and `error`
// set when it does not come up.
std::unique_ptr<Server> start_registry(const std::string& dir, const std::string& name,
                                       const std::string& storage, const std::string& extra,
                                       int& port, std::string& error);

}  // namespace paddock::testing
