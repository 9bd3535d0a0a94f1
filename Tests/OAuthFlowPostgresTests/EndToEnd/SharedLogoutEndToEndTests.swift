import Foundation
import Hummingbird
import Logging
import OAuthFlowHummingbird
import OAuthFlowPostgres
import OAuthFlowTestSupport
import OAuthFlowWeb
import Testing

@testable import OAuthFlow

/// Two instances of a web app share PostgreSQL; the idpyoidc logout server is the provider and the scripted
/// agent its user's browser (keeping its cookies like a real one). A logout at the provider reaches one
/// instance by the back channel and signs the user out of both; a sign-out on one instance ends the provider's
/// session, and the next sign-in asks for credentials again.
@Suite(
    .serialized,
    .enabled(if: TestLogoutServer.shouldRun && TestPostgres.shouldRun, "needs the logout server and PostgreSQL: run `bash scripts/test.sh`"))
struct SharedLogoutEndToEndTests {
    static let descriptorExtra = "logout:\n  backchannel_logout_supported: true\n  backchannel_logout_session_supported: true\n"

    /// The `Location` and the cookie (name and value) of a web response.
    private func redirect(_ response: WebResponse) throws -> (location: URL, cookie: (String, String)?) {
        let location = try #require(response.headers.first { $0.name == "Location" }?.value)
        let cookie = response.headers.first { $0.name == "Set-Cookie" }.map { header -> (String, String) in
            let pair = header.value.split(separator: ";")[0]
            let equals = pair.firstIndex(of: "=") ?? pair.endIndex
            return (String(pair[..<equals]), String(pair[pair.index(after: equals)...]))
        }
        return (try #require(URL(string: location)), cookie)
    }

    /// Signs `user` in on `web` through the provider; returns the stored session and whether the login form was shown.
    private func signIn(_ web: WebSignIn, _ op: TestLogoutServer, cookies: URL, user: String) async throws -> (SessionKey, asked: Bool) {
        let (location, cookie) = try redirect(await web.start("logout", returnTo: "/home"))
        let pending = try #require(cookie)
        let (back, asked) = try await op.signIn(location, cookies: cookies, user: user)
        let query = URLComponents(url: back, resolvingAgainstBaseURL: false)?.percentEncodedQuery
        let result = try await web.finish("logout", callback: .init(query: query, cookies: [pending.0: pending.1])).get()
        #expect(result.returnTo == "/home")
        return (try #require(result.session, "a WebSignIn with a store names the stored session"), asked)
    }

    @available(macOS 14, iOS 17, tvOS 17, *)
    @Test func aLogoutAtTheProviderEndsTheSessionOnEveryInstance() async throws {
        let op = try TestLogoutServer.require()
        let postgres = try TestPostgres.require()
        let home = try TemporaryDirectory()
        defer { home.cleanUp() }
        let cookies = home.url.appendingPathComponent("op-cookies")
        let port = try unusedPort()
        let origin = try #require(URL(string: "http://127.0.0.1:\(port)"))
        let clientID = "shared-" + UUID().uuidString.prefix(8).lowercased()
        let provider = try op.descriptor(id: "logout", extra: Self.descriptorExtra).provider()
        try await postgres.withStore(table: TestPostgres.freshTable()) { store in
            let replays = try PostgresReplayRegistry(store: store, table: "replays_" + TestPostgres.freshTable().suffix(16))
            try await replays.migrate()
            let keyring = try SessionKeyring(current: TestPostgres.firstKey)
            let base = "\(origin.absoluteString)/auth/logout"
            let registered = try await op.register(
                clientID: clientID, redirectURIs: [try #require(URL(string: "\(base)/callback"))],
                postLogoutRedirectURIs: [try #require(URL(string: "\(base)/signed-out"))],
                backchannelLogoutURI: try #require(URL(string: "\(base)/backchannel-logout")) as URL, like: "logout-web")
            let secret = Secret(try #require(registered.clientSecret))
            func instance() throws -> WebSignIn {
                try WebSignIn(
                    providers: [(provider, .init(clientID: clientID, secret: secret))], origin: origin, keyring: keyring,
                    sessions: store, replays: replays)
            }
            let a = try instance()
            let b = try instance()
            #expect(a.backChannelLogoutURI(for: "logout")?.absoluteString == "\(base)/backchannel-logout")

            // Instance A listens: the provider's logout tokens come to it.
            let router = Router()
            router.addSignOutRoutes(a, currentSession: { _, _ in nil }, onSignOut: { _, _ in })
            // A's own word that it listens (another test's server may have taken the port since it was found free:
            // then the run ends and the test says so, instead of talking to that other server).
            let (listening, started) = AsyncStream<Void>.makeStream()
            let app = Application(
                router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)), onServerRunning: { _ in started.yield() },
                logger: Logger(label: "instance-a"))
            let running = Task {
                defer { started.finish() }
                try await app.runService()
            }
            defer { running.cancel() }
            var events = listening.makeAsyncIterator()
            try #require(await events.next() != nil, "instance A could not listen on \(origin)")

            // Dave signs in on A; B, sharing the store, has his session and its tokens.
            let (key, asked) = try await signIn(a, op, cookies: cookies, user: "dave")
            #expect(asked)
            #expect(try await b.isSignedIn(key))
            _ = try await b.accessToken(for: key)

            // The provider ends Dave's sessions; A receives the logout token and both instances see him signed out.
            let deliveries = try await op.logOut(user: "dave")
            #expect(deliveries.map(\.uri) == ["\(base)/backchannel-logout"] && deliveries.map(\.status) == [200], "\(deliveries)")
            #expect(try await !a.isSignedIn(key))
            #expect(try await !b.isSignedIn(key))
            let error = try await #require(throws: SessionError.self) { try await b.accessToken(for: key) }
            #expect(error.code == .notSignedIn)

            // He signs in again (the provider asks: its session ended) and signs out on B: B revokes and forgets,
            // and sends the browser to the provider, which ends its session and comes back to A with the state.
            let (again, askedAgain) = try await signIn(a, op, cookies: cookies, user: "dave")
            #expect(askedAgain, "the provider's session ended with the logout")
            let (endSession, pending) = try redirect(await b.signOut(again, returnTo: "/bye"))
            let signOutCookie = try #require(pending)
            #expect(endSession.absoluteString.hasPrefix(op.endSessionEndpoint.absoluteString) && endSession.query?.contains("id_token_hint=") == true)
            #expect(try await !a.isSignedIn(again), "signed out here before the browser leaves")
            let back = try await op.endSession(endSession, cookies: cookies)
            #expect(back.absoluteString.hasPrefix("\(base)/signed-out?"), "\(back)")
            let forged = a.finishSignOut("logout", query: "state=forged", cookies: [signOutCookie.0: signOutCookie.1])
            #expect(forged.status == 400)
            let done = a.finishSignOut("logout", query: back.query, cookies: [signOutCookie.0: signOutCookie.1])
            #expect(done.status == 303 && done.headers.contains { $0 == ("Location", "/bye") }, "\(done.body)")
            let (_, askedThird) = try await signIn(a, op, cookies: cookies, user: "dave")
            #expect(askedThird, "after the sign-out the provider asks for credentials again")

            // The provider told A about the second session's end too; A found it gone already and answered 200.
            let stats = try await op.stats()
            #expect(stats.backchannel.filter { $0.uri == "\(base)/backchannel-logout" }.map(\.status) == [200, 200])
        }
    }
}

/// The PostgreSQL pieces of logout on their own: sessions found by the provider's sid and sub, replays across instances.
@Suite(.enabled(if: TestPostgres.shouldRun, TestPostgres.skipReason))
struct PostgresLogoutTests {
    private func session(_ account: String, sid: String?, sub: String) -> StoredSession {
        var session = pgSampleSession(account: account)
        session.key = SessionKey(providerID: "op", account: account)
        session.providerSession = ProviderSession(issuer: "https://op.example.com", subject: sub, sessionID: sid)
        return session
    }

    @Test func sessionsAreFoundByTheirProviderSession() async throws {
        let postgres = try TestPostgres.require()
        let table = TestPostgres.freshTable()
        try await postgres.withStore(table: table) { store in
            try await store.save(session("a", sid: "sid-1", sub: "alice"))
            try await store.save(session("b", sid: "sid-2", sub: "alice"))
            try await store.save(session("c", sid: "sid-3", sub: "bob"))
            try await store.save(pgSampleSession(account: "old"))
            let issuer = "https://op.example.com"
            #expect(
                try await store.keys(of: "op", matching: ProviderSession.Match(issuer: issuer, subject: nil, sessionID: "sid-2")!).map(\.account) == [
                    "b"
                ])
            #expect(
                try await store.keys(of: "op", matching: ProviderSession.Match(issuer: issuer, subject: "alice", sessionID: nil)!).map(\.account) == [
                    "a", "b",
                ])
            #expect(try await store.keys(of: "op", matching: ProviderSession.Match(issuer: issuer, subject: "bob", sessionID: "sid-1")!).isEmpty)
            #expect(
                try await store.keys(
                    of: "op", matching: ProviderSession.Match(issuer: "https://other.example.com", subject: "alice", sessionID: nil)!
                ).isEmpty)
            // Who signed in is kept as a digest beside the sealed row, never in the clear.
            let rows = try await postgres.admin("SELECT provider_sid, provider_sub FROM \(table) WHERE account = 'a'")
            let (sid, sub) = try #require(rows.first).decode((String, String).self)
            #expect(sid.count == 64 && sub.count == 64 && !sid.contains("sid-1") && !sub.contains("alice"))
        }
    }

    /// A table an earlier version made (without the provider session columns) gains them, and their indexes,
    /// at the next migrate; a second migrate changes nothing.
    @Test func anEarlierTableIsUpgraded() async throws {
        let postgres = try TestPostgres.require()
        let table = TestPostgres.freshTable()
        _ = try await postgres.admin(
            "CREATE TABLE \(table) (provider_id text NOT NULL, account text NOT NULL, key_id text NOT NULL, sealed bytea NOT NULL, received_key_id text, received bytea, received_pid integer, updated_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (provider_id, account))"
        )
        try await postgres.withStore(table: table) { store in
            try await store.migrate()
            try await store.save(session("a", sid: "sid-1", sub: "alice"))
            #expect(
                try await store.keys(of: "op", matching: ProviderSession.Match(issuer: "https://op.example.com", subject: nil, sessionID: "sid-1")!)
                    .map(\.account) == ["a"])
        }
        let indexes = try await postgres.admin("SELECT indexname FROM pg_indexes WHERE tablename = '\(table)' ORDER BY indexname")
        #expect(try indexes.map { try $0.decode(String.self) } == ["\(table)_pkey", "\(table)_sid", "\(table)_sub"])
    }

    @Test func aReplayIsRefusedByEveryInstance() async throws {
        let postgres = try TestPostgres.require()
        let table = "replays_" + TestPostgres.freshTable().suffix(16)
        try await postgres.withStore(table: TestPostgres.freshTable()) { first in
            try await postgres.withStore(table: TestPostgres.freshTable()) { second in
                let one = try PostgresReplayRegistry(store: first, table: table)
                let two = try PostgresReplayRegistry(store: second, table: table)
                try await one.migrate()
                try await two.migrate()
                let later = Date().addingTimeInterval(300)
                #expect(try await one.firstUse(of: "logout https://op jti-1", until: later))
                #expect(try await !two.firstUse(of: "logout https://op jti-1", until: later))
                #expect(try await !one.firstUse(of: "logout https://op jti-1", until: later))
                // An identifier whose time has passed may be recorded again.
                #expect(try await two.firstUse(of: "logout https://op jti-2", until: Date().addingTimeInterval(-1)))
                #expect(try await one.firstUse(of: "logout https://op jti-2", until: later))
            }
        }
        #expect(throws: TokenStoreError.self) {
            try PostgresReplayRegistry(
                store: try PostgresTokenStore(configuration: postgres.configuration, keyring: SessionKeyring(current: TestPostgres.firstKey)),
                table: "bad name")
        }
    }
}
