#if MCP
import Crypto
import Foundation
import MCP
import OAuthFlow

/// The accesses of the requests in flight, by a random handle the SDK's copy of the request carries in its place of the
/// token; an entry lives until the request's answer is sent.
final class AccessHandles: Sendable {
    /// The header that carries the handle to the SDK; a client's own header of this name is dropped.
    static let header = "OAuthFlow-MCP-Access"
    static let shared = AccessHandles()

    private let table = Locked([String: ProtectedMCPServer.Access]())

    /// Keeps `access` and returns its handle.
    func add(_ access: ProtectedMCPServer.Access) -> String {
        let handle = Base64URL.random(bytes: 24)
        table.withLock { $0[handle] = access }
        return handle
    }

    func access(_ handle: String) -> ProtectedMCPServer.Access? {
        table.withLock { $0[handle] }
    }

    func remove(_ handle: String) {
        _ = table.withLock { $0.removeValue(forKey: handle) }
    }
}
#endif
