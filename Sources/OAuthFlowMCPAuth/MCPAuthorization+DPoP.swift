#if NIO
import Foundation
import OAuthFlow

/// DPoP (RFC 9449) over an MCP transport: the transport asks for its headers without waiting, so each request's proof is
/// signed ahead, in the step the transport awaits before it (``prepareAuthorization(for:)``, or the challenge it sends the
/// request again for), and handed over as the request leaves.
extension MCPAuthorization {
    /// The `DPoP` header for a request about to be sent to an MCP server: a proof signed ahead for its method, URL and
    /// access token when its `Authorization` is `DPoP` (RFC 9449 §7.1); nil for a Bearer token or none.
    /// What `MCPAuthorizer.requestModifier` adds to each request.
    ///
    /// - Parameters:
    ///   - method: The request's method.
    ///   - url: The request's URL.
    ///   - authorization: Its `Authorization` header, as ``authorizationHeader(for:)`` gave it.
    public func dpopProof(method: String, url: URL, authorization: String?) -> String? {
        guard let authorization, authorization.hasPrefix("DPoP ") else {
            proofs.noteSent()
            return nil
        }
        return proofs.take(
            method: method.uppercased(), target: PreparedProofs.target(of: url), token: String(authorization.dropFirst(5)),
            now: environment.clock.now())
    }

    /// Whether a sign-in asks for DPoP-bound tokens where the authorization server offers them: the configuration allows
    /// it and requests carry proofs.
    var bindsTokens: Bool { configuration.dpop && proofs.areSent }

    /// Signs proofs for the next requests to `endpoint` when the token it is sent is DPoP-bound: one for a POST, and
    /// one for an event stream's GET when none is ready. A proof that cannot be signed is left out (the request's 401
    /// says so).
    func prepareProofs(for endpoint: URL) async {
        guard proofs.areSent, let server = ResourceIdentifier(endpoint), let presented = presentedToken(to: server),
            let key = presented.key
        else { return }
        let target = PreparedProofs.target(of: endpoint)
        let nonce = environment.nonces.nonce(for: endpoint)
        let now = environment.clock.now()
        for method in proofs.wanted(target: target, token: presented.token, now: now) {
            guard let verb = TransportRequest.Method(rawValue: method) else { continue }
            do {
                let value = try await key.proof(method: verb, url: endpoint, accessToken: Secret(presented.token), nonce: nonce, now: now)
                proofs.add(PreparedProofs.Proof(method: method, token: presented.token, value: value, made: now), target: target)
            } catch {
                logger.info("cannot sign a DPoP proof", metadata: ["server": "\(server)", "error": "\(error)"])
            }
        }
    }

    /// Answers a 401 that is about the proof rather than the token: `use_dpop_nonce` with the server's `DPoP-Nonce`
    /// (RFC 9449 §9), kept for the next proofs; or a DPoP request that left without its proof.
    ///
    /// - Returns: Whether the 401 was such an answer (the request is sent again with a new proof).
    /// - Throws: ``MCPAuthorizationError`` `refused_again` for `use_dpop_nonce` without a usable `DPoP-Nonce`.
    func answerProofChallenge(_ challenge: TransportResponse.Challenge?, headers: [String: String], endpoint: URL) async throws -> Bool {
        let target = PreparedProofs.target(of: endpoint)
        if challenge?.error == "use_dpop_nonce" {
            let given = headers.first { $0.key.lowercased() == "dpop-nonce" }?.value
            guard let given, environment.nonces.remember(given, for: endpoint) else {
                throw MCPAuthorizationError(
                    .refusedAgain,
                    "the MCP server \(ServerDiscovery.shown(endpoint.absoluteString)) demanded a DPoP nonce (`use_dpop_nonce`) without giving a usable one in `DPoP-Nonce`"
                )
            }
            proofs.discard(target: target)
            _ = proofs.takeMissed(target: target)
            return true
        }
        return proofs.takeMissed(target: target)
    }

    /// Refuses to send a DPoP-bound session's token where requests carry no proofs.
    ///
    /// - Throws: ``MCPAuthorizationError`` `dpop_proofs_missing`.
    func requireProofs(for tokens: TokenSet, server: ResourceIdentifier) throws {
        guard tokens.proofKey != nil, !proofs.areSent else { return }
        throw MCPAuthorizationError(
            .dpopProofsMissing,
            "the session stored for the MCP server \(server) is DPoP-bound, and these requests carry no DPoP proofs: give the transport `requestModifier: authorizer.requestModifier`"
        )
    }
}
#endif
