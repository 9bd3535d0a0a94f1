#!/usr/bin/env python3
"""Serves bare git repositories over HTTP on 127.0.0.1 for the credential-helper tests.

Usage: OAUTHFLOW_AS_URL=http://127.0.0.1:PORT python front.py REPOSITORY_ROOT READY_FILE

Every request needs HTTP Basic credentials whose password is an access token that the
test authorization server's introspection endpoint (RFC 7662) calls active; anything
else gets 401 with a Basic challenge, which makes git ask its credential helpers. Git's
own `git-http-backend` (run as CGI) does the rest, so clone and push are real git.
"""
import base64
import json
import os
import socket
import subprocess
import sys
import urllib.parse
import urllib.request
from pathlib import Path
from socketserver import ThreadingMixIn
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

ROOT = Path(sys.argv[1])
READY = Path(sys.argv[2])
AS_URL = os.environ["OAUTHFLOW_AS_URL"]
# The confidential test client may introspect.
INTROSPECTION_CLIENT = ("oauthflow-confidential", "confidential-test-secret-0123456789")
BACKEND = str(Path(subprocess.check_output(["git", "--exec-path"], text=True).strip()) / "git-http-backend")


def active_user(authorization):
    """The user name of an active token in a Basic header, or None."""
    if not authorization.startswith("Basic "):
        return None
    try:
        user, _, token = base64.b64decode(authorization[6:]).decode().partition(":")
    except ValueError:
        return None
    request = urllib.request.Request(
        AS_URL + "/o/introspect/", data=urllib.parse.urlencode({"token": token}).encode(),
        headers={"Authorization": "Basic " + base64.b64encode(":".join(INTROSPECTION_CLIENT).encode()).decode()})
    with urllib.request.urlopen(request, timeout=10) as response:
        answer = json.load(response)
    return answer.get("username") or user if answer.get("active") else None


def app(environ, start_response):
    user = active_user(environ.get("HTTP_AUTHORIZATION", ""))
    if user is None:
        start_response("401 Unauthorized", [("WWW-Authenticate", 'Basic realm="oauthflow-test"'), ("Content-Length", "0")])
        return [b""]
    length = int(environ.get("CONTENT_LENGTH") or 0)
    body = environ["wsgi.input"].read(length) if length else b""
    cgi_env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "GIT_PROJECT_ROOT": str(ROOT),
        "GIT_HTTP_EXPORT_ALL": "1",
        "REMOTE_USER": user,
        "REQUEST_METHOD": environ["REQUEST_METHOD"],
        "PATH_INFO": environ.get("PATH_INFO", ""),
        "QUERY_STRING": environ.get("QUERY_STRING", ""),
        "CONTENT_TYPE": environ.get("CONTENT_TYPE", ""),
        "CONTENT_LENGTH": str(length),
        "GIT_HTTP_MAX_REQUEST_BUFFER": "10M",
    }
    if environ.get("HTTP_GIT_PROTOCOL"):
        cgi_env["GIT_PROTOCOL"] = environ["HTTP_GIT_PROTOCOL"]
    output = subprocess.run([BACKEND], input=body, env=cgi_env, capture_output=True, timeout=60).stdout
    head, _, content = output.partition(b"\r\n\r\n")
    if not _:
        head, _, content = output.partition(b"\n\n")
    status = "200 OK"
    headers = []
    for line in head.decode("latin-1").splitlines():
        name, _, value = line.partition(":")
        if name.lower() == "status":
            status = value.strip()
        elif name:
            headers.append((name, value.strip()))
    start_response(status, headers)
    return [content]


class ThreadingServer(ThreadingMixIn, WSGIServer):
    daemon_threads = True


class QuietHandler(WSGIRequestHandler):
    def log_message(self, format, *args):
        pass


probe = socket.socket()
probe.bind(("127.0.0.1", 0))
port = probe.getsockname()[1]
probe.close()
server = make_server("127.0.0.1", port, app, server_class=ThreadingServer, handler_class=QuietHandler)
READY.write_text(str(port))
server.serve_forever()
