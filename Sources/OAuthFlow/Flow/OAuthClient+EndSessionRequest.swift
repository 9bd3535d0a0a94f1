import Foundation

extension OAuthClient {
    /// A request that ends the user's session at the provider (OpenID Connect RP-Initiated Logout 1.0, or the
    /// provider's own logout URL as its descriptor's `logout` spells it): the URL to open in the browser, and
    /// what the return to the post-logout redirect URI is checked against.
    public struct EndSessionRequest: Sendable, Hashable {
        /// The URL to open in the user's browser.
        public let url: URL
        /// Where the provider sends the browser afterwards, when one was given.
        public let postLogoutRedirectURI: URL?
        /// The `state` sent, which the return must carry; nil when the provider returns none (or none was sent).
        public let state: Secret?

        /// Whether a return to the post-logout redirect URI (its raw query) carries the state sent: compared
        /// in constant time; true when no state is expected.
        public func acceptsReturn(query: String?) -> Bool {
            guard let state else { return true }
            let returned = FormEncoding.decode(query ?? "").filter { $0.0 == "state" }
            guard returned.count == 1 else { return false }
            return state.constantTimeEquals(returned[0].1)
        }
    }
}
