import Foundation
import OAuthFlowTestSupport
import Testing

/// Every read of a stored session in the sources is one of those listed here, each with why no token leaves through it
/// unchecked: the rest go through the one gate (`OAuth.storedSession`, or a `TokenManager`, which makes the same check
/// of the session's origin). A new read fails this test until it is routed through the gate or listed with its reason,
/// so a new path cannot hand a token out around the check (issue 61: `token print` and the credential helpers did).
@Suite struct StoredTokenGateTests {
    /// Each file that reads stored sessions directly, how many times, and why that is safe.
    static let allowed: [String: (count: Int, why: String)] = [
        "Sources/OAuthFlow/OAuth/OAuth+StoredSession.swift": (1, "the gate itself"),
        "Sources/OAuthFlow/Sessions/TokenManager.swift": (
            4, "every session it loads passes requireOwn, the gate's check (the one another process saved after a rejected refresh too)"
        ),
        "Sources/OAuthFlow/OAuth/OAuth.swift": (1, "whether a session exists, to make its manager"),
        "Sources/OAuthFlow/OAuth/OAuth+AccountDeletion.swift": (
            1, "the user's issuer and subject, to find their other sessions; tokens leave only through its manager's revocation"
        ),
        "Sources/OAuthFlow/Sessions/ServiceTokens.swift": (2, "a service token, served only when StoredSession.mismatch finds nothing"),
        "Sources/OAuthFlow/Logout/ProviderLogoutReceiver.swift": (1, "the ID token's header algorithm of the sessions a verified logout token names"),
        "Sources/OAuthFlow/Sessions/SessionDirectory.swift": (
            1, "the sessions a verified logout or security event names, read again under the store's lock to end or mark them; nothing leaves"
        ),
        "Sources/OAuthFlowLoopback/OAuth+UsableSession.swift": (2, "whether a session exists, and its variables for the DPoP policy"),
        "Sources/OAuthFlowMCPAuth/MCPAuthorization+Commands.swift": (1, "whether a session exists, for inspect"),
        "Sources/OAuthFlowWeb/WebSignIn+Logout.swift": (1, "whether a session exists"),
        "Sources/OAuthFlowSecurityEvents/SecurityEventReceiver+Acting.swift": (
            1, "the user a verified event's session id names: the stored session's subject, and nothing else, is read"
        ),
        "Sources/OAuthFlowPostgres/PostgresTokenStore+PendingSaves.swift": (1, "the store's own bookkeeping"),
        "Sources/oauthflow/Options/SessionOptions.swift": (1, "the session's variables and client; its tokens leave through its manager"),
        "Sources/oauthflow/Options/LoginOptions.swift": (1, "the session's scopes and client, for a new sign-in"),
        "Sources/OAuthFlowLauncher/main.swift": (1, "SessionPeek, inside vouchedSession, which checks the full command's SessionOriginMemo"),
    ]

    /// The reads of stored sessions in `text`: a store's `load(`, and `SessionPeek.read(`.
    static func reads(in text: String) -> Int {
        text.split(separator: "\n").filter { line in
            let code = line.trimmingCharacters(in: .whitespaces)
            guard !code.hasPrefix("//") else { return false }
            let other = ["DescriptorDocument.load(", "ProviderRegistry.load(", "Self.load(", "pendingStore.load("]
            return (code.contains(".load(") && !other.contains { code.contains($0) }) || code.contains("SessionPeek.read(")
        }.count
    }

    @Test func everyReadOfAStoredSessionIsTheGateOrListedWithItsReason() throws {
        let sources = repositoryRoot.appendingPathComponent("Sources")
        let enumerator = try #require(FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil))
        var found: [String: Int] = [:]
        for case let url as URL in enumerator where url.pathExtension == "swift" {
            let count = Self.reads(in: try String(contentsOf: url, encoding: .utf8))
            if count > 0 { found[String(url.path.dropFirst(repositoryRoot.path.count + 1))] = count }
        }
        for (file, count) in found {
            let allowed = Self.allowed[file]
            #expect(
                allowed?.count == count,
                "\(file) reads stored sessions \(count) time(s): hand tokens out through OAuth.storedSession or a TokenManager, or list it here with why none leaves unchecked"
            )
        }
        #expect(Set(found.keys) == Set(Self.allowed.keys), "listed but gone: \(Set(Self.allowed.keys).subtracting(found.keys))")
        // The tripwire fires for a new read.
        #expect(Self.reads(in: "let s = try await store.load(key)\nprint(s.tokens.accessToken)") == 1)
    }

    @Test func theLauncherReadsASessionOnlyThroughItsCheck() throws {
        let main = try String(contentsOf: repositoryRoot.appendingPathComponent("Sources/OAuthFlowLauncher/main.swift"), encoding: .utf8)
        let body = try #require(main.range(of: "func vouchedSession(")).upperBound
        let read = try #require(main.range(of: "SessionPeek.read(")).lowerBound
        let end = try #require(main.range(of: "\n}\n", range: body..<main.endIndex)).lowerBound
        #expect(read > body && read < end, "the launcher's one SessionPeek.read is inside vouchedSession")
    }
}
