#pragma once

// From the flags given and the environment to the typed options of one command: every row of
// the command (config/table.h), then the checks that no single row can make, written once for
// both commands.

#include "config/options.h"
#include "config/settings.h"
#include "core/result.h"

namespace paddock::config {

// The rows of `command`, flag over variable over preset over the typed default, then checked
// together.
core::Result<Options> resolve(Command command, const FlagValues& flags, const Environment& env,
                              const std::vector<Preset>& presets = {});

}  // namespace paddock::config
