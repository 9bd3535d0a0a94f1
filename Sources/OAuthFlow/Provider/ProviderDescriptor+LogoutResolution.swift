import Foundation

extension ProviderDescriptor.LogoutSettings {
    /// - Parameter endSession: Whether the descriptor names the provider's logout URL (`endpoints.end_session`).
    func resolved(endSession: Bool, _ refusals: inout PolicyRefusals) -> Provider.Policy.LogoutPolicy {
        let custom = style == .custom
        if custom, !endSession {
            refusals.refuse(["logout", "style"], "is `custom`, which needs the provider's logout URL in `endpoints.end_session`")
        }
        // The engine's names made only for a map that sets any (most set none); the map filtered before sorting, and
        // sorted only when there are two (sorting makes a new list, even of none).
        if !extraParams.isEmpty {
            let set = extraParams.keys.filter(engineParameters.contains)
            for reserved in set.count > 1 ? set.sorted() : set {
                refusals.refuse(["logout", "extra_params"], item: reserved, "sets `\(reserved)`, which the engine sets on an end-session request")
            }
        }
        let clientIDParameter = clientIDParameter ?? Self.standardClientIDParameter
        return .init(
            style: style, redirectParameter: redirectParameter ?? Self.standardRedirectParameter,
            clientIDParameter: clientIDParameter.isEmpty ? nil : clientIDParameter, sendsIDTokenHint: idTokenHint ?? !custom,
            returnsState: returnsState ?? !custom, parameters: extraParams,
            backChannel: .init(supported: backchannelLogoutSupported, sessionSupported: backchannelLogoutSessionSupported),
            frontChannel: .init(supported: frontchannelLogoutSupported, sessionSupported: frontchannelLogoutSessionSupported),
            logoutTokenMaxAge: TimeInterval(logoutTokenMaxAge))
    }
}

extension Provider.Policy {
    /// How the provider's session is ended (the descriptor's `logout`), every default applied.
    public struct LogoutPolicy: Sendable, Hashable {
        public var style: ProviderDescriptor.LogoutStyle
        /// The parameter naming the post-logout redirect URI.
        public var redirectParameter: String
        /// The parameter carrying the client id; nil when none is sent.
        public var clientIDParameter: String?
        /// Whether the session's ID token is sent as `id_token_hint`.
        public var sendsIDTokenHint: Bool
        /// Whether the provider returns `state`, so that a return must carry the one sent.
        public var returnsState: Bool
        /// Fixed parameters of the end-session request.
        public var parameters: [String: String]
        /// Back-Channel Logout 1.0 as the descriptor declares it.
        public var backChannel: LogoutChannel
        /// Front-Channel Logout 1.0 as the descriptor declares it.
        public var frontChannel: LogoutChannel
        /// The oldest a logout token may be.
        public var logoutTokenMaxAge: TimeInterval
    }

    /// Whether a logout channel is declared, and whether it names sessions (`sid`).
    public struct LogoutChannel: Sendable, Hashable {
        public var supported: Bool
        public var sessionSupported: Bool
    }
}
