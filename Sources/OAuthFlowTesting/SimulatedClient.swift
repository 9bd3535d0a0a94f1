import Foundation
import OAuthFlow

/// A client registered at a ``SimulatedProvider``: its id, how it authenticates at the token endpoint
/// and the redirect URIs it may use.
///
/// ```swift
/// let app = SimulatedClient.public(id: "my-app", redirectURIs: [URL(string: "http://127.0.0.1/callback")!])
/// let service = SimulatedClient.confidential(id: "billing", secret: "s3cret-of-the-billing-service")
/// let signer = SimulatedClient.privateKeyJWT(id: "reports", publicKeyPEM: publicKey.pemRepresentation)
/// ```
public struct SimulatedClient: Sendable, Hashable {
    /// How a client proves who it is at the token, pushed request, device, revocation and introspection
    /// endpoints (RFC 6749 §2.3.1, OpenID Connect Core §9): the methods a descriptor names. A `private_key_jwt` client's
    /// key is ``SimulatedClient/publicKeyPEM``; a `tls_client_auth` client is named by ``SimulatedClient/certificateSubject``
    /// (RFC 8705 §2.1), a `self_signed_tls_client_auth` one by ``SimulatedClient/certificateThumbprint`` (§2.2).
    public typealias Authentication = ProviderDescriptor.ClientAuthMethod

    /// The `client_id`.
    public var id: String
    /// The secret of a confidential client; nil for a public one.
    public var secret: String?
    /// The one method the provider accepts from this client.
    public var authentication: Authentication
    /// The redirect URIs the client registered, compared exactly, except that the port of a loopback
    /// IP literal (`127.0.0.1`, `[::1]`) may differ (RFC 8252 §7.3) unless the provider's
    /// `Settings.loopbackPortsMatchExactly` says otherwise.
    public var redirectURIs: [URL]
    /// The scopes the client may be granted, or nil for any. A request that asks for others is granted those of
    /// them it may have, and `scope` in the answer says which (RFC 6749 §3.3); one that may have none of them is `invalid_scope`.
    public var scopes: [String]?
    /// The public key (PEM: RSA, or EC P-256) that verifies the client's assertions under `private_key_jwt`.
    public var publicKeyPEM: String?
    /// What names a `tls_client_auth` client in its certificate (RFC 8705 §2.1.2).
    public var certificateSubject: CertificateSubject?
    /// The `x5t#S256` of the certificate a `self_signed_tls_client_auth` client registered (RFC 8705 §2.2).
    public var certificateThumbprint: String?

    /// - Parameters:
    ///   - id: The `client_id`.
    ///   - secret: The secret of a confidential client.
    ///   - authentication: How it authenticates; `none` needs no secret, `private_key_jwt` a public key, the others a secret.
    ///   - redirectURIs: The redirect URIs it registered.
    ///   - scopes: The scopes it may be granted; nil for any.
    ///   - publicKeyPEM: The public key of a `private_key_jwt` client.
    public init(
        id: String, secret: String? = nil, authentication: Authentication, redirectURIs: [URL] = [], scopes: [String]? = nil,
        publicKeyPEM: String? = nil
    ) {
        self.id = id
        self.secret = secret
        self.authentication = authentication
        self.redirectURIs = redirectURIs
        self.scopes = scopes
        self.publicKeyPEM = publicKeyPEM
    }

    /// A public client (a native app, a CLI): no secret, PKCE only.
    public static func `public`(id: String, redirectURIs: [URL] = [], scopes: [String]? = nil) -> SimulatedClient {
        SimulatedClient(id: id, authentication: .none, redirectURIs: redirectURIs, scopes: scopes)
    }

    /// A confidential client that authenticates with its secret (`client_secret_basic` unless told otherwise).
    public static func confidential(
        id: String, secret: String, authentication: Authentication = .clientSecretBasic, redirectURIs: [URL] = [], scopes: [String]? = nil
    ) -> SimulatedClient {
        SimulatedClient(id: id, secret: secret, authentication: authentication, redirectURIs: redirectURIs, scopes: scopes)
    }

    /// A confidential client that authenticates with JWTs signed with its private key (`private_key_jwt`, RFC 7523 §2.2):
    /// the provider verifies them with `publicKeyPEM`, an RSA (RS256, PS256), P-256 (ES256) or Ed25519 (EdDSA) public key.
    public static func privateKeyJWT(id: String, publicKeyPEM: String, redirectURIs: [URL] = [], scopes: [String]? = nil) -> SimulatedClient {
        SimulatedClient(id: id, authentication: .privateKeyJWT, redirectURIs: redirectURIs, scopes: scopes, publicKeyPEM: publicKeyPEM)
    }

    /// A confidential client that authenticates with the certificate it presents over TLS (`tls_client_auth`, RFC 8705
    /// §2.1), from a CA the provider trusts, named in it as `subject` says.
    public static func tlsClientAuth(id: String, subject: CertificateSubject, redirectURIs: [URL] = [], scopes: [String]? = nil) -> SimulatedClient {
        var client = SimulatedClient(id: id, authentication: .tlsClientAuth, redirectURIs: redirectURIs, scopes: scopes)
        client.certificateSubject = subject
        return client
    }

    /// A confidential client that authenticates with the self-signed certificate it registered and presents over TLS
    /// (`self_signed_tls_client_auth`, RFC 8705 §2.2); `certificatePEM` is the certificate (its first one, in a chain).
    public static func selfSignedTLSClientAuth(id: String, certificatePEM: String, redirectURIs: [URL] = [], scopes: [String]? = nil)
        -> SimulatedClient
    {
        var client = SimulatedClient(id: id, authentication: .selfSignedTLSClientAuth, redirectURIs: redirectURIs, scopes: scopes)
        client.certificateThumbprint = TLSClientIdentity.thumbprint(ofPEM: certificatePEM)
        return client
    }

    /// How a `tls_client_auth` client's certificate names it: exactly one of the registration parameters of RFC 8705
    /// §2.1.2.
    public enum CertificateSubject: Sendable, Hashable {
        /// `tls_client_auth_subject_dn`: the subject's distinguished name as an RFC 4514 string (`CN=bank-app,O=Bank`),
        /// compared without regard to the case of attribute names or to spaces around `,`, `+` and `=`.
        case distinguishedName(String)
        /// `tls_client_auth_san_dns`: a `dNSName` subject alternative name, compared without regard to case.
        case dnsName(String)
        /// `tls_client_auth_san_uri`: a `uniformResourceIdentifier` subject alternative name, compared exactly.
        case uri(String)
        /// `tls_client_auth_san_email`: an `rfc822Name` subject alternative name, compared exactly.
        case email(String)
    }

    /// What the client is granted of `asked`: all of it when ``scopes`` is nil, else the part it may have (RFC 6749 §3.3).
    ///
    /// - Throws: `invalid_scope` when it asked for scopes and may have none of them.
    func granted(_ asked: [String]) throws -> [String] {
        guard let scopes else { return asked }
        let granted = asked.filter(scopes.contains)
        guard asked.isEmpty || !granted.isEmpty else {
            throw OAuthRefusal("invalid_scope", "the client may not be granted any of the scopes asked for")
        }
        return granted
    }

    /// Whether `uri` is one of the registered redirect URIs; with `exactPort`, a loopback one's port must be the registered one.
    func allowsRedirect(_ uri: String, exactPort: Bool = false) -> Bool {
        guard let given = URLComponents(string: uri), given.fragment == nil else { return false }
        return redirectURIs.contains { registered in
            if registered.absoluteString == uri { return true }
            guard !exactPort, var loose = URLComponents(url: registered, resolvingAgainstBaseURL: false), let host = loose.host,
                host == "127.0.0.1" || host == "[::1]" || host == "::1", loose.scheme == "http"
            else { return false }
            var other = given
            loose.port = nil
            other.port = nil
            return loose.string == other.string
        }
    }
}
