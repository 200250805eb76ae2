# Run at every build (cmake -P, from core/CMakeLists.txt): writes OUT, the commit the build was
# made from, for `paddock --version`. file(CONFIGURE) rewrites OUT only when its text changes, so
# an unchanged commit recompiles nothing.
#   cmake -DSOURCE_DIR=... -DVERSION=... -DOUT=... -P build_info.cmake
set(commit "unknown commit")
# Only the source tree's own repository: a tarball unpacked inside some other checkout must not
# report that checkout's commit.
execute_process(COMMAND git -C "${SOURCE_DIR}" rev-parse --show-toplevel
                OUTPUT_VARIABLE top RESULT_VARIABLE failed OUTPUT_STRIP_TRAILING_WHITESPACE
                ERROR_QUIET)
if(NOT failed)
  file(REAL_PATH "${SOURCE_DIR}" source)
  file(REAL_PATH "${top}" top)
  if(top STREQUAL source)
    execute_process(COMMAND git -C "${SOURCE_DIR}" describe --always --dirty --abbrev=12
                    OUTPUT_VARIABLE described RESULT_VARIABLE failed
                    OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    if(NOT failed AND described MATCHES "^[0-9A-Za-z._-]+$")
      set(commit "commit ${described}")
    endif()
  endif()
endif()
file(CONFIGURE OUTPUT "${OUT}" CONTENT [[// Written by cmake/build_info.cmake at build time.
#include "core/version.h"

namespace paddock::core {

const char* paddock_version() { return "@VERSION@"; }
const char* paddock_commit() { return "@commit@"; }

}  // namespace paddock::core
]] @ONLY)
