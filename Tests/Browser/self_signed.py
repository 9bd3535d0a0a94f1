#!/usr/bin/env python3
"""Makes a self-signed certificate for https://localhost, for the web examples' https runs.

Usage: python self_signed.py OUT_DIR

Writes OUT_DIR/tls-cert.pem and OUT_DIR/tls-key.pem (P-256, valid for one day, subjectAltName
localhost and 127.0.0.1) and prints the base64 SHA-256 of the certificate's public key, which
Chromium's --ignore-certificate-errors-spki-list takes: the browser then trusts this one key and
no other bad certificate.
"""
import base64
import datetime
import hashlib
import ipaddress
import os
import sys
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

out = Path(sys.argv[1])
out.mkdir(parents=True, exist_ok=True)
key = ec.generate_private_key(ec.SECP256R1())
name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
now = datetime.datetime.now(datetime.timezone.utc)
certificate = (
    x509.CertificateBuilder()
    .subject_name(name)
    .issuer_name(name)
    .public_key(key.public_key())
    .serial_number(x509.random_serial_number())
    .not_valid_before(now - datetime.timedelta(minutes=5))
    .not_valid_after(now + datetime.timedelta(days=1))
    .add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
    .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
    .sign(key, hashes.SHA256())
)
(out / "tls-cert.pem").write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
key_file = out / "tls-key.pem"
key_file.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
os.chmod(key_file, 0o600)
spki = key.public_key().public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
print(base64.b64encode(hashlib.sha256(spki).digest()).decode())
