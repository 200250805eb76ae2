#pragma once

// Commands a sandbox on the host's root gains by another name, in a folder of its read-only
// root that is last on the default PATH: `python` for the host's python3 (llm-sandbox's images
// all have `python`, and code written for them calls it). Last, so that a host's or an image's
// own `python` wins. A hidden name: the sandbox's root shows no folder of the host's but /usr
// and what it binds (/opt, /srv... are the host's and stay invisible).

namespace paddock::runtime {

inline constexpr char kSandboxAliasDir[] = "/.paddock/bin";

}  // namespace paddock::runtime
