#pragma once

// paddock mcp --share-roots: the folders an MCP client lists as its roots (roots/list) become
// shares, named after their folders. The client's list is trusted no more than a tool argument:
// a root that is not a local folder, the whole filesystem, one that overlaps another share, or
// one whose name is taken is skipped, with a line that says why.

#include <string>
#include <vector>

#include "app/shares.h"
#include "core/result.h"

namespace paddock::app {

// A root as the client lists it (MCP Root).
struct ClientRoot {
  std::string uri;
  std::string name;  // the client's label, for the log lines only
};

// Roots past this many in a list are not looked at: each shared one is an open descriptor and a
// mount a model may ask, and each looked at costs lookups and perhaps a log line.
inline constexpr std::size_t kMaxRootShares = 64;

struct RootShares {
  Shares::List shares;
  std::vector<std::string> log_lines;  // one per root skipped or shared read-only instead
};

// The local path a "file://" URI names (percent-decoded), or why it names none.
core::Result<std::string> local_path_of(const std::string& uri);

// The shares `roots` make beside the user's own (`fixed`), read-write if `writable` and this
// server can write the folder. `current`: every share now (the roots' too), whose read-write
// folders sandboxed code may have filled with symlinks: a root named through one is skipped.
RootShares shares_from_roots(const std::vector<ClientRoot>& roots, const Shares::List& fixed,
                             bool writable, const Shares::List& current = {});

}  // namespace paddock::app
