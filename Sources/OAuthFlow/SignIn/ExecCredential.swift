import Foundation
import OAuthFlowFiles

/// A kubeconfig `exec` credential (`client.authentication.k8s.io/v1` ExecCredential).
package struct ExecCredential: Sendable, Hashable, Encodable {
    public let apiVersion = "client.authentication.k8s.io/v1"
    public let kind = "ExecCredential"
    public let status: Status

    public struct Status: Sendable, Hashable, Encodable {
        public let token: String
        /// RFC 3339, UTC.
        public let expirationTimestamp: String?
    }

    public init(token: Secret, expiresAt: Date?) {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        status = Status(token: token.value, expirationTimestamp: expiresAt.map { formatter.string(from: $0) })
    }

    enum CodingKeys: String, CodingKey {
        case apiVersion, kind, status
    }
}
