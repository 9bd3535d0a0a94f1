import Foundation
import Logging

/// Token revocation (RFC 7009).
extension OAuthClient {
    /// Which token to revoke (RFC 7009 §2.1 `token_type_hint`).
    public enum TokenKind: String, Sendable {
        case accessToken = "access_token"
        case refreshToken = "refresh_token"
    }

    /// Revokes a token at the revocation endpoint (RFC 7009).
    ///
    /// - Parameters:
    ///   - token: The access or refresh token to revoke.
    ///   - kind: Which of the two it is, sent as `token_type_hint`.
    ///   - proofKey: The DPoP key of the session the token belongs to: the request carries a proof from it.
    /// - Throws: ``AuthorizationServerError`` when the server refuses, ``FlowError``, or ``TransportError``.
    public func revoke(_ token: Secret, kind: TokenKind, proofKey: DPoPKey? = nil) async throws {
        guard let endpoint = try await revocationEndpoint() else {
            throw FlowError(
                .missingEndpoint,
                "provider `\(provider.id)` has no revocation endpoint: neither its descriptor nor its discovery document names one (set `endpoints.revocation`)"
            )
        }
        let response = try await post(to: endpoint, [("token", token.value), ("token_type_hint", kind.rawValue)], proofKey: proofKey)
        guard (200..<300).contains(response.status) else { throw Self.refusal(response, from: "revocation") }
        logger.debug("token revoked", metadata: ["provider": "\(provider.id)", "kind": "\(kind.rawValue)"])
    }

    /// The error for an endpoint's answer that is not a success: the server's OAuth error when the body
    /// holds one, else ``FlowError`` `unexpectedStatus` naming the endpoint and the status.
    static func refusal(_ response: TransportResponse, from endpoint: String) -> any Error {
        let fields = try? TokenResponseParser.fields(of: response, format: .auto)
        return fields.flatMap { TokenResponseParser.serverError(in: $0, status: response.status) }
            ?? FlowError(.unexpectedStatus, "the \(endpoint) endpoint answered HTTP \(response.status)")
    }
}
