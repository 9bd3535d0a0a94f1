extension ProviderDescriptor {
    /// Scopes and how they are joined.
    package struct Scopes: Sendable, Hashable, Codable {
        package var `default`: [String] = []
        package var separator: String = " "
        package var offline: Offline = Offline()
        /// When requests carry the `scope` parameter (Bungie and Pipedrive take none; Notion wants it even empty).
        package var parameter: ScopeParameter = .whenListed

        package init() {}
    }

    /// What to add to an authorization request to be issued a refresh token.
    package struct Offline: Sendable, Hashable, Codable {
        package var scopes: [String] = []
        package var params: [String: String] = [:]
        /// The provider grants `offline_access` without `prompt=consent`: OpenID Connect Core §11's "other
        /// conditions", as its documentation states them.
        package var withoutConsentPrompt = false
        /// When the provider issues refresh tokens only in some cases (an application setting, an approval),
        /// that case in a sentence: the catalog says so in a footnote.
        package var condition: String?

        package init() {}
    }
}

// The schema's `scopes` keys: their shapes, defaults and reference sentences.
extension DescriptorSchema {
    static let scopeFields: [SectionKey<ProviderDescriptor.Scopes>] = [
        SectionKey(
            \.default, { $0.default = $1 }, "default", .list(.string()), default: shown(ProviderDescriptor.Scopes().default),
            "Scopes requested when the caller names none."),
        SectionKey(
            \.separator, { $0.separator = $1 }, "separator", .string(), default: "\"\(ProviderDescriptor.Scopes().separator)\"",
            "String placed between scopes in the `scope` parameter."),
        SectionKey(\.offline, { $0.offline = $1 }, "offline", "What to add to the request to get a refresh token."),
        SectionKey(
            \.parameter, { $0.parameter = $1 }, "parameter", default: ProviderDescriptor.Scopes().parameter,
            "When requests carry `scope`: the authorization request, the device authorization request, and token requests that name scopes (a refresh for fewer scopes, the service grants). `when_listed` sends it when some scope is asked for; `always` also sends it empty (Notion); `never` sends none, for providers that fix the scopes when the app is registered and refuse the parameter (Bungie, Pipedrive), and is refused with scopes listed."
        ),
    ]

    static let offlineFields: [SectionKey<ProviderDescriptor.Offline>] = [
        SectionKey(
            \.scopes, { $0.scopes = $1 }, "scopes", .list(.string()), default: shown(ProviderDescriptor.Offline().scopes),
            "Scopes added to obtain a refresh token (`offline_access`)."),
        SectionKey(
            \.params, { $0.params = $1 }, "params", .map(.string()), default: shown(ProviderDescriptor.Offline().params),
            "Authorization parameters added to obtain a refresh token (Google `access_type: offline`)."),
        SectionKey(
            \.withoutConsentPrompt, { $0.withoutConsentPrompt = $1 }, "without_consent_prompt", .boolean,
            default: "\(ProviderDescriptor.Offline().withoutConsentPrompt)",
            "The provider's documentation grants refresh tokens for `offline_access` without `prompt=consent` (the \"other conditions\" of OpenID Connect Core §11). Lint rule `offline_access_consent` asks for one or the other."
        ),
        SectionKey(
            \.condition, { $0.condition = $1 }, "condition", .string(),
            "When the provider issues refresh tokens only in some cases (an application setting, an approval, a kind of app), that case in a sentence; the catalog's Refresh column says `conditional` (or keeps its scope or parameter) with the sentence as a footnote."
        ),
    ]
}

extension ProviderDescriptor.Scopes: DescriptorSection {
    package static var keys: [SectionKey<Self>] { DescriptorSchema.scopeFields }
}

extension ProviderDescriptor.Offline: DescriptorSection {
    package static var keys: [SectionKey<Self>] { DescriptorSchema.offlineFields }
}
