#pragma once

// Every backend paddock-full has: the runtime's (native) and the container engines'.

#include "cli/backend_registry.h"

namespace paddock::cli {

BackendRegistry all_backends();

}  // namespace paddock::cli
