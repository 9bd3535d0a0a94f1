import Foundation
import Testing
import OAuthFlowTestSupport
import OAuthFlow

/// The git credential protocol and the kubectl ExecCredential, without a server.
@Suite struct CredentialProtocolTests {
    @Test func requestsAreReadAsGitWritesThem() throws {
        let request = try GitCredentialRequest(parsing: "protocol=https\nhost=git.example.com:8443\npath=team/repo.git\nwwwauth[]=Basic realm=x\n\nignored=after-blank\n")
        #expect(request.protocolName == "https" && request.host == "git.example.com:8443" && request.path == "team/repo.git")
        #expect(request.attributes["ignored"] == nil)
        #expect(throws: CredentialError.self) { try GitCredentialRequest(parsing: "no equals sign\n") }
        #expect(throws: CredentialError.self) { try GitCredentialRequest(parsing: String(repeating: "a=b\n", count: 20_000)) }
    }

    @Test(arguments: [
        ("https://git.example.com", "protocol=https\nhost=git.example.com\n", true),
        ("https://git.example.com", "protocol=http\nhost=git.example.com\n", false),
        ("https://git.example.com", "protocol=https\nhost=git.example.com.evil\n", false),
        ("https://git.example.com:8443/team", "protocol=https\nhost=git.example.com:8443\npath=team/repo.git\n", true),
        ("https://git.example.com:8443/team", "protocol=https\nhost=git.example.com:8443\npath=teammate/repo.git\n", false),
        ("https://git.example.com/team", "protocol=https\nhost=git.example.com\n", true),
    ])
    func mappingsMatchProtocolHostAndPathPrefix(_ url: String, _ request: String, _ expected: Bool) throws {
        #expect(GitCredentialMapping(url: url, provider: "p").matches(try GitCredentialRequest(parsing: request)) == expected)
    }

    @Test func answersCannotCarryLineBreaks() throws {
        let answer = try GitCredentialRequest.answer(username: "oauth2", password: Secret("tok"), expiresAt: Date(timeIntervalSince1970: 2_000_000_000))
        #expect(answer == "username=oauth2\npassword=tok\npassword_expiry_utc=2000000000\n")
        #expect(throws: CredentialError.self) { try GitCredentialRequest.answer(username: "a\nb", password: Secret("t"), expiresAt: nil) }
    }

    /// Field by field against client.authentication.k8s.io/v1 ExecCredential.
    @Test func execCredentialHasTheV1Shape() throws {
        let credential = ExecCredential(token: Secret("id.token.here"), expiresAt: Date(timeIntervalSince1970: 2_000_000_000))
        let object = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(credential)) as? [String: Any])
        #expect(Set(object.keys) == ["apiVersion", "kind", "status"])
        #expect(object["apiVersion"] as? String == "client.authentication.k8s.io/v1")
        #expect(object["kind"] as? String == "ExecCredential")
        let status = try #require(object["status"] as? [String: Any])
        #expect(Set(status.keys) == ["token", "expirationTimestamp"])
        #expect(status["token"] as? String == "id.token.here")
        #expect(status["expirationTimestamp"] as? String == "2033-05-18T03:33:20Z")
    }
}
