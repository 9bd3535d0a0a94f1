import Foundation
import Hummingbird
import OAuthFlow
import OAuthFlowTestSupport
import Testing

/// The race behind a refused connection in MCPEnterpriseEndToEndTests: a port found free is taken by another test's
/// server before the application binds it. "Something answers on the port" is then true of the other server.
@Suite struct LoopbackApplicationTests {
    @available(macOS 14, iOS 17, tvOS 17, *)
    static func answering(_ text: String) -> (Int) throws -> Router<BasicRequestContext> {
        { _ in
            let router = Router()
            router.get("who") { _, _ in text }
            return router
        }
    }

    @available(macOS 14, iOS 17, tvOS 17, *)
    static func who(_ app: LoopbackApplication) async throws -> String {
        let answer = try await DefaultHTTPTransport(timeout: 5).send(TransportRequest(method: .get, url: try app.url("/who")))
        return String(decoding: answer.body, as: UTF8.self)
    }

    @available(macOS 14, iOS 17, tvOS 17, *)
    @Test func aPortTakenSinceItWasFoundFreeIsNotMistakenForTheApplications() async throws {
        let other = try await LoopbackApplication.start(label: "other", Self.answering("other"))
        var offered = [other.port]
        let app = try await LoopbackApplication.start(label: "mine", nextPort: { offered.isEmpty ? try unusedPort() : offered.removeFirst() }, Self.answering("mine"))
        #expect(app.port != other.port, "the taken port was given up, the next one bound")
        #expect(try await Self.who(app) == "mine")
        // The probe the tests used before cannot tell: on the taken port, the other server answers.
        let probe = try #require(URL(string: "http://127.0.0.1:\(other.port)/who"))
        let answer = try await DefaultHTTPTransport(timeout: 5).send(TransportRequest(method: .get, url: probe))
        #expect(String(decoding: answer.body, as: UTF8.self) == "other")
        await app.stop()
        await other.stop()
    }

    @available(macOS 14, iOS 17, tvOS 17, *)
    @Test func noFreePortIsAClearError() async throws {
        let other = try await LoopbackApplication.start(label: "other", Self.answering("other"))
        await #expect(throws: LoopbackApplicationError.self) {
            _ = try await LoopbackApplication.start(label: "mine", attempts: 2, nextPort: { other.port }, Self.answering("mine"))
        }
        await other.stop()
    }
}
