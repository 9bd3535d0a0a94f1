extension ProviderDescriptor {
    /// How the provider ends its own session (OpenID Connect RP-Initiated Logout 1.0, or a provider's own
    /// logout URL) and tells relying parties that a session ended (Back-Channel and Front-Channel Logout 1.0).
    package struct LogoutSettings: Sendable, Hashable, Codable {
        package var style: LogoutStyle = .rpInitiated
        /// The parameter that says where the browser returns after the provider's logout.
        package var redirectParameter: String?
        /// The parameter that carries the client id; empty when the provider takes none.
        package var clientIDParameter: String?
        /// The parameter names RP-Initiated Logout 1.0 gives them, used when the descriptor names none.
        static let standardRedirectParameter = "post_logout_redirect_uri"
        static let standardClientIDParameter = "client_id"
        /// Whether the ID token is sent as `id_token_hint`; nil for the style's default (`rp_initiated` sends it).
        package var idTokenHint: Bool?
        /// Whether the provider sends `state` back; nil for the style's default (`rp_initiated` does).
        package var returnsState: Bool?
        /// Fixed parameters added to the end-session request (Auth0's `federated`).
        package var extraParams: [String: String] = [:]
        /// Back-Channel Logout 1.0: the provider POSTs logout tokens to the relying party.
        package var backchannelLogoutSupported = false
        /// The provider's logout tokens carry `sid` (and its ID tokens too).
        package var backchannelLogoutSessionSupported = false
        /// Front-Channel Logout 1.0: the provider loads the relying party's logout URI in the browser.
        package var frontchannelLogoutSupported = false
        /// The front-channel request carries `iss` and `sid`.
        package var frontchannelLogoutSessionSupported = false
        /// How old, in seconds, a logout token's `iat` may be before it is refused.
        package var logoutTokenMaxAge = 300
        /// When the provider has an end-session endpoint only in some cases (a host, a setting), that case in
        /// a sentence: the catalog says so in a footnote.
        package var condition: String?

        package init() {}

        /// The parameters the engine sets on an end-session request, which `extra_params` may not: the
        /// standard ones, and the names `redirect_parameter` and `client_id_parameter` give.
        package var engineParameters: Set<String> {
            var names: Set<String> = ["id_token_hint", "client_id", "post_logout_redirect_uri", "state", "logout_hint", "ui_locales"]
            if let redirectParameter { names.insert(redirectParameter) }
            if let clientIDParameter, !clientIDParameter.isEmpty { names.insert(clientIDParameter) }
            return names
        }
    }
}

// The schema's `logout` keys: their shapes, defaults and reference sentences.
extension DescriptorSchema {
    static let logoutFields: [SectionKey<ProviderDescriptor.LogoutSettings>] = [
        SectionKey(
            \.style, { $0.style = $1 }, "style", default: ProviderDescriptor.LogoutSettings().style,
            "`rp_initiated`: OpenID Connect RP-Initiated Logout 1.0 at `endpoints.end_session` (or discovery's `end_session_endpoint`). `custom`: the provider's own logout URL in `endpoints.end_session`, with the parameter names below (Auth0 `/v2/logout`, Cognito `/logout`)."
        ),
        SectionKey(
            \.redirectParameter, { $0.redirectParameter = $1 }, "redirect_parameter", .string(pattern: "^[A-Za-z0-9_.-]+$"),
            default: ProviderDescriptor.LogoutSettings.standardRedirectParameter,
            "The parameter naming where the browser returns after the provider's logout (Auth0 `returnTo`, Cognito `logout_uri`)."),
        SectionKey(
            \.clientIDParameter, { $0.clientIDParameter = $1 }, "client_id_parameter", .string(pattern: "^[A-Za-z0-9_.-]*$"),
            default: ProviderDescriptor.LogoutSettings.standardClientIDParameter,
            "The parameter carrying the client id; an empty string sends none."),
        SectionKey(
            \.idTokenHint, { $0.idTokenHint = $1 }, "id_token_hint", .boolean, default: "true for rp_initiated, false for custom",
            "Send the session's ID token as `id_token_hint`, so the provider knows whose session to end without asking."),
        SectionKey(
            \.returnsState, { $0.returnsState = $1 }, "returns_state", .boolean, default: "true for rp_initiated, false for custom",
            "Whether the provider sends `state` back to the post-logout redirect URI; when it does, a return without the state sent is refused."
        ),
        SectionKey(
            \.extraParams, { $0.extraParams = $1 }, "extra_params", .map(.string()), default: shown(ProviderDescriptor.LogoutSettings().extraParams),
            "Fixed parameters added to the end-session request (Auth0 `federated`)."),
        SectionKey(
            \.backchannelLogoutSupported, { $0.backchannelLogoutSupported = $1 }, "backchannel_logout_supported", .boolean,
            default: "\(ProviderDescriptor.LogoutSettings().backchannelLogoutSupported)",
            "Back-Channel Logout 1.0: the provider POSTs a signed logout token to the app when a user's session ends there."),
        SectionKey(
            \.backchannelLogoutSessionSupported, { $0.backchannelLogoutSessionSupported = $1 }, "backchannel_logout_session_supported", .boolean,
            default: "\(ProviderDescriptor.LogoutSettings().backchannelLogoutSessionSupported)",
            "The provider's ID tokens and logout tokens carry `sid`, so one session ends rather than all of the user's."),
        SectionKey(
            \.frontchannelLogoutSupported, { $0.frontchannelLogoutSupported = $1 }, "frontchannel_logout_supported", .boolean,
            default: "\(ProviderDescriptor.LogoutSettings().frontchannelLogoutSupported)",
            "Front-Channel Logout 1.0: the provider loads the app's front-channel logout URI in the user's browser."),
        SectionKey(
            \.frontchannelLogoutSessionSupported, { $0.frontchannelLogoutSessionSupported = $1 }, "frontchannel_logout_session_supported", .boolean,
            default: "\(ProviderDescriptor.LogoutSettings().frontchannelLogoutSessionSupported)",
            "The front-channel request carries `iss` and `sid`; the app's route ends only the session they name, and requires them."),
        SectionKey(
            \.logoutTokenMaxAge, { $0.logoutTokenMaxAge = $1 }, "logout_token_max_age", .integer(10...3600),
            default: "\(ProviderDescriptor.LogoutSettings().logoutTokenMaxAge)",
            "How old, in seconds, a logout token (its `iat`) may be; older ones are refused, and replays are remembered that long."),
        SectionKey(
            \.condition, { $0.condition = $1 }, "condition", .string(),
            "When the provider has an end-session endpoint only in some cases (a host, a setting) that the descriptor leaves to discovery, that case in a sentence; the catalog's Logout column says `conditional` with the sentence as a footnote."
        ),
    ]
}

extension ProviderDescriptor {
    /// How the end-session request is spelt.
    public enum LogoutStyle: String, Sendable, Hashable, Codable, CaseIterable {
        /// RP-Initiated Logout 1.0: `id_token_hint`, `client_id`, `post_logout_redirect_uri`, `state`.
        case rpInitiated = "rp_initiated"
        /// A provider's own logout URL (Auth0 `/v2/logout?returnTo=`, Cognito `/logout?logout_uri=`):
        /// the parameter names of the `logout` section, and no `state` unless the provider returns it.
        case custom
    }
}

extension ProviderDescriptor.LogoutSettings: DescriptorSection {
    package static var keys: [SectionKey<Self>] { DescriptorSchema.logoutFields }
}
