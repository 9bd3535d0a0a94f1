import Foundation
import Logging

/// Fetches and caches discovery documents.
package actor DiscoveryClient {
    private let transport: any HTTPTransport
    private let timeToLive: TimeInterval
    private let clock: any DateClock
    private var cache: [URL: (ServerMetadata, Date)] = [:]

    /// - Parameter timeToLive: How long a fetched document is reused (default one hour).
    public init(
        transport: any HTTPTransport = DefaultHTTPTransport(), timeToLive: TimeInterval = 3600,
        clock: any DateClock = SystemDateClock()
    ) {
        self.transport = transport
        self.timeToLive = timeToLive
        self.clock = clock
    }

    /// The metadata published at `url` for the provider `name`, from the cache or the network.
    ///
    /// - Parameters:
    ///   - url: The discovery document's URL (or the issuer's RFC 8414 metadata).
    ///   - issuers: Which `issuer` values name the provider.
    ///   - name: The provider's id, for messages.
    /// - Throws: ``DiscoveryError``: `unreachable` or `invalidDocument` when the document cannot be
    ///   had, `insecureEndpoint` for a URL that is not https (or http to a loopback host), and
    ///   `issuerMismatch` when its `issuer` is not exactly the descriptor's (RFC 8414 §3.3; a trailing
    ///   slash counts).
    package func metadata(at url: URL, issuers: IssuerMatcher, provider name: String) async throws -> ServerMetadata {
        guard let issuer = issuers.issuer else {
            throw DiscoveryError(.notConfigured, "provider `\(name)` has no issuer with discovery")
        }
        // A document kept for one provider's variables is handed to another set only when it names that set's issuer too.
        if let (cached, fetched) = cache[url], clock.now().timeIntervalSince(fetched) < timeToLive, issuers.matchesDiscovery(cached.issuer) {
            return cached
        }
        guard TransportPolicy.isSecure(url) else {
            throw DiscoveryError(.insecureEndpoint, TransportPolicy.refusal(url))
        }
        let fetched: (document: ServerMetadata?, response: TransportResponse)
        do {
            fetched = try await transport.fetchJSON(url, as: ServerMetadata.self)
        } catch {
            throw DiscoveryError(.unreachable, "cannot fetch \(url.absoluteString): \(error)")
        }
        guard fetched.response.status == 200 else {
            throw DiscoveryError(.unreachable, "\(url.absoluteString) answered HTTP \(fetched.response.status)\(fetched.response.redirectNote)")
        }
        guard let metadata = fetched.document else {
            throw DiscoveryError(.invalidDocument, "\(url.absoluteString) is not a discovery document (not JSON with an `issuer`)")
        }
        guard issuers.matchesDiscovery(metadata.issuer) else {
            throw DiscoveryError(
                .issuerMismatch,
                "\(url.absoluteString) names issuer `\(metadata.issuer)`, but the descriptor says `\(issuer.absoluteString)`")
        }
        cache[url] = (metadata, clock.now())
        return metadata
    }
}
