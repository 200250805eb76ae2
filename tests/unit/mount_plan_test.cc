#include "runtime/native/init/mount_plan.h"

#include <algorithm>

#include <gtest/gtest.h>

#include "runtime/command_aliases.h"
#include "runtime/sandbox_parts.h"
#include "runtime/shared_budgets.h"
#include "support/test_spec.h"

namespace paddock::mount_plan_test {
namespace {

using Kind = init::MountStep::Kind;
using Protect = init::MountStep::Protect;
using Type = init::HostLayout::Entry::Type;

init::HostLayout merged_usr_host() {
  init::HostLayout host;
  host.top_level = {{"bin", Type::kSymlink, "usr/bin"},
                    {"lib", Type::kSymlink, "usr/lib"},
                    {"lib64", Type::kSymlink, "usr/lib64"}};
  host.etc = {{"ssl", Type::kDirectory, ""},
              {"localtime", Type::kSymlink, "/usr/share/zoneinfo/UTC"},
              {"ld.so.cache", Type::kFile, ""}};
  return host;
}

init::MountPlan plan(const TestSpec& spec = {}) {
  return init::plan_mounts(shape_of(spec), plan_of(spec), merged_usr_host(),
                           init::SandboxIdentity{});
}

std::ptrdiff_t index_of(const init::MountPlan& plan, Kind kind, const std::string& target = "") {
  auto it = std::find_if(plan.steps.begin(), plan.steps.end(), [&](const init::MountStep& step) {
    return step.kind == kind && (target.empty() || step.target == target);
  });
  return it == plan.steps.end() ? -1 : it - plan.steps.begin();
}

const init::MountStep* find(const init::MountPlan& plan, Kind kind, const std::string& target) {
  auto index = index_of(plan, kind, target);
  return index < 0 ? nullptr : &plan.steps[static_cast<std::size_t>(index)];
}

TEST(MountPlan, StartsStagedAndEndsWithPivotRoot) {
  init::MountPlan p = plan();
  ASSERT_FALSE(p.steps.empty());
  EXPECT_EQ(p.steps.front().kind, Kind::kStageRoot);
  EXPECT_EQ(p.steps.back().kind, Kind::kPivotRoot);
  EXPECT_EQ(std::count_if(p.steps.begin(), p.steps.end(),
                          [](const init::MountStep& s) { return s.kind == Kind::kPivotRoot; }),
            1);
}

TEST(MountPlan, UsrIsBoundAndSealedReadOnlyBeforeAnythingWritable) {
  init::MountPlan p = plan();
  auto usr = index_of(p, Kind::kBind, "/usr");
  auto seal = index_of(p, Kind::kSeal, "/");
  ASSERT_GE(usr, 0);
  ASSERT_GE(seal, 0);
  EXPECT_LT(usr, seal);
  EXPECT_EQ(p.steps[static_cast<std::size_t>(usr)].source, "/usr");
  // Everything writable or device-bearing comes after the seal, so the seal cannot touch it...
  for (const char* target : {"/dev", "/tmp", "/work", "/dev/shm"}) {
    EXPECT_GT(index_of(p, Kind::kTmpfs, target), seal) << target;
  }
  EXPECT_GT(index_of(p, Kind::kProc, "/proc"), seal);
  // ...and every bind before the seal relies on it.
  for (std::size_t i = 0; i < static_cast<std::size_t>(seal); ++i) {
    if (p.steps[i].kind == Kind::kBind) {
      EXPECT_EQ(p.steps[i].protect, Protect::kSealedLater) << p.steps[i].target;
    }
  }
}

// A run's own /etc entries (its language's host_etc), given as probed: no host is touched.
TEST(MountPlan, ARunsExtraEtcEntriesAreBoundOrWrittenReadOnly) {
  std::vector<init::HostLayout::Entry> extra = {{"python3", Type::kDirectory, ""},
                                                {"matplotlibrc", Type::kFile, ""}};
  init::MountPlan p = init::plan_mounts(runtime::SandboxShape{}, runtime::RunPlan{},
                                        merged_usr_host(), init::SandboxIdentity{}, false, extra);
  const init::MountStep* bind = find(p, Kind::kBind, "/etc/python3");
  ASSERT_NE(bind, nullptr);
  EXPECT_EQ(bind->source, "/etc/python3");
  EXPECT_EQ(bind->protect, Protect::kSealedLater);
  EXPECT_LT(index_of(p, Kind::kBind, "/etc/python3"), index_of(p, Kind::kSeal, "/"));
  // A host file is bound read-only (sealed with the root), not copied.
  const init::MountStep* file = find(p, Kind::kBind, "/etc/matplotlibrc");
  ASSERT_NE(file, nullptr);
  EXPECT_EQ(file->source, "/etc/matplotlibrc");
  EXPECT_EQ(file->protect, Protect::kSealedLater);
  EXPECT_LT(index_of(p, Kind::kBind, "/etc/matplotlibrc"), index_of(p, Kind::kSeal, "/"));
  EXPECT_EQ(index_of(p, Kind::kWriteFile, "/etc/matplotlibrc"), -1);
  // Without them, neither is there.
  EXPECT_EQ(find(plan(), Kind::kBind, "/etc/python3"), nullptr);
  // An image brings its own /etc: the host's extras stay out of an overlay root.
  TestSpec on_image;
  on_image.image_layers = {"/store/layer"};
  init::MountPlan overlay =
      init::plan_mounts(shape_of(on_image), plan_of(on_image), init::HostLayout{},
                        init::SandboxIdentity{}, false, extra);
  EXPECT_EQ(find(overlay, Kind::kBind, "/etc/python3"), nullptr);
}

TEST(MountPlan, MountPointsExistBeforeTheSeal) {
  init::MountPlan p = plan();
  auto seal = index_of(p, Kind::kSeal, "/");
  for (const char* dir : {"/dev", "/proc", "/tmp", "/work", "/etc", "/usr"}) {
    auto made = index_of(p, Kind::kMakeDir, dir);
    EXPECT_GE(made, 0) << dir;
    EXPECT_LT(made, seal) << dir;
  }
}

TEST(MountPlan, MergedUsrLinksAreRecreated) {
  init::MountPlan p = plan();
  const init::MountStep* bin = find(p, Kind::kSymlink, "/bin");
  ASSERT_NE(bin, nullptr);
  EXPECT_EQ(bin->content, "usr/bin");
  EXPECT_EQ(index_of(p, Kind::kBind, "/bin"), -1);
}

TEST(MountPlan, EtcIsCuratedNotTheHosts) {
  init::MountPlan p = plan();
  EXPECT_EQ(index_of(p, Kind::kBind, "/etc"), -1);
  const init::MountStep* passwd = find(p, Kind::kWriteFile, "/etc/passwd");
  ASSERT_NE(passwd, nullptr);
  EXPECT_NE(passwd->content.find("sandbox:x:1000:1000:"), std::string::npos);
  EXPECT_EQ(passwd->content.find("$"), std::string::npos);  // no password hashes
  EXPECT_EQ(index_of(p, Kind::kWriteFile, "/etc/shadow"), -1);
  EXPECT_EQ(find(p, Kind::kBind, "/etc/ld.so.cache")->source, "/etc/ld.so.cache");
  EXPECT_EQ(find(p, Kind::kSymlink, "/etc/localtime")->content, "/usr/share/zoneinfo/UTC");
  EXPECT_EQ(find(p, Kind::kBind, "/etc/ssl")->source, "/etc/ssl");
  EXPECT_EQ(index_of(p, Kind::kBind, "/etc/resolv.conf"), -1);  // no network, no resolver
  TestSpec host_network;
  host_network.network = runtime::NetworkMode::kHost;
  EXPECT_GE(index_of(plan(host_network), Kind::kBind, "/etc/resolv.conf"), 0);
}

TEST(MountPlan, AllowListHasNoSecrets) {
  for (const auto& entry : init::host_etc_allowlist()) {
    for (const char* secret : {"shadow", "gshadow", "sudoers", "ssh", "passwd", "group", "docker",
                               "subuid", "krb5", "machine-id"}) {
      EXPECT_EQ(entry.find(secret), std::string::npos) << entry;
    }
  }
}

TEST(MountPlan, DevicesAreBoundAsDevicesAndNothingElseIs) {
  init::MountPlan p = plan();
  std::vector<std::string> devices;
  for (const auto& step : p.steps) {
    if (step.kind == Kind::kBind && step.protect == Protect::kDevice)
      devices.push_back(step.target);
  }
  EXPECT_EQ(devices, (std::vector<std::string>{"/dev/null", "/dev/zero", "/dev/full", "/dev/random",
                                               "/dev/urandom", "/dev/tty"}));
  EXPECT_GT(index_of(p, Kind::kRemountReadOnly, "/dev"),
            index_of(p, Kind::kSymlink, "/dev/stderr"));
}

TEST(MountPlan, WritableTmpfsesHaveSizes) {
  TestSpec spec;
  spec.limits.tmp_bytes = 1234567;
  spec.limits.work_bytes = 7654321;
  init::MountPlan p = plan(spec);
  EXPECT_NE(find(p, Kind::kTmpfs, "/tmp")->options.find("size=1234567"), std::string::npos);
  EXPECT_NE(find(p, Kind::kTmpfs, "/dev/shm")->options.find("size=1234567"), std::string::npos);
  const init::MountStep* work = find(p, Kind::kTmpfs, "/work");
  EXPECT_NE(work->options.find("size=7654321"), std::string::npos);
  EXPECT_NE(work->options.find("uid=1000"), std::string::npos);
  for (const auto& step : p.steps) {
    if (step.kind == Kind::kTmpfs) {
      EXPECT_NE(step.options.find("size="), std::string::npos);
    }
  }
}

// The host shares one pool of ptys among every devpts instance but its own reserve: a
// sandbox's instance has a cap of its own.
TEST(MountPlan, TheSandboxsDevptsHasItsOwnCap) {
  init::MountPlan p = plan();
  const init::MountStep* devpts = find(p, Kind::kDevpts, "/dev/pts");
  ASSERT_NE(devpts, nullptr);
  EXPECT_NE(devpts->options.find("newinstance"), std::string::npos) << devpts->options;
  EXPECT_NE(devpts->options.find("max=" + std::to_string(runtime::kSandboxPtys)), std::string::npos)
      << devpts->options;
}

TEST(MountPlan, ProcIsMaskedLikeContainerRuntimesDo) {
  init::MountPlan p = plan();
  EXPECT_GE(index_of(p, Kind::kMaskWithNull, "/proc/kcore"), 0);
  EXPECT_GE(index_of(p, Kind::kMaskWithNull, "/proc/keys"), 0);
  EXPECT_GE(index_of(p, Kind::kBindSelfReadOnly, "/proc/sys"), 0);
  EXPECT_GT(index_of(p, Kind::kMaskWithNull, "/proc/kcore"), index_of(p, Kind::kProc, "/proc"));
}

TEST(MountPlan, UserBindsUseTheirSlotsAndAreReadOnly) {
  TestSpec spec;
  spec.binds = {{"/srv/data", "/data/in", false}, {"/home/me/x.py", "/work/x.py", false}};
  init::MountPlan p = plan(spec);
  auto seal = index_of(p, Kind::kSeal, "/");
  const init::MountStep* data = find(p, Kind::kBind, "/data/in");
  ASSERT_NE(data, nullptr);
  EXPECT_EQ(data->bind_slot, 0);
  EXPECT_EQ(data->protect, Protect::kReadOnly);
  // Outside the writable areas, the directory and the mount point are made before the seal.
  EXPECT_LT(index_of(p, Kind::kMakeDir, "/data"), seal);
  EXPECT_LT(index_of(p, Kind::kMakeMountPoint, "/data/in"), seal);
  // Inside /work, the bind goes on after the work tmpfs.
  EXPECT_GT(index_of(p, Kind::kBind, "/work/x.py"), index_of(p, Kind::kTmpfs, "/work"));
  EXPECT_EQ(find(p, Kind::kBind, "/work/x.py")->bind_slot, 1);
}

// A flattened image (no overlayfs in a user namespace): every top-level directory of the copy,
// /usr included, and every /etc entry is bound from the copy through init's layer fd 0, by a
// path relative to it; paddock's identity files stay its own.
TEST(MountPlan, AFlattenedImageIsBoundFromTheCopy) {
  TestSpec spec;
  spec.image_layers = {"/store/flat/abc"};
  spec.image_root = runtime::ImageRoot::kFlattened;
  init::HostLayout image;
  image.flattened_image = true;
  image.top_level = {{"usr", Type::kDirectory, ""}, {"bin", Type::kSymlink, "usr/bin"}};
  image.etc = {{"ssl", Type::kDirectory, ""}, {"debian_version", Type::kFile, "12.8\n"}};
  init::MountPlan p =
      init::plan_mounts(shape_of(spec), plan_of(spec), image, init::SandboxIdentity{});
  EXPECT_EQ(index_of(p, Kind::kOverlayRoot), -1);
  const init::MountStep* usr = find(p, Kind::kBind, "/usr");
  ASSERT_NE(usr, nullptr);
  EXPECT_EQ(usr->source, "usr");
  EXPECT_EQ(usr->layer_slot, 0);
  EXPECT_EQ(usr->describe(), "binding the image's /usr on /usr");
  const init::MountStep* ssl = find(p, Kind::kBind, "/etc/ssl");
  ASSERT_NE(ssl, nullptr);
  EXPECT_EQ(ssl->source, "etc/ssl");
  EXPECT_EQ(ssl->layer_slot, 0);
  EXPECT_EQ(find(p, Kind::kSymlink, "/bin")->content, "usr/bin");
  EXPECT_EQ(find(p, Kind::kWriteFile, "/etc/debian_version")->content, "12.8\n");
  EXPECT_LT(index_of(p, Kind::kBind, "/usr"), index_of(p, Kind::kSeal, "/"));
  // The overlay plan of the same image binds nothing of it.
  spec.image_root = runtime::ImageRoot::kAuto;
  init::MountPlan overlay =
      init::plan_mounts(shape_of(spec), plan_of(spec), init::HostLayout{}, init::SandboxIdentity{});
  EXPECT_GE(index_of(overlay, Kind::kOverlayRoot), 0);
  EXPECT_EQ(find(overlay, Kind::kBind, "/usr"), nullptr);
}

// llm-sandbox's /sandbox is the work directory under its old name, in the sealed root; an image
// keeps its own root, and a bind at /sandbox wins.
TEST(MountPlan, SandboxIsALinkToTheWorkDirectoryInTheSealedRoot) {
  init::MountPlan p = plan();
  const init::MountStep* link = find(p, Kind::kSymlink, "/sandbox");
  ASSERT_NE(link, nullptr);
  EXPECT_EQ(link->content, "/work");
  EXPECT_LT(index_of(p, Kind::kSymlink, "/sandbox"), index_of(p, Kind::kSeal, "/"));
  TestSpec image;
  image.image_layers = {"/store/layers/abc"};
  EXPECT_EQ(find(plan(image), Kind::kSymlink, "/sandbox"), nullptr);
  TestSpec bound;
  bound.binds = {{"/srv/data", "/sandbox/data", false}};
  init::MountPlan with_bind = plan(bound);
  EXPECT_EQ(find(with_bind, Kind::kSymlink, "/sandbox"), nullptr);
  EXPECT_NE(find(with_bind, Kind::kBind, "/sandbox/data"), nullptr);
}

// `python` is a link to the host's python3 in the sealed root, last on the PATH, where the host's
// /usr has no `python`; an image keeps its own root, and a bind over the folder wins.
TEST(MountPlan, PythonIsALinkToTheHostsPython3) {
  init::HostLayout host = merged_usr_host();
  EXPECT_EQ(find(plan(), Kind::kSymlink, std::string(runtime::kSandboxAliasDir) + "/python"),
            nullptr);
  host.python3_without_python = true;
  TestSpec spec;
  init::MountPlan p =
      init::plan_mounts(shape_of(spec), plan_of(spec), host, init::SandboxIdentity{});
  const std::string link_path = std::string(runtime::kSandboxAliasDir) + "/python";
  const init::MountStep* link = find(p, Kind::kSymlink, link_path);
  ASSERT_NE(link, nullptr);
  EXPECT_EQ(link->content, "/usr/bin/python3");
  EXPECT_LT(index_of(p, Kind::kSymlink, link_path), index_of(p, Kind::kSeal, "/"));
  EXPECT_NE(
      runtime::default_sandbox_env().front().find(std::string(":") + runtime::kSandboxAliasDir),
      std::string::npos);
  TestSpec image;
  image.image_layers = {"/store/layers/abc"};
  EXPECT_EQ(find(init::plan_mounts(shape_of(image), plan_of(image), host, init::SandboxIdentity{}),
                 Kind::kSymlink, link_path),
            nullptr);
  TestSpec bound;
  bound.binds = {{"/srv/bin", runtime::kSandboxAliasDir, false}};
  EXPECT_EQ(find(init::plan_mounts(shape_of(bound), plan_of(bound), host, init::SandboxIdentity{}),
                 Kind::kSymlink, link_path),
            nullptr);
}

TEST(MountPlan, EveryStepDescribesItself) {
  for (const auto& step : plan().steps) EXPECT_FALSE(step.describe().empty());
  EXPECT_EQ(find(plan(), Kind::kBind, "/usr")->describe(), "binding /usr on /usr");
}

}  // namespace
}  // namespace paddock::mount_plan_test
