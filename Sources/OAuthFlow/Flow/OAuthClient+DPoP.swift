import Foundation
import Logging

/// The DPoP key choice (RFC 9449): which key a session's tokens are bound to, and whether the answer bound them.
extension OAuthClient {
    /// The key a new session's tokens are bound to, or nil when DPoP is not used for `target`
    /// (``Provider/Policy/DPoPPolicy``, and discovery's `dpop_signing_alg_values_supported`).
    ///
    /// - Throws: ``FlowError`` `dpop` when DPoP is required and the server lists no algorithm the descriptor allows.
    func proofKey(for target: Provider) throws -> DPoPKey? {
        let policy = target.policy.dpop
        let offered = target.capabilities.dpopAlgorithms ?? []
        let common = policy.algorithms.first { offered.contains($0.rawValue) }
        switch policy.use {
        case .never:
            return nil
        case .ifSupported:
            guard let common else {
                if !offered.isEmpty {
                    logger.info("no DPoP algorithm in common; tokens stay Bearer", metadata: ["provider": "\(provider.id)"])
                }
                return nil
            }
            return try DPoPKey.generate(common)
        case .required:
            if offered.isEmpty { return try DPoPKey.generate(policy.algorithms[0]) }
            guard let common else {
                throw FlowError(
                    .dpop,
                    "provider `\(provider.id)` requires DPoP, but its server signs proofs with \(offered.joined(separator: ", ")) and the descriptor allows \(policy.algorithms.map(\.rawValue).joined(separator: ", ")) (`security.dpop_signing_alg_values_supported`)"
                )
            }
            return try DPoPKey.generate(common)
        }
    }

    /// The key for a token request outside a sign-in (device, service grants): discovery first when DPoP depends on it.
    func newProofKey() async throws -> DPoPKey? {
        guard provider.policy.dpop.use != .never else { return nil }
        return try proofKey(for: provider.usesDiscovery ? try await discoveredProvider() : provider)
    }

    /// Tokens from a request that carried a proof from `key`: bound to it when the server says `token_type: DPoP`;
    /// a Bearer answer is refused or kept unbound, as `security.dpop_bearer_answer` says.
    func bound(_ tokens: TokenSet, key: DPoPKey?, keepingBinding: Bool = false) throws -> TokenSet {
        // Bound to the client certificate (RFC 8705 §3) when the request presented it or the answer says so.
        let tokens = certificateBinding(
            of: tokens, presented: try presentedCertificate(keepingBinding: keepingBinding, requestingTokens: true))
        var result = tokens
        guard let key else {
            guard tokens.tokenType != "dpop" else {
                throw FlowError(.dpop, "provider `\(provider.id)` issued a DPoP-bound token to a request that sent no DPoP proof")
            }
            try requireSenderConstrained(tokens)
            return tokens
        }
        if tokens.tokenType == "dpop" {
            result.proofKey = key
            return result
        }
        switch provider.policy.dpop.bearerAnswer {
        case .accept:
            logger.info("DPoP was asked for, the server issued Bearer tokens", metadata: ["provider": "\(provider.id)"])
            result.proofKey = nil
            return result
        case .refuse:
            throw FlowError(
                .dpop,
                "provider `\(provider.id)` answered a DPoP token request with `token_type: \(tokens.tokenType)`: the tokens are not bound to the key; set `security.dpop_bearer_answer: accept` to keep such tokens as Bearer tokens"
            )
        }
    }
}
