"""Exercises a running exchange server (Tests/ExchangeServer/server.py) the way the Swift tests
will, from the exchange-server.json it wrote:

    python check.py STATE_DIR/exchange-server.json

Discovery; subject tokens; an exchange with each client (client_secret_basic, private_key_jwt
RS256, client_secret_jwt HS256, assertions signed here with cryptojwt); audience, resource,
scope, requested_token_type and issued_token_type; an actor token; client_credentials; refused
exchanges and clients; client assertions, subject and actor tokens repeating a member name; the
request counts. Prints one line per check, exits 1 on the first failure.
"""

import base64
import json
import os
import stat
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid

from cryptojwt.jwk.jwk import key_from_jwk_dict
from cryptojwt.jwk.rsa import RSAKey
from cryptojwt.jwk.rsa import import_private_rsa_key_from_file
from cryptojwt.jwk.hmac import SYMKey
from cryptojwt.jws.jws import JWS
from cryptojwt.jws.jws import SIGNER_ALGS
from cryptojwt.key_jar import KeyJar
from cryptojwt.jwt import JWT

TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange"
ACCESS = "urn:ietf:params:oauth:token-type:access_token"
REFRESH = "urn:ietf:params:oauth:token-type:refresh_token"
JWT_TYPE = "urn:ietf:params:oauth:token-type:jwt"
ID_TOKEN = "urn:ietf:params:oauth:token-type:id_token"
ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"


def fail(message):
    print(f"FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def ok(message):
    print(f"ok   {message}")


def request(url, form=None, headers=None):
    data = urllib.parse.urlencode(form).encode() if form is not None else None
    req = urllib.request.Request(url, data=data, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=10) as response:
            return response.status, json.loads(response.read() or b"null"), response.headers
    except urllib.error.HTTPError as err:
        body = err.read()
        try:
            answer = json.loads(body)
        except ValueError:
            answer = body.decode(errors="replace")
        return err.code, answer, err.headers


def expect(condition, message, detail=None):
    if not condition:
        fail(message + (f": {detail}" if detail is not None else ""))
    ok(message)


def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def compact(value):
    return json.dumps(value, separators=(",", ":"))


def written_first(text, member):
    """The JSON object `text` with `member` ('"name":value') written before its own members."""
    return "{" + member + "," + text[1:]


def payload_written_first(token, member):
    """The compact JWT `token` with `member` written first in its payload (its signature kept, so
    no longer matching)."""
    header, payload, signature = token.split(".")
    text = base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)).decode()
    return ".".join([header, b64(written_first(text, member).encode()), signature])


class Check:
    def __init__(self, description_path):
        with open(description_path) as handle:
            self.d = json.load(handle)
        self.issuer = self.d["issuer"]
        self.token_endpoint = self.d["token_endpoint"]
        self.clients = self.d["clients"]
        self.expected_counts = {}
        self.verifier = KeyJar()

    # --- client authentication --------------------------------------------------------------
    def assertion(self, client, audience=None, alg=None, key=None, **extra):
        now = int(time.time())
        if audience is None:
            audience = self.issuer if client["assertion_audience"] == "issuer" else self.token_endpoint
        claims = {
            "iss": client["client_id"],
            "sub": client["client_id"],
            "aud": audience,
            "jti": uuid.uuid4().hex,
            "iat": now,
            "exp": now + 120,
        }
        claims.update(extra)
        if key is None:
            key = self.signing_key(client)
        return JWS(json.dumps(claims), alg=alg or client["signing_alg"]).sign_compact([key])

    def signing_key(self, client):
        if client["auth_method"] == "private_key_jwt":
            return RSAKey(priv_key=import_private_rsa_key_from_file(client["private_key_pem"]), kid=client["kid"])
        return SYMKey(key=client["client_secret"].encode())

    def signed_as_written(self, client, header, payload):
        """A client assertion signed over exactly the JSON texts header and payload, repeated
        members and all (cryptojwt's JWS writes a header of its own)."""
        key = self.signing_key(client)
        signing_input = b64(header.encode()) + "." + b64(payload.encode())
        secret = key.private_key() if isinstance(key, RSAKey) else key.key
        return signing_input + "." + b64(SIGNER_ALGS[client["signing_alg"]].sign(signing_input.encode(), secret))

    def authenticate(self, name, form, secret=None, **assertion_args):
        """Adds client `name`'s authentication to form; returns the HTTP headers."""
        client = self.clients[name]
        if client["auth_method"] == "client_secret_basic":
            secret = client["client_secret"] if secret is None else secret
            pair = f"{urllib.parse.quote(client['client_id'], safe='')}:{urllib.parse.quote(secret, safe='')}"
            return {"Authorization": "Basic " + base64.b64encode(pair.encode()).decode()}
        form["client_assertion_type"] = ASSERTION_TYPE
        form["client_assertion"] = self.assertion(client, **assertion_args)
        return {}

    def token(self, name, form, **auth):
        form = dict(form)
        headers = self.authenticate(name, form, **auth)
        grant_type = form.get("grant_type", "(none)")
        self.expected_counts[grant_type] = self.expected_counts.get(grant_type, 0) + 1
        return request(self.token_endpoint, form, headers)

    def subject_token(self, user="alice", scope=None):
        form = {"user": user}
        if scope:
            form["scope"] = scope
        status, answer, _ = request(self.d["subject_token_endpoint"], form)
        if status != 200:
            fail(f"subject token for {user}: {status} {answer}")
        return answer

    def claims(self, token):
        """The verified claims of a JWT access token the server issued (its jwks_uri's key)."""
        return JWT(self.verifier, allowed_sign_algs=["RS256"]).unpack(token)

    def exchange(self, name, subject, **extra):
        form = {
            "grant_type": TOKEN_EXCHANGE,
            "subject_token": subject,
            "subject_token_type": ACCESS,
        }
        auth = {k: extra.pop(k) for k in list(extra) if k in ("secret", "audience_claim", "alg", "key")}
        if "audience_claim" in auth:
            auth["audience"] = auth.pop("audience_claim")
        form.update(extra)
        return self.token(name, form, **auth)

    # --- the checks -------------------------------------------------------------------------
    def run(self):
        status, discovery, _ = request(self.issuer + "/.well-known/openid-configuration")
        expect(status == 200 and discovery["issuer"] == self.issuer, "discovery: issuer", discovery)
        status, rfc8414, _ = request(self.issuer + "/.well-known/oauth-authorization-server")
        expect(status == 200 and rfc8414 == discovery, "RFC 8414 metadata is the same document")
        expect(discovery["token_endpoint"] == self.token_endpoint, "discovery: token_endpoint")
        expect(
            TOKEN_EXCHANGE in discovery["grant_types_supported"]
            and "client_credentials" in discovery["grant_types_supported"],
            "discovery: grant types",
            discovery["grant_types_supported"],
        )
        expect(
            {"client_secret_basic", "private_key_jwt", "client_secret_jwt"}
            <= set(discovery["token_endpoint_auth_methods_supported"]),
            "discovery: auth methods",
            discovery["token_endpoint_auth_methods_supported"],
        )
        status, jwks, _ = request(discovery["jwks_uri"])
        expect(status == 200 and jwks["keys"], "jwks_uri answers")
        self.verifier.import_jwks(jwks, self.issuer)

        for name, client in self.clients.items():
            if "private_key_pem" in client:
                for path in (client["private_key_pem"], client["private_key_jwk"]):
                    mode = stat.S_IMODE(os.stat(path).st_mode)
                    expect(os.path.isabs(path) and mode == 0o600, f"{name}: {path} is 0600")
                with open(client["private_key_jwk"]) as handle:
                    jwk = json.load(handle)
                expect(jwk["kid"] == client["kid"] and "d" in jwk, f"{name}: private JWK with kid")
                key_from_jwk_dict(jwk)

        subject = self.subject_token("alice")
        expect(subject["access_token"] and subject["expires_in"] > 0, "subject token for alice")
        subject_claims = self.claims(subject["access_token"])
        expect(subject_claims["iss"] == self.issuer, "subject token is a JWT from the issuer", subject_claims)

        audience = self.d["audiences"][0]
        for name in ("basic", "rsa", "secret-jwt"):
            status, answer, headers = self.exchange(
                name,
                self.subject_token("alice")["access_token"],
                audience=audience,
                requested_token_type=ACCESS,
            )
            expect(status == 200, f"{name}: exchange accepted", answer)
            expect(answer["issued_token_type"] == ACCESS, f"{name}: issued_token_type", answer)
            expect(answer["token_type"] == "Bearer", f"{name}: token_type Bearer", answer)
            expect(answer["expires_in"] > 0, f"{name}: expires_in", answer)
            expect("no-store" in (headers.get("Cache-Control") or ""), f"{name}: Cache-Control no-store")
            claims = self.claims(answer["access_token"])
            expect(audience in claims["aud"], f"{name}: audience in the issued token's aud", claims)
            expect(
                claims["client_id"] == self.clients[name]["client_id"],
                f"{name}: the issued token is the exchange client's",
                claims,
            )
            expect(claims["sub"] == subject_claims["sub"], f"{name}: same subject", claims)

        # Without requested_token_type: an access token.
        status, answer, _ = self.exchange("basic", subject["access_token"])
        expect(
            status == 200 and answer["issued_token_type"] == ACCESS,
            "no requested_token_type: access token",
            answer,
        )
        # resource and audience together end up in aud; scope narrows.
        status, answer, _ = self.exchange(
            "basic",
            subject["access_token"],
            resource=self.d["resources"][0],
            audience=self.d["audiences"][1],
            scope="read",
        )
        expect(status == 200, "resource + audience + scope accepted", answer)
        claims = self.claims(answer["access_token"])
        expect(
            {self.d["resources"][0], self.d["audiences"][1]} <= set(claims["aud"]),
            "resource and audience in aud",
            claims,
        )
        expect(answer["scope"] == "read" or answer["scope"] == ["read"], "scope narrowed to read", answer)

        # A refresh token, when the subject token has offline_access.
        offline = self.subject_token("alice", scope="read write offline_access")
        status, answer, _ = self.exchange(
            "basic", offline["access_token"], requested_token_type=REFRESH
        )
        expect(
            status == 200 and answer["issued_token_type"] == REFRESH,
            "requested refresh_token with offline_access",
            answer,
        )
        status, refreshed, _ = self.token(
            "basic", {"grant_type": "refresh_token", "refresh_token": answer["access_token"]}
        )
        expect(status == 200 and refreshed.get("access_token"), "the exchanged refresh token refreshes", refreshed)
        status, answer, _ = self.exchange(
            "basic", subject["access_token"], requested_token_type=REFRESH
        )
        expect(status == 400 and answer["error"] == "invalid_request", "refresh_token without offline_access refused", answer)
        for refused_type in (JWT_TYPE, ID_TOKEN):
            status, answer, _ = self.exchange(
                "basic", subject["access_token"], requested_token_type=refused_type
            )
            expect(
                status == 400 and answer["error"] == "invalid_request",
                f"requested_token_type {refused_type.rsplit(':', 1)[1]} refused",
                answer,
            )

        # An actor token.
        actor = self.subject_token("agent-bot")
        status, answer, _ = self.exchange(
            "rsa", subject["access_token"], actor_token=actor["access_token"], actor_token_type=ACCESS
        )
        expect(status == 200, "actor token accepted", answer)
        claims = self.claims(answer["access_token"])
        expect(
            claims.get("act", {}).get("sub") == self.claims(actor["access_token"])["sub"],
            "issued token names the actor in act",
            claims,
        )
        status, answer, _ = self.exchange(
            "rsa", subject["access_token"], actor_token="not-a-token", actor_token_type=ACCESS
        )
        expect(status == 400 and answer["error"] == "invalid_request", "bad actor token refused", answer)
        status, answer, _ = self.exchange("basic", subject["access_token"])
        expect("act" not in self.claims(answer["access_token"]), "no act without an actor token")

        # A token from an exchange is itself a subject token idpyoidc exchanges.
        status, first, _ = self.exchange("basic", subject["access_token"])
        status, answer, _ = self.exchange("rsa", first["access_token"], audience=audience)
        expect(status == 200, "an exchanged token exchanged again", answer)

        # client_credentials, twice per client (idpyoidc's own helper fails the second time).
        for name in ("basic", "rsa", "secret-jwt"):
            for attempt in (1, 2):
                status, answer, _ = self.token(name, {"grant_type": "client_credentials", "scope": "read"})
                expect(
                    status == 200 and answer.get("access_token") and answer["token_type"] == "Bearer"
                    and answer["scope"] == "read",
                    f"{name}: client_credentials ({attempt})",
                    answer,
                )

        # Refusals.
        status, answer, _ = self.exchange("basic", "not-a-token")
        expect(status == 400 and answer["error"] == "invalid_request", "bad subject token refused", answer)
        status, answer, _ = self.exchange("basic", subject["access_token"], secret="wrong")
        expect(status == 401 and answer["error"] == "invalid_client", "wrong client secret refused", answer)
        status, answer, _ = self.exchange(
            "secret-jwt", subject["access_token"], key=SYMKey(key=b"not-the-secret-not-the-secret!!!")
        )
        expect(status == 401 and answer["error"] == "invalid_client", "client_secret_jwt with a wrong secret refused", answer)
        status, answer, _ = self.exchange(
            "basic", subject["access_token"], audience="https://elsewhere.example"
        )
        expect(status == 400 and answer["error"] == "invalid_target", "unknown audience refused", answer)
        status, answer, _ = self.exchange(
            "basic", subject["access_token"], resource="https://elsewhere.example/api"
        )
        expect(status == 400 and answer["error"] == "invalid_target", "unknown resource refused", answer)
        status, answer, _ = self.exchange("basic", subject["access_token"], subject_token_type=JWT_TYPE)
        expect(status == 400 and answer["error"] == "invalid_request", "subject_token_type jwt refused", answer)
        status, answer, _ = self.token("basic", {"grant_type": TOKEN_EXCHANGE, "subject_token_type": ACCESS})
        expect(status == 400 and answer["error"] == "invalid_request", "no subject_token refused", answer)
        status, answer, _ = self.exchange("basic", subject["access_token"], requested_token_type="urn:example:nonsense")
        expect(status == 400 and answer["error"] == "invalid_request", "unknown requested_token_type refused", answer)
        unknown = {"Authorization": "Basic " + base64.b64encode(b"nobody:secret").decode()}
        self.expected_counts[TOKEN_EXCHANGE] += 1
        status, answer, _ = request(
            self.token_endpoint,
            {"grant_type": TOKEN_EXCHANGE, "subject_token": subject["access_token"], "subject_token_type": ACCESS},
            unknown,
        )
        expect(status == 401 and answer["error"] == "invalid_client", "unknown client refused", answer)
        pair = f"exchange-rsa:{self.clients['basic']['client_secret']}"
        self.expected_counts["client_credentials"] = self.expected_counts.get("client_credentials", 0) + 1
        status, answer, _ = request(
            self.token_endpoint,
            {"grant_type": "client_credentials"},
            {"Authorization": "Basic " + base64.b64encode(pair.encode()).decode()},
        )
        expect(status == 401 and answer["error"] == "invalid_client", "a client's unregistered auth method refused", answer)
        status, answer, _ = self.exchange("basic", subject["access_token"], scope="admin")
        expect(status == 400 and answer["error"] == "invalid_scope", "scope outside the subject token refused", answer)

        # Which client assertion audiences the server takes.
        results = {}
        for label, value in (
            ("token_endpoint", self.token_endpoint),
            ("issuer", self.issuer),
            ("[issuer, token_endpoint]", [self.issuer, self.token_endpoint]),
        ):
            for name in ("rsa", "secret-jwt"):
                status, answer, _ = self.exchange(name, subject["access_token"], audience_claim=value)
                results[(label, name)] = status
        expect(
            results[("token_endpoint", "rsa")] == 200 and results[("token_endpoint", "secret-jwt")] == 200,
            "assertion aud = token endpoint accepted",
        )
        expect(
            results[("[issuer, token_endpoint]", "rsa")] == 200,
            "assertion aud = [issuer, token endpoint] accepted",
        )
        expect(
            results[("issuer", "rsa")] == 401 and results[("issuer", "secret-jwt")] == 401,
            "assertion aud = issuer alone refused (idpyoidc takes the token endpoint)",
            results,
        )
        client = self.clients["rsa"]
        form = {"grant_type": "client_credentials", "client_assertion_type": ASSERTION_TYPE}
        form["client_assertion"] = self.assertion(client)
        self.expected_counts["client_credentials"] += 1
        status, answer, _ = request(self.token_endpoint, form)
        expect(status == 200, "an assertion used once accepted", answer)
        self.expected_counts["client_credentials"] += 1
        status, answer, _ = request(self.token_endpoint, form)
        expect(status == 401 and answer["error"] == "invalid_client", "a replayed assertion (same jti) refused", answer)
        self.repeated_members(subject["access_token"])

        status, stats, _ = request(self.d["stats"])
        expect(
            status == 200
            and stats["token_requests"] == self.expected_counts
            and stats["total"] == sum(self.expected_counts.values()),
            "stats count the token requests per grant_type",
            (stats, self.expected_counts),
        )
        print("all checks passed")

    def repeated_members(self, subject_token):
        """RFC 7515 section 5.2, RFC 7519 section 7.2: JWTs repeating a member name are refused. The
        client assertions are signed as written, with a member written twice, the one a lenient
        parser keeps (the last) being right; the same assertion without the first of the two is
        accepted."""
        for name in ("rsa", "secret-jwt"):
            client = self.clients[name]
            header = compact({"alg": client["signing_alg"], "kid": client["kid"]} if "kid" in client
                             else {"alg": client["signing_alg"]})
            now = int(time.time())
            payload = compact({"iss": client["client_id"], "sub": client["client_id"], "aud": self.token_endpoint,
                               "jti": uuid.uuid4().hex, "iat": now, "exp": now + 120, "ext": {"trace": "1"}})
            nested = payload.replace('{"trace":"1"}', '{"trace":"0","trace":"1"}')
            for what, repeated_header, repeated_payload, member in (
                ("aud", header, written_first(payload, '"aud":"https://elsewhere.example"'), "aud"),
                ("aud, written a\\u0075d once", header, written_first(payload, '"a\\u0075d":"https://elsewhere.example"'),
                 "aud"),
                ("a member of a nested object", header, nested, "trace"),
                ("alg (none first)", written_first(header, '"alg":"none"'), payload, "alg"),
            ):
                form = {"grant_type": "client_credentials", "client_assertion_type": ASSERTION_TYPE,
                        "client_assertion": self.signed_as_written(client, repeated_header, repeated_payload)}
                self.expected_counts["client_credentials"] += 1
                status, answer, _ = request(self.token_endpoint, form)
                expect(status == 401 and answer.get("error") == "invalid_client"
                       and f"repeats the member '{member}'" in answer.get("error_description", ""),
                       f"{name}: a client assertion repeating {what} refused", answer)
            form = {"grant_type": "client_credentials", "client_assertion_type": ASSERTION_TYPE,
                    "client_assertion": self.signed_as_written(client, header, payload)}
            self.expected_counts["client_credentials"] += 1
            status, answer, _ = request(self.token_endpoint, form)
            expect(status == 200 and answer.get("access_token"),
                   f"{name}: the same client assertion without the repetition accepted (its jti unused)", answer)

        # The subject and actor tokens are this server's JWTs: a copy with a member written twice
        # no longer verifies either, so the description shows which check refused it.
        repeated = payload_written_first(subject_token, '"sub":"mallory"')
        status, answer, _ = self.exchange("basic", repeated)
        expect(status == 400 and answer.get("error") == "invalid_request"
               and "subject_token's payload repeats the member 'sub'" in answer.get("error_description", ""),
               "a subject token repeating sub refused", answer)
        status, answer, _ = self.exchange("basic", subject_token)
        expect(status == 200, "the same subject token without the repetition accepted", answer)
        actor = self.subject_token("agent-bot")["access_token"]
        repeated = payload_written_first(actor, '"client_id":"exchange-basic"')
        status, answer, _ = self.exchange("rsa", subject_token, actor_token=repeated, actor_token_type=ACCESS)
        expect(status == 400 and answer.get("error") == "invalid_request"
               and "actor_token's payload repeats the member 'client_id'" in answer.get("error_description", ""),
               "an actor token repeating client_id refused", answer)
        status, answer, _ = self.exchange("rsa", subject_token, actor_token=actor, actor_token_type=ACCESS)
        expect(status == 200, "the same actor token without the repetition accepted", answer)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print("usage: check.py exchange-server.json", file=sys.stderr)
        sys.exit(2)
    Check(sys.argv[1]).run()
