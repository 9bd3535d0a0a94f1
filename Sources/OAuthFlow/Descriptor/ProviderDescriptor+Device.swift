extension ProviderDescriptor {
    /// How a provider answers device authorization requests (RFC 8628 §3.2), and how it wants them sent when it
    /// does not take RFC 8628 as written (Amazon's code-based linking, Salesforce, Twitch, Trakt).
    package struct Device: Sendable, Hashable, Codable {
        /// A field of the device authorization answer (or of the request) a poll sends back.
        package enum PollSource: String, Sendable, Hashable, Codable, CaseIterable {
            /// The answer's `device_code` (RFC 8628 §3.4).
            case deviceCode = "device_code"
            /// The answer's `user_code` (Amazon sends it back as well).
            case userCode = "user_code"
            /// The scopes the device request asked for, joined with `scopes.separator` (Twitch repeats them).
            case scope
        }

        /// Seconds between polls when the server states no `interval` (RFC 8628 says 5).
        package var interval: Int = 5
        /// Other names the server uses for `verification_uri` (Google: `verification_url`).
        package var verificationURIAliases: [String] = []
        /// The parameter carrying the scopes in the device authorization request (Twitch: `scopes`).
        package var scopeParameter: String = "scope"
        /// Fixed parameters added to the device authorization request (Amazon, Salesforce: `response_type: device_code`).
        package var extraParams: [String: String] = [:]
        /// The `grant_type` a poll sends (Amazon: `device_code`, Salesforce: `device`).
        package var grantType: String = GrantType.deviceCode.rawValue
        /// What a poll sends besides `grant_type` and client authentication: each parameter with the value it carries.
        package var pollParams: [String: PollSource] = Self.standardPollParams

        package init() {}

        /// What a poll sends by default: the device code. Made once, where a dictionary written in place was made for
        /// every descriptor read.
        static let standardPollParams: [String: PollSource] = ["device_code": .deviceCode]

        /// The defaults, made once: they hold lists and maps, and each `Self()` would allocate them again.
        static let standard = Self()
    }
}

extension ProviderDescriptor {
    /// The grant type of RFC 8628.
    package static let deviceCodeGrant = GrantType.deviceCode.rawValue

    /// Whether the descriptor declares the device authorization grant.
    package var supportsDeviceFlow: Bool { grantTypes.contains(Self.deviceCodeGrant) }
}

// The schema's `device` keys: their shapes, defaults and reference sentences.
extension DescriptorSchema {
    static let deviceFields: [SectionKey<ProviderDescriptor.Device>] = [
        SectionKey(
            \.interval, { $0.interval = $1 }, "interval", .integer(1...60), default: "\(ProviderDescriptor.Device().interval)",
            "Seconds between polls when the server states no `interval` (RFC 8628 §3.2)."),
        SectionKey(
            \.verificationURIAliases, { $0.verificationURIAliases = $1 }, "verification_uri_aliases", .list(.string(pattern: "^[a-z_]+$")),
            "Other names the provider gives `verification_uri` in its answer (Google: `verification_url`)."),
        SectionKey(
            \.scopeParameter, { $0.scopeParameter = $1 }, "scope_parameter", .string(pattern: "^[A-Za-z0-9_.-]+$"),
            default: ProviderDescriptor.Device().scopeParameter,
            "The parameter carrying the scopes in the device authorization request (Twitch: `scopes`); `scopes.parameter` says when it is sent."
        ),
        SectionKey(
            \.extraParams, { $0.extraParams = $1 }, "extra_params", .map(.string()), default: shown(ProviderDescriptor.Device().extraParams),
            "Fixed parameters added to the device authorization request (Amazon and Salesforce: `response_type: device_code`). Client authentication and the scope parameter are refused."
        ),
        SectionKey(
            \.grantType, { $0.grantType = $1 }, "grant_type", .string(), default: ProviderDescriptor.Device().grantType,
            "The `grant_type` of each poll of the token endpoint (Amazon: `device_code`, Salesforce: `device`)."),
        SectionKey(
            \.pollParams, "poll_params", .map(.choice(of: ProviderDescriptor.Device.PollSource.self)),
            default: shown(ProviderDescriptor.Device().pollParams.mapValues(\.rawValue)),
            "What each poll sends besides `grant_type` and client authentication: parameter name to value, `device_code` and `user_code` from the device authorization answer, or `scope`, the scopes asked for (Trakt and Salesforce: `{code: device_code}`; Amazon adds `user_code: user_code`; Twitch adds `scopes: scope`). One must send the device code."
        ) { o, key, section in
            guard let names = try o.stringMap(key) else { return }
            typealias PollSource = ProviderDescriptor.Device.PollSource
            section.pollParams = try names.mapValues { name in
                guard let source = PollSource(rawValue: name) else {
                    throw PlainObject.mismatch(
                        "one of " + PollSource.allCases.map { "`\($0.rawValue)`" }.joined(separator: ", "), at: o.path + [key.stringValue])
                }
                return source
            }
        },
    ]
}

extension ProviderDescriptor.Device: DescriptorSection {
    package static var keys: [SectionKey<Self>] { DescriptorSchema.deviceFields }
}
