import Foundation
import OAuthFlow
import OAuthFlowTestSupport
import Testing

import OAuthFlowLoopback

/// A redirect URI that names `localhost` (`redirect.loopback.write_localhost`, for providers such as Amazon Cognito
/// that take no loopback IP literal): the receiver listens on 127.0.0.1 and ::1 on one port, so the callback
/// arrives whichever address the browser resolves the name to. Real listeners on the machine's loopback.
@Suite struct LocalhostRedirectTests {
    /// Generous: the requests below are all answered, and the whole suite shares two cores (5 s did not always hold).
    let http = DefaultHTTPTransport(timeout: 60)

    /// Whether this machine has an IPv6 loopback to listen on.
    static func hasIPv6Loopback() async -> Bool {
        guard let probe = try? await LoopbackReceiver.start(host: "[::1]") else { return false }
        await probe.close()
        return true
    }

    func get(_ host: String, _ port: Int, _ pathAndQuery: String) async throws -> TransportResponse {
        try await http.send(TransportRequest(method: .get, url: try #require(URL(string: "http://\(host):\(port)\(pathAndQuery)"))))
    }

    @Test func theCallbackArrivesOnEitherLoopbackAddress() async throws {
        let receiver = try await LoopbackReceiver.start(host: "localhost")
        defer { Task { await receiver.close() } }
        #expect(receiver.redirectURI.absoluteString == "http://localhost:\(receiver.port)/callback")
        let ipv6 = await Self.hasIPv6Loopback()
        async let waiting: Void = receiver.waitForCallback(timeout: .seconds(120)) { request in
            // The IPv4 request is answered and the wait goes on; the last request finishes it.
            let last = !ipv6 || request.url.query == "code=six"
            return LoopbackResponse(status: 200, html: "got \(request.url.query ?? "")", finishes: last)
        }
        let four = try await get("127.0.0.1", receiver.port, "/callback?code=four")
        #expect(four.status == 200)
        #expect(String(decoding: four.body, as: UTF8.self) == "got code=four")
        if ipv6 {
            let six = try await get("[::1]", receiver.port, "/callback?code=six")
            #expect(six.status == 200)
            #expect(String(decoding: six.body, as: UTF8.self) == "got code=six")
        }
        try await waiting
    }

    /// A fixed port another program holds on ::1 is refused: that program would get the callbacks a browser
    /// sends there.
    @Test func aFixedPortTakenOnIPv6IsRefused() async throws {
        guard await Self.hasIPv6Loopback() else { return }  // no IPv6 loopback: 127.0.0.1 alone is listened on
        // A port below Linux's ephemeral range (32768–60999), free on both addresses: the rest of the run's outgoing
        // connections take ephemeral ports as their own, and one took this test's port on 127.0.0.1 in the moment
        // it was let go, which failed the test for the wrong reason.
        // The port is taken on ::1 in the same try: once, in a full run, it was no longer free there a moment after the
        // probe let it go (another test's listener, or the probe's close not yet done), so a taken port is another try.
        var held: LoopbackReceiver?
        for _ in 0..<50 where held == nil {
            let candidate = Int.random(in: 20_000..<30_000)
            guard let probe = try? await LoopbackReceiver.start(host: "localhost", port: candidate) else { continue }
            await probe.close()
            held = try? await LoopbackReceiver.start(host: "[::1]", port: candidate)
        }
        let other = try #require(held, "a port below the ephemeral range, free on both addresses, then held on ::1")
        defer { Task { await other.close() } }
        await #expect(throws: LoopbackError.self) {
            let receiver = try await LoopbackReceiver.start(host: "localhost", port: other.port)
            await receiver.close()
        }
        // Its IPv4 half was let go again: the port is free on 127.0.0.1 (within a few seconds on a loaded machine,
        // where the full run once found it still held right after the refusal; a listener kept open fails this).
        var alone: LoopbackReceiver?
        for _ in 0..<50 where alone == nil {
            alone = try? await LoopbackReceiver.start(host: "127.0.0.1", port: other.port)
            if alone == nil { try await Task.sleep(for: .milliseconds(100)) }
        }
        let freed = try #require(alone, "the refused start let 127.0.0.1:\(other.port) go")
        await freed.close()
    }

    /// The descriptor's setting reaches the redirect URI a sign-in sends, and the listener a sign-in starts.
    @Test func aDescriptorThatKeepsLocalhostIsListenedForOnBoth() async throws {
        let provider = try TestDescriptor(extra: "redirect:\n  loopback:\n    host: localhost\n    write_localhost: true\n").provider()
        #expect(provider.loopback.host == "localhost")
        #expect(provider.loopback.uri(port: 8765)?.absoluteString == "http://localhost:8765/callback")
        let receiver = try await LoopbackReceiver.start(host: provider.loopback.host, path: provider.loopback.path)
        defer { Task { await receiver.close() } }
        #expect(receiver.redirectURI.host == "localhost")
        // Without the setting, `localhost` is still bound and written as 127.0.0.1 (RFC 8252 §8.3).
        let rewritten = try TestDescriptor(extra: "redirect:\n  loopback:\n    host: localhost\n").provider()
        #expect(rewritten.loopback.uri(port: 8765)?.absoluteString == "http://127.0.0.1:8765/callback")
    }

    @Test func keepingLocalhostOnAnotherHostIsRefused() throws {
        let descriptor = try TestDescriptor(extra: "redirect:\n  loopback:\n    host: 127.0.0.1\n    write_localhost: true\n").descriptor()
        #expect(descriptor.refusals.map(\.keyPath) == [["redirect", "loopback", "write_localhost"]])
    }
}
