import Foundation

extension Provider.Policy {
    /// A provider's security events, as its descriptor's `security_events` section says, every default applied.
    package struct SecurityEventPolicy: Sendable, Hashable {
        package var format: ProviderDescriptor.SecurityEvents.Format
        /// What every event's `iss` must equal.
        package var issuer: URL
        /// The transmitter's configuration document (its keys and stream endpoints); nil for `apple`.
        package var configuration: URL?
        /// The keys named by the descriptor (`security_events.jwks`, else `endpoints.jwks`); the configuration's `jwks_uri`
        /// is used when this is nil.
        package var keys: URL?
        package var algorithms: [JWSAlgorithm]
        /// How old an event may be; its `jti` is remembered as long.
        package var maximumAge: TimeInterval
        /// The event types the transmitter sends.
        package var events: [String]
        /// Whether an `opaque` subject identifier is the subject the provider issued (`opaque_subjects: sub`), rather
        /// than one the host resolves.
        package var opaqueSubjectsAreSubs = false
    }
}

extension ProviderDescriptor.SecurityEvents {
    /// Refuses what cannot be resolved whatever the variables: a transmitter with no issuer at all.
    func check(providerIssuer: String?, _ refusals: inout PolicyRefusals) {
        if issuer == nil, providerIssuer == nil {
            refusals.refuse(["security_events", "issuer"], "is needed: the descriptor has no `issuer` for the events' `iss` to equal")
        }
    }

    /// The policy, its URLs built by `url` (the resolver's, with the variables filled in).
    ///
    /// - Parameters:
    ///   - providerIssuer: The provider's issuer, the transmitter's when `issuer` is left out.
    ///   - providerKeys: The provider's JWKS (`endpoints.jwks`), used when neither `jwks` nor a configuration names keys.
    func resolved(providerIssuer: URL?, providerKeys: URL?, url: (String?, String) throws -> URL?) throws -> Provider.Policy.SecurityEventPolicy? {
        guard let issuerURL = try url(issuer, "security_events.issuer") ?? providerIssuer else { return nil }
        var configurationURL = try url(configuration, "security_events.configuration")
        if configurationURL == nil {
            switch format {
            case .ssf: configurationURL = Self.wellKnown("ssf-configuration", issuer: issuerURL)
            case .risc: configurationURL = Self.wellKnown("risc-configuration", issuer: issuerURL)
            case .apple: configurationURL = nil
            }
        }
        return .init(
            format: format, issuer: issuerURL, configuration: configurationURL,
            keys: try url(jwks, "security_events.jwks") ?? (format == .apple || configurationURL == nil ? providerKeys : nil),
            algorithms: algorithms.compactMap(JWSAlgorithm.init(rawValue:)), maximumAge: TimeInterval(maxAge), events: events,
            opaqueSubjectsAreSubs: opaqueSubjects == .sub)
    }

    /// The well-known document `name` of `issuer`: inserted between the host and the issuer's path, whose final `/`
    /// is dropped (SSF 1.0 §"Obtaining Transmitter Configuration Metadata", as RFC 8414 §3 does it).
    static func wellKnown(_ name: String, issuer: URL) -> URL? {
        guard var components = URLComponents(url: issuer, resolvingAgainstBaseURL: false) else { return nil }
        var path = components.path
        if path.hasSuffix("/") { path.removeLast() }
        components.path = "/.well-known/" + name + path
        components.query = nil
        components.fragment = nil
        return components.url
    }
}
