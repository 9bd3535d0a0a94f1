#if NIO
import Foundation
import NIOCore
import OAuthFlow

/// Hands requests from the connections to the waiting task, one at a time.
final class Inbox: Sendable {
    let path: String
    let requests: AsyncStream<QueuedRequest>
    private let continuation: AsyncStream<QueuedRequest>.Continuation
    private let limits: LoopbackReceiver.Limits
    private let state = Locked(State())

    private struct State {
        var finished = false
        /// Whether the handler gave the answer that ends the wait.
        var answered = false
        /// The requests admitted and not yet answered.
        var waiting: [ObjectIdentifier: QueuedRequest] = [:]
    }

    init(path: String, limits: LoopbackReceiver.Limits) {
        self.path = path
        self.limits = limits
        (requests, continuation) = AsyncStream.makeStream()
    }

    var isFinished: Bool { state.withLock { $0.finished } }

    func finish() {
        state.withLock { $0.finished = true }
        continuation.finish()
    }

    /// Ends the wait with the handler's finishing answer: from now on ``holds(_:)`` is true, so the timeout
    /// cannot overtake the answer on its way out (between the handler and the waiting task's return).
    func finishAnswered() {
        state.withLock { $0.answered = true }
        finish()
    }

    /// The requests that arrived and are not answered yet: queued for the handler or being handled.
    var unanswered: Set<ObjectIdentifier> { state.withLock { Set($0.waiting.keys) } }

    /// Whether the timeout must wait: one of `arrived` (``unanswered`` when it fell due) is still queued (its queue
    /// timeout bounds that) or being handled (its steps have deadlines), or the finishing answer was given. Requests
    /// that arrive later do not count, so a stream of them cannot keep the wait open.
    func holds(_ arrived: Set<ObjectIdentifier>) -> Bool {
        state.withLock { state in state.answered || arrived.contains { state.waiting[$0] != nil } }
    }

    /// Answers 503 to every request still waiting that no one took: the receiver is closing.
    func abandonWaiting() {
        let waiting = state.withLock { $0.waiting.values }
        for queued in waiting where queued.claim() { queued.promise.succeed(LoopbackPages.busy) }
    }

    /// Queues a request; answers 410 at once when the wait is already over, and 503 when
    /// too many are waiting or this one waits too long.
    func submit(_ request: LoopbackRequest, promise: EventLoopPromise<LoopbackResponse>, on eventLoop: any EventLoop) {
        if isFinished {
            promise.succeed(LoopbackPages.alreadyDone)
            return
        }
        let queued = QueuedRequest(request: request, promise: promise)
        let id = ObjectIdentifier(queued)
        let admitted = state.withLock { state in
            guard state.waiting.count < limits.maximumQueuedRequests else { return false }
            state.waiting[id] = queued
            return true
        }
        guard admitted else {
            promise.succeed(LoopbackPages.busy)
            return
        }
        promise.futureResult.whenComplete { _ in self.state.withLock { _ = $0.waiting.removeValue(forKey: id) } }
        eventLoop.scheduleTask(in: limits.queueTimeout) {
            if queued.claim() { promise.succeed(LoopbackPages.busy) }
        }
        if case .terminated = continuation.yield(queued), queued.claim() {
            promise.succeed(LoopbackPages.alreadyDone)
        }
    }
}
#endif
