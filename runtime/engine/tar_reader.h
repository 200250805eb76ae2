#pragma once

// Files a run left in its collected directories, from the tar stream an exec of `tar -cf -`
// wrote inside the container: the same caps and MIME types as the native backend's artifacts.

#include <string_view>
#include <vector>

#include "run_result.h"
#include "sandbox_spec.h"

namespace paddock::engine {

std::vector<Artifact> artifacts_from_tar(std::string_view tar, const OutputCollection& collection,
                                         bool* truncated);

}  // namespace paddock::engine
