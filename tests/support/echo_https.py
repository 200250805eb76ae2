"""An HTTPS server for the brokered secrets' tests (brokered_secrets_test.cc): it answers every
request with what it received (the request line, the headers and the body), appends the same to a
log file so that a test sees what arrived even when the answer never reaches the sandbox, and
prints its port once it listens. Several names share it (their certificate's names).

usage: echo_https.py CERT KEY LOG [REDIRECT_TO]
With REDIRECT_TO, a request for /redirect is answered 302 to that URL, where {port} stands for
this server's own port. /big is answered with 4 MiB ended by the connection's close."""

import http.server
import socketserver
import ssl
import sys


class Echo(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def answer(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            body = b""
            while True:
                size = int(self.rfile.readline().split(b";")[0], 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    break
                body += self.rfile.read(size)
                self.rfile.readline()
        seen = (self.requestline + "\n" + str(self.headers) + body.decode("latin-1")).encode()
        with open(sys.argv[3], "ab") as log:
            log.write(seen + b"\n---\n")
        if self.path == "/redirect" and len(sys.argv) > 4:
            self.send_response(302)
            self.send_header("Location", sys.argv[4].replace("{port}", str(self.server.server_address[1])))
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if self.path == "/big":
            # 4 MiB, and the connection's end as its end: an answer framed by the close.
            self.send_response(200)
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(b"x" * (4 << 20))
            self.close_connection = True
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(seen)))
        self.end_headers()
        self.wfile.write(seen)

    do_GET = do_POST = do_PUT = answer

    def log_message(self, *args):
        pass


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    request_queue_size = 128

    # The handshake in each connection's own thread: one client that never sends its
    # ClientHello must not hold up the others (as a handshake in accept would). Its patience is
    # longer than the proxy's own deadlines (30 s for a client's unfinished request), as a real
    # API's keep-alive is, so that a test sees what the proxy does, not this server's timeout.
    def finish_request(self, request, client_address):
        request.settimeout(90)
        super().finish_request(context.wrap_socket(request, server_side=True), client_address)

    def handle_error(self, request, client_address):
        pass


context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain(sys.argv[1], sys.argv[2])
server = Server(("127.0.0.1", 0), Echo)
print(server.server_address[1], flush=True)
server.serve_forever()
