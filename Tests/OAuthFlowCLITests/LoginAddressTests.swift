import Foundation
import Testing
import OAuthFlowTestSupport

/// What `login` says before the browser opens: the provider's name and the host of its authorization endpoint,
/// beside the URL to open, which names no provider when it is the loopback receiver's start address (a pushed
/// request). Offline: the sign-in times out after a second, as no browser comes back.
@Suite struct LoginAddressTests {
    /// A display name that would retitle the terminal if it were printed as it is.
    static let hostileName = #"Notes \e]0;owned\a IdP"#

    static func descriptor(pushedTo par: String? = nil) -> String {
        """
        schema_version: 1
        id: notes
        display_name: "\(hostileName)"
        protocol: oauth2
        discovery:
          mode: none
        endpoints:
          authorization: https://sso.notes.example/oauth/authorize
          token: https://sso.notes.example/oauth/token
        \(par.map { "  pushed_authorization: \($0)" } ?? "")
        client_auth:
          methods: [none]

        """
    }

    static func login(_ descriptor: String) async throws -> (status: Int32, stdout: String, stderr: String) {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        try directory.write("providers/notes.yaml", descriptor)
        return try await runProduct(
            "oauthflow",
            ["login", "notes", "--providers-dir", directory.url.appendingPathComponent("providers").path, "--client-id", "notes-cli",
             "--no-browser", "--timeout", "1"],
            environment: ["XDG_STATE_HOME": directory.url.appendingPathComponent("state").path,
                          "XDG_CONFIG_HOME": directory.url.appendingPathComponent("config").path])
    }

    @Test func theProviderAndItsHostAreNamedBesideTheURL() async throws {
        let result = try await Self.login(Self.descriptor())
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr.contains("Sign in to Notes \\x1B]0;owned\\x07 IdP at sso.notes.example by opening this URL:\n\n"
                                       + "  https://sso.notes.example/oauth/authorize?"), "\(result.stderr)")
        #expect(!result.stderr.contains("\u{1B}]"), "the display name reached the terminal unescaped")
    }

    @Test func aPushedRequestsStartAddressSaysWhereItLeads() async throws {
        let body = #"{"request_uri":"urn:ietf:params:oauth:request_uri:notes-1","expires_in":90}"#
        let server = try HostileServer(.fixed(Data(
            "HTTP/1.1 201 Created\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)".utf8)))
        defer { server.stop() }
        let result = try await Self.login(Self.descriptor(pushedTo: "http://127.0.0.1:\(server.port)/par"))
        #expect(result.status == 2, "\(result.stderr)")
        #expect(server.received.count == 1 && server.received[0].hasPrefix("POST /par "), "\(server.received)")
        let shown = try #require(result.stderr.components(separatedBy: "\n").first { $0.hasPrefix("Sign in to ") }, "\(result.stderr)")
        #expect(shown == "Sign in to Notes \\x1B]0;owned\\x07 IdP at sso.notes.example by opening this URL (an address on this machine "
                + "that sends the browser on to https://sso.notes.example/oauth/authorize):")
        #expect(result.stderr.contains(#/\n  http://127\.0\.0\.1:[0-9]+/callback\?oauthflow_start=[A-Za-z0-9_-]+\n/#), "\(result.stderr)")
    }
}
