import Foundation

/// An HTTP response: status, headers (names lowercased) and the whole body.
public struct TransportResponse: Sendable {
    public var status: Int
    public var headers: [String: String]
    public var body: Data

    public init(status: Int, headers: [String: String] = [:], body: Data = Data()) {
        self.status = status
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
        self.body = body
    }

    /// For a redirect (3xx), `, a redirect to LOCATION that is not followed` with the `Location` escaped and cut at 200
    /// characters (`, a redirect that is not followed` without one); empty for any other status. Said after "answered HTTP
    /// 302" in an error, so that a refused redirect names where it pointed.
    package var redirectNote: String {
        guard (300..<400).contains(status) else { return "" }
        let target = header("location").map { " to \(TerminalText.escaped(TerminalText.quoted(String($0.prefix(200)))))" } ?? ""
        return ", a redirect\(target) that is not followed"
    }

    /// A header by name, case-insensitively.
    public func header(_ name: String) -> String? {
        headers[name.lowercased()]
    }
}
