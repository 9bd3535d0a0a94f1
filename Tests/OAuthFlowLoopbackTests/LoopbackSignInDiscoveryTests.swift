import Foundation
import OAuthFlow
import OAuthFlowTestSupport
import OAuthFlowTesting
import Testing
@testable import OAuthFlowLoopback

/// A loopback sign-in a host makes itself (not through `OAuth`) still makes its clients through a front door: every
/// sign-in it runs to one provider reads the provider's discovery document once, from one cache.
@Suite struct LoopbackSignInDiscoveryTests {
    @Test func twoSignInsToOneProviderReadItsMetadataOnce() async throws {
        let metadata = #"{"issuer":"https://auth.example.com","authorization_endpoint":"https://auth.example.com/authorize","token_endpoint":"https://auth.example.com/token"}"#
        let transport = ScriptedTransport { request, _ in
            if request.url.path.hasPrefix("/.well-known") {
                return TransportResponse(status: 200, headers: ["Content-Type": "application/json"], body: Data(metadata.utf8))
            }
            return tokenResponse("fresh", refresh: "refresh-2")
        }
        let provider = try TestDescriptor(endpoints: [], extra: "discovery:\n  mode: rfc8414\n").provider()
        let signIn = LoopbackSignIn(store: InMemoryTokenStore(), browser: ApprovingBrowser(), environment: OAuthEnvironment(transport: transport))
        _ = try await signIn.signIn(to: provider, settings: ClientSettings(clientID: "client"))
        _ = try await signIn.signIn(to: provider, settings: ClientSettings(clientID: "client"), account: "second")
        #expect(transport.count("/token") == 2)
        #expect(transport.count("/.well-known/oauth-authorization-server") == 1, "the second sign-in reads the cached metadata")
    }
}
