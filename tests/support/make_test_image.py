#!/usr/bin/env python3
"""Writes a tiny two-layer test image in three formats: an OCI image layout directory, the same
layout as a tar (an OCI archive), and a `docker save` tarball.

Layer one: busybox (static, from the host) as /bin/busybox with sh/cat/ls links, /etc/motd,
/etc/gone and /data/old. Layer two: a whiteout for /etc/gone, an opaque /data with /data/new,
and a new /etc/motd. The config sets Env, WorkingDir /app, User app (uid 1234 in the image's
/etc/passwd) and Cmd ["cat", "/etc/motd"].

Usage: make_test_image.py OUT_DIR [--corrupt]   (--corrupt: one layout blob does not match its
digest)
"""

import gzip
import hashlib
import io
import json
import os
import sys
import tarfile


def tar_of(entries):
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w", format=tarfile.PAX_FORMAT) as archive:
        for name, kind, data, mode, link in entries:
            info = tarfile.TarInfo(name)
            info.type, info.mode, info.linkname = kind, mode, link
            info.size = len(data) if kind == tarfile.REGTYPE else 0
            archive.addfile(info, io.BytesIO(data) if kind == tarfile.REGTYPE else None)
    return out.getvalue()


def entry(name, data=b"", mode=0o644, kind=tarfile.REGTYPE, link=""):
    return (name, kind, data, mode, link)


def directory(name):
    return entry(name, kind=tarfile.DIRTYPE, mode=0o755)


def symlink(name, target):
    return entry(name, kind=tarfile.SYMTYPE, mode=0o777, link=target)


def digest(data):
    return "sha256:" + hashlib.sha256(data).hexdigest()


def main():
    out = sys.argv[1]
    corrupt = "--corrupt" in sys.argv[2:]
    with open("/bin/busybox", "rb") as binary:
        busybox = binary.read()
    layer_one = tar_of([directory("bin"), entry("bin/busybox", busybox, 0o755),
                        symlink("bin/sh", "busybox"), symlink("bin/cat", "busybox"),
                        symlink("bin/ls", "busybox"), symlink("bin/touch", "busybox"),
                        symlink("bin/id", "busybox"), directory("etc"),
                        entry("etc/passwd", b"root:x:0:0::/root:/bin/sh\napp:x:1234:4321::/app:/bin/sh\n"),
                        entry("etc/motd", b"layer one\n"),
                        entry("etc/gone", b"removed by layer two\n"), directory("data"),
                        entry("data/old", b"old\n"), directory("app")])
    layer_two = tar_of([directory("etc"), entry("etc/.wh.gone"), entry("etc/motd", b"layer two\n"),
                        directory("data"), entry("data/.wh..wh..opq"), entry("data/new", b"new\n")])
    compressed_one = gzip.compress(layer_one, mtime=0)
    config = json.dumps({
        "architecture": "amd64", "os": "linux",
        "config": {"Env": ["PATH=/bin", "GREETING=hello from the image"],
                   "Cmd": ["cat", "/etc/motd"], "WorkingDir": "/app", "User": "app"},
        "rootfs": {"type": "layers", "diff_ids": [digest(layer_one), digest(layer_two)]},
    }).encode()
    manifest = json.dumps({
        "schemaVersion": 2, "mediaType": "application/vnd.oci.image.manifest.v1+json",
        "config": {"mediaType": "application/vnd.oci.image.config.v1+json",
                   "digest": digest(config), "size": len(config)},
        "layers": [{"mediaType": "application/vnd.oci.image.layer.v1.tar+gzip",
                    "digest": digest(compressed_one), "size": len(compressed_one)},
                   {"mediaType": "application/vnd.oci.image.layer.v1.tar",
                    "digest": digest(layer_two), "size": len(layer_two)}],
    }).encode()
    index = json.dumps({"schemaVersion": 2, "manifests": [{
        "mediaType": "application/vnd.oci.image.manifest.v1+json", "digest": digest(manifest),
        "size": len(manifest), "platform": {"os": "linux", "architecture": "amd64"},
        "annotations": {"org.opencontainers.image.ref.name": "tiny:1"}}]}).encode()

    layout = os.path.join(out, "layout")
    os.makedirs(os.path.join(layout, "blobs", "sha256"), exist_ok=True)
    for blob in (compressed_one, layer_two, config, manifest):
        data = blob + b"x" if corrupt and blob is layer_two else blob
        with open(os.path.join(layout, "blobs", "sha256", digest(blob)[7:]), "wb") as file:
            file.write(data)
    with open(os.path.join(layout, "index.json"), "wb") as file:
        file.write(index)
    with open(os.path.join(layout, "oci-layout"), "w") as file:
        file.write('{"imageLayoutVersion": "1.0.0"}')
    with tarfile.open(os.path.join(out, "oci.tar"), "w") as archive:
        archive.add(layout, arcname=".")
    saved = [("manifest.json", json.dumps([{"Config": digest(config)[7:] + ".json",
                                            "RepoTags": ["tiny-docker:2"],
                                            "Layers": ["one/layer.tar", "two/layer.tar"]}]).encode()),
             (digest(config)[7:] + ".json", config), ("one/layer.tar", layer_one),
             ("two/layer.tar", layer_two)]
    with tarfile.open(os.path.join(out, "docker.tar"), "w") as archive:
        for name, data in saved:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))


if __name__ == "__main__":
    main()
