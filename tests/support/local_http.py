"""What the tests' local package servers share (package_mirror.py, hostile_index.py): a quiet
request handler with one way to answer, gzip'd tarballs made in memory, and serving on a port
the kernel picks, printed once the server listens (tests wait for that line, not for a time)."""

import http.server
import io
import tarfile


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


def serve(handler):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    print(server.server_port, flush=True)
    server.serve_forever()
