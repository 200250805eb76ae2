#include "runtime/native/native_backend.h"

#include "rootfs/image_store.h"
#include "runtime/native/artifacts.h"
#include "runtime/native/egress_plan.h"
#include "runtime/native/image_root_fallback.h"
#include "runtime/native/native_session.h"
#include "runtime/native/run_report.h"
#include "runtime/native/sandbox_launch.h"
#include "runtime/native/spec_validation.h"

namespace paddock::native {
namespace {

// One sandbox of `shape` running `plan`. Sets `refused` (and returns an error) when the kernel
// would not mount the image's overlay and a flattened copy can take its place.
core::Result<runtime::RunResult> run_once(const runtime::SandboxShape& shape,
                                          const runtime::RunPlan& plan,
                                          runtime::RunObserver& observer,
                                          const net::egress::SecretBroker& broker, bool& refused) {
  auto launched_or = launch_sandbox(shape, plan, observer, LaunchMode::kRun, broker);
  if (!launched_or) return launched_or.error();
  LaunchedSandbox& launched = **launched_or;
  // The installer's list must not serve the program: it is replaced before the next step
  // (checked when the plan was validated).
  auto program_list = allow_list(shape.allowed_hosts);
  if (!program_list) return program_list.error();
  launched.sandbox.at_step_boundary = [&launched, &program_list] {
    launched.network.detach();
    if (launched.egress) launched.egress->set_allowlist(std::move(*program_list));
  };
  runtime::Limits limits = runtime::limits_of(shape.limits, plan);
  Supervised done = supervise(launched.sandbox, limits, observer);
  // Nothing of the run may reach out any more: its proxy ends with it.
  net::egress::EgressRecord network;
  if (launched.egress) {
    launched.egress->stop();
    network = launched.egress->take_record();
  }
  CollectedArtifacts collected;
  if (done.workdir.valid() && !plan.collect.directories.empty()) {
    collected = collect_artifacts(done.workdir.get(), plan.collect);
  }
  done.workdir.reset();  // the sandbox's last file system goes with it
  CgroupOutcome outcome = finish_cgroup(launched);
  refused = done.setup_failure && overlay_refused(shape, *launched.prepared, *done.setup_failure);
  auto result = to_run_result(shape, plan, RunReported{plan.steps, limits}, *launched.prepared,
                              launched.ids, std::move(done), outcome);
  if (result) {
    result->artifacts = std::move(collected.artifacts);
    result->omit_artifacts(std::move(collected.omitted));
    result->network = std::move(network);
  }
  return result;
}

}  // namespace

core::Status NativeBackend::check(const runtime::SandboxShape& shape,
                                  const runtime::RunPlan& plan) const {
  return validate_spec(shape, plan);
}

core::Result<runtime::RunResult> NativeBackend::run(const runtime::SandboxShape& shape,
                                                    const runtime::RunPlan& plan,
                                                    runtime::RunObserver& observer) {
  return with_image_root_fallback<runtime::RunResult>(
      shape, [&](const runtime::SandboxShape& attempt, bool& refused) {
        return run_once(attempt, plan, observer, settings_.broker, refused);
      });
}

core::Result<std::unique_ptr<runtime::Session>> NativeBackend::open_session(
    const runtime::SandboxShape& shape, const runtime::RunPlan& base) {
  return NativeSession::open(shape, base, settings_.broker);
}

core::Result<bool> NativeBackend::has_image(const std::string& image) const {
  auto store = rootfs::ImageStore::open(settings_.store_root);
  if (!store) return store.error();
  auto found = store->find_image(image);
  if (found) return true;
  if (found.error().code == ENOENT) return false;
  return found.error();
}

core::Status NativeBackend::pull_image(const std::string& image,
                                       const runtime::PullProgress& progress) const {
  if (!settings_.puller) {
    return core::Error{ENOTSUP, "pulling " + image + " needs paddock-full; run 'paddock pull " +
                                    image + "' first"};
  }
  return settings_.puller(image, progress);
}

core::Result<runtime::ResolvedImage> NativeBackend::resolve_image(
    const std::string& image, const std::optional<std::string>& store_root) const {
  if (!settings_.image_root) return settings_.image_root.error();
  return runtime::resolve_store_image(image, store_root.value_or(settings_.store_root),
                                      *settings_.image_root);
}

}  // namespace paddock::native
