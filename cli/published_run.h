#pragma once

// `paddock run --publish`: the program runs in a session of its sandbox (runtime/warm_run.h),
// whose init makes the sockets previews reach the sandbox through (docs/previews.md). The ports
// open before the program starts and close when it ends; each one's URL is said on stderr.

#include <functional>
#include <string>
#include <vector>

#include "core/result.h"
#include "net/preview/forwarder.h"
#include "runtime/backend.h"

namespace paddock::cli {

core::Result<runtime::RunResult> run_published(
    runtime::Backend& backend, const runtime::SandboxShape& shape, const runtime::RunPlan& plan,
    const std::vector<net::preview::PreviewPublish>& publish, runtime::RunObserver& observer,
    const std::function<void(const std::string& line)>& say);

}  // namespace paddock::cli
