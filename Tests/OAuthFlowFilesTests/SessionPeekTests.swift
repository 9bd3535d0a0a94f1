import Foundation
import OAuthFlow
import OAuthFlowFiles
import OAuthFlowTestSupport
import Testing

/// SessionPeek reads what FileTokenStore writes, and answers only when FileTokenStore would hand the token out as valid.
@Suite final class SessionPeekTests {
    let directory: TemporaryDirectory
    let store: FileTokenStore
    var path: String { store.directory.path }

    init() throws {
        directory = try TemporaryDirectory()
        store = FileTokenStore(directory: directory.url.appendingPathComponent("oauthflow"))
    }

    deinit { directory.cleanUp() }

    func session(
        provider: String = "github", account: String = "default", token: String = "gho_peek", expiresAt: Date? = Date().addingTimeInterval(3600),
        proofKey: DPoPKey? = nil
    ) -> StoredSession {
        StoredSession(
            key: SessionKey(providerID: provider, account: account), variables: ["tenant": "acme"], clientID: "client",
            redirectURI: URL(string: "http://127.0.0.1:8765/callback")!,
            tokens: TokenSet(
                accessToken: Secret(token), tokenType: "bearer", expiresAt: expiresAt, refreshToken: Secret("refresh"), idToken: nil,
                scopes: ["read"], issuedAt: Date(), proofKey: proofKey),
            updatedAt: Date())
    }

    @Test func readsTheTokenFileTokenStoreWrote() async throws {
        let expiry = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + 7200).rounded(.down))
        try await store.save(session(account: "work/ops", token: "tok \"quoted\" \\back", expiresAt: expiry))
        let peek = try #require(SessionPeek.read(providerID: "github", account: "work/ops", directory: path))
        #expect(peek.accessToken == "tok \"quoted\" \\back")
        #expect(peek.expiresAt == Int(expiry.timeIntervalSince1970))
        let loaded = try await store.load(SessionKey(providerID: "github", account: "work/ops"))
        #expect(loaded?.tokens.accessToken.value == peek.accessToken)
    }

    @Test func aTokenWithoutExpiryIsValidAsTheStoreSays() async throws {
        try await store.save(session(expiresAt: nil))
        #expect(SessionPeek.read(providerID: "github", account: "default", directory: path)?.expiresAt == nil)
        #expect(SessionPeek.read(providerID: "github", account: "default", directory: path)?.accessToken == "gho_peek")
    }

    @Test(arguments: [-10.0, 30.0, 59.0])
    func anExpiredOrExpiringTokenIsLeftToTheFullCommand(_ seconds: Double) async throws {
        try await store.save(session(expiresAt: Date().addingTimeInterval(seconds)))
        #expect(SessionPeek.read(providerID: "github", account: "default", directory: path) == nil)
        #expect(try await store.load(SessionKey(providerID: "github"))?.tokens.isExpired(at: Date(), skew: 60) == true)
    }

    @Test func dPoPBoundTokensAreLeftToTheFullCommand() async throws {
        try await store.save(session(proofKey: try DPoPKey.generate()))
        #expect(SessionPeek.read(providerID: "github", account: "default", directory: path) == nil)
    }

    @Test func certificateBoundTokensAreLeftToTheFullCommand() async throws {
        var bound = session()
        bound.tokens.certificateThumbprint = "x5t"
        try await store.save(bound)
        #expect(SessionPeek.read(providerID: "github", account: "default", directory: path) == nil)
    }

    /// Whatever the launcher answers from, the full command reads too: every member of a real session removed, or
    /// given another type, either stops the launcher or leaves a session FileTokenStore still loads with the same token.
    @Test func answersOnlyFromFilesTheFullCommandReads() async throws {
        try await store.save(session())
        let file = URL(fileURLWithPath: path + "/github--default.json")
        let original = try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as! [String: Any]
        var paths: [[String]] = original.keys.map { [$0] }
        paths += (original["tokens"] as! [String: Any]).keys.map { ["tokens", $0] } + [["key", "providerID"], ["key", "account"]]
        paths += [["tokens", "refreshToken"], ["tokens", "proofKey"], ["clientAuthentication"], ["providerSession"], ["tokens", "expiresAt"]]
        // Members newer sessions carry: one of another type is a session FileTokenStore cannot load.
        paths += [["authorizationServer"], ["offlineAccessRequested"], ["tokenServers"]]
        let replacements: [Any?] = [nil, NSNull(), 5, "x", "", [Any](), [String: Any](), 1e300, true]
        var answered = 0
        for keyPath in paths {
            for replacement in replacements {
                var document = original
                func set(_ object: inout [String: Any], _ path: ArraySlice<String>) {
                    guard let first = path.first else { return }
                    if path.count == 1 {
                        object[first] = replacement
                    } else if var inner = object[first] as? [String: Any] {
                        set(&inner, path.dropFirst())
                        object[first] = inner
                    }
                }
                set(&document, keyPath[...])
                try JSONSerialization.data(withJSONObject: document).write(to: file)
                chmod(file.path, 0o600)
                guard let peek = SessionPeek.read(providerID: "github", account: "default", directory: path) else { continue }
                answered += 1
                let loaded = try? await store.load(SessionKey(providerID: "github"))
                #expect(loaded?.tokens.accessToken.value == peek.accessToken, "the launcher would answer from \(keyPath) = \(String(describing: replacement))")
            }
        }
        #expect(answered > 10, "some changes (an absent refresh token, a null expiry) leave a valid session")
    }

    @Test func anythingUnusualIsLeftToTheFullCommand() async throws {
        try await store.save(session())
        let file = path + "/github--default.json"
        #expect(SessionPeek.read(providerID: "github", account: "default", directory: path) != nil)
        // Another key's file, a loose file or directory, a refresh record waiting, a link, another format.
        #expect(SessionPeek.read(providerID: "gitlab", account: "default", directory: path) == nil)
        chmod(file, 0o644)
        #expect(SessionPeek.read(providerID: "github", account: "default", directory: path) == nil)
        chmod(file, 0o600)
        chmod(path, 0o755)
        #expect(SessionPeek.read(providerID: "github", account: "default", directory: path) == nil)
        chmod(path, 0o700)
        _ = try directory.write("oauthflow/github--default.received.json", "{}")
        #expect(SessionPeek.read(providerID: "github", account: "default", directory: path) == nil)
        unlink(path + "/github--default.received.json")
        let text = try String(contentsOfFile: file, encoding: .utf8)
        rename(file, path + "/elsewhere.json")
        symlink(path + "/elsewhere.json", file)
        #expect(SessionPeek.read(providerID: "github", account: "default", directory: path) == nil)
        unlink(file)
        for changed in [
            text.replacingOccurrences(of: "\"formatVersion\" : 1", with: "\"formatVersion\" : 2"),
            text.replacingOccurrences(of: "\"accessToken\" : \"gho_peek\"", with: "\"accessToken\" : \"\""),
            text.replacingOccurrences(of: "Z\"", with: ".5Z\""),
            String(text.dropLast(3)),
        ] {
            #expect(changed != text)
            try Data(changed.utf8).write(to: URL(fileURLWithPath: file))
            chmod(file, 0o600)
            #expect(SessionPeek.read(providerID: "github", account: "default", directory: path) == nil, "\(changed)")
        }
    }

    @Test func knowsEveryClientAuthenticationMethod() {
        #expect(SessionPeek.clientAuthenticationMethods == Set(ProviderDescriptor.ClientAuthMethod.allCases.map(\.rawValue)))
    }

    @Test func readsDatesAsISO8601DateFormatterDoes() {
        let formatter = ISO8601DateFormatter()
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let seconds = Int.random(in: -2_000_000_000...8_000_000_000, using: &generator)
            let text = formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
            if text.hasPrefix("-") || text.count != 20 { continue }
            #expect(SessionPeek.epochSeconds(iso8601: text) == seconds, "\(text)")
        }
        for text in ["2030-01-01T00:00:00+01:00", "2030-13-01T00:00:00Z", "2030-01-01 00:00:00Z", "2030-01-01T00:00:00.000Z", "２０３０-01-01T00:00:00Z"]
        {
            #expect(SessionPeek.epochSeconds(iso8601: text) == nil, "\(text)")
        }
    }

    @Test func namesFilesAsTheStoreDoes() {
        for name in ["github", "work/ops", "", ".hidden", "a.b", "é", "x y", "%2F"] {
            let stem = StateFiles.sessionStem(providerID: name, account: "default")
            #expect(!stem.contains("/"))
            #expect(stem.hasSuffix("--default"))
        }
        #expect(StateFiles.fileComponent("work/ops") == "work%2Fops")
        #expect(StateFiles.fileComponent(".x") == "%2Ex")
        #expect(StateFiles.fileComponent("") == "%00")
        // Names that made two sessions one file keep apart; the usual ones keep the files they always had.
        let pairs = [(("a--b", "c"), ("a", "b--c")), (("p", "work.received"), ("p", "work")), (("p", "work.pending"), ("p", "work")),
                     (("a-", "-b"), ("a", "--b")), (("a", "b-"), ("a-", "b"))]
        for ((p1, a1), (p2, a2)) in pairs {
            let one = StateFiles.sessionStem(providerID: p1, account: a1), other = StateFiles.sessionStem(providerID: p2, account: a2)
            for suffix in [".json", ".json.lock"] {
                for companion in ["", ".received", ".pending"] {
                    #expect(one + suffix != other + companion + suffix && one + companion + suffix != other + suffix, "\(one) \(other)")
                }
            }
            #expect(one.components(separatedBy: "--").count == 2 && other.components(separatedBy: "--").count == 2, "\(one) \(other)")
        }
        #expect(StateFiles.sessionStem(providerID: "google-ios", account: "ada@example.com") == "google-ios--ada%40example.com")
        #expect(StateFiles.sessionStem(providerID: "42-school", account: "work.ops") == "42-school--work.ops")
        #expect(StateFiles.stateHome(environment: ["HOME": "/h", "XDG_STATE_HOME": "relative"]) == "/h/.local/state")
        #expect(StateFiles.configHome(environment: ["HOME": "/h", "XDG_CONFIG_HOME": "/c"]) == "/c")
    }

    /// The launcher reads only the variables the directories come from, and reads them as the full command
    /// (Foundation's ProcessInfo) does.
    @Test func readsTheEnvironmentAsFoundationDoes() {
        let environment = ProcessInfo.processInfo.environment
        let names = Array(environment.keys) + ["OAUTHFLOW_NOT_SET_ANYWHERE", "", "="]
        #expect(StateFiles.processEnvironment(names) == environment)
        #expect(StateFiles.processEnvironment(StateFiles.directoryVariables) == environment.filter { StateFiles.directoryVariables.contains($0.key) })
    }
}
