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
                .init(
                    protocolName: "https", host: "git.example.com:8443", path: nil, providerID: "gitlab", account: "default", username: "oauth2",
                    authorizationServer: "https://gitlab.example.com\t%"),
                .init(protocolName: "https", host: "h", path: "team/\trepo\n%", providerID: nil, account: "default", username: "oauth2"),
                .init(protocolName: "https", host: "é", path: "", providerID: "x", account: "work/ops", username: "x-access-token"),
            ])
        #expect(GitCredentialMemo.parse(memo.rendered()) == memo)
        #expect(GitCredentialMemo.parse("something else\n") == nil)
        #expect(GitCredentialMemo.parse(memo.rendered().replacingOccurrences(of: "\tgitlab\t", with: "\tgitlab\textra\t")) == nil)
        // Only what rendered() writes: no control character left as it is (a carriage return at a line's end, say),
        // and an escape of exactly two hex digits.
        #expect(GitCredentialMemo.parse(memo.rendered().replacingOccurrences(of: "\n", with: "\r\n")) == nil)
        #expect(GitCredentialMemo.parse(memo.rendered().replacingOccurrences(of: "\toauth2\t\n", with: "\toauth2\t\r\n")) == nil)
        #expect(GitCredentialMemo.parse(memo.rendered().replacingOccurrences(of: "%09", with: "%+9")) == nil)
        #expect(GitCredentialMemo.parse(memo.rendered().replacingOccurrences(of: "%09", with: "%0")) == nil)
        #expect(GitCredentialMemo.parse(bytes: Array(memo.rendered().utf8) + [0xFF, 0x0A]) == nil)
        #expect(GitCredentialMemo.parse(memo.rendered().replacingOccurrences(of: "%09", with: "%0a")) != nil)
    }

    /// A memo written for a plain-http remote (by an older release, which answered any) answers nothing: the full
    /// command decides, and answers http only for a remote on this machine.
    @Test func answersOnlyHTTPSRequests() throws {
        let entry = { (scheme: String) in
            GitCredentialMemo.Entry(protocolName: scheme, host: "git.example.com", path: nil, providerID: "gitlab", account: "default", username: "oauth2")
        }
        #expect(entry("https").answers(["protocol": "https", "host": "git.example.com"]))
        #expect(!entry("http").answers(["protocol": "http", "host": "git.example.com"]))
        #expect(!entry("https").answers(["protocol": "http", "host": "git.example.com"]))
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
}
