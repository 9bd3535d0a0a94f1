import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A port on 127.0.0.1 nothing listens on (bound, read and closed again): for a server a test starts, a loopback
/// redirect registered with its port, or a connection that must be refused.
///
/// Drawn from 20000–32767, below the ports the kernel hands out itself (Linux's 32768–60999, macOS's 49152–65535):
/// a port the kernel chose was free only when chosen, and by the time a test listened on it (a sign-in tens of seconds
/// later) another test's connection or server could hold it ("port … is already in use"). No port is given twice in
/// one process.
public func unusedPort() throws -> Int {
    for _ in 0..<500 {
        let port = Int.random(in: 20_000...32_767)
        guard UnusedPorts.claim(port) else { continue }
        if canBind(port) { return port }
    }
    Issue.record("no free port between 20000 and 32767 on 127.0.0.1")
    throw CancellationError()
}

/// The ports ``unusedPort()`` gave in this process.
private enum UnusedPorts {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var given: Set<Int> = []

    static func claim(_ port: Int) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        return given.insert(port).inserted
    }
}

/// Whether a socket can be bound to `port` on 127.0.0.1 now.
private func canBind(_ port: Int) -> Bool {
    #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
    #endif
    guard fd >= 0 else { return false }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    return withUnsafePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
    }
}
