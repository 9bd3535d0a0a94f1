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

    /// A grant issued in answer to a request that carried a proof from `key` (an ID-JAG, draft-ietf-oauth-identity-assertion-
    /// authz-grant §Sender Constraining): bound to `key` when its `cnf.jkt` names it, so that it is presented with a proof
    /// of that key; refused when it names another key, or, from a provider that requires DPoP, when it names none (a
    /// downgrade: the proof was sent and the grant came back unbound). A grant that is not a JWT is taken unbound unless
    /// DPoP is required.
    func boundGrant(_ tokens: TokenSet, key: DPoPKey) throws -> TokenSet {
        var result = tokens
        let confirmation = (try? CompactJWS(tokens.accessToken.value))?.claims["cnf"]
        switch confirmation {
        case let .object(members)?:
            guard let thumbprint = members["jkt"]?.stringValue else {
                throw FlowError(.dpop, "provider `\(provider.id)` issued a grant whose `cnf` names no key thumbprint (`jkt`)")
            }
            guard thumbprint == key.thumbprint else {
                throw FlowError(.dpop, "provider `\(provider.id)` issued a grant bound to another key than the one whose proof was sent (`cnf.jkt`)")
            }
            result.proofKey = key
        case nil:
            guard provider.policy.dpop.use != .required else {
                throw FlowError(
                    .dpop,
                    "provider `\(provider.id)` requires DPoP (`security.dpop: required`), and the grant it issued to a request with a proof is not bound to its key (no `cnf.jkt`)"
                )
            }
            result.proofKey = nil
        default:
            throw FlowError(.dpop, "provider `\(provider.id)` issued a grant whose `cnf` is not an object")
        }
        return result
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
        // RFC 8693 `N_A`: not an access token but a grant (an ID-JAG), bound, if at all, by its own `cnf.jkt`.
        if tokens.tokenType == "n_a" { return try boundGrant(result, key: key) }
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
