import Foundation
import OAuthFlow
import OAuthFlowFiles
import OAuthFlowTestSupport
import Testing

@Suite struct GitCredentialMemoTests {
    @Test func rendersAndParsesAnyText() throws {
        let memo = GitCredentialMemo(
            clientsFile: "/home/a b/%clients\t.yaml", clientsIdentity: "1 2 3 4.5 6.7",
            entries: [
                .init(protocolName: "https", host: "git.example.com:8443", path: nil, providerID: "gitlab", account: "default", username: "oauth2"),
                .init(protocolName: "https", host: "h", path: "team/\trepo\n%", providerID: nil, account: "default", username: "oauth2"),
                .init(protocolName: "https", host: "é", path: "", providerID: "x", account: "work/ops", username: "x-access-token"),
            ])
        #expect(GitCredentialMemo.parse(memo.rendered()) == memo)
        #expect(GitCredentialMemo.parse("something else\n") == nil)
        #expect(GitCredentialMemo.parse(memo.rendered().replacingOccurrences(of: "\tgitlab\t", with: "\tgitlab\textra\t")) == nil)
        // Only what rendered() writes: no control character left as it is (a carriage return at a line's end, say),
        // and an escape of exactly two hex digits.
        #expect(GitCredentialMemo.parse(memo.rendered().replacingOccurrences(of: "\n", with: "\r\n")) == nil)
        #expect(GitCredentialMemo.parse(memo.rendered().replacingOccurrences(of: "\toauth2\n", with: "\toauth2\r\n")) == nil)
        #expect(GitCredentialMemo.parse(memo.rendered().replacingOccurrences(of: "%09", with: "%+9")) == nil)
        #expect(GitCredentialMemo.parse(memo.rendered().replacingOccurrences(of: "%09", with: "%0")) == nil)
        #expect(GitCredentialMemo.parse(bytes: Array(memo.rendered().utf8) + [0xFF, 0x0A]) == nil)
        #expect(GitCredentialMemo.parse(memo.rendered().replacingOccurrences(of: "%09", with: "%0a")) != nil)
    }

    @Test func keepsTheNewestEntriesForEachRequest() {
        var memo = GitCredentialMemo(clientsFile: "/c", clientsIdentity: "i", entries: [])
        for index in 0..<40 {
            memo = memo.adding(.init(protocolName: "https", host: "h\(index)", path: nil, providerID: "p", account: "default", username: "u"))
        }
        memo = memo.adding(.init(protocolName: "https", host: "h39", path: nil, providerID: "q", account: "default", username: "u"))
        #expect(memo.entries.count == GitCredentialMemo.capacity)
        #expect(memo.entries.last?.providerID == "q")
        #expect(memo.entries.filter { $0.host == "h39" }.count == 1)
        #expect(!memo.entries.contains { $0.host == "h0" })
    }

    /// The full command remembers what clients.yaml decided; an edit of the file, or another file, forgets it.
    @Test func anEditOfTheClientsFileForgetsEveryDecision() async throws {
        let home = try TemporaryDirectory()
        defer { home.cleanUp() }
        let clients = try home.write("clients.yaml", "github:\n  client_id: abc\n")
        let store = FileTokenStore(directory: home.url.appendingPathComponent("state/oauthflow"))
        let request = try GitCredentialRequest(parsing: "protocol=https\nhost=github.com\npath=org/repo\n\n")
        let mapping = GitCredentialMapping(url: "https://github.com", provider: "github", username: "x-access-token")
        let identity = GitCredentialMapping.identity(ofClientsFile: clients.path)
        GitCredentialMapping.remember(request, answeredBy: mapping, clientsFile: clients.path, identity: identity, store: store)
        let memo = try #require(GitCredentialMemo.read(sessionDirectory: store.directory.path))
        let entry = try #require(memo.entry(for: request.attributes, clientsFile: clients.path))
        #expect(entry.providerID == "github" && entry.username == "x-access-token" && entry.path == "org/repo")
        // The same decision again writes nothing: the file keeps its identity.
        let written = GitCredentialMemo.identity(of: GitCredentialMemo.path(sessionDirectory: store.directory.path))
        GitCredentialMapping.remember(request, answeredBy: mapping, clientsFile: clients.path, identity: identity, store: store)
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
        GitCredentialMapping.remember(request, answeredBy: mapping, clientsFile: clients.path, identity: identity, store: store)
        #expect(GitCredentialMemo.read(sessionDirectory: store.directory.path) == nil)
    }

    @Test func answersAsTheLibraryDoes() throws {
        let expiry = Date(timeIntervalSince1970: 1_893_456_000)
        let library = try GitCredentialRequest.answer(username: "oauth2", password: Secret("tok"), expiresAt: expiry)
        #expect(GitCredentialLines.answer(username: "oauth2", password: "tok", expiresAt: 1_893_456_000) == library)
        #expect(GitCredentialLines.answer(username: "oauth2", password: "t\nk", expiresAt: nil) == nil)
        // "\r\n" is one Character in Swift: the check reads bytes.
        #expect(GitCredentialLines.answer(username: "oauth2", password: "t\r\nusername=evil", expiresAt: nil) == nil)
        #expect(GitCredentialLines.answer(username: "x\r\ny=1", password: "t", expiresAt: nil) == nil)
        // A request with CRLF line ends reads as one with LF ends.
        #expect(try GitCredentialLines.parse("protocol=https\r\nhost=github.com\r\n\r\n") == ["protocol": "https", "host": "github.com"])
        #expect(throws: CredentialError.self) { try GitCredentialRequest(parsing: "no equals sign\n") }
    }
}
