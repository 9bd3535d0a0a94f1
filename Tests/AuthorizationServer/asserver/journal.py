"""Journals every request to the token endpoint, so tests count what the server really saw.

One line per request in STATE_DIR/token-requests.log: `GRANT_TYPE CLIENT_ID STATUS TOKEN_HASH`,
where TOKEN_HASH is the first 16 hex digits of SHA-256 over the refresh token sent (`-` for
other grants), so a test counts the refreshes of its own session while others run.
Tests read it to prove that N concurrent callers across processes caused exactly one
refresh at the server, not merely that the clients believe they sent one.
"""
import hashlib
import json
import threading

from django.conf import settings

_lock = threading.Lock()


class TokenRequestJournal:
    def __init__(self, get_response):
        self.get_response = get_response
        self.path = settings.STATE_DIR / "token-requests.log"

    def __call__(self, request):
        if request.method != "POST" or request.path != "/o/token/":
            return self.get_response(request)
        if request.content_type == "application/json":
            try:
                fields = json.loads(request.body.decode("utf-8"))
            except ValueError:
                fields = {}
            if not isinstance(fields, dict):
                fields = {}
        else:
            fields = request.POST
        grant_type = str(fields.get("grant_type") or "-")
        client_id = str(fields.get("client_id") or "-")
        refresh_token = fields.get("refresh_token")
        token_hash = hashlib.sha256(str(refresh_token).encode()).hexdigest()[:16] if refresh_token else "-"
        response = self.get_response(request)
        with _lock, open(self.path, "a", encoding="utf-8") as journal:
            journal.write(f"{grant_type} {client_id} {response.status_code} {token_hash}\n")
        return response
