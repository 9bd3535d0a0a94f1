import Crypto
import Foundation
import OAuthFlowTestSupport
import Testing

@testable import OAuthFlow

/// `authorization.callback_signature`: the callback's signature is checked with the client secret, after
/// `state` and before the code is spent, against Shopify's documented example; a missing, wrong or
/// unverifiable one is refused and nothing reaches the token endpoint.
@Suite struct CallbackSignatureTests {
    /// Shopify's example callback and its `hmac` for the secret `hush` (the authorization code grant page).
    static let example = [
        ("code", "0907a61c0c8d55e99db179b68161bc00"), ("shop", "some-shop.myshopify.com"), ("state", "0.6784241404160823"),
        ("timestamp", "1337178173"),
    ]
    static let exampleMAC = "700e2dadb827fcc8609e9d5ce208b2e9cdaab9df07390d2cbca10d7c328fc4bf"

    static func client(secret: String?, _ requests: Locked<[TransportRequest]>) throws -> OAuthClient {
        let descriptor = try ProviderRegistry.load(includeBundled: true, includeUserDirectory: false).descriptor(named: "shopify")
        let transport = ScriptedTransport { request, _ in
            requests.withLock { $0.append(request) }
            let answer = #"{"access_token": "shpua_1", "scope": "read_products", "expires_in": 86399, "associated_user_scope": "read_products", "associated_user": {"id": 902541635, "first_name": "John", "last_name": "Smith", "email": "john@example.com", "email_verified": true}}"#
            return TransportResponse(status: 200, headers: ["Content-Type": "application/json"], body: Data(answer.utf8))
        }
        return OAuthClient(
            provider: try descriptor.resolve(["shop": "some-shop"]),
            configuration: ClientConfiguration(
                clientID: "app", redirectURI: URL(string: "http://127.0.0.1:8765/callback")!, clientSecret: secret.map(Secret.init)),
            environment: OAuthEnvironment(transport: transport))
    }

    /// The example's parameters with the pending request's `state`, signed as Shopify signs.
    static func callback(_ pending: PendingAuthorization, mac: String? = nil, secret: String = "hush") -> URL {
        var parameters = example.map { $0.0 == "state" ? ($0.0, pending.state.value) : $0 }
        let message = parameters.sorted { $0.0 < $1.0 }.map { "\($0.0)=\($0.1)" }.joined(separator: "&")
        let computed = HMAC<SHA256>.authenticationCode(for: Data(message.utf8), using: SymmetricKey(data: Data(secret.utf8)))
        if let mac { parameters.append(("hmac", mac)) } else { parameters.append(("hmac", computed.map { String(format: "%02x", $0) }.joined())) }
        var components = URLComponents(string: "http://127.0.0.1:8765/callback")!
        components.percentEncodedQuery = FormEncoding.encode(parameters)
        return components.url!
    }

    @Test func shopifysDocumentedExampleVerifies() throws {
        let requests = Locked<[TransportRequest]>([])
        let client = try Self.client(secret: "hush", requests)
        let callback = try AuthorizationCallback(
            url: URL(string: "http://127.0.0.1:8765/callback?" + FormEncoding.encode(Self.example + [("hmac", Self.exampleMAC)]))!,
            expectedRedirectURI: URL(string: "http://127.0.0.1:8765/callback")!)
        let signature = try #require(client.provider.policy.callbackSignature)
        try client.checkSignature(signature, of: callback)
        let tampered = try AuthorizationCallback(
            url: URL(string: "http://127.0.0.1:8765/callback?" + FormEncoding.encode(Self.example.map { $0.0 == "shop" ? ("shop", "evil.myshopify.com") : $0 } + [("hmac", Self.exampleMAC)]))!,
            expectedRedirectURI: URL(string: "http://127.0.0.1:8765/callback")!)
        #expect(throws: FlowError.self) { try client.checkSignature(signature, of: tampered) }
    }

    @Test func aSignedCallbackSignsInAndTheOnlineUserIsTheProfile() async throws {
        let requests = Locked<[TransportRequest]>([])
        let client = try Self.client(secret: "hush", requests)
        let pending = try await client.startAuthorization()
        let outcome = try await client.finishSignIn(.callback(Self.callback(pending)), pending: pending)
        let form = Dictionary(FormEncoding.decode(String(decoding: requests.current.first?.body ?? Data(), as: UTF8.self))) { a, _ in a }
        #expect(form["expiring"] == "1", "the code exchange asks for an expiring offline token")
        let profile = try await client.profile(outcome.tokens, idToken: nil)
        #expect(profile.subject == "902541635" && profile.name == "John Smith" && profile.email == "john@example.com" && profile.emailVerified == true)
    }

    @Test(arguments: [("wrong", "hush"), (nil, "other-secret")] as [(String?, String)])
    func aWrongSignatureIsRefusedBeforeTheExchange(_ mac: String?, _ signer: String) async throws {
        let requests = Locked<[TransportRequest]>([])
        let client = try Self.client(secret: "hush", requests)
        let pending = try await client.startAuthorization()
        let error = await #expect(throws: FlowError.self) {
            _ = try await client.finishSignIn(.callback(Self.callback(pending, mac: mac, secret: signer)), pending: pending)
        }
        #expect(error?.code == .invalidCallback)
        #expect(requests.current.isEmpty, "the code is not spent")
    }

    @Test func anUnsignedCallbackOrAClientWithoutSecretIsRefused() async throws {
        let requests = Locked<[TransportRequest]>([])
        let client = try Self.client(secret: "hush", requests)
        let pending = try await client.startAuthorization()
        var components = URLComponents(string: "http://127.0.0.1:8765/callback")!
        components.percentEncodedQuery = FormEncoding.encode([("code", "c"), ("state", pending.state.value)])
        await #expect(throws: FlowError.self) { _ = try await client.finishSignIn(.callback(components.url!), pending: pending) }
        let secretless = try Self.client(secret: nil, requests)
        let signed = try AuthorizationCallback(
            url: URL(string: "http://127.0.0.1:8765/callback?" + FormEncoding.encode(Self.example + [("hmac", Self.exampleMAC)]))!,
            expectedRedirectURI: URL(string: "http://127.0.0.1:8765/callback")!)
        let signature = try #require(secretless.provider.policy.callbackSignature)
        #expect(throws: FlowError.self) { try secretless.checkSignature(signature, of: signed) }
        #expect(requests.current.isEmpty)
    }

    @Test func aSignatureWithoutASecretMethodIsRefused() throws {
        let descriptor = try TestDescriptor(extra: "client_auth:\n  methods: [none]\nauthorization:\n  callback_signature:\n    parameter: hmac\n")
            .descriptor()
        #expect(descriptor.refusals.contains { $0.keyPath == ["authorization", "callback_signature"] })
    }
}
