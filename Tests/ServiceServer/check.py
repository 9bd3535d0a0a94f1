#!/usr/bin/env python3
"""Exercises a running service server (check.sh starts it): every grant and client authentication
method, the refusals the Swift tests rely on, the resource, JWT access tokens, the JWKS and its
rotation, the test endpoints.

Usage: python check.py STATE_DIR/service-server.json
Assertions are signed with Authlib's client side (ClientSecretJWT, PrivateKeyJWT, JWTBearerGrant.sign);
JWT access tokens are verified with joserfc against the served JWKS.
"""
import base64
import json
import ssl
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from types import SimpleNamespace

from authlib.oauth2.rfc7523 import ClientSecretJWT, JWTBearerGrant, PrivateKeyJWT
from joserfc import jwt
from joserfc.errors import JoseError
from joserfc.jwk import ECKey, KeySet, OctKey, RSAKey
from joserfc.jws import JWSRegistry

CLIENT_ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer"

d = json.load(open(sys.argv[1]))
clients = d["clients"]
failures = []
checks = 0


def check(condition, what, detail=""):
    global checks
    checks += 1
    print(("ok   " if condition else "FAIL ") + what + ("" if condition else f": {detail}"))
    if not condition:
        failures.append(what)


def call(method, url, form=None, headers=None, context=None):
    data = None
    if form is not None:
        data = urllib.parse.urlencode(form, doseq=True).encode()
    request = urllib.request.Request(url, data=data, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=15, context=context) as response:
            status, response_headers, body = response.status, response.headers, response.read()
    except urllib.error.HTTPError as error:
        status, response_headers, body = error.code, error.headers, error.read()
    try:
        parsed = json.loads(body) if body else None
    except ValueError:
        parsed = body.decode(errors="replace")
    return status, response_headers, parsed


def basic(client):
    raw = f"{urllib.parse.quote(client['client_id'], safe='')}:{urllib.parse.quote(client['client_secret'], safe='')}"
    return {"Authorization": "Basic " + base64.b64encode(raw.encode()).decode()}


def key_of(client):
    jwk = json.load(open(client["private_key_jwk"]))
    jwk.pop("alg")  # so that the check can sign with another algorithm than the registered one
    return (ECKey if jwk["kty"] == "EC" else RSAKey).import_key(jwk)


def assertion(client, audience=None, alg=None, claims=None):
    """A client assertion from Authlib's client-side signers (a fresh instance: Authlib keeps the
    jti it adds in the claims dict it was given)."""
    audience = audience or client["assertion_audience_url"]
    alg = alg or client["signing_alg"]
    if client["auth_method"] == "client_secret_jwt":
        signer = ClientSecretJWT(alg=alg, claims=dict(claims or {}))
        secret = client["client_secret"]
    else:
        signer = PrivateKeyJWT(alg=alg, claims=dict(claims or {}), headers={"kid": client["kid"]})
        secret = key_of(client)
    return signer.sign(SimpleNamespace(client_id=client["client_id"], client_secret=secret), audience)


def assertion_form(client, **kwargs):
    return {"client_assertion_type": CLIENT_ASSERTION_TYPE, "client_assertion": assertion(client, **kwargs)}


def token(form, headers=None, endpoint=None, context=None):
    body = {"grant_type": "client_credentials", **form}
    return call("POST", endpoint or d["token_endpoint"], body, headers, context)


def whoami(access_token):
    return call("GET", d["resource"], headers={"Authorization": f"Bearer {access_token}"})


def stats():
    return call("GET", d["stats"])[2]


def tls_context(client=None, cert=None, key=None):
    context = ssl.create_default_context(cafile=d["ca_certificate"])
    if client:
        context.load_cert_chain(client["certificate_pem"], client["certificate_key_pem"])
    elif cert:
        context.load_cert_chain(cert, key)
    return context


# --- metadata ---
status, _, metadata = call("GET", d["issuer"] + "/.well-known/oauth-authorization-server")
check(status == 200 and metadata["issuer"] == d["issuer"], "metadata issuer", metadata)
check(metadata["token_endpoint"] == d["token_endpoint"], "metadata token_endpoint")
check(metadata["mtls_endpoint_aliases"]["token_endpoint"] == d["mtls_token_endpoint"], "metadata mtls alias")
check(
    set(metadata["token_endpoint_auth_methods_supported"])
    == {"client_secret_basic", "client_secret_post", "client_secret_jwt", "private_key_jwt",
        "tls_client_auth", "self_signed_tls_client_auth"},
    "metadata auth methods",
)
check({"HS256", "RS256", "PS256", "ES256"} <= set(metadata["token_endpoint_auth_signing_alg_values_supported"]),
      "metadata signing algs")
check(JWT_BEARER in metadata["grant_types_supported"], "metadata grant types")
status, _, oidc = call("GET", d["issuer"] + "/.well-known/openid-configuration")
check(status == 200 and oidc == metadata, "openid-configuration is the same document")

# --- client_credentials with every secret/assertion method, scope, resource, audience ---
def issued(name, form, headers=None, **kwargs):
    before = stats()
    status, _, body = token(form, headers, **kwargs)
    check(status == 200 and body.get("token_type") == "Bearer", f"{name}: token issued", body)
    after = stats()
    key = f"{clients[name]['client_id']} {form.get('grant_type', 'client_credentials')}"
    check(after["token_requests"].get(key, 0) - before["token_requests"].get(key, 0) == 1
          and after["total"] - before["total"] == 1, f"{name}: stats count exactly one request", after)
    return body


targets = {"scope": "read", "resource": ["https://api.example.test/a", "https://api.example.test/b"],
           "audience": "orders-api"}
cases = {
    "basic": lambda: ({}, basic(clients["basic"])),
    "post": lambda: ({"client_id": clients["post"]["client_id"], "client_secret": clients["post"]["client_secret"]}, None),
    "secret-jwt": lambda: (assertion_form(clients["secret-jwt"]), None),
    "rsa": lambda: (assertion_form(clients["rsa"]), None),
    "ps256": lambda: (assertion_form(clients["ps256"]), None),
    "es256": lambda: (assertion_form(clients["es256"]), None),
    "rsa-issuer-aud": lambda: (assertion_form(clients["rsa-issuer-aud"]), None),
}
for name, make in cases.items():
    form, headers = make()
    body = issued(name, {**form, **targets}, headers)
    check(body.get("expires_in") == 3600 and body.get("scope") == "read", f"{name}: expires_in and scope", body)
    status, _, me = whoami(body.get("access_token", ""))
    check(status == 200 and me["client_id"] == clients[name]["client_id"] and me["scope"] == "read"
          and me["resource"] == targets["resource"] and me["audience"] == ["orders-api"] and "sub" not in me,
          f"{name}: whoami", me)

body = issued("basic", {}, basic(clients["basic"]))
check(body.get("scope") == "read write", "no scope requested: every allowed scope", body)
status, _, me = whoami(body["access_token"])
check(me["resource"] == [] and me["audience"] == [], "no resource, no audience recorded", me)

# --- refusals ---
wrong = dict(clients["basic"], client_secret="wrong")
status, headers, body = token({}, basic(wrong))
check(status == 401 and body["error"] == "invalid_client", "basic: wrong secret refused", (status, body))
status, _, body = token({}, basic(clients["post"]))
check(body["error"] == "invalid_client", "post client over basic (not its method) refused", body)
status, _, body = token({"client_id": clients["basic"]["client_id"], "client_secret": clients["basic"]["client_secret"]})
check(body["error"] == "invalid_client", "basic client over post (not its method) refused", body)
status, _, body = token({"scope": "admin"}, basic(clients["basic"]))
check(status == 400 and body["error"] == "invalid_scope", "unknown scope refused", body)
status, _, body = token({"resource": "relative/path"}, basic(clients["basic"]))
check(status == 400 and body["error"] == "invalid_target", "relative resource refused", body)
status, _, body = token({"resource": "https://api.example.test/#frag"}, basic(clients["basic"]))
check(body["error"] == "invalid_target", "resource with a fragment refused", body)
status, _, body = token(assertion_form(clients["basic"] | {"auth_method": "client_secret_jwt",
                                                           "assertion_audience_url": d["token_endpoint"],
                                                           "signing_alg": "HS256"}))
check(body["error"] == "invalid_client", "client_secret_basic client with a client_secret_jwt assertion refused", body)

# replayed jti
fixed = assertion(clients["rsa"], claims={"jti": "replay-me-" + str(time.time())})
status, _, body = token({"client_assertion_type": CLIENT_ASSERTION_TYPE, "client_assertion": fixed})
check(status == 200, "rsa: first use of an assertion", body)
status, _, body = token({"client_assertion_type": CLIENT_ASSERTION_TYPE, "client_assertion": fixed})
check(status == 400 and body["error"] == "invalid_client" and "JWT ID" in body.get("error_description", ""),
      "rsa: reused jti refused", body)
fixed = assertion(clients["secret-jwt"], claims={"jti": "replay-hs-" + str(time.time())})
token({"client_assertion_type": CLIENT_ASSERTION_TYPE, "client_assertion": fixed})
status, _, body = token({"client_assertion_type": CLIENT_ASSERTION_TYPE, "client_assertion": fixed})
check(body.get("error") == "invalid_client", "secret-jwt: reused jti refused", body)

# aud: exactly the registered one
for name, audience, what in [
    ("rsa", d["issuer"], "token_endpoint client, aud = issuer"),
    ("rsa", d["token_endpoint"] + "/", "token_endpoint client, aud with a trailing slash"),
    ("rsa", d["mtls_token_endpoint"], "token_endpoint client, aud = mTLS token endpoint"),
    ("secret-jwt", d["issuer"], "secret-jwt client, aud = issuer"),
    ("rsa-issuer-aud", d["token_endpoint"], "issuer client, aud = token endpoint"),
    ("rsa-issuer-aud", d["issuer"] + "/", "issuer client, aud with a trailing slash"),
]:
    status, _, body = token(assertion_form(clients[name], audience=audience))
    check(body.get("error") == "invalid_client", f"wrong aud refused: {what}", body)
status, _, body = token(assertion_form(clients["rsa-issuer-aud"], audience=[d["issuer"], "https://other.example"]))
check(status == 200, "aud as an array containing the issuer accepted", body)
status, _, body = token(assertion_form(clients["rsa"], audience=[d["token_endpoint"], d["issuer"]]))
check(status == 200, "aud as an array containing the token endpoint accepted", body)

# alg: exactly the registered one
status, _, body = token(assertion_form(clients["ps256"], alg="RS256"))
check(body.get("error") == "invalid_client", "ps256 client signing RS256 refused", body)
status, _, body = token(assertion_form(clients["rsa"], alg="PS256"))
check(body.get("error") == "invalid_client", "rsa client signing PS256 refused", body)
other = dict(clients["rsa"], private_key_jwk=clients["rsa-issuer-aud"]["private_key_jwk"])
status, _, body = token(assertion_form(other))
check(body.get("error") == "invalid_client", "rsa client, assertion signed with another key refused", body)
status, _, body = token(assertion_form(clients["rsa"], claims={"exp": int(time.time()) - 600}))
check(body.get("error") == "invalid_client", "expired assertion refused", body)

# --- expiry ---
body = issued("short", {}, basic(clients["short"]))
check(body.get("expires_in") == 2, "short: expires_in 2", body)
check(whoami(body["access_token"])[0] == 200, "short: resource before expiry")
short_token, short_issued = body["access_token"], time.monotonic()
body = issued("noexpiry", {}, basic(clients["noexpiry"]))
check("expires_in" not in body and "access_token" in body, "noexpiry: no expires_in", body)

# --- jwt-bearer grant ---
issuer = d["jwt_bearer"]
issuer_key = RSAKey.import_key(json.load(open(issuer["private_key_jwk"])))


def grant_assertion(audience=None, subject="alice", iss=None, key=None):
    return JWTBearerGrant.sign(
        key or issuer_key, issuer=iss or issuer["issuer"], audience=audience or d["token_endpoint"],
        subject=subject, header={"alg": issuer["alg"], "kid": issuer["kid"]},
    )


for audience in (d["token_endpoint"], d["issuer"]):
    body = issued(issuer["client"], {"grant_type": JWT_BEARER, "assertion": grant_assertion(audience), "scope": "read",
                                     "resource": "https://api.example.test/a"})
    status, _, me = whoami(body.get("access_token", ""))
    check(status == 200 and me["sub"] == "alice" and me["client_id"] == issuer["client_id"]
          and me["resource"] == ["https://api.example.test/a"], f"jwt-bearer (aud {audience}): whoami", me)
body = issued(issuer["client"], {"grant_type": JWT_BEARER, "assertion": grant_assertion(subject="bob")},
              basic(clients[issuer["client"]]))
check("access_token" in body, "jwt-bearer with the client's own authentication", body)
for form, headers, error, what in [
    ({"assertion": grant_assertion("https://elsewhere.example/token")}, None, "invalid_grant", "wrong aud"),
    ({"assertion": grant_assertion(subject="mallory")}, None, "invalid_grant", "unknown user"),
    ({"assertion": grant_assertion(iss="urn:other")}, None, "invalid_grant", "unknown issuer"),
    ({"assertion": grant_assertion(key=key_of(clients["rsa"]))}, None, "invalid_grant", "signed with another key"),
    ({"assertion": grant_assertion()}, basic(clients["short"]), "invalid_client", "another client authenticated"),
    ({"assertion": grant_assertion()}, basic(dict(clients["basic"], client_secret="x")), "invalid_client", "wrong secret"),
]:
    status, _, body = token({"grant_type": JWT_BEARER, **form}, headers)
    check(body.get("error") == error, f"jwt-bearer refused: {what}", body)
status, _, body = token(assertion_form(clients["rsa"]) | {"grant_type": JWT_BEARER, "assertion": grant_assertion()})
check(body.get("error") == "invalid_client", "jwt-bearer refused: assertion client not the issuer's client", body)
status, _, body = token({"assertion": grant_assertion()} | {"grant_type": JWT_BEARER}, basic(clients["basic"]))
check(status == 200, "jwt-bearer: reuse of a grant assertion (no jti check on the grant)", body)

# --- repeated member names (RFC 7515 section 5.2, RFC 7519 section 7.2) ---
# Assertions signed as written, each with a member written twice, the one a lenient parser keeps (the
# last) being right: refused. The same assertion without the first of the two is accepted.
def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def compact(value):
    return json.dumps(value, separators=(",", ":"))


def written_first(text, member):
    """The JSON object TEXT with MEMBER (`"name":value`) written before its own members."""
    return "{" + member + "," + text[1:]


def signed_as_written(header, payload, key, alg):
    """A compact JWS over exactly the JSON texts HEADER and PAYLOAD, repeated members and all (Authlib
    and joserfc serialize dicts, which cannot repeat one)."""
    signing_input = f"{b64url(header.encode())}.{b64url(payload.encode())}"
    return f"{signing_input}.{b64url(JWSRegistry.algorithms[alg].sign(signing_input.encode(), key))}"


for name, key in (("rsa", key_of(clients["rsa"])), ("secret-jwt", OctKey.import_key(clients["secret-jwt"]["client_secret"]))):
    c = clients[name]
    header = compact({"alg": c["signing_alg"], "kid": c["kid"]} if "kid" in c else {"alg": c["signing_alg"]})
    payload = compact({"iss": c["client_id"], "sub": c["client_id"], "aud": c["assertion_audience_url"],
                       "exp": int(time.time()) + 120, "jti": f"repeated-{time.time()}", "ext": {"trace": "1"}})
    for what, repeated_header, repeated_payload, member in [
        ("aud", header, written_first(payload, '"aud":"https://elsewhere.example"'), "aud"),
        ("aud, written a\\u0075d once", header, written_first(payload, '"a\\u0075d":"https://elsewhere.example"'), "aud"),
        ("sub", header, written_first(payload, '"sub":"svc-basic"'), "sub"),
        ("a member of a nested object", header, payload.replace('{"trace":"1"}', '{"trace":"0","trace":"1"}'), "trace"),
        ("alg (none first)", written_first(header, '"alg":"none"'), payload, "alg"),
    ]:
        repeated = signed_as_written(repeated_header, repeated_payload, key, c["signing_alg"])
        status, _, body = token({"client_assertion_type": CLIENT_ASSERTION_TYPE, "client_assertion": repeated})
        check(status == 400 and body.get("error") == "invalid_client"
              and f"repeats the member '{member}'" in body.get("error_description", ""),
              f"{name}: a client assertion repeating {what} refused", (status, body))
    status, _, body = token({"client_assertion_type": CLIENT_ASSERTION_TYPE,
                             "client_assertion": signed_as_written(header, payload, key, c["signing_alg"])})
    check(status == 200, f"{name}: the same client assertion without the repetition accepted (its jti unused)", body)

header = compact({"alg": issuer["alg"], "kid": issuer["kid"]})
payload = compact({"iss": issuer["issuer"], "sub": "alice", "aud": d["token_endpoint"], "exp": int(time.time()) + 120})
for what, repeated_header, repeated_payload, member in [
    ("sub (an unknown user first)", header, written_first(payload, '"sub":"mallory"'), "sub"),
    ("iss, written \\u0069ss once", header, written_first(payload, '"\\u0069ss":"urn:other"'), "iss"),
    ("alg (HS256 first)", written_first(header, '"alg":"HS256"'), payload, "alg"),
]:
    repeated = signed_as_written(repeated_header, repeated_payload, issuer_key, issuer["alg"])
    status, _, body = token({"grant_type": JWT_BEARER, "assertion": repeated})
    check(status == 400 and body.get("error") == "invalid_grant"
          and f"repeats the member '{member}'" in body.get("error_description", ""),
          f"jwt-bearer: an assertion repeating {what} refused", (status, body))
status, _, body = token({"grant_type": JWT_BEARER,
                         "assertion": signed_as_written(header, payload, issuer_key, issuer["alg"])})
check(status == 200 and "access_token" in body, "jwt-bearer: the same assertion without the repetition accepted", body)

# --- mTLS ---
tls, self_signed = clients["tls"], clients["self-signed-tls"]
before = stats()
status, _, body = token({"client_id": tls["client_id"], "scope": "write"}, endpoint=d["mtls_token_endpoint"],
                        context=tls_context(tls))
check(status == 200 and body.get("scope") == "write", "tls_client_auth: token with the CA-issued certificate", body)
check(stats()["token_requests"].get(f"{tls['client_id']} client_credentials", 0)
      - before["token_requests"].get(f"{tls['client_id']} client_credentials", 0) == 1, "tls: counted once")
tls_token = body.get("access_token", "")
status, _, me = whoami(tls_token)
check(status == 200 and me["client_id"] == tls["client_id"] and me["cnf"]["x5t#S256"] == tls["certificate_sha256"],
      "tls_client_auth: whoami with cnf", me)
status, _, body = token({"client_id": tls["client_id"]}, endpoint=d["mtls_token_endpoint"], context=tls_context())
check(body.get("error") == "invalid_client", "tls_client_auth without a certificate refused", body)
status, _, body = token({"client_id": tls["client_id"]})
check(body.get("error") == "invalid_client", "tls_client_auth on the plain endpoint refused", body)
status, _, body = token({"client_id": tls["client_id"]}, endpoint=d["mtls_token_endpoint"],
                        context=tls_context(self_signed))
check(body.get("error") == "invalid_client", "tls_client_auth with a self-signed certificate refused", body)
status, _, body = token({"client_id": self_signed["client_id"]}, endpoint=d["mtls_token_endpoint"],
                        context=tls_context(self_signed))
check(status == 200, "self_signed_tls_client_auth: token with the registered certificate", body)
status, _, me = whoami(body.get("access_token", ""))
check(me.get("cnf", {}).get("x5t#S256") == self_signed["certificate_sha256"], "self-signed: whoami cnf", me)
status, _, body = token({"client_id": self_signed["client_id"]}, endpoint=d["mtls_token_endpoint"],
                        context=tls_context(tls))
check(body.get("error") == "invalid_client", "self_signed_tls_client_auth with another certificate refused", body)
stray = d["unregistered_certificate"]
status, _, body = token({"client_id": self_signed["client_id"]}, endpoint=d["mtls_token_endpoint"],
                        context=tls_context(cert=stray["certificate_pem"], key=stray["certificate_key_pem"]))
check(body.get("error") == "invalid_client", "self_signed_tls_client_auth with an unregistered certificate refused", body)
status, _, body = token({"client_id": self_signed["client_id"]}, endpoint=d["mtls_token_endpoint"],
                        context=tls_context())
check(body.get("error") == "invalid_client", "self_signed_tls_client_auth without a certificate refused", body)
status, _, body = token({}, basic(clients["basic"]), endpoint=d["mtls_token_endpoint"], context=tls_context())
check(status == 200, "a secret client on the mTLS endpoint without a certificate", body)

# An unknown self-signed certificate ends the TLS handshake (see server.py).
import subprocess, tempfile, os  # noqa: E401,E402
from cryptography import x509  # noqa: E402
from cryptography.hazmat.primitives import hashes, serialization  # noqa: E402
from cryptography.hazmat.primitives.asymmetric import ec  # noqa: E402
import datetime  # noqa: E402

unknown_key = ec.generate_private_key(ec.SECP256R1())
unknown_name = x509.Name([x509.NameAttribute(x509.oid.NameOID.COMMON_NAME, "stranger")])
now = datetime.datetime.now(datetime.timezone.utc)
unknown_cert = (x509.CertificateBuilder().subject_name(unknown_name).issuer_name(unknown_name)
                .public_key(unknown_key.public_key()).serial_number(1)
                .not_valid_before(now - datetime.timedelta(minutes=1)).not_valid_after(now + datetime.timedelta(hours=1))
                .sign(unknown_key, hashes.SHA256()))
with tempfile.TemporaryDirectory() as scratch:
    cert_path, key_path = os.path.join(scratch, "c.pem"), os.path.join(scratch, "k.pem")
    open(cert_path, "wb").write(unknown_cert.public_bytes(serialization.Encoding.PEM))
    open(key_path, "wb").write(unknown_key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                         serialization.NoEncryption()))
    try:
        status, _, body = token({"client_id": self_signed["client_id"]}, endpoint=d["mtls_token_endpoint"],
                                context=tls_context(cert=cert_path, key=key_path))
        refused = status != 200
    except (urllib.error.URLError, ssl.SSLError, ConnectionError) as error:
        refused, body = True, error
    check(refused, "an unknown self-signed certificate is refused (TLS handshake)", body)

# --- introspection ---
status, _, body = call("POST", d["introspection_endpoint"], {"token": tls_token}, basic(clients["basic"]))
check(status == 200 and body["active"] and body["client_id"] == tls["client_id"]
      and body["cnf"]["x5t#S256"] == tls["certificate_sha256"], "introspection of the mTLS-bound token", body)
status, _, body = call("POST", d["mtls_introspection_endpoint"], {"token": tls_token, "client_id": tls["client_id"]},
                       context=tls_context(tls))
check(status == 200 and body["active"], "introspection on the mTLS alias with tls_client_auth", body)
status, _, body = call("POST", d["introspection_endpoint"], {"token": "nope"}, basic(clients["basic"]))
check(status == 200 and body == {"active": False}, "introspection of an unknown token", body)
status, _, body = call("POST", d["introspection_endpoint"], {"token": tls_token})
check(status == 401, "introspection needs client authentication", body)

# --- JWT access tokens (RFC 9068) and the JWKS ---
check(metadata.get("jwks_uri") == d["jwks_uri"] == d["issuer"] + "/oauth/jwks", "metadata jwks_uri", metadata)
check(d["default_audience"] == d["issuer"] + "/api", "default_audience is <issuer>/api", d["default_audience"])
for name in ("jwt-rs256", "jwt-es256", "jwt-short", "jwt-plain"):
    c = clients[name]
    check(c["token_format"] == "jwt" and c["auth_method"] == "client_secret_basic" and c["scopes"] == "read write"
          and c["grant_types"] == ["client_credentials"] and c["client_id"] == "svc-" + name
          and c["token_typ"] == ("JWT" if name == "jwt-plain" else "at+jwt"), f"{name}: described", c)
check(all(c["token_format"] == "opaque" for n, c in clients.items() if not n.startswith("jwt-")),
      "every other client is described as opaque")
check((clients["jwt-es256"]["signing_alg"], clients["jwt-short"]["expires_in"]) == ("ES256", 2),
      "jwt-es256 signs ES256, jwt-short lives 2 s")


def get_jwks(what):
    before = stats()["jwks_requests"]
    status, _, body = call("GET", d["jwks_uri"])
    check(status == 200 and stats()["jwks_requests"] - before == 1, f"jwks ({what}): served and counted once",
          (status, body))
    return body


def kids(jwks):
    return [key["kid"] for key in jwks["keys"]]


jwks = get_jwks("at start")
by_type = {key["kty"]: key for key in jwks["keys"]}
check(len(jwks["keys"]) == 2 and set(by_type) == {"RSA", "EC"}, "jwks: one RSA and one EC key", jwks)
check(by_type["RSA"]["alg"] == "RS256" and by_type["EC"]["alg"] == "ES256" and by_type["EC"]["crv"] == "P-256"
      and all(key["use"] == "sig" and key.get("kid") for key in jwks["keys"]) and len(set(kids(jwks))) == 2,
      "jwks: alg, crv, use sig and distinct kids", jwks)
modulus = base64.urlsafe_b64decode(by_type["RSA"]["n"] + "=" * (-len(by_type["RSA"]["n"]) % 4))
check(len(modulus) * 8 == 2048, "jwks: RSA 2048", len(modulus) * 8)
check(not any(member in key for key in jwks["keys"] for member in ("d", "p", "q", "dp", "dq", "qi")),
      "jwks: public keys only")

jtis = set()


def verified(name, body, jwks):
    """The JWT access token of BODY, its signature verified with JWKS for the client's algorithm."""
    try:
        return jwt.decode(body.get("access_token", ""), KeySet.import_key_set(jwks), algorithms=[clients[name]["signing_alg"]])
    except (JoseError, ValueError) as error:
        check(False, f"{name}: the signature verifies with the JWKS", error)
        return None


def check_jwt(name, body, jwks, aud, scope="read write", what=""):
    """Checks the header and claims of a JWT access token; returns its claims."""
    c, label = clients[name], f"{name}{what}"
    token = verified(name, body, jwks)
    if token is None:
        return {}
    header, claims = token.header, token.claims
    check(header["alg"] == c["signing_alg"] and header.get("kid") in kids(jwks), f"{label}: alg and kid", header)
    check(header.get("typ") == c["token_typ"], f"{label}: typ {c['token_typ']}", header)
    check(claims.get("iss") == d["issuer"] == metadata["issuer"], f"{label}: iss is the issuer", claims)
    check(claims.get("sub") == c["client_id"], f"{label}: sub is the client_id", claims)
    if c["token_profile"] == "rfc9068":
        check(claims.get("client_id") == c["client_id"], f"{label}: client_id", claims)
    else:
        check("client_id" not in claims, f"{label}: no client_id claim", claims)
    check(claims.get("scope") == scope == body.get("scope"), f"{label}: scope {scope!r}", claims)
    check(claims["exp"] - claims["iat"] == c["expires_in"] == body.get("expires_in")
          and abs(claims["iat"] - time.time()) < 5, f"{label}: iat, exp and expires_in", (claims, body))
    check(isinstance(claims.get("jti"), str) and claims["jti"] not in jtis, f"{label}: a new jti", claims)
    jtis.add(claims.get("jti"))
    check(claims.get("aud") == aud, f"{label}: aud {aud!r}", claims)
    return claims


def introspect(access_token, client="basic"):
    return call("POST", d["introspection_endpoint"], {"token": access_token}, basic(clients[client]))


def introspections():
    return stats()["introspection_requests"]


jwt_claims = {}
for name in ("jwt-rs256", "jwt-es256", "jwt-plain", "jwt-short"):
    body = issued(name, {}, basic(clients[name]))
    check(body.get("token_type") == "Bearer" and set(body) == {"access_token", "token_type", "expires_in", "scope"},
          f"{name}: the usual token response", body)
    jwt_claims[name] = check_jwt(name, body, jwks, d["default_audience"])
    if name == "jwt-short":
        jwt_short_token, jwt_short_issued = body.get("access_token", ""), time.monotonic()
    before = introspections()
    status, _, info = introspect(body.get("access_token", ""))
    claims = jwt_claims[name]
    check(status == 200 and info.get("active") is True and info.get("token_type") == "Bearer"
          and info.get("client_id") == clients[name]["client_id"]
          and all(info.get(claim) == claims.get(claim) for claim in ("iss", "aud", "sub", "exp", "iat", "scope", "jti")),
          f"{name}: introspection active, with the token's claims", (info, claims))
    check(introspections().get("svc-basic", 0) - before.get("svc-basic", 0) == 1,
          f"{name}: introspection counted once for its caller", introspections())
    status, _, me = whoami(body.get("access_token", ""))
    check(status == 200 and me["client_id"] == clients[name]["client_id"], f"{name}: whoami", me)

rs256 = clients["jwt-rs256"]
for form, aud, what in [
    ({"resource": "https://api.example.test/a"}, "https://api.example.test/a", "one resource: a string"),
    ({"resource": ["https://api.example.test/a", "https://api.example.test/b"]},
     ["https://api.example.test/a", "https://api.example.test/b"], "two resources: an array"),
    ({"resource": ["https://api.example.test/a", "https://api.example.test/a"]}, "https://api.example.test/a",
     "a repeated resource: once"),
    ({"audience": "orders-api"}, "orders-api", "one audience: a string"),
    ({"audience": ["orders-api", "billing-api"]}, ["orders-api", "billing-api"], "two audiences: an array"),
    ({"resource": "https://api.example.test/a", "audience": "orders-api"}, "https://api.example.test/a",
     "resource before audience"),
    ({"scope": "read"}, d["default_audience"], "neither: the default audience"),
]:
    body = issued("jwt-rs256", form, basic(rs256))
    check_jwt("jwt-rs256", body, jwks, aud, scope=form.get("scope", "read write"), what=f" ({what})")
status, _, body = token({"resource": "relative/path"}, basic(rs256))
check(status == 400 and body["error"] == "invalid_target", "jwt-rs256: relative resource refused", body)
status, _, body = token({"resource": "https://api.example.test/#frag"}, basic(rs256))
check(status == 400 and body["error"] == "invalid_target", "jwt-rs256: resource with a fragment refused", body)
status, _, body = token({"scope": "admin"}, basic(rs256))
check(status == 400 and body["error"] == "invalid_scope", "jwt-rs256: unknown scope refused", body)
status, _, body = token({}, basic(dict(rs256, client_secret="wrong")))
check(status == 401 and body["error"] == "invalid_client", "jwt-rs256: wrong secret refused", body)
es_body = issued("jwt-es256", {}, basic(clients["jwt-es256"]))
header = json.loads(base64.urlsafe_b64decode(es_body["access_token"].split(".")[0] + "=="))
check(header["kid"] == by_type["EC"]["kid"] and header["alg"] == "ES256", "jwt-es256: signed by the EC key", header)
rs_body = issued("jwt-rs256", {}, basic(rs256))
header = json.loads(base64.urlsafe_b64decode(rs_body["access_token"].split(".")[0] + "=="))
check(header["kid"] == by_type["RSA"]["kid"], "jwt-rs256: signed by the RSA key", header)

# introspection counters: by the caller it names, "-" for none
before = introspections()
introspect(rs_body["access_token"], client="jwt-rs256")
introspect(rs_body["access_token"], client="jwt-rs256")
status, _, _ = call("POST", d["introspection_endpoint"], {"token": rs_body["access_token"]})
after = introspections()
check(status == 401 and after.get("svc-jwt-rs256", 0) - before.get("svc-jwt-rs256", 0) == 2
      and after.get("-", 0) - before.get("-", 0) == 1, "introspection counted per caller, '-' without one", after)
check(introspect(rs_body["access_token"], client="jwt-rs256")[2].get("active") is True,
      "a JWT client introspects its own token")

# --- key rotation ---
status, _, rotated = call("POST", d["rotate_keys"])
check(status == 200 and len(rotated["kids"]) == 2 and not set(rotated["kids"]) & set(kids(jwks)),
      "rotate-keys: two new kids", rotated)
new_jwks = get_jwks("after rotation")
check(set(kids(new_jwks)) == set(rotated["kids"]) == set(rotated["jwks_kids"]) and len(new_jwks["keys"]) == 2,
      "after rotation: only the new keys", new_jwks)
for name, old_body in (("jwt-rs256", rs_body), ("jwt-es256", es_body)):
    try:
        jwt.decode(old_body["access_token"], KeySet.import_key_set(new_jwks), algorithms=[clients[name]["signing_alg"]])
        old_verifies = True
    except (JoseError, ValueError):
        old_verifies = False
    check(not old_verifies, f"{name}: a token from before the rotation does not verify with the new JWKS")
    check(introspect(old_body["access_token"])[2].get("active") is True,
          f"{name}: a token from before the rotation is still active at introspection")
rotated_bodies = {}
for name in ("jwt-rs256", "jwt-es256", "jwt-plain"):
    rotated_bodies[name] = issued(name, {}, basic(clients[name]))
    check_jwt(name, rotated_bodies[name], new_jwks, d["default_audience"], what=" (after rotation)")
status, _, kept = call("POST", d["rotate_keys"] + "?keep=1")
check(status == 200 and not set(kept["kids"]) & set(rotated["kids"]), "rotate-keys?keep=1: two new kids", kept)
kept_jwks = get_jwks("after a rotation keeping the old keys")
check(sorted(kids(kept_jwks)) == sorted(kept["kids"] + rotated["kids"]) == sorted(kept["jwks_kids"]),
      "after keep=1: the new and the previous keys", kept_jwks)
for name, body in rotated_bodies.items():
    check(verified(name, body, kept_jwks) is not None, f"{name}: a token from the previous keys verifies after keep=1")
body = issued("jwt-rs256", {}, basic(rs256))
claims = check_jwt("jwt-rs256", body, kept_jwks, d["default_audience"], what=" (after keep=1)")
header = json.loads(base64.urlsafe_b64decode(body["access_token"].split(".")[0] + "=="))
check(header["kid"] in kept["kids"], "after keep=1: new tokens signed with the newest key", header)
status, _, last = call("POST", d["rotate_keys"])
check(sorted(kids(get_jwks("after a rotation without keep"))) == sorted(last["kids"]),
      "a rotation without keep drops every earlier key")
jwks = get_jwks("current")

# --- introspection outage ---
probe = issued("jwt-rs256", {}, basic(rs256))["access_token"]
status, _, answer = call("POST", d["introspection_down"] + "?seconds=30")
check(status == 200 and answer == {"seconds": 30.0}, "introspection-down?seconds=30", answer)
before = introspections()
status, _, body = introspect(probe)
check(status == 503 and body.get("error") == "temporarily_unavailable", "introspection down: 503", (status, body))
check(introspections().get("svc-basic", 0) - before.get("svc-basic", 0) == 1, "introspection down: still counted")
status, _, body = token({}, basic(rs256))
check(status == 200, "introspection down: the token endpoint still answers", body)
call("POST", d["introspection_down"] + "?seconds=0")
status, _, body = introspect(probe)
check(status == 200 and body.get("active") is True, "introspection-down?seconds=0 ends the outage", body)
call("POST", d["introspection_down"] + "?seconds=1")
status, _, _ = introspect(probe)
time.sleep(1.1)
status_after, _, body = introspect(probe)
check(status == 503 and status_after == 200 and body.get("active") is True, "an outage of 1 s ends by itself",
      (status, status_after))
status, _, _ = call("POST", d["introspection_down"] + "?seconds=soon")
check(status == 400, "introspection-down with a bad number: 400")

# --- slow ---
call("POST", d["slow"] + "?seconds=1")
started = time.monotonic()
token({}, basic(clients["basic"]))
elapsed = time.monotonic() - started
call("POST", d["slow"] + "?seconds=0")
check(elapsed >= 1.0, "slow: the token response waited", elapsed)
started = time.monotonic()
token({}, basic(clients["basic"]))
check(time.monotonic() - started < 1.0, "slow 0: back to prompt responses")

# --- the resource: missing, expired, revoked ---
status, headers, body = call("GET", d["resource"])
check(status == 401 and headers["WWW-Authenticate"].startswith("Bearer") and "error=" not in headers["WWW-Authenticate"],
      "whoami without a token: 401, challenge without error code", headers.get("WWW-Authenticate"))
status, headers, body = whoami("not-a-token")
check(status == 401 and 'error="invalid_token"' in headers["WWW-Authenticate"], "whoami with an unknown token", body)
time.sleep(max(0.0, 2.2 - (time.monotonic() - short_issued)))
status, headers, _ = whoami(short_token)
check(status == 401 and 'error="invalid_token"' in headers["WWW-Authenticate"], "short: 401 after 2 s")
time.sleep(max(0.0, 2.2 - (time.monotonic() - jwt_short_issued)))
check(introspect(jwt_short_token)[2] == {"active": False}, "jwt-short: introspection inactive after 2 s")
check(whoami(jwt_short_token)[0] == 401, "jwt-short: 401 after 2 s")
body = token({}, basic(clients["basic"]))[2]
check(whoami(body["access_token"])[0] == 200, "before revoke-all: 200")
jwt_bodies = {name: token({}, basic(clients[name]))[2] for name in ("jwt-rs256", "jwt-es256", "jwt-plain")}
check(all(introspect(b["access_token"])[2].get("active") is True for b in jwt_bodies.values()),
      "before revoke-all: the JWTs are active")
status, _, revoked = call("POST", d["revoke_all"])
check(status == 200 and revoked["revoked"] > 0, "revoke-all", revoked)
status, headers, _ = whoami(body["access_token"])
check(status == 401 and 'error="invalid_token"' in headers["WWW-Authenticate"], "after revoke-all: 401 invalid_token",
      headers.get("WWW-Authenticate"))
status, _, info = call("POST", d["introspection_endpoint"], {"token": body["access_token"]}, basic(clients["basic"]))
check(info == {"active": False}, "after revoke-all: introspection inactive", info)
for name, b in jwt_bodies.items():
    check(introspect(b["access_token"])[2] == {"active": False}, f"after revoke-all: {name} inactive at introspection")
    check(whoami(b["access_token"])[0] == 401, f"after revoke-all: {name} refused by the resource")
body = token({}, basic(clients["basic"]))[2]
check(whoami(body["access_token"])[0] == 200, "a token issued after revoke-all works")

final = stats()
check(final["total"] == sum(final["token_requests"].values()), "stats total is the sum", final)
check(final["jwks_requests"] > 0 and final["introspection_requests"].get("svc-basic", 0) > 0,
      "stats count JWKS and introspection requests", final)
print(json.dumps(final, indent=1))
status, _, reset = call("POST", d["reset_stats"])
check(status == 200 and reset == {"token_requests": {}, "token_requests_by_resource": {}, "tokens_issued": {},
                                  "total": 0, "jwks_requests": 0, "introspection_requests": {}},
      "reset-stats: every count zero", reset)
call("GET", d["jwks_uri"])
check(stats()["jwks_requests"] == 1, "after reset-stats: counting again")
print(f"{checks - len(failures)}/{checks} checks passed")
sys.exit(1 if failures else 0)
