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

    /// A header by name, case-insensitively.
    public func header(_ name: String) -> String? {
        headers[name.lowercased()]
    }
}
