#pragma once

// The MCP revisions paddock speaks, and what each requires of a result.
//
// Two eras at once. Legacy clients open with `initialize` and negotiate one of kLegacyVersions
// for the whole connection. 2026-07-28 clients skip the handshake: every request carries its
// protocol version and capabilities in `_meta`, and every result says `resultType`; cacheable
// results (lists, reads, discovery) also carry `ttlMs` and `cacheScope`.

#include <string>
#include <vector>

#include "mcp/json_rpc.h"
#include "net/egress/brokered_secrets.h"

namespace paddock::mcp {

inline const std::vector<std::string> kLegacyVersions = {"2025-11-25", "2025-06-18", "2025-03-26",
                                                         "2024-11-05"};
inline constexpr const char* kStatelessVersion = "2026-07-28";
inline constexpr const char* kVersionMetaKey = "io.modelcontextprotocol/protocolVersion";
inline constexpr const char* kCapabilitiesMetaKey = "io.modelcontextprotocol/clientCapabilities";

// The revision one request is served under.
struct Era {
  std::string version;
  bool stateless = false;  // 2026-07-28: per-request _meta, resultType
};

// The version to answer `initialize` with: the client's if paddock speaks it, else the newest
// legacy version (the client then decides whether it can go on).
std::string negotiate_version(const json& requested);

// Every version paddock speaks, newest first.
std::vector<std::string> supported_versions();

// The revision a request asks for through `_meta`, or nothing when it has none (legacy era).
// An unsupported version is an error -32022 that lists the supported ones.
struct EraChoice {
  bool from_meta = false;
  Era era;
  bool unsupported = false;
  RpcError error;
};
EraChoice era_from_meta(const json& params);

// How long and how widely a client may cache a result (2026-07-28).
struct CachePolicy {
  bool cacheable = false;
  long long ttl_ms = 0;
  bool shared = false;  // "public": nothing user-specific in it
};

// Adds what `era` requires of a result.
json finish_result(json result, const Era& era, const CachePolicy& cache = {});

json server_info();
json server_capabilities();
// What the guidance for the model says.
struct InstructionFacts {
  std::string shares = "none";  // Shares::summary() of the folders the user shared
  bool writable_share = false;  // one of them is :rw (download_file is listed)
  // --share-roots: "read-only" or "read-write" when the client's roots are shared; empty if not.
  std::string root_sharing;
  std::vector<std::string> allowed_hosts;
  std::string preinstalled;  // preinstalled_lines() of the policies, said once for every tool
  std::vector<net::egress::BrokeredSecret> secrets;  // by name and hosts, never their values
  bool ask_network = false;  // the user is asked about hosts the allowlist lacks
};

// Guidance for the model, sent with initialize and server/discover.
std::string server_instructions(const InstructionFacts& facts);

}  // namespace paddock::mcp
