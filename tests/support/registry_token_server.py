#!/usr/bin/python3
"""A tiny token service for the distribution registry's `auth.token` mode, for tests.

Usage: registry_token_server.py KEY.pem CERT.pem ISSUER SERVICE USER:PASS PORT_FILE

Serves GET /token?service=..&scope=repository:NAME:ACTIONS on 127.0.0.1 (a free port, written to
PORT_FILE once listening). With Basic credentials equal to USER:PASS the token grants the scope
asked for; wrong credentials get 401; no credentials get a token granting nothing (as Docker
Hub does for a private repository), so the registry refuses the pull. Tokens are RS256 JWTs
whose x5c header carries CERT, the certificate the registry trusts (its rootcertbundle).
"""

import base64
import http.server
import json
import os
import ssl
import sys
import time
import urllib.parse

import jwt


def main():
    key_path, cert_path, issuer, service, creds, port_file = sys.argv[1:7]
    with open(key_path) as f:
        key = f.read()
    with open(cert_path) as f:
        der = ssl.PEM_cert_to_DER_cert(f.read())
    x5c = [base64.b64encode(der).decode()]

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            url = urllib.parse.urlparse(self.path)
            if url.path != "/token":
                self.send_error(404)
                return
            query = urllib.parse.parse_qs(url.query)
            header = self.headers.get("Authorization", "")
            subject = ""
            if header:
                given = ""
                if header.startswith("Basic "):
                    given = base64.b64decode(header[6:]).decode(errors="replace")
                if given != creds:
                    self.send_error(401, "bad credentials")
                    return
                subject = creds.split(":", 1)[0]
            access = []
            if subject:
                for scope in query.get("scope", []):
                    parts = scope.split(":")
                    if len(parts) == 3:
                        access.append({"type": parts[0], "name": parts[1],
                                       "actions": parts[2].split(",")})
            now = int(time.time())
            claims = {"iss": issuer, "sub": subject, "aud": query.get("service", [service])[0],
                      "exp": now + 300, "nbf": now - 10, "iat": now,
                      "jti": os.urandom(8).hex(), "access": access}
            token = jwt.encode(claims, key, algorithm="RS256", headers={"x5c": x5c})
            body = json.dumps({"token": token, "access_token": token,
                               "expires_in": 300}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    temp = port_file + ".tmp"
    with open(temp, "w") as f:
        f.write(str(server.server_address[1]))
    os.rename(temp, port_file)
    server.serve_forever()


if __name__ == "__main__":
    main()
