"""What the tests' local package servers share (package_mirror.py, package_index.py,
hostile_index.py): a quiet request handler with one way to answer, gzip'd tarballs, zip files and
the paddock-probe wheel made in memory, and serving on a port
the kernel picks, printed once the server listens (tests wait for that line, not for a time)."""

import base64
import hashlib
import http.server
import io
import tarfile
import zipfile


class QuietHandler(http.server.BaseHTTPRequestHandler):
    def send(self, body, kind):
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def tarball(files, modes=None):
    """A .tar.gz of {path: text}, each 0644 unless `modes` names another."""
    data = io.BytesIO()
    with tarfile.open(fileobj=data, mode="w:gz") as tar:
        for name, text in files.items():
            body = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(body)
            info.mode = (modes or {}).get(name, 0o644)
            tar.addfile(info, io.BytesIO(body))
    return data.getvalue()


def zipped(files):
    """A .zip of {path: bytes}."""
    data = io.BytesIO()
    with zipfile.ZipFile(data, "w") as archive:
        for name, body in files.items():
            archive.writestr(name, body)
    return data.getvalue()


def probe_wheel(value):
    """The paddock-probe 1.0 wheel, whose module's VALUE is `value`, with the RECORD pip checks."""
    files = {
        "paddock_probe/__init__.py": f"VALUE = {value!r}\n".encode(),
        "paddock_probe-1.0.dist-info/METADATA":
            b"Metadata-Version: 2.1\nName: paddock-probe\nVersion: 1.0\n",
        "paddock_probe-1.0.dist-info/WHEEL":
            b"Wheel-Version: 1.0\nGenerator: paddock-tests\nRoot-Is-Purelib: true\n"
            b"Tag: py3-none-any\n",
    }
    record = ""
    for name, body in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(body).digest()).rstrip(b"=").decode()
        record += f"{name},sha256={digest},{len(body)}\n"
    record += "paddock_probe-1.0.dist-info/RECORD,,\n"
    files["paddock_probe-1.0.dist-info/RECORD"] = record.encode()
    return zipped(files)


def serve(handler):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    print(server.server_port, flush=True)
    server.serve_forever()
