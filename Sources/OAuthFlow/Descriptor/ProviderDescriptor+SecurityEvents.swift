extension ProviderDescriptor {
    /// How the provider tells relying parties that an account changed: signed security events (RFC 8417) that a
    /// transmitter pushes (RFC 8935) or lets the receiver poll (RFC 8936), as the OpenID Shared Signals Framework,
    /// Google's Cross-Account Protection and Sign in with Apple's server-to-server notifications send them
    /// (Docs/security-events.md).
    package struct SecurityEvents: Sendable, Hashable, Codable {
        /// How the transmitter writes its events.
        package enum Format: String, Sendable, Hashable, Codable, CaseIterable {
            /// OpenID Shared Signals Framework 1.0: `typ: secevent+jwt`, no `exp` or `sub`, the subject in `sub_id` (or
            /// the event's `subject`), one event a token; configuration at `/.well-known/ssf-configuration`.
            case ssf
            /// Google's Cross-Account Protection, which predates SSF: subjects with `subject_type`, no `typ`;
            /// configuration at `/.well-known/risc-configuration`.
            case risc
            /// Sign in with Apple's server-to-server notifications: a JSON body `{"payload": JWT}` whose `events` claim is
            /// a JSON text holding one event (`type`, `sub`, `event_time`); no configuration document.
            case apple
        }

        /// What an `opaque` subject identifier of the transmitter's events is.
        package enum OpaqueSubjects: String, Sendable, Hashable, Codable, CaseIterable {
            /// An identifier of the transmitter's own (a session's, an account's in another namespace): the host's
            /// `resolveSubject` says which user it names, if any.
            case resolve
            /// The subject (`sub`) the provider issues its users in ID tokens.
            case sub
        }

        package var format: Format = .ssf
        /// What the transmitter's `opaque` subject identifiers are.
        package var opaqueSubjects: OpaqueSubjects = .resolve
        /// The transmitter's issuer, which every event's `iss` must equal; the provider's issuer when left out.
        package var issuer: String?
        /// The transmitter's configuration document; for `ssf` and `risc`, the issuer's well-known one when left out.
        package var configuration: String?
        /// The transmitter's keys; the configuration's `jwks_uri` when left out, else the provider's JWKS.
        package var jwks: String?
        /// The algorithms an event may be signed with.
        package var algorithms: [String] = ["RS256", "ES256"]
        /// How old, in seconds, an event's `iat` may be; its `jti` is remembered that long.
        package var maxAge = 86_400
        /// The event types the transmitter sends (URIs): what a new stream asks for, and what the providers table lists.
        package var events: [String] = []

        package init() {}
    }
}

// The schema's `security_events` keys: their shapes, defaults and reference sentences.
extension DescriptorSchema {
    static let securityEventFields: [SectionKey<ProviderDescriptor.SecurityEvents>] = [
        SectionKey(
            \.format, { $0.format = $1 }, "format", .choice(of: ProviderDescriptor.SecurityEvents.Format.self), required: true,
            "`ssf`: OpenID Shared Signals Framework 1.0 (CAEP, RISC). `risc`: Google's Cross-Account Protection. `apple`: Sign in with Apple's server-to-server notifications."
        ),
        SectionKey(
            \.issuer, { $0.issuer = $1 }, "issuer", .urlTemplate, default: "the provider's issuer",
            "The transmitter's issuer: every event's `iss` must equal it."),
        SectionKey(
            \.configuration, { $0.configuration = $1 }, "configuration", .urlTemplate,
            default: "the issuer's `/.well-known/ssf-configuration` (`risc`: `risc-configuration`)",
            "The transmitter's configuration document (its keys and stream endpoints); `apple` has none."),
        SectionKey(
            \.jwks, { $0.jwks = $1 }, "jwks", .urlTemplate, default: "the configuration's `jwks_uri`, else `endpoints.jwks`",
            "The keys events are signed with."),
        SectionKey(
            \.algorithms, { $0.algorithms = $1 }, "algorithms", .list(.choice(among: JWSAlgorithm.allCases.filter { !$0.isHMAC })),
            default: shown(ProviderDescriptor.SecurityEvents().algorithms), "The algorithms an event may be signed with."),
        SectionKey(
            \.maxAge, { $0.maxAge = $1 }, "max_age", .integer(60...2_592_000), default: "\(ProviderDescriptor.SecurityEvents().maxAge)",
            "How old, in seconds, an event may be when it arrives; its `jti` is remembered as long, so a replay is refused."),
        SectionKey(
            \.opaqueSubjects, { $0.opaqueSubjects = $1 }, "opaque_subjects", default: ProviderDescriptor.SecurityEvents().opaqueSubjects,
            "What an event's `opaque` subject identifier is: `resolve`, an identifier of the transmitter's own that the host's `resolveSubject` maps to a user (or to nobody); `sub`, the subject the provider issues its users in ID tokens."
        ),
        SectionKey(
            \.events, { $0.events = $1 }, "events", .list(.string(pattern: "^[!-~]+$")),
            "The event types the transmitter sends (URIs): a new stream asks for these, and the providers table lists them."),
    ]
}

extension ProviderDescriptor.SecurityEvents: DescriptorSection {
    package static var keys: [SectionKey<Self>] { DescriptorSchema.securityEventFields }
}
