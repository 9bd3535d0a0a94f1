import Foundation
import OAuthFlowPostgres
import OAuthFlowTestSupport
import Testing

@testable import OAuthFlow

/// A DPoP-bound session shared through PostgreSQL: signed in on one instance, used and refreshed from another
/// that shares only the database, against the idpyoidc PAR and DPoP server and its proof-checking resource.
@Suite(.enabled(if: TestPostgres.shouldRun && TestPARServer.shouldRun, "needs PostgreSQL and the PAR server: run `bash scripts/test.sh`"))
struct PostgresDPoPTests {
    @Test func aDPoPKeyKeptInPostgreSQLWorksFromEveryInstance() async throws {
        let postgres = try TestPostgres.require()
        let server = try TestPARServer.require()
        let table = TestPostgres.freshTable()
        let registered = try server.client("public")
        let provider = try await server.descriptor(id: "par-pg", security: ["dpop: required"]).provider().discovered(with: DiscoveryClient())
        let configuration = ClientConfiguration(
            clientID: registered.clientID, redirectURI: try #require(URL(string: "http://127.0.0.1:9/callback")) as URL, authMethod: nil)

        // Instance A signs in: the browser's part is one GET, which the server answers with the callback.
        let first = OAuthClient(provider: provider, configuration: configuration)
        let pending = try await first.startAuthorization()
        let answer = try await DefaultHTTPTransport(timeout: 10).send(TransportRequest(method: .get, url: pending.url))
        let callback = try #require(answer.header("location").flatMap(URL.init(string:)), "HTTP \(answer.status)")
        let tokens = try await first.finishSignIn(.callback(callback), pending: pending).tokens
        #expect(tokens.isDPoPBound)
        let key = SessionKey(providerID: provider.id, account: "shared")
        let session = StoredSession(
            key: key, variables: [:], clientID: registered.clientID, redirectURI: configuration.redirectURI, tokens: tokens, updatedAt: Date())
        try await postgres.withStore(table: table) { store in try await store.save(session) }

        // The private key is in the row sealed, like the tokens.
        let rows = try await postgres.admin("SELECT encode(sealed, 'escape') FROM \(table)")
        let sealed = try #require(rows.first).decode(String.self)
        #expect(!sealed.contains("PRIVATE KEY") && !sealed.contains(tokens.accessToken.value))

        // Instance B, its own pool and client, calls the resource and refreshes with the same key.
        try await postgres.withStore(table: table, migrate: false) { store in
            let loaded = try #require(try await store.load(key))
            #expect(loaded.tokens.proofKey == tokens.proofKey)
            let manager = TokenManager(client: OAuthClient(provider: provider, configuration: configuration), store: store, key: key)
            let hello = try await manager.perform(TransportRequest(method: .get, url: server.resource("hello")))
            #expect(hello.status == 200, "\(String(decoding: hello.body, as: UTF8.self))")
            let refreshed = try await manager.refresh()
            #expect(refreshed.tokens.proofKey == tokens.proofKey && refreshed.tokens.accessToken != tokens.accessToken)
            #expect(try await manager.perform(TransportRequest(method: .get, url: server.resource("hello"))).status == 200)
        }
    }
}
