import Foundation

/// Loopback address recognition (RFC 8252 §7.3, §8.3).
package enum Loopback {
    /// Whether `host` names the local machine: `127.0.0.0/8`, `::1` or `localhost`.
    public static func isLoopbackHost(_ host: String) -> Bool {
        // The hosts descriptors and redirect URIs nearly always name, answered before any work on characters.
        if host == "127.0.0.1" || host == "[::1]" || host == "localhost" { return true }
        var trimmed = host[...]
        while let first = trimmed.first, first == "[" || first == "]" { trimmed.removeFirst() }
        while let last = trimmed.last, last == "[" || last == "]" { trimmed.removeLast() }
        let bare = trimmed.lowercased()
        if bare == "localhost" || bare == "::1" { return true }
        let octets = bare.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil }
    }
}
