import Foundation
import OAuthFlow
import Testing
@testable import OAuthFlowLoopback

@Suite struct LoopbackReceiverTests {
    let http = DefaultHTTPTransport(timeout: 5)

    private func get(_ receiver: LoopbackReceiver, _ pathAndQuery: String) async throws -> HTTPResponse {
        try await http.send(HTTPRequest(method: "GET", url: try #require(URL(string: "http://127.0.0.1:\(receiver.port)\(pathAndQuery)"))))
    }

    @Test func ephemeralPortOnLoopbackOnly() async throws {
        let receiver = try await LoopbackReceiver.start()
        defer { Task { await receiver.close() } }
        #expect(receiver.port > 0)
        #expect(receiver.redirectURI.absoluteString == "http://127.0.0.1:\(receiver.port)/callback")
        await #expect(throws: LoopbackError.self) { try await LoopbackReceiver.start(host: "0.0.0.0") }
        await #expect(throws: LoopbackError.self) { try await LoopbackReceiver.start(host: "192.168.1.1") }
    }

    @Test func ipv6LoopbackWhenAsked() async throws {
        guard let receiver = try? await LoopbackReceiver.start(host: "[::1]") else { return } // no IPv6 loopback on this machine
        defer { Task { await receiver.close() } }
        #expect(receiver.redirectURI.absoluteString == "http://[::1]:\(receiver.port)/callback")
    }

    @Test func otherPathsGet404AndDoNotEndTheWait() async throws {
        let receiver = try await LoopbackReceiver.start()
        defer { Task { await receiver.close() } }
        async let waiting: Void = receiver.waitForCallback(timeout: .seconds(10)) { request in
            LoopbackResponse(status: 200, html: "done \(request.url.query ?? "")", finishes: true)
        }
        let favicon = try await get(receiver, "/favicon.ico")
        #expect(favicon.status == 404)
        let callback = try await get(receiver, "/callback?code=abc&state=xyz")
        #expect(callback.status == 200)
        #expect(String(decoding: callback.body, as: UTF8.self) == "done code=abc&state=xyz")
        #expect(callback.header("Referrer-Policy") == "no-referrer")
        #expect(callback.header("Cache-Control") == "no-store")
        try await waiting
        let late = try await get(receiver, "/callback?code=again")
        #expect(late.status == 410)
    }

    @Test func rejectedCallbackKeepsWaitingForTheRealOne() async throws {
        let receiver = try await LoopbackReceiver.start()
        defer { Task { await receiver.close() } }
        async let waiting: Void = receiver.waitForCallback(timeout: .seconds(10)) { request in
            request.url.query?.contains("state=good") == true
                ? LoopbackResponse(status: 200, html: "ok", finishes: true)
                : LoopbackResponse(status: 400, html: "forged", finishes: false)
        }
        #expect(try await get(receiver, "/callback?code=x&state=forged").status == 400)
        #expect(try await get(receiver, "/callback?code=y&state=good").status == 200)
        try await waiting
    }

    @Test func formPostBodyReachesTheHandler() async throws {
        let receiver = try await LoopbackReceiver.start(path: "/cb")
        defer { Task { await receiver.close() } }
        async let waiting: Void = receiver.waitForCallback(timeout: .seconds(10)) { request in
            LoopbackResponse(status: 200, html: "\(request.method) \(String(decoding: request.body, as: UTF8.self))", finishes: true)
        }
        let response = try await http.send(HTTPRequest(
            method: "POST", url: receiver.redirectURI, headers: ["Content-Type": "application/x-www-form-urlencoded"],
            body: Data("code=abc&state=s".utf8)))
        #expect(String(decoding: response.body, as: UTF8.self) == "POST code=abc&state=s")
        try await waiting
    }

    @Test func timesOut() async throws {
        let receiver = try await LoopbackReceiver.start()
        defer { Task { await receiver.close() } }
        let error = try await #require(throws: LoopbackError.self) {
            try await receiver.waitForCallback(timeout: .milliseconds(200)) { _ in LoopbackResponse(status: 200, html: "", finishes: true) }
        }
        #expect(error.code == .timedOut)
    }

    @Test func canBeCancelled() async throws {
        let receiver = try await LoopbackReceiver.start()
        defer { Task { await receiver.close() } }
        let task = Task {
            try await receiver.waitForCallback(timeout: .seconds(30)) { _ in LoopbackResponse(status: 200, html: "", finishes: true) }
        }
        try await Task.sleep(for: .milliseconds(100))
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
    }

    @Test func fixedPortThatIsTakenIsAClearError() async throws {
        let first = try await LoopbackReceiver.start()
        defer { Task { await first.close() } }
        let error = try await #require(throws: LoopbackError.self) { try await LoopbackReceiver.start(port: first.port) }
        #expect(error.code == .portInUse)
        #expect(error.message.contains("port \(first.port) on 127.0.0.1 is already in use"))
    }

    @Test func pagesEscapeTheirText() {
        #expect(LoopbackPages.page(title: "<b>", message: "a & \"b\"").contains("&lt;b&gt;"))
        #expect(LoopbackPages.page(title: "t", message: "a & \"b\"").contains("a &amp; &quot;b&quot;"))
    }
}
