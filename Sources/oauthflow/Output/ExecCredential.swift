#if CLI
import Foundation
import OAuthFlow

/// A kubeconfig `exec` credential (`client.authentication.k8s.io/v1` ExecCredential).
struct ExecCredential: Sendable, Hashable, Encodable {
    let apiVersion = "client.authentication.k8s.io/v1"
    let kind = "ExecCredential"
    let status: Status

    struct Status: Sendable, Hashable, Encodable {
        let token: String
        /// RFC 3339, UTC.
        let expirationTimestamp: String?
    }

    init(token: Secret, expiresAt: Date?) {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        status = Status(token: token.value, expirationTimestamp: expiresAt.map { formatter.string(from: $0) })
    }

    enum CodingKeys: String, CodingKey {
        case apiVersion, kind, status
    }
}
#endif
