#pragma once

// Files a run left in its collected directories, from the tar stream an exec of `tar -cf -`
// wrote inside the container: the same caps and MIME types as the native backend's artifacts.
// The tar comes from inside the container (its tar binary, its file names), so a name is taken
// only as a plain relative path inside one of the collected directories: "../x", "/etc/x" and
// "outputs/../../x" are dropped, and "./outputs//a/./b" is reported as "outputs/a/b".

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/run_result.h"
#include "runtime/sandbox_parts.h"

namespace paddock::container {

// The name an entry is reported under, or nothing when it is not one to report.
std::optional<std::string> artifact_name(const std::string& entry_name,
                                         const runtime::OutputCollection& collection);

struct TarArtifacts {
  std::vector<runtime::Artifact>
      artifacts;  // in the order they were made (runtime/artifact_choice.h)
  std::vector<runtime::OmittedArtifact> omitted;
};

TarArtifacts artifacts_from_tar(std::string_view tar, const runtime::OutputCollection& collection);

}  // namespace paddock::container
