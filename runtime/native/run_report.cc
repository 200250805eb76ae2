#include "runtime/native/run_report.h"

#include <sys/wait.h>

#include <algorithm>
#include <csignal>
#include <cstring>
#include <iterator>

#include "core/text.h"
#include "runtime/native/egress_plan.h"
#include "runtime/native/image_root_fallback.h"
#include "runtime/native/init/channel.h"
#include "runtime/native/seccomp/syscall_names.h"
#include "runtime/rlimit_plan.h"
#include "runtime/shared_budgets.h"

namespace paddock::native {
namespace {

std::string describe_failure(const init::ChildMessage& failure, const Prepared& prepared,
                             const runtime::SandboxShape& shape, const runtime::RunPlan& plan) {
  std::string reason = std::strerror(failure.error);
  switch (failure.phase) {
    case init::SetupPhase::kMount:
      if (failure.detail >= 0 &&
          static_cast<std::size_t>(failure.detail) < prepared.mounts.steps.size()) {
        const init::MountStep& step =
            prepared.mounts.steps[static_cast<std::size_t>(failure.detail)];
        std::string text = step.describe() + ": " + reason;
        if (step.kind == init::MountStep::Kind::kOverlayRoot) {
          text +=
              " (overlayfs in a user namespace needs Linux 5.11 or newer and the overlay "
              "module; 'paddock doctor' tells whether this host has it. Without "
              "PADDOCK_IMAGE_ROOT=overlay, paddock falls back to a flattened copy)";
        }
        return text;
      }
      break;
    case init::SetupPhase::kLayerSource:
      if (failure.detail >= 0 &&
          static_cast<std::size_t>(failure.detail) < shape.image_layers.size()) {
        return "opening image layer " +
               shape.image_layers[static_cast<std::size_t>(failure.detail)] + ": " + reason;
      }
      break;
    case init::SetupPhase::kBindSource:
      if (failure.detail >= 0 && static_cast<std::size_t>(failure.detail) < shape.binds.size()) {
        return "opening bind source " +
               shape.binds[static_cast<std::size_t>(failure.detail)].host_path + ": " + reason;
      }
      break;
    case init::SetupPhase::kLateFile:
      if (failure.detail >= 0 &&
          static_cast<std::size_t>(failure.detail) < plan.files_after_install.size()) {
        return "writing " +
               plan.files_after_install[static_cast<std::size_t>(failure.detail)].path +
               " after the install step: " + reason;
      }
      break;
    case init::SetupPhase::kWorkdir:
      return "working directory " + prepared.cwd + " is not usable inside the sandbox (" + reason +
             "); use an existing directory such as " + shape.workdir + " or /tmp";
    case init::SetupPhase::kUcountLimits: {
      std::string file = "/proc/sys/user";
      if (failure.detail >= 0 &&
          static_cast<std::size_t>(failure.detail) < std::size(runtime::kSandboxUcountLimits)) {
        file += std::string("/") +
                runtime::kSandboxUcountLimits[static_cast<std::size_t>(failure.detail)].file;
      }
      return "lowering the sandbox's own " + file + ": " + reason +
             " (paddock-init writes it in the sandbox's user namespace before building the file "
             "system; run paddock where /proc is mounted read-write, as on a host)";
    }
    case init::SetupPhase::kRlimit:
      if (failure.detail >= 0 &&
          static_cast<std::size_t>(failure.detail) < prepared.rlimits.size()) {
        return "setting " +
               runtime::describe(prepared.rlimits[static_cast<std::size_t>(failure.detail)]) +
               ": " + reason;
      }
      break;
    default:
      break;
  }
  return std::string(init::describe(failure.phase)) + ": " + reason;
}

std::string exec_error(const init::ChildMessage& failure, const RunReported& run) {
  auto step = static_cast<std::size_t>(failure.step);
  std::string name;
  if (!run.steps.empty() && !run.steps[std::min(step, run.steps.size() - 1)].empty()) {
    name = run.steps[std::min(step, run.steps.size() - 1)][0];
  }
  std::string what = "cannot execute '" + name + "' in the sandbox: ";
  if (failure.error == ENOENT) {
    return what + "no such file in the sandbox's PATH (the sandbox sees the host's /usr only)";
  }
  if (failure.error == E2BIG) return what + "the argument list and environment are too long";
  return what + std::strerror(failure.error);
}

// The relay's counts by number, named, the profile's quiet ones marked; the pids cgroup's
// refusals.
runtime::Refusals refusals(const init::RefusedCalls& calls, const cgroup::CgroupUsage& usage,
                           const seccomp::BpfProgram* filter) {
  runtime::Refusals out;
  out.system_calls_counted = calls.counted;
  for (int i = 0; i < calls.used && i < init::RefusedCalls::kSlots; ++i) {
    std::string name = seccomp::syscall_name(calls.numbers[i]);
    bool quiet = filter != nullptr &&
                 std::find(filter->quiet_refusals.begin(), filter->quiet_refusals.end(), name) !=
                     filter->quiet_refusals.end();
    out.system_calls.push_back({std::move(name), calls.counts[i], quiet});
  }
  std::stable_sort(out.system_calls.begin(), out.system_calls.end(),
                   [](const auto& a, const auto& b) { return a.count > b.count; });
  out.system_calls_unnamed = calls.other;
  out.process_limit = usage.pids_max_events;
  return out;
}

}  // namespace

runtime::IsolationReport isolation_report(const runtime::SandboxShape& shape,
                                          const runtime::RunPlan& plan,
                                          const runtime::Limits& limits, const IdMapPlan& ids,
                                          const Prepared& prepared, const CgroupOutcome& cgroup) {
  runtime::IsolationReport report;
  report.namespaces = {"user", "mount", "pid", "ipc", "uts", "cgroup"};
  if (shape.network != runtime::NetworkMode::kHost) report.namespaces.push_back("network");
  report.id_mapping = to_string(ids.method);
  report.host_uid = ids.host_uid;
  report.host_gid = ids.host_gid;
  report.seccomp = true;
  report.seccomp_profile = shape.seccomp_profile_path.value_or("default");
  for (const auto& name : shape.seccomp_allow) report.seccomp_profile += " +" + name;
  for (const auto& name : shape.seccomp_deny) report.seccomp_profile += " -" + name;
  report.no_new_privs = true;
  report.capabilities_dropped = true;
  report.network = shape.network == runtime::NetworkMode::kNone   ? "none"
                   : shape.network == runtime::NetworkMode::kUser ? "user"
                                                                  : "host";
  // What the egress proxy let out, by whom.
  if (!shape.allowed_hosts.empty()) {
    report.network += "; the program reaches " + core::join(shape.allowed_hosts, ", ") +
                      " through the egress proxy";
  }
  if (plan.networked_steps > 0 && installer_uses_proxy(shape, plan)) {
    report.network += "; the installer reaches " + core::join(plan.installer_allowed_hosts, ", ") +
                      " through the egress proxy";
  }
  if (shape.image_layers.empty()) {
    report.root = "host";
  } else if (shape.image_root != runtime::ImageRoot::kFlattened) {
    report.root = "image (overlayfs)";
  } else {
    report.root = "image (flattened copy)";
    report.root_reason = overlay_refused_in_this_process()
                             ? "this kernel will not mount overlayfs in a user namespace"
                             : "PADDOCK_IMAGE_ROOT=flattened";
  }
  report.limits_mode = cgroup.directory.empty() ? "rlimit" : "cgroup2";
  report.limits_reason = cgroup.reason;
  report.cgroup = cgroup.directory;
  if (!cgroup.directory.empty()) {
    for (const auto& write : cgroup::plan_cgroup_limits(limits, false)) {
      report.limits.push_back(write.file + "=" + write.value);
    }
  } else {
    report.not_enforced = runtime::totals_rlimits_cannot_enforce();
  }
  for (const auto& setting : prepared.rlimits) report.limits.push_back(runtime::describe(setting));
  report.limits.push_back("wall_seconds=" + std::to_string(limits.wall_seconds));
  report.limits.push_back("tmpfs_work_bytes=" + std::to_string(limits.work_bytes));
  if (limits.work_files != 0) {
    report.limits.push_back("tmpfs_work_files=" + std::to_string(limits.work_files));
  }
  report.limits.push_back("tmpfs_tmp_bytes=" + std::to_string(limits.tmp_bytes));
  return report;
}

core::Result<runtime::RunResult> to_run_result(const runtime::SandboxShape& shape,
                                               const runtime::RunPlan& plan, const RunReported& run,
                                               const Prepared& prepared, const IdMapPlan& ids,
                                               Supervised&& done, const CgroupOutcome& cgroup) {
  runtime::RunResult result;
  result.backend = "native";
  result.stdout_data = std::move(done.stdout_data);
  result.stderr_data = std::move(done.stderr_data);
  result.duration_ms = done.duration_ms;
  result.cpu_ms = (done.usage.ru_utime.tv_sec + done.usage.ru_stime.tv_sec) * 1000 +
                  (done.usage.ru_utime.tv_usec + done.usage.ru_stime.tv_usec) / 1000;
  result.max_rss_kb = done.usage.ru_maxrss;
  // The cgroup counts every process, also those killed with the namespace and never reaped
  // into init's rusage.
  if (cgroup.usage.cpu_usec) result.cpu_ms = *cgroup.usage.cpu_usec / 1000;
  result.oom_killed = cgroup.usage.oom_killed;
  result.memory_peak_bytes = cgroup.usage.memory_peak_bytes;
  result.refused = refusals(done.refused, cgroup.usage, prepared.seccomp.get());
  result.isolation = isolation_report(shape, plan, run.limits, ids, prepared, cgroup);

  // A command that timed out may still have its exit reported (a session's init reaps it).
  if (done.payload_status && !done.timed_out && !done.cancelled) {
    int status = *done.payload_status;
    result.step = done.payload_step;
    if (WIFEXITED(status)) {
      result.outcome = runtime::Outcome::kExited;
      result.exit_code = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
      result.outcome = runtime::Outcome::kSignaled;
      result.signal = WTERMSIG(status);
      result.exit_code = 128 + result.signal;
    }
    if (done.setup_failure && done.setup_failure->kind == init::ChildMessageKind::kExecFailed) {
      result.outcome = runtime::Outcome::kExecFailed;
      result.exec_error = exec_error(*done.setup_failure, run);
      result.exit_code = done.setup_failure->error == ENOENT ? 127 : 126;
    } else if (done.setup_failure) {
      return core::Error{
          done.setup_failure->error,
          "sandbox setup failed: " + describe_failure(*done.setup_failure, prepared, shape, plan)};
    }
    return result;
  }
  if (done.timed_out || done.cancelled) {
    result.outcome = done.timed_out ? runtime::Outcome::kTimedOut : runtime::Outcome::kCancelled;
    // The step last known to run (an installer's end is a step boundary).
    result.step = done.payload_step;
    result.signal = SIGKILL;
    result.exit_code = 128 + SIGKILL;
    return result;
  }
  if (done.setup_failure) {
    return core::Error{
        done.setup_failure->error,
        "sandbox setup failed: " + describe_failure(*done.setup_failure, prepared, shape, plan)};
  }
  if (cgroup.usage.oom_killed) {  // the OOM killer chose init itself: the sandbox is gone
    result.outcome = runtime::Outcome::kSignaled;
    result.signal = SIGKILL;
    result.exit_code = 128 + SIGKILL;
    return result;
  }
  return core::Error{EIO, "the sandbox's init ended without reporting (wait status " +
                              std::to_string(done.init_status) + ")"};
}

}  // namespace paddock::native
