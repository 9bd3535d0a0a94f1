extension ProviderDescriptor {
    /// Where the server's metadata is published, and what the published document leaves out.
    package struct Discovery: Sendable, Hashable, Codable {
        /// A list of the metadata document that may leave out a value the provider takes, and that the descriptor
        /// names values of under `lacks` (`- token_endpoint_auth_methods_supported: [none]`).
        package enum Listing: String, Sendable, Hashable, Codable, CaseIterable {
            /// `token_endpoint_auth_methods_supported` (RFC 8414 §2): client authentication methods.
            case tokenEndpointAuthMethods = "token_endpoint_auth_methods_supported"
            /// `scopes_supported` (RFC 8414 §2).
            case scopes = "scopes_supported"
            /// `grant_types_supported` (RFC 8414 §2).
            case grantTypes = "grant_types_supported"
            /// `id_token_signing_alg_values_supported` (OpenID Connect Discovery 1.0 §3).
            case idTokenSigningAlgs = "id_token_signing_alg_values_supported"
        }

        package var mode: DiscoveryMode = .none
        package var url: String?
        /// The endpoints the provider's discovery document does not name, as the descriptor records them:
        /// the catalog says `no` for them instead of `not stated`, and `lint --online` takes a missing end-session
        /// endpoint as known.
        package var lacks: [DiscoveryEndpoint] = []
        /// Values the provider takes that its document's lists leave out, as the provider's documentation (or a
        /// sign-in) shows: a server that takes public clients and `offline_access` without listing `none` or the
        /// scope. Written among `lacks` as one mapping per list (`- scopes_supported: [offline_access]`);
        /// `lint --online` reports each such gap as acknowledged (info) instead of warning about it.
        package var unlisted: [Listing: [String]] = [:]

        enum CodingKeys: String, CodingKey {
            case mode, url, lacks
        }

        package init(mode: DiscoveryMode = .none, url: String? = nil, lacks: [DiscoveryEndpoint] = [], unlisted: [Listing: [String]] = [:]) {
            self.mode = mode
            self.url = url
            self.lacks = lacks
            self.unlisted = unlisted
        }

        /// Whether the descriptor records that the document's `listing` leaves out `value`.
        package func acknowledges(_ value: String, missingFrom listing: Listing) -> Bool {
            unlisted[listing]?.contains(value) == true
        }

        package init() {}

        /// Reads `lacks` at `path`: the endpoints the document does not name, and mappings of one of its lists to the
        /// values that list leaves out.
        mutating func readLacks(_ entries: JSONValue, at path: [String]) throws {
            guard case let .array(items) = entries else { throw PlainObject.mismatch("a list", at: path) }
            for (index, item) in items.enumerated() {
                switch item {
                case let .string(name):
                    guard let endpoint = DiscoveryEndpoint(rawValue: name) else {
                        throw PlainObject.mismatch("one of \(DiscoveryEndpoint.allCases.map(\.rawValue)) or a mapping", at: path + [String(index)])
                    }
                    lacks.append(endpoint)
                case let .object(lists):
                    for (name, values) in lists.sorted(by: { $0.key < $1.key }) {
                        guard let listing = Listing(rawValue: name) else {
                            throw PlainObject.mismatch("one of \(Listing.allCases.map(\.rawValue))", at: path + [String(index), name])
                        }
                        let texts: [String]? =
                            if case let .array(words) = values, words.allSatisfy({ $0.stringValue != nil }) {
                                words.compactMap(\.stringValue)
                            } else {
                                nil
                            }
                        guard let texts else { throw PlainObject.mismatch("a list of strings", at: path + [String(index), name]) }
                        for text in texts where !acknowledges(text, missingFrom: listing) { unlisted[listing, default: []].append(text) }
                    }
                default:
                    throw PlainObject.mismatch("an endpoint's name or a mapping", at: path + [String(index)])
                }
            }
        }

        package func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(mode, forKey: .mode)
            try container.encodeIfPresent(url, forKey: .url)
            var entries: [JSONValue] = lacks.map { .string($0.rawValue) }
            for listing in Listing.allCases {
                guard let values = unlisted[listing], !values.isEmpty else { continue }
                entries.append(.object([listing.rawValue: .array(values.map(JSONValue.string))]))
            }
            if !entries.isEmpty { try container.encode(entries, forKey: .lacks) }
        }
    }
}

extension ProviderDescriptor {
    /// Whether the descriptor asks for its endpoints from a metadata document (a discovery mode, or its URL).
    package var asksForDiscovery: Bool { discovery.mode != .none || discovery.url != nil }
}

extension DescriptorSchema {
    static let discoveryFields: [SectionKey<ProviderDescriptor.Discovery>] = [
        SectionKey(
            \.mode, { $0.mode = $1 }, "mode", default: ProviderDescriptor.Discovery().mode,
            "`oidc` appends `/.well-known/openid-configuration` to the issuer; `rfc8414` inserts `/.well-known/oauth-authorization-server` between host and path; `none` means the server publishes no metadata."
        ),
        SectionKey(\.url, { $0.url = $1 }, "url", .urlTemplate, "An explicit metadata URL, for servers that publish it somewhere else."),
        SectionKey(
            \.lacks, "lacks", .list(.either([.choice(of: ProviderDescriptor.DiscoveryEndpoint.self), .object(unlistedFields)])), default: "[]",
            "What the provider's discovery document leaves out, as its published document or documentation shows: endpoints it does not name (`revocation`, `end_session`), so the catalog's Revocation or Logout column says `no` rather than `not stated`; and, one mapping per list, values the provider takes that a list leaves out (`- token_endpoint_auth_methods_supported: [none]`, `- scopes_supported: [offline_access]`), which `oauthflow lint --online` then reports as acknowledged (info) instead of warning about. One entry silences one finding; an entry the live document contradicts is a warning (`online_lacks`)."
        ) { o, key, section in
            if let entries = o.raw(key) { try section.readLacks(entries, at: o.path + [key.stringValue]) }
        },
    ]

    /// The lists a `lacks` mapping may name, each with the values its document leaves out.
    static let unlistedFields: [Field] = ProviderDescriptor.Discovery.Listing.allCases.map { listing in
        let what =
            switch listing {
            case .tokenEndpointAuthMethods: "Client authentication methods the provider takes (`none` for public clients)"
            case .scopes: "Scopes the provider grants (`offline_access`)"
            case .grantTypes: "Grant types the provider takes"
            case .idTokenSigningAlgs: "Algorithms the provider signs ID tokens with"
            }
        return Field(listing.rawValue, .list(.string()), "\(what) that its document's `\(listing.rawValue)` leaves out.")
    }
}

extension ProviderDescriptor {
    /// Where the provider's metadata is read from (`discovery.mode`), if anywhere.
    public enum DiscoveryMode: String, Sendable, Hashable, Codable, CaseIterable {
        /// `{issuer}/.well-known/openid-configuration`.
        case oidc
        /// `https://host/.well-known/oauth-authorization-server/{issuer path}` (RFC 8414 §3).
        case rfc8414
        case none
    }

    /// An endpoint the catalog reports on.
    public enum DiscoveryEndpoint: String, Sendable, Hashable, Codable, CaseIterable {
        /// `revocation_endpoint` (RFC 7009, RFC 8414).
        case revocation
        /// `end_session_endpoint` (OpenID Connect RP-Initiated Logout).
        case endSession = "end_session"
    }
}

extension ProviderDescriptor.Discovery: DescriptorSection {
    package static var keys: [SectionKey<Self>] { DescriptorSchema.discoveryFields }
}
