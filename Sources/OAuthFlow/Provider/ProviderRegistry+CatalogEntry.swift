extension ProviderRegistry {
    /// What a person choosing a provider wants to know, read from its descriptor alone (no variables, no network):
    /// the columns of `oauthflow providers list` and of Docs/providers.md.
    ///
    /// Each value says only what the descriptor states. Where the provider's answer depends on a case the request
    /// cannot settle (an application setting, an approval, a host), the descriptor states that case and the entry
    /// carries it beside the column (`refreshCondition`, `logoutCondition`).
    public struct CatalogEntry: Sendable, Hashable, Codable {
        public var id: String
        public var displayName: String
        public var `protocol`: String
        /// `required`, `supported` or `unsupported`.
        public var pkce: String
        /// How a refresh token is had: the scope (`offline_access`) or parameter (`access_type=offline`) the
        /// descriptor adds to ask for one, `yes` when nothing needs adding, `conditional` when nothing needs adding
        /// but the provider issues one only in the case `refreshCondition` names, or `no`.
        public var refresh: String
        /// The case in which the provider issues refresh tokens, when it does so only in some (`scopes.offline.condition`).
        public var refreshCondition: String?
        /// The device authorization grant (RFC 8628).
        public var deviceFlow: Bool
        /// Token revocation (RFC 7009): `yes` when the descriptor names the endpoint; `no` when it names none and
        /// either asks for no metadata or records that the provider's document names none (`discovery.lacks`);
        /// `conditional` when the provider has one only in the case `revocationCondition` names; `not stated` when
        /// the document, read at sign-in, decides.
        public var revocation: String
        /// The case in which the provider has a revocation endpoint, when it has one only in some (`revocation.condition`).
        public var revocationCondition: String?
        /// Ending the provider's session, as `revocation` with the end-session endpoint, or `conditional` when the
        /// provider has one only in the case `logoutCondition` names; with back-channel logout when declared.
        public var logout: String
        /// The case in which the provider has an end-session endpoint, when it has one only in some (`logout.condition`).
        public var logoutCondition: String?
        /// The profile fields the descriptor maps (`subject`, `name`, `email`, `email_verified`, `picture`).
        public var profileFields: [String]
        /// Whether an app signs in with its own redirect URI (Docs/apple.md): `private-use` (a private-use scheme, RFC 8252
        /// §7.1), `claimed https` (§7.2), both, or `no` when the descriptor names neither, takes web redirects only
        /// (`redirect.web_only`) or answers with a POST (`form_post`).
        public var appClient: String
        /// The variables without a default: what `--var` must give.
        public var requiredVariables: [String]
        /// The page the descriptor was written from.
        public var docsURL: String?

        enum CodingKeys: String, CodingKey {
            case id, displayName = "display_name", `protocol`, pkce, refresh, refreshCondition = "refresh_condition", deviceFlow = "device_flow"
            case revocation, revocationCondition = "revocation_condition", logout, logoutCondition = "logout_condition"
            case profileFields = "profile_fields", appClient = "app_client", requiredVariables = "required_variables", docsURL = "docs_url"
        }
    }
}
