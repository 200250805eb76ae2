#pragma once

// Turns "run this code in that language" into a sandbox's shape and a call's plan: the code
// becomes a file in the work directory, a compile command (if the language has one) a step, the
// run command the program, and the policy's environment, limits and network apply.

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/result.h"
#include "language/policy.h"
#include "language/screening.h"
#include "runtime/run_plan.h"
#include "runtime/run_result.h"
#include "runtime/sandbox_shape.h"

namespace paddock::language {

// The name the code gives itself where the policy's file or commands need one ({class}): Java's
// public class, by the policy's class_name pattern; else the policy's default ("Main").
std::string class_name_of(const LanguagePolicy& policy, const std::string& code);

// The files a run in this language writes into the work directory besides what the code makes:
// the code's own file and the policy's support files. Where the code's file is named after the
// code ({class}), the name the policy's default class gives it.
std::vector<std::string> language_work_files(const LanguagePolicy& policy);

// The folders of the work directory `workdir` that paddock keeps for itself in a session of this
// language, as absolute paths: workdir/.paddock (support files such as python's sitecustomize,
// plots, cut output) and each folder strictly inside `workdir` that the policy's environment
// points the language at (python's user site /work/.local, R's library, GEM_HOME, GOPATH). A share
// mounted at, inside or over one of them would stand in for what paddock put there.
std::vector<std::string> language_own_folders(const LanguagePolicy& policy,
                                              const std::string& workdir);

// `program_args` are appended to the run command.
// `libraries` are installed first, with the policy's installer and its install network, in the
// policy's install_env and `installer_env` ("K=V", the operator's own settings) only. A library
// that is not a registry name (the policy's library_names) is refused with one line naming it.
// A language run as the policy makes it, before the operator's settings and the call's own parts
// are laid over it (language/spec_builder.h). `limits` holds every limit: the builder puts the
// sandbox's into the shape and the timer and output cap into the plan when it is done.
struct LanguageRun {
  runtime::SandboxShape shape;
  runtime::RunPlan plan;
  runtime::Limits limits;
};

core::Result<LanguageRun> language_spec(const LanguagePolicy& policy, const std::string& code,
                                        const std::vector<std::string>& program_args,
                                        const std::vector<std::string>& libraries = {},
                                        const std::vector<std::string>& installer_env = {});

struct LanguageRunResult {
  runtime::RunResult run;
  std::string language;
  std::string phase;  // "compile" when the compiler ended the run, else "run"
  std::optional<ScreeningVerdict> screening;  // what screening found, when it was on
};

// `installed`: libraries were installed first (the phase may then be "install").
LanguageRunResult label_result(const LanguagePolicy& policy, runtime::RunResult run,
                               std::optional<ScreeningVerdict> screening = std::nullopt,
                               bool installed = false);
nlohmann::json to_json(const LanguageRunResult& result);

// The exit status of a run that code screening blocked: like a program that cannot be executed.
inline constexpr int kScreeningBlockedExitCode = 126;

// The result of a run that code screening blocked, so nothing ran:
// {"outcome": "blocked", "exit_code": 126, "language": ..., "screening": {...}}.
nlohmann::json blocked_result(const LanguagePolicy& policy, const ScreeningVerdict& verdict);

}  // namespace paddock::language
