#include "runtime/native/init_program.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <climits>
#include <string>
#include <vector>

#include "core/companion_program.h"
#include "core/write_all.h"
#include "runtime/native/init/init_plan.h"

namespace paddock::native {

core::Result<core::UniqueFd> open_init_program() {
  static const std::vector<std::string> candidates = core::companion_program_paths("paddock-init");
  for (const std::string& candidate : candidates) {
    core::UniqueFd fd(open(candidate.c_str(), O_PATH | O_CLOEXEC));
    if (!fd.valid()) continue;
    struct stat info {};
    if (fstat(fd.get(), &info) == 0 && S_ISREG(info.st_mode) && (info.st_mode & 0111) != 0) {
      return fd;
    }
  }
  std::string where;
  for (const std::string& candidate : candidates) {
    where += (where.empty() ? "" : " nor at ") + candidate;
  }
  return core::Error{ENOENT, "paddock-init, the sandbox's init, is not at " + where +
                                 ": install it beside paddock (scripts/setup builds both)"};
}

core::Result<core::UniqueFd> plan_memfd() {
  core::UniqueFd fd(memfd_create("paddock-plan", MFD_CLOEXEC | MFD_ALLOW_SEALING));
  if (!fd.valid()) return core::system_error("creating the memfd for the sandbox's plan");
  return fd;
}

core::Status write_plan(int memfd, const init::ChildPlan& plan) {
  std::string bytes = init::encode_child_plan(plan);
  if (int error = core::write_all(memfd, bytes); error != 0) {
    return core::system_error("writing the sandbox's plan", error);
  }
  // Sealed, so that nothing holding the fd can change the plan under paddock-init, which
  // checks that it is.
  if (fcntl(memfd, F_ADD_SEALS, init::kPlanSeals) != 0)
    return core::system_error("sealing the sandbox's plan");
  return {};
}

}  // namespace paddock::native
