#pragma once

// The backends this executable has. paddock registers the native one; paddock-full adds the
// container engines (cli/container_backends.h). The CLI is the only floor that knows them all.

#include "cli/backend_registry.h"

namespace paddock::cli {

// The backends of the runtime library: "native", the default.
BackendRegistry builtin_backends();

// Set once by the executable's main. Unset: builtin_backends().
void set_available_backends(BackendRegistry registry);
const BackendRegistry& available_backends();

}  // namespace paddock::cli
