#pragma once

// Files a run leaves in chosen directories of its work directory (outputs, captured plots),
// read after the sandbox is gone through an fd of that directory.
//
// The sandbox wrote those files and may have laid traps: every open is confined beneath the
// work directory (openat2 RESOLVE_BENEATH, no symlinks, no magic links, no other mounts), only
// regular files are read (a FIFO cannot block paddock), and count and bytes are capped.

#include <string>
#include <vector>

#include "runtime/run_result.h"
#include "runtime/sandbox_parts.h"

namespace paddock::native {

struct CollectedArtifacts {
  std::vector<runtime::Artifact> artifacts;       // in the order they were made (artifact_choice.h)
  std::vector<runtime::OmittedArtifact> omitted;  // what the caps left out
};

CollectedArtifacts collect_artifacts(int workdir_fd, const runtime::OutputCollection& collection);

}  // namespace paddock::native
