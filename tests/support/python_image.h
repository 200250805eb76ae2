#pragma once

#include <string>

namespace paddock::testing {

// The python image's OCI layout that scripts/test builds for the suites
// (PADDOCK_TEST_PYTHON_LAYOUT). scripts/test starts the suites while it is still downloading:
// while the file that PADDOCK_TEST_PYTHON_LAYOUT_STATUS names does not exist yet, the build has
// not ended, and this waits for it (up to 40 minutes). The file then holds the build's exit
// status. Returns the layout's path, or "" with `error` saying why there is none.
std::string python_image_layout(std::string& error);

}  // namespace paddock::testing
