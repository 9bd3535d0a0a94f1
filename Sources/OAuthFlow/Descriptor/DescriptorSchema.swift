import Foundation

/// The shape of a provider descriptor, written once and used three ways.
///
/// The loader checks documents against it (unknown keys, types, required keys,
/// allowed values), `providers/schema.json` is generated from it for editors, and
/// the field reference in `Docs/descriptor-format.md` is generated from it too, so
/// the three cannot drift apart.
package enum DescriptorSchema {
    /// The descriptor format versions this build reads.
    public static let supportedVersions: Set<Int> = [1]

    /// The kind of value a key holds.
    public indirect enum Shape: Sendable {
        /// Any string; `pattern` is a regular expression the whole string must match.
        case string(pattern: String? = nil)
        /// An absolute URL, which may contain `{variable}` placeholders in host and path.
        case urlTemplate
        case boolean
        /// An integer from `range`.
        case integer(ClosedRange<Int>)
        /// One of a fixed set of strings.
        case choice([String])
        /// A sequence of values of one shape.
        case list(Shape)
        /// A mapping from free-form string keys to values of one shape.
        case map(Shape)
        /// A mapping with the keys that `fields` declares, and no others.
        case object([Field])
        /// Any one of the shapes.
        case either([Shape])

        /// One of an enumeration's raw values, in the order it declares them: the vocabulary is the type's.
        static func choice<Value: CaseIterable & RawRepresentable>(of _: Value.Type) -> Shape where Value.RawValue == String {
            .choice(Value.allCases.map(\.rawValue))
        }

        /// A descriptor section's mapping: the keys it declares, and no others.
        static func section<Section>(_ keys: [SectionKey<Section>]) -> Shape { .object(keys.map(\.field)) }

        /// One of `values`' raw values, in their order.
        static func choice<Value: RawRepresentable>(among values: [Value]) -> Shape where Value.RawValue == String {
            .choice(values.map(\.rawValue))
        }
    }

    /// One key of an object.
    public struct Field: Sendable {
        public var name: String {
            didSet { key = NameKey(name) }
        }
        /// The name's length and first bytes, for ``ShapeTable`` to rule fields out without reading the name.
        private(set) var key: NameKey
        public var shape: Shape
        public var required: Bool
        /// What the field means, in one or two sentences.
        public var summary: String
        /// The value used when the key is absent, as YAML text.
        public var defaultValue: String?

        public init(_ name: String, _ shape: Shape, required: Bool = false, default defaultValue: String? = nil, _ summary: String) {
            self.name = name
            self.key = NameKey(name)
            self.shape = shape
            self.required = required
            self.summary = summary
            self.defaultValue = defaultValue
        }

        /// A field holding one of an enumeration's values, `value` when the key is absent: the setting's
        /// vocabulary and default are the model's, stated there once.
        init<Value: CaseIterable & RawRepresentable>(_ name: String, default value: Value, _ summary: String) where Value.RawValue == String {
            self.init(name, .choice(of: Value.self), default: value.rawValue, summary)
        }
    }

    /// The most entries a mapping (such as `variables`) or a list may hold.
    public static let maximumEntries = 256
    /// The most `{placeholders}` one URL may hold.
    public static let maximumPlaceholders = 16
    /// The longest URL accepted, in bytes.
    public static let maximumURLLength = 2_048

    /// Parameters the engine sets itself; descriptors may not set them.
    public static let reservedParameters: [String] = [
        "client_id", "client_secret", "redirect_uri", "state", "nonce",
        "code_challenge", "code_challenge_method", "code_verifier", "response_type",
    ]

    static let identifierPattern = "^[a-z0-9][a-z0-9_-]*$"
    static let variableNamePattern = "^[a-z][a-z0-9_]*$"

    /// The top-level fields of format version 1.
    public static let fields: [Field] = [
        Field(
            "schema_version", .integer(1...1), required: true,
            "Descriptor format version. This release reads version 1."),
        Field(
            "id", .string(pattern: identifierPattern), required: true,
            "Name host code and the CLI select the provider by. Must equal the file name without `.yaml`."),
        Field("display_name", .string(), required: true, "Human-readable provider name."),
        Field(
            "protocol", .choice(of: ProviderProtocol.self), required: true,
            "`oidc` turns on ID tokens, the `openid` scope and nonce checks; `oauth2` is plain OAuth 2.0."),
        Field("docs_url", .urlTemplate, "Where the provider documents client registration."),
        Field(
            "issuer", .urlTemplate,
            "The authorization server's issuer identifier: expected `iss` in ID tokens and in RFC 9207 callbacks. Declare it for plain OAuth 2.0 providers too; one that publishes no issuer and sends no `iss` needs none with `security.iss_parameter: absent`."
        ),
        Field("discovery", .section(discoveryFields), "Where the server publishes its metadata, if anywhere."),
        Field(
            "endpoints", .section(endpointFields),
            "Static endpoint URLs. They take precedence over discovered ones, and obey the same rules: https, or plain http to a loopback host, and no fragment (RFC 6749 §3.1, §3.2); resolving a provider refuses any other."
        ),
        Field(
            "variables", .map(.object(variableFields)),
            "Inputs a user supplies when selecting the provider, used as `{name}` in URL hosts and paths."),
        Field("scopes", .section(scopeFields), "Scopes to request and how to join them."),
        Field("authorization", .section(authorizationFields), "The authorization request."),
        Field(
            "grant_types", .list(.string()), default: shown(ProviderDescriptor.defaultGrantTypes),
            "Grant types the client uses: `authorization_code`, `refresh_token`, the device grant (`urn:ietf:params:oauth:grant-type:device_code`), `client_credentials`, the JWT bearer grant (`urn:ietf:params:oauth:grant-type:jwt-bearer`) and token exchange (`urn:ietf:params:oauth:grant-type:token-exchange`); resolving a provider that lists another fails (`unsupported_policy`)."
        ),
        Field("token_request", .section(tokenRequestFields), "How the token endpoint wants its requests."),
        Field("client_auth", .section(clientAuthFields), "How the client authenticates at the token endpoint."),
        Field(
            "service_tokens", .section(serviceTokenFields),
            "How the provider names the API a service's token is for (`client_credentials`; see Docs/services.md)."),
        Field(
            "access_tokens", .section(accessTokenFields),
            "How an API that receives this provider's access tokens checks them: JWTs with the JWKS, or introspection (see Docs/api-protection.md)."
        ),
        Field(
            "logout", .section(logoutFields),
            "How the provider's own session is ended (RP-Initiated Logout, or its own logout URL) and how it tells the app a session ended (back-channel and front-channel logout); see Docs/logout.md."
        ),
        Field(
            "revocation", .section(revocationFields),
            "How a token is revoked (`endpoints.revocation`), for providers that do not take RFC 7009 as written: another method, the token under another name or as the request's Bearer token, fixed parameters, or one kind of token only."
        ),
        Field("token_response", .section(tokenResponseFields), "How to read token endpoint responses."),
        Field("userinfo", .section(userinfoFields), "How to call the userinfo endpoint."),
        Field("security", .section(securityFields), "The checks the engine performs for this provider."),
        Field("redirect", .section(redirectFields), "Redirect URIs a native client registers with this provider."),
        Field(
            "device", .section(deviceFields),
            "How the provider answers the device authorization grant (RFC 8628); declare the grant in `grant_types` and the endpoint in `endpoints.device_authorization` (or discovery)."
        ),
        Field(
            "resources", .list(.object(resourceFields)),
            "Protected resources and the scope each needs: the scope-to-resource map."),
        Field(
            "resources_file", .string(),
            "A JSON or YAML file, relative to the descriptor, holding the resource list (the Cloudentity sample's `scopeData.json` format)."),
        Field(
            "profile", .section(profileFields),
            "Where the user's subject, name, email, email-verified flag and picture are in the ID token and userinfo, so every provider yields one profile shape. A field left out keeps its default sources; write `[]` for one the provider does not have. In a flow list (`[...]`), quote a source that holds `[`, `]`, `{` or `,` (`subject: ['userinfo.data[0].id']`)."
        ),
        Field(
            "security_events", .section(securityEventFields),
            "How the provider tells the app that an account changed: signed security events pushed or polled (Shared Signals, Google's Cross-Account Protection, Sign in with Apple's notifications); see Docs/security-events.md."
        ),
    ]

    // Each section's fields (`endpointFields`, `securityFields`, ...) are in the file of the section they describe,
    // ProviderDescriptor+<Section>.swift, beside its Swift names and defaults.

    /// A list default as the reference shows it: `[a, b]`.
    static func shown(_ values: [String]) -> String { "[" + values.joined(separator: ", ") + "]" }

    /// A map default as the reference shows it: `{}`, or `{a: b}`.
    static func shown(_ values: [String: String]) -> String {
        "{" + values.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ") + "}"
    }
}

extension DescriptorSchema.Shape {
    /// The shape's name as it reads in an error message.
    var phrase: String {
        switch self {
        case .string: "a string"
        case .urlTemplate: "a URL"
        case .boolean: "true or false"
        case let .integer(range): range.count == 1 ? "the integer \(range.lowerBound)" : "an integer from \(range.lowerBound) to \(range.upperBound)"
        case let .choice(values): "one of " + values.map { "`\($0)`" }.joined(separator: ", ")
        case .list: "a list"
        case .map, .object: "a mapping"
        case let .either(shapes): shapes.map(\.phrase).joined(separator: " or ")
        }
    }
}
