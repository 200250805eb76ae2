#!/usr/bin/env python3
"""A package index for every installer paddock's policies run, made when it starts and served
over plain HTTP on the host's 127.0.0.1 for the install tests (which reach it under a name, since
go never sends a loopback address through a proxy). Each ecosystem gets two packages:
one that installs (the probe, whose code says "from the index") and one whose build step fails on
purpose (the broken one). Usage: package_index.py DIRECTORY; it builds what it serves there,
prints its port once it listens, and appends each request's path to DIRECTORY/requests.log.

  pip   /simple/paddock-probe/ (a wheel), /simple/paddock-broken/ (an sdist whose in-tree build
        backend raises)
  npm   /npm/paddock-probe, /npm/paddock-broken (its install script exits 1)
  gem   /gem/ as `gem generate_index` lays it out (specs.4.8.gz, quick/Marshal.4.8/, gems/):
        paddock_probe, paddock_broken (its extconf.rb aborts); built with `gem build`
  R     /cran/src/contrib/PACKAGES: paddockProbe, paddockBroken (its R code stops when the build loads it),
        paddockNewer (needs R >= 99.0)
  Go    /go/ as a GOPROXY: paddock.test/probe, paddock.test/broken (does not compile)

Everything else is a 404, as an index says of a package it does not have."""

import base64
import hashlib
import json
import os
import subprocess
import sys
import tempfile

from local_http import QuietHandler, probe_wheel, serve, tarball, zipped

root = sys.argv[1]
MESSAGE = "from the index"
BROKEN = "the build step fails on purpose"


# pip: the probe wheel, and an sdist whose pyproject names an in-tree backend with no
# requirements (so pip needs nothing else from the index to reach the failing build).
def broken_sdist():
    fail = f"    raise SystemExit('paddock-broken: {BROKEN}')\n"
    return tarball({
        "paddock_broken-1.0/PKG-INFO": "Metadata-Version: 2.1\nName: paddock-broken\n"
                                       "Version: 1.0\n",
        "paddock_broken-1.0/pyproject.toml":
            '[build-system]\nrequires = []\nbuild-backend = "backend"\nbackend-path = ["."]\n',
        "paddock_broken-1.0/backend.py":
            "def get_requires_for_build_wheel(config_settings=None):\n" + fail +
            "def prepare_metadata_for_build_wheel(directory, config_settings=None):\n" + fail +
            "def build_wheel(directory, config_settings=None, metadata_directory=None):\n" + fail +
            "def build_sdist(directory, config_settings=None):\n" + fail,
    })


PIP = {
    "paddock-probe": ("paddock_probe-1.0-py3-none-any.whl", probe_wheel(MESSAGE)),
    "paddock-broken": ("paddock_broken-1.0.tar.gz", broken_sdist()),
}


# npm: a package, and one whose install script fails.
def npm_package(name, scripts):
    manifest = {"name": name, "version": "1.0.0", "main": "index.js"}
    if scripts:
        manifest["scripts"] = scripts
    return tarball({
        "package/package.json": json.dumps(manifest),
        "package/index.js": f"module.exports = {json.dumps(MESSAGE)};\n",
    })


NPM_SCRIPTS = {"paddock-broken": {"install": f"echo 'paddock-broken: {BROKEN}' >&2; exit 1"}}
NPM = {name: npm_package(name, NPM_SCRIPTS.get(name))
       for name in ("paddock-probe", "paddock-broken")}


# gem: built with `gem build` and indexed with `gem generate_index`, as a gem server lays out
# its files.
def gem_index():
    directory = os.path.join(root, "gem")
    os.makedirs(os.path.join(directory, "gems"), exist_ok=True)
    gems = {
        "paddock_probe": ({"lib/paddock_probe.rb":
                           f"module PaddockProbe\n  VALUE = {json.dumps(MESSAGE)}\nend\n"}, None),
        "paddock_broken": ({"ext/extconf.rb": f"abort 'paddock_broken: {BROKEN}'\n"},
                           "ext/extconf.rb"),
    }
    for name, (files, extension) in gems.items():
        with tempfile.TemporaryDirectory(dir=root) as source:
            for path, text in files.items():
                os.makedirs(os.path.dirname(os.path.join(source, path)), exist_ok=True)
                with open(os.path.join(source, path), "w") as out:
                    out.write(text)
            spec = (f"Gem::Specification.new do |s|\n  s.name = {name!r}\n  s.version = '1.0.0'\n"
                    f"  s.summary = 'paddock test gem'\n  s.authors = ['paddock']\n  s.license = 'MIT'\n"
                    f"  s.homepage = 'https://example.org/'\n"
                    f"  s.files = {sorted(files)!r}\n")
            if extension:
                spec += f"  s.extensions = [{extension!r}]\n"
            with open(os.path.join(source, name + ".gemspec"), "w") as out:
                out.write(spec + "end\n")
            subprocess.run(["gem", "build", name + ".gemspec"], cwd=source, check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           env=dict(os.environ, HOME=source))
            os.rename(os.path.join(source, f"{name}-1.0.0.gem"),
                      os.path.join(directory, "gems", f"{name}-1.0.0.gem"))
    subprocess.run(["gem", "generate_index", "--directory", directory], check=True,
                   stdout=subprocess.DEVNULL, env=dict(os.environ, HOME=directory))
    return directory


# R: source packages as R CMD build would leave them (the tarball of the package's directory),
# and the PACKAGES list install.packages reads first.
def r_package(name, depends, code):
    fields = f"Package: {name}\nVersion: 1.0\n" + (f"Depends: {depends}\n" if depends else "")
    description = (fields + "Title: Paddock Test\nDescription: For paddock's install tests.\n"
                   "License: MIT\nAuthor: paddock\nMaintainer: paddock <paddock@example.org>\n")
    files = {f"{name}/DESCRIPTION": description, f"{name}/NAMESPACE": "export(probe)\n",
             f"{name}/R/probe.R": code}
    return fields + "NeedsCompilation: no\n", tarball(files)


R = {
    "paddockProbe": r_package("paddockProbe", None,
                              f"probe <- function() {json.dumps(MESSAGE)}\n"),
    "paddockBroken": r_package("paddockBroken", None,
                               f"stop(\"paddockBroken: {BROKEN}\")\n"),
    "paddockNewer": r_package("paddockNewer", "R (>= 99.0)", "probe <- function() 1\n"),
}
R_PACKAGES = "\n".join(entry for entry, _ in R.values())


# Go: a module proxy (https://go.dev/ref/mod#goproxy-protocol).
def go_module(path, code):
    version = "v1.0.0"
    mod = f"module {path}\n\ngo 1.19\n"
    archive = zipped({f"{path}@{version}/go.mod": mod,
                      f"{path}@{version}/{path.rsplit('/', 1)[1]}.go": code})
    return {"list": version + "\n",
            f"{version}.info": json.dumps({"Version": version,
                                           "Time": "2024-01-01T00:00:00Z"}),
            f"{version}.mod": mod,
            f"{version}.zip": archive}


GO = {
    "paddock.test/probe": go_module(
        "paddock.test/probe", f"package probe\n\nconst Value = {json.dumps(MESSAGE)}\n"),
    "paddock.test/broken": go_module(
        "paddock.test/broken", f"package broken\n\nconst Value int = \"{BROKEN}\"\n"),
}

GEM_ROOT = gem_index()


class Index(QuietHandler):
    def do_GET(self):
        with open(os.path.join(root, "requests.log"), "a") as log:
            log.write(self.path + "\n")
        # Links back to the index by the name the installer asked for it (a proxy's test name).
        base = "http://" + self.headers.get("Host", f"127.0.0.1:{self.server.server_port}")
        path = self.path.split("?")[0]
        found = self.find(path, base)
        if found is None:
            self.send_error(404)
        else:
            self.send(*found)

    def find(self, path, base):
        if path.startswith("/simple/"):
            name = path[len("/simple/"):].strip("/")
            if name in PIP:
                file, data = PIP[name]
                digest = hashlib.sha256(data).hexdigest()
                return (f'<a href="{base}/files/{file}#sha256={digest}">{file}</a>'.encode(),
                        "text/html")
        if path.startswith("/files/"):
            for file, data in PIP.values():
                if path == "/files/" + file:
                    return data, "application/octet-stream"
        if path.startswith("/npm/"):
            name = path[len("/npm/"):]
            if name in NPM:
                data = NPM[name]
                integrity = "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()
                version = {"name": name, "version": "1.0.0", "main": "index.js",
                           "dist": {"tarball": f"{base}/npm-tarballs/{name}-1.0.0.tgz",
                                    "integrity": integrity}}
                if name in NPM_SCRIPTS:
                    version["scripts"] = NPM_SCRIPTS[name]
                manifest = {"name": name, "dist-tags": {"latest": "1.0.0"},
                            "versions": {"1.0.0": version}}
                return json.dumps(manifest).encode(), "application/json"
        if path.startswith("/npm-tarballs/"):
            for name, data in NPM.items():
                if path == f"/npm-tarballs/{name}-1.0.0.tgz":
                    return data, "application/octet-stream"
        if path.startswith("/gem/") and ".." not in path:
            file = os.path.join(GEM_ROOT, path[len("/gem/"):])
            if os.path.isfile(file):
                with open(file, "rb") as data:
                    return data.read(), "application/octet-stream"
        if path == "/cran/src/contrib/PACKAGES":
            return R_PACKAGES.encode(), "text/plain"
        if path.startswith("/cran/src/contrib/"):
            for name, (_, data) in R.items():
                if path == f"/cran/src/contrib/{name}_1.0.tar.gz":
                    return data, "application/x-gzip"
        if path.startswith("/go/") and "/@v/" in path:
            module, file = path[len("/go/"):].split("/@v/", 1)
            if module in GO and file in GO[module]:
                body = GO[module][file]
                return (body if isinstance(body, bytes) else body.encode()), "text/plain"
        return None


serve(Index)
