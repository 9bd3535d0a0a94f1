import Foundation

extension TransportResponse {
    /// A response's header fields as ``headers`` holds them: names lowercased, and a name sent in several fields held
    /// once, its values joined with ", " in the order they came (RFC 9110 §5.3), so that every challenge of several
    /// `WWW-Authenticate` fields is kept. `Set-Cookie` is the exception RFC 9110 §5.3 names: its values cannot be
    /// combined (RFC 6265 §3), so its first field is kept.
    ///
    /// - Parameter fields: The fields, in the order received.
    /// - Returns: One value a name.
    package static func combining(_ fields: some Sequence<(name: String, value: String)>) -> [String: String] {
        var headers: [String: String] = [:]
        for (name, value) in fields {
            let key = name.lowercased()
            guard let held = headers[key] else {
                headers[key] = value
                continue
            }
            // An empty field adds no member to the list (RFC 9110 §5.6.1).
            guard key != "set-cookie", !value.isEmpty else { continue }
            headers[key] = held.isEmpty ? value : held + ", " + value
        }
        return headers
    }
}
