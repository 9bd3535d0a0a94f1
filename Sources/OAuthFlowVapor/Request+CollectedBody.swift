import Foundation
import Vapor

/// How much of a request body the web routes read.
enum WebRouteLimits {
    /// A `form_post` callback or a logout token: a small urlencoded body.
    static let formBody = 64 * 1024
    /// What a route that reads no body lets Vapor collect (Vapor refuses a streamed body that reaches it).
    static let collectedBody = ByteCount(value: formBody + 1)
}

extension Request {
    /// The whole body, or nil when it is longer than `limit` bytes (then it is not read any further).
    ///
    /// A body that arrived in one piece is already in memory: its length is checked here, since
    /// Vapor's own limit applies only to a streamed body.
    func collectedBody(upTo limit: Int) async throws -> Data? {
        let buffer: ByteBuffer?
        do {
            buffer = try await eventLoop.flatSubmit { self.body.collect(max: limit + 1) }.get()
        } catch let error as Abort where error.status == .payloadTooLarge {
            return nil
        }
        guard let buffer else { return Data() }
        guard buffer.readableBytes <= limit else { return nil }
        return Data(buffer.readableBytesView)
    }
}

extension PathComponent {
    /// A path such as `/auth/v1` as constant components: a `:` or `*` in it is a character, never a parameter.
    static func constants(_ path: String) -> [PathComponent] {
        path.split(separator: "/").map { .constant(String($0)) }
    }
}
