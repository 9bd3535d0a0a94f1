#if NIO
import Foundation

/// Where the clients registered with Dynamic Client Registration are kept, one per authorization server, so that a
/// server is registered at once and not at every sign-in.
///
/// ``InMemoryClientRegistrationStore`` keeps them for the life of the process; a host that signs in again after a
/// restart keeps them where it keeps its sessions' secrets.
public protocol ClientRegistrationStore: Sendable {
    /// The client registered at `issuer`, if any.
    func client(for issuer: URL) async throws -> RegisteredClient?
    /// Keeps `client`, replacing any registered at its issuer.
    func save(_ client: RegisteredClient) async throws
    /// Forgets the client registered at `issuer` (one the server no longer knows).
    func remove(for issuer: URL) async throws
}
#endif
