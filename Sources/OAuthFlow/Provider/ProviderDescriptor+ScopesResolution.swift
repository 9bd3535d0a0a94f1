import Foundation

extension ProviderDescriptor.Scopes {
    /// The scopes asked for by default and for a refresh token, as written; the `scope` parameter's use is resolved with
    /// the request parameters (``ProviderDescriptor/ScopeParameter``).
    func resolved() -> Provider.Policy.ScopePolicy {
        .init(defaults: self.default, separator: separator, offlineScopes: offline.scopes, offlineParameters: offline.params)
    }
}

extension Provider.Policy {
    /// The scopes a sign-in asks for by default, their separator, and what asks for a refresh token.
    public struct ScopePolicy: Sendable, Hashable {
        public var defaults: [String]
        public var separator: String
        public var offlineScopes: [String]
        public var offlineParameters: [String: String]
        /// When requests carry the scope parameter (`scopes.parameter`).
        public var parameter: ProviderDescriptor.ScopeParameter = .whenListed
        /// What stands between the granted scopes in a token answer's `scope` when the provider answers otherwise
        /// than it is asked (`token_response.scope_separator`); nil for ``separator``.
        package var answerSeparator: String? = nil

        /// What a token answer's `scope` is split on, besides spaces: the descriptor's `token_response.scope_separator`, else ``separator``.
        public var grantedSeparator: String { answerSeparator ?? separator }

        /// `scopes` joined with the provider's separator.
        public func joined(_ scopes: [String]) -> String { scopes.joined(separator: separator) }

        /// The scope parameter of a request asking for `scopes`, as `scopes.parameter` says: none, or one named `name`.
        public func parameters(for scopes: [String], named name: String = "scope") -> [(String, String)] {
            switch parameter {
            case .never: []
            case .whenListed where scopes.isEmpty: []
            case .whenListed, .always: [(name, joined(scopes))]
            }
        }
    }
}
