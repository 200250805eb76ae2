#pragma once

// Every backend paddock-full has: the runtime's (native) and the container engines'.

#include "backend_registry.h"

namespace paddock::engine {

BackendRegistry all_backends();

}  // namespace paddock::engine
