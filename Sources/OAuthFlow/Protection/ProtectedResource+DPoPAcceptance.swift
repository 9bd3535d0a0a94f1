extension ProtectedResource {
    /// Whether the API takes unbound (Bearer) tokens as well as DPoP-bound ones.
    public enum DPoPAcceptance: String, Sendable, Hashable {
        /// DPoP-bound tokens are checked with their proofs; unbound tokens are accepted with the Bearer scheme.
        case accepted
        /// Only DPoP-bound tokens are accepted (RFC 9728 `dpop_bound_access_tokens_required`).
        case required
    }
}
