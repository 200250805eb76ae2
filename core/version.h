#pragma once

// paddock's version, as `paddock --version` and the MCP server's serverInfo report it. Both are
// written at build time (cmake/build_info.cmake) into one generated file, so that no other file's
// compilation depends on them.

namespace paddock::core {

// The project's version (project() in CMakeLists.txt), "0.1.0".
const char* paddock_version();

// The commit the binary was built from, "commit 0123456789ab" (with "-dirty" when the tree had
// changes), or "unknown commit" for a build outside a git checkout. Looked up at every build, so
// it never names a stale commit.
const char* paddock_commit();

}  // namespace paddock::core
