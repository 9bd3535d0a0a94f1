import Foundation
import OAuthFlowTestSupport
import Testing

import OAuthFlow

/// `token_request.extra_params` on every token request, `token_request.callback_params` copied from the
/// callback into the code exchange, and the refusal of parameters the engine sets itself.
@Suite struct TokenRequestParametersTests {
    final class Recorder: Sendable {
        let bodies = Locked<[[String: String]]>([])
        var transport: ScriptedTransport {
            ScriptedTransport { [bodies] request, _ in
                let form = Dictionary(FormEncoding.decode(String(decoding: request.body ?? Data(), as: UTF8.self))) { first, _ in first }
                bodies.withLock { $0.append(form) }
                return tokenResponse("at", refresh: "rt")
            }
        }
    }

    func client(_ tokenRequest: String, _ recorder: Recorder) throws -> OAuthClient {
        let provider = try TestDescriptor(extra: "token_request:\n" + tokenRequest).provider()
        return OAuthClient(
            provider: provider, configuration: ClientConfiguration(clientID: "app", redirectURI: URL(string: "http://127.0.0.1:8080/callback")!),
            environment: OAuthEnvironment(transport: recorder.transport))
    }

    @Test func fixedParametersGoOnTheExchangeAndOnRefreshes() async throws {
        let recorder = Recorder()
        let client = try client("  extra_params:\n    expiring: \"1\"\n", recorder)
        let pending = try await client.startAuthorization()
        let callback = URL(string: "http://127.0.0.1:8080/callback?code=c1&state=\(pending.state.value)")!
        let outcome = try await client.finishSignIn(.callback(callback), pending: pending)
        _ = try await client.refresh(outcome.tokens)
        #expect(recorder.bodies.current.map { $0["expiring"] } == ["1", "1"])
        #expect(recorder.bodies.current.first?["grant_type"] == "authorization_code")
    }

    @Test func callbackParametersAreCopiedIntoTheExchangeOnly() async throws {
        let recorder = Recorder()
        let client = try client("  callback_params: [device_id, state]\n", recorder)
        let pending = try await client.startAuthorization()
        let callback = URL(string: "http://127.0.0.1:8080/callback?code=c1&state=\(pending.state.value)&device_id=dev-42")!
        let outcome = try await client.finishSignIn(.callback(callback), pending: pending)
        #expect(recorder.bodies.current.first?["device_id"] == "dev-42")
        #expect(recorder.bodies.current.first?["state"] == pending.state.value)
        _ = try await client.refresh(outcome.tokens)
        #expect(recorder.bodies.current.last?["device_id"] == nil)
    }

    @Test(arguments: [
        ("  extra_params:\n    grant_type: password\n", ["token_request", "extra_params", "grant_type"]),
        ("  extra_params:\n    client_secret: x\n", ["token_request", "extra_params", "client_secret"]),
        ("  callback_params: [code]\n", ["token_request", "callback_params", "0"]),
        ("  callback_params: [state, iss]\n", ["token_request", "callback_params", "1"]),
    ])
    func aParameterTheEngineSetsIsRefusedAtItsSetting(_ section: String, _ keyPath: [String]) throws {
        let descriptor = try TestDescriptor(extra: "token_request:\n" + section).descriptor()
        #expect(descriptor.refusals.contains { $0.keyPath == keyPath })
    }
}
