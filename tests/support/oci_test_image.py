#!/usr/bin/python3
"""Writes the tiny test images of tests/integration/registry_test.cc as an OCI image layout.

Usage: oci_test_image.py DIR. Tags in DIR (for `skopeo copy oci:DIR:TAG ...`):
  tiny     linux/amd64: a gzip layer (static busybox as /bin/sh and /bin/cat), a zstd layer and
           a plain tar layer with text files
  multi    an image index of tiny's manifest and a linux/arm64 manifest whose /arch.txt says arm64
  gzipped  tiny's index again, with gzip layers only (Docker's formats have no zstd): the suite
           pushes it as a Docker manifest list of Docker schema-2 manifests
  corrupt  an image with a layer of its own (the test breaks that blob in the registry)
Prints JSON naming the digests the test needs. Everything is deterministic but the arm64 and
corrupt layers, which carry a nonce so that no other image (or earlier run) shares them.
"""

import gzip
import hashlib
import io
import json
import os
import subprocess
import sys
import tarfile

BUSYBOX = "/bin/busybox"


def digest(data):
    return "sha256:" + hashlib.sha256(data).hexdigest()


def tar_of(entries):
    """entries: (name, bytes) for files, (name, None, target) for symlinks."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as tar:
        dirs = set()
        for entry in entries:
            parts = entry[0].split("/")[:-1]
            for i in range(1, len(parts) + 1):
                directory = "/".join(parts[:i])
                if directory not in dirs:
                    dirs.add(directory)
                    info = tarfile.TarInfo(directory)
                    info.type = tarfile.DIRTYPE
                    info.mode = 0o755
                    info.mtime = 1700000000
                    tar.addfile(info)
            info = tarfile.TarInfo(entry[0])
            info.mtime = 1700000000
            if entry[1] is None:
                info.type = tarfile.SYMTYPE
                info.linkname = entry[2]
                tar.addfile(info)
            else:
                info.size = len(entry[1])
                info.mode = 0o755 if entry[0].startswith("bin/") else 0o644
                tar.addfile(info, io.BytesIO(entry[1]))
    return buffer.getvalue()


class Layout:
    def __init__(self, root):
        self.root = root
        os.makedirs(os.path.join(root, "blobs", "sha256"), exist_ok=True)
        with open(os.path.join(root, "oci-layout"), "w") as f:
            json.dump({"imageLayoutVersion": "1.0.0"}, f)
        self.index = []

    def blob(self, data, media_type):
        name = digest(data)
        with open(os.path.join(self.root, "blobs", "sha256", name[7:]), "wb") as f:
            f.write(data)
        return {"mediaType": media_type, "digest": name, "size": len(data)}

    def layer(self, entries, compression):
        raw = tar_of(entries)
        if compression == "gzip":
            data = gzip.compress(raw, mtime=0)
            media = "application/vnd.oci.image.layer.v1.tar+gzip"
        elif compression == "zstd":
            data = subprocess.run(["zstd", "-q", "-c"], input=raw, check=True,
                                  stdout=subprocess.PIPE).stdout
            media = "application/vnd.oci.image.layer.v1.tar+zstd"
        else:
            data = raw
            media = "application/vnd.oci.image.layer.v1.tar"
        return self.blob(data, media), digest(raw)

    def image(self, layers, architecture):
        config = {
            "architecture": architecture,
            "os": "linux",
            "config": {"Env": ["PATH=/bin", "TINY=1"], "Cmd": ["/bin/cat", "/hello.txt"]},
            "rootfs": {"type": "layers", "diff_ids": [diff_id for _, diff_id in layers]},
        }
        config_descriptor = self.blob(json.dumps(config, sort_keys=True).encode(),
                                      "application/vnd.oci.image.config.v1+json")
        manifest = {
            "schemaVersion": 2,
            "mediaType": "application/vnd.oci.image.manifest.v1+json",
            "config": config_descriptor,
            "layers": [descriptor for descriptor, _ in layers],
        }
        descriptor = self.blob(json.dumps(manifest, sort_keys=True).encode(),
                               "application/vnd.oci.image.manifest.v1+json")
        descriptor["platform"] = {"architecture": architecture, "os": "linux"}
        return descriptor

    def tag(self, descriptor, name):
        entry = dict(descriptor)
        entry["annotations"] = {"org.opencontainers.image.ref.name": name}
        self.index.append(entry)

    def write_index(self):
        with open(os.path.join(self.root, "index.json"), "w") as f:
            json.dump({"schemaVersion": 2, "mediaType": "application/vnd.oci.image.index.v1+json",
                       "manifests": self.index}, f)


def main():
    root = sys.argv[1]
    nonce = os.urandom(8).hex().encode()
    with open(BUSYBOX, "rb") as f:
        busybox = f.read()
    base = [("bin/busybox", busybox), ("bin/sh", None, "busybox"), ("bin/cat", None, "busybox")]
    layout = Layout(root)

    amd64 = layout.image([
        layout.layer(base + [("hello.txt", b"hello from a pulled image\n")], "gzip"),
        layout.layer([("etc/tiny/zstd.txt", b"from a zstd layer\n")], "zstd"),
        layout.layer([("arch.txt", b"amd64\n"), ("plain.txt", b"from a plain layer\n")], "none"),
    ], "amd64")
    layout.tag(amd64, "tiny")

    arm64 = layout.image([
        layout.layer(base + [("hello.txt", b"hello from a pulled image\n")], "gzip"),
        layout.layer([("arch.txt", b"arm64\n"), ("nonce.txt", nonce)], "gzip"),
    ], "arm64")
    index = {
        "schemaVersion": 2,
        "mediaType": "application/vnd.oci.image.index.v1+json",
        "manifests": [amd64, arm64],
    }
    index_descriptor = layout.blob(json.dumps(index, sort_keys=True).encode(),
                                   "application/vnd.oci.image.index.v1+json")
    layout.tag(index_descriptor, "multi")

    amd64_gzip = layout.image([
        layout.layer(base + [("hello.txt", b"hello from a pulled image\n")], "gzip"),
        layout.layer([("arch.txt", b"amd64\n")], "gzip"),
    ], "amd64")
    gzipped = dict(index, manifests=[amd64_gzip, arm64])
    layout.tag(layout.blob(json.dumps(gzipped, sort_keys=True).encode(),
                           "application/vnd.oci.image.index.v1+json"), "gzipped")

    corrupt_layer, corrupt_diff_id = layout.layer(
        [("corrupt.txt", b"this blob gets broken " + nonce + b"\n")], "gzip")
    corrupt = layout.image([(corrupt_layer, corrupt_diff_id)], "amd64")
    layout.tag(corrupt, "corrupt")

    layout.write_index()
    json.dump({
        "tiny": amd64["digest"],
        "multi": index_descriptor["digest"],
        "arm64": arm64["digest"],
        "corrupt": corrupt["digest"],
        "corrupt_layer": corrupt_layer["digest"],
    }, sys.stdout)


if __name__ == "__main__":
    main()
