import Foundation
import OAuthFlow

/// Wraps a transport and records every request, so tests can prove what was (not) sent.
public final class RecordingTransport: HTTPTransport, @unchecked Sendable {
    private let base: any HTTPTransport
    private let lock = NSLock()
    private var recorded: [HTTPRequest] = []

    public init(_ base: any HTTPTransport = DefaultHTTPTransport(timeout: 15)) {
        self.base = base
    }

    public var requests: [HTTPRequest] { lock.withLock { recorded } }

    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        lock.withLock { recorded.append(request) }
        return try await base.send(request)
    }
}

/// A transport that answers every request with one canned response, for failures a real server will not produce.
public struct CannedTransport: HTTPTransport {
    public let response: HTTPResponse

    public init(status: Int = 200, contentType: String = "application/json", body: String) {
        response = HTTPResponse(status: status, headers: ["Content-Type": contentType], body: Data(body.utf8))
    }

    public func send(_ request: HTTPRequest) async throws -> HTTPResponse { response }
}

/// A transport whose answers a test scripts, counting the requests per path.
public final class ScriptedTransport: HTTPTransport, @unchecked Sendable {
    private let lock = NSLock()
    private var counts: [String: Int] = [:]
    private let handler: @Sendable (HTTPRequest, Int) async throws -> HTTPResponse

    /// - Parameter handler: Answers a request, given how many requests (this one included) its path has had.
    public init(_ handler: @escaping @Sendable (HTTPRequest, Int) async throws -> HTTPResponse) {
        self.handler = handler
    }

    public func count(_ path: String) -> Int { lock.withLock { counts[path, default: 0] } }

    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let path = request.url.path
        let n = lock.withLock { () -> Int in
            counts[path, default: 0] += 1
            return counts[path, default: 0]
        }
        return try await handler(request, n)
    }
}
