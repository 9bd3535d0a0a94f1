"""What the two idpyoidc test servers (Tests/ExchangeServer, Tests/PARServer) share: a threaded WSGI
server on 127.0.0.1, private files written whole, bounded request bodies, and the start-up that
makes the signing key, builds the idpyoidc Server, writes the description file and serves.

    import idpy_front
    sys.exit(idpy_front.run("exchange", "exchange-server.json", build))

`build(issuer, keyjar, state)` returns (wsgi_app, description): the description is written 0600 to
STATE_DIR/<file> once the server listens, and holds the client secrets.
"""

import json
import logging
import os
import secrets
import signal
import socketserver
import sys
from wsgiref.simple_server import WSGIRequestHandler
from wsgiref.simple_server import WSGIServer
from wsgiref.simple_server import make_server

from cryptojwt.jwk.rsa import new_rsa_key
from cryptojwt.key_jar import KeyJar

log = logging.getLogger("idpy-front")


def write_private(path, text):
    """Writes `text` to `path`, mode 0600."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as handle:
        handle.write(text)
    os.chmod(path, 0o600)


def write_description(path, description):
    """Writes the description whole, 0600, then renames it into place: a reader never sees half of it."""
    temporary = path + ".tmp"
    write_private(temporary, json.dumps(description, indent=2) + "\n")
    os.replace(temporary, path)


def read_body(environ, limit=None):
    """The request body as text. Raises ValueError when it is larger than `limit` or not UTF-8."""
    try:
        length = int(environ.get("CONTENT_LENGTH") or 0)
    except ValueError:
        length = 0
    if limit is not None and length > limit:
        raise ValueError("request body too large")
    try:
        return environ["wsgi.input"].read(length).decode("utf-8") if length > 0 else ""
    except UnicodeDecodeError:
        raise ValueError("request body is not UTF-8")


class ThreadingServer(socketserver.ThreadingMixIn, WSGIServer):
    daemon_threads = True
    allow_reuse_address = False


class QuietHandler(WSGIRequestHandler):
    def get_environ(self):
        environ = super().get_environ()
        environ["RAW_PATH"] = self.path  # undecoded, for a DPoP proof's htu
        return environ

    def log_message(self, format, *args):
        log.info("%s %s", self.address_string(), format % args)


def run(name, description_file, build):
    """Serves until SIGTERM; returns the exit status."""
    if len(sys.argv) != 2:
        print("usage: server.py STATE_DIR", file=sys.stderr)
        return 2
    state = os.path.abspath(sys.argv[1])
    os.makedirs(state, exist_ok=True)
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))

    httpd = make_server("127.0.0.1", 0, lambda e, s: [], server_class=ThreadingServer, handler_class=QuietHandler)
    issuer = f"http://127.0.0.1:{httpd.server_address[1]}"
    keyjar = KeyJar()
    signing = new_rsa_key(key_size=2048, kid=f"{name}-as-" + secrets.token_hex(4), use="sig")
    signing.alg = "RS256"
    keyjar.add_keys("", [signing])
    keyjar.add_keys(issuer, [signing])

    app, description = build(issuer, keyjar, state)
    httpd.set_app(app)
    write_description(os.path.join(state, description_file), description)
    log.info("serving %s", issuer)
    try:
        httpd.serve_forever(poll_interval=0.2)
    finally:
        httpd.server_close()
    return 0
