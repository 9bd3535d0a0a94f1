import Crypto
import Foundation
import OAuthFlow

extension TLSClientIdentity {
    /// A new self-signed client certificate and its P-256 key, for tests of mutual TLS (RFC 8705) against a
    /// ``SimulatedProvider``.
    ///
    /// The certificate is real X.509 DER (ECDSA with SHA-256, valid from a day ago for a year), so a
    /// ``SimulatedClient`` registered for `tls_client_auth` finds it by its subject or a subject alternative name, and
    /// one registered for `self_signed_tls_client_auth` by its `x5t#S256` (`thumbprint`).
    ///
    /// ```swift
    /// let identity = try TLSClientIdentity.simulated(commonName: "bank-app", organization: "Bank")
    /// await simulated.register(.tlsClientAuth(id: "bank-app", subject: .distinguishedName("CN=bank-app,O=Bank")))
    /// ```
    ///
    /// - Parameters:
    ///   - commonName: The subject's `CN`.
    ///   - organization: The subject's `O`, when given.
    ///   - dnsNames: Subject alternative names of type `dNSName`.
    ///   - uris: Subject alternative names of type `uniformResourceIdentifier`.
    ///   - emails: Subject alternative names of type `rfc822Name`.
    /// - Returns: The certificate (PEM) and its key (PEM, PKCS#8).
    /// - Throws: An error of swift-crypto when the certificate cannot be signed.
    public static func simulated(
        commonName: String, organization: String? = nil, dnsNames: [String] = [], uris: [String] = [], emails: [String] = []
    ) throws -> TLSClientIdentity {
        let key = P256.Signing.PrivateKey()
        // A Name lists its attributes from the most general to the most specific (RFC 4514 §2.1 writes them reversed).
        var subject: [(type: String, value: String)] = []
        if let organization { subject.append(("2.5.4.10", organization)) }
        subject.append(("2.5.4.3", commonName))
        let der = try CertificateDER.selfSigned(key: key, subject: subject, dnsNames: dnsNames, uris: uris, emails: emails, now: Date())
        let lines = der.base64EncodedString().chunked(64)
        let pem = "-----BEGIN CERTIFICATE-----\n" + lines.joined(separator: "\n") + "\n-----END CERTIFICATE-----\n"
        return TLSClientIdentity(certificateChainPEM: pem, privateKeyPEM: Secret(key.pemRepresentation))
    }
}

extension String {
    /// The string cut into pieces of `size` characters, the last one shorter.
    fileprivate func chunked(_ size: Int) -> [String] {
        var pieces: [String] = []
        var rest = Substring(self)
        while !rest.isEmpty {
            pieces.append(String(rest.prefix(size)))
            rest = rest.dropFirst(size)
        }
        return pieces
    }
}
