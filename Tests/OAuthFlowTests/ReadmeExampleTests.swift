import Foundation
import Testing
import OAuthFlow

/// The README's host-code examples, compiled and run here; the test also checks the
/// README still shows these exact lines, so the two cannot drift apart.
@Suite struct ReadmeExampleTests {
    static let shownLines = [
        #"let auth0 = try registry.provider(named: "auth0").resolve(["domain": "example.us.auth0.com"])"#,
        #"auth0.resources.resources(granted: ["openid", "email"])"#,
        #"let client = OAuthClient(provider: auth0, configuration: ClientConfiguration("#,
        #"    clientID: "YOUR_CLIENT_ID", redirectURI: URL(string: "http://127.0.0.1:8765/callback")!))"#,
        #"let pending = try await client.startAuthorization()"#,
    ]

    @Test func readmeShowsTheseLines() throws {
        let readme = try String(contentsOf: repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
        for line in Self.shownLines {
            #expect(readme.contains(line), "README.md no longer shows: \(line)")
        }
    }

    @Test func hostCodeRuns() async throws {
        let registry = try ProviderRegistry.load(includeUserDirectory: false)
        let auth0 = try registry.provider(named: "auth0").resolve(["domain": "example.us.auth0.com"])
        #expect(auth0.endpoints.authorization?.absoluteString == "https://example.us.auth0.com/authorize")
        #expect(auth0.descriptor.tokenRequest.bodyEncoding == .json)
        _ = auth0.resources.resources(granted: ["openid", "email"])
        let client = OAuthClient(provider: auth0, configuration: ClientConfiguration(
            clientID: "YOUR_CLIENT_ID", redirectURI: URL(string: "http://127.0.0.1:8765/callback")!))
        let pending = try await client.startAuthorization()
        #expect(pending.url.host == "example.us.auth0.com")
    }
}
