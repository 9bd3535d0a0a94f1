import AsyncHTTPClient
import Foundation
import NIOCore
import Testing
import OAuthFlowTestSupport
@testable import OAuthFlow

/// The default transport against servers that drip, flood, lie about sizes or never answer.
@Suite struct TransportTests {
    private func failure(_ script: HostileServer.Script, timeout: TimeInterval = 1.5, limit: Int = 1 << 20)
        async throws -> (TransportError, Duration, HostileServer) {
        let server = try HostileServer(script)
        let transport = DefaultHTTPTransport(timeout: timeout, maximumResponseSize: limit)
        let clock = ContinuousClock()
        let started = clock.now
        let error = try await #require(throws: TransportError.self) {
            try await transport.send(TransportRequest(method: .post, url: server.url, body: Data("grant_type=x".utf8)))
        }
        let elapsed = clock.now - started
        server.stop()
        return (error, elapsed, server)
    }

    /// The library makes each request's span itself: the shared async-http-client has no tracer, so a bootstrapped
    /// global tracer does not add a second span, in a trace of its own, for the same request.
    @Test func theSharedClientMakesNoSpansOfItsOwn() {
        #expect(AsyncHTTPClientTransport.sharedClient.tracer == nil)
    }

    @Test func aDrippingBodyMeetsTheTotalDeadline() async throws {
        let head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n"
        let (error, elapsed, _) = try await failure(.drip(head: head, interval: .milliseconds(100)))
        #expect(error.message.contains("no complete answer within 1.5 s"), "\(error)")
        #expect(error.code == .timedOut)
        #expect(error.url.hasSuffix("/token"))
        // The deadline is 1.5 s; a transport without one would wait for 10,000 s of drip. The bound stands against
        // that hang, not for speed: the whole suite shares two cores, and an await has waited 70 s there.
        #expect(elapsed < .seconds(300))
    }

    @Test func drippingHeadersMeetTheTotalDeadline() async throws {
        let (error, elapsed, _) = try await failure(.drip(head: "HTTP/1.1 200 OK\r\nX-Slow: ", interval: .milliseconds(100)))
        #expect(error.message.contains("no complete answer within"), "\(error)")
        #expect(elapsed < .seconds(300), "the deadline holds (loose: the suite shares two cores; the drip would last 10,000 s)")
    }

    @Test func aSilentServerMeetsTheTotalDeadline() async throws {
        let (error, _, _) = try await failure(.silent)
        #expect(error.message.contains("no complete answer within"), "\(error)")
        #expect(error.code == .timedOut)
    }

    @Test func anEndlessChunkedBodyIsCutAtTheCap() async throws {
        let head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
        let chunk = "4000\r\n" + String(repeating: "a", count: 0x4000) + "\r\n"
        let (error, _, _) = try await failure(.endless(head: head, chunk: chunk), timeout: 30, limit: 64 * 1024)
        #expect(error.message.contains("larger than the 65536 bytes accepted"), "\(error)")
        #expect(error.code == .tooLarge)
    }

    @Test func aDeclaredOversizedBodyIsRefusedBeforeReading() async throws {
        let head = "HTTP/1.1 200 OK\r\nContent-Length: 1073741824\r\n\r\n"
        let (error, _, _) = try await failure(.endless(head: head, chunk: String(repeating: "b", count: 0x4000)), timeout: 30)
        #expect(error.message.contains("Content-Length: 1073741824"), "\(error)")
        #expect(error.code == .tooLarge)
    }

    @Test(arguments: ["gzip", "br", "deflate, gzip"])
    func compressionIsRefusedByNameAndNeverUndone(coding: String) async throws {
        // Ten bytes of "gzip" that would inflate to anything: refused, naming the coding, not inflated.
        let body = Data([0x1F, 0x8B, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03])
        let answer = Data("HTTP/1.1 200 OK\r\nContent-Encoding: \(coding)\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n".utf8) + body
        let server = try HostileServer(.fixed(answer))
        defer { server.stop() }
        let error = try await #require(throws: TransportError.self) {
            try await DefaultHTTPTransport(timeout: 5).send(TransportRequest(method: .get, url: server.url))
        }
        #expect(error.message.contains("Content-Encoding: \(coding)") && error.message.contains("does not decompress"), "\(error)")
        #expect(error.code == .badAnswer)
        // RFC 9110 §12.5.3: no Accept-Encoding would mean any coding is acceptable; identity is asked for.
        let request = try #require(server.received.first).lowercased()
        #expect(request.contains("accept-encoding: identity\r\n"), "\(request)")
    }

    @Test func anIdentityCodingIsAccepted() async throws {
        let answer = Data("HTTP/1.1 200 OK\r\nContent-Encoding: identity\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}".utf8)
        let server = try HostileServer(.fixed(answer))
        defer { server.stop() }
        let response = try await DefaultHTTPTransport(timeout: 5).send(TransportRequest(method: .get, url: server.url))
        #expect(response.body == Data("{}".utf8))
    }

    @Test func redirectsAreHandedBackNotFollowed() async throws {
        let answer = Data("HTTP/1.1 307 Temporary Redirect\r\nLocation: http://127.0.0.1:9/steal\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8)
        let server = try HostileServer(.fixed(answer))
        defer { server.stop() }
        let response = try await DefaultHTTPTransport(timeout: 5).send(TransportRequest(method: .post, url: server.url, body: Data("a=b".utf8)))
        #expect(response.status == 307)
        #expect(server.received.count == 1)
    }

    @Test func aResourceRedirectSaysItWasNotFollowed() throws {
        let error = OAuthClient.resourceError(TransportResponse(status: 307, headers: ["Location": "https://elsewhere.example/steal"]))
        let flow = try #require(error as? FlowError)
        #expect(flow.code == .unexpectedStatus)
        #expect(flow.message.contains("HTTP 307") && flow.message.contains("https://elsewhere.example/steal")
                && flow.message.contains("does not follow redirects"), "\(flow.message)")
        #expect(!"\(error)".contains("http_307"))
    }

    @Test func aStallIsDescribedByWhatArrived() {
        let (code, nothing) = AsyncHTTPClientTransport.explain(HTTPClientError.readTimeout, after: .seconds(30), limit: 60)
        #expect(nothing.contains("sent no answer") && !nothing.contains("stopped sending"), "\(nothing)")
        #expect(code == .timedOut)
    }

    @Test func aRefusedConnectionSaysSo() async throws {
        // A port no one listens on, below the kernel's own range: a server stopped for the purpose left its port, which
        // another test's connection or server could take before the connect (once seen: "connection reset by peer").
        let url = try #require(URL(string: "http://127.0.0.1:\(try unusedPort())/"))
        let error = try await #require(throws: TransportError.self) {
            try await DefaultHTTPTransport(timeout: 5).send(TransportRequest(method: .get, url: url))
        }
        #expect(error.message.contains("could not connect"), "\(error)")
        #expect(error.code == .unreachable, "\(error.code)")
        #expect(!error.message.contains("NSURLErrorDomain"))
    }

    /// A timeout, a refusal, an oversized answer and an insecure URL differ by code, not only by text.
    @Test func anInsecureURLIsRefusedWithItsCode() async throws {
        let error = try await #require(throws: TransportError.self) {
            _ = try await DefaultHTTPTransport(timeout: 5).fetchJSON(URL(string: "http://example.com/jwks")!, as: [String: JSONValue].self)
        }
        #expect(error.code == .insecure && error.code.description == "insecure")
    }
}
