"""The service server's state: keys, certificates and clients, generated afresh at every start.

`generate(state_dir, urls)` writes the key and certificate files into state_dir (private keys 0600)
and returns a State: the description written to service-server.json, the clients the server
registers, the trusted assertion issuer, and what the TLS listener needs.
"""
from __future__ import annotations

import base64
import datetime
import hashlib
import ipaddress
import json
import os
import secrets
from dataclasses import dataclass, field
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.hazmat.primitives.serialization import pkcs12
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID
from joserfc.jwk import ECKey, OctKey, RSAKey

CLIENT_CREDENTIALS = "client_credentials"
JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer"
SCOPES = ["read", "write"]
ASSERTION_ISSUER = "urn:oauthflow:test:assertion-issuer"
ASSERTION_USERS = ["alice", "bob"]
# The client the trusted issuer's assertions (jwt-bearer grant) are issued to.
ASSERTION_CLIENT = "basic"
P12_PASSWORD = "oauthflow"


@dataclass(frozen=True)
class ClientSpec:
    name: str
    auth_method: str
    signing_alg: str | None = None
    # Which URL the client's assertions must carry as `aud`: "token_endpoint" or "issuer".
    assertion_audience: str | None = None
    expires_in: int | None = 3600
    grant_types: tuple[str, ...] = (CLIENT_CREDENTIALS,)
    # Its access tokens: "opaque" (random strings) or "jwt", signed with token_alg (the server's key
    # for that algorithm) in the RFC 9068 profile ("rfc9068") or as a plain JWT ("jwt": typ JWT, no
    # client_id claim).
    token_format: str = "opaque"
    token_alg: str | None = None
    token_profile: str | None = None


# The `typ` header of each JWT access token profile.
TOKEN_TYPS = {"rfc9068": "at+jwt", "jwt": "JWT"}


CLIENT_SPECS = [
    ClientSpec("basic", "client_secret_basic", grant_types=(CLIENT_CREDENTIALS, JWT_BEARER)),
    ClientSpec("post", "client_secret_post"),
    ClientSpec("secret-jwt", "client_secret_jwt", "HS256", "token_endpoint"),
    ClientSpec("rsa", "private_key_jwt", "RS256", "token_endpoint"),
    ClientSpec("ps256", "private_key_jwt", "PS256", "token_endpoint"),
    ClientSpec("es256", "private_key_jwt", "ES256", "token_endpoint"),
    ClientSpec("rsa-issuer-aud", "private_key_jwt", "RS256", "issuer"),
    ClientSpec("short", "client_secret_basic", expires_in=2),
    ClientSpec("noexpiry", "client_secret_basic", expires_in=None),
    ClientSpec("tls", "tls_client_auth"),
    ClientSpec("self-signed-tls", "self_signed_tls_client_auth"),
    ClientSpec("jwt-rs256", "client_secret_basic", token_format="jwt", token_alg="RS256", token_profile="rfc9068"),
    ClientSpec("jwt-es256", "client_secret_basic", token_format="jwt", token_alg="ES256", token_profile="rfc9068"),
    ClientSpec("jwt-short", "client_secret_basic", expires_in=2, token_format="jwt", token_alg="RS256",
               token_profile="rfc9068"),
    ClientSpec("jwt-plain", "client_secret_basic", token_format="jwt", token_alg="RS256", token_profile="jwt"),
]


@dataclass
class RegisteredClient:
    """What the server knows of a client (never its private key)."""

    client_id: str
    auth_method: str
    scopes: list[str]
    grant_types: list[str]
    expires_in: int | None
    client_secret: str | None = None
    signing_alg: str | None = None
    # The key that verifies the client's assertions (joserfc key; the secret for client_secret_jwt).
    verification_key: object = None
    # The exact `aud` values its assertions may carry.
    assertion_audiences: list[str] = field(default_factory=list)
    # tls_client_auth: the RFC 4514 subject DN; self_signed_tls_client_auth: the certificate's SHA-256.
    subject_dn: str | None = None
    certificate_sha256: str | None = None
    # Its access tokens (ClientSpec).
    token_format: str = "opaque"
    token_alg: str | None = None
    token_profile: str | None = None


@dataclass
class State:
    description: dict
    clients: dict[str, RegisteredClient]
    assertion_issuer_key: RSAKey
    ca_certificate: x509.Certificate
    server_certificate_path: Path
    server_key_path: Path
    # PEM: the CA, and every registered self-signed client certificate (see server.py).
    client_trust_pem: str


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def certificate_sha256(certificate: x509.Certificate) -> str:
    """RFC 8705 §3.1 x5t#S256: base64url of the SHA-256 of the DER certificate."""
    return b64url(hashlib.sha256(certificate.public_bytes(serialization.Encoding.DER)).digest())


class Writer:
    def __init__(self, directory: Path):
        self.directory = directory
        directory.mkdir(parents=True, exist_ok=True)

    def public(self, name: str, data: bytes | str) -> str:
        path = self.directory / name
        path.write_bytes(data.encode() if isinstance(data, str) else data)
        return str(path.resolve())

    def private(self, name: str, data: bytes | str) -> str:
        path = self.directory / name
        if path.exists():
            path.unlink()
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "wb") as file:
            file.write(data.encode() if isinstance(data, str) else data)
        return str(path.resolve())

    def private_key(self, stem: str, key, jwk_params: dict) -> tuple[str, str, str]:
        """Writes KEY as PKCS#8 PEM and as a private JWK; returns (pem path, jwk path, kid)."""
        pem = key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
        jwk_class = RSAKey if isinstance(key, rsa.RSAPrivateKey) else ECKey
        jwk = jwk_class.import_key(pem)
        kid = jwk.thumbprint()
        jwk_dict = jwk.as_dict(private=True, kid=kid, use="sig", **jwk_params)
        return (
            self.private(f"{stem}.key.pem", pem),
            self.private(f"{stem}.jwk.json", json.dumps(jwk_dict, indent=2) + "\n"),
            kid,
        )


def new_rsa():
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def new_ec():
    return ec.generate_private_key(ec.SECP256R1())


def name(common_name: str) -> x509.Name:
    return x509.Name(
        [
            x509.NameAttribute(NameOID.ORGANIZATION_NAME, "OAuthFlow Tests"),
            x509.NameAttribute(NameOID.COMMON_NAME, common_name),
        ]
    )


def certificate(subject, subject_key, issuer, issuer_key, *, ca=False, usage=None, sans=None):
    now = datetime.datetime.now(datetime.timezone.utc)
    builder = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(issuer)
        .public_key(subject_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=2))
        .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True, content_commitment=False, key_encipherment=False,
                data_encipherment=False, key_agreement=False, key_cert_sign=ca, crl_sign=ca,
                encipher_only=False, decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(subject_key.public_key()), critical=False)
    )
    if usage:
        builder = builder.add_extension(x509.ExtendedKeyUsage([usage]), critical=False)
    if sans:
        builder = builder.add_extension(x509.SubjectAlternativeName(sans), critical=False)
    return builder.sign(issuer_key, hashes.SHA256())


def pem(cert: x509.Certificate) -> bytes:
    return cert.public_bytes(serialization.Encoding.PEM)


def generate(state_dir: Path, urls: dict) -> State:
    """urls: issuer, token_endpoint, mtls_token_endpoint, introspection_endpoint,
    mtls_introspection_endpoint, metadata, resource, stats, revoke_all, slow, jwks_uri,
    default_audience, rotate_keys, reset_stats, introspection_down."""
    out = Writer(state_dir)

    # The CA behind the TLS listener's certificate and the tls_client_auth client certificate.
    ca_key = new_ec()
    ca_name = name("OAuthFlow Test CA")
    ca_cert = certificate(ca_name, ca_key, ca_name, ca_key, ca=True)
    ca_path = out.public("ca.pem", pem(ca_cert))

    server_key = new_ec()
    server_cert = certificate(
        name("127.0.0.1"), server_key, ca_name, ca_key,
        usage=ExtendedKeyUsageOID.SERVER_AUTH,
        sans=[x509.IPAddress(ipaddress.ip_address("127.0.0.1")), x509.DNSName("localhost")],
    )
    server_cert_path = out.public("tls-server.pem", pem(server_cert) + pem(ca_cert))
    server_key_path = out.private(
        "tls-server.key.pem",
        server_key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        ),
    )

    clients: dict[str, RegisteredClient] = {}
    described: dict[str, dict] = {}
    trusted_self_signed: list[bytes] = []

    for spec in CLIENT_SPECS:
        client_id = f"svc-{spec.name}"
        stem = f"client-{spec.name}"
        entry = {
            "client_id": client_id,
            "auth_method": spec.auth_method,
            "expires_in": spec.expires_in,
            "scopes": " ".join(SCOPES),
            "grant_types": list(spec.grant_types),
            "token_format": spec.token_format,
        }
        client = RegisteredClient(
            client_id=client_id, auth_method=spec.auth_method, scopes=list(SCOPES),
            grant_types=list(spec.grant_types), expires_in=spec.expires_in, signing_alg=spec.signing_alg,
            token_format=spec.token_format, token_alg=spec.token_alg, token_profile=spec.token_profile,
        )
        if spec.token_format == "jwt":
            # No assertions for these clients: signing_alg is their tokens' algorithm.
            entry.update(
                signing_alg=spec.token_alg,
                token_profile=spec.token_profile,
                token_typ=TOKEN_TYPS[spec.token_profile],
            )
        if spec.auth_method in ("client_secret_basic", "client_secret_post", "client_secret_jwt"):
            client.client_secret = secrets.token_urlsafe(32)
            entry["client_secret"] = client.client_secret
        if spec.auth_method == "client_secret_jwt":
            client.verification_key = OctKey.import_key(client.client_secret, {"alg": spec.signing_alg})
        if spec.auth_method == "private_key_jwt":
            key = new_ec() if spec.signing_alg.startswith("ES") else new_rsa()
            key_pem, key_jwk, kid = out.private_key(stem, key, {"alg": spec.signing_alg})
            jwk_class = ECKey if spec.signing_alg.startswith("ES") else RSAKey
            public_pem = key.public_key().public_bytes(
                serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
            )
            client.verification_key = jwk_class.import_key(public_pem, {"alg": spec.signing_alg, "kid": kid})
            entry.update(
                private_key_pem=key_pem, private_key_jwk=key_jwk, kid=kid,
                public_key_pem=out.public(f"{stem}.pub.pem", public_pem),
            )
        if spec.signing_alg:
            audiences = {"token_endpoint": urls["token_endpoint"], "issuer": urls["issuer"]}
            client.assertion_audiences = [audiences[spec.assertion_audience]]
            entry.update(
                signing_alg=spec.signing_alg,
                assertion_audience=spec.assertion_audience,
                assertion_audience_url=audiences[spec.assertion_audience],
            )
        if spec.auth_method in ("tls_client_auth", "self_signed_tls_client_auth"):
            key = new_ec()
            subject = name(client_id)
            if spec.auth_method == "tls_client_auth":
                cert = certificate(subject, key, ca_name, ca_key, usage=ExtendedKeyUsageOID.CLIENT_AUTH)
                client.subject_dn = cert.subject.rfc4514_string()
            else:
                cert = certificate(subject, key, subject, key, usage=ExtendedKeyUsageOID.CLIENT_AUTH)
                client.certificate_sha256 = certificate_sha256(cert)
                trusted_self_signed.append(pem(cert))
            key_pem, key_jwk, kid = out.private_key(stem, key, {"alg": "ES256"})
            entry.update(
                certificate_pem=out.public(f"{stem}.pem", pem(cert)),
                certificate_key_pem=key_pem,
                private_key_jwk=key_jwk,
                certificate_p12=out.private(
                    f"{stem}.p12",
                    pkcs12.serialize_key_and_certificates(
                        client_id.encode(), key, cert, None,
                        serialization.BestAvailableEncryption(P12_PASSWORD.encode()),
                    ),
                ),
                certificate_p12_password=P12_PASSWORD,
                subject_dn=cert.subject.rfc4514_string(),
                certificate_sha256=certificate_sha256(cert),
            )
        clients[client_id] = client
        described[spec.name] = entry

    # A self-signed certificate the TLS listener admits but no client has registered.
    stray_key = new_ec()
    stray_cert = certificate(
        name("unregistered"), stray_key, name("unregistered"), stray_key, usage=ExtendedKeyUsageOID.CLIENT_AUTH
    )
    trusted_self_signed.append(pem(stray_cert))
    stray_key_pem, _, _ = out.private_key("unregistered", stray_key, {"alg": "ES256"})
    unregistered = {
        "certificate_pem": out.public("unregistered.pem", pem(stray_cert)),
        "certificate_key_pem": stray_key_pem,
        "certificate_sha256": certificate_sha256(stray_cert),
    }

    # The trusted issuer of jwt-bearer grant assertions.
    issuer_key = new_rsa()
    issuer_pem, issuer_jwk, issuer_kid = out.private_key("assertion-issuer", issuer_key, {"alg": "RS256"})
    issuer_public = RSAKey.import_key(
        issuer_key.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        ),
        {"alg": "RS256", "kid": issuer_kid},
    )
    assertion_client = described[ASSERTION_CLIENT]

    description = {
        "issuer": urls["issuer"],
        "metadata": urls["metadata"],
        "token_endpoint": urls["token_endpoint"],
        "mtls_token_endpoint": urls["mtls_token_endpoint"],
        "introspection_endpoint": urls["introspection_endpoint"],
        "mtls_introspection_endpoint": urls["mtls_introspection_endpoint"],
        "ca_certificate": ca_path,
        "resource": urls["resource"],
        "stats": urls["stats"],
        "revoke_all": urls["revoke_all"],
        "slow": urls["slow"],
        "jwks_uri": urls["jwks_uri"],
        "default_audience": urls["default_audience"],
        "rotate_keys": urls["rotate_keys"],
        "reset_stats": urls["reset_stats"],
        "introspection_down": urls["introspection_down"],
        "scopes": " ".join(SCOPES),
        "clients": described,
        "jwt_bearer": {
            "issuer": ASSERTION_ISSUER,
            "private_key_pem": issuer_pem,
            "private_key_jwk": issuer_jwk,
            "kid": issuer_kid,
            "alg": "RS256",
            "audiences": [urls["token_endpoint"], urls["issuer"]],
            "users": list(ASSERTION_USERS),
            "client": ASSERTION_CLIENT,
            "client_id": assertion_client["client_id"],
        },
        "unregistered_certificate": unregistered,
    }
    return State(
        description=description,
        clients=clients,
        assertion_issuer_key=issuer_public,
        ca_certificate=ca_cert,
        server_certificate_path=Path(server_cert_path),
        server_key_path=Path(server_key_path),
        client_trust_pem=(pem(ca_cert) + b"".join(trusted_self_signed)).decode(),
    )
