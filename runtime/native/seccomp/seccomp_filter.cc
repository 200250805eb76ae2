#include "runtime/native/seccomp/seccomp_filter.h"

#include <seccomp.h>
#include <sys/mman.h>
#include <unistd.h>

#include <memory>

#include "core/unique_fd.h"
#include "runtime/native/seccomp/seccomp_ranges.h"

namespace paddock::seccomp {
namespace {

struct FilterDeleter {
  void operator()(void* ctx) const { seccomp_release(ctx); }
};
using FilterContext = std::unique_ptr<void, FilterDeleter>;

std::uint32_t to_libseccomp(const Action& action) {
  switch (action.kind) {
    case Action::Kind::kAllow:
      return SCMP_ACT_ALLOW;
    case Action::Kind::kErrno:
      return SCMP_ACT_ERRNO(static_cast<std::uint16_t>(action.errno_value));
    case Action::Kind::kKillProcess:
      return SCMP_ACT_KILL_PROCESS;
    case Action::Kind::kKillThread:
      return SCMP_ACT_KILL_THREAD;
    case Action::Kind::kTrap:
      return SCMP_ACT_TRAP;
    case Action::Kind::kLog:
      return SCMP_ACT_LOG;
  }
  return SCMP_ACT_KILL_PROCESS;
}

scmp_compare to_libseccomp(CompareOp op) {
  switch (op) {
    case CompareOp::kNotEqual:
      return SCMP_CMP_NE;
    case CompareOp::kLess:
      return SCMP_CMP_LT;
    case CompareOp::kLessOrEqual:
      return SCMP_CMP_LE;
    case CompareOp::kEqual:
      return SCMP_CMP_EQ;
    case CompareOp::kGreaterOrEqual:
      return SCMP_CMP_GE;
    case CompareOp::kGreater:
      return SCMP_CMP_GT;
    case CompareOp::kMaskedEqual:
      return SCMP_CMP_MASKED_EQ;
  }
  return SCMP_CMP_EQ;
}

core::Status add_rule(scmp_filter_ctx ctx, const Rule& rule, int syscall_nr,
                      const std::string& name) {
  auto alternatives = split_rule_arguments(rule.args);
  if (!alternatives) return alternatives.error().context("seccomp rule for " + name);
  for (const auto& args : *alternatives) {
    std::vector<scmp_arg_cmp> comparisons;
    for (const auto& arg : args) {
      comparisons.push_back(
          scmp_arg_cmp{arg.index, to_libseccomp(arg.op), arg.value, arg.value_two});
    }
    int rc =
        seccomp_rule_add_exact_array(ctx, to_libseccomp(rule.action), syscall_nr,
                                     static_cast<unsigned>(comparisons.size()), comparisons.data());
    if (rc < 0) return core::system_error("seccomp rule for " + name, -rc);
  }
  return {};
}

core::Result<std::vector<sock_filter>> export_bpf(scmp_filter_ctx ctx) {
  core::UniqueFd memfd(memfd_create("paddock-seccomp", MFD_CLOEXEC));
  if (!memfd.valid()) return core::system_error("memfd_create for the seccomp filter");
  int rc = seccomp_export_bpf(ctx, memfd.get());
  if (rc < 0) return core::system_error("exporting the seccomp filter", -rc);
  off_t size = lseek(memfd.get(), 0, SEEK_END);
  if (size <= 0 || size % static_cast<off_t>(sizeof(sock_filter)) != 0) {
    return core::Error{EINVAL, "exporting the seccomp filter: unexpected size"};
  }
  std::vector<sock_filter> program(static_cast<std::size_t>(size) / sizeof(sock_filter));
  if (pread(memfd.get(), program.data(), static_cast<std::size_t>(size), 0) != size) {
    return core::system_error("reading the exported seccomp filter");
  }
  return program;
}

}  // namespace

core::Result<BpfProgram> compile(const Profile& profile) {
  std::uint32_t default_action = to_libseccomp(profile.default_action);
  FilterContext ctx(seccomp_init(default_action));
  if (!ctx) return core::Error{ENOMEM, "seccomp_init failed"};
  // Any other ABI (ia32, x32) is an attempt to dodge the filter: kill the process.
  if (seccomp_attr_set(ctx.get(), SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS) < 0 ||
      // paddock sets no_new_privs itself, earlier, and says so in the result.
      seccomp_attr_set(ctx.get(), SCMP_FLTATR_CTL_NNP, 0) < 0 ||
      // A binary tree of syscall numbers: a few comparisons per call instead of hundreds.
      seccomp_attr_set(ctx.get(), SCMP_FLTATR_CTL_OPTIMIZE, 2) < 0) {
    return core::Error{EINVAL, "configuring the seccomp filter failed"};
  }
  BpfProgram program;
  program.quiet_refusals = profile.quiet_refusals;
  for (const auto& rule : profile.rules) {
    if (to_libseccomp(rule.action) == default_action) continue;  // nothing to add
    for (const auto& name : rule.names) {
      int nr = seccomp_syscall_resolve_name(name.c_str());
      if (nr == __NR_SCMP_ERROR || nr < 0) {
        program.unknown_names.push_back(name);
        continue;
      }
      if (auto added = add_rule(ctx.get(), rule, nr, name); !added) return added.error();
    }
  }
  auto bpf = export_bpf(ctx.get());
  if (!bpf) return bpf.error();
  program.instructions = std::move(*bpf);
  return program;
}

}  // namespace paddock::seccomp
