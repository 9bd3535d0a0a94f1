import Crypto
import Foundation

/// A TLS client certificate and its private key, presented on a request (RFC 8705 mutual TLS).
///
/// The key is a ``Secret``: printing an identity never shows it. ``trustRootsPEM`` replaces the system's
/// trust store for the request when set (a private CA's certificate, say); nil keeps the system's.
public struct TLSClientIdentity: Sendable, Hashable {
    /// The certificate chain, PEM, leaf first.
    public var certificateChainPEM: String
    /// The certificate's private key, PEM (PKCS#8, PKCS#1 or SEC 1).
    public var privateKeyPEM: Secret
    /// Certificates (PEM) that verify the server instead of the system's trust store; nil uses the system's.
    public var trustRootsPEM: String?

    public init(certificateChainPEM: String, privateKeyPEM: Secret, trustRootsPEM: String? = nil) {
        self.certificateChainPEM = certificateChainPEM
        self.privateKeyPEM = privateKeyPEM
        self.trustRootsPEM = trustRootsPEM
    }

    /// The SHA-256 thumbprint of the leaf certificate's DER, base64url: the `x5t#S256` of RFC 8705 §3.1
    /// and RFC 7515 §4.1.8; nil when the chain holds no certificate.
    public var thumbprint: String? { Self.thumbprint(ofPEM: certificateChainPEM) }

    /// The SHA-256 thumbprint of the first certificate in `pem`, base64url; nil when there is none.
    public static func thumbprint(ofPEM pem: String) -> String? {
        guard let der = firstBlock(of: "CERTIFICATE", in: pem) else { return nil }
        return Base64URL.encode(Data(SHA256.hash(data: der)))
    }

    /// The DER bytes of the first PEM block labelled `label`.
    static func firstBlock(of label: String, in pem: String) -> Data? {
        guard let start = pem.range(of: "-----BEGIN \(label)-----"),
            let end = pem.range(of: "-----END \(label)-----", range: start.upperBound..<pem.endIndex)
        else { return nil }
        let body = pem[start.upperBound..<end.lowerBound].filter { !$0.isWhitespace }
        return Data(base64Encoded: String(body))
    }
}
