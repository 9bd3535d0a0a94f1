#if Vapor
import Foundation
import OAuthFlow
import OAuthFlowWeb
import Vapor

extension Request {
    /// The body, or its first `limit + 1` bytes when it is longer: a caller tells an oversized body by its
    /// length, and no more of it is kept.
    ///
    /// The route's body strategy is `.stream`. The answer comes as soon as the body ends or passes the limit;
    /// the rest of a longer one is read and dropped, as Vapor's own collection does, so the connection stays
    /// usable. A body that arrived in one piece is checked the same way (Vapor's `collect(max:)` only checks
    /// one that arrives in pieces).
    func body(readingAtMost limit: Int) async throws -> Data {
        let reading = BodyPrefix(limit: limit, promise: eventLoop.makePromise(of: Data.self))
        body.drain { part in
            reading.receive(part)
            return self.eventLoop.makeSucceededVoidFuture()
        }
        return try await reading.promise.futureResult.get()
    }
}

/// The first bytes of a body as they arrive, handed on once: at its end, or as soon as it passes the limit.
private final class BodyPrefix: @unchecked Sendable {
    let limit: Int
    let promise: EventLoopPromise<Data>
    private let lock = NSLock()
    private var data = Data()
    private var answered = false

    init(limit: Int, promise: EventLoopPromise<Data>) {
        self.limit = limit
        self.promise = promise
    }

    func receive(_ part: BodyStreamResult) {
        let outcome: Result<Data, any Error>? = lock.withLock {
            guard !answered else { return nil }
            switch part {
            case .buffer(let buffer):
                data.append(contentsOf: buffer.readableBytesView.prefix(limit + 1 - data.count))
                guard data.count > limit else { return nil }
            case .error(let error):
                answered = true
                return .failure(error)
            case .end:
                break
            }
            answered = true
            return .success(data)
        }
        if let outcome { promise.completeWith(outcome) }
    }
}

extension PathComponent {
    /// A path such as `/auth/v1` as constant components: a `:` or `*` in it is a character, never a parameter.
    static func constants(_ path: String) -> [PathComponent] {
        path.split(separator: "/").map { .constant(String($0)) }
    }
}
#endif
