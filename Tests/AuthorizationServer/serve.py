#!/usr/bin/env python3
"""Serves the test authorization server on 127.0.0.1.

Usage: OAUTHFLOW_AS_STATE=DIR python serve.py READY_FILE

Picks a free port, writes it to READY_FILE once listening, and serves until killed.
Threaded, and with TCP_NODELAY on every connection: Django's runserver keeps
connections alive and Nagle's algorithm with delayed ACKs adds ~45 ms a request.
"""
import os
import socket
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
ready_file = Path(sys.argv[1])

probe = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
probe.bind(("127.0.0.1", 0))
port = probe.getsockname()[1]
probe.close()
os.environ["OAUTHFLOW_AS_PORT"] = str(port)
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "asserver.settings")

import django

django.setup()
from django.core.servers.basehttp import ThreadedWSGIServer, WSGIRequestHandler
from django.core.wsgi import get_wsgi_application


class QuietHandler(WSGIRequestHandler):
    def log_message(self, format, *args):
        if os.environ.get("OAUTHFLOW_AS_VERBOSE"):
            super().log_message(format, *args)


class NoDelayServer(ThreadedWSGIServer):
    def get_request(self):
        connection, address = super().get_request()
        connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return connection, address


server = NoDelayServer(("127.0.0.1", port), QuietHandler)
server.set_app(get_wsgi_application())
ready_file.write_text(str(port))
try:
    server.serve_forever()
except KeyboardInterrupt:
    pass
