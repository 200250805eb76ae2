#include "runtime/native/init/mount_plan.h"

#include <algorithm>

#include <gtest/gtest.h>

#include "runtime/command_aliases.h"
#include "runtime/sandbox_parts.h"
#include "runtime/shared_budgets.h"
#include "support/test_spec.h"

namespace paddock {
namespace {

using Kind = MountStep::Kind;
using Protect = MountStep::Protect;
using Type = HostLayout::Entry::Type;

HostLayout merged_usr_host() {
  HostLayout host;
  host.top_level = {{"bin", Type::kSymlink, "usr/bin"},
                    {"lib", Type::kSymlink, "usr/lib"},
                    {"lib64", Type::kSymlink, "usr/lib64"}};
  host.etc = {{"ssl", Type::kDirectory, ""},
              {"localtime", Type::kSymlink, "/usr/share/zoneinfo/UTC"},
              {"ld.so.cache", Type::kFile, ""}};
  return host;
}

MountPlan plan(const TestSpec& spec = {}) {
  return plan_mounts(shape_of(spec), plan_of(spec), merged_usr_host(), SandboxIdentity{});
}

std::ptrdiff_t index_of(const MountPlan& plan, Kind kind, const std::string& target = "") {
  auto it = std::find_if(plan.steps.begin(), plan.steps.end(), [&](const MountStep& step) {
    return step.kind == kind && (target.empty() || step.target == target);
  });
  return it == plan.steps.end() ? -1 : it - plan.steps.begin();
}

const MountStep* find(const MountPlan& plan, Kind kind, const std::string& target) {
  auto index = index_of(plan, kind, target);
  return index < 0 ? nullptr : &plan.steps[static_cast<std::size_t>(index)];
}

TEST(MountPlan, StartsStagedAndEndsWithPivotRoot) {
  MountPlan p = plan();
  ASSERT_FALSE(p.steps.empty());
  EXPECT_EQ(p.steps.front().kind, Kind::kStageRoot);
  EXPECT_EQ(p.steps.back().kind, Kind::kPivotRoot);
  EXPECT_EQ(std::count_if(p.steps.begin(), p.steps.end(),
                          [](const MountStep& s) { return s.kind == Kind::kPivotRoot; }),
            1);
}

TEST(MountPlan, UsrIsBoundAndSealedReadOnlyBeforeAnythingWritable) {
  MountPlan p = plan();
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
  std::vector<HostLayout::Entry> extra = {{"python3", Type::kDirectory, ""},
                                          {"matplotlibrc", Type::kFile, ""}};
  MountPlan p =
      plan_mounts(SandboxShape{}, RunPlan{}, merged_usr_host(), SandboxIdentity{}, false, extra);
  const MountStep* bind = find(p, Kind::kBind, "/etc/python3");
  ASSERT_NE(bind, nullptr);
  EXPECT_EQ(bind->source, "/etc/python3");
  EXPECT_EQ(bind->protect, Protect::kSealedLater);
  EXPECT_LT(index_of(p, Kind::kBind, "/etc/python3"), index_of(p, Kind::kSeal, "/"));
  // A host file is bound read-only (sealed with the root), not copied.
  const MountStep* file = find(p, Kind::kBind, "/etc/matplotlibrc");
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
  MountPlan overlay = plan_mounts(shape_of(on_image), plan_of(on_image), HostLayout{},
                                  SandboxIdentity{}, false, extra);
  EXPECT_EQ(find(overlay, Kind::kBind, "/etc/python3"), nullptr);
}

TEST(MountPlan, MountPointsExistBeforeTheSeal) {
  MountPlan p = plan();
  auto seal = index_of(p, Kind::kSeal, "/");
  for (const char* dir : {"/dev", "/proc", "/tmp", "/work", "/etc", "/usr"}) {
    auto made = index_of(p, Kind::kMakeDir, dir);
    EXPECT_GE(made, 0) << dir;
    EXPECT_LT(made, seal) << dir;
  }
}

TEST(MountPlan, MergedUsrLinksAreRecreated) {
  MountPlan p = plan();
  const MountStep* bin = find(p, Kind::kSymlink, "/bin");
  ASSERT_NE(bin, nullptr);
  EXPECT_EQ(bin->content, "usr/bin");
  EXPECT_EQ(index_of(p, Kind::kBind, "/bin"), -1);
}

TEST(MountPlan, EtcIsCuratedNotTheHosts) {
  MountPlan p = plan();
  EXPECT_EQ(index_of(p, Kind::kBind, "/etc"), -1);
  const MountStep* passwd = find(p, Kind::kWriteFile, "/etc/passwd");
  ASSERT_NE(passwd, nullptr);
  EXPECT_NE(passwd->content.find("sandbox:x:1000:1000:"), std::string::npos);
  EXPECT_EQ(passwd->content.find("$"), std::string::npos);  // no password hashes
  EXPECT_EQ(index_of(p, Kind::kWriteFile, "/etc/shadow"), -1);
  EXPECT_EQ(find(p, Kind::kBind, "/etc/ld.so.cache")->source, "/etc/ld.so.cache");
  EXPECT_EQ(find(p, Kind::kSymlink, "/etc/localtime")->content, "/usr/share/zoneinfo/UTC");
  EXPECT_EQ(find(p, Kind::kBind, "/etc/ssl")->source, "/etc/ssl");
  EXPECT_EQ(index_of(p, Kind::kBind, "/etc/resolv.conf"), -1);  // no network, no resolver
  TestSpec host_network;
  host_network.network = NetworkMode::kHost;
  EXPECT_GE(index_of(plan(host_network), Kind::kBind, "/etc/resolv.conf"), 0);
}

TEST(MountPlan, AllowListHasNoSecrets) {
  for (const auto& entry : host_etc_allowlist()) {
    for (const char* secret : {"shadow", "gshadow", "sudoers", "ssh", "passwd", "group", "docker",
                               "subuid", "krb5", "machine-id"}) {
      EXPECT_EQ(entry.find(secret), std::string::npos) << entry;
    }
  }
}

TEST(MountPlan, DevicesAreBoundAsDevicesAndNothingElseIs) {
  MountPlan p = plan();
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
  MountPlan p = plan(spec);
  EXPECT_NE(find(p, Kind::kTmpfs, "/tmp")->options.find("size=1234567"), std::string::npos);
  EXPECT_NE(find(p, Kind::kTmpfs, "/dev/shm")->options.find("size=1234567"), std::string::npos);
  const MountStep* work = find(p, Kind::kTmpfs, "/work");
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
  MountPlan p = plan();
  const MountStep* devpts = find(p, Kind::kDevpts, "/dev/pts");
  ASSERT_NE(devpts, nullptr);
  EXPECT_NE(devpts->options.find("newinstance"), std::string::npos) << devpts->options;
  EXPECT_NE(devpts->options.find("max=" + std::to_string(kSandboxPtys)), std::string::npos)
      << devpts->options;
}

TEST(MountPlan, ProcIsMaskedLikeContainerRuntimesDo) {
  MountPlan p = plan();
  EXPECT_GE(index_of(p, Kind::kMaskWithNull, "/proc/kcore"), 0);
  EXPECT_GE(index_of(p, Kind::kMaskWithNull, "/proc/keys"), 0);
  EXPECT_GE(index_of(p, Kind::kBindSelfReadOnly, "/proc/sys"), 0);
  EXPECT_GT(index_of(p, Kind::kMaskWithNull, "/proc/kcore"), index_of(p, Kind::kProc, "/proc"));
}

TEST(MountPlan, UserBindsUseTheirSlotsAndAreReadOnly) {
  TestSpec spec;
  spec.binds = {{"/srv/data", "/data/in", false}, {"/home/me/x.py", "/work/x.py", false}};
  MountPlan p = plan(spec);
  auto seal = index_of(p, Kind::kSeal, "/");
  const MountStep* data = find(p, Kind::kBind, "/data/in");
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
  spec.image_root = ImageRoot::kFlattened;
  HostLayout image;
  image.flattened_image = true;
  image.top_level = {{"usr", Type::kDirectory, ""}, {"bin", Type::kSymlink, "usr/bin"}};
  image.etc = {{"ssl", Type::kDirectory, ""}, {"debian_version", Type::kFile, "12.8\n"}};
  MountPlan p = plan_mounts(shape_of(spec), plan_of(spec), image, SandboxIdentity{});
  EXPECT_EQ(index_of(p, Kind::kOverlayRoot), -1);
  const MountStep* usr = find(p, Kind::kBind, "/usr");
  ASSERT_NE(usr, nullptr);
  EXPECT_EQ(usr->source, "usr");
  EXPECT_EQ(usr->layer_slot, 0);
  EXPECT_EQ(usr->describe(), "binding the image's /usr on /usr");
  const MountStep* ssl = find(p, Kind::kBind, "/etc/ssl");
  ASSERT_NE(ssl, nullptr);
  EXPECT_EQ(ssl->source, "etc/ssl");
  EXPECT_EQ(ssl->layer_slot, 0);
  EXPECT_EQ(find(p, Kind::kSymlink, "/bin")->content, "usr/bin");
  EXPECT_EQ(find(p, Kind::kWriteFile, "/etc/debian_version")->content, "12.8\n");
  EXPECT_LT(index_of(p, Kind::kBind, "/usr"), index_of(p, Kind::kSeal, "/"));
  // The overlay plan of the same image binds nothing of it.
  spec.image_root = ImageRoot::kAuto;
  MountPlan overlay = plan_mounts(shape_of(spec), plan_of(spec), HostLayout{}, SandboxIdentity{});
  EXPECT_GE(index_of(overlay, Kind::kOverlayRoot), 0);
  EXPECT_EQ(find(overlay, Kind::kBind, "/usr"), nullptr);
}

// llm-sandbox's /sandbox is the work directory under its old name, in the sealed root; an image
// keeps its own root, and a bind at /sandbox wins.
TEST(MountPlan, SandboxIsALinkToTheWorkDirectoryInTheSealedRoot) {
  MountPlan p = plan();
  const MountStep* link = find(p, Kind::kSymlink, "/sandbox");
  ASSERT_NE(link, nullptr);
  EXPECT_EQ(link->content, "/work");
  EXPECT_LT(index_of(p, Kind::kSymlink, "/sandbox"), index_of(p, Kind::kSeal, "/"));
  TestSpec image;
  image.image_layers = {"/store/layers/abc"};
  EXPECT_EQ(find(plan(image), Kind::kSymlink, "/sandbox"), nullptr);
  TestSpec bound;
  bound.binds = {{"/srv/data", "/sandbox/data", false}};
  MountPlan with_bind = plan(bound);
  EXPECT_EQ(find(with_bind, Kind::kSymlink, "/sandbox"), nullptr);
  EXPECT_NE(find(with_bind, Kind::kBind, "/sandbox/data"), nullptr);
}

// `python` is a link to the host's python3 in the sealed root, last on the PATH, where the host's
// /usr has no `python`; an image keeps its own root, and a bind over the folder wins.
TEST(MountPlan, PythonIsALinkToTheHostsPython3) {
  HostLayout host = merged_usr_host();
  EXPECT_EQ(find(plan(), Kind::kSymlink, std::string(kSandboxAliasDir) + "/python"), nullptr);
  host.python3_without_python = true;
  TestSpec spec;
  MountPlan p = plan_mounts(shape_of(spec), plan_of(spec), host, SandboxIdentity{});
  const std::string link_path = std::string(kSandboxAliasDir) + "/python";
  const MountStep* link = find(p, Kind::kSymlink, link_path);
  ASSERT_NE(link, nullptr);
  EXPECT_EQ(link->content, "/usr/bin/python3");
  EXPECT_LT(index_of(p, Kind::kSymlink, link_path), index_of(p, Kind::kSeal, "/"));
  EXPECT_NE(default_sandbox_env().front().find(std::string(":") + kSandboxAliasDir),
            std::string::npos);
  TestSpec image;
  image.image_layers = {"/store/layers/abc"};
  EXPECT_EQ(find(plan_mounts(shape_of(image), plan_of(image), host, SandboxIdentity{}),
                 Kind::kSymlink, link_path),
            nullptr);
  TestSpec bound;
  bound.binds = {{"/srv/bin", kSandboxAliasDir, false}};
  EXPECT_EQ(find(plan_mounts(shape_of(bound), plan_of(bound), host, SandboxIdentity{}),
                 Kind::kSymlink, link_path),
            nullptr);
}

TEST(MountPlan, EveryStepDescribesItself) {
  for (const auto& step : plan().steps) EXPECT_FALSE(step.describe().empty());
  EXPECT_EQ(find(plan(), Kind::kBind, "/usr")->describe(), "binding /usr on /usr");
}

}  // namespace
}  // namespace paddock
