#include "cli/published_run.h"

#include <unistd.h>

#include "runtime/session.h"
#include "runtime/warm_run.h"

namespace paddock::cli {

core::Result<runtime::RunResult> run_published(
    runtime::Backend& backend, const runtime::SandboxShape& shape, const runtime::RunPlan& plan,
    const std::vector<net::preview::PreviewPublish>& publish, runtime::RunObserver& observer,
    const std::function<void(const std::string& line)>& say) {
  if (!runtime::runs_warm(shape, plan)) {
    return core::invalid_input(
        "--publish runs the program in a session of its sandbox, which this run cannot use: it "
        "has an installer step, a --stdin file, or a --workdir outside the work directory; drop "
        "those, or open the port from `paddock mcp --allow-preview`");
  }
  auto sandbox = runtime::open_warm(backend, shape);
  if (!sandbox) return sandbox.error();
  runtime::PreviewSockets* previews = (*sandbox)->previews();
  auto factory =
      previews != nullptr
          ? previews->take_preview_factory()
          : core::Result<core::UniqueFd>(core::Error{ENOTSUP,
                                                     "this backend has no previews (only the "
                                                     "native backend has them)"});
  if (!factory) {
    (*sandbox)->close();
    return factory.error().context("--publish");
  }
  net::preview::PreviewForwarder forwarder(geteuid(), {});
  for (const auto& port : publish) {
    auto opened =
        forwarder.open("run", std::move(*factory), port.port, port.protocol, port.host_port);
    if (!opened) {
      (*sandbox)->close();
      return opened.error().context("--publish " + std::to_string(port.port));
    }
    say("paddock: the sandbox's port " + std::to_string(port.port) + " is open at " + opened->url +
        " while the program runs");
  }
  auto result = runtime::run_warm(**sandbox, plan, observer);
  forwarder.stop();
  (*sandbox)->close();
  return result;
}

}  // namespace paddock::cli
