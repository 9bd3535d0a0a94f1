#if NIO
import Foundation

/// Registered clients in memory, for the life of the process.
public actor InMemoryClientRegistrationStore: ClientRegistrationStore {
    private var clients: [String: RegisteredClient] = [:]

    public init() {}

    public func client(for issuer: URL) -> RegisteredClient? { clients[issuer.absoluteString] }

    public func save(_ client: RegisteredClient) { clients[client.issuer.absoluteString] = client }

    public func remove(for issuer: URL) { clients[issuer.absoluteString] = nil }
}
#endif
