import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import OAuthFlow
import OAuthFlowHummingbird
import OAuthFlowTesting
import OAuthFlowWeb
import Testing

/// JWT-secured responses (JARM) through the Hummingbird routes, against the simulated provider: the `response` JWT
/// arrives in the callback's query (`query.jwt`) or in a POST body (`form_post.jwt`), and its `state` finds the
/// pending sign-in's cookie.
@Suite struct WebSignedResponseTests {
    static let origin = URL(string: "https://app.example.com")!

    final class SignIns: @unchecked Sendable {
        private let lock = NSLock()
        private var results: [WebSignInResult] = []
        var all: [WebSignInResult] { lock.withLock { results } }
        func append(_ result: WebSignInResult) { lock.withLock { results.append(result) } }
    }

    /// Signs in through the routes with the provider answering in `mode`; returns the callback's status and what was signed in.
    @available(macOS 14, iOS 17, tvOS 17, *)
    func signIn(_ mode: ProviderDescriptor.ResponseMode, tamper: Bool = false) async throws -> (HTTPResponse.Status, [WebSignInResult]) {
        let simulated = try OAuthFlowTesting.SimulatedProvider()
        await simulated.register(SimulatedClient.public(id: "web-app", redirectURIs: [Self.origin.appendingPathComponent("auth/simulated/callback")]))
        var options = OAuthFlowTesting.SimulatedProvider.DescriptorOptions()
        options.responseMode = mode
        let web = try WebSignIn(
            providers: [(try simulated.provider(options), ClientSettings(clientID: "web-app"))], origin: Self.origin,
            keyring: SessionKeyring(current: WebSignInTests.keyA), environment: simulated.environment)
        let signIns = SignIns()
        let router = Router()
        router.addSignInRoutes(web) { result, _, _ in
            signIns.append(result)
            return Response(status: .seeOther, headers: [.location: result.returnTo])
        }
        let status = try await Application(router: router).test(.router) { client -> HTTPResponse.Status in
            let started = try await WebSignInTests().start(client, "simulated")
            let cookie = "\(started.cookieName)=\(started.cookieValue)"
            let url = try #require(URL(string: started.location))
            if mode.isFormPost {
                #expect(started.setCookie.contains("SameSite=None"), "the cookie survives the provider's cross-site POST")
                var (_, body) = try await simulated.approveWithPost(url)
                if tamper { body += Data("&code=injected".utf8) }
                return try await client.execute(
                    uri: "/auth/simulated/callback", method: .post,
                    headers: [.contentType: "application/x-www-form-urlencoded", .cookie: cookie], body: ByteBuffer(data: body)
                ) { $0.status }
            } else {
                var query = try #require(try await simulated.approve(url).query)
                if tamper { query += "&code=injected" }
                return try await WebSignInTests().callback(client, "simulated", query: query, cookie: cookie).0
            }
        }
        return (status, signIns.all)
    }

    @available(macOS 14, iOS 17, tvOS 17, *)
    @Test(arguments: [ProviderDescriptor.ResponseMode.queryJWT, .formPostJWT])
    func aSignedResponseSignsInThroughTheRoutes(mode: ProviderDescriptor.ResponseMode) async throws {
        let (status, results) = try await signIn(mode)
        #expect(status == .seeOther)
        #expect(results.first?.profile.subject == "user-1")
    }

    @available(macOS 14, iOS 17, tvOS 17, *)
    @Test(arguments: [ProviderDescriptor.ResponseMode.queryJWT, .formPostJWT])
    func aSignedResponseWithAPlainCodeBesideItIsRefused(mode: ProviderDescriptor.ResponseMode) async throws {
        let (status, results) = try await signIn(mode, tamper: true)
        #expect(status != .seeOther)
        #expect(results.isEmpty)
    }
}
