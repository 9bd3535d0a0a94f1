#if NIO
import Foundation
import NIOCore
import OAuthFlow

/// A request waiting for the handler; answered by the handler or, after the queue timeout, with 503.
final class QueuedRequest: Sendable {
    let request: LoopbackRequest
    let promise: EventLoopPromise<LoopbackResponse>
    private let claimed = Locked(false)

    init(request: LoopbackRequest, promise: EventLoopPromise<LoopbackResponse>) {
        self.request = request
        self.promise = promise
    }

    /// Takes the right to answer; false when someone already did.
    func claim() -> Bool {
        claimed.withLock { claimed in
            defer { claimed = true }
            return !claimed
        }
    }
}
#endif
