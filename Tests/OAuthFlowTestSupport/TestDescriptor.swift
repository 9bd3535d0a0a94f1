import Foundation
import OAuthFlow
import Testing

/// A descriptor for a test, written as a newcomer would write it: the smallest valid file, with
/// only what the test is about changed. Tests build one instead of pasting YAML.
///
/// ```swift
/// let provider = try TestDescriptor(protocol: .oidc, extra: "security:\n  pkce: supported\n").provider()
/// ```
public struct TestDescriptor: Sendable {
    public var id: String
    public var displayName: String
    public var `protocol`: ProviderProtocol
    public var issuer: String
    /// `endpoints`, by YAML key; empty leaves the key out.
    public var endpoints: [(key: String, url: String)]
    /// `scopes.default`; nil leaves it out (an `oidc` descriptor gets `[openid]`).
    public var scopes: [String]?
    /// More top-level YAML, appended as written.
    public var extra: String

    public init(id: String = "example", displayName: String = "Example", protocol: ProviderProtocol = .oauth2,
                issuer: String = "https://auth.example.com", endpoints: [(key: String, url: String)]? = nil,
                scopes: [String]? = nil, extra: String = "") {
        self.id = id
        self.displayName = displayName
        self.protocol = `protocol`
        self.issuer = issuer
        self.endpoints = endpoints ?? [("authorization", "\(issuer)/authorize"), ("token", "\(issuer)/token")]
        self.scopes = scopes ?? (`protocol` == .oidc ? ["openid"] : nil)
        self.extra = extra
    }

    /// The same descriptor with more endpoints (replacing those of the same key).
    public func with(endpoints more: [(key: String, url: String)]) -> TestDescriptor {
        var copy = self
        copy.endpoints = endpoints.filter { old in !more.contains { $0.key == old.key } } + more
        return copy
    }

    /// The file's text.
    public var yaml: String {
        var lines = ["schema_version: 1", "id: \(id)", "display_name: \(displayName)", "protocol: \(`protocol`.rawValue)", "issuer: \(issuer)"]
        if !endpoints.isEmpty {
            lines.append("endpoints:")
            lines += endpoints.map { "  \($0.key): \($0.url)" }
        }
        if let scopes { lines += ["scopes:", "  default: [\(scopes.joined(separator: ", "))]"] }
        return lines.joined(separator: "\n") + "\n" + extra
    }

    /// The parsed descriptor; a test fails with the file's positioned problems when it does not parse.
    public func descriptor() throws -> ProviderDescriptor {
        let document = DescriptorDocument.parse(Data(yaml.utf8), path: "\(id).yaml")
        return try #require(document.descriptor, "the test descriptor does not parse: \(document.problems)\n\(yaml)")
    }

    /// The resolved provider.
    public func provider(_ variables: [String: String] = [:]) throws -> Provider {
        try descriptor().resolve(variables)
    }
}

/// A minimal valid descriptor's text with the given id and extra YAML.
public func descriptorText(id: String, displayName: String = "Example", extra: String = "") -> String {
    TestDescriptor(id: id, displayName: displayName, extra: extra).yaml
}
