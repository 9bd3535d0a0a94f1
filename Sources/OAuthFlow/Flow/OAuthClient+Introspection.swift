import Foundation

/// Token introspection (RFC 7662).
extension OAuthClient {
    /// Asks the provider about an access token (RFC 7662), authenticating as this client.
    ///
    /// The request is always form-encoded (RFC 7662 §2.1), whatever `token_request.body_encoding` says.
    /// - Returns: The answer's members; `active` says whether the token is valid.
    /// - Throws: ``FlowError`` `missingEndpoint` or `unexpectedStatus` (a redirect, an error status, or an
    ///   answer that is not a JSON object with a boolean `active`), ``AuthorizationServerError`` when the
    ///   server refuses the client, or ``TransportError``.
    public func introspect(_ token: Secret) async throws -> [String: JSONValue] {
        let endpoint = try await endpoint(\.introspection, "introspection")
        let response = try await post(
            to: endpoint, [("token", token.value), ("token_type_hint", "access_token")], encoding: .form, purpose: .introspection)
        guard response.status == 200 else {
            if (300..<400).contains(response.status) {
                throw FlowError(.unexpectedStatus, "the introspection endpoint answered HTTP \(response.status) (a redirect), which is not followed")
            }
            throw Self.refusal(response, from: "introspection")
        }
        let answer: [String: JSONValue]
        do {
            answer = try ServerJSON.object(response.body)
        } catch {
            // `{"active":true,…,"\u0061ctive":false}`: readers differ on which `active` wins, so neither is believed.
            throw FlowError(.unexpectedStatus, "the introspection endpoint's answer \(error) (RFC 8259 §4, §8.1); it is not believed")
        }
        guard case .bool? = answer["active"] else {
            throw FlowError(.unexpectedStatus, "the introspection endpoint's answer is not a JSON object with a boolean `active` (RFC 7662 §2.2)")
        }
        return answer
    }
}
