import Foundation
import OAuthFlowTestSupport
import Testing

import OAuthFlow

/// The device grant as providers that do not take RFC 8628 as written document it (the descriptor's `device`),
/// replayed against stand-ins that answer only the request and poll shapes their provider's pages give.
@Suite struct DeviceVariantTests {
    /// One provider's documented device requests: what the request and each poll must carry, exactly.
    struct Variant: CustomTestStringConvertible, Sendable {
        var id: String
        var variables: [String: String] = [:]
        /// The device authorization request's form, the client's id included.
        var request: [String: String]
        /// Each poll's form, the client's id included.
        var poll: [String: String]
        var testDescription: String { id }
    }

    static let answer =
        #"{"device_code":"dc-7","user_code":"AAYJHL","verification_uri":"https://example.com/activate","expires_in":600,"interval":5}"#

    static let variants = [
        // https://developer.amazon.com/docs/login-with-amazon/retrieve-code-other-platforms-cbl-docs.html and
        // retrieve-token-other-platforms-cbl-docs.html
        Variant(
            id: "amazon", request: ["response_type": "device_code", "client_id": "tv", "scope": "profile"],
            poll: ["grant_type": "device_code", "device_code": "dc-7", "user_code": "AAYJHL", "client_id": "tv"]),
        // Salesforce Help, "OAuth 2.0 Device Flow for IoT Integration"
        Variant(
            id: "salesforce", request: ["response_type": "device_code", "client_id": "tv", "scope": "openid profile email refresh_token"],
            poll: ["grant_type": "device", "code": "dc-7", "client_id": "tv"]),
        // https://dev.twitch.tv/docs/authentication/getting-tokens-oauth/ ("Device code grant flow")
        Variant(
            id: "twitch", request: ["client_id": "tv", "client_secret": "s", "scopes": "openid user:read:email"],
            poll: [
                "grant_type": "urn:ietf:params:oauth:grant-type:device_code", "device_code": "dc-7", "scopes": "openid user:read:email",
                "client_id": "tv", "client_secret": "s",
            ]),
    ]

    /// A stand-in for `variant`'s provider: 400 to any request or poll that is not the documented one, one
    /// `authorization_pending`, then tokens.
    static func standIn(_ variant: Variant, device: URL, requests: Locked<[[String: String]]>) -> ScriptedTransport {
        ScriptedTransport { request, _ in
            let form = Dictionary(FormEncoding.decode(String(decoding: request.body ?? Data(), as: UTF8.self))) { first, _ in first }
            requests.withLock { $0.append(form) }
            func json(_ status: Int, _ body: String) -> TransportResponse {
                TransportResponse(status: status, headers: ["Content-Type": "application/json"], body: Data(body.utf8))
            }
            // Salesforce's device request and polls go to one endpoint: its request is the one with `response_type`.
            if request.url == device && (form["grant_type"] == nil) {
                return form == variant.request ? json(200, answer) : json(400, #"{"error":"invalid_request"}"#)
            }
            guard form == variant.poll else { return json(400, #"{"error":"invalid_grant"}"#) }
            let polls = requests.current.filter { $0["grant_type"] != nil }.count
            return polls == 1 ? json(400, #"{"error":"authorization_pending"}"#) : tokenResponse("at", refresh: "rt")
        }
    }

    @Test(arguments: variants)
    func aBundledDescriptorSignsInTheWayItsProviderDocuments(_ variant: Variant) async throws {
        let descriptor = try ProviderRegistry.load(includeBundled: true, includeUserDirectory: false).descriptor(named: variant.id)
        let provider = try descriptor.resolve(descriptor.variables.compactMapValues { $0.default == nil ? $0.example : nil })
        let device = try #require(provider.endpoints.deviceAuthorization)
        let requests = Locked<[[String: String]]>([])
        let client = OAuthClient(
            provider: provider,
            configuration: ClientConfiguration(clientID: "tv", redirectURI: nil, clientSecret: variant.request["client_secret"].map(Secret.init)),
            environment: OAuthEnvironment(transport: Self.standIn(variant, device: device, requests: requests), clock: VirtualTime(Date())))
        let started = try await client.startDeviceAuthorization()
        #expect(started.userCode == "AAYJHL")
        let tokens = try await client.pollDeviceAuthorization(started)
        #expect(tokens.accessToken.value == "at")
        // The request, then a pending poll and the approved one, each as documented.
        #expect(requests.current == [variant.request, variant.poll, variant.poll], "\(requests.current)")
    }

    /// Trakt polls with `code` (and answers `verification_url`); everything else is RFC 8628.
    @Test func aRenamedPollParameterCarriesTheDeviceCode() async throws {
        let provider = try TestDescriptor(
            extra: """
                grant_types: [authorization_code, refresh_token, urn:ietf:params:oauth:grant-type:device_code]
                device:
                  poll_params:
                    code: device_code
                """
        ).with(endpoints: [("device_authorization", "https://auth.example.com/device")]).provider()
        let variant = Variant(
            id: "trakt", request: ["client_id": "tv"],
            poll: ["grant_type": "urn:ietf:params:oauth:grant-type:device_code", "code": "dc-7", "client_id": "tv"])
        let requests = Locked<[[String: String]]>([])
        let client = OAuthClient(
            provider: provider, configuration: ClientConfiguration(clientID: "tv", redirectURI: nil),
            environment: OAuthEnvironment(
                transport: Self.standIn(variant, device: try #require(provider.endpoints.deviceAuthorization), requests: requests),
                clock: VirtualTime(Date())))
        let tokens = try await client.pollDeviceAuthorization(try await client.startDeviceAuthorization())
        #expect(tokens.accessToken.value == "at")
        #expect(requests.current.last == variant.poll)
    }

    @Test(arguments: [
        ("device:\n  poll_params:\n    code: user_code\n", ["device", "poll_params"]),
        ("device:\n  poll_params:\n    client_id: device_code\n", ["device", "poll_params", "client_id"]),
        ("device:\n  extra_params:\n    scope: x\n", ["device", "extra_params", "scope"]),
        ("device:\n  scope_parameter: client_secret\n", ["device", "scope_parameter"]),
        ("device:\n  grant_type: \" \"\n", ["device", "grant_type"]),
    ])
    func aDeviceSettingTheEngineCannotSendIsRefused(_ extra: String, _ keyPath: [String]) throws {
        let descriptor = try TestDescriptor(extra: extra).descriptor()
        #expect(descriptor.refusals.map(\.keyPath) == [keyPath], "\(descriptor.refusals.map(\.message))")
    }
}
