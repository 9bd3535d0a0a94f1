import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import JWTKit
import NIOCore
import OAuthFlowHummingbird
import OAuthFlowWeb
import Testing
import OAuthFlowTestSupport
import OAuthFlow

/// The web routes against Django OAuth Toolkit: the scripted agent plays the browser at DOT
/// (login and consent forms), the routes run in process.
@Suite(.serialized, .enabled(if: TestAuthorizationServer.shouldRun, TestAuthorizationServer.skipReason))
struct WebSignInEndToEndTests {
    typealias Server = TestAuthorizationServer

    func web(_ server: Server) throws -> WebSignIn {
        let port = try #require(ProcessInfo.processInfo.environment["OAUTHFLOW_TEST_WEB_PORT"], "OAUTHFLOW_TEST_WEB_PORT is not set (run `bash scripts/test.sh`)")
        let registry = try ProviderRegistry.load(directories: [repositoryRoot.appendingPathComponent("Tests/OAuthFlowTests/Fixtures/providers")],
                                                 includeBundled: false)
        return try WebSignIn(registry: registry, enable: [
            "django": .init(clientID: "oauthflow-web", secret: Secret("web-test-secret-0123456789abcdef"), variables: ["port": server.port]),
        ], origin: URL(string: "http://localhost:\(port)")!, keyring: SessionKeyring(current: WebSignInTests.keyA))
    }

    @available(macOS 14, iOS 17, tvOS 17, *)
    @Test func aliceSignsInThroughTheRoutes() async throws {
        let server = try Server.require()
        let web = try web(server)
        let log = WebSignInTests.SignInLog()
        let router = Router()
        router.addSignInRoutes(web) { result, _, _ in
            log.append(result)
            return Response(status: .seeOther, headers: [.location: result.returnTo])
        }
        try await Application(router: router).test(.router) { client in
            let started = try await WebSignInTests().start(client, "django", returnTo: "/after")
            let redirect = try await server.signIn(try #require(URL(string: started.location)))
            #expect(redirect.absoluteString.hasPrefix("http://localhost:"), "\(redirect)")
            let query = try #require(URLComponents(url: redirect, resolvingAgainstBaseURL: false)?.percentEncodedQuery)
            let (status, page, headers) = try await WebSignInTests().callback(client, "django", query: query,
                                                                             cookie: "\(started.cookieName)=\(started.cookieValue)")
            #expect(status == .seeOther, "\(page)")
            #expect(headers[.location] == "/after")
            let result = try #require(log.all.first)
            #expect(result.claims["email"]?.stringValue == "alice@example.com")
            #expect(result.idToken?.subject == result.subject && result.subject != nil)
            #expect(result.resources.map(\.title) == ["Userinfo"])
            #expect(result.profile.name == "Alice Liddell" && result.profile.email == "alice@example.com", "\(result.profile)")

            // Declined consent ends on the error page.
            let declined = try await WebSignInTests().start(client, "django")
            let refusal = try await server.signIn(try #require(URL(string: declined.location)), deny: true)
            let refusalQuery = try #require(URLComponents(url: refusal, resolvingAgainstBaseURL: false)?.percentEncodedQuery)
            let (_, deniedPage, _) = try await WebSignInTests().callback(client, "django", query: refusalQuery,
                                                                        cookie: "\(declined.cookieName)=\(declined.cookieValue)")
            #expect(WebSignInTests().code(in: deniedPage) == "denied", "\(deniedPage)")
        }
    }
}

/// The web routes against the idpyoidc PAR and DPoP server: the start route pushes the request, the
/// browser is sent with only `client_id` and `request_uri`, and the tokens come back DPoP-bound.
@Suite(.enabled(if: TestPARServer.shouldRun, TestPARServer.skipReason))
struct PushedWebSignInEndToEndTests {
    @available(macOS 14, iOS 17, tvOS 17, *)
    @Test func theStartRoutePushesAndTheCallbackGetsBoundTokens() async throws {
        let server = try TestPARServer.require()
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        _ = try directory.write("par.yaml", server.descriptor(id: "par", pushed: "always", security: ["dpop: required"]).yaml)
        let registry = try ProviderRegistry.load(directories: [directory.url], includeBundled: false)
        let client = try server.client("confidential")
        let web = try WebSignIn(
            registry: registry,
            enable: ["par": .init(clientID: client.clientID, secret: client.clientSecret.map(Secret.init))],
            origin: URL(string: "http://localhost:8080")!, keyring: SessionKeyring(current: WebSignInTests.keyA))
        let log = WebSignInTests.SignInLog()
        let router = Router()
        router.addSignInRoutes(web) { result, _, _ in
            log.append(result)
            return Response(status: .seeOther, headers: [.location: result.returnTo])
        }
        try await Application(router: router).test(.router) { app in
            // The pushed request's URL has no `state` to read (WebSignInTests.start reads it): the route's answer as it is.
            let (locationText, setCookie) = try await app.execute(uri: "/auth/par?return_to=%2Fafter", method: .get) { response in
                #expect(response.status == .found)
                return (try #require(response.headers[.location]), try #require(response.headers[.setCookie]))
            }
            let cookie = try #require(setCookie.split(separator: ";").first).trimmingCharacters(in: .whitespaces)
            let location = try #require(URL(string: locationText))
            let items = try #require(URLComponents(url: location, resolvingAgainstBaseURL: false)?.queryItems)
            #expect(Set(items.map(\.name)) == ["client_id", "request_uri"], "\(location)")
            // The server signs the user in at once and redirects to the callback route.
            let answer = try await DefaultHTTPTransport(timeout: 10).send(TransportRequest(method: .get, url: location))
            let callback = try #require(answer.header("location").flatMap(URL.init(string:)), "HTTP \(answer.status)")
            let query = try #require(URLComponents(url: callback, resolvingAgainstBaseURL: false)?.percentEncodedQuery)
            let (status, page, headers) = try await WebSignInTests().callback(
                app, "par", query: query, cookie: cookie)
            #expect(status == .seeOther, "\(page)")
            #expect(headers[.location] == "/after")
            let result = try #require(log.all.first)
            #expect(result.tokens.isDPoPBound && result.tokens.tokenType == "dpop")
            let hello = try await result.tokens.send(TransportRequest(method: .get, url: server.resource("hello")))
            #expect(hello.status == 200, "\(String(decoding: hello.body, as: UTF8.self))")
        }
    }
}
