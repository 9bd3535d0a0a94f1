import Foundation
import OAuthFlow
import OAuthFlowFiles
import OAuthFlowTestSupport
import Testing

@testable import oauthflow

/// `oauthflow credential git`: git's request and answer (gitcredentials(7)), and what the command remembers for the
/// launcher, which must answer the same.
@Suite struct GitCredentialRequestTests {
    @Test func requestsAreReadAsGitWritesThem() throws {
        let request = try GitCredentialRequest(
            parsing: "protocol=https\nhost=git.example.com:8443\npath=team/repo.git\nwwwauth[]=Basic realm=x\n\nignored=after-blank\n")
        #expect(request.protocolName == "https" && request.host == "git.example.com:8443" && request.path == "team/repo.git")
        #expect(request.attributes["ignored"] == nil)
        #expect(throws: CommandFailure.self) { try GitCredentialRequest(parsing: "no equals sign\n") }
        #expect(throws: CommandFailure.self) { try GitCredentialRequest(parsing: String(repeating: "a=b\n", count: 20_000)) }
    }

    @Test func answersCannotCarryLineBreaks() throws {
        let answer = try GitCredentialRequest.answer(
            username: "oauth2", password: Secret("tok"), expiresAt: Date(timeIntervalSince1970: 2_000_000_000))
        #expect(answer == "username=oauth2\npassword=tok\npassword_expiry_utc=2000000000\n")
        #expect(throws: CommandFailure.self) { try GitCredentialRequest.answer(username: "a\nb", password: Secret("t"), expiresAt: nil) }
    }

    /// The full command remembers what clients.yaml decided; an edit of the file, or another file, forgets it.
    @Test func anEditOfTheClientsFileForgetsEveryDecision() async throws {
        let home = try TemporaryDirectory()
        defer { home.cleanUp() }
        let clients = try home.write("clients.yaml", "github:\n  client_id: abc\n")
        let store = FileTokenStore(directory: home.url.appendingPathComponent("state/oauthflow"))
        let request = try GitCredentialRequest(parsing: "protocol=https\nhost=github.com\npath=org/repo\n\n")
        let mapping = ClientSettingsResolver.GitCredentialMapping(url: "https://github.com", provider: "github", username: "x-access-token")
        let identity = GitCredentialRequest.identity(ofClientsFile: clients.path)
        request.remember(answeredBy: mapping, clientsFile: clients.path, identity: identity, store: store)
        let memo = try #require(GitCredentialMemo.read(sessionDirectory: store.directory.path))
        let entry = try #require(memo.entry(for: request.attributes, clientsFile: clients.path))
        #expect(entry.providerID == "github" && entry.username == "x-access-token" && entry.path == "org/repo")
        // The same decision again writes nothing: the file keeps its identity.
        let written = GitCredentialMemo.identity(of: GitCredentialMemo.path(sessionDirectory: store.directory.path))
        request.remember(answeredBy: mapping, clientsFile: clients.path, identity: identity, store: store)
        #expect(GitCredentialMemo.identity(of: GitCredentialMemo.path(sessionDirectory: store.directory.path)) == written)
        // Only the exact request, and only from that file.
        #expect(memo.entry(for: ["protocol": "https", "host": "github.com"], clientsFile: clients.path) == nil)
        #expect(memo.entry(for: request.attributes, clientsFile: clients.path + ".other") == nil)
        // The same bytes written again still change the file's identity (its change time).
        try await Task.sleep(nanoseconds: 20_000_000)
        _ = try home.write("clients.yaml", "github:\n  client_id: abc\n")
        #expect(memo.entry(for: request.attributes, clientsFile: clients.path) == nil)
        // A file that changed between the identity and the decision is not remembered.
        unlink(GitCredentialMemo.path(sessionDirectory: store.directory.path))
        request.remember(answeredBy: mapping, clientsFile: clients.path, identity: identity, store: store)
        #expect(GitCredentialMemo.read(sessionDirectory: store.directory.path) == nil)
    }

    @Test func answersAsTheLauncherDoes() throws {
        let expiry = Date(timeIntervalSince1970: 1_893_456_000)
        let command = try GitCredentialRequest.answer(username: "oauth2", password: Secret("tok"), expiresAt: expiry)
        #expect(GitCredentialLines.answer(username: "oauth2", password: "tok", expiresAt: 1_893_456_000) == command)
        #expect(GitCredentialLines.answer(username: "oauth2", password: "t\nk", expiresAt: nil) == nil)
        // "\r\n" is one Character in Swift: the check reads bytes.
        #expect(GitCredentialLines.answer(username: "oauth2", password: "t\r\nusername=evil", expiresAt: nil) == nil)
        #expect(GitCredentialLines.answer(username: "x\r\ny=1", password: "t", expiresAt: nil) == nil)
        // A request with CRLF line ends reads as one with LF ends.
        #expect(try GitCredentialLines.parse("protocol=https\r\nhost=github.com\r\n\r\n") == ["protocol": "https", "host": "github.com"])
        #expect(throws: CommandFailure.self) { try GitCredentialRequest(parsing: "no equals sign\n") }
    }
}
