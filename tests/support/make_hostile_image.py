#!/usr/bin/env python3
"""Writes hostile one-layer images as an OCI image layout, for the tests that check paddock
resolves every path of an image inside the image, never through the host's view.

Usage: make_hostile_image.py OUT_DIR BAIT_DIR. Tags:
  etc-link:1      /etc is a symlink to BAIT_DIR (absolute, a host path)
  etc-proc:1      /etc is a symlink to /proc/self/cwd (paddock's working directory)
  etc-file:1      /etc is a regular file
  mountpoint:1    /opt/in is a symlink to BAIT_DIR: a mount point made below it would land there
  mountpoint-proc:1  /opt/in is a symlink to /proc/self/cwd
Each has busybox as /bin/busybox with sh, cat and ls.
"""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_test_image import digest, directory, entry, symlink, tar_of  # noqa: E402


def image(layer_entries):
    with open("/bin/busybox", "rb") as binary:
        busybox = binary.read()
    base = [directory("bin"), entry("bin/busybox", busybox, 0o755), symlink("bin/sh", "busybox"),
            symlink("bin/cat", "busybox"), symlink("bin/ls", "busybox")]
    layer = tar_of(base + layer_entries)
    config = json.dumps({
        "architecture": "amd64", "os": "linux",
        "config": {"Env": ["PATH=/bin"], "Cmd": ["sh"]},
        "rootfs": {"type": "layers", "diff_ids": [digest(layer)]},
    }).encode()
    manifest = json.dumps({
        "schemaVersion": 2, "mediaType": "application/vnd.oci.image.manifest.v1+json",
        "config": {"mediaType": "application/vnd.oci.image.config.v1+json",
                   "digest": digest(config), "size": len(config)},
        "layers": [{"mediaType": "application/vnd.oci.image.layer.v1.tar",
                    "digest": digest(layer), "size": len(layer)}],
    }).encode()
    return [layer, config, manifest]


def main():
    out, bait = sys.argv[1], sys.argv[2]
    images = {
        "etc-link:1": image([symlink("etc", bait)]),
        "etc-proc:1": image([symlink("etc", "/proc/self/cwd")]),
        "etc-file:1": image([entry("etc", b"not a directory\n")]),
        "mountpoint:1": image([directory("etc"), directory("opt"), symlink("opt/in", bait)]),
        "mountpoint-proc:1": image([directory("etc"), directory("opt"),
                                    symlink("opt/in", "/proc/self/cwd")]),
    }
    layout = os.path.join(out, "layout")
    os.makedirs(os.path.join(layout, "blobs", "sha256"), exist_ok=True)
    manifests = []
    for name, blobs in images.items():
        for blob in blobs:
            with open(os.path.join(layout, "blobs", "sha256", digest(blob)[7:]), "wb") as file:
                file.write(blob)
        manifests.append({"mediaType": "application/vnd.oci.image.manifest.v1+json",
                          "digest": digest(blobs[2]), "size": len(blobs[2]),
                          "platform": {"os": "linux", "architecture": "amd64"},
                          "annotations": {"org.opencontainers.image.ref.name": name}})
    with open(os.path.join(layout, "index.json"), "w") as file:
        json.dump({"schemaVersion": 2, "manifests": manifests}, file)
    with open(os.path.join(layout, "oci-layout"), "w") as file:
        file.write('{"imageLayoutVersion": "1.0.0"}')


if __name__ == "__main__":
    main()
