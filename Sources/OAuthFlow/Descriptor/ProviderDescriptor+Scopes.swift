extension ProviderDescriptor {
    /// Scopes and how they are joined.
    package struct Scopes: Sendable, Hashable, Codable {
        package var `default`: [String] = []
        package var separator: String = " "
        package var offline: Offline = Offline()
        /// When requests carry the `scope` parameter (Bungie and Pipedrive take none; Notion wants it even empty).
        package var parameter: ScopeParameter = .whenListed

        package init() {}

        package init(from decoder: any Decoder) throws { try self.init(plain: PlainObject(from: decoder)) }

        init(plain o: PlainObject) throws {
            let defaults = Self()
            `default` = try o.strings(CodingKeys.default) ?? defaults.default
            separator = try o.string(CodingKeys.separator) ?? defaults.separator
            offline = try o.object(CodingKeys.offline, Offline.init(plain:)) ?? defaults.offline
            parameter = try o.choice(CodingKeys.parameter) ?? defaults.parameter
        }
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

        enum CodingKeys: String, CodingKey {
            case scopes, params, withoutConsentPrompt = "without_consent_prompt", condition
        }

        package init() {}

        package init(from decoder: any Decoder) throws { try self.init(plain: PlainObject(from: decoder)) }

        init(plain o: PlainObject) throws {
            let defaults = Self()
            scopes = try o.strings(CodingKeys.scopes) ?? defaults.scopes
            params = try o.stringMap(CodingKeys.params) ?? defaults.params
            withoutConsentPrompt = try o.bool(CodingKeys.withoutConsentPrompt) ?? defaults.withoutConsentPrompt
            condition = try o.string(CodingKeys.condition)
        }
    }
}

// The schema's `scopes` keys: their shapes, defaults and reference sentences.
extension DescriptorSchema {
    static let scopeFields: [Field] = [
        Field("default", .list(.string()), default: shown(ProviderDescriptor.Scopes().default), "Scopes requested when the caller names none."),
        Field(
            "separator", .string(), default: "\"\(ProviderDescriptor.Scopes().separator)\"", "String placed between scopes in the `scope` parameter."),
        Field("offline", .object(offlineFields), "What to add to the request to get a refresh token."),
        Field(
            "parameter", default: ProviderDescriptor.Scopes().parameter,
            "When requests carry `scope`: the authorization request, the device authorization request, and token requests that name scopes (a refresh for fewer scopes, the service grants). `when_listed` sends it when some scope is asked for; `always` also sends it empty (Notion); `never` sends none, for providers that fix the scopes when the app is registered and refuse the parameter (Bungie, Pipedrive), and is refused with scopes listed."
        ),
    ]

    static let offlineFields: [Field] = [
        Field(
            "scopes", .list(.string()), default: shown(ProviderDescriptor.Offline().scopes),
            "Scopes added to obtain a refresh token (`offline_access`)."),
        Field(
            "params", .map(.string()), default: shown(ProviderDescriptor.Offline().params),
            "Authorization parameters added to obtain a refresh token (Google `access_type: offline`)."),
        Field(
            "without_consent_prompt", .boolean, default: "\(ProviderDescriptor.Offline().withoutConsentPrompt)",
            "The provider's documentation grants refresh tokens for `offline_access` without `prompt=consent` (the \"other conditions\" of OpenID Connect Core §11). Lint rule `offline_access_consent` asks for one or the other."
        ),
        Field(
            "condition", .string(),
            "When the provider issues refresh tokens only in some cases (an application setting, an approval, a kind of app), that case in a sentence; the catalog's Refresh column says `conditional` (or keeps its scope or parameter) with the sentence as a footnote."
        ),
    ]
}
