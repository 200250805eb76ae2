#include "runtime/native/init/process_domain.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>

namespace paddock::init {
namespace {

// Landlock's ABI as the kernel defines it (uapi/linux/landlock.h); Debian 12's headers predate
// the scopes, so the values are written here.
constexpr unsigned kCreateRulesetVersion = 1u << 0;
constexpr std::uint64_t kAccessFsMakeBlock = 1ull << 11;
constexpr std::uint64_t kScopeAbstractUnixSocket = 1ull << 0;
constexpr std::uint64_t kScopeSignal = 1ull << 1;
constexpr long kFirstAbiWithScopes = 6;

struct RulesetAttr {
  std::uint64_t handled_access_fs = 0;
  std::uint64_t handled_access_net = 0;  // ABI 4
  std::uint64_t scoped = 0;              // ABI 6
};

}  // namespace

int enter_own_process_domain() {
  long abi = syscall(SYS_landlock_create_ruleset, nullptr, 0, kCreateRulesetVersion);
  if (abi < 0) return errno;
  RulesetAttr attr;
  unsigned long size = sizeof attr;
  if (abi >= kFirstAbiWithScopes) {
    attr.scoped = kScopeAbstractUnixSocket | kScopeSignal;
  } else {
    // A domain needs something handled; making block devices is refused in a user namespace
    // anyway, so handling it (with no rule that grants it) takes nothing away. The domain alone
    // is what confines ptrace access, in every ABI.
    attr.handled_access_fs = kAccessFsMakeBlock;
    size = sizeof attr.handled_access_fs;
  }
  long ruleset = syscall(SYS_landlock_create_ruleset, &attr, size, 0);
  if (ruleset < 0) return errno;
  int error = syscall(SYS_landlock_restrict_self, ruleset, 0) == 0 ? 0 : errno;
  close(static_cast<int>(ruleset));
  return error;
}

}  // namespace paddock::init
