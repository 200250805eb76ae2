#pragma once

// Which of the files a run left in its collected directories come back, and in what order: the
// order they were made (modification time, then names with their numbers compared as numbers,
// so figure-2 comes before figure-10), directory by directory in the collection's order, for as
// many as the count and byte caps allow. What does not fit is named, with why, never dropped
// silently. Pure, so that both the native backend (a directory walk) and the container backends
// (a tar stream) order and cap the same way.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/run_result.h"
#include "runtime/sandbox_parts.h"

namespace paddock::runtime {

struct ArtifactCandidate {
  std::string path;           // relative to the work directory
  std::size_t directory = 0;  // its collected directory's index
  std::int64_t modified_ns = 0;
  std::uint64_t size = 0;
};

struct ArtifactChoice {
  std::vector<ArtifactCandidate> taken;  // in order
  std::vector<OmittedArtifact> omitted;  // in the same order
};

ArtifactChoice choose_artifacts(std::vector<ArtifactCandidate> candidates,
                                const OutputCollection& collection);

// "figure-2.png" < "figure-10.png": runs of digits compare by value.
bool natural_less(std::string_view a, std::string_view b);

}  // namespace paddock::runtime
