// Images from the store as a sandbox's root: import of an OCI layout, an OCI archive and a
// docker save tarball (built by tests/support/make_test_image.py), the layers as a read-only
// overlay with whiteouts applied, the image's config honoured, corrupt input refused, layers
// shared between images and collected when unused.

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "support/harness.h"
#include "support/python_image.h"

namespace paddock::testing::image_test {
namespace {

namespace fs = std::filesystem;

class ImageTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/paddock-image-test-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
    store_ = dir_ + "/store";
  }
  void TearDown() override {
    run_cli({"gc", "--root", store_});  // layers may hold read-only directories
    fs::remove_all(dir_);
  }

  // Builds the test image formats into dir_/images (or a corrupt layout).
  void make_images(bool corrupt = false) {
    std::string command = "python3 " + source_dir() + "/tests/support/make_test_image.py " + dir_ +
                          "/images" + (corrupt ? " --corrupt" : "");
    ASSERT_EQ(std::system(command.c_str()), 0) << command;
  }
  CliResult paddock(std::vector<std::string> args) {
    args.insert(args.begin() + 1, {"--root", store_});
    return run_cli(args);
  }
  // What make_test_image.py built, as the sandbox must see it.
  void expect_the_image_as_built(const std::string& name, const std::string& context) {
    // The image's own command.
    CliResult run = paddock({"run", "--image", name});
    EXPECT_EQ(run.out, "layer two\n") << context << ": " << run.err;
    // Its environment, working directory and user; layer two's whiteout and opaque directory.
    run = paddock({"run", "--image", name, "--", "sh", "-c",
                   "pwd; echo $GREETING; id -un; id -u; id -g; ls /data; test -e /etc/gone || "
                   "echo gone"});
    EXPECT_EQ(run.out, "/app\nhello from the image\napp\n1234\n4321\nnew\ngone\n")
        << context << ": " << run.err;
  }
  std::size_t entries(const std::string& sub) {
    std::size_t count = 0;
    for ([[maybe_unused]] const auto& entry : fs::directory_iterator(store_ + "/" + sub)) ++count;
    return count;
  }

  std::string dir_;
  std::string store_;
};

TEST_F(ImageTest, EachFormatImportsAndRuns) {
  make_images();
  for (const auto& [path, name] : {std::pair<std::string, std::string>{"layout", "tiny:1"},
                                   {"oci.tar", "tiny:1"},
                                   {"docker.tar", "tiny-docker:2"}}) {
    CliResult imported = paddock({"import", dir_ + "/images/" + path});
    ASSERT_EQ(imported.exit_status, 0) << path << ": " << imported.err;
    EXPECT_NE(imported.out.find("docker.io/library/" + name), std::string::npos) << imported.out;
    // The image's own command.
    expect_the_image_as_built(name, path);
  }
  CliResult listed = paddock({"images"});
  EXPECT_NE(listed.out.find("docker.io/library/tiny:1"), std::string::npos);
  EXPECT_NE(listed.out.find("docker.io/library/tiny-docker:2"), std::string::npos);
}

TEST_F(ImageTest, TheImageIsReadOnlyAndTheSandboxAsIsolatedAsEver) {
  make_images();
  ASSERT_EQ(paddock({"import", dir_ + "/images/layout"}).exit_status, 0);
  CliResult run = paddock(
      {"run", "--image", "tiny:1", "--", "sh", "-c",
       "touch /bin/x 2>/dev/null || echo image read-only; touch /etc/motd 2>/dev/null || "
       "echo motd read-only; touch /work/ok && echo work writable; cat /proc/self/status | "
       "grep -E '^(CapEff|NoNewPrivs|Seccomp):'; test -e /usr/bin/python3 || echo no host usr"});
  EXPECT_EQ(run.out,
            "image read-only\nmotd read-only\nwork writable\nCapEff:\t0000000000000000\n"
            "NoNewPrivs:\t1\nSeccomp:\t2\nno host usr\n")
      << run.err;
}

// Where overlayfs cannot be mounted in a user namespace (forced here; scripts/vm-test runs a
// kernel without overlayfs), the root is bound from a flattened copy of the layers: the same
// files, the same read-only root, and the result says which root it was.
TEST_F(ImageTest, AFlattenedCopyShowsWhatTheOverlayShows) {
  make_images();
  ASSERT_EQ(paddock({"import", dir_ + "/images/layout"}).exit_status, 0);
  setenv("PADDOCK_IMAGE_ROOT", "flattened", 1);
  expect_the_image_as_built("tiny:1", "flattened");
  CliResult run =
      paddock({"run", "--image", "tiny:1", "--json", "--", "sh", "-c",
               "touch /bin/x 2>/dev/null || echo image read-only; touch /etc/motd 2>/dev/null || "
               "echo motd read-only; ls /etc/gone 2>/dev/null || echo no gone; cat /etc/hostname"});
  unsetenv("PADDOCK_IMAGE_ROOT");
  EXPECT_NE(run.out.find(R"("stdout":"image read-only\nmotd read-only\nno gone\nsandbox\n")"),
            std::string::npos)
      << run.out << run.err;
  EXPECT_NE(
      run.out.find(
          R"js("root":"image (flattened copy)","root_reason":"PADDOCK_IMAGE_ROOT=flattened")js"),
      std::string::npos)
      << run.out;
  // The copy is hard links: the layer's file and the copy's are one inode.
  EXPECT_EQ(entries("flat"), 1u);
  struct stat in_copy {
  }, in_layer{};
  std::string copy =
      store_ + "/flat/" + fs::directory_iterator(store_ + "/flat")->path().filename().string();
  ASSERT_EQ(lstat((copy + "/etc/motd").c_str(), &in_copy), 0);
  bool shared = false;
  for (const auto& layer : fs::directory_iterator(store_ + "/layers/sha256")) {
    if (lstat((layer.path().string() + "/etc/motd").c_str(), &in_layer) == 0) {
      shared = shared || in_layer.st_ino == in_copy.st_ino;
    }
  }
  EXPECT_TRUE(shared);
  // Unset again: overlayfs, and an invalid setting is one clear line.
  run = paddock({"run", "--image", "tiny:1", "--json", "--", "true"});
  EXPECT_NE(run.out.find(R"js("root":"image (overlayfs)")js"), std::string::npos) << run.out;
  setenv("PADDOCK_IMAGE_ROOT", "squashfs", 1);
  run = paddock({"run", "--image", "tiny:1", "--", "true"});
  unsetenv("PADDOCK_IMAGE_ROOT");
  EXPECT_EQ(run.exit_status, 125);
  EXPECT_NE(run.err.find("PADDOCK_IMAGE_ROOT='squashfs' is not one of auto, overlay, flattened"),
            std::string::npos)
      << run.err;
  // The copy goes with its image.
  ASSERT_EQ(paddock({"rmi", "tiny:1"}).exit_status, 0);
  ASSERT_EQ(paddock({"gc"}).exit_status, 0);
  EXPECT_EQ(entries("flat"), 0u);
}

TEST_F(ImageTest, ACorruptBlobIsRefusedAndNothingIsRecorded) {
  make_images(/*corrupt=*/true);
  CliResult imported = paddock({"import", dir_ + "/images/layout"});
  EXPECT_NE(imported.exit_status, 0);
  EXPECT_NE(imported.err.find("digest mismatch"), std::string::npos) << imported.err;
  EXPECT_EQ(paddock({"images", "--json"}).out, "[]\n");
  EXPECT_EQ(entries("tmp"), 0u);  // nothing half-made left behind
  CliResult run = paddock({"run", "--image", "tiny:1", "--", "true"});
  EXPECT_NE(run.exit_status, 0);
  EXPECT_NE(run.err.find("is not in the store"), std::string::npos) << run.err;
}

TEST_F(ImageTest, LayersAreSharedAndCollectedOnlyWhenUnused) {
  make_images();
  ASSERT_EQ(paddock({"import", dir_ + "/images/layout"}).exit_status, 0);
  ASSERT_EQ(paddock({"import", dir_ + "/images/docker.tar"}).exit_status, 0);
  EXPECT_EQ(entries("layers/sha256"), 2u);  // the same two layers, unpacked once
  ASSERT_EQ(paddock({"rmi", "tiny:1"}).exit_status, 0);
  ASSERT_EQ(paddock({"gc"}).exit_status, 0);
  EXPECT_EQ(entries("layers/sha256"), 2u);  // still used by tiny-docker:2
  EXPECT_EQ(paddock({"run", "--image", "tiny-docker:2"}).out, "layer two\n");
  ASSERT_EQ(paddock({"rmi", "tiny-docker:2"}).exit_status, 0);
  ASSERT_EQ(paddock({"gc"}).exit_status, 0);
  EXPECT_EQ(entries("layers/sha256"), 0u);
  EXPECT_EQ(entries("blobs/sha256"), 0u);
}

TEST_F(ImageTest, RootFlagWinsOverPaddockRoot) {
  make_images();
  std::string other = dir_ + "/from-environment";
  setenv("PADDOCK_ROOT", other.c_str(), 1);
  CliResult imported = paddock({"import", dir_ + "/images/oci.tar"});
  CliResult run = paddock({"run", "--image", "tiny:1"});
  unsetenv("PADDOCK_ROOT");
  ASSERT_EQ(imported.exit_status, 0) << imported.err;
  EXPECT_EQ(run.out, "layer two\n") << run.err;
  EXPECT_EQ(entries("layers/sha256"), 2u);
  EXPECT_FALSE(fs::exists(other + "/images.json"));
}

TEST_F(ImageTest, TheStoreIsPrivate) {
  make_images();
  ASSERT_EQ(paddock({"import", dir_ + "/images/oci.tar"}).exit_status, 0);
  struct stat info {};
  ASSERT_EQ(stat(store_.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0700u);
}

// Python from an mmdebstrap image (scripts/build-language-images, which scripts/test runs once
// into PADDOCK_TEST_PYTHON_LAYOUT): language code on an image, chosen by --image or the policy.
TEST_F(ImageTest, PythonFromAnImageRunsLanguageCode) {
  std::string error;
  std::string layout = python_image_layout(error);
  ASSERT_FALSE(layout.empty()) << error;
  ASSERT_EQ(paddock({"import", layout}).exit_status, 0);
  std::string code =
      "import numpy, matplotlib, pandas, sys\nprint(sys.executable, numpy.__name__)\n"
      "print(open('/etc/debian_version').read().strip() != '')";
  CliResult run =
      paddock({"run", "--image", "paddock/python:bookworm", "--lang", "python", "--code", code});
  EXPECT_EQ(run.out, "/usr/bin/python3 numpy\nTrue\n") << run.err;
  // `python` is there too, as in every python image (python-is-python3).
  run =
      paddock({"run", "--image", "paddock/python:bookworm", "--", "python", "-c", "print(6 * 7)"});
  EXPECT_EQ(run.out, "42\n") << run.err;
  // The same through the policy: rootfs image:... in a policy directory.
  fs::create_directories(dir_ + "/policies");
  std::FILE* policy = std::fopen((dir_ + "/policies/python.json").c_str(), "w");
  ASSERT_NE(policy, nullptr);
  std::fputs("{\"name\": \"python\", \"rootfs\": \"image:paddock/python:bookworm\"}\n", policy);
  std::fclose(policy);
  run = paddock({"run", "--policy-dir", dir_ + "/policies", "--lang", "python", "--code",
                 "import os; print(os.path.exists('/usr/lib/python3/dist-packages/pandas'))"});
  EXPECT_EQ(run.out, "True\n") << run.err;
  // A plot from the image's matplotlib is captured as on the host.
  run = paddock({"run", "--image", "paddock/python:bookworm", "--json", "--lang", "python",
                 "--code", "import matplotlib.pyplot as plt\nplt.plot([1, 2])\nplt.show()"});
  EXPECT_NE(run.out.find("\"mime_type\":\"image/png\""), std::string::npos) << run.out << run.err;
  // The same from a flattened copy of the image, as on kernels without overlayfs.
  setenv("PADDOCK_IMAGE_ROOT", "flattened", 1);
  run = paddock({"run", "--image", "paddock/python:bookworm", "--json", "--lang", "python",
                 "--code", "import matplotlib.pyplot as plt\nplt.plot([1, 2])\nplt.show()"});
  unsetenv("PADDOCK_IMAGE_ROOT");
  EXPECT_NE(run.out.find("\"mime_type\":\"image/png\""), std::string::npos) << run.out << run.err;
  EXPECT_NE(run.out.find("flattened copy"), std::string::npos) << run.out;
}

TEST_F(ImageTest, BadReferencesAndPathsGetOneClearLine) {
  CliResult bad = paddock({"run", "--image", "UPPER/case:x", "--", "true"});
  EXPECT_EQ(bad.exit_status, 125);
  EXPECT_NE(bad.err.find("is not in the store"), std::string::npos) << bad.err;
  CliResult missing = paddock({"import", dir_ + "/nothing-here"});
  EXPECT_EQ(missing.exit_status, 125);
  EXPECT_NE(missing.err.find("nothing-here"), std::string::npos) << missing.err;
  CliResult tag = paddock({"import", dir_, "--tag", "Bad Tag"});
  EXPECT_NE(tag.err.find("image reference 'Bad Tag'"), std::string::npos) << tag.err;
}

// An archive is hostile input. libarchive hands lzop, lrzip and grzip data to those programs when
// it has no library for them; import must not run any program on what it reads.
TEST_F(ImageTest, AnArchiveRunsNoDecompressorProgram) {
  fs::create_directories(dir_ + "/bin");
  std::string marker = dir_ + "/ran";
  for (const char* program : {"lzop", "lrzip", "grzip"}) {
    std::ofstream script(dir_ + "/bin/" + program);
    script << "#!/bin/sh\necho " << program << " >> " << marker << "\ncat >/dev/null\n";
    script.close();
    fs::permissions(dir_ + "/bin/" + program, fs::perms::owner_all);
  }
  const std::pair<const char*, std::string> archives[] = {
      {"lzop.tar.lzo", std::string("\x89LZO\0\r\n\x1a\n\x10\x30\x20\xa0\x09\x40\x01", 16)},
      {"lrzip.tar.lrz", std::string("LRZI\0\x06\0\0\0\0\0\0\0\0\0\0", 16)},
      {"grzip.tar.grz", std::string("GRZipII\0\x02\x04:)", 12)}};
  std::string path = std::string(getenv("PATH") != nullptr ? getenv("PATH") : "/usr/bin:/bin");
  setenv("PATH", (dir_ + "/bin:" + path).c_str(), 1);
  for (const auto& [name, head] : archives) {
    std::ofstream(dir_ + "/" + name) << head << std::string(4096, 'x');
    CliResult imported = paddock({"import", dir_ + "/" + name});
    EXPECT_EQ(imported.exit_status, 125) << name << ": " << imported.err;
    EXPECT_NE(imported.err.find(name), std::string::npos) << imported.err;
  }
  setenv("PATH", path.c_str(), 1);
  EXPECT_FALSE(fs::exists(marker)) << "import ran a program on the archive";
}

// An archive's documents are hostile input too: a manifest or index whose entries have the wrong
// types (a number where a name goes, an entry that is not an object) is refused with one line
// that names the archive and what is wrong, never a crash.
TEST_F(ImageTest, AnArchiveWithDocumentsOfTheWrongShapeIsRefusedWithOneLine) {
  const std::pair<const char*, const char*> documents[] = {
      {"manifest.json", "[7]"},
      {"manifest.json", R"([{"Config": 5}])"},
      {"manifest.json", R"([{"Config": "c.json", "Layers": [7]}])"},
      {"manifest.json", R"([{"Config": "c.json", "Layers": [], "RepoTags": [5]}])"},
      {"index.json", R"({"schemaVersion": 2, "manifests": [7]})"},
      {"index.json",
       R"({"schemaVersion": 2, "manifests": [{"digest": 5, "annotations": {"x": 1}}]})"},
      {"index.json", R"({"schemaVersion": 2, "manifests": [{"annotations": )"
                     R"({"org.opencontainers.image.ref.name": 5}}]})"}};
  int case_number = 0;
  for (const auto& [name, text] : documents) {
    std::string folder = dir_ + "/case" + std::to_string(++case_number);
    fs::create_directories(folder);
    std::ofstream(folder + "/" + name) << text;
    std::ofstream(folder + "/c.json") << "{}";
    std::ofstream(folder + "/oci-layout") << R"({"imageLayoutVersion": "1.0.0"})";
    std::string archive = folder + ".tar";
    std::string command = "tar -cf " + archive + " -C " + folder + " " + name + " c.json" +
                          (std::string(name) == "index.json" ? " oci-layout" : "");
    ASSERT_EQ(std::system(command.c_str()), 0) << command;
    CliResult imported = paddock({"import", archive});
    EXPECT_EQ(imported.exit_status, 125) << text << ": " << imported.err;
    EXPECT_NE(imported.err.find(archive), std::string::npos) << text << ": " << imported.err;
    EXPECT_NE(imported.err.find(name), std::string::npos) << text << ": " << imported.err;
    EXPECT_EQ(std::count(imported.err.begin(), imported.err.end(), '\n'), 1) << imported.err;
  }
}

}  // namespace
}  // namespace paddock::testing::image_test
