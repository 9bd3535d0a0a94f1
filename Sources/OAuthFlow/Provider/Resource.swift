import Foundation

/// A protected resource and the scope that opens it.
public struct Resource: Sendable, Hashable, Codable {
    public var scope: String
    public var title: String
    public var url: URL

    public init(scope: String, title: String, url: URL) {
        self.scope = scope
        self.title = title
        self.url = url
    }
}
