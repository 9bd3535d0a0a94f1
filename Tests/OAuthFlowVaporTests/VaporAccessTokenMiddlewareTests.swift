import Foundation
import OAuthFlow
import OAuthFlowTestSupport
import OAuthFlowVapor
import Testing
import VaporTesting

/// `AccessTokenMiddleware` in front of Vapor routes, with RFC 9068 access tokens signed by a simulated
/// provider: acceptances with the principal reachable from the request, every kind of refusal with
/// its status and challenge, DPoP proofs checked against the URL the client addressed, and the RFC
/// 9728 metadata route.
@Suite struct VaporAccessTokenMiddlewareTests {
    let provider = SimulatedIdentityProvider(host: "idp.example")
    static let resource = URL(string: "https://api.example.com/v1")!

    func api() throws -> ProtectedResource {
        try ProtectedResource(
            providers: [try provider.apiDescriptor.provider()],
            settings: .init(resource: Self.resource, scopesSupported: ["notes:read", "admin"], resourceName: "Notes"), environment: OAuthEnvironment(transport: provider))
    }

    /// `/notes` needs `notes:read` and answers from `request.accessPrincipal`; `/admin` needs `admin` and
    /// answers from `request.auth`; `/open` is not protected.
    func configure(_ app: Application) throws {
        quiet(app)
        let api = try api()
        app.addProtectedResourceMetadata(api)
        app.grouped(api.middleware(requiring: ["notes:read"])).get("notes") { request -> String in
            let principal = try #require(request.accessPrincipal)
            return "\(principal.subject ?? "-") \(principal.scopes.joined(separator: ",")) \(principal.confirmation?.keyThumbprint ?? "unbound")"
        }
        app.grouped(AccessTokenMiddleware(api, requiring: ["admin"])).get("admin") { request -> String in
            try request.auth.require(ProtectedResource.Principal.self).clientID ?? "-"
        }
        app.get("open") { request in request.accessPrincipal == nil ? "nobody" : "somebody" }
    }

    func token(scopes: [String] = ["notes:read"], more: [String: JSONValue] = [:]) throws -> String {
        try provider.accessToken(audience: Self.resource.absoluteString, scopes: scopes, more: more)
    }

    func challenge(_ response: TestingHTTPResponse) -> String { response.headers["WWW-Authenticate"].joined(separator: " | ") }

    @Test func anAcceptedTokenReachesTheRouteAsTheRequestsPrincipal() async throws {
        let token = try token(scopes: ["notes:read", "admin"])
        try await withApp(configure: configure) { app in
            let tester = try app.testing()
            let notes = try await tester.sendRequest(.GET, "/notes", headers: ["Authorization": "Bearer \(token)"])
            #expect(notes.status == .ok)
            #expect(notes.body.string == "user-42 notes:read,admin unbound")
            let admin = try await tester.sendRequest(.GET, "/admin", headers: ["Authorization": "Bearer \(token)"])
            #expect(admin.status == .ok && admin.body.string == "web-client", "request.auth holds the principal")
            let open = try await tester.sendRequest(.GET, "/open", headers: ["Authorization": "Bearer \(token)"])
            #expect(open.body.string == "nobody", "a route the middleware does not guard has no principal")
        }
    }

    @Test func refusalsCarryTheirStatusAndChallengeAndNoBody() async throws {
        let good = try token()
        let otherAudience = try provider.accessToken(audience: "https://elsewhere.example", scopes: ["notes:read"])
        let stranger = SimulatedIdentityProvider(host: "idp.example")   // the same issuer, another key
        let forged = try stranger.accessToken(audience: Self.resource.absoluteString, scopes: ["notes:read"])
        try await withApp(configure: configure) { app in
            let tester = try app.testing()
            let none = try await tester.sendRequest(.GET, "/notes")
            #expect(none.status == .unauthorized)
            #expect(challenge(none).hasPrefix("Bearer ") && !challenge(none).contains("error="), "\(challenge(none))")
            #expect(challenge(none).contains(#"resource_metadata="https://api.example.com/.well-known/oauth-protected-resource/v1""#))
            #expect(none.headers.first(name: .cacheControl) == "no-store")
            #expect(none.body.readableBytes == 0)

            let basic = try await tester.sendRequest(.GET, "/notes", headers: ["Authorization": "Basic YTpi"])
            #expect(basic.status == .unauthorized && !challenge(basic).contains("error="))

            var two = HTTPHeaders()
            two.add(name: .authorization, value: "Bearer \(good)")
            two.add(name: .authorization, value: "Bearer \(good)")
            let twice = try await tester.sendRequest(.GET, "/notes", headers: two)
            #expect(twice.status == .badRequest && challenge(twice).contains(#"error="invalid_request""#))

            for (name, token) in [("another audience", otherAudience), ("another key", forged), ("not a JWT", "opaque-string")] {
                let refused = try await tester.sendRequest(.GET, "/notes", headers: ["Authorization": "Bearer \(token)"])
                #expect(refused.status == .unauthorized, "\(name)")
                #expect(challenge(refused).contains(#"error="invalid_token""#), "\(name): \(challenge(refused))")
                #expect(!challenge(refused).contains(token), "\(name): the challenge echoes the token")
            }

            let scope = try await tester.sendRequest(.GET, "/admin", headers: ["Authorization": "Bearer \(good)"])
            #expect(scope.status == .forbidden)
            #expect(challenge(scope).contains(#"error="insufficient_scope""#) && challenge(scope).contains(#"scope="admin""#), "\(challenge(scope))")
        }
    }

    /// The proof must name the URL the client addressed: the resource's public origin and the request's
    /// path, not the address the server listens on.
    @Test func aDPoPBoundTokenIsAcceptedOnlyWithAProofOfThePublicURL() async throws {
        let key = try DPoPKey.generate()
        let bound = try token(more: ["cnf": .object(["jkt": .string(key.thumbprint)])])
        try await withApp(configure: configure) { app in
            let tester = try app.testing()
            let proof = try await key.proof(method: .get, url: URL(string: "https://api.example.com/notes?page=2")!, accessToken: Secret(bound))
            let accepted = try await tester.sendRequest(.GET, "/notes?page=2", headers: ["Authorization": "DPoP \(bound)", "DPoP": proof])
            #expect(accepted.status == .ok, "\(challenge(accepted))")
            #expect(accepted.body.string == "user-42 notes:read \(key.thumbprint)")

            let local = try await key.proof(method: .get, url: URL(string: "http://127.0.0.1:8080/notes")!, accessToken: Secret(bound))
            let wrongURL = try await tester.sendRequest(.GET, "/notes", headers: ["Authorization": "DPoP \(bound)", "DPoP": local])
            #expect(wrongURL.status == .unauthorized && challenge(wrongURL).contains(#"error="invalid_dpop_proof""#), "\(challenge(wrongURL))")

            let post = try await key.proof(method: .post, url: URL(string: "https://api.example.com/notes")!, accessToken: Secret(bound))
            let wrongMethod = try await tester.sendRequest(.GET, "/notes", headers: ["Authorization": "DPoP \(bound)", "DPoP": post])
            #expect(wrongMethod.status == .unauthorized)

            let asBearer = try await tester.sendRequest(.GET, "/notes", headers: ["Authorization": "Bearer \(bound)"])
            #expect(asBearer.status == .unauthorized, "a bound token without its proof")
        }
    }

    @Test func theMetadataDocumentIsServedWhereRFC9728PutsIt() async throws {
        try await withApp(configure: configure) { app in
            let response = try await app.testing().sendRequest(.GET, "/.well-known/oauth-protected-resource/v1")
            #expect(response.status == .ok)
            #expect(response.headers.first(name: .contentType) == "application/json")
            let document = try #require(try JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)) as? [String: Any])
            #expect(document["resource"] as? String == Self.resource.absoluteString)
            #expect(document["authorization_servers"] as? [String] == ["https://idp.example"])
            #expect(document["scopes_supported"] as? [String] == ["notes:read", "admin"])
            #expect(document["resource_name"] as? String == "Notes")
        }
    }
}
