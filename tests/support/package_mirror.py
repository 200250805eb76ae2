#!/usr/bin/env python3
"""A package mirror for the egress and library tests: one npm package and one Python wheel, both
named paddock-probe, served over plain HTTP on the host's 127.0.0.1, the wheel both from a package
index (/simple/) and from a pip --find-links page (/). Prints its port once it listens, then
serves until killed. Every request's path is appended to requests.log in the directory given, so
a test can tell the installer came here."""

import base64
import hashlib
import json
import os
import sys

from local_http import QuietHandler, probe_wheel, serve, tarball

root = sys.argv[1]


def npm_tarball():
    return tarball({
        "package/package.json": json.dumps({"name": "paddock-probe", "version": "1.0.0",
                                            "main": "index.js"}),
        "package/index.js": "module.exports = 'from the mirror';\n",
    })




TARBALL = npm_tarball()
WHEEL = probe_wheel('from the mirror')
WHEEL_NAME = "paddock_probe-1.0-py3-none-any.whl"


class Mirror(QuietHandler):
    def do_GET(self):
        with open(os.path.join(root, "requests.log"), "a") as log:
            log.write(self.path + "\n")
        base = f"http://127.0.0.1:{self.server.server_port}"
        path = self.path.split("?")[0]
        if path == "/paddock-probe":
            integrity = "sha512-" + base64.b64encode(hashlib.sha512(TARBALL).digest()).decode()
            manifest = {"name": "paddock-probe", "dist-tags": {"latest": "1.0.0"},
                        "versions": {"1.0.0": {"name": "paddock-probe", "version": "1.0.0",
                                               "main": "index.js",
                                               "dist": {"tarball": base + "/tarballs/probe.tgz",
                                                        "integrity": integrity}}}}
            self.send(json.dumps(manifest).encode(), "application/json")
        elif path == "/tarballs/probe.tgz":
            self.send(TARBALL, "application/octet-stream")
        elif path in ("/", "/simple/paddock-probe/", "/simple/paddock-probe"):
            digest = hashlib.sha256(WHEEL).hexdigest()
            page = f'<a href="{base}/wheels/{WHEEL_NAME}#sha256={digest}">{WHEEL_NAME}</a>'
            self.send(page.encode(), "text/html")
        elif path == "/wheels/" + WHEEL_NAME:
            self.send(WHEEL, "application/octet-stream")
        else:
            self.send_error(404)


serve(Mirror)
